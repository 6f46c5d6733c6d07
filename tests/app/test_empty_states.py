"""Filters that leave nothing draw an empty state in words, never an error id: the Gaze samples time window
between two recordings, a time-series feature list emptied, a participant with no recording of the chosen task,
a stimulus the fixation table has no rows for."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from ui.state import Dataset

ROOT = Path(__file__).resolve().parents[2]


def _session(kind: str, frame: pd.DataFrame, page: str) -> AppTest:
    """A session with `frame` uploaded as `kind` and selected, opened on `page`."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    name = "Upload: gap.csv"
    uploads = {"features": {}, "fixations": {}, "gaze": {}, "image": {}}
    uploads[kind] = {name: Dataset(kind, name, "upload", f"test-empty:{kind}:{len(frame)}", frame)}
    at.session_state["eyedp_uploads"] = uploads
    at.session_state[f"sel_{kind}"] = name
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def test_time_window_without_samples_says_so_and_draws_nothing():
    """Samples at 0–10 s and 30–40 s: the window 12–20 s holds none -> words, no picture, no error."""
    rng = np.random.default_rng(5)
    t = np.r_[np.arange(0, 10, 0.01), np.arange(30, 40, 0.01)]
    gaze = pd.DataFrame({"participant": "P1", "t_s": t, "x": rng.uniform(100, 1800, t.size),
                         "y": rng.uniform(100, 1000, t.size)})
    at = _session("gaze", gaze, "pages/gaze_samples.py")
    at.slider(key="gs_window").set_value((12.0, 20.0)).run()
    assert not at.exception, at.exception
    info = [i.value for i in at.info]
    assert "No samples between 12 and 20 s for this participant; widen the window." in info
    assert not any("in the window; detected with" in m.value for m in at.markdown)  # no picture, no counts
    assert not at.error
    at.slider(key="gs_window").set_value((8.0, 32.0)).run()  # widened: the picture is back
    assert not at.exception, at.exception
    assert not any(i.value.startswith("No samples between") for i in at.info)
    assert any("in the window; detected with" in m.value for m in at.markdown)


def test_interactive_raw_chart_of_an_empty_window_says_so_too():
    rng = np.random.default_rng(6)
    t = np.r_[np.arange(0, 10, 0.01), np.arange(30, 40, 0.01)]
    gaze = pd.DataFrame({"participant": "P1", "t_s": t, "x": rng.uniform(100, 1800, t.size),
                         "y": rng.uniform(100, 1000, t.size)})
    at = _session("gaze", gaze, "pages/gaze_samples.py")
    at.radio(key="gs_raw_fig").set_value("screen").run()
    at.slider(key="gs_window").set_value((12.0, 20.0)).run()
    assert not at.exception, at.exception
    assert any(i.value.startswith("No samples between 12 and 20 s") for i in at.info)


def test_emptied_feature_list_asks_for_a_feature():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.run()
    at.switch_page("pages/time_series.py").run()
    at.multiselect(key="ts_features").set_value([]).run()
    assert not at.exception, at.exception
    assert "Choose at least one feature to release." in [w.value for w in at.warning]
    assert not at.error


def test_participant_without_the_chosen_task_says_so():
    """P2 read only document 'a': choosing P2 and task 'b' says there is no such recording."""
    rng = np.random.default_rng(7)
    rows = [("P1", "a"), ("P1", "b"), ("P2", "a"), ("P3", "a"), ("P3", "b")]
    frames = [pd.DataFrame({"participant": p, "task": task, "window": np.arange(80),
                            "fix_rate_hz": 3 + rng.normal(0, 0.1, 80)}) for p, task in rows]
    at = _session("features", pd.concat(frames, ignore_index=True), "pages/time_series.py")
    at.selectbox(key="ts_participant").set_value("P2").run()
    at.selectbox(key="ts_task").set_value("b").run()
    assert not at.exception, at.exception
    assert "P2 has no recording for task 'b'. Choose another task or participant." in [i.value for i in at.info]


def test_stimulus_without_fixations_says_so():
    """A fixation table of stimulus 'mine' and the bundled stimulus chosen: a message naming both, no error id."""
    rng = np.random.default_rng(8)
    fix = pd.DataFrame({"observer": np.repeat([f"o{i}" for i in range(6)], 10), "stimulus": "mine",
                        "x": rng.uniform(10, 500, 60), "y": rng.uniform(10, 300, 60),
                        "duration_ms": rng.uniform(100, 300, 60)})
    at = _session("fixations", fix, "pages/heatmaps.py")
    other = next(o for o in at.selectbox(key="hm_stimulus").options if o != "mine")
    at.selectbox(key="hm_stimulus").set_value(other).run()
    assert not at.exception, at.exception
    said = " ".join(e.value for e in [*at.error, *at.info, *at.warning])
    assert other in said and "error id" not in said
