"""The size limits of one read (bytes as given, bytes once unpacked, rows, bytes per line): one object every
reader takes, below the streamed and the in-memory parsers that check them."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Size limits of one read (None: none): bytes as given, bytes once unpacked, rows, bytes per line."""

    max_bytes: int | None = None
    max_unpacked: int | None = None
    max_rows: int | None = None
    max_line: int | None = None

    def unpacked(self) -> int | None:
        """-> the cap on unpacked bytes: max_unpacked, else max_bytes (a gzip file may not unpack past it)."""
        return self.max_unpacked if self.max_unpacked is not None else self.max_bytes


# No limit at all: what a library read has unless it asks for one.
NO_LIMITS = Limits()
