"""The Time series page headless (AppTest): budget numbers against the formulas, every panel, uploads, bad data."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.choices import DEFAULT_LENGTH
from tests.apptest import metric_value, open_app, page_text, shown_numbers
from tests.core.timeseries.test_timeseries_k import _kept_l1_by_fft

ROOT = Path(__file__).resolve().parents[2]

PANELS = ["utility", "k", "corr", "acct", "steil", "table"]


def _ts() -> AppTest:
    """A fresh session on the Time series page (bundled sample), no exception."""
    return open_app("pages/time_series.py")


def _feature_table(at: AppTest) -> pd.DataFrame:
    """The per-feature table panel's frame (feature, L, U, ... , NMSE)."""
    at.segmented_control(key="ts_panel").set_value("table").run()
    assert not at.exception, at.exception
    frames = [d.value for d in at.dataframe if "feature" in d.value.columns and "L" in d.value.columns]
    assert frames, "the per-feature table is missing"
    return frames[0]


def _upload(at: AppTest, df_or_csv: pd.DataFrame | bytes, name: str, participant: str | None = None) -> AppTest:
    """Upload a feature CSV through the Your data page (as in test_app_pages), then go to Time series."""
    csv = df_or_csv if isinstance(df_or_csv, bytes) else df_or_csv.to_csv(index=False).encode()
    at.switch_page("pages/your_data.py").run()
    at.radio(key="upload_kind").set_value("features").run()
    at.file_uploader(key="uploader_features").set_value((name, csv, "text/csv")).run()
    if participant is not None:
        at.selectbox(key="map_features_participant").set_value(participant).run()
    at.button[0].click().run()
    assert not at.exception, at.exception
    return at


def _features(rng: np.random.Generator, lengths: dict[tuple[str, str], int]) -> pd.DataFrame:
    """Feature windows for (participant, task) -> number of windows: one known and one unknown feature."""
    rows = []
    for (p, task), n in lengths.items():
        walk = np.clip(0.5 + np.cumsum(rng.normal(0, 0.03, n)), 0.05, 0.95)
        rows.append(pd.DataFrame({"participant": p, "task": task, "window": np.arange(n),
                                  "t_start_s": 0.5 * np.arange(n), "sacc_large_ratio": walk,
                                  "my_score": 40 + 20 * walk + rng.normal(0, 1, n)}))
    return pd.concat(rows, ignore_index=True)


# ---------------------------------------------------------------------------------------------------------------
# sample data: noise scale and accounting against the formulas


@pytest.mark.parametrize("mech", [Mech.CFPA, Mech.DCFPA, Mech.FPA, Mech.LPA])
def test_eps_moves_the_noise_scale_as_the_formula_says(mech):
    """λ = √(k·n)·Δ2/ε (Δ2 = √n·R, DCFPA √(4n−3)·R) and LPA b = T·R/ε, from the shown k, chunk, T and bounds."""
    at = _ts()
    table = _feature_table(at)  # also keeps the sweep out of the loop below
    at.radio(key="ts_mode").set_value("paper").run()
    at.segmented_control(key="ts_mech").set_value(mech).run()
    feature = at.selectbox(key="ts_feature").value
    row = table[table["feature"].str.split(" ").str[0] == feature].iloc[0]
    r = row["U"] - row["L"]
    t = int(at.number_input(key="ts_length").value)
    seen = set()
    for eps in (0.1, 3.0, 30.0):
        at.select_slider(key="ts_eps").set_value(eps).run()
        assert not at.exception, at.exception
        eps_inv = metric_value(at, "ε per")
        assert eps_inv == pytest.approx(eps)  # "as in the paper": the slider is the per-invocation ε
        k = at.slider(key="ts_k").value
        if mech in (Mech.CFPA, Mech.DCFPA):
            n = min(int(at.segmented_control(key="ts_chunk").value), t)
        else:
            n = t
        if mech is Mech.LPA:
            want = t * r / eps_inv
        else:
            d2 = math.sqrt(4 * n - 3) * r if mech is Mech.DCFPA else math.sqrt(n) * r
            want = math.sqrt(k * n) * d2 / eps_inv
            if mech is Mech.DCFPA:  # the smaller of the generic and the kept-coefficient L1 bound (§4)
                want = min(want, r * _kept_l1_by_fft(n, k) / eps_inv)
        shown = metric_value(at, "Noise scale")
        assert shown == pytest.approx(want, rel=5e-4), (mech, eps, k, n)
        seen.add(shown)
    assert len(seen) == 3, "moving ε must change the noise scale"


