"""Build ui/share/schema.json (every setting's type, default, bounds, choices) by running each page in AppTest.

Run `python -m ui.share.build_schema` after adding or changing a widget; tests/app/test_settings_schema.py fails
while a page has a prefixed widget the schema does not know.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from eyedp_core.settings.schema import Schema, Setting

DATA_SOURCE_KEYS = ("sel_",)
ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = Path(__file__).with_name("schema.json")
PAGES = ("pages/home.py", "pages/heatmaps.py", "pages/time_series.py", "pages/attacks.py",
         "pages/gaze_samples.py", "pages/report.py", "pages/your_data.py", "pages/areas_of_interest.py",
         "pages/plan.py")
# Widget kinds that hold a setting (buttons, uploads and charts do not).
SETTABLE = ("slider", "select_slider", "selectbox", "radio", "checkbox", "toggle", "number_input", "text_input",
            "multiselect", "button_group", "text_area")
# Selectors whose options show other widgets: each raw option is visited so those widgets are found too.
PANEL_OPTIONS: dict[str, tuple[str, ...]] = {
    "hm_panel": ("curves", "cap", "calculator", "attack", "planning", "target", "compare"),
    "ts_panel": ("utility", "k", "corr", "acct", "steil", "table", "forms", "ab"),
    "gs_view": ("raw", "protect", "demographics"),
    "ts_mode": ("paper", "participant"),
    "hm_weight": ("count", "duration"),
    "ts_sens": ("public", "data"),
    "aoi_source": ("bundled", "grid", "upload", "table"),
}
# Controls drawn only in a state no panel option reaches: each sequence of (key, value) moves is made on a fresh
# session of the page, collecting after each move. (The Attacks result views, drawn after a run, and the Your-data
# upload forms are not reached: they are not part of a shared view.)
STATES: dict[str, tuple[tuple[tuple[str, Any], ...], ...]] = {
    "pages/gaze_samples.py": ((("gs_method", "idt"),),
                              # the Protect view draws only the shown method's controls (Kaleido's finer
                              # four on request)
                              (("gs_view", "protect"), ("gs_kal_all", True)),
                              (("gs_view", "protect"), ("gs_show", "k-same-synth")),
                              (("gs_view", "protect"), ("gs_show", "PD (as published)"))),
    "pages/time_series.py": ((("ts_chunk", "free"),), (("ts_panel", "acct"), ("ts_markov_src", "sticky")),
                             # the risk target's controls, each risk's ceiling slider
                             (("ts_risk_on", True),),
                             (("ts_risk_on", True), ("ts_risk_kind", "singling one person out"))),
    "pages/heatmaps.py": ((("hm_risk_on", True),),
                          (("hm_risk_on", True), ("hm_risk_kind", "singling one person out"))),
}


def _kind(v: Any) -> tuple[str, str | None]:
    if isinstance(v, bool):
        return "bool", None
    if isinstance(v, int):
        return "int", None
    if isinstance(v, float):
        return "float", None
    if isinstance(v, str):
        return "str", None
    if isinstance(v, (list, tuple)):
        items = {_kind(x)[0] for x in v}
        item = "float" if items == {"int", "float"} else (items.pop() if len(items) == 1 else "str")
        return "list", item
    raise TypeError(type(v).__name__)


def _number(text: str) -> float | None:
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def _raw(option: Any) -> Any:
    """An option as it travels: a str-Enum member as its value."""
    return option.value if isinstance(option, Enum) else option


def raw_options(at: AppTest, widget: Any) -> list[Any] | None:
    """The options a selectbox, radio, multiselect or segmented control was given (not their shown labels):
    read from the widget's deserializer, which holds them (None where the widget has no options)."""
    try:
        meta = at.session_state._state._state._new_widget_state.widget_metadata[widget.id]
        options = meta.deserializer.__self__.options
    except (AttributeError, KeyError, TypeError):
        return None
    return [_raw(o) for o in options]


