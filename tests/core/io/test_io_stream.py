"""Large tables are streamed (eyedp_core.io.stream): decompressed and parsed in chunks with progress, never held
whole as text, and the result equals the in-memory read. The thresholds are lowered here so small slices take the
streaming path; the real 266 MB Tobii file is measured in bench/, not here (no timing or memory asserts)."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from eyedp_core import io
from eyedp_core.io import pipeline, stream, table, text

REALDATA = Path(__file__).resolve().parents[3].parent / "shared" / "realdata"
real = pytest.mark.skipif(not REALDATA.is_dir(), reason=f"real recordings not found at {REALDATA}")


@pytest.fixture
def small_stream(monkeypatch):
    """Stream anything over 64 kB (the head is 16 kB), so test-sized files take the streaming path."""
    monkeypatch.setattr(stream, "HEAD_BYTES", 16_384)
    monkeypatch.setattr(stream, "STREAM_MIN_BYTES", 65_536)
    monkeypatch.setattr(table, "_STREAM_FROM", 0)
    calls: list[int] = []
    original = stream.stream_table

    def spy(*args, **kw):
        out = original(*args, **kw)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(stream, "stream_table", spy)
    return calls


def _in_memory(data: bytes, name: str, **kw) -> pd.DataFrame:
    return text.parse_text(text.decode_text(text.unpack(data, name), name), name, **kw)


def _table(n: int = 6000, decimal: str = ".", sep: str = ",", extra: str = "") -> bytes:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"participant": np.repeat([f"0{i}" for i in range(3)], n // 3), "t_ms": np.arange(n) * 4.0,
                       "x": rng.uniform(0, 1920, n).round(2), "y": rng.uniform(0, 1080, n).round(2),
                       "note": np.where(np.arange(n) % 97 == 0, "café", "")})
    body = df.to_csv(index=False, sep=sep, decimal=decimal)
    return (extra + body).encode("cp1252" if "é" in extra else "utf-8")


@pytest.mark.parametrize("case", ["plain", "gzip", "comma_decimal", "cp1252_preamble", "crlf", "bom"])
def test_streamed_table_equals_the_in_memory_read(small_stream, case):
    """Layout, cells, dtypes, row numbers and attrs are the same whichever path reads the file."""
    data = {"plain": _table(), "gzip": gzip.compress(_table()), "comma_decimal": _table(decimal=",", sep=";"),
            "cp1252_preamble": _table(extra="gaze 576 304\ngeometry café 1\n").replace(b"caf\xc3\xa9", b"caf\xe9"),
            "crlf": _table().replace(b"\n", b"\r\n"), "bom": b"\xef\xbb\xbf" + _table()}[case]
    seen: list[float] = []
    got = io.read_table(data, "t.csv", chunk_rows=1000, progress=seen.append)
    assert small_stream == [True]  # it was streamed
    want = _in_memory(data, "t.csv")
    pd.testing.assert_frame_equal(got, want)
    assert got.attrs["layout"] == want.attrs["layout"] and got.attrs["preamble"] == want.attrs["preamble"]
    assert len(seen) >= 5 and seen == sorted(seen) and seen[-1] == pytest.approx(1.0, abs=0.05)
    head = io.read_table(data, "t.csv", nrows=50)
    pd.testing.assert_frame_equal(head, want.iloc[:50])


def test_streamed_limits_are_data_errors_with_real_sizes(small_stream):
    """Unpacked size and row limits hold while streaming; a damaged gzip is a DataError, not a crash."""
    data = gzip.compress(_table(21_000))
    with pytest.raises(io.DataError, match=r"expands to [\d,]+ bytes once decompressed \([\d,]+ bytes as "
                                           r"uploaded\); the limit is 300,000 bytes"):
        io.read_table(data, "t.csv.gz", limits=io.Limits(max_unpacked=300_000))
    with pytest.raises(io.DataError, match="more than 1,000 data rows"):
        io.read_table(data, "t.csv.gz", limits=io.Limits(max_rows=1000))
    with pytest.raises(io.DataError, match="damaged or truncated"):
        io.read_table(data[: len(data) // 2] + b"\x00" * 64, "t.csv.gz")


@real
def test_streamed_tobii_recording_equals_the_in_memory_read(small_stream, monkeypatch):
    """A 120,000-row slice of the uniss_fgd Tobii export: samples, fixation events and counts are equal."""
    with gzip.open(REALDATA / "uniss_fgd" / "fgd_samples.csv.gz", "rb") as fh:
        data = gzip.compress(b"".join(fh.readline() for _ in range(120_001)), 1)
    monkeypatch.setattr(pipeline, "CHUNK_ROWS", 20_000)
    seen: list[float] = []
    got = io.read_recording(data, filename="fgd.csv.gz", progress=seen.append)
    monkeypatch.setattr(stream, "stream_table", lambda *args, **kw: None)  # now the in-memory path
    want = io.read_recording(data, filename="fgd.csv.gz")
    # Two streamed reads: the preview (its first rows only) and the whole file, once.
    assert small_stream == [True, True] and got.format == want.format == "tobii" and len(got.samples) == 120_000
    pd.testing.assert_frame_equal(got.samples, want.samples)
    pd.testing.assert_frame_equal(got.fixations(), want.fixations())
    assert got.counts == want.counts and [str(w) for w in got.warnings] == [str(w) for w in want.warnings]
    assert len(seen) > 3 and seen[-1] == 1.0


def test_chunks_get_the_dtypes_of_a_single_read():
    """A column empty in one chunk keeps the text type of the others; a column with text in one chunk is text in
    all, numbers written with the file's decimal mark (a single read keeps such a column as text)."""
    text_type = pd.Series(["a"]).dtype
    parts = [pd.DataFrame({"ev": [np.nan, np.nan], "x": [636.3, 1.0]}),
             pd.DataFrame({"ev": pd.Series(["start", None], dtype=text_type), "x": pd.Series(["9 9", "2,5"],
                                                                                          dtype=text_type)})]
    out = text.concat_chunks(parts, ["ev", "x"], decimal=",")
    assert out["ev"].dtype == text_type and out["ev"].isna().tolist() == [True, True, False, True]
    assert out["x"].dtype == text_type and out["x"].tolist() == ["636,3", "1,0", "9 9", "2,5"]
    numbers = text.concat_chunks([pd.DataFrame({"x": [1, 2]}), pd.DataFrame({"x": [np.nan, 2.5]})], ["x"])
    assert numbers["x"].dtype == float and numbers["x"].tolist()[:2] == [1.0, 2.0]  # numbers stay numbers
