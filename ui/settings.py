"""Settings that travel: every page's widget values in the URL query string and in a JSON configuration.

The pure part (schema, encoding, validation) is eyedp_core.settings; the schema of this app's widgets is
ui/share/schema.json (built from the pages by `python -m ui.share.build_schema`). Widget keys are found in
st.session_state by their page prefix, so pages need no edits beyond their `key=`.

Order within a run: app.py calls `apply_before_run()` (inside the error guard) before the sidebar and the page
draw their widgets: on a session's first run it restores the URL; then it applies a reset of this page
(explicit defaults), settings loaded from a file for this page, and the page's stored settings whose widgets
Streamlit forgot. The after-rerun hook `sync_url` copies the page's values into the session's store (one per
page) and writes the non-default ones to the URL after every full or fragment run. The store is the one
source a page's controls come back from, so a control shows what the page computes, exports and shares.
"""
from __future__ import annotations

import importlib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import streamlit as st

from eyedp_core.settings.codec import decode_json, decode_query, encode_json, encode_query
from eyedp_core.settings.schema import Schema
from ui.fragment import after_rerun, before_rerun
from ui.text import md_text

SCHEMA_PATH = Path(__file__).with_name("share") / "schema.json"
# Page name -> the prefixes of its widget keys. The sidebar's data-source selectors travel with every page.
PAGE_PREFIXES: dict[str, tuple[str, ...]] = {
    "home": ("home_",), "heatmaps": ("hm_",), "time_series": ("ts_",), "attacks": ("at_", "atk_"),
    "gaze_samples": ("gs_",), "report": ("rp_",), "your_data": ("yd_",), "areas_of_interest": ("aoi_",),
    "plan": ("plan_",),
}
SOURCE_PREFIX = "sel_"
ALL_PREFIXES = tuple(p for ps in PAGE_PREFIXES.values() for p in ps) + (SOURCE_PREFIX,)
PAGE_KEY = "share_page"  # the page drawn last (set by ui.share.page_tools)
_RESTORED = "share_restored"
_PENDING = "share_pending"  # page -> settings from a loaded JSON file, applied when that page is next drawn
_RESET = "share_reset_page"
_LAST_RUN = "share_last_run"  # (page, finished): the page of the last full run and whether it reached sync_url
MESSAGES = "share_messages"
SNAPSHOTS = "share_snapshots"  # page -> its settings as last drawn: the session's store of every page's settings


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


@lru_cache(maxsize=None)
def page_keys(page: str | None) -> tuple[str, ...]:
    """The schema's keys that belong to `page` (data sources included; None: every page), in schema order."""
    pre = prefixes(page)
    return tuple(k for k in schema().keys() if k.startswith(pre))


def current_values(page: str | None = None, state: Any = None) -> dict[str, Any]:
    """The settings of `page` (default: the page drawn last) as they are in this session (or in `state`)."""
    state = st.session_state if state is None else state
    if page is None:
        page = state.get(PAGE_KEY)
    out: dict[str, Any] = {}
    for key in page_keys(page):  # runs after every slider move: one session-state look-up per key
        try:
            out[key] = state[key]
        except KeyError:
            pass
    return out


# A restored value that a preset would overwrite clears the preset, as moving its control does on the page
# (Heatmaps' privacy level sets ε and δ on every run while one is chosen).
CLEARS: dict[str, dict[str, Any]] = {"hm_eps": {"hm_preset": None}, "hm_delta": {"hm_preset": None}}


# Controls whose options or bounds come from the data in use. A slider refuses (raises on) a value set outside
# its range, so these are restored only onto the data they were chosen on, and a reset on other data lets the
# page pick its own default.
DATA_BOUND = frozenset({"hm_stimulus", "hm_target", "ts_feature", "ts_features", "ts_task", "ts_participant",
                        "ts_corr_lag", "ts_chunk_free", "ts_k", "gs_participant", "gs_stimulus", "gs_window", "gs_t",
                        "gs_kanon_k", "gs_attack_ks"})


def _source(key: str, values: Any) -> Any:
    """The data source `key` holds in `values` (its default, the sample, when absent)."""
    return values.get(key, schema()[key].default)


def _same_data(stored: dict[str, Any]) -> bool:
    """Whether the data sources now selected are those the stored settings were chosen on."""
    return all(_source(k, stored) == _source(k, st.session_state) for k in schema().with_prefix(SOURCE_PREFIX))


def clamp(key: str, lo: float, hi: float) -> None:
    """Before drawing a slider whose bounds come from the data: a value it holds (from a link, a file or the
    store) is moved into [lo, hi], as Streamlit raises on a value set outside the range."""
    v = st.session_state.get(key)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        new: Any = type(v)(min(max(v, lo), hi))
    elif isinstance(v, (list, tuple)) and v and all(isinstance(x, (int, float)) for x in v):
        new = type(v)(type(x)(min(max(x, lo), hi)) for x in v)
    else:
        return
    if new != v:
        st.session_state[key] = new


