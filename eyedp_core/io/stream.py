"""Large tables read as a stream: the file (or gzip member) is decompressed and parsed in chunks, never held
whole as bytes or text, with a progress report after each chunk.

Only the first HEAD_BYTES are decoded as text to find the layout (delimiter, decimal mark, header) with the
same code as an in-memory read; pandas then parses the stream with the same keywords, so the table equals
the in-memory one. Anything the stream cannot do the same way (UTF-16, lone carriage returns as line
ends, a file that fits in the head) falls back to the in-memory read.
"""
from __future__ import annotations

import gzip
import os
import warnings
import zlib
from collections.abc import Callable
from io import BytesIO
from typing import Any, BinaryIO

import pandas as pd

from eyedp_core.io.errors import DataError
from eyedp_core.io.gzipped import too_large
from eyedp_core.io.layout import MAX_COLUMNS, sniff_layout
from eyedp_core.io.limits import NO_LIMITS, Limits
from eyedp_core.io.lines import LineMeter, check_lines
from eyedp_core.io.text import _check_size, _parser_error, _refuse_binary, concat_chunks, finish_frame, row_limit

# Decoded to find the layout; a file no longer than this is read in memory (the stream would gain nothing).
HEAD_BYTES = 4 * 2**20
# Tables with more unpacked bytes than this are streamed by read_table / read_recording.
STREAM_MIN_BYTES = 32 * 2**20
CHUNK_ROWS = 250_000


class _Limited:
    """A binary stream that raises DataError once more than `limit` bytes were read from it."""

    def __init__(self, inner: BinaryIO, limit: int | None, filename: str, trailer: int,
                 transcode: str | None = None, meter: LineMeter | None = None) -> None:
        self.inner, self.limit, self.filename, self.trailer, self.count = inner, limit, filename, trailer, 0
        self.meter = meter  # measures every line read, when lines have a length limit
        # pandas' C parser takes UTF-8 bytes from a handle; a single-byte encoding (Windows-1252) is
        # re-encoded chunk by chunk, which is safe because no character spans two chunks.
        self.transcode = transcode

    def _out(self, data: bytes) -> bytes:
        return data.decode(self.transcode).encode("utf-8") if self.transcode else data

    def read(self, n: int = -1) -> bytes:
        try:
            data = self.inner.read(n)
        except (OSError, EOFError, zlib.error):
            raise DataError("the file looks gzip-compressed but is damaged or truncated.", file=self.filename,
                            expected="a complete gzip file") from None
        self.count += len(data)
        if self.limit is not None and self.count > self.limit:
            # (A gzip trailer over the limit was refused before reading: this one understated the size.)
            raise too_large(self.filename, self.limit, 0)
        if self.meter is not None:
            self.meter.feed(data)
        return self._out(data)

    def read1(self, n: int = -1) -> bytes:
        return self.read(n)

    def readline(self, n: int = -1) -> bytes:
        line = self.inner.readline(n)
        self.count += len(line)
        if self.meter is not None:
            self.meter.feed(line)
        return self._out(line)

    def readable(self) -> bool:
        return True

    @property
    def closed(self) -> bool:
        return False

    def __iter__(self):  # pandas takes only objects with read and __iter__ for file handles
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


class Source:
    """A file given as a path or as bytes (gzip or not), opened afresh for each pass."""

    def __init__(self, obj: Any, filename: str) -> None:
        self.path = os.fspath(obj) if isinstance(obj, (str, os.PathLike)) else None
        self.data = None if self.path is not None else bytes(obj)
        self.filename = filename
        self.size = os.path.getsize(self.path) if self.path is not None else len(self.data)
        with self._raw() as raw:
            start = raw.read(2)
            self.gzip = start == b"\x1f\x8b"
            self.trailer = 0
            if self.gzip and self.size >= 18:
                raw.seek(-4, os.SEEK_END)
                self.trailer = int.from_bytes(raw.read(4), "little")

    def _raw(self) -> BinaryIO:
        return open(self.path, "rb") if self.path is not None else BytesIO(self.data)

    def open(self) -> tuple[BinaryIO, BinaryIO]:
        """-> (stream of the unpacked bytes, the raw file under it, for progress)."""
        raw = self._raw()
        return (gzip.GzipFile(fileobj=raw, mode="rb") if self.gzip else raw), raw

    def head(self, n: int) -> bytes:
        """-> the first n unpacked bytes (fewer when the file is shorter)."""
        stream, raw = self.open()
        try:
            return _Limited(stream, None, self.filename, 0).read(n)
        finally:
            raw.close()

    def unpacked_size(self) -> int:
        """-> the unpacked size: exact for plain files, the gzip trailer's (modulo 4 GiB) for gzip."""
        return self.trailer if self.gzip else self.size

    def read_all(self) -> bytes:
        """-> the file's bytes as given (gzip still packed), for the in-memory readers."""
        if self.data is not None:
            return self.data
        with open(self.path, "rb") as fh:
            return fh.read()


