"""Hostile uploads, kept as regression tests: a gzip bomb (memory and time measured in a fresh process), a first
line of 300 MB, a first-line field over the csv module's limit, integers wider than 64 bits, every vendor format
asked of a table without its columns, and files whose lines end in U+2028 (or U+2029, U+0085).

The large files are generated, never stored: repeated blocks compressed once each with a full flush, so a 1 GiB
bomb is built in a fraction of a second. Outcomes (peak MB, seconds, message) are printed with pytest -s.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pyarrow as pa
import pytest

from eyedp_core import io
from eyedp_core.io import lines, stream, table
from tests.apptest import upload_file
from ui.tables import MAX_CELL_CHARS, preview_frame

ROOT = Path(__file__).resolve().parents[2]
# Peak resident memory of a fresh Python that imports eyedp_core.io (pandas, numpy) is about 120-150 MB.
PEAK_MB = 300
SECONDS = 30  # the refusals take well under a second alone; the machine is shared

GZIP_BUILDER = '''
import zlib

def repeated_gzip(head: bytes, block: bytes, copies: int, tail: bytes = b"", isize: int | None = None) -> bytes:
    """head + block * copies + tail as one gzip member, built from one compression of the block (full flushes
    make every copy compress to the same bytes); isize forges the trailer's size."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(head) + c.flush(zlib.Z_FULL_FLUSH)
    packed = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    last = c.compress(tail) + c.flush()
    crc = zlib.crc32(head)
    for _ in range(copies):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + copies * len(block) + len(tail) if isize is None else isize
    return (b"\\x1f\\x8b\\x08\\x00\\x00\\x00\\x00\\x00\\x02\\xff" + first + packed * copies + last
            + crc.to_bytes(4, "little") + (size % 2**32).to_bytes(4, "little"))


