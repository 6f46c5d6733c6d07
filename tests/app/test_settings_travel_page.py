"""Settings travel in the running app (AppTest): a bad value in a link is dropped with one message while the
rest of the link restores; a page's settings survive a page switch; "Reset this page" leaves every control
showing its default and the page computing with it; a time-series link reopens the same series; a settings
file loaded on another page is applied when its own page is opened."""
from __future__ import annotations

import json
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from eyedp_core.dp.registry import Mech
from eyedp_core.settings import decode_json
from tests.apptest import link_params, open_link, page_text
from ui import settings

SETTABLE = ("slider", "select_slider", "selectbox", "radio", "checkbox", "toggle", "number_input", "multiselect",
            "button_group", "text_input")
NUMBERS = ("markdown", "caption", "info", "metric", "success", "error", "latex")


def _widgets(at: AppTest, prefixes: tuple[str, ...]) -> dict[str, Any]:
    """Every drawn control of the page with one of the prefixes, by key."""
    out = {}
    for kind in SETTABLE:
        for w in at.get(kind):
            key = getattr(w, "key", None)
            if key and key.startswith(prefixes):
                out[key] = w
    return out


def _warnings(at: AppTest) -> list[str]:
    return [str(w.value) for w in at.warning if "could not be restored" in str(w.value)]


def _numbers(at: AppTest) -> str:
    """What the page computed, as text (headline, verdicts, captions, metrics)."""
    parts = [str(e.value) for kind in NUMBERS for e in getattr(at, kind)]
    return "\n".join(p for p in parts if "could not be restored" not in p)


def _raw(v: Any) -> Any:
    v = getattr(v, "value", v) if not isinstance(v, (bool, int, float, str, list, tuple, type(None))) else v
    return list(v) if isinstance(v, tuple) else v


# ---- a bad value in a link: one message, the rest restored ----------------------------------------------------

@pytest.mark.parametrize("key, value, reason", [
    ("hm_mech", "foo", "'foo' is not one of the choices (gaussian, laplace)"),
    ("hm_method", "bar", "'bar' is not one of the choices (analytic, classical)"),
    ("hm_weight", "xyz", "'xyz' is not one of the choices (count, duration)"),
])
def test_a_bad_value_in_a_link_is_dropped_with_one_message(key: str, value: str, reason: str) -> None:
    at = open_link("pages/heatmaps.py", {key: value})
    assert not at.error, [e.value for e in at.error]  # no error-id box, no red box from the page
    boxes = _warnings(at)
    assert len(boxes) == 1 and boxes[0].count(f"'{key}'") == 1 and reason in boxes[0], boxes
    assert key not in link_params(at)
    assert at.subheader and "Export (private release)" in page_text(at, ("subheader",))  # the whole page drew
    fresh = open_link("pages/heatmaps.py")
    assert _numbers(at) == _numbers(fresh)
    at.number_input(key="hm_seed").set_value(3).run()
    assert not _warnings(at)  # shown once


def test_a_mixed_link_restores_every_valid_value_and_names_each_bad_one_once() -> None:
    at = open_link("pages/heatmaps.py", {"hm_mech": "foo", "hm_method": "bar", "hm_weight": "xyz", "hm_cell": "abc",
                                     "hm_eps": "10.0", "hm_stimulus": "webpage", "hm_deg": "1.8", "hm_seed": "5"})
    assert not at.error, [e.value for e in at.error]
    boxes = _warnings(at)
    assert len(boxes) == 1
    for key in ("hm_mech", "hm_method", "hm_weight", "hm_cell"):
        assert boxes[0].count(f"'{key}'") == 1, (key, boxes)
    assert at.select_slider(key="hm_eps").value == 10.0
    assert at.selectbox(key="hm_stimulus").value == "webpage"
    assert at.slider(key="hm_deg").value == 1.8 and at.number_input(key="hm_seed").value == 5
    assert link_params(at) == {"hm_eps": "10.0", "hm_stimulus": "webpage", "hm_deg": "1.8", "hm_seed": "5",
                           "hm_preset": "~"}


# ---- page switches ------------------------------------------------------------------------------------------------