def page_of(key: str) -> str | None:
    """Setting key -> the page it belongs to (None: a data source, which travels with every page)."""
    for page, pre in PAGE_PREFIXES.items():
        if key.startswith(pre):
            return page
    return None


def _store() -> dict[str, dict[str, Any]]:
    """Every page's settings as last drawn in this session (Streamlit forgets the keys of widgets that a run
    does not draw, so a page's settings would be lost on every page switch without this copy)."""
    return st.session_state.setdefault(SNAPSHOTS, {})


def forget(*keys: str, to_default: bool = False) -> None:
    """Drop keys from the session and from every page's stored settings (a page that resets some of its own
    settings, e.g. when the data changes, calls this so they are not restored on the next run). With
    `to_default`, a setting's key is set to its schema default instead of dropped: a control whose key is only
    dropped keeps showing its old value in the browser."""
    sch = schema()
    for key in keys:
        if to_default and key in sch:
            _set(key, sch[key].default, [])
        else:
            st.session_state.pop(key, None)
    for values in _store().values():
        for key in keys:
            if to_default and key in sch and key in values:
                values[key] = st.session_state.get(key, sch[key].default)
            else:
                values.pop(key, None)


def _set(key: str, value: Any, notes: list[str]) -> None:
    """One setting into session state (as its widget's type); a value the widget refuses is a note."""
    try:
        st.session_state[key] = _as_widget_value(key, value)
    except Exception:  # noqa: BLE001 - an enum or a widget that refuses the value: dropped, never an error box
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:39] + "…"
        notes.append(f"Setting '{key}' = {shown} cannot be used by its control; ignored.")


def _apply(values: dict[str, Any]) -> list[str]:
    """Put settings into session state before their widgets are drawn, and into their page's stored settings;
    returns notes (a data source that must be loaded, a value a control refused)."""
    notes: list[str] = []
    for key in list(values):
        for other, value in CLEARS.get(key, {}).items():
            values = {other: value, **values}  # an explicit value for the preset itself still wins
    for key, value in values.items():
        if key.startswith(SOURCE_PREFIX) and value != schema()[key].default:
            # Only the *name* of uploaded data travels; it is selected if this session has that upload.
            notes.append(f"Data source '{value}' is selected if it is loaded in this session; otherwise the "
                         "sample is used (upload it on the Your data page).")
        _set(key, value, notes)
        if (page := page_of(key)) is not None and key in st.session_state:
            _store().setdefault(page, {})[key] = st.session_state[key]
    return notes


def _note(messages: list[str]) -> None:
    """Add messages to those shown at the top of the next page drawn (each text once)."""
    if messages:
        shown = st.session_state.setdefault(MESSAGES, [])
        shown.extend(m for m in dict.fromkeys(messages) if m not in shown)


def defaults(page: str) -> dict[str, Any]:
    """The page's settings at their schema defaults (data sources excluded: a reset keeps the data)."""
    sch = schema()
    return sch.defaults(k for k in sch.keys() if k.startswith(PAGE_PREFIXES.get(page, ())))


# st.navigation's url_path of each page ("" is the default page, Home) -> the page name used here.
URL_PAGES = {"": "home", "home": "home", "heatmaps": "heatmaps", "time_series": "time_series",
             "attacks": "attacks", "gaze_samples": "gaze_samples", "report": "report", "your_data": "your_data",
             "areas_of_interest": "areas_of_interest", "plan": "plan"}


def apply_before_run(url_path: str | None = None) -> None:
    """app.py, before the sidebar: restore from the URL on a session's first run; then a reset of this page,
    settings loaded from a file for this page, and this page's stored settings whose widgets Streamlit forgot
    (the page was left, or a run stopped before drawing them)."""
    if url_path is not None:
        st.session_state[PAGE_KEY] = URL_PAGES.get(url_path, url_path)
    page = st.session_state.get(PAGE_KEY)
    if not st.session_state.get(_RESTORED):
        st.session_state[_RESTORED] = True
        values, messages = decode_query(st.query_params.to_dict(), schema(), ignore=("embed", "embed_options"))
        _note(messages + _apply(values))
    if st.session_state.get(_RESET) == page and page is not None:
        st.session_state.pop(_RESET)
        # Explicit values, not forgotten keys: a widget whose key is merely dropped keeps showing its old value
        # in the browser (and sends it back on the next move) while the page computes with the default.
        _store()[page] = {}
        st.session_state.get(_PENDING, {}).pop(page, None)
        _apply_defaults(page)
    pending = st.session_state.get(_PENDING, {})
    for target in [p for p in pending if p == page or p is None]:
        _note(_apply(pending.pop(target)))
    last = st.session_state.get(_LAST_RUN)
    st.session_state[_LAST_RUN] = (page, False)
    # On entering a page, and after a run that stopped before its end (st.stop, e.g. an empty feature list),
    # every stored setting is set again: Streamlit may still hold a key whose widget was not drawn, and a
    # widget drawn again without a value set by the script shows its declared default in the browser.
    _restore(page, everything=last is None or last[0] != page or not last[1])