def test_manual_k_and_chunk_change_the_scale():
    """Manual k and the 64 chunk: λ follows √(k·n)·√n·R/ε."""
    at = _ts()
    _feature_table(at)
    at.radio(key="ts_mode").set_value("paper").run()
    at.segmented_control(key="ts_k_src").set_value("manual").run()
    at.segmented_control(key="ts_chunk").set_value("64").run()
    at.slider(key="ts_k").set_value(5).run()
    assert not at.exception, at.exception
    assert at.slider(key="ts_k").value == 5
    assert metric_value(at, "Noise scale") == pytest.approx(math.sqrt(5 * 64) * math.sqrt(64) * 1.0 / 1.0, rel=5e-4)


def test_paper_and_participant_modes_compose_as_section_3():
    """Paper mode: participant ε = F·C·recordings·ε_c; same-total mode: ε_c = ε/(F·C·recordings)."""
    at = _ts()
    _feature_table(at)
    at.radio(key="ts_mode").set_value("paper").run()
    at.select_slider(key="ts_eps").set_value(2.0).run()
    f = len(at.multiselect(key="ts_features").value)
    t = int(at.number_input(key="ts_length").value)
    c = math.ceil(t / int(at.segmented_control(key="ts_chunk").value))
    recs = 3  # the bundled sample: textbook, newspaper, comic per reader
    assert (f, c, t) == (48, math.ceil(600 / 32), 600)  # T: the declared public default, not the data's 659
    paper_total = metric_value(at, "Total ε per person")
    assert metric_value(at, "ε per chunk") == pytest.approx(2.0)
    assert paper_total == pytest.approx(f * c * recs * 2.0)
    assert metric_value(at, "Paper's claimed") == pytest.approx(f * 2.0)
    at.radio(key="ts_mode").set_value("participant").run()
    assert not at.exception, at.exception
    assert metric_value(at, "Total ε per person") == pytest.approx(2.0)
    eps_c = metric_value(at, "ε per chunk")
    assert eps_c == pytest.approx(2.0 / (f * c * recs), rel=1e-5)
    assert f * c * recs * eps_c == pytest.approx(2.0, rel=1e-5)
    assert "total ε = 2" in page_text(at)


@pytest.mark.parametrize("panel", PANELS)
def test_every_panel_runs(panel):
    """Each view of the switcher renders without an exception and draws what it is for."""
    at = _ts()
    at.segmented_control(key="ts_panel").set_value(panel).run()
    assert not at.exception, at.exception
    text = page_text(at)
    # The preview is an image (a PNG redraws far faster than a Plotly chart); the panels' charts are Plotly.
    assert len(at.get("image")) == 1, "the preview image is missing"
    charts = len(at.get("plotly_chart"))
    if panel == "utility":
        assert charts >= 1 and "jackknife" in text
    elif panel == "k":
        at.toggle(key="ts_k_search").set_value(True).run()
        assert not at.exception, at.exception
        assert charts >= 1 and "tuned on private data" in page_text(at)
    elif panel == "corr":
        assert charts >= 2 and "not a privacy argument" in text
        cc = [d.value for d in at.dataframe if "Δt = 0.5 s" in d.value.columns][0]
        assert cc.loc["original", "Δt = 0.5 s"] > cc.loc["difference", "Δt = 0.5 s"]
    elif panel == "acct":
        assert "Unit of privacy: one participant" in text and "would itself leak" in text
        scopes = [d.value for d in at.dataframe if "what" in d.value.columns][0]
        assert scopes["what"].str.contains("advanced estimate \\(model-based\\)").any()
        assert scopes["what"].str.contains("paper's claimed").any()
    elif panel == "steil":
        at.toggle(key="ts_steil_published").set_value(True).run()
        assert not at.exception, at.exception
        assert "not differentially private" in page_text(at).lower()
    else:
        frame = _feature_table(at)
        assert len(frame) == 48 and {"L", "U", "k", "bounds"} <= set(frame.columns)