def decode_head(head: bytes) -> tuple[str, str] | None:
    """First bytes of a file -> (its complete lines as text, the encoding for pandas), or None when a stream
    would read it differently from the in-memory reader (UTF-16, lone carriage returns)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None
    cut = head.rfind(b"\n")
    if cut < 0:
        return None
    part = head[: cut + 1]
    if b"\r" in part.replace(b"\r\n", b""):
        return None
    try:
        return part.decode("utf-8-sig"), "utf-8-sig"
    except UnicodeDecodeError:
        pass
    try:
        return part.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return None


def stream_table(source: Source, limits: Limits = NO_LIMITS, *, max_columns: int | None = MAX_COLUMNS,
                 usecols: list[str] | None = None, nrows: int | None = None, chunk_rows: int | None = CHUNK_ROWS,
                 progress: Callable[[float], None] | None = None) -> pd.DataFrame | None:
    """Source [, limits: unpacked bytes, rows, bytes per line] -> the same DataFrame as parse_table, parsed from a
    stream in chunks; None when the source must be read in memory instead (see the module docstring). Progress
    is the fraction of the file read."""
    max_unpacked, max_rows, max_line = limits.max_unpacked, limits.max_rows, limits.max_line
    name = source.filename
    if source.gzip and max_unpacked is not None and source.trailer > max_unpacked:
        raise too_large(name, max_unpacked, source.size, source.trailer)
    head = source.head(HEAD_BYTES + 1)
    # From the head alone: a first line of hundreds of MB is refused before any parser sees it.
    check_lines(head, name, max_line)
    if len(head) <= HEAD_BYTES or head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None  # fits in the head, or UTF-16 (its NUL bytes are not binary): read in memory
    _refuse_binary(head, name)
    decoded = decode_head(head)
    if decoded is None:
        return None
    text, encoding = decoded
    del head
    layout = sniff_layout(text, name, max_columns=max_columns, usecols=usecols)
    del text
    layout.body = ""
    kw = layout.read_kw(usecols, row_limit(max_rows, nrows))
    kw["skiprows"] = layout.skipped
    for enc in dict.fromkeys((encoding, "cp1252")):
        stream, raw = source.open()
        try:
            handle = _Limited(stream, max_unpacked, name, source.trailer, None if enc == "utf-8-sig" else enc,
                              None if max_line is None else LineMeter(max_line, name))
            df = _parse(handle, raw, source.size, {**kw, "encoding": "utf-8"},
                        chunk_rows if nrows is None else None, progress, usecols or layout.names)
            break
        except DataError:  # over the unpacked limit, or a damaged gzip (a ValueError: keep it as it is)
            raise
        except UnicodeDecodeError:
            if enc == "cp1252":
                return None  # the in-memory reader names the undecodable byte
        except pd.errors.EmptyDataError:
            raise DataError("the file is empty.", file=name) from None
        except (pd.errors.ParserError, ValueError, OverflowError) as err:
            raise _parser_error(err, name, layout.skipped) from None
        finally:
            raw.close()
    return finish_frame(df, layout, name, max_rows, nrows)


def _parse(stream: _Limited, raw: BinaryIO, size: int, kw: dict, chunk_rows: int | None,
           progress: Callable[[float], None] | None, columns: list[str]) -> pd.DataFrame:
    """pandas read_csv over the stream, in chunks with progress (the raw file's position) when asked."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pd.errors.ParserWarning)
        if not chunk_rows:
            return pd.read_csv(stream, **kw)
        parts = []
        for part in pd.read_csv(stream, chunksize=chunk_rows, **kw):
            parts.append(part)
            if progress is not None:
                progress(min(raw.tell() / max(size, 1), 1.0))
    return concat_chunks(parts, columns, kw.get("decimal", "."))


def read_source(obj: Any, filename: str, limits: Limits = NO_LIMITS, **kw: Any) -> tuple[Source, pd.DataFrame | None]:
    """Path or bytes [, limits; stream_table's options] -> (Source, the table streamed in chunks, or None when it
    is small or must be read in memory); the size as given is checked against limits.max_bytes first, the
    unpacked size while streaming."""
    source = Source(obj, filename)
    _check_size(source.size, filename, limits.max_bytes)
    # A gzip file is always opened as a stream: its packed size says nothing about its unpacked size, and
    # stream_table hands back (None) only what fits in its head or must be read in memory.
    if source.unpacked_size() < STREAM_MIN_BYTES and not source.gzip:
        return source, None
    return source, stream_table(source, limits, **kw)
