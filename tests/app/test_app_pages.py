"""Every page run headless with Streamlit's AppTest, on the bundled samples and on uploads."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest import metric_value, open_app, page_text, shown_numbers
from ui.text import md_text

ROOT = Path(__file__).resolve().parents[2]

PAGES = ["pages/home.py", "pages/heatmaps.py", "pages/time_series.py", "pages/attacks.py",
         "pages/gaze_samples.py", "pages/report.py", "pages/your_data.py"]


@pytest.mark.parametrize("path", PAGES)
def test_page_runs_on_sample_data(path):
    """Each page renders without an exception and shows its title."""
    at = open_app()
    at.switch_page(path).run()
    assert not at.exception, at.exception
    assert at.title, f"{path} shows no title"


def test_home_explains_epsilon_and_lists_data():
    """The home page explains ε with the odds reading, lists the loaded samples with all their columns,
    and reads the attacker's odds in bounded words."""
    at = open_app()
    text = page_text(at)
    assert "e^ε" in text and "odds" in text
    table = next(m.value for m in at.markdown if m.value.startswith("| kind | dataset"))
    rows = {r.split("|")[1].strip(" *"): [c.strip() for c in r.split("|")[2:-1]] for r in table.splitlines()[2:]}
    feats = state_frame("reading_features")
    name, source, n_rows, people, cols = rows["Feature windows"]
    assert (name, source) == ("Sample: reading features", "sample")
    assert int(n_rows.replace(",", "")) == len(feats) and int(people) == feats["participant"].nunique()
    # The cell names the count and the first few columns; every column is listed once, in an expander below.
    assert cols.startswith(f"{feats.shape[1]}: ") and f"({feats.shape[1] - 8} more, listed below)" in cols
    assert str(feats.columns[-1]) not in cols
    listed = next(e for e in at.expander if e.label == f"All {feats.shape[1]} columns of the feature windows")
    assert listed.markdown[0].value.split(", ")[-1] == md_text(str(feats.columns[-1]))
    fix = state_frame("fixations")
    assert int(rows["Fixations"][2].replace(",", "")) == len(fix) and int(rows["Fixations"][3]) == fix["observer"].nunique()
    # Moving ε changes the odds to e^ε of the new value, in words.
    at.select_slider(key="home_eps").set_value(3.0).run()
    odds = dict(shown_numbers(at))
    assert odds["An attacker's odds grow by at most (e^ε)"] == "20.1 to one"
    at.select_slider(key="home_eps").set_value(20.0).run()
    odds, text = dict(shown_numbers(at)), page_text(at)
    assert odds["An attacker's odds grow by at most (e^ε)"] == "more than a million to one"
    assert odds["A 50 % belief rises to at most"] == "> 99.9 %"
    assert "e+08" not in text and "100.0 %" not in text


def test_home_bounds_a_few_beliefs_and_draws_the_curve_on_request():
    """The prior -> posterior table is Bayes with likelihood ratio e^ε (1 % at ε = 1: at most 2.7 %); the chart is
    drawn only when asked for, and its worst-case curve is the same bound."""
    at = open_app()
    shown = next(m.value for m in at.markdown if "\n| belief before" in m.value)
    table = shown[shown.index("| belief before"):]
    rows = [[c.strip().replace("\u00a0", " ") for c in line.split("|")[1:-1]] for line in table.splitlines()[2:]]
    assert [r[0] for r in rows] == ["1 %", "10 %", "50 %", "90 %"]
    cells = [r[1] for r in rows]
    want = [0.01 * np.e / (0.01 * np.e + 0.99), 0.1 * np.e / (0.1 * np.e + 0.9), np.e / (np.e + 1), 0.9 * np.e / (0.9 * np.e + 0.1)]
    assert [float(c.rstrip(" %")) for c in cells] == pytest.approx([100 * w for w in want], abs=0.051)
    assert not at.get("plotly_chart")
    at.toggle(key="home_curve").set_value(True).run()
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    import base64
    import json

    def arr(v):  # Plotly sends arrays as {"dtype", "bdata": base64}
        return np.frombuffer(base64.b64decode(v["bdata"]), v["dtype"]) if isinstance(v, dict) else np.asarray(v)

    trace = json.loads(charts[0].proto.spec)["data"][1]
    x, y = arr(trace["x"]).astype(float), arr(trace["y"]).astype(float)
    np.testing.assert_allclose(y, x * np.e / (x * np.e + 1 - x), rtol=1e-9)


def test_home_has_a_card_for_every_view():
    """One card (page link) per view, Your data included."""
    at = open_app()
    links = {link.proto.page for link in at.main.get("page_link")}  # the sidebar's upload link not counted
    assert links == {Path(path).stem for path in PAGES[1:]}


def state_frame(name: str) -> pd.DataFrame:
    """A bundled sample table, as the pages see it."""
    from eyedp_core.data import bundled
    return bundled.load_sample(name)


def _upload_features(at: AppTest, csv: bytes, name: str = "mine.csv") -> AppTest:
    """Go to Your data, choose feature windows, upload csv bytes."""
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value("features").run()
    at.file_uploader(key="uploader_features").set_value((name, csv, "text/csv")).run()
    return at