def test_recording_puts_the_participant_total_in_the_ledger():
    """Record: the ledger charges F·C·recordings·ε; a tuned k and the published Steil sampler are flagged."""
    at = _ts()
    _feature_table(at)
    at.segmented_control(key="ts_k_src").set_value("optimal").run()
    assert "tuned on private data" in page_text(at)
    total = metric_value(at, "Total ε per person")
    at.button(key="ts_record").click().run()
    assert not at.exception, at.exception
    ledger = at.session_state["eyedp_ledger"]
    (rel,) = [r for r in ledger.releases if r.view == "Time series"]
    assert rel.epsilon_total == pytest.approx(total) and rel.tuned_on_private_data and rel.unit == "chunk"
    at.segmented_control(key="ts_panel").set_value("steil").run()
    at.toggle(key="ts_steil_published").set_value(True).run()
    at.button(key="ts_steil_record").click().run()
    assert not at.exception, at.exception
    # The published sampler has no guarantee (ε = ∞): the study's cap (ε ≤ 10 from the first run) refuses it.
    releases = at.session_state["eyedp_ledger"].releases
    assert len(releases) == 1 and not any(math.isinf(r.epsilon) for r in releases)
    assert any("without a DP guarantee" in str(e.value) for e in at.sidebar.error)


def test_recording_twice_composes():
    """Every release composes — two recordings are two ledger entries and twice the participant total
    (replacing the earlier entry would charge a setting published twice once)."""
    at = _ts()
    _feature_table(at)
    total = metric_value(at, "Total ε per person")
    at.button(key="ts_record").click().run()
    at.button(key="ts_record").click().run()
    assert not at.exception, at.exception
    ledger = at.session_state["eyedp_ledger"]
    mine = [r for r in ledger.releases if r.view == "Time series"]
    assert len(mine) == 2
    assert ledger.total()[0] == pytest.approx(2 * total)


def test_data_derived_length_is_a_caveat_in_the_ledger():
    """T read off the data (the longest recording) is recorded as a data-derived parameter and
    warned about; the declared default T records no such caveat."""
    at = _ts()
    _feature_table(at)
    at.button(key="ts_record").click().run()
    (declared,) = [r for r in at.session_state["eyedp_ledger"].releases if r.view == "Time series"]
    assert declared.data_derived_parameters == ()
    at.checkbox(key="ts_length_from_data").check().run()
    assert not at.exception, at.exception
    assert int(metric_value(at, "Calls per person")) == 48 * math.ceil(659 / 32) * 3
    at.button(key="ts_record").click().run()
    ledger = at.session_state["eyedp_ledger"]
    flagged = [r for r in ledger.releases if r.view == "Time series"][-1]
    assert flagged.data_derived_parameters == ("length T = 659 windows (longest recording)",)
    assert any("length T = 659" in w for w in ledger.warnings())
    assert not any("length T = 600" in w for w in ledger.warnings())


def test_default_length_does_not_depend_on_the_data():
    """Two uploads whose longest recordings differ (79 and 210 windows) get the same default T."""
    rng = np.random.default_rng(6)
    seen = []
    at = _ts()
    for name, n in [("short.csv", 79), ("long.csv", 210)]:
        at = _upload(at, _features(rng, {(f"p{i}", "read"): n - i for i in range(3)}), name)
        at.switch_page("pages/time_series.py").run()
        assert not at.exception, at.exception
        assert f"{n - 2}–{n} windows" in page_text(at)  # the page did switch to this dataset
        seen.append(at.number_input(key="ts_length").value)
    assert seen == [DEFAULT_LENGTH, DEFAULT_LENGTH]


def test_data_derived_sensitivity_is_labelled():
    """Bozkir's data-derived sensitivity: shown as 'as in paper, not a DP guarantee'."""
    at = _ts()
    _feature_table(at)
    at.radio(key="ts_sens").set_value("empirical").run()
    assert not at.exception, at.exception
    assert "as in paper, not a DP guarantee" in page_text(at)


# ---------------------------------------------------------------------------------------------------------------
# uploads