def csv_bomb(unpacked: int = 2**30, isize: int | None = None) -> bytes:
    """A gzip CSV of eight integer columns that unpacks to at least `unpacked` bytes."""
    row = b"1,2,3,4,5,6,7,8\\n"
    block = row * (2**20 // len(row))
    return repeated_gzip(b"a,b,c,d,e,f,g,h\\n", block, -(-unpacked // len(block)), isize=isize)
'''
_BUILT: dict = {}
exec(GZIP_BUILDER, _BUILT)  # noqa: S102 - the same builder in this process and in the measured child
repeated_gzip, csv_bomb = _BUILT["repeated_gzip"], _BUILT["csv_bomb"]


def _measured(body: str) -> dict:
    """Run `body` in a fresh Python (repository on the path) -> its JSON result plus peak_mb and seconds of the
    measured part (everything after `from eyedp_core import io`)."""
    code = GZIP_BUILDER + textwrap.dedent('''
        import json, time
        from eyedp_core import io
        def peak_mb():
            # VmHWM, not getrusage's ru_maxrss: Linux carries ru_maxrss over fork and exec, so a child of a large
            # pytest process would report the parent's peak.
            with open("/proc/self/status") as f:
                return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:")) / 1024
        io.peek_format  # imports the readers (pandas, numpy): the baseline every page process has
        result = {"base_mb": peak_mb()}
        def attempt(name, fn, *args, **kw):
            try:
                out = fn(*args, **kw)
                result[name] = {"ok": out if isinstance(out, str) else len(out)}
            except io.DataError as err:
                result[name] = {"error": str(err)}
        INPUT = build()
        start = time.perf_counter()
        run()
        result["seconds"] = time.perf_counter() - start
        result["peak_mb"] = peak_mb()
        print(json.dumps(result))
    ''')
    title, _, rest = body.partition("\n")
    done = subprocess.run([sys.executable, "-c", title + "\n" + textwrap.dedent(rest) + code], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"\n{title} -> peak {out['peak_mb']:.0f} MB (after imports {out['base_mb']:.0f} MB), "
          f"{out['seconds']:.2f} s: "
          + "; ".join(f"{k}: {v}" for k, v in out.items() if isinstance(v, dict)))
    return out


WEB_PEEK = "dict(max_bytes=io.MAX_UPLOAD_BYTES, max_unpacked=io.MAX_UNPACKED_BYTES)"


@pytest.mark.parametrize("isize", [None, 1000], ids=["honest_trailer", "forged_trailer"])
def test_gzip_bomb_is_refused_in_bounded_memory_and_time(isize):
    """A 2 MB .csv.gz that unpacks to 1 GiB, in a fresh process whose peak stays under 300 MB. With an honest
    trailer the page's first step (peek_format with the web caps) refuses it from the trailer alone, saying it
    expands beyond the cap, and so does the preview read. With a forged trailer the peek and the preview read
    only the head (the peek never unpacks a file to its end); the pipeline's full read counts it through before
    parsing and refuses it past the cap."""
    out = _measured(f'''# gzip bomb, trailer {isize}
        def build():
            return csv_bomb(isize={isize})
        def run():
            attempt("peek", io.peek_format, INPUT, "bomb.csv.gz", **{WEB_PEEK})
            attempt("preview", io.read_table, INPUT, "bomb.csv.gz", nrows=5000, limits=io.WEB_LIMITS)
            attempt("full", io.Upload(INPUT, "bomb.csv.gz", io.WEB_LIMITS).full_table)
    ''')
    assert out["peak_mb"] < PEAK_MB and out["seconds"] < SECONDS
    full = out["full"]["error"]
    assert "bomb.csv.gz: the file expands to" in full and "the limit is 1,000 MB once decompressed" in full
    if isize is None:
        peek = out["peek"]["error"]
        assert "1,073.7 MB once decompressed (2.1 MB as uploaded)" in peek
        assert out["preview"]["error"] == peek == full
    else:
        assert out["peek"] == {"ok": "table"} and out["preview"] == {"ok": 5000}
        assert "more than 1,000 MB" in full


@pytest.mark.parametrize("kind", ["utf16", "lone_cr"])
def test_gzip_the_stream_cannot_read_previews_from_a_bounded_prefix(kind):
    """A .csv.gz of 900 MB unpacked (under the cap) in UTF-16 or with lone CR line ends (files the stream hands
    back to the in-memory reader): peek_format counts it through, the preview reads only its first 16 MB."""
    out = _measured(f'''# 900 MB {kind} gzip, previewed
        def build():
            if "{kind}" == "utf16":
                return repeated_gzip(b"\\xff\\xfe" + "a,b,c,d\\r\\n".encode("utf-16-le"),
                                     ("1,2,3,4\\r\\n" * 58254).encode("utf-16-le"), 900)
            return repeated_gzip(b"a,b,c,d\\r", b"1,2,3,4\\r" * 116508, 900)
        def run():
            attempt("peek", io.peek_format, INPUT, "wide.csv.gz", **{WEB_PEEK})
            attempt("preview", io.read_table, INPUT, "wide.csv.gz", nrows=5000, limits=io.WEB_LIMITS)
    ''')
    assert out["peak_mb"] < PEAK_MB and out["seconds"] < SECONDS
    assert out["peek"] == {"ok": "table"} and out["preview"] == {"ok": 5000}


@pytest.mark.parametrize("encode", [lambda t: b"\xff\xfe" + t.encode("utf-16-le"),
                                    lambda t: t.replace("\n", "\r").encode()], ids=["utf16", "lone_cr"])
def test_gzip_over_the_stream_head_that_must_be_read_in_memory_reads_whole(encode, monkeypatch):
    """A gzip table longer than the stream's head in UTF-16 or with lone CR line ends (every gzip file goes
    to the stream first, which hands these back) reads like the plain file; its preview reads the first rows."""
    import gzip

    monkeypatch.setattr(stream, "HEAD_BYTES", 4096)
    monkeypatch.setattr(table, "PREVIEW_BYTES", 8192)
    raw = encode("participant,x,y\n" + "".join(f"p{i % 3},{i},{i + 1}\n" for i in range(3000)))
    want = io.read_table(raw, "t.csv")
    got = io.read_table(gzip.compress(raw), "t.csv.gz", limits=io.WEB_LIMITS)
    assert len(want) == 3000 and got.equals(want)
    head = io.read_table(gzip.compress(raw), "t.csv.gz", nrows=5000, limits=io.WEB_LIMITS)
    assert 0 < len(head) < 3000 and head.equals(want.iloc[: len(head)])


def test_gzip_bomb_library_read_is_streamed_not_held():
    """Without the web caps a library read of the bomb's first rows still unpacks only what it parses."""
    out = _measured('''# gzip bomb, library preview read
        def build():
            return csv_bomb()
        def run():
            attempt("head", io.read_table, INPUT, "bomb.csv.gz", nrows=1000)
            attempt("peek", io.peek_format, INPUT, "bomb.csv.gz")
    ''')
    assert out["peak_mb"] < PEAK_MB and out["seconds"] < SECONDS
    assert out["head"] == {"ok": 1000} and out["peek"] == {"ok": "table"}


def test_first_data_line_of_300_mb_is_refused_from_a_bounded_prefix():
    """A .csv.gz whose first data line is 300 MB (under the 1 GB unpacked cap): peek_format counts it through in
    bounded memory, the page's preview read refuses the line from the stream's first megabytes, naming row 2 and
    the limit; so does a library read given only the line cap."""
    out = _measured('''# first data line of 300 MB
        def build():
            return repeated_gzip(b"a,b\\n1,", b"2" * 10**6, 300, b"\\n")
        def run():
            attempt("peek", io.peek_format, INPUT, "line.csv.gz", **''' + WEB_PEEK + ''')
            attempt("web", io.read_table, INPUT, "line.csv.gz", nrows=5000, limits=io.WEB_LIMITS)
            attempt("line_cap", io.read_table, INPUT, "line.csv.gz", limits=io.Limits(max_line=io.MAX_LINE_BYTES))
    ''')
    assert out["peak_mb"] < PEAK_MB and out["seconds"] < SECONDS
    assert out["peek"] == {"ok": "table"}
    assert out["web"]["error"].startswith("line.csv.gz, row 2: this line is longer than 1,000,000 bytes")
    assert out["line_cap"] == out["web"]


def test_long_lines_are_refused_under_the_web_caps_wherever_they_are(monkeypatch):
    """A plain upload with a 20 MB first data line, and a line of 1.1 MB at row 10,000 (read in memory and
    streamed): DataError naming the row; a library read without the cap takes them."""
    first = b"a,b\n1," + b"2" * 20_000_000 + b"\n3,4\n"
    with pytest.raises(io.DataError, match=r"^first.csv, row 2: this line is longer than 1,000,000 bytes"):
        io.read_table(first, "first.csv", nrows=5000, limits=io.WEB_LIMITS)
    late = b"a,b\n" + b"1,2\n" * 9998 + b"1," + b"3" * 1_100_000 + b"\n5,6\n"
    with pytest.raises(io.DataError, match=r"^late.csv, row 10000: this line is longer"):
        io.read_table(late, "late.csv", limits=io.WEB_LIMITS)
    monkeypatch.setattr(stream, "HEAD_BYTES", 16_384)
    monkeypatch.setattr(stream, "STREAM_MIN_BYTES", 65_536)
    monkeypatch.setattr(table, "_STREAM_FROM", 0)
    with pytest.raises(io.DataError, match=r"^late.csv, row 10000: this line is longer"):
        io.read_table(late, "late.csv", chunk_rows=1000, limits=io.WEB_LIMITS)
    assert len(io.read_table(late, "late.csv")) == 10_000


def test_asc_recording_with_a_long_line_is_refused_under_the_line_cap():
    """An EyeLink ASC file (read whole, as the page reads it) with a 2 MB MSG line: DataError naming its row."""
    asc = (b"** CONVERTED FROM x.edf\nMSG\t1000 DISPLAY_COORDS 0 0 1279 1023\nSTART\t1000 \tLEFT\tSAMPLES\tEVENTS\n"
           b"MSG\t1001 " + b"x" * 2_000_000 + b"\n1002\t 500.0\t 400.0\t 1000.0\t...\nEND\t1003 \tSAMPLES\n")
    with pytest.raises(io.DataError, match=r"^rec.asc, row 4: this line is longer than 1,000,000 bytes"):
        io.read_recording(asc, filename="rec.asc", limits=io.Limits(max_bytes=io.MAX_UNPACKED_BYTES, max_line=io.MAX_LINE_BYTES))


def test_line_meter_counts_across_pieces_and_crlf():
    """Lines split over pieces are measured whole; CR LF and lone CR end lines; rows count line feeds."""
    meter = lines.LineMeter(10, "m.csv")
    for piece in (b"abc", b"defghij\r\n", b"0123456789\n", b"12345", b"67890\r"):
        meter.feed(piece)
    with pytest.raises(io.DataError, match=r"row 4: this line is longer than 10 bytes"):
        meter.feed(b"\nabcdefghijk")


def test_first_line_field_over_the_csv_limit_names_the_line_and_limit():
    """Not `_csv.Error: field larger than field limit` from the layout sniffer but a DataError on row 1 naming
    131,072 characters, quoted or not, with and without the web caps."""
    for body in (b"a," + b"x" * 200_000 + b"\n1,2\n", b'a,"' + b"x" * 200_000 + b'"\n1,2\n'):
        for limits in (io.Limits(), io.WEB_LIMITS):
            with pytest.raises(io.DataError, match=r"^field.csv, row 1: a field on this line is longer than "
                                                   r"131,072 characters"):
                io.read_table(body, "field.csv", limits=limits)


WIDE = b"participant,t,x,y,code\np1,1," + b"9" * 30 + b",2,-" + b"8" * 25 + b"\np1,2,3,4,5\n"


def test_integers_wider_than_64_bits_are_read_as_floats_with_a_warning():
    """A column holding an integer wider than int64 (and one beyond 1e308) becomes float with a warning naming
    the column and the row; the preview converts to Arrow."""
    df = io.read_table(WIDE, "wide.csv")
    assert str(df["x"].dtype) == "float64" and df["x"].iloc[0] == pytest.approx(1e30 - 1, rel=1e-15)
    assert str(df["code"].dtype) == "float64" and df["code"].iloc[0] == pytest.approx(-8.888888888888889e24)
    notes = [str(w) for w in df.attrs["warnings"]]
    assert any("column 'x' holds whole numbers too wide for 64 bits (row 2: '9999" in n for n in notes)
    assert any("column 'code'" in n for n in notes)
    huge = io.read_table(b"a,b\n1," + b"7" * 400 + b"\n2,3\n", "huge.csv")
    assert huge["b"].iloc[0] == float("inf") and "become infinite" in str(huge.attrs["warnings"][0])
    pa.Table.from_pandas(preview_frame(df, 8))
    uint = io.read_table(b"a,b\n1,18446744073709551615\n2,3\n", "u.csv")  # fits uint64: kept exact, no warning
    assert str(uint["b"].dtype) == "uint64" and not uint.attrs["warnings"]


def test_preview_frame_makes_any_object_column_drawable():
    """Python integers over 64 bits, mixed objects and long texts -> text Arrow converts; long cells cut."""
    import pandas as pd

    df = pd.DataFrame({"big": [10**40, 1], "mixed": [1, "a"], "long": ["x" * 1000, None], "n": [1.5, 2.0]},
                      dtype=object).assign(n=[1.5, 2.0])
    with pytest.raises((OverflowError, pa.ArrowException)):
        pa.Table.from_pandas(df)
    shown = preview_frame(df, 8)
    pa.Table.from_pandas(shown)
    assert shown["big"].iloc[0] == "1" + "0" * 40 and len(shown["long"].iloc[0]) == MAX_CELL_CHARS
    assert pd.isna(shown["long"].iloc[1]) and str(shown["n"].dtype) == "float64"


FOREIGN = b"alpha,beta,gamma\n1,2,3\n4,5,6\n"


@pytest.mark.parametrize("fmt", [f for f in io.FORMATS if f not in ("generic", "eyelink_asc")])
def test_each_vendor_format_on_a_foreign_table_is_a_data_error(fmt):
    """read_recording(format=<vendor>) on a table without that vendor's columns (was KeyError in 4 readers and a
    misleading message in others): DataError naming the format and the columns it needs."""
    with pytest.raises(io.DataError) as info:
        io.read_recording(FOREIGN, format=fmt, filename="foreign.csv")
    msg = str(info.value)
    assert msg.startswith(f"foreign.csv: format '{fmt}' (") and "which the table lacks" in msg
    assert "Its columns are 'alpha', 'beta', 'gamma'" in msg
    needed = {"tobii": "Participant name; Recording timestamp; Gaze point X; Gaze point Y",
              "eyelink_fixations": "CURRENT_FIX_X; CURRENT_FIX_Y", "gazebase": "n; x; y; val; dP"}
    if fmt in needed:
        assert f"needs the columns {needed[fmt]}," in msg


def test_vendor_variant_with_a_column_missing_is_a_data_error():
    """A table that has what a format needs to be chosen but lacks a column of one variant: DataError, not
    KeyError (Pupil Player fixations without a duration column)."""
    data = b"start_timestamp,norm_pos_x,norm_pos_y,confidence\n1.0,0.5,0.5,0.9\n"
    with pytest.raises(io.DataError, match="format 'pupil_labs_fixations'.*needs the column duration"):
        io.read_recording(data, format="pupil_labs_fixations", filename="pl.csv", geometry="desktop_24")


@pytest.mark.parametrize("sep, name", [("\u2028", "U+2028 LINE SEPARATOR"), ("\u2029", "U+2029 PARAGRAPH SEPARATOR"),
                                       ("\u0085", "U+0085 NEXT LINE")])
def test_unicode_line_separators_are_named(sep, name):
    """A file whose lines end in U+2028 (U+2029, U+0085) is not read as 'one huge header line': the character is
    named, in memory, streamed (web caps, over 1 MB) and gzip'd."""
    small = f"participant,t,x,y{sep}p1,1,2,3{sep}p1,2,3,4{sep}".encode()
    big = ("participant,t,x,y" + sep + f"p1,1,2,3{sep}" * 200_000).encode()
    import gzip

    for data, limits in ((small, io.Limits()), (small, io.WEB_LIMITS), (big, io.Limits()), (big, io.WEB_LIMITS),
                         (gzip.compress(big), io.WEB_LIMITS)):
        with pytest.raises(io.DataError, match=re.escape(f"row 1: the first line holds the character {name}: the "
                                                         f"file seems to use {name.split()[0]} as its line end")):
            io.read_table(data, "sep.csv", limits=limits)


def test_unicode_line_separator_inside_a_cell_stays_text():
    """With ordinary line ends, a U+2028 inside a cell is kept as part of the cell."""
    df = io.read_table("participant,label,x\np1,a\u2028b,1\np2,c,2\n".encode(), "cell.csv")
    assert df["label"].tolist() == ["a\u2028b", "c"]


def test_bomb_builder_makes_what_it_says():
    """The generated bomb unpacks (checked for the first 50 MB by zlib, trailer and CRC included) as stated."""
    small = csv_bomb(50 * 2**20)
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    unpacked = sum(len(inflater.decompress(small[i:i + 65536])) for i in range(0, len(small), 65536))
    assert inflater.eof and unpacked == int.from_bytes(small[-4:], "little") >= 50 * 2**20
    assert len(csv_bomb()) < 2.5e6 and int.from_bytes(csv_bomb()[-4:], "little") >= 2**30


# --- the Your data page --------------------------------------------------------------------------


@pytest.mark.parametrize("name, data, kind, shown", [
    ("field.csv", b"a," + b"x" * 200_000 + b"\n1,2\n", "gaze",
     "field.csv, row 1: a field on this line is longer than 131,072 characters"),
    ("line.csv", b"t,x,y\n1,2," + b"3" * 2_000_000 + b"\n", "gaze",
     "line.csv, row 2: this line is longer than 1,000,000 bytes"),
    ("sep.csv", "t,x,y\u20281,2,3\u20282,3,4\u2028".encode(), "fixations",
     "sep.csv, row 1: the first line holds the character U+2028 LINE SEPARATOR"),
    ("bomb.csv.gz", csv_bomb(isize=1000), "gaze",
     "bomb.csv.gz: the file expands to more than 1,000 MB once decompressed; the limit is 1,000 MB"),
    ("tobii.csv", FOREIGN, "features", None),
], ids=["long_field", "long_line", "u2028", "gzip_bomb", "plain"])
def test_hostile_uploads_end_in_a_clear_message_on_the_page(name, data, kind, shown):
    """Each hostile upload ends in its DataError shown as a message: no exception box, no error id. A gzip bomb
    with a forged trailer is previewed from its head; 'Use this data' refuses it."""
    at = upload_file(kind, name, data)
    if name == "bomb.csv.gz":
        assert not at.error and len(at.dataframe) >= 1  # the head only, however large the file
        [b for b in at.button if b.label == "Use this data"][0].click().run()
        assert not at.exception, at.exception
    errors = [e.value for e in at.error]
    assert not any("error id" in e for e in errors)
    if shown is None:
        assert not errors and len(at.dataframe) >= 1
    else:
        assert len(errors) == 1 and errors[0].startswith(shown), errors


def test_a_refused_upload_is_not_read_again_on_the_next_run(monkeypatch):
    """The page keeps the DataError of a refused file for its session: a rerun shows it again without reading
    the bomb's head a second time."""
    from eyedp_core.io import pipeline

    calls = []
    original = pipeline.head_bytes
    monkeypatch.setattr(pipeline, "head_bytes", lambda *a, **k: calls.append(1) or original(*a, **k))
    at = upload_file("gaze", "bomb.csv.gz", csv_bomb())
    at.run()
    assert len(calls) == 1 and len(at.error) == 1 and "expands to 1,073.7 MB" in at.error[0].value


def test_wide_integer_upload_is_previewed_with_a_warning():
    """The wide-integer file: the preview draws (Arrow), the warning names the column, mapping and 'Use this
    data' load it (the x column as floats)."""
    at = upload_file("gaze", "wide.csv", WIDE)
    assert not at.error and len(at.dataframe) >= 1
    infos = " ".join(i.value for i in at.info)
    assert "column 'x' holds whole numbers too wide for 64 bits (row 2:" in infos and "column 'code'" in infos
    at.selectbox(key="map_gaze_participant").set_value("participant").run()
    at.selectbox(key="map_gaze_t_s").set_value("t").run()
    at.selectbox(key="map_gaze_x").set_value("x").run()
    at.selectbox(key="map_gaze_y").set_value("y").run()
    [b for b in at.button if b.label == "Use this data"][0].click().run()
    assert not at.exception, at.exception
    assert not any("error id" in e.value for e in at.error)


def test_page_says_the_cap_in_bytes_and_what_happens_above_it():
    """The uploader's caption gives the cap as the browser enforces it and what happens to a larger file."""
    from tests.apptest import open_app, page_text

    text_ = page_text(open_app("pages/your_data.py"))
    assert "Files up to 200 MB (200,000,000 bytes). A larger file is refused by your browser before anything " \
           "is sent: the uploader marks it with a red icon and this page reads nothing." in text_
    assert "A larger table fits gzip-compressed (`.csv.gz`, up to 1,000 MB once unpacked)" in text_
