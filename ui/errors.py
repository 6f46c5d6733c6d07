"""A catch-all for page bodies: an unexpected error becomes a short message with an error id, no traceback.

Use it around everything a page does after `ensure_shell()`::

    guarded(render)                 # render() is the page body as a function
    with page_guard("heatmaps"):    # or: the page body indented under a with-block
        ...

`DataError` (a problem with the user's data) is shown as its own message: it names file, row and column and
quotes at most one shortened cell, and the user is looking at their own data. Any other exception is shown
as "Something went wrong (error id 1A2B3C4D)" and logged with the error id, the exception type and the code
locations (file:line of the last frames). The exception's message and arguments are never logged or shown:
they may contain uploaded content (a column name, a cell, a header). Streamlit's st.stop / st.rerun /
st.switch_page are BaseExceptions and pass through untouched.
"""
from __future__ import annotations

import logging
import os
import secrets
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import PurePath

import streamlit as st

from eyedp_core.io.errors import DataError
from ui.text import md_text

LOG = logging.getLogger("eyedp.errors")
FRAMES_LOGGED = 4
# The test suite sets this so that a bug surfaces as an exception to AppTest and the browser tests instead of
# hiding behind the friendly message; the app itself never sets it.
RAISE_ENV = "EYEDP_RAISE_ERRORS"


def _raise_for_tests() -> bool:
    """Whether unexpected errors should propagate (test runs only)."""
    return os.environ.get(RAISE_ENV) == "1"


def new_error_id() -> str:
    """-> a short random id (8 hex digits) that ties the message on the page to the log line."""
    return secrets.token_hex(4).upper()


def log_unexpected(exc: BaseException, page: str = "") -> str:
    """Exception -> its error id, after logging id, type and code locations only (never the message)."""
    eid = new_error_id()
    frames = traceback.extract_tb(exc.__traceback__)[-FRAMES_LOGGED:]
    where = " <- ".join(f"{PurePath(f.filename).name}:{f.lineno} in {f.name}" for f in reversed(frames))
    LOG.error("error id %s on page %s: %s at %s", eid, page or "?", type(exc).__name__, where or "?")
    return eid


def show_unexpected(eid: str) -> None:
    """Error id -> the short message on the page."""
    st.error(f"Something went wrong (error id {eid}). Nothing you uploaded was logged. Try again, or "
             "report the error id if it happens again.", icon=":material/error:")


def guarded(render: Callable[[], None], page: str = "") -> None:
    """Run a page body; a DataError is shown as is, anything else as a short message with an error id."""
    try:
        render()
    except DataError as err:
        st.error(md_text(err), icon=":material/error:")  # quotes file and column names
    except Exception as exc:  # noqa: BLE001 - the whole point: no exception box, no traceback
        if _raise_for_tests():
            raise
        show_unexpected(log_unexpected(exc, page))


@contextmanager
def page_guard(page: str = "") -> Iterator[None]:
    """Context-manager form of guarded(): the body of the with-block is the page."""
    try:
        yield
    except DataError as err:
        st.error(md_text(err), icon=":material/error:")  # quotes file and column names
    except Exception as exc:  # noqa: BLE001
        if _raise_for_tests():
            raise
        show_unexpected(log_unexpected(exc, page))
