"""The Gaze samples page in AppTest: guarantees first, slider moves, the k-anonymity view, bad input."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.apptest import metric_value, shown_numbers
from ui.state import Dataset

ROOT = Path(__file__).resolve().parents[2]


def _page(uploaded: pd.DataFrame | None = None) -> AppTest:
    """A fresh session on the Gaze samples page (optionally with an uploaded gaze table selected)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    if uploaded is not None:
        name = "Upload: odd.csv"
        ds = Dataset("gaze", name, "upload", f"test:{len(uploaded)}:{uploaded['t_s'].sum():.6f}", uploaded)
        at.session_state["eyedp_uploads"] = {"features": {}, "fixations": {}, "gaze": {name: ds}, "image": {}}
        at.session_state["sel_gaze"] = name
    at.run()
    at.switch_page("pages/gaze_samples.py").run()
    assert not at.exception, at.exception
    return at


def _text(at: AppTest) -> str:
    parts = [e.value for kind in ("markdown", "caption", "info", "error", "warning", "subheader") for e in getattr(at, kind)]
    return "\n".join(map(str, parts))


COLUMNS = ["reid_accuracy", "displacement_deg", "heatmap_cc", "fixation_rate_change", "fixation_duration_change"]


def _row(at: AppTest, method: str) -> pd.Series:
    """The side-by-side table (a markdown table: method, then the five figures in COLUMNS order) -> one row."""
    text = next(m.value for m in at.markdown if "| method |" in m.value)
    text = text[text.index("| method |"):].split("\n\n")[0]
    lines = [ln.strip("|").split("|") for ln in text.splitlines()[2:]]
    table = pd.DataFrame([[c.strip() for c in ln[1:]] for ln in lines], columns=COLUMNS,
                         index=[ln[0].strip() for ln in lines])
    assert "heatmap CC" in text.splitlines()[0]
    # Cells are display text ("63 %", "+14 %", "0.932", "–" when nothing was published or not measured).
    return pd.to_numeric(table.loc[method].str.replace("%", "").str.strip().replace("–", None))


def _window_counts(at: AppTest) -> str:
    """The raw view's line over its figure: how many events fall in the time window."""
    return next(m.value for m in at.main.markdown if "in the window; detected with" in m.value)


def test_the_side_by_side_table_ends_with_its_own_note_not_a_methods():
    """The table's explanation (what each column measures, and that the figures are not guarantees) closes its
    element, after every method's own note."""
    from ui.gazestream import table

    at = AppTest.from_function(_table_with_notes)
    at.run()
    assert not at.exception, at.exception
    text = at.markdown[0].value
    assert text.endswith('<div class="eyedp-note">Columns explained. Not guarantees.</div>'), text[-200:]
    assert "- **A**: promise A — *row note A*" in text and "- **B**: promise B" in text
    assert table.markdown_table([], 2) in text and f"| A | {table.MISSING} |" in text


def _table_with_notes() -> None:
    from ui.gazestream.table import utility_table

    rows = [{"method": "A", "guarantee": "promise A", "note": "row note A", "reid_accuracy": float("nan")},
            {"method": "B", "guarantee": "promise B"}]
    utility_table(rows, 2, "### Side by side", note="Columns explained. Not guarantees.")


def test_raw_view_and_its_time_window_slider():
    at = _page()
    shown = dict(shown_numbers(at))
    assert {"Fixations / s", "Median fixation", "Median saccade amplitude", "Blinks / min"} <= set(shown)
    assert metric_value(at, "Fixations / s") > 0
    before = _window_counts(at)
    at.slider(key="gs_window").set_value((30.0, 60.0)).run()
    assert not at.exception, at.exception
    assert _window_counts(at) != before and "fixations" in _window_counts(at)
    # The headline numbers follow the window: fixations that start in it, per second of it.
    assert metric_value(at, "Fixations / s") == pytest.approx(_fixations_from(30.0, 60.0) / 30.0, abs=0.005)
    assert dict(shown_numbers(at)) != shown
    rate = metric_value(at, "Fixations / s")
    at.slider(key="gs_vt").set_value(60.0).run()  # the detector's threshold changes the events and the numbers
    assert not at.exception, at.exception
    assert metric_value(at, "Fixations / s") != rate


