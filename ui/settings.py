"""Settings that travel: every page's widget values in the URL query string and in a JSON configuration.

The pure part (schema, encoding, validation) is eyedp_core.settings; the schema of this app's widgets is
ui/share/schema.json (built from the pages by `python -m ui.share.build_schema`). Widget keys are found in
st.session_state by their page prefix, so pages need no edits beyond their `key=`.

Order within a run: app.py calls `apply_before_run()` before the sidebar and the page draw their widgets
(first run of a session: restore from the URL; later runs: apply a loaded JSON file or a reset), and the
after-rerun hook `sync_url` writes the current values back to the URL after every full or fragment run.
"""
from __future__ import annotations

import importlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import streamlit as st

from eyedp_core.settings import Schema, decode_json, decode_query, encode_json, encode_query
from ui.fragment import after_rerun

SCHEMA_PATH = Path(__file__).with_name("share") / "schema.json"
# Page name -> the prefixes of its widget keys. The sidebar's data-source selectors travel with every page.
PAGE_PREFIXES: dict[str, tuple[str, ...]] = {
    "home": ("home_",), "heatmaps": ("hm_",), "time_series": ("ts_",), "attacks": ("at_", "atk_"),
    "gaze_samples": ("gs_",), "report": ("rp_",), "your_data": ("yd_",), "areas_of_interest": ("aoi_",),
}
SOURCE_PREFIX = "sel_"
ALL_PREFIXES = tuple(p for ps in PAGE_PREFIXES.values() for p in ps) + (SOURCE_PREFIX,)
PAGE_KEY = "share_page"  # the page drawn last (set by ui.share.page_tools)
_RESTORED = "share_restored"
_PENDING = "share_pending"  # settings to apply at the start of the next run (a loaded JSON file)
_RESET = "share_reset_page"
MESSAGES = "share_messages"
SNAPSHOTS = "share_snapshots"


@lru_cache(maxsize=1)
def _schema_doc() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text())


@lru_cache(maxsize=1)
def schema() -> Schema:
    """The app's settings schema (only keys with a page or data-source prefix)."""
    full = Schema.from_dict(_schema_doc())
    return Schema(s for s in full if s.key.startswith(ALL_PREFIXES))


def _as_widget_value(key: str, value: Any) -> Any:
    """A decoded value -> the type its widget holds (the page's enum member for an enum-valued control)."""
    path = _schema_doc().get(key, {}).get("enum")
    if path is None or value is None:
        return value
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)(value)


def prefixes(page: str | None) -> tuple[str, ...]:
    """Page name (None: unknown) -> the key prefixes that belong to its view, data sources included."""
    return (*PAGE_PREFIXES.get(page, ALL_PREFIXES), SOURCE_PREFIX) if page else ALL_PREFIXES


def current_values(page: str | None = None, state: Any = None) -> dict[str, Any]:
    """The settings of `page` (default: the page drawn last) as they are in this session (or in `state`)."""
    state = st.session_state if state is None else state
    page = page or state.get(PAGE_KEY) if page is None else page
    sch, pre = schema(), prefixes(page)
    return {k: state[k] for k in sch.keys() if k.startswith(pre) and k in state}


def _apply(values: dict[str, Any]) -> list[str]:
    """Put settings into session state before their widgets are drawn; returns messages for refused sources."""
    notes: list[str] = []
    for key, value in values.items():
        if key.startswith(SOURCE_PREFIX) and value != schema()[key].default:
            # Only the *name* of uploaded data travels; it is selected if this session has that upload.
            notes.append(f"Data source '{value}' is selected if it is loaded in this session; otherwise the "
                         "sample is used (upload it on the Your data page).")
        try:
            st.session_state[key] = _as_widget_value(key, value)
        except ValueError:
            notes.append(f"Setting '{key}' = {value!r} is not one of the choices; ignored.")
    return notes


# st.navigation's url_path of each page ("" is the default page, Home) -> the page name used here.
URL_PAGES = {"": "home", "home": "home", "heatmaps": "heatmaps", "time_series": "time_series",
             "attacks": "attacks", "gaze_samples": "gaze_samples", "report": "report", "your_data": "your_data",
             "areas_of_interest": "areas_of_interest"}


def apply_before_run(url_path: str | None = None) -> None:
    """app.py, before the sidebar: restore from the URL on a session's first run, then pending loads/resets."""
    if url_path is not None:
        st.session_state[PAGE_KEY] = URL_PAGES.get(url_path, url_path)
    if not st.session_state.get(_RESTORED):
        st.session_state[_RESTORED] = True
        values, messages = decode_query(st.query_params.to_dict(), schema(), ignore=("embed", "embed_options"))
        messages += _apply(values)
        if messages:
            st.session_state[MESSAGES] = messages
    pending = st.session_state.pop(_PENDING, None)
    if pending is not None:
        st.session_state[MESSAGES] = pending["messages"] + _apply(pending["values"])
    page = st.session_state.pop(_RESET, None)
    if page is not None:
        # A widget whose key is absent is drawn with its default value: forgetting the keys is the reset.
        for key in schema().keys():
            if key.startswith(PAGE_PREFIXES.get(page, ())):
                st.session_state.pop(key, None)


def request_reset(page: str) -> None:
    """Forget the page's settings at the start of the next run (call, then st.rerun())."""
    st.session_state[_RESET] = page


def load_json(text: str | bytes) -> tuple[str | None, list[str]]:
    """A JSON configuration in, (its page, messages) out; valid settings are applied on the next run."""
    values, page, messages = decode_json(text, schema())
    st.session_state[_PENDING] = {"values": values, "messages": messages}
    return page, messages


def config_json(page: str, extra: dict[str, Any] | None = None, state: Any = None) -> str:
    """The page's settings (defaults filled in for keys not yet drawn) as a JSON configuration."""
    sch, pre = schema(), prefixes(page)
    values = {**sch.defaults(k for k in sch.keys() if k.startswith(pre)), **current_values(page, state)}
    return encode_json(values, sch, page=page, extra=extra)


def query_for(page: str | None = None) -> dict[str, str]:
    """The query parameters that reproduce the page's current settings (defaults left out)."""
    return encode_query(current_values(page), schema())


@after_rerun
def sync_url() -> None:
    """After every full or fragment run: the URL's query string holds the page's non-default settings."""
    page = st.session_state.get(PAGE_KEY)
    if page:  # the page's settings as last drawn, for the report and the release records (widget keys go when
        # the page is left)
        st.session_state.setdefault(SNAPSHOTS, {})[page] = current_values(page)
    wanted = query_for()
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def sidebar_tools() -> None:
    """Sidebar: a refused release's reason, and "Reset this page" (drawn before the page, so it works even if
    the page stops on bad settings)."""
    refused = st.session_state.pop("eyedp_refused", None)
    page = st.session_state.get(PAGE_KEY)
    with st.sidebar:
        if refused:
            st.error(refused, icon=":material/block:")
        if page not in PAGE_PREFIXES:
            return
        if st.button("Reset this page to defaults", key="share_reset", icon=":material/restart_alt:",
                     help="Every setting of this page goes back to its default; data selection and the ledger stay."):
            request_reset(page)
            st.rerun()