def test_uploaded_feature_table_is_used_with_declared_bounds():
    """An uploaded CSV drives the page; a feature without public bounds needs declared bounds."""
    rng = np.random.default_rng(5)
    lengths = {(f"u{i}", task): 70 + 3 * i for i in range(4) for task in ("read", "watch")}
    at = _upload(_ts(), _features(rng, lengths), "mine.csv")
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert set(at.selectbox(key="ts_participant").options) == {"u0", "u1", "u2", "u3"}
    assert set(at.selectbox(key="ts_task").options) == {"read", "watch"}
    assert at.number_input(key="ts_length").value == DEFAULT_LENGTH  # declared, not this data's 79
    at.number_input(key="ts_length").set_value(79).run()  # the user declares the protocol's T
    assert "no public bounds" in page_text(at)
    assert "as in paper, not a DP guarantee" in page_text(at)  # pre-filled from the data until confirmed
    at.number_input(key="ts_lo_my_score").set_value(0.0).run()
    at.number_input(key="ts_hi_my_score").set_value(100.0).run()
    at.checkbox(key="ts_bounds_public").check().run()
    at.selectbox(key="ts_feature").set_value("my_score").run()
    at.radio(key="ts_mode").set_value("paper").run()
    assert not at.exception, at.exception
    assert "as in paper, not a DP guarantee" not in page_text(at)
    n = 32
    k = at.slider(key="ts_k").value
    assert metric_value(at, "Noise scale") == pytest.approx(math.sqrt(k * n) * math.sqrt(n) * 100.0, rel=5e-4)
    f, c = 2, math.ceil(79 / 32)
    assert metric_value(at, "Total ε per person") == pytest.approx(f * c * 2 * 1.0)
    at.number_input(key="ts_hi_my_score").set_value(-5.0).run()
    assert not at.exception
    assert "upper bound U above its lower bound L" in " ".join(e.value for e in at.error)


def test_missing_participant_column_is_explained():
    """No participant column: the upload counts as one person; the page says so and still runs."""
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"window": np.arange(80), "sacc_large_ratio": rng.uniform(0, 1, 80)})
    at = _upload(_ts(), df, "nopid.csv")
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "single participant" in text and "no participant column was mapped" in text
    for panel in PANELS:
        at.segmented_control(key="ts_panel").set_value(panel).run()
        assert not at.exception, (panel, at.exception)
        if panel == "corr":
            assert "at least 3 participants" in "\n".join(i.value for i in at.info)


def test_non_numeric_feature_is_refused_clearly_and_the_page_keeps_working():
    """A typo in a feature column: file, row and column named on Your data; Time series stays on the sample."""
    csv = b"participant,window,sacc_large_ratio\np1,0,0.2\np1,1,abc\np2,0,0.3\np2,1,0.4\n"
    at = _upload(_ts(), csv, "typo.csv", participant="participant")
    err = " ".join(e.value for e in at.error)
    assert "typo.csv" in err and "sacc_large_ratio" in err and "3" in err
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert "P01" in at.selectbox(key="ts_participant").options


def test_text_column_is_reported_on_the_page():
    """A column of words is left out with a warning that the Time series page repeats (not only once on upload)."""
    rng = np.random.default_rng(3)
    df = _features(rng, {(f"p{i}", "read"): 60 for i in range(3)})
    df["note"] = "fine"
    at = _upload(_ts(), df, "extra.csv")
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert "'note'" in " ".join(w.value for w in at.warning)
    assert "note" not in at.multiselect(key="ts_features").options
    at.run()  # the warning stays on later runs
    assert "'note'" in " ".join(w.value for w in at.warning)


def test_nan_only_feature_is_ignored_with_a_note():
    """An all-empty feature column says nothing (a feature the recording cannot give): the upload loads without it
    and says so, naming the file and the column; Time series runs on the upload without that feature."""
    rng = np.random.default_rng(3)
    df = _features(rng, {(f"p{i}", "read"): 60 for i in range(3)})
    df["empty"] = np.nan
    at = _upload(_ts(), df, "holes.csv")
    assert not at.error, [e.value for e in at.error]
    notes = " ".join(w.value for w in [*at.warning, *at.info, *at.caption])
    assert "holes.csv" in notes and "empty" in notes and "empty in every row" in notes
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert "p0" in at.selectbox(key="ts_participant").options
    assert "empty" not in at.multiselect(key="ts_features").options


