"""AOI metrics on a real recording (OSIE: 15 observers free-viewing 800 × 600 images; fixations with durations but no
onsets): the metric choices follow its columns, and the time-to-first-fixation interval covers 95 % on it."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core.aoi.metrics import AoiMetric, private_metrics, unsupported_metrics
from eyedp_core.aoi.observers import AoiBounds, observer_table, timing
from eyedp_core.aoi.shapes import grid

OSIE = Path(__file__).resolve().parents[3].parent / "shared" / "realdata" / "osie" / "osie_fixations.csv.gz"


@pytest.fixture(scope="module")
def osie_1001() -> pd.DataFrame:
    """OSIE's fixations on image 1001.jpg in the AOI view's columns (row order is fixation order)."""
    if not OSIE.exists():
        pytest.skip("the shared real recordings are not here")
    f = pd.read_csv(OSIE)
    f = f[f["image"] == "1001.jpg"].sort_values(["subject", "fix_index"])
    return pd.DataFrame({"observer": f["subject"].astype(str), "x": f["x"], "y": f["y"],
                         "duration_ms": f["duration_ms"]})


def test_without_durations_osie_offers_neither_dwell_nor_ttff(osie_1001: pd.DataFrame) -> None:
    """OSIE has durations and no onsets: with durations every metric is offered (TTFF from row order); with the
    duration column left out, dwell and TTFF are not, and refusing them charges nothing."""
    assert timing(osie_1001) == (True, False) and unsupported_metrics(*timing(osie_1001)) == {}
    bare = osie_1001.drop(columns="duration_ms")
    assert set(unsupported_metrics(*timing(bare))) == {AoiMetric.DWELL, AoiMetric.TTFF}
    t = observer_table(bare, grid(800, 600, 3, 3), AoiBounds())
    with pytest.raises(ValueError, match="cannot be released"):
        private_metrics(t, [AoiMetric.DWELL], 1.0, np.random.default_rng(0))


def test_ttff_interval_covers_95_percent_on_osie(osie_1001: pd.DataFrame) -> None:
    """15 observers, a 3 × 3 grid, TTFF alone at ε = 3: 600 preview draws; the interval holds the clean mean in
    95 % of (draw, AOI) pairs within 4.5 binomial standard errors (a missing interval counts as a miss)."""
    t = observer_table(osie_1001, grid(800, 600, 3, 3), AoiBounds())
    assert t.n == 15
    rng = np.random.default_rng(33)
    hits = trials = 0
    for _ in range(600):
        r = private_metrics(t, [AoiMetric.TTFF], 3.0, rng)[0][AoiMetric.TTFF]
        ok = np.isfinite(r.clean)
        hits += int(((r.lower <= r.clean) & (r.clean <= r.upper) & ok).sum())
        trials += int(ok.sum())
    cov = hits / trials
    assert abs(cov - 0.95) <= 4.5 * math.sqrt(0.95 * 0.05 / trials), cov
