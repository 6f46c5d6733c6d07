"""Fuzz: every reader and validator of eyedp_core.io returns a valid table or raises DataError, nothing else.

Hypothesis mutates seed tables (the vendor fixtures and small generated tables) and seed images byte by byte
and with table-aware edits (blank lines of form feeds and no-break spaces, names padded with spaces, huge
numbers, empty cells, BOMs, CRLF, gzip), then runs read_table, guess_mapping / guess_notes, apply_mapping for
every kind (with and without drop_missing, in every unit), every reader that recognises the table,
read_recording and load_image; the streamed read of large tables (thresholds lowered so small tables stream)
and the fixations detected in every valid gaze table. Derandomised and bounded (max_examples, no deadline), so a run is repeatable
and takes seconds. Outcome counts are printed by the last test (pytest -s).
"""
from __future__ import annotations

import gzip
from collections import Counter
from io import BytesIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from eyedp_core import io
from eyedp_core.data import derived
from eyedp_core.io import derive, stream, table

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
OUTCOMES: Counter = Counter()
FUZZ = settings(derandomize=True, deadline=None, database=None, max_examples=300,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
GEOMETRY = io.Geometry(1280, 720, 500.0, 281.0, 600.0)


def _seeds() -> list[bytes]:
    """Seed files: the vendor fixtures plus small generated gaze, fixation and feature tables."""
    seeds = [p.read_bytes() for p in sorted(FIXTURES.iterdir()) if p.is_file()]
    seeds += [
        b"participant,t_ms,x,y,pupil\nP1,1000,512.5,300,3.1\nP1,1004,513,301,3.2\nP2,1000,100,200,\nP2,1004,0,0,3\n",
        b"observer;x;y;stimulus;duration_ms\na;1,5;2;img.png;200\nb;3;4,25;img.png;150\n",
        b"participant\ttask\twindow\tblink_rate\tfix_dur\np1\tread\t0\t0.2\t210\np1\tread\t1\t0.3\t190\n",
        b"0,1.5,2.5\n4,1.5,2.5\n8,1.5,2.5\n",
        b"n,x,y,val,dP,lab,xT,yT\n0,-15.2,3.6,0,2190,0,NaN,NaN\n1,-15.3,3.7,0,2190,1,NaN,NaN\n2,,,4,0,-1,NaN,NaN\n",
        b"SR_RESEARCH_1000FILE\nDATE: x\n\x00\x01\x02",
    ]
    return seeds


SEEDS = _seeds()
NASTY = ["\f", "\u00a0", "\x00", '"', ",", ";", "\t", "\r", "\n", "\r\n", "\ufeff", "nan", "1e309", "-1e400", ".",
         "9223372036854775808", "18446744073709551616.0", "True", " ", "  x  ", "#", "MSG\t1 TRIALID 1",
         "SR_RESEARCH", "\x1f\x8b", "é", "\u2028", "EFIX R 1 2 3 . . .", "", "-", "0", "0,0", "inf"]


def _record(target: str, fn, *args, **kw):
    """Call fn; count 'valid' or 'DataError' under target; anything else fails the test. -> result or None."""
    try:
        out = fn(*args, **kw)
    except io.DataError as err:
        assert str(err), "a DataError must carry a message"
        OUTCOMES[(target, "DataError")] += 1
        return None
    OUTCOMES[(target, "valid")] += 1
    return out


@st.composite
def mutated(draw) -> bytes:
    """A seed with up to 6 edits: byte flips, nasty insertions, deletions, duplications, blank-line floods."""
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2, 3, 6]))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "dup_line", "flood", "pad_name", "truncate"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from(NASTY)).encode("utf-8")
        elif op == "delete":
            del data[pos:pos + draw(st.integers(1, 40))]
        elif op == "dup_line":
            end = data.find(b"\n", pos)
            start = data.rfind(b"\n", 0, pos) + 1
            if end > start:
                data[end:end] = b"\n" + data[start:end]
        elif op == "flood":
            blank = draw(st.sampled_from(["\f\n", "\u00a0\n", " \n", "\r\n", "#c\n"])).encode("utf-8")
            data[0:0] = blank * draw(st.integers(1, 3000))
        elif op == "pad_name":
            end = data.find(b"\n")
            first = bytes(data[: max(end, 0)])
            for sep in (b",", b"\t", b";"):
                if sep in first:
                    parts = first.split(sep)
                    k = draw(st.integers(0, len(parts) - 1))
                    parts[k] = b" " + parts[(k + 1) % len(parts)].strip() + b" "
                    data[: len(first)] = sep.join(parts)
                    break
        elif op == "truncate":
            del data[pos:]
    out = bytes(data)
    return gzip.compress(out) if draw(st.booleans()) and draw(st.booleans()) else out


def _check_canonical(out: pd.DataFrame, kind: str) -> None:
    """A canonical table of `kind`: its required columns, float positions, unique names, row index."""
    assert isinstance(out, pd.DataFrame) and out.columns.is_unique
    required = [r.name for r in io.ROLES[kind] if r.required]
    assert set(required) <= set(out.columns)
    if kind in ("gaze", "fixations"):
        assert out["x"].dtype == float and out["y"].dtype == float
    if kind == "gaze":
        assert np.isfinite(out["t_s"].to_numpy(dtype=float)).all()


