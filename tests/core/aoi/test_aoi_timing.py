"""Metrics that need time follow the fixation table's columns: without durations dwell is not offered, without
durations and start times time to first fixation is not either, and neither is computed nor charged."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core.aoi.metrics import NO_DURATIONS, NO_TIMES, AoiMetric, private_metrics, unsupported_metrics
from eyedp_core.aoi.observers import AoiBounds, observer_table, timing
from eyedp_core.aoi.release import ledger_releases
from eyedp_core.aoi.shapes import grid

AOIS = grid(100, 100, 2, 2)


def _fixations(**extra: list[float]) -> pd.DataFrame:
    """Two observers, three fixations each, with the given extra columns."""
    base = {"observer": ["a", "a", "a", "b", "b", "b"], "x": [10.0, 60, 10, 60, 60, 10],
            "y": [10.0, 10, 60, 60, 10, 10]}
    return pd.DataFrame({**base, **extra})


def test_timing_reads_the_columns() -> None:
    """A column counts when it is there and holds a value; an empty column is no column."""
    assert timing(_fixations()) == (False, False)
    assert timing(_fixations(duration_ms=[200.0] * 6)) == (True, False)
    assert timing(_fixations(t_start_s=[0.0, 1, 2, 0, 1, 2])) == (False, True)
    assert timing(_fixations(duration_ms=[np.nan] * 6, start_s=[np.nan] * 6)) == (False, False)


def test_unsupported_metrics_say_why() -> None:
    """No durations: dwell out; no durations and no starts: TTFF out too; starts alone still give TTFF."""
    assert unsupported_metrics(True, False) == {} and unsupported_metrics(True, True) == {}
    assert unsupported_metrics(False, True) == {AoiMetric.DWELL: NO_DURATIONS}
    assert unsupported_metrics(False, False) == {AoiMetric.DWELL: NO_DURATIONS, AoiMetric.TTFF: NO_TIMES}


def test_without_durations_dwell_and_ttff_are_neither_computed_nor_charged() -> None:
    """On a table without durations or starts, a release of dwell or TTFF is refused before any noise or ledger
    entry; the hit ratio still works and is charged alone."""
    t = observer_table(_fixations(), AOIS, AoiBounds())
    assert (t.has_durations, t.has_starts) == (False, False)
    for m in (AoiMetric.DWELL, AoiMetric.TTFF):
        with pytest.raises(ValueError, match="cannot be released"):
            private_metrics(t, [AoiMetric.HIT_RATIO, m], 1.0, np.random.default_rng(0))
        with pytest.raises(ValueError, match="cannot be released"):
            ledger_releases(t, [AoiMetric.HIT_RATIO, m], 1.0, "s")
    entries = ledger_releases(t, [AoiMetric.HIT_RATIO], 1.0, "s")
    assert len(entries) == 1 and entries[0].epsilon == 1.0


def test_start_times_alone_give_a_real_ttff() -> None:
    """With start times but no durations TTFF is offered and is the start of the first fixation in the AOI
    (observer a: r1c2 at 1 s, r2c1 at 2 s), while dwell stays refused."""
    t = observer_table(_fixations(t_start_s=[0.0, 1, 2, 0, 1, 2]), AOIS, AoiBounds())
    res, _ = private_metrics(t, [AoiMetric.TTFF], 1e9, np.random.default_rng(0))
    np.testing.assert_allclose(t.ttff_s[0], [0.0, 1.0, 2.0, 0.0])
    # r1c1: a at 0, b at 2; r1c2: a at 1, b at 1 -> means 1 and 1 (no noise to speak of at ε = 1e9).
    np.testing.assert_allclose(res[AoiMetric.TTFF].private[:2], [1.0, 1.0], atol=1e-6)
    with pytest.raises(ValueError, match="dwell time cannot be released"):
        private_metrics(t, [AoiMetric.DWELL], 1.0, np.random.default_rng(0))