def test_heatmaps_settings_survive_a_visit_to_another_page() -> None:
    at = open_link("pages/heatmaps.py")
    at.select_slider(key="hm_eps").set_value(10.0).run()
    at.radio(key="hm_mech").set_value("laplace").run()
    at.selectbox(key="hm_stimulus").set_value("webpage").run()
    before, url = _numbers(at), link_params(at)
    assert url["hm_eps"] == "10.0" and url["hm_mech"] == "laplace" and url["hm_stimulus"] == "webpage"
    at.switch_page("pages/time_series.py").run()
    assert not any(k.startswith("hm_") for k in link_params(at))
    at.switch_page("pages/heatmaps.py").run()
    assert not at.exception, at.exception
    assert at.select_slider(key="hm_eps").value == 10.0
    assert at.radio(key="hm_mech").value == "laplace"
    assert at.selectbox(key="hm_stimulus").value == "webpage"
    assert link_params(at) == url and _numbers(at) == before


def test_time_series_settings_come_back_after_the_feature_list_was_emptied() -> None:
    at = open_link("pages/time_series.py")
    at.select_slider(key="ts_eps").set_value(10000.0).run()
    at.multiselect(key="ts_features").set_value([]).run()  # the page stops before the ε slider is drawn
    at.multiselect(key="ts_features").set_value(["fix_rate_hz"]).run()
    assert not at.exception, at.exception
    assert at.select_slider(key="ts_eps").value == 10000.0
    assert at.select_slider(key="ts_eps").proto.set_value  # the browser is told, not left showing its own value
    assert "10,000" in _numbers(at) or "1e+04" in _numbers(at)


# ---- reset ------------------------------------------------------------------------------------------------------

def _reset_matches_fresh(page: str, moves: list[tuple[str, str, Any]], prefixes: tuple[str, ...],
                         computes: bool = True) -> None:
    """Move controls, reset: every control shows what a fresh session shows (the schema default) and the page
    computes what a fresh session computes. `computes`: the moves change the page's numbers (Attacks only
    computes on its run button)."""
    at = open_link(f"pages/{page}.py")
    for kind, key, value in moves:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, at.exception
    changed = _numbers(at)
    at.button(key="share_reset").click().run()
    assert not at.exception, at.exception
    fresh = open_link(f"pages/{page}.py")
    assert _numbers(at) == _numbers(fresh)
    assert (_numbers(fresh) != changed) == computes
    sch = settings.schema()
    drawn, fresh_drawn = _widgets(at, prefixes), _widgets(fresh, prefixes)
    assert drawn.keys() == fresh_drawn.keys()
    for key, w in drawn.items():
        assert _raw(w.value) == _raw(fresh_drawn[key].value), key
        if key in sch and sch[key].default is not None and not key.startswith(("hm_eps", "hm_delta", "ts_k")):
            assert _raw(w.value) == _raw(sch[key].default), (key, w.value, sch[key].default)
    # The browser is told the new value of each moved control (a key merely dropped keeps showing the old one).
    for _, key, _ in moves:
        if key in drawn:
            assert drawn[key].proto.set_value, key
    assert not any(k.startswith(prefixes) for k in link_params(at))


def test_reset_heatmaps() -> None:
    _reset_matches_fresh("heatmaps", [("select_slider", "hm_cell", 16), ("slider", "hm_deg", 1.8),
                                      ("radio", "hm_mech", "laplace"), ("radio", "hm_weight", "duration"),
                                      ("select_slider", "hm_eps", 10.0)], ("hm_",))


def test_reset_time_series() -> None:
    _reset_matches_fresh("time_series", [("select_slider", "ts_eps", 1000.0), ("button_group", "ts_mech", Mech.FPA),
                                         ("selectbox", "ts_participant", "P02"), ("number_input", "ts_seed", 3)],
                         ("ts_",))


def test_reset_gaze_samples() -> None:
    _reset_matches_fresh("gaze_samples", [("radio", "gs_method", "idt"), ("selectbox", "gs_participant", "P02")],
                         ("gs_",))


def test_reset_attacks() -> None:
    _reset_matches_fresh("attacks", [("multiselect", "at_clfs", ["knn"]), ("number_input", "at_reps", 3),
                                     ("toggle", "at_vote", False)], ("at_",), computes=False)


def test_reset_report() -> None:
    at = open_link("pages/report.py")
    cap = [w for w in _widgets(at, ("rp_",)).values()][0]
    _reset_matches_fresh("report", [(cap.type, cap.key, 20.0 if cap.type != "number_input" else 20.0)], ("rp_",))


