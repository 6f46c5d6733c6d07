"""Malformed raw gaze samples get clear messages, never a traceback (eyedp_core.gazestream.streams, display)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core.gazestream import display
from eyedp_core.gazestream.streams import StreamError, prepare_streams

W, H = 1280, 800


def _stream(n: int = 50, who: str = "A", t0: float = 0.0) -> pd.DataFrame:
    t = t0 + np.arange(n) / 120
    return pd.DataFrame({"participant": who, "t_s": t, "x": 600 + np.arange(n), "y": 400.0})


def test_unsorted_and_duplicate_timestamps_are_fixed_and_named():
    a = _stream(50)
    a = pd.concat([a.iloc[:10], a.iloc[20:30], a.iloc[10:20], a.iloc[30:]])  # a block out of order
    a = pd.concat([a, a.iloc[[5]]])  # one duplicated timestamp
    prep = prepare_streams(a, width_px=W, height_px=H)
    texts = " ".join(n.text for n in prep.notes)
    assert "out of time order" in texts and "sorted by time" in texts and "row" in texts
    assert "duplicated timestamp" in texts and "first sample of each time was kept" in texts
    t = prep.frame["t_s"].to_numpy()
    assert np.all(np.diff(t) > 0) and len(t) == 50


def test_nan_gaps_are_kept_and_far_off_screen_samples_become_missing():
    a = _stream(60)
    a.loc[10:19, ["x", "y"]] = np.nan  # a blink
    a.loc[40, "x"] = 99_999.0  # a unit error, not a glance past the edge
    a.loc[41, "x"] = W + 30  # just off the edge: kept
    prep = prepare_streams(a, width_px=W, height_px=H)
    x = prep.frame["x"].to_numpy()
    assert np.isnan(x[10:20]).all() and np.isnan(x[40]) and x[41] == W + 30
    texts = " ".join(n.text for n in prep.notes)
    assert "far off the 1280 × 1280" not in texts and "far off the 1280 × 800 px screen" in texts
    assert "99999" in texts and "blinks or tracking loss" in texts


def test_single_sample_participant_is_left_out_with_the_reason():
    df = pd.concat([_stream(40, "A"), _stream(1, "B")])
    prep = prepare_streams(df, width_px=W, height_px=H)
    assert prep.participants == ["A"]
    assert "B" in prep.excluded and "only 1 sample" in prep.excluded["B"]
    with pytest.raises(StreamError, match="only 1 sample"):
        prepare_streams(_stream(1, "B"), width_px=W, height_px=H)
    with pytest.raises(StreamError, match=r"lacks the column\(s\) \['y'\]"):
        prepare_streams(_stream(5).drop(columns="y"), width_px=W, height_px=H)


def test_time_slider_never_has_min_equal_to_max():
    assert display.time_slider(3.0, 3.0) is None
    spec = display.time_slider(0.0, 0.02)
    assert spec is not None and spec.lo < spec.hi and spec.step <= spec.hi - spec.lo
    spec = display.time_slider(0.0, 119.99)
    assert spec.step == 0.5 and spec.value == (0.0, 10.0) and spec.hi >= 119.99


def test_the_package_exports_only_what_it_imports() -> None:
    """`from eyedp_core.gazestream import *` works: every name in __all__ is an attribute of the package."""
    import eyedp_core.gazestream as package

    missing = [name for name in package.__all__ if not hasattr(package, name)]
    assert not missing, missing
    namespace: dict = {}
    exec("from eyedp_core.gazestream import *", namespace)
    assert {"kaleido", "prepare_streams", "event_synth_pd"} <= set(namespace)