def test_recordings_of_very_different_lengths_warn_and_still_work():
    """Very different recording lengths: the upload's warning is shown on the page, T pads, everything runs."""
    rng = np.random.default_rng(4)
    df = _features(rng, {("a", "read"): 200, ("b", "read"): 40, ("c", "read"): 190, ("d", "read"): 210})
    at = _upload(_ts(), df, "ragged.csv")
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert "very different lengths" in " ".join(w.value for w in at.warning)
    assert at.number_input(key="ts_length").value == DEFAULT_LENGTH
    at.checkbox(key="ts_length_from_data").check().run()
    assert not at.exception, at.exception
    assert "T = 210 windows" in page_text(at) and "longest recording" in page_text(at)
    at.selectbox(key="ts_participant").set_value("b").run()
    for panel in PANELS:
        at.segmented_control(key="ts_panel").set_value(panel).run()
        assert not at.exception, (panel, at.exception)
    at.checkbox(key="ts_length_from_data").uncheck().run()
    at.number_input(key="ts_length").set_value(100).run()
    assert not at.exception, at.exception
    assert "Public T = 100 windows" in page_text(at) and "declared" in page_text(at)


def test_single_window_recordings_give_a_clear_message():
    """One window per recording (e.g. the window index mapped as participant): a message, no traceback."""
    df = pd.DataFrame({"pid": [f"w{i}" for i in range(30)], "sacc_large_ratio": np.linspace(0, 1, 30)})
    at = _upload(_ts(), df, "flat.csv", participant="pid")
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    err = " ".join(e.value for e in at.error)
    assert "single window" in err and "flat.csv" in err


def test_inspect_excludes_nan_only_features():
    """A NaN-only feature, or one without values in a recording, is left out with the reason; none usable = error."""
    from ui.timeseries import data as ts_data

    base = pd.DataFrame({"participant": np.repeat(["a", "b"], 5), "window": np.tile(np.arange(5), 2),
                         "good": np.arange(10.0), "nan_only": np.nan,
                         "gap": np.r_[np.full(5, np.nan), np.arange(5.0)]})
    info = ts_data.inspect.__wrapped__("t1", base)
    assert info.features == ("good",)
    assert "no values at all" in info.excluded["nan_only"] and "recording a" in info.excluded["gap"]
    with pytest.raises(ts_data.SeriesProblem, match="no feature has values"):
        ts_data.inspect.__wrapped__("t2", base.drop(columns="good"))


# ---------------------------------------------------------------------------------------------------------------
# the page opens on the guarantee for a person


def test_page_leads_with_the_guarantee_in_words():
    """The first text under the title names the unit (one participant) and says that ε is the total per person
    the verdict states; the verdict then gives that total as the core computes it."""
    at = _ts()
    md = [str(m.value) for m in at.markdown]
    assert md[0].startswith("**The unit of privacy is one participant.**")
    assert "e^ε" in md[0] and "total per person" in md[0]
    total = metric_value(at, "Total ε per person")
    assert f"protected with **total ε = {total:g}**" in page_text(at)  # the verdict box, under the sliders