def _fixations_from(lo: float, hi: float) -> int:
    """Fixations of the bundled sample's first stream (I-VT at 30 deg/s, as the page opens) starting in [lo, hi]."""
    from eyedp_core.data import bundled
    from eyedp_core.gaze.events import detect_events
    from eyedp_core.gazestream.streams import prepare_streams

    screen = bundled.SAMPLE_SCREEN
    frame = prepare_streams(bundled.load_sample("gaze_streams"), width_px=screen.width_px,
                            height_px=screen.height_px).frame
    one = frame[(frame["participant"] == "P01") & (frame["task"] == sorted(frame["task"].unique())[0])]
    ev = detect_events(one[["t_s", "x", "y", "pupil"]], screen, method="ivt", velocity_threshold_deg_s=30.0)
    start = ev.loc[ev["type"] == "fixation", "t_start_s"]
    return int(((start >= lo) & (start <= hi)).sum())


def test_a_time_window_without_length_shows_words_not_stale_numbers():
    at = _page()
    at.slider(key="gs_window").set_value((10.0, 10.0)).run()
    assert not at.exception, at.exception
    assert "The time window 10.00–10.00 s has no length; drag its ends apart." in [i.value for i in at.info]
    assert not any(label == "Fixations / s" for label, _ in shown_numbers(at))  # no numbers of another window
    assert not any("in the window; detected with" in m.value for m in at.main.markdown)  # and no empty plot
    at.slider(key="gs_window").set_value((10.0, 20.0)).run()
    assert metric_value(at, "Fixations / s") == pytest.approx(_fixations_from(10.0, 20.0) / 10.0, abs=0.005)


def test_protect_view_title_starts_no_earlier_than_time_zero():
    at = _page()
    at.radio(key="gs_view").set_value("protect").run()
    at.slider(key="gs_t").set_value(0.0).run()
    assert not at.exception, at.exception
    text = _text(at)
    assert "original and Kaleido, 0.0–0.0 s (PREVIEW)" in text and "−0.5" not in text and "-0.5" not in text
    at.slider(key="gs_t").set_value(2.0).run()
    assert "original and Kaleido, 0.0–2.0 s (PREVIEW)" in _text(at)  # a 3-s trail cut at time 0


def test_the_lead_and_the_card_agree_the_randomised_pd_form_is_not_dp() -> None:
    """The lead and the card say the same of the randomised plausible-deniability form (not DP as implemented),
    and the paper's (ε, δ) appears only labelled as the paper's claim."""
    from eyedp_core.gazestream import deniability
    from ui.gazestream.protect import LEAD

    assert "claims a per-fixation" not in LEAD.replace("the paper claims a per-fixation", "")
    assert "randomised-threshold form is **NOT differential privacy as implemented**" in LEAD
    assert "the paper claims a per-fixation (ε, δ)" in LEAD
    assert "NOT a" in deniability.pd_guarantee.__doc__ and "paper's claimed" in deniability.pd_guarantee.__doc__
    assert "NOT differential privacy as implemented" in deniability.__doc__
    at = _page()
    at.radio(key="gs_view").set_value("protect").run()
    label = next(o for o in at.radio(key="gs_show").options if "randomised" in o.lower())
    at.radio(key="gs_show").set_value(label).run()
    assert not at.exception, at.exception
    text = _text(at)
    assert "not DP as implemented" in text and "NOT differential privacy as implemented." in text
    assert "The paper's claim (Bindschaedler et al.): an (ε, δ) per fixation record" in text  # labelled as theirs


