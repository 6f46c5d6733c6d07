"""Counts of the Time series page's script runs, for the test that a control inside a fragment re-runs only it.

Off unless EYEDP_RUN_LOG names a file: then every full run of the page appends "page" and every run of the
mechanism fragment appends "view" (one line each). Nothing about the data is written.
"""
from __future__ import annotations

import os


def note(kind: str) -> None:
    """Append `kind` ('page' or 'view') to the run log when EYEDP_RUN_LOG is set."""
    path = os.environ.get("EYEDP_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(kind + "\n")
