"""Areas of interest on a fixation upload without an image: the grid is cut from the upload's declared screen (a
public canvas), so two neighbouring uploads (one observer's extreme fixation at x = 900.3 or 1,900.7) export the
same AOI definitions and manifest; where no screen was declared the canvas is the fixations' extent, and every
ledger entry, the manifest's caveats and the report flag it as read off the data."""
from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.apptest import upload_file, use_data

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
PAGE = "pages/areas_of_interest.py"
EXTREME = (900.3, 1900.7)  # the last observer's far-right fixation in each neighbour


def _fixations(extreme_x: float) -> bytes:
    """Six observers, 12 fixations each inside 800 × 800 px; observer s5's last one at (extreme_x, 799.5)."""
    rng = np.random.default_rng(11)
    rows = [(f"s{o}", rng.uniform(0, 800), rng.uniform(0, 790), rng.uniform(100, 400)) for o in range(6)
            for _ in range(12)]
    rows.append(("s5", extreme_x, 799.5, 250.0))
    return pd.DataFrame(rows, columns=["subject", "x", "y", "duration"]).to_csv(index=False).encode()


def _aoi_page(extreme_x: float, declared: bool = True) -> AppTest:
    """A session with the neighbour uploaded (no image, no stimulus column), on the Areas of interest page;
    declared=False forgets the screen declared with the upload (a table that reached the app without one)."""
    at = upload_file("fixations", "fix.csv", _fixations(extreme_x))
    use_data(at)
    if not declared:
        from ui.state import GEOMETRY_KEY  # noqa: PLC0415 - the session's declared screens

        at.session_state[GEOMETRY_KEY] = {}
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="aoi_stimulus").value == "fix.csv (blank canvas)"
    return at


def _releases(at: AppTest) -> list:
    """The session ledger's entries (a stored ledger may hold earlier sessions' too)."""
    from ui.state import LEDGER_KEY  # noqa: PLC0415 - the session's ledger object

    return list(at.session_state[LEDGER_KEY].releases)


def _export(at: AppTest) -> tuple[dict, list]:
    """Press export; -> the manifest and the ledger entries the export added."""
    before = len(_releases(at))
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    added = _releases(at)[before:]
    assert added and all(r.view == "Areas of interest" for r in added)
    return json.loads(at.session_state["aoi_release_result"][1]), added


def test_declared_screen_makes_neighbouring_exports_identical() -> None:
    """The canvas is the upload's screen (1920 × 1080, the preset declared on Your data), as on Heatmaps: no
    choice of a data-sized canvas is offered. The grid, the AOI definitions and the whole manifest are equal
    between the neighbours (the noise is not in the manifest), and nothing is flagged."""
    manifests = []
    for x in EXTREME:
        at = _aoi_page(x)
        assert not [r for r in at.radio if r.key == "aoi_canvas"]
        assert not [w for w in at.warning if "read off the private data" in w.value]
        man, entries = _export(at)
        assert not man["caveats"] and not man["data_derived_parameters"]
        assert all(not r.data_derived_parameters for r in entries)
        manifests.append(man)
    assert manifests[0] == manifests[1]
    corners = {(a["x1"], a["y1"]) for a in manifests[0]["aois"]}
    assert max(corners) == (1920.0, 1080.0)


def test_canvas_from_the_extent_is_flagged_in_ledger_manifest_and_report() -> None:
    """Kept at the fixations' extent, the grid's largest corner follows the extreme fixation (901 vs 1901 px
    wide): each export says so in every ledger entry, its manifest's caveats and the report's AOI section."""
    corners = []
    for x in EXTREME:
        at = _aoi_page(x, declared=False)
        assert at.radio(key="aoi_canvas").value == "extent"  # the only canvas there is
        assert "read off the private data" in " ".join(w.value for w in at.warning)
        man, entries = _export(at)
        corners.append(max(a["x1"] for a in man["aois"]))
        what = f"blank canvas size {int(x) + 1} × 800 px (the extent of the uploaded fixations)"
        assert man["data_derived_parameters"] == [what]
        assert any(what in c for c in man["caveats"])
        assert len(entries) == 3 and all(r.data_derived_parameters == (what,) for r in entries)
        facts = at.session_state["eyedp_release_context"][-1]["facts"]
        assert facts["data_derived"] == [what]
    assert corners == [901.0, 1901.0]
    # The release-safe report (Report page) flags it in the AOI section, not "Not flagged".
    at.switch_page("pages/report.py").run()
    at.button(key="rp_build").click().run()
    assert not at.exception, at.exception
    doc = at.session_state["rp_report_html"].decode()
    assert f"Flagged: the {what} was read off the private data" in doc


def test_heatmaps_draws_an_imageless_upload_on_its_declared_screen() -> None:
    """Heatmaps takes the same public canvas: the upload's declared 1920 × 1080 screen, not the fixations'
    extent (901 or 1901 px wide in the neighbours), and no canvas warning or flag."""
    for x in EXTREME:
        at = upload_file("fixations", "fix.csv", _fixations(x))
        use_data(at)
        at.switch_page("pages/heatmaps.py").run()
        at.sidebar.selectbox(key="sel_fixations").set_value("Upload: fix.csv").run()
        assert not at.exception, at.exception
        assert at.selectbox(key="hm_stimulus").value == "fix.csv (blank canvas)"
        text = " ".join(str(e.value) for e in [*at.warning, *at.markdown, *at.caption])
        assert "'fix.csv (blank canvas)' (1920 × 1080 px)" in text
        assert "read off the private data" not in " ".join(w.value for w in at.warning)
