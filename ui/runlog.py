"""Script-run log for tests and bench: which parts of a page ran, and for how long (Python time).

Off unless EYEDP_RUN_LOG names a file. Then every page body calls `note("page")` once per full run, and every
`ui.fragment.fragment` appends its own name (the function's name, or the `name=` given) with the milliseconds
its body took, one line each: "page", "view 12.3". Tests read it to prove that a control inside a fragment
re-runs only that fragment; bench reads the milliseconds. Nothing about the data is written.
"""
from __future__ import annotations

import os

ENV = "EYEDP_RUN_LOG"


def note(part: str, ms: float | None = None) -> None:
    """Append `part` (and its duration in ms, when given) to the run log when EYEDP_RUN_LOG is set."""
    path = os.environ.get(ENV)
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(part + ("" if ms is None else f" {ms:.1f}") + "\n")


def parts(text: str) -> list[str]:
    """A run log's text -> the part names in order (durations dropped)."""
    return [line.split()[0] for line in text.splitlines() if line.strip()]
