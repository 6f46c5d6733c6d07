"""`fragment`: st.fragment for EyeDP pages, with hooks that run after every (fragment or full) re-run.

Pages wrap groups of controls and the figures that depend on them in `@fragment`, so a slider move re-runs
only that group; each fragment carries the app's error guard (ui/errors.py), which its own re-runs would miss. Work that must follow every change of a setting (recording the page's settings in the URL)
registers itself once with `after_rerun` and then runs after each fragment re-run as well as after a full run.
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from ui import runlog
from ui.errors import page_guard

F = TypeVar("F", bound=Callable[..., Any])
_AFTER: list[Callable[[], None]] = []
_BEFORE: list[Callable[[], None]] = []


def before_rerun(hook: Callable[[], None]) -> Callable[[], None]:
    """Register `hook` (no arguments) to run before every fragment body (e.g. give back the page's settings
    whose widgets an earlier re-run of the fragment did not draw); returns the hook (decorator use)."""
    if hook not in _BEFORE:
        _BEFORE.append(hook)
    return hook


def after_rerun(hook: Callable[[], None]) -> Callable[[], None]:
    """Register `hook` (no arguments) to run after every fragment re-run; returns the hook (decorator use)."""
    if hook not in _AFTER:
        _AFTER.append(hook)
    return hook


def run_after_hooks() -> None:
    """Run every registered hook (app.py calls this after a full run; `fragment` after its body)."""
    for hook in list(_AFTER):
        hook()


def fragment(func: F | None = None, *, run_every: float | None = None, name: str | None = None) -> Any:
    """Decorator: `func` becomes an st.fragment whose re-runs are followed by the after-rerun hooks (and logged
    as `name`, default the function's name, in ui.runlog)."""
    def wrap(f: F) -> F:
        part = name or f.__name__

        @functools.wraps(f)
        def body(*args: Any, **kwargs: Any) -> Any:
            # A fragment's own re-run happens outside app.py's guard: give it the same one (error id, no
            # traceback, nothing uploaded logged).
            out = None
            t0 = time.perf_counter()
            with page_guard(f.__module__):
                for hook in list(_BEFORE):
                    hook()
                out = f(*args, **kwargs)
            run_after_hooks()
            runlog.note(part, (time.perf_counter() - t0) * 1000)
            return out
        return st.fragment(body, run_every=run_every)  # type: ignore[return-value]

    return wrap(func) if func is not None else wrap
