"""Settings to and from URL query strings and a JSON configuration, validated against a Schema.

Decoding never raises on bad input: each unknown key or invalid value is dropped with a message saying
which and why, so a hand-edited URL or an old configuration file still restores everything else.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from eyedp_core.settings.schema import Schema, Setting

__all__ = ["CONFIG_FORMAT", "decode_json", "decode_query", "encode_json", "encode_query"]

CONFIG_FORMAT = "eyedp-settings/1"
_TRUE, _FALSE = "true", "false"
NONE_TEXT = "~"  # a cleared (None) value in a URL; JSON uses null


def _scalar_text(kind: str, v: Any) -> str:
    if kind == "bool":
        return _TRUE if v else _FALSE
    if kind == "float":
        return repr(float(v))  # shortest text that reads back to the same float
    return str(v)


def _encode_one(s: Setting, v: Any) -> str:
    if v is None:
        return NONE_TEXT
    if s.kind == "list":
        return json.dumps(list(v), separators=(",", ":"), ensure_ascii=False)
    return _scalar_text(s.kind, v)


def _parse_text(s: Setting, text: str) -> Any:
    if s.nullable and text == NONE_TEXT:
        return None
    if s.kind == "list":
        try:
            val = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"expected a JSON list, got {text!r}") from err
        if s.item == "float" and isinstance(val, list):
            val = [float(x) if isinstance(x, int) and not isinstance(x, bool) else x for x in val]
        return val
    if s.kind == "bool":
        if text.lower() not in (_TRUE, _FALSE):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == _TRUE
    if s.kind == "int":
        try:
            return int(text)
        except ValueError as err:
            raise ValueError(f"expected a whole number, got {text!r}") from err
    if s.kind == "float":
        try:
            out = float(text)
        except ValueError as err:
            raise ValueError(f"expected a number, got {text!r}") from err
        if not math.isfinite(out):
            raise ValueError(f"expected a finite number, got {text!r}")
        return out
    return text


def encode_query(values: Mapping[str, Any], schema: Schema, *, only_changed: bool = True) -> dict[str, str]:
    """Settings in, query parameters (key -> text) out; defaults left out unless only_changed=False."""
    out: dict[str, str] = {}
    for key, v in values.items():
        if key not in schema:
            continue
        s = schema[key]
        try:
            v = s.check(v)
        except ValueError:
            continue  # a value the schema would refuse on the way back is not written either
        if only_changed and _same(v, s.default):
            continue
        out[key] = _encode_one(s, v)
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return list(a) == list(b)
    return bool(a == b)


def decode_query(params: Mapping[str, str], schema: Schema, *,
                 ignore: tuple[str, ...] = ()) -> tuple[dict[str, Any], list[str]]:
    """Query parameters in, (valid settings, one message per dropped parameter) out."""
    values: dict[str, Any] = {}
    messages: list[str] = []
    for key, text in params.items():
        if key in ignore:
            continue
        if key not in schema:
            messages.append(f"URL setting '{key}' is not a setting of this app; ignored.")
            continue
        try:
            values[key] = schema[key].check(_parse_text(schema[key], str(text)))
        except ValueError as err:
            messages.append(f"URL setting '{key}' = {text!r} ignored: {err}.")
    return values, messages


def encode_json(values: Mapping[str, Any], schema: Schema, *, page: str | None = None,
                extra: Mapping[str, Any] | None = None) -> str:
    """Settings in, a JSON configuration (every known setting with its value, defaults included) out."""
    settings: dict[str, Any] = {}
    for key, v in values.items():
        if key in schema:
            try:
                v = schema[key].check(v)
            except ValueError:
                continue
            settings[key] = list(v) if isinstance(v, tuple) else v
    doc: dict[str, Any] = {"format": CONFIG_FORMAT, "page": page, "settings": dict(sorted(settings.items()))}
    if extra:
        doc.update(extra)
    return json.dumps(doc, indent=2, ensure_ascii=False)


def decode_json(text: str | bytes, schema: Schema) -> tuple[dict[str, Any], str | None, list[str]]:
    """JSON configuration in, (valid settings, page or None, messages about what was dropped) out."""
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        return {}, None, [f"The configuration is not valid JSON ({err})."]
    if not isinstance(doc, dict) or doc.get("format") != CONFIG_FORMAT or not isinstance(doc.get("settings"), dict):
        return {}, None, [f"Not an EyeDP configuration: expected an object with \"format\": \"{CONFIG_FORMAT}\" "
                          "and a \"settings\" object."]
    values: dict[str, Any] = {}
    messages: list[str] = []
    for key, v in doc["settings"].items():
        if key not in schema:
            messages.append(f"Setting '{key}' is not a setting of this app; ignored.")
            continue
        try:
            values[key] = schema[key].check(v)
        except ValueError as err:
            messages.append(f"Setting '{key}' = {v!r} ignored: {err}.")
    page = doc.get("page") if isinstance(doc.get("page"), str) else None
    return values, page, messages