def test_protect_view_leads_with_guarantees_and_reacts_to_epsilon():
    at = _page()
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    text = _text(at)
    assert "ε = 5 per 60-sample window" in text and "radius r = 50 px" in text
    assert "per window, not per person" in text and text.count("NOT differential privacy") >= 2
    assert "PREVIEW" in text
    assert pd.isna(_row(at, "Kaleido")["reid_accuracy"])  # the attack runs only when switched on
    at.toggle(key="gs_reid").set_value(True).run()
    assert not at.exception, at.exception
    base, kal = _row(at, "original (no protection)"), _row(at, "Kaleido")
    assert base["reid_accuracy"] > 20 and kal["displacement_deg"] > 0  # percent; chance is 10 %
    at.select_slider(key="gs_kal_eps").set_value(50.0).run()
    assert not at.exception, at.exception
    assert "ε = 50 per 60-sample window" in _text(at)
    assert _row(at, "Kaleido")["displacement_deg"] < kal["displacement_deg"]
    at.slider(key="gs_t").set_value(42.0).run()  # the animation slider
    assert not at.exception, at.exception
    assert "original and Kaleido, 39.0–42.0 s (PREVIEW)" in _text(at) and len(at.image) == 1  # a picture
    at.toggle(key="gs_scan_interactive").set_value(True).run()  # the Plotly figure on request
    assert not at.exception, at.exception
    titles = [json.loads(c.proto.spec)["layout"].get("title", {}).get("text", "") for c in at.get("plotly_chart")]
    assert any("39.0–42.0 s" in t for t in titles), titles


def test_demographics_view_shows_table_2_and_the_intersection_attack():
    at = _page()
    at.radio(key="gs_view").set_value("demographics").run()
    assert not at.exception, at.exception
    t2 = next(d.value for d in at.table if "verdict" in d.value.columns)
    assert list(t2.index) == [4, 6, 8, 15]
    assert list(t2["verdict"]) == ["seed not maximal", "reproduced", "tie: other boundaries", "reproduced"]
    shown = {m.label: m.value for m in at.metric}
    assert shown["People singled out"] == "1" and shown["Smallest joint class"] == "1"
    at.slider(key="gs_kanon_k").set_value(8).run()
    assert not at.exception and "every class has ≥ 8 rows" in _text(at)


def _odd_upload() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    t = np.arange(1200) / 120
    a = pd.DataFrame({"participant": "P1", "t_s": t, "x": 600 + np.cumsum(rng.normal(0, 3, t.size)),
                      "y": 400 + np.cumsum(rng.normal(0, 3, t.size))})
    a.loc[100:130, ["x", "y"]] = np.nan  # a blink
    a.loc[500, "x"] = 1e7  # far off-screen
    a = pd.concat([a.iloc[:200], a.iloc[300:400], a.iloc[200:300], a.iloc[400:], a.iloc[[50]]])  # unsorted + dup
    single = pd.DataFrame({"participant": ["P2"], "t_s": [0.0], "x": [10.0], "y": [10.0]})
    return pd.concat([a, single], ignore_index=True)


def test_malformed_upload_gives_clear_messages_and_no_traceback():
    at = _page(_odd_upload())
    warn = " ".join(w.value for w in at.warning)
    assert "participant P2 has only 1 sample" in warn
    assert "out of time order" in warn and "duplicated timestamp" in warn and "far off" in warn
    assert at.selectbox(key="gs_participant").options == ["P1"]
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    assert pd.isna(_row(at, "k-same-synth")["heatmap_cc"])  # no figures: shown as "–"
    note = next(m.value for m in at.markdown if "**What each one guarantees**" in m.value)
    synth = next(line for line in note.splitlines() if line.startswith("- **k-same-synth**"))
    assert "fewer than k" in synth or "k = 2" in synth  # one usable participant: k-same-synth cannot group


def test_only_single_sample_participants_is_an_error_not_a_crash():
    one_each = pd.DataFrame({"participant": ["A", "B"], "t_s": [0.0, 0.0], "x": [1.0, 2.0], "y": [1.0, 2.0]})
    at = _page(one_each)
    err = " ".join(e.value for e in at.error)
    assert "No participant has a usable gaze stream" in err and "only 1 sample" in err


