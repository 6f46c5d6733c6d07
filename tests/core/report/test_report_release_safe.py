"""What the ledger and the review-board report say is what was enforced and released: Kaleido's ε and its
person-level bound, plausible deniability not DP as implemented, a data-sized canvas flagged, people covered only
by releases about everyone kept, figures of the unprotected data apart (and left out of the release-safe report),
formulas as math, settings in words and no participant id."""
from __future__ import annotations

import math
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.explain import NOT_DP, kaleido_guarantee, pd_guarantee_words
from eyedp_core.gazestream.kaleido import kaleido_plan, person_bound
from eyedp_core.report import SECTIONS, Artefact, ReportInput, build_html, person_table
from eyedp_core.report.formula import tex_to_html
from eyedp_core.report.html import fmt

HM = Release(view="Heatmaps", label="heatmap of 'comic'", unit="observer", mechanism="gaussian (analytic)",
             sensitivity_type="public", epsilon=3.0, delta=1e-6, participants=tuple(f"O{i:02d}" for i in range(40)))
TS = Release(view="Time series", label="CFPA-32", unit="participant", mechanism="CFPA", sensitivity_type="public",
             epsilon=0.01, count=480)
FACTS = {"view": "Heatmaps", "unit": "observer",
         "sensitivity": {"L2": 0.0125, "how": "public: from the caps",
                         "L2 formula": r"\Delta_2 = 3\cdot\sqrt{1200} / 40 = 2.598"},
         "calibration": {"mechanism": "gaussian", "method": "analytic", "scale": 0.0421, "std": 0.0421,
                         "epsilon": 3.0, "delta": 1e-6, "sensitivity": 0.0125,
                         "formula_tex": r"\sigma = \frac{\Delta_2}{\varepsilon}\sqrt{2\ln(1.25/\delta)}",
                         "plugged_tex": r"\sigma = 0.0421", "guarantee": "(ε, δ)-DP", "valid": True, "note": ""},
         "utility": {"CC": 0.6812, "NMSE": 0.1234}, "data_derived": [], "correlation": "observer's whole map"}
ATTACKS = [{"task": "re-identification", "mechanism": "clean", "epsilon": float("nan"), "scenario": "clean",
            "accuracy": 0.9731, "chance": 0.05},
           {"task": "re-identification", "mechanism": "CFPA", "epsilon": 1.0, "scenario": "noisy",
            "accuracy": 0.4172, "chance": 0.05}]
SETTINGS = {"hm_eps": 3.0, "hm_mech": "gaussian", "ts_participant": "P07", "gs_participant": "P09"}
LABELS = {"hm_eps": "ε — privacy loss (log scale)", "hm_mech": "Noise"}


def _input(release_safe: bool) -> ReportInput:
    ledger = Ledger([HM, TS])
    arts = [Artefact(HM, page="heatmaps", facts=FACTS, settings=SETTINGS), Artefact(TS, page="time_series")]
    return ReportInput(ledger=ledger, artefacts=arts,
                       data={"Fixations: sample": {"rows": 3017, "observers": 40, "origin": "bundled sample"}},
                       config_json='{"format": "eyedp-settings/1", "settings": {"hm_eps": 3.0}}',
                       version={"eyedp": "0.1.0"}, epsilon_cap=10.0, view_facts={"heatmaps": FACTS},
                       attacks=ATTACKS, preview_pages=["Heatmaps"], release_safe=release_safe, setting_labels=LABELS)


def _section(doc: str, key: str) -> str:
    m = re.search(rf'<section id="{key}">(.*?)</section>', doc, re.S)
    assert m, f"section {key} missing"
    return m.group(1)


def _outside_settings_file(doc: str) -> str:
    return re.sub(r"<details>.*?</details>", "", doc, flags=re.S)