def test_feature_upload_is_selected_and_used_by_pages():
    """An uploaded feature CSV becomes the sidebar selection and the Time series page uses it."""
    rng = np.random.default_rng(1)
    n = 60
    df = pd.DataFrame({"pid": np.repeat(["a", "b"], n), "blink_rate": rng.uniform(0, 1, 2 * n),
                       "fix_mean": rng.uniform(100, 300, 2 * n)})
    at = _upload_features(open_app(), df.to_csv(index=False).encode())
    assert not at.exception, at.exception
    at.selectbox(key="map_features_participant").set_value("pid").run()
    at.button[0].click().run()
    assert not at.exception, at.exception
    assert "loaded (120 rows)" in page_text(at)
    assert at.sidebar.selectbox(key="sel_features").value == "Upload: mine.csv"
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert set(at.selectbox(key="ts_participant").options) == {"a", "b"}


def test_bad_feature_upload_names_file_row_and_column():
    """A non-numeric feature value gives a message with the file, the row and the column."""
    csv = b"participant,blink_rate\np1,0.2\np1,abc\np2,0.3\n"
    at = _upload_features(open_app(), csv, "bad.csv")
    at.selectbox(key="map_features_participant").set_value("participant").run()
    at.button[0].click().run()
    assert not at.exception
    err = " ".join(e.value for e in at.error)
    assert "bad.csv" in err and "blink_rate" in err and "3" in err


def test_non_image_upload_is_refused_clearly():
    """A text file posing as a PNG is refused with a message naming it."""
    at = open_app()
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value("image").run()
    at.file_uploader(key="uploader_image").set_value(("stim.png", b"not an image at all", "image/png")).run()
    assert not at.exception
    assert "stim.png" in " ".join(e.value for e in at.error)


def _upload(at: AppTest, kind: str, name: str, data: bytes, mapping: dict[str, str]) -> AppTest:
    """Upload a table of `kind` on the Your data page, map its columns, press 'Use this data'."""
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value(kind).run()
    at.file_uploader(key=f"uploader_{kind}").set_value((name, data, "text/csv")).run()
    for role, col in mapping.items():
        at.selectbox(key=f"map_{kind}_{role}").set_value(col).run()
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def test_gaze_upload_in_milliseconds_drives_the_gaze_page():
    """A gaze export with its own column names and ms timestamps is mapped, converted and plotted."""
    from eyedp_core.data import bundled

    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"].isin(["P01", "P02"])].groupby("participant").head(1500)
    mine = pd.DataFrame({"subject": g["participant"].str.replace("P", "S"), "time_ms": g["t_s"] * 1000,
                         "gx": g["x"], "gy": g["y"], "pupil_mm": g["pupil"]})
    at = _upload(open_app(), "gaze", "tracker.csv", mine.to_csv(index=False).encode(),
                 {"participant": "subject", "t_s": "time_ms", "x": "gx", "y": "gy"})
    assert at.sidebar.selectbox(key="sel_gaze").value == "Upload: tracker.csv"
    at.switch_page("pages/gaze_samples.py").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="gs_participant").options == ["S01", "S02"]
    # ms were converted to seconds: 1500 samples at 120 Hz span about 12.5 s.
    assert at.slider(key="gs_window").max == pytest.approx(1499 / 120, abs=0.05)
    fix_rate = metric_value(at, "Fixations / s")
    assert 1.0 < fix_rate < 6.0


def test_feature_upload_drives_the_attacks_page():
    """An uploaded feature table with participant, task and gender runs the clean attack baseline."""
    from eyedp_core.data import bundled

    f = bundled.load_sample("reading_features")
    f = f[f["participant"].isin([f"P{i:02d}" for i in range(1, 7)])].iloc[::4]
    at = _upload(open_app(), "features", "feat.csv", f.to_csv(index=False).encode(), {})
    at.switch_page("pages/attacks.py").run()
    assert not at.exception, at.exception
    assert "feat.csv" in page_text(at) and "6 participants" in page_text(at)


def test_report_composes_releases_per_person():
    """The Report page shows the worst-case total: releases over the same person add up, disjoint ones do not."""
    from eyedp_core.dp.accounting import Ledger, Release

    ledger = Ledger()
    ledger.add(Release(view="Time series", label="CFPA-32, 48 features", unit="participant", mechanism="CFPA",
                       sensitivity_type="public", epsilon=0.01, count=48 * 36, participants=("P01", "P02")))
    ledger.add(Release(view="Heatmaps", label="webpage", unit="observer", mechanism="Gaussian",
                       sensitivity_type="public", epsilon=1.0, delta=1e-6, participants=("P02",)))
    at = open_app()
    at.session_state["eyedp_ledger"] = ledger
    at.switch_page("pages/report.py").run()
    assert not at.exception, at.exception
    shown = {m.label: m.value for m in at.main.metric}
    assert float(shown["Worst-case ε per person"]) == pytest.approx(0.01 * 48 * 36 + 1.0, rel=1e-3)
    people = next(t.value for t in at.table if "Person" in t.value.columns).set_index("Person")
    assert float(people.loc["P01", "Total ε"]) == pytest.approx(17.28, rel=1e-3)
    assert float(people.loc["P02", "Total ε"]) == pytest.approx(18.28, rel=1e-3)
    # Each row says how the person was protected: P02 is also an observer of the heatmap.
    assert people.loc["P01", "Protected as"] == "participant"
    assert people.loc["P02", "Protected as"] == "observer / participant"
