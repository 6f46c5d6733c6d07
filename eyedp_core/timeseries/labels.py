"""Time-series mechanism names on top of the one registry (`eyedp_core.dp.registry.Mech`).

The pages and sweeps name a setting by a label such as "LPA", "CFPA-32" or "Steil-10" (chunk length or
Steil's window w after the dash); older callers pass lower-case names ("cfpa", "steil-published").
This module is the one place where such text is turned into a `Mech`; everything after that compares
`Mech` members.
"""

from __future__ import annotations

from eyedp_core.dp.registry import TIME_SERIES, Mech

__all__ = [
    "CHUNKED",
    "STANDARD_CHUNKS",
    "STEIL",
    "SWEEP_LABELS",
    "DEFAULT_SWEEP_LABELS",
    "as_mech",
    "label",
    "parse_label",
    "transform_length",
]

CHUNKED: tuple[Mech, ...] = tuple(m for m in TIME_SERIES if m.info.chunked)
STEIL: tuple[Mech, ...] = (Mech.STEIL, Mech.STEIL_PUBLISHED)
# Bozkir et al. report CFPA and DCFPA with chunks of 32, 64 and 128 windows.
STANDARD_CHUNKS: tuple[int, ...] = (32, 64, 128)
SWEEP_LABELS: tuple[str, ...] = tuple(
    m.label(c) for m in TIME_SERIES for c in (STANDARD_CHUNKS if m.info.chunked else (None,))
)
# The sweep's default: one chunk size per chunked mechanism. The 64- and 128-window variants lie between
# FPA and the 32-window ones and double the wait (bench/bench_timeseries.py, "utility vs ε").
DEFAULT_SWEEP_LABELS: tuple[str, ...] = ("LPA", "FPA", "CFPA-32", "DCFPA-32")

# Every spelling a stored or typed name may take: the value ("Steil (published)"), the member name
# ("STEIL_PUBLISHED") and its dashed form ("steil-published"), all compared in lower case.
_ALIASES: dict[str, Mech] = {
    alias: m
    for m in TIME_SERIES + STEIL
    for alias in (m.value.lower(), m.name.lower(), m.name.lower().replace("_", "-"))
}


def as_mech(name: Mech | str) -> Mech:
    """A Mech or a time-series mechanism name in any case ("cfpa", "steil-published") in, the Mech out."""
    if isinstance(name, Mech):
        return name
    try:
        return _ALIASES[str(name).strip().lower()]
    except KeyError:
        known = ", ".join(m.value for m in TIME_SERIES + STEIL)
        raise ValueError(f"unknown time-series mechanism {name!r}; known: {known}") from None


def parse_label(text: str) -> tuple[Mech, int | None]:
    """Label like "CFPA-64", "fpa", "Steil-10", "Steil-published-10" in, (Mech, chunk, window or None) out."""
    head, _, tail = str(text).strip().rpartition("-")
    if not tail.isdigit():
        head, tail = str(text).strip(), ""
    try:
        mech = as_mech(head)
    except ValueError:
        raise ValueError(f"unknown mechanism label {text!r}; "
                         "use e.g. LPA, FPA, CFPA-32, DCFPA-64, Steil-10") from None
    size = int(tail) if tail else None
    if mech.info.chunked and (size is None or size < 2):
        raise ValueError(f"{text!r}: {mech.value} needs a chunk length >= 2, e.g. {mech.value}-32")
    if size is not None and not mech.info.chunked and mech not in STEIL:
        raise ValueError(f"{text!r}: {mech.value} takes no chunk length")
    return mech, size


def label(mech: Mech, chunk: int | None = None) -> str:
    """Mechanism and chunk length in, the page label ("LPA", "DCFPA-64") out."""
    return mech.label(chunk)


def transform_length(mech: Mech, chunk: int | None, length: int) -> int:
    """Mechanism, chunk length, public T in, the length n one invocation transforms (T, or the chunk) out."""
    if mech.info.chunked:
        return int(min(int(chunk), int(length)))
    return int(length)