def _exercise_table(raw: pd.DataFrame, name: str, unit: str, drop: bool) -> None:
    """Every guess, mapping, reader and check on one parsed table."""
    assert raw.columns.is_unique and all(isinstance(c, str) for c in raw.columns)
    for kind in ("gaze", "fixations", "features"):
        guess = _record("guess_mapping", io.guess_mapping, raw, kind)
        _record("guess_notes", io.guess_notes, raw, kind)
        mapping = {**guess, "units": unit}
        out = _record(f"apply_mapping[{kind}]", io.apply_mapping, raw, mapping, kind, name, drop_missing=drop,
                      geometry=GEOMETRY if unit != "px" or drop else None)
        if out is not None:
            _check_canonical(out, kind)
            if kind == "fixations":
                _record("check_in_bounds", io.check_in_bounds, out, 1280, 720, name)
                w, h = derived.data_extent(out)
                assert derived.blank_canvas(w, h).shape == (h, w, 3)
            if kind == "gaze":
                fix = _record("fixations_from_gaze", derive.fixations_from_gaze, out, GEOMETRY, source=name)
                if fix is not None:
                    _check_canonical(fix[0], "fixations")
    for reader_name, reader in io.READERS.items():
        if reader_name == "generic" or not reader.detect(raw):
            continue
        conv = _record(f"reader[{reader_name}]", reader.convert, raw)
        if conv is not None:
            frame, mapping = conv
            out = _record(f"apply_mapping[{reader_name}]", io.apply_mapping, frame, mapping, reader.kind, name,
                          drop_missing=drop, geometry=GEOMETRY)
            if out is not None:
                _check_canonical(out, reader.kind)


@pytest.mark.timeout(120)
@FUZZ
@given(data=mutated(), unit=st.sampled_from(["px", "px", "norm", "mm", "deg"]), drop=st.booleans())
def test_tables_and_recordings_give_a_valid_table_or_a_data_error(data, unit, drop):
    """read_table, every guess/mapping/reader, and read_recording: valid or DataError."""
    raw = _record("read_table", io.read_table, data, "fuzz.csv",
                  limits=io.Limits(max_rows=100_000, max_unpacked=2**24))
    if raw is not None:
        _exercise_table(raw, "fuzz.csv", unit, drop)
    rec = _record("read_recording", io.read_recording, data, filename="fuzz.csv",
                  geometry=GEOMETRY if unit != "px" else None, limits=io.Limits(max_bytes=2**24))
    if rec is not None:
        table, fmt = rec
        assert fmt in io.FORMATS and isinstance(table, pd.DataFrame)
        _check_canonical(table, rec.kind)
    _record("peek_format", io.peek_format, data, "fuzz.csv")


@pytest.mark.timeout(120)
@FUZZ
@given(data=mutated(), gz=st.booleans())
def test_streamed_tables_give_a_valid_table_or_a_data_error(data, gz):
    """read_table through the stream (every table over 256 bytes streams here): valid or DataError, and equal to
    the in-memory read whenever both give a table."""
    data = gzip.compress(bytes(data)) if gz else bytes(data)
    saved = (stream.HEAD_BYTES, stream.STREAM_MIN_BYTES, table._STREAM_FROM)
    stream.HEAD_BYTES, stream.STREAM_MIN_BYTES, table._STREAM_FROM = 256, 0, 0
    try:
        got = _record("read_table[stream]", io.read_table, data, "fuzz.csv",
                      limits=io.Limits(max_rows=100_000, max_unpacked=2**24), chunk_rows=7)
    finally:
        stream.HEAD_BYTES, stream.STREAM_MIN_BYTES, table._STREAM_FROM = saved
    if got is not None:
        assert got.columns.is_unique and all(isinstance(c, str) for c in got.columns)
        try:
            want = io.read_table(data, "fuzz.csv", limits=io.Limits(max_rows=100_000, max_unpacked=2**24))
        except io.DataError:
            want = None
        if want is not None and len(data) > 4 * 256:  # the head then holds what the sniffer reads of small files
            _same_table(got, want)


