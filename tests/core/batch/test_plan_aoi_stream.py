"""The batch path's AOI metrics streamed: partition by partition of observers, only the column sums of their
clipped contributions are kept, and they equal the sums of the per-observer table read in memory (aoi_table, the
AOI page's observer_table on all rows) to 1e-12, with or without start times, over CSV and Parquet shards read in
small chunks; the release drawn from the sums has the same clean values and calibration."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core.aoi.metrics import AoiMetric, Query, query_sensitivity
from eyedp_core.aoi.observers import AoiBounds
from eyedp_core.aoi.release import release_aois
from eyedp_core.aoi.shapes import rectangle
from eyedp_core.batch.plan_aoi import aoi_sums, aoi_table
from eyedp_core.io.errors import DataError
from eyedp_core.plan import AoiOutput

SHAPES = (rectangle("left", 0, 0, 100, 200), rectangle("mid", 100, 0, 200, 200), rectangle("right", 200, 0, 300, 100))
FIELDS = ("hit", "fixations", "dwell_s", "ttff_s", "revisits", "transitions", "elsewhere_fixations")


def _fixations(starts: bool, n: int = 240) -> pd.DataFrame:
    """n observers on two stimuli, 1–60 fixations each (many over the per-AOI and total clips), rows shuffled so
    observers interleave; with start times or without (fixations then start where the previous row ended)."""
    rng = np.random.default_rng(5)
    per = rng.integers(1, 61, n)
    m = int(per.sum())
    df = pd.DataFrame({"observer": np.repeat([f"o{i:04d}" for i in range(n)], per),
                       "stimulus": rng.choice(["a.jpg", "b.jpg"], m, p=[0.8, 0.2]),
                       "x": rng.uniform(-20, 320, m), "y": rng.uniform(0, 220, m),
                       "duration_ms": rng.uniform(50, 900, m)})
    df.loc[rng.random(m) < 0.02, "x"] = np.nan  # missing positions count as elsewhere
    if starts:
        df["start_s"] = rng.uniform(0, 30, m)
    return df.sample(frac=1.0, random_state=2).reset_index(drop=True)


def _shards(df: pd.DataFrame, folder) -> list[str]:
    """Three shards: two Parquet, one CSV."""
    folder.mkdir()
    paths = []
    for i, part in enumerate(np.array_split(np.arange(len(df)), 3)):
        path = folder / (f"s{i}.csv" if i == 1 else f"s{i}.parquet")
        (df.iloc[part].to_csv(path, index=False) if i == 1 else df.iloc[part].to_parquet(path, index=False))
        paths.append(str(path))
    return paths


@pytest.mark.parametrize("starts", [True, False])
def test_streamed_sums_equal_the_in_memory_tables_sums(tmp_path, starts):
    files = _shards(_fixations(starts), tmp_path / "in")
    bounds = AoiBounds(max_fixations=6, max_dwell_s=2.0, max_ttff_s=8.0, max_revisits=2, max_transitions=9,
                       max_total_fixations=12.0, max_total_dwell_s=4.0)
    outputs = [AoiOutput(stimulus="a.jpg", shapes=SHAPES, bounds=bounds, metrics=tuple(AoiMetric)),
               AoiOutput(stimulus="b.jpg", shapes=SHAPES[:2], metrics=(AoiMetric.HIT_RATIO, AoiMetric.TTFF))]
    sums = aoi_sums(files, outputs, partitions=5, chunk_rows=97)
    for o in outputs:
        full, s = aoi_table(files, o), sums[o.label]
        assert s.n == full.n > 50 and s.observers == () and s.aoi_names == full.aoi_names
        assert (s.has_durations, s.has_starts) == (full.has_durations, full.has_starts) == (True, starts)
        for name in FIELDS:
            want = getattr(full, name).sum(axis=0)
            got = getattr(s, name)
            assert got.shape == (1, *want.shape)
            np.testing.assert_allclose(got[0], want, rtol=1e-12, atol=1e-12, err_msg=name)
        if o.bounds is bounds:  # the clips bind (a raw sum would not be told from a clipped one otherwise)
            assert full.fixations.sum(axis=1).max() == pytest.approx(bounds.max_total_fixations)
            assert full.revisits.max() == bounds.max_revisits and full.ttff_s.sum() > 0
        for q in Query:
            assert query_sensitivity(q, s) == query_sensitivity(q, full)
        a = release_aois(full, o.metrics, 2.0, o.stimulus, [])
        b = release_aois(s, o.metrics, 2.0, o.stimulus, [])
        pd.testing.assert_frame_equal(a.clean, b.clean, rtol=1e-12, atol=1e-12)
        assert a.manifest["observers"] == b.manifest["observers"] == full.n
        assert [q["scale_released"] for q in a.manifest["queries"]] == \
            [q["scale_released"] for q in b.manifest["queries"]]


def test_a_metric_the_shards_cannot_give_and_a_missing_stimulus_are_refused(tmp_path):
    df = _fixations(False, n=30).drop(columns=["duration_ms"])
    files = _shards(df, tmp_path / "in")
    dwell = AoiOutput(stimulus="a.jpg", shapes=SHAPES, metrics=(AoiMetric.DWELL,))
    with pytest.raises(ValueError, match="dwell time cannot be released"):
        aoi_sums(files, [dwell])
    with pytest.raises(DataError, match="no fixation on stimulus 'c.jpg'"):
        aoi_sums(files, [AoiOutput(stimulus="c.jpg", shapes=SHAPES)])
    with pytest.raises(DataError, match="names no stimulus but the shards hold 2"):
        aoi_sums(files, [AoiOutput(stimulus=None, shapes=SHAPES, metrics=(AoiMetric.HIT_RATIO,))])