def setting_of(widget: Any, value: Any, raw: list[Any] | None = None) -> Setting | None:
    """An AppTest widget, its raw value and its raw options in, its Setting out (None for values that are not
    plain data). A text setting takes its choices from the options; without options it is free text."""
    try:
        kind, item = _kind(value)
    except TypeError:
        return None
    lo = hi = None
    choices = None
    wtype = widget.type
    proto = widget.proto
    if wtype in ("slider", "number_input") and kind in ("int", "float", "list"):
        if getattr(proto, "has_min", True) and hasattr(proto, "min"):
            lo = float(proto.min)
        if getattr(proto, "has_max", True) and hasattr(proto, "max"):
            hi = float(proto.max)
    options = [str(o) for o in getattr(widget, "options", [])]
    value = _raw(value) if not isinstance(value, (list, tuple)) else type(value)(_raw(v) for v in value)
    texts = [o for o in raw] if raw is not None and all(isinstance(o, str) for o in raw) else None
    if options and wtype == "select_slider" and kind in ("int", "float"):
        nums = [_number(o) for o in options]
        if all(n is not None for n in nums):
            lo, hi = min(nums), max(nums)  # type: ignore[type-var]
    elif texts and kind == "str" and value in texts:
        choices = tuple(texts)
    elif texts and kind == "list" and item == "str" and all(v in texts for v in value):
        choices = tuple(texts)
    elif options and kind == "str" and value in options:
        choices = tuple(options)  # options shown as they are: the raw values
    elif options and kind == "list" and item == "str" and all(v in options for v in value):
        choices = tuple(options)
    length = len(value) if (kind == "list" and (wtype == "slider" or isinstance(value, tuple))) else None
    if kind == "list" and item == "bool":
        return None
    # A single-choice segmented control can be cleared (value None), e.g. a preset that no longer applies.
    nullable = wtype == "button_group" and kind != "list" and not getattr(proto, "required", False)
    free_text = (kind == "str" or (kind == "list" and item == "str")) and choices is None
    return Setting(key=widget.key, kind=kind, default=value, lo=lo, hi=hi, choices=choices, item=item,
                   length=length, nullable=nullable, free_text=free_text)


def _widgets(at: AppTest) -> Iterator[Any]:
    for wtype in SETTABLE:
        try:
            yield from at.get(wtype)
        except Exception:  # noqa: BLE001 - an element kind this Streamlit does not know
            continue


def _collect(at: AppTest, found: dict[str, Setting], enums: dict[str, str], unset: set[str]) -> None:
    for w in _widgets(at):
        key = getattr(w, "key", None)
        if not key or key in found:
            continue
        try:
            value = at.session_state[key]
        except KeyError:
            continue
        if value is None:  # e.g. a panel switcher that opens nothing by default: its type comes from a later visit
            unset.add(key)
            continue
        s = setting_of(w, value, raw_options(at, w))
        if s is not None:
            if key.startswith(DATA_SOURCE_KEYS):
                # Uploads add names: any name up to the free-text cap; the sidebar falls back to the sample.
                s = dataclasses.replace(s, choices=None, free_text=True)
            found[key] = s
            if isinstance(value, Enum):  # restored as the page's own enum member (ui/settings.py)
                enums[key] = f"{type(value).__module__}:{type(value).__qualname__}"


def build(timeout: float = 240) -> tuple[Schema, dict[str, str]]:
    """Run every page (and every panel option) in AppTest: the schema of their widgets and their enum types."""
    found: dict[str, Setting] = {}
    enums: dict[str, str] = {}
    unset: set[str] = set()  # keys first seen empty: their default is None
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    _collect(at, found, enums, unset)
    for page in PAGES:
        at.switch_page(page).run()
        _collect(at, found, enums, unset)
        for pk, options in PANEL_OPTIONS.items():
            widgets = [w for w in _widgets(at) if getattr(w, "key", None) == pk]
            if not widgets:
                continue
            for option in options:
                try:
                    widgets = [w for w in _widgets(at) if getattr(w, "key", None) == pk]
                    if not widgets:
                        break
                    widgets[0].set_value(option).run()
                    _collect(at, found, enums, unset)
                except Exception:  # noqa: BLE001 - a panel that fails in AppTest is skipped, not fatal
                    continue
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
            at.run()
            at.switch_page(page).run()
    for page, sequences in STATES.items():
        for moves in sequences:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
            at.run()
            at.switch_page(page).run()
            for key, value in moves:
                widgets = [w for w in _widgets(at) if getattr(w, "key", None) == key]
                if not widgets:
                    break
                widgets[0].set_value(value).run()
                _collect(at, found, enums, unset)
    for key in unset & found.keys():
        found[key] = dataclasses.replace(found[key], default=None, nullable=True)
    return Schema(found.values()), enums


def main() -> None:
    """Write the schema file: the settings that travel (a page's or a data source's prefix), none of the app's
    own controls (the study picker, the ledger's reasons and confirmations), which never travel in a link."""
    from ui.settings import ALL_PREFIXES

    built, enums = build()
    schema = Schema(s for s in built if s.key.startswith(ALL_PREFIXES))
    enums = {k: v for k, v in enums.items() if k.startswith(ALL_PREFIXES)}
    doc = schema.to_dict()
    for key, path in enums.items():
        doc[key]["enum"] = path
    SCHEMA_PATH.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(schema)} settings -> {SCHEMA_PATH}")


if __name__ == "__main__":
    main()