def _restore(page: str | None, everything: bool = False) -> None:
    """Set the page's stored settings whose keys are missing (all of them with `everything`, each at its
    current value if the session has one), so every control is drawn with the value the page computes with."""
    stored = _store().get(page, {}) if page else {}
    same = _same_data(stored)
    for key, value in stored.items():
        if key.startswith(SOURCE_PREFIX) or (key in DATA_BOUND and not same):
            continue
        if key not in st.session_state:
            _set(key, value, [])
        elif everything:
            _set(key, st.session_state[key], [])


@before_rerun
def restore_missing() -> None:
    """Before a fragment body: the page's stored settings whose widgets an earlier re-run did not draw."""
    _restore(st.session_state.get(PAGE_KEY))


def _apply_defaults(page: str) -> None:
    """The page's schema defaults into session state and its store (no preset is cleared: these are the
    defaults the page starts with)."""
    samples = all(_source(k, st.session_state) == schema()[k].default for k in schema().with_prefix(SOURCE_PREFIX))
    for key, value in defaults(page).items():
        if key in DATA_BOUND and not samples:
            forget(key)  # the schema's default is the sample's: on other data the page picks its own
            continue
        _set(key, value, [])
        if key in st.session_state:
            _store().setdefault(page, {})[key] = st.session_state[key]


def request_reset(page: str) -> None:
    """Set the page's settings to their defaults at the start of the next run (call, then st.rerun())."""
    st.session_state[_RESET] = page


def load_json(text: str | bytes) -> tuple[str | None, list[str]]:
    """A JSON configuration in, (its page, messages) out. Each valid setting waits for its own page: applied at
    the start of the next run of that page (data sources at once)."""
    values, page, messages = decode_json(text, schema())
    pending = st.session_state.setdefault(_PENDING, {})
    for target, part in by_page(values).items():
        pending.setdefault(target, {}).update(part)
    _note(messages)
    return page, messages


def by_page(values: dict[str, Any]) -> dict[str | None, dict[str, Any]]:
    """Settings -> the same settings grouped by the page they belong to (None: data sources)."""
    out: dict[str | None, dict[str, Any]] = {}
    for key, value in values.items():
        out.setdefault(page_of(key), {})[key] = value
    return out


def config_json(page: str, extra: dict[str, Any] | None = None, state: Any = None) -> str:
    """The page's settings (defaults filled in for keys not yet drawn) as a JSON configuration."""
    values = {**schema().defaults(page_keys(page)), **current_values(page, state)}
    return encode_json(values, schema(), page=page, extra=extra)


@after_rerun
def sync_url() -> None:
    """After every full or fragment run: the page's settings into the session's store (restored when the page
    is drawn again; read by the report and the release records) and its non-default ones into the URL."""
    page = st.session_state.get(PAGE_KEY)
    values = current_values(page)  # once: it runs after every slider move
    if page:
        _store().setdefault(page, {}).update(values)
        st.session_state[_LAST_RUN] = (page, True)
    wanted = encode_query(values, schema())
    if st.query_params.to_dict() != wanted:
        st.query_params.from_dict(wanted)


def sidebar_tools() -> None:
    """Sidebar: a refused release's reason, and "Reset this page" (drawn before the page, so it works even if
    the page stops on bad settings)."""
    refused = st.session_state.pop("eyedp_refused", None)
    page = st.session_state.get(PAGE_KEY)
    notes = st.session_state.pop(MESSAGES, None)
    if notes:  # above the page, so a page that stops early still says what was dropped; shown once
        st.warning("Some settings could not be restored and were left as they were:\n\n"
                   + "\n".join(f"- {md_text(n)}" for n in dict.fromkeys(notes)), icon=":material/link_off:")
    with st.sidebar:
        if refused:
            st.error(refused, icon=":material/block:")
        if page not in PAGE_PREFIXES:
            return
        if st.button("Reset this page to defaults", key="share_reset", icon=":material/restart_alt:",
                     help="Every setting of this page goes back to its default; data selection and the ledger stay."):
            request_reset(page)
            st.rerun()