# ---- time-series links and settings files -------------------------------------------------------------------------

def test_a_time_series_link_reopens_the_same_series() -> None:
    at = open_link("pages/time_series.py")
    at.selectbox(key="ts_feature").set_value("fix_rate_hz").run()
    at.selectbox(key="ts_task").set_value("newspaper").run()
    at.selectbox(key="ts_participant").set_value("P03").run()
    at.select_slider(key="ts_eps").set_value(10.0).run()
    url = link_params(at)
    assert {"ts_feature", "ts_task", "ts_participant", "ts_eps"} <= url.keys()
    other = open_link("pages/time_series.py", url)
    for key in ("ts_feature", "ts_task", "ts_participant", "ts_eps"):
        assert other.session_state[key] == at.session_state[key], key
    assert _numbers(other) == _numbers(at)
    assert link_params(other) == url


def test_a_settings_file_for_another_page_is_applied_when_that_page_opens() -> None:
    doc = json.dumps({"format": "eyedp-settings/1", "page": "time_series",
                      "settings": {"ts_eps": 10.0, "ts_participant": "P04", "ts_mech": "FPA", "hm_seed": 7}})
    at = open_link("pages/heatmaps.py")
    # What the upload box does (settings.load_json): decode the file, keep each setting for its page, re-run.
    values, page, messages = decode_json(doc, settings.schema())
    assert page == "time_series" and messages == []
    at.session_state["share_pending"] = settings.by_page(values)
    at.run()
    assert at.number_input(key="hm_seed").value == 7
    assert "ts_eps" not in link_params(at)
    at.switch_page("pages/time_series.py").run()
    assert not at.exception, at.exception
    assert at.select_slider(key="ts_eps").value == 10.0
    assert at.selectbox(key="ts_participant").value == "P04"
    assert at.session_state["ts_mech"] is Mech.FPA
    assert link_params(at)["ts_participant"] == "P04"


@pytest.mark.parametrize("page", ["heatmaps", "time_series", "attacks"])
def test_a_hostile_link_draws_the_whole_page_with_one_message(page: str) -> None:
    from tests.core.settings.test_settings_hostile import HOSTILE_QUERY

    at = open_link(f"pages/{page}.py", HOSTILE_QUERY)
    assert not at.error, [e.value for e in at.error]
    boxes = _warnings(at)
    assert len(boxes) == 1
    for key in HOSTILE_QUERY:
        assert boxes[0].count(f"'{key}'") == 1, key
    assert _numbers(at) == _numbers(open_link(f"pages/{page}.py"))
    assert not link_params(at)


def test_settings_tied_to_the_data_are_not_restored_onto_other_data() -> None:
    from eyedp_core.data import bundled
    from ui.state import Dataset, content_token

    at = open_link("pages/gaze_samples.py")
    at.selectbox(key="gs_participant").set_value("P07").run()
    at.slider(key="gs_window").set_value((100.0, 110.0)).run()
    assert not at.exception, at.exception
    at.switch_page("pages/home.py").run()
    # Another gaze table (a shorter upload with other people) is selected while the page is not drawn.
    gaze = bundled.load_sample("gaze_streams")
    short = gaze[gaze["t_s"] < 30.0].copy()
    short["participant"] = short["participant"].map(lambda p: "X" + p)
    name = "Upload: short.csv"
    at.session_state["eyedp_uploads"] = {"features": {}, "fixations": {}, "image": {},
                                         "gaze": {name: Dataset("gaze", name, "upload", content_token(short), short)}}
    at.session_state["pending_sel_gaze"] = name
    at.run()
    at.switch_page("pages/gaze_samples.py").run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    lo, hi = at.slider(key="gs_window").value
    assert hi <= 30.0 and at.selectbox(key="gs_participant").value.startswith("X")
    assert at.number_input(key="gs_wpx").value == at.session_state["gs_wpx"]


def test_a_link_at_the_upper_bounds_of_data_bound_sliders_draws_the_page() -> None:
    at = open_link("pages/gaze_samples.py", {"gs_window": "[110.0, 120.0]", "gs_t": "119.5", "ts_corr_lag": "595"})
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    lo, hi = at.slider(key="gs_window").value
    assert lo <= hi