def test_opens_on_the_total_per_person_from_the_core():
    """Default: the slider is the total ε per person; the first metric is that total as the core's plan computes
    it, the per-chunk ε comes second; the plain verdict quotes the core's preview numbers."""
    import re

    from eyedp_core.data import bundled
    from eyedp_core.gaze.feature_specs import feature_bounds
    from eyedp_core.timeseries.accounting import epsilon_plan
    from eyedp_core.timeseries.preview import PreviewSetting, run_preview
    from eyedp_core.timeseries.signals import feature_columns, feature_tensor

    at = _ts()
    assert at.radio(key="ts_mode").value == "participant"
    assert shown_numbers(at, metrics=False)[0][0] == "Total ε per person"
    eps = float(at.select_slider(key="ts_eps").value)
    plan = epsilon_plan("participant", eps, Mech.CFPA, 32, DEFAULT_LENGTH, 48, 3)
    assert metric_value(at, "Total ε per person") == pytest.approx(plan.participant_total)
    assert metric_value(at, "ε per chunk") == pytest.approx(plan.per_invocation, rel=1e-3)
    assert plan.participant_total == pytest.approx(eps) and plan.per_invocation < eps / 1000
    # The verdict's median utility is the core preview's, at the page's seed and k.
    table = bundled.load_sample("reading_features")
    names = feature_columns(table)
    x, _ = feature_tensor(table, names, length=DEFAULT_LENGTH, fill="edge", order_col="window")
    setting = PreviewSetting(mech=Mech.CFPA, chunk=32, epsilon=plan.per_invocation,
                             k=int(at.slider(key="ts_k").value), nmse_kind="var")
    prev = run_preview(x, setting, bounds=feature_bounds(names), rng=np.random.default_rng(20190625),
                       feature=names.index(at.selectbox(key="ts_feature").value))
    median_db = float(np.nanmedian(-10 * np.log10(prev.nmse_feature)))
    text = page_text(at)
    assert median_db < -50 and "is useless on this data" in text
    assert f"median utility {median_db:.0f} dB" in text
    # Even a total of 10⁴ per person leaves CFPA useless here; the paper's ε = 10⁴ PER CHUNK does not.
    at.select_slider(key="ts_eps").set_value(10000.0).run()
    assert "is useless on this data" in page_text(at)
    at.radio(key="ts_mode").set_value("paper").run()
    at.select_slider(key="ts_eps").set_value(10000.0).run()
    assert not at.exception, at.exception
    assert "is useless" not in page_text(at) and re.search(r"median utility -?\d+ dB", page_text(at))


def test_formula_is_shown_on_request_with_the_drawn_scale():
    """The derivation is behind a toggle (no formulas by default); switched on it shows λ with the numbers."""
    at = _ts()
    assert not at.latex
    at.toggle(key="ts_formula").set_value(True).run()
    assert not at.exception, at.exception
    tex = " ".join(str(e.value) for e in at.latex)
    assert r"\lambda" in tex
    scale = metric_value(at, "Noise scale")
    mantissa = scale / 10 ** math.floor(math.log10(scale))
    assert f"{mantissa:.3f}"[:4] in tex  # the λ the noise was drawn with, as plugged in
    assert f"{metric_value(at, 'ε per chunk'):.4g}" in tex  # the per-chunk ε the plan gives


def test_interactive_preview_is_one_toggle_away():
    """The preview is a PNG by default; the toggle swaps it for the Plotly chart (hover, zoom) with the same series."""
    at = _ts()
    assert len(at.get("image")) == 1 and not at.get("plotly_chart")
    at.toggle(key="ts_interactive").set_value(True).run()
    assert not at.exception, at.exception
    assert len(at.get("plotly_chart")) == 1 and not at.get("image")


def test_a_link_with_a_free_chunk_size_restores_it_beside_epsilon():
    """The free chunk size is a slider of the budget part: a link restores it, and the accounting splits the
    person's total over ⌈T/chunk⌉ chunks of that size."""
    from tests.apptest import open_link

    at = open_link("pages/time_series.py", {"ts_chunk": "free", "ts_chunk_free": "64"})
    assert at.slider(key="ts_chunk_free").value == 64
    chunks = math.ceil(DEFAULT_LENGTH / 64)
    assert metric_value(at, "Calls per person") == 48 * chunks * 3
    at.slider(key="ts_chunk_free").set_value(100).run()
    assert not at.exception, at.exception
    assert metric_value(at, "Calls per person") == 48 * math.ceil(DEFAULT_LENGTH / 100) * 3


def test_a_link_restores_the_preview_switches_drawn_under_it():
    """The interactive chart and the formula switch sit outside the budget part, which reads them: a link with
    both on opens the Plotly preview and the formula."""
    from tests.apptest import open_link

    at = open_link("pages/time_series.py", {"ts_interactive": "true", "ts_formula": "true"})
    assert at.toggle(key="ts_interactive").value and at.toggle(key="ts_formula").value
    assert len(at.get("plotly_chart")) == 1 and not at.get("image")
    assert r"\lambda" in " ".join(str(e.value) for e in at.latex)
