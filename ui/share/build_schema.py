"""Build ui/share/schema.json (every setting's type, default, bounds, choices) by running each page in AppTest.

Run `python -m ui.share.build_schema` after adding or changing a widget; tests/test_settings_schema.py fails
while a page has a prefixed widget the schema does not know.
"""
from __future__ import annotations

import dataclasses
import json
from enum import Enum
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from eyedp_core.settings import Schema, Setting

DATA_SOURCE_KEYS = ("sel_",)
ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = Path(__file__).with_name("schema.json")
PAGES = ("pages/home.py", "pages/heatmaps.py", "pages/time_series.py", "pages/attacks.py",
         "pages/gaze_samples.py", "pages/report.py", "pages/your_data.py", "pages/areas_of_interest.py")
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


def setting_of(widget: Any, value: Any) -> Setting | None:
    """An AppTest widget and its raw value in, its Setting out (None for values that are not plain data)."""
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
    if options and wtype == "select_slider" and kind in ("int", "float"):
        nums = [_number(o) for o in options]
        if all(n is not None for n in nums):
            lo, hi = min(nums), max(nums)  # type: ignore[type-var]
    elif options and kind == "str" and value in options:
        choices = tuple(options)  # options shown as they are: the raw values
    elif options and kind == "list" and item == "str" and all(v in options for v in value):
        choices = tuple(options)
    length = len(value) if (kind == "list" and (wtype == "slider" or isinstance(value, tuple))) else None
    if kind == "list" and item == "bool":
        return None
    # A single-choice segmented control can be cleared (value None), e.g. a preset that no longer applies.
    nullable = wtype == "button_group" and kind != "list"
    return Setting(key=widget.key, kind=kind, default=value, lo=lo, hi=hi, choices=choices, item=item,
                   length=length, nullable=nullable)


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
        s = setting_of(w, value)
        if s is not None:
            if key.startswith(DATA_SOURCE_KEYS):
                s = dataclasses.replace(s, choices=None)  # uploads add names; the UI checks they exist
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
    for key in unset & found.keys():
        found[key] = dataclasses.replace(found[key], default=None, nullable=True)
    return Schema(found.values()), enums


def main() -> None:
    """Write the schema file."""
    schema, enums = build()
    doc = schema.to_dict()
    for key, path in enums.items():
        doc[key]["enum"] = path
    SCHEMA_PATH.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(schema)} settings -> {SCHEMA_PATH}")


if __name__ == "__main__":
    main()