def test_streams_with_a_stimulus_column_are_shown_one_stimulus_at_a_time():
    """Two stimuli whose clocks both start at 0: a stimulus selector appears and every view works on one stream."""
    from eyedp_core.data import bundled

    g = bundled.load_sample("gaze_streams")
    g = g[g["participant"].isin(["P01", "P02", "P03"]) & (g["t_s"] < 24)].copy()
    g["stimulus"] = np.where(g["t_s"] < 12, "page1", "page2")
    g.loc[g["stimulus"] == "page2", "t_s"] -= 12  # each stimulus restarts the clock
    at = _page(g.drop(columns="task"))
    assert at.selectbox(key="gs_stimulus").options == ["page1", "page2"]
    at.selectbox(key="gs_stimulus").set_value("page2").run()
    assert not at.exception, at.exception
    assert at.slider(key="gs_window").max == pytest.approx(12.0, abs=0.6)
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    assert "stimulus 'page2'" in _text(at) or "named 'page2'" in _text(at)


def test_budget_envelope_thins_the_line_but_keeps_every_peak():
    """The Kaleido budget line is thinned for display: at most 2·bins points, same highest and lowest values
    as the full series in every run of samples, short series untouched."""
    from ui.gazestream.figs import envelope

    rng = np.random.default_rng(2)
    t, y = np.arange(14_400) / 120, rng.random(14_400)
    y[7_001] = 9.0  # a single-sample peak must survive
    tt, yy = envelope(t, y, bins=1200)
    assert len(tt) == len(yy) == 2400 and yy.max() == 9.0 and yy.min() == y.min()
    assert np.all(np.diff(tt) >= 0) and tt[0] == t[0]
    short_t, short_y = envelope(t[:100], y[:100])
    assert short_t is not None and np.array_equal(short_y, y[:100])


