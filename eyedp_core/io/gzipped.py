"""Gzip files unpacked piece by piece, so that a small file that unpacks to gigabytes (a gzip bomb) costs a bounded
amount of memory: no more than one piece of unpacked bytes is held at a time unless the caller keeps them.

A file whose gzip trailer already states more than the limit is refused before anything is unpacked (the trailer
holds the last member's size modulo 4 GiB, so a valid file is never smaller than it says); a file whose trailer
understates its size (several members, or a forged trailer) is refused as soon as the unpacked count passes the
limit.
"""
from __future__ import annotations

import zlib
from collections.abc import Iterator

from eyedp_core.io.errors import MEGABYTE, DataError, megabytes, size_text

GZIP_MAGIC = b"\x1f\x8b"
# At most this many unpacked bytes come out of one step, whatever the compression ratio (deflate reaches ~1000:1).
PIECE_BYTES = 2**20
# Packed bytes fed to the inflater per step.
_FEED_BYTES = 2**16
_HINT = "Upload fewer participants or a shorter recording, or read it with eyedp_core.io.read_recording (no limit)."


def is_gzip(data: bytes | bytearray | memoryview) -> bool:
    """Bytes -> whether they start like a gzip file."""
    return bytes(data[:2]) == GZIP_MAGIC


def trailer_size(data: bytes | bytearray | memoryview) -> int:
    """gzip bytes -> the unpacked size its trailer states (last member, modulo 4 GiB); 0 when too short."""
    return int.from_bytes(data[-4:], "little") if len(data) >= 18 else 0


def too_large(filename: str, limit: int, packed: int, trailer: int = 0) -> DataError:
    """-> the DataError for a gzip file that unpacks to more than `limit` bytes (its real size when known)."""
    cap = size_text(limit)
    if trailer > limit:
        size = f"{megabytes(trailer, limit)[0]} once decompressed"
        if packed:
            size += f" ({megabytes(packed, limit)[0] if packed >= MEGABYTE else f'{packed:,} bytes'} as uploaded)"
    else:
        size = f"more than {cap} once decompressed"
    return DataError(f"the file expands to {size}; the limit is {cap} once decompressed. {_HINT}", file=filename,
                     expected=f"at most {limit:,} bytes once decompressed")


def _damaged(filename: str, truncated: bool = False) -> DataError:
    """-> the DataError for a gzip file that cannot be unpacked."""
    what = ("truncated (it ends before the compressed data does)" if truncated else "damaged")
    return DataError(f"the file looks gzip-compressed but is {what}.", file=filename,
                     expected="a complete gzip file")


def inflate(data: bytes | bytearray | memoryview, filename: str, max_unpacked: int | None = None) -> Iterator[bytes]:
    """gzip bytes -> their unpacked bytes in pieces of at most PIECE_BYTES; DataError when damaged or truncated,
    or as soon as more than max_unpacked bytes came out (None: no limit)."""
    trailer = trailer_size(data)
    if max_unpacked is not None and trailer > max_unpacked:
        raise too_large(filename, max_unpacked, len(data), trailer)
    view = memoryview(data).cast("B")
    pos, total = 0, 0
    while True:  # one gzip member per pass: concatenated members are one file (gzip's own rule)
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while not inflater.eof:
            feed = inflater.unconsumed_tail
            if not feed:
                feed = view[pos:pos + _FEED_BYTES]
                pos += len(feed)
            try:
                piece = inflater.decompress(feed, PIECE_BYTES)
            except zlib.error:
                raise _damaged(filename) from None
            if not piece and not feed and not inflater.eof:
                raise _damaged(filename, truncated=True)
            total += len(piece)
            if max_unpacked is not None and total > max_unpacked:
                raise too_large(filename, max_unpacked, len(data), trailer)
            if piece:
                yield piece
        pos -= len(inflater.unused_data)
        # Anything after the last member that is not another member (padding) is ignored, as gzip does.
        if bytes(view[pos:pos + 2]) != GZIP_MAGIC:
            return


def gunzip_limited(data: bytes | bytearray | memoryview, filename: str, max_bytes: int | None) -> bytearray:
    """gzip bytes -> the unpacked bytes, held once (no copy); DataError when damaged or over max_bytes unpacked."""
    out = bytearray()
    for piece in inflate(data, filename, max_bytes):
        out += piece
    return out


def unpacked_head(data: bytes | bytearray | memoryview, filename: str, n: int,
                  max_unpacked: int | None = None) -> bytes:
    """gzip bytes -> their first n unpacked bytes. With max_unpacked, the rest is unpacked and counted (not
    kept) so that a file over the limit is refused here, in bounded memory."""
    head = bytearray()
    for piece in inflate(data, filename, max_unpacked):
        if len(head) < n:
            head += piece[: n - len(head)]
        elif max_unpacked is None:
            break
    return bytes(head)
