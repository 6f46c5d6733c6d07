"""Row blocks: the time-series mechanisms and sweeps walk over participants × features in blocks so that
their working memory stays a small multiple of one block, not of the whole input.

Why two sizes. Noise is drawn in fixed *granules* (`noise_rows(T)` series at a time, or one recording in
the sweeps), always in the same order; a memory block is a whole number of granules. So the block size
never changes which noise a series gets: with the same seed, any `BLOCK_BYTES` gives exactly the same
numbers as one block holding everything (tests/core/timeseries/test_timeseries_blocks.py checks this).
"""
from __future__ import annotations

from collections.abc import Iterator

__all__ = ["BLOCK_BYTES", "NOISE_VALUES", "granules", "noise_rows", "row_blocks"]

# Working set aimed at per block: large enough that numpy's per-call overhead is noise, small enough
# to stay in cache and far below any input worth blocking.
BLOCK_BYTES = 8 * 2**20
# Values whose noise is drawn together (about 2**16 samples of series): fixed for a given series
# length, so that the draws never depend on the block size.
NOISE_VALUES = 2**16


def noise_rows(per_row: int) -> int:
    """Noise values per series (T for LPA, 2·Σ kept bins for the FFT family) in, how many series (rows)
    draw their noise together out: the granule."""
    return max(1, NOISE_VALUES // max(int(per_row), 1))


def row_blocks(n_rows: int, row_bytes: int, granule: int, block_bytes: int | None = None) -> Iterator[slice]:
    """Row count, working bytes per row, granule in, slices of whole granules of about `BLOCK_BYTES` out."""
    budget = BLOCK_BYTES if block_bytes is None else int(block_bytes)
    per = max(1, budget // max(int(row_bytes) * granule, 1)) * granule
    for start in range(0, n_rows, per):
        yield slice(start, min(start + per, n_rows))


def granules(block: slice, granule: int) -> Iterator[tuple[slice, slice]]:
    """A block of whole granules (as `row_blocks` makes them) in, (absolute, block-relative) slices of its
    granules out."""
    for start in range(block.start, block.stop, granule):
        stop = min(start + granule, block.stop)
        yield slice(start, stop), slice(start - block.start, stop - block.start)
