"""Better guesses and clearer choices on upload: all-empty columns ignored, the column that empties most rows
named, candidates listed for a role no column was found for, a file-name stimulus column preferred over an
index that names different images."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io


def _read(df: pd.DataFrame, name: str = "t.csv") -> pd.DataFrame:
    return io.read_table(df.to_csv(index=False).encode(), name)


def test_the_librarys_own_feature_table_with_empty_columns_uploads() -> None:
    rng = np.random.default_rng(3)
    n = 40
    table = pd.DataFrame({"participant": np.repeat(["a", "b"], n // 2), "recording": "r1",
                          "window": np.tile(np.arange(n // 2), 2), "t_start_s": np.tile(np.arange(n // 2.0), 2),
                          "fix_rate_hz": rng.normal(3, 0.3, n), "pupil_mean_mm": np.nan,
                          "sacc_amp_mean_deg": np.where(np.arange(n) % 7 == 0, np.nan, rng.normal(3, 1, n))})
    raw = _read(table, "feat.csv")
    mapping = io.guess_mapping(raw, "features")
    out = io.apply_mapping(raw, mapping, "features", "feat.csv", drop_missing=False)
    assert "pupil_mean_mm" not in out.columns and len(out) == n  # ignored, nothing refused
    assert np.isnan(out["sacc_amp_mean_deg"]).sum() == 6  # a window without a saccade keeps its row
    said = " ".join(map(str, out.attrs["warnings"]))
    assert "empty in every row and are ignored: 'pupil_mean_mm'" in said
    dropped = io.apply_mapping(raw, mapping, "features", "feat.csv", drop_missing=True)
    assert len(dropped) == n - 6  # the empty pupil column does not empty every row


def test_one_column_causing_most_drops_is_named_with_the_offer_to_leave_it_out() -> None:
    n = 100
    f = pd.DataFrame({"participant": np.repeat(["a", "b"], n // 2), "window": np.tile(np.arange(n // 2), 2),
                      "fix_rate_hz": 3.0, "blink_rate": np.where(np.arange(n) < 70, np.nan, 3.0)})
    f.loc[90, "fix_rate_hz"] = np.nan  # one row empty in another column too
    raw = _read(f, "f.csv")
    out = io.apply_mapping(raw, io.guess_mapping(raw, "features"), "features", "f.csv", drop_missing=True)
    assert len(out) == 29
    warn = [w for w in out.attrs["warnings"] if "dropped_missing" in w.details][0]
    assert warn.details["culprit"] == "blink_rate" and warn.details["culprit_rows"] == 70
    assert "71 of 100 rows" in str(warn) and "70 of them are empty only in 'blink_rate': leave that column out" \
        in str(warn)
    even = f.assign(blink_rate=np.where(np.arange(n) % 2 == 0, np.nan, 3.0),
                    fix_rate_hz=np.where(np.arange(n) % 2 == 1, np.nan, 3.0))
    with pytest.raises(io.DataError, match="Leave the mostly empty column out"):  # no single culprit
        raw = _read(even, "f.csv")
        io.apply_mapping(raw, io.guess_mapping(raw, "features"), "features", "f.csv", drop_missing=True)