def test_scanpath_picture_draws_both_streams_over_the_stimulus():
    """The picture has the screen's aspect ratio; the protected stream's colour lies along its path, a NaN gap
    (blink) leaves its segment undrawn, and the picture is the faded stimulus elsewhere."""
    import io

    from PIL import Image

    from ui.gazestream import scanpath_image

    orig = np.array([[100.0, 100.0], [300.0, 100.0]])
    prot = np.array([[100.0, 600.0], [600.0, 600.0], [np.nan, np.nan], [900.0, 200.0], [1200.0, 200.0]])
    colors = ("#1b2430", "#d55e00")
    jpeg = scanpath_image.scanpath_jpeg(orig, prot, ("original", "Kaleido"), colors, (1280, 800), None)
    img = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB")).astype(int)
    assert img.shape == (round(820 * 800 / 1280), 820, 3)
    s = 820 / 1280

    def near(x: float, y: float, rgb: tuple[int, int, int]) -> bool:
        patch = img[int(y * s) - 2:int(y * s) + 3, int(x * s) - 2:int(x * s) + 3]
        return bool((np.abs(patch - np.array(rgb)).sum(axis=2) < 90).any())

    assert near(350, 600, (213, 94, 0)) and near(1000, 200, (213, 94, 0))  # both drawn runs of the protected path
    assert not near(750, 400, (213, 94, 0))  # the gap between them (600,600)-(900,200) is not drawn
    assert near(200, 100, (27, 36, 48))  # the original path
    assert (np.abs(img[700 * 820 // 1280 - 40, 410] - np.array([247, 248, 250])) < 12).all()  # bare screen elsewhere


def test_raw_trace_picture_shades_fixations_and_blinks_where_they_are():
    """The raw trace's picture: a fixation band and a blink band at their times, both panels, white elsewhere."""
    import io

    from PIL import Image

    from ui.gazestream import scanpath_image

    t = np.arange(1000) / 100.0  # 0-10 s
    x, y, pupil = np.full(t.size, 100.0), np.full(t.size, 200.0), np.full(t.size, 3.0)
    png = scanpath_image.raw_trace_image(t, x, y, pupil, np.array([[2.0, 3.0]]), np.array([[6.0, 6.5]]),
                                         png=True)  # exact colours (the page sends JPEG)
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    left, pw = 92, img.shape[1] - 92 - 16

    def col(sec: float) -> int:
        return int(left + sec / t[-1] * pw)

    for row in (60, 320):  # inside the top panel (x, y) and the pupil panel, away from the flat lines
        assert tuple(img[row, col(2.5)]) == (226, 238, 246)  # fixation band
        assert tuple(img[row, col(6.25)]) == (246, 222, 204)  # blink band
        assert tuple(img[row, col(4.5)]) == (255, 255, 255)  # no event


def test_other_methods_keep_their_settings_for_the_table_and_the_link():
    """Only the shown method's controls are drawn: another method's settings, chosen before, still feed the table
    and stay in the link while Kaleido's sliders move."""
    from tests.apptest import link_params

    at = _page()
    at.radio(key="gs_view").set_value("protect").run()
    at.radio(key="gs_show").set_value("PD (as published)").run()
    assert not at.exception, at.exception
    at.slider(key="gs_pd_k").set_value(3).run()
    assert not at.exception, at.exception
    at.radio(key="gs_show").set_value("Kaleido").run()
    assert not at.exception, at.exception
    assert not [s for s in at.slider if s.key == "gs_pd_k"]  # not drawn while Kaleido is shown
    at.select_slider(key="gs_kal_eps").set_value(10.0).run()
    assert not at.exception, at.exception
    assert "≥ 2 other plausible identities per fixation" in _text(at)  # PD's row at k = 3
    assert link_params(at).get("gs_pd_k") == "3" and link_params(at).get("gs_kal_eps") == "10.0"
    at.radio(key="gs_show").set_value("PD (as published)").run()
    assert at.slider(key="gs_pd_k").value == 3


def test_kaleidos_finer_settings_stay_in_force_while_their_sliders_are_hidden():
    """ε, w and r are drawn; t_skip, l_thresh, h and the smallest publication only on request. While hidden their
    values are named above the part, feed the table exactly as when drawn, and stay in the link."""
    from tests.apptest import link_params

    at = _page()
    at.radio(key="gs_view").set_value("protect").run()
    assert not at.exception, at.exception
    finer = {"gs_kal_skip", "gs_kal_l", "gs_kal_h", "gs_kal_floor"}
    drawn = {s.key for s in [*at.slider, *at.select_slider]}
    assert {"gs_kal_eps", "gs_kal_w", "gs_kal_r"} <= drawn and not drawn & finer
    assert "Kept: t_skip = 12 samples · l_thresh = 60 px · h = 2 · smallest publication 1/16 of ε−ε/h" in _text(at)
    at.toggle(key="gs_kal_all").set_value(True).run()
    assert not at.exception, at.exception
    assert finer <= {s.key for s in [*at.slider, *at.select_slider]} and "Kept: t_skip" not in _text(at)
    assert at.select_slider(key="gs_kal_skip").value == 12 and at.slider(key="gs_kal_l").value == 60
    at.select_slider(key="gs_kal_h").set_value(8.0).run()
    at.slider(key="gs_kal_l").set_value(0).run()
    assert not at.exception, at.exception
    shown = _row(at, "Kaleido")
    at.toggle(key="gs_kal_all").set_value(False).run()
    assert not at.exception, at.exception
    assert "l_thresh = 0 px · h = 8 ·" in _text(at)
    pd.testing.assert_series_equal(_row(at, "Kaleido"), shown)
    assert link_params(at).get("gs_kal_h") == "8.0" and link_params(at).get("gs_kal_l") == "0"
    at.toggle(key="gs_kal_all").set_value(True).run()
    assert at.select_slider(key="gs_kal_h").value == 8.0 and at.slider(key="gs_kal_l").value == 0