def _same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Equal tables, except that a number in a text column read in another chunk may be written differently
    ('1.50' read as 1.5 in a chunk of numbers, then turned into text; '3,10' as '3,1'): such cells must be equal
    as numbers."""
    pd.testing.assert_index_equal(got.columns, want.columns)
    pd.testing.assert_index_equal(got.index, want.index)
    for col in got.columns:
        a, b = got[col], want[col]
        assert a.dtype == b.dtype, (col, a.dtype, b.dtype)
        if pd.api.types.is_string_dtype(a.dtype) and not a.equals(b):
            differ = (a != b) & a.notna()
            na, nb = (pd.to_numeric(c[differ].str.replace(",", ".", regex=False), errors="coerce") for c in (a, b))
            assert na.notna().all() and (na == nb).all(), (col, a[differ].head(), b[differ].head())
        else:
            pd.testing.assert_series_equal(a, b)


HOSTILE = ["\u2028", "\u2029", "\u0085", "9" * 30, "-" + "8" * 25, "7" * 400, "x" * 140_000, '"' + "y" * 140_000 + '"',
           "z" * 1_100_000, "\r", "\x1f\x8b", "\x00"]


@st.composite
def arbitrary_upload(draw) -> bytes:
    """Arbitrary bytes, or a seed table with hostile pieces (odd line ends, wide integers, long fields and lines)
    put in; each possibly gzip'd whole, as several members, or cut short."""
    if draw(st.booleans()):
        data = draw(st.binary(max_size=3000))
    else:
        data = bytearray(draw(st.sampled_from(SEEDS)))
        for _ in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, max(len(data) - 1, 0)))
            data[pos:pos] = draw(st.sampled_from(HOSTILE)).encode("utf-8")
        data = bytes(data)
    wrap = draw(st.sampled_from(["none", "none", "gzip", "members", "cut"]))
    if wrap == "gzip":
        data = gzip.compress(data)
    elif wrap == "members":
        cut = draw(st.integers(0, len(data)))
        data = gzip.compress(data[:cut]) + gzip.compress(data[cut:])
    elif wrap == "cut":
        packed = gzip.compress(data)
        data = packed[: draw(st.integers(0, len(packed)))]
    return data


@pytest.mark.timeout(300)
@FUZZ
@given(data=arbitrary_upload(), web=st.booleans(), fmt=st.sampled_from(io.FORMATS))
def test_arbitrary_bytes_give_a_table_or_a_data_error(data, web, fmt):
    """peek_format, read_table (whole and a preview) and read_recording in a named format, with and without the
    web caps, on arbitrary or hostile bytes: a result or DataError, never another exception; every table read
    previews as Arrow, as the page draws it."""
    import pyarrow as pa

    from ui.tables import preview_frame

    limits = io.WEB_LIMITS if web else io.Limits()
    peek = {"max_bytes": io.MAX_UPLOAD_BYTES, "max_unpacked": io.MAX_UNPACKED_BYTES} if web else {}
    fmt_seen = _record("peek_format[any]", io.peek_format, data, "any.csv", **peek)
    assert fmt_seen in (None, "table", "eyelink_asc")
    for target, kw in (("read_table[any]", {}), ("read_table[any preview]", {"nrows": 50})):
        df = _record(target, io.read_table, data, "any.csv", limits=limits, **kw)
        if df is not None:
            pa.Table.from_pandas(preview_frame(df, 8))
    rec = _record(f"read_recording[{fmt}]", io.read_recording, data, format=fmt, filename="any.csv",
                  geometry=GEOMETRY, limits=io.Limits(max_bytes=io.MAX_UPLOAD_BYTES if web else None))
    if rec is not None:
        pa.Table.from_pandas(preview_frame(rec.samples, 8))


def _image_seeds() -> list[bytes]:
    """Small PNG (RGB, RGBA, palette, 16-bit) and JPEG images."""
    rng = np.random.default_rng(1)
    rgb = Image.fromarray(rng.integers(0, 256, (12, 17, 3), dtype=np.uint8))
    out = []
    for img, fmt in ((rgb, "PNG"), (rgb.convert("RGBA"), "PNG"), (rgb.convert("P"), "PNG"),
                     (Image.fromarray((rng.integers(0, 65535, (9, 9))).astype(np.uint16)), "PNG"), (rgb, "JPEG")):
        buf = BytesIO()
        img.save(buf, format=fmt)
        out.append(buf.getvalue())
    return out


IMAGES = _image_seeds()


@pytest.mark.timeout(60)
@FUZZ
@given(seed=st.sampled_from(IMAGES), edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)),
                                                      max_size=6), cut=st.integers(0, 4))
def test_images_give_pixels_or_a_data_error(seed, edits, cut):
    """load_image on mutated PNG/JPEG bytes: an H x W x 3 uint8 array or DataError."""
    data = bytearray(seed)
    for pos, value in edits:
        data[pos % len(data)] = value
    if cut:
        data = data[: len(data) * cut // 5]
    img = _record("load_image", io.load_image, bytes(data), "fuzz.png")
    if img is not None:
        assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_every_fixture_reads_without_error(name):
    """The unmutated fixtures are valid recordings (Pupil Labs normalised ones with a geometry)."""
    rec = io.read_recording(FIXTURES / name, geometry=GEOMETRY)
    assert len(rec.samples) > 0


def test_fuzz_outcome_counts():
    """Print the outcome counts (pytest -s) and check the fuzz really reached the readers and validators."""
    if not OUTCOMES:
        pytest.skip("run with the fuzz tests above")
    for (target, outcome), n in sorted(OUTCOMES.items()):
        print(f"fuzz {target:32s} {outcome:9s} {n:6d}")
    targets = {t for t, _ in OUTCOMES}
    assert {"read_table", "read_recording", "load_image", "apply_mapping[gaze]", "read_table[stream]",
            "fixations_from_gaze", "read_table[any]", "peek_format[any]"} <= targets
    assert OUTCOMES[("read_table", "valid")] > 0 and OUTCOMES[("load_image", "valid")] > 0