@pytest.mark.parametrize("safe", [True, False])
def test_the_report_opens_with_the_verdict_and_has_no_latex_no_widget_key_and_no_participant_id(safe: bool) -> None:
    doc = build_html(_input(safe))
    assert list(re.findall(r'<section id="(\w+)">', doc)) == list(SECTIONS)  # the verdict comes first
    verdict = _section(doc, "verdict")
    eps = Ledger([HM, TS]).total()[0]
    assert eps == pytest.approx(3.0 + 4.8)
    assert f"ε = {fmt(eps)}" in verdict and "Who is protected" in verdict and "observer" in verdict
    assert "Caveats" in verdict
    body = _outside_settings_file(doc)
    assert "\\" not in body  # no LaTeX source anywhere a reader looks
    assert "σ = Δ<sub>2</sub>/ε" in _section(doc, "artefacts")
    assert "hm_eps" not in body and "hm_mech" not in body
    assert "ε — privacy loss (log scale): 3" in _section(doc, "artefacts") and "Noise: gaussian" in body
    assert "P07" not in doc and "P09" not in doc  # neither in the text nor in the settings file


def test_the_release_safe_report_leaves_out_every_figure_of_the_unprotected_data() -> None:
    safe = build_html(_input(True))
    full = build_html(_input(False))
    for figure in ("0.6812", "0.1234", "0.9731", "0.4172", "3,017"):  # CC, NMSE, attack accuracies, exact rows
        assert figure not in safe, figure
        assert figure in _section(full, "unprotected"), figure
        for key in SECTIONS:  # in the full report only inside the marked curator section ...
            if key not in ("unprotected", "verdict"):
                assert figure not in _section(full, key), (figure, key)
    assert "NOT PROTECTED" in _section(full, "unprotected")
    assert "Left out of this release-safe report" in _section(safe, "unprotected")
    # ... or in the verdict's attack line, which says it was measured on the unprotected data.
    assert "measured on the unprotected data" in _section(full, "verdict")
    assert "observers: 40" in _section(safe, "data")  # n is public: it sets the sensitivity


def test_formulas_read_as_math() -> None:
    assert tex_to_html(r"b = \Delta_1/\varepsilon") == "b = Δ<sub>1</sub>/ε"
    assert tex_to_html(r"\Delta_2 = \min(m\sqrt{r},\ \sqrt{2mC})/n") == "Δ<sub>2</sub> = min(m√r, √(2mC))/n"
    assert tex_to_html(r"1.2 \times 10^{-5}") == "1.2 × 10<sup>-5</sup>"
    assert tex_to_html(r"\frac{a}{2\sigma}") == "a/(2σ)"
    assert "\\" not in tex_to_html(r"\unknowncommand{x} \mathrm{NaN}")


def test_people_covered_only_by_releases_about_everyone_keep_their_row() -> None:
    table = person_table(Ledger([HM, TS]), 10.0).set_index("Person")
    other = [p for p in table.index if p.startswith("everyone else")]
    assert other, list(table.index)
    assert table.loc[other[0], "Total ε"] == pytest.approx(TS.epsilon_total)
    assert table.loc[other[0], "Protected as"] == "participant"
    assert table["Total ε"].max() == pytest.approx(HM.epsilon + TS.epsilon_total)


def test_kaleido_entry_manifest_words_and_card_agree_on_the_person_level_bound() -> None:
    from ui.share.exports import kaleido_entry

    geometry = Geometry.from_cm(1920, 1080, 53.0, 30.0, 65.0)
    bound = person_bound(epsilon=1.0, w=50, r=72.0, n_max=6000, screen_px=(1920, 1080))
    d_max = math.hypot(1920, 1080)
    assert bound.windows == 120 and bound.distance_factor == pytest.approx(d_max / 72.0)
    assert bound.person_epsilon == pytest.approx(1.0 * 120 * d_max / 72.0)
    entry = kaleido_entry(bound, ("P01", "P02"))
    assert entry.epsilon_total == pytest.approx(bound.person_epsilon)
    assert entry.unit == "w-event" and "per 50-sample window within r = 72 px" in entry.label
    assert "ε·⌈n/w⌉·d_max/r" in entry.meaning and f"{bound.person_epsilon:.4g}" in entry.meaning
    warnings = Ledger([entry]).warnings()
    assert any("ε·⌈n/w⌉·d_max/r" in w for w in warnings)
    assert not any("worst case for the person is the sum" in w for w in warnings)  # not the bare ε·⌈n/w⌉
    doc = build_html(ReportInput(ledger=Ledger([entry]), artefacts=[Artefact(entry)], data={}, config_json="{}",
                                 version={}))
    assert "ε·⌈n/w⌉·d_max/r" in _section(doc, "artefacts") and "ε·⌈n/w⌉·d_max/r" in _section(doc, "composition")
    plan = kaleido_plan(epsilon=1.0, w=50, t_skip=12, h=2.0, r=72.0, l_thresh=48.0)
    card = kaleido_guarantee(plan, 250.0, 6000, geometry).words
    assert f"{bound.person_epsilon:.3g}" in card and "charges to the ledger" in card
    assert "never charges" not in card


def test_randomised_plausible_deniability_is_shown_as_not_dp_as_implemented() -> None:
    g = pd_guarantee_words("randomised", 4, 2.0, 1.0)
    assert g.verdict == "not-dp" and g.badge == NOT_DP
    assert "not DP as implemented" in g.headline and "under its seed's participant" in g.words
    assert "as claimed" not in g.headline


def test_a_blank_canvas_sized_from_the_data_is_flagged_on_the_heatmap_ledger_entry() -> None:
    from ui import state
    from ui.heatmaps.release import with_canvas_caveat

    frame = pd.DataFrame({"observer": ["a", "b"], "x": [100.0, 1919.0], "y": [50.0, 600.0], "duration": [0.2, 0.3]})
    ds = state.Dataset("fixations", "Upload: f.csv", "upload", state.content_token(frame), frame)
    state.st.session_state.pop(state.CANVAS_KEY, None)
    (stim,) = state.blank_stimuli(ds, {}).values()
    assert state.data_derived_canvas(stim) == ("blank canvas size 1920 × 601 px (the extent of the uploaded fixations)",)
    entry = with_canvas_caveat(HM, SimpleNamespace(stimulus=stim))
    assert entry.data_derived_parameters == state.data_derived_canvas(stim)
    assert any("blank canvas size 1920 × 601 px" in w and "read off the private data" in w
               for w in Ledger([entry]).warnings())
    # Declared by the user: public, nothing flagged.
    state.set_canvas_size(ds.name, 1920, 1080)
    (stim,) = state.blank_stimuli(ds, {}).values()
    assert state.data_derived_canvas(stim) == ()
    assert with_canvas_caveat(HM, SimpleNamespace(stimulus=stim)) == HM
    assert np.asarray(stim.image).shape[:2] == (1080, 1920)


def test_the_pdf_is_printed_without_writing_the_report_to_disk() -> None:
    """The report goes to Chromium and the PDF comes back over its DevTools pipe: with HOME and TMPDIR pointed at an
    empty folder, no file anywhere under it holds the report's text afterwards (and Chromium's profile is gone)."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    if not (shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")):
        pytest.skip("no headless Chromium on this machine")
    import tempfile

    # A short folder: Chromium's profile holds a Unix socket, whose path must stay under ~100 characters.
    tmp_path = Path(tempfile.mkdtemp(prefix="eyedp_t", dir="/tmp"))
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    marker = "REPORT_MARKER_5b1f9c"
    # Any file Python opens for writing during the print is reported (a report.html written to a temporary
    # folder and deleted afterwards would leave no trace: only watching the writes catches that).
    code = ("import builtins, io, sys\n"
            "real = io.open\n"
            "def spy(file, mode='r', *a, **k):\n"
            "    if not isinstance(file, int) and any(c in mode for c in 'wax+'):  # an int is a pipe's fd\n"
            "        sys.stderr.write(f'WROTE {file}\\n')\n"
            "    return real(file, mode, *a, **k)\n"
            "builtins.open = io.open = spy\n"
            "from ui.share.report import html_to_pdf\n"
            f"pdf = html_to_pdf('<!DOCTYPE html><html><body><h1>{marker}</h1></body></html>')\n"
            "sys.stdout.buffer.write(pdf or b'')\n")
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp), "PYTHONPATH": str(root)}
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, cwd=root, timeout=180)
        assert out.stdout[:4] == b"%PDF", out.stderr[-2000:]
        assert b"WROTE" not in out.stderr, out.stderr.decode()[-2000:]
        leftovers = [p for p in tmp_path.rglob("*") if p.is_file() and marker.encode() in p.read_bytes()]
        assert leftovers == []
        assert not [p for p in tmp.iterdir() if p.name.startswith("eyedp_pdf_")]
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)
