"""Settings to and from URL query strings and a JSON configuration, validated against a Schema.

Decoding never raises on bad input: each unknown key or invalid value is dropped with one message saying
which and why, so a hand-edited URL or an old configuration file still restores everything else. The work is
bounded before any parsing: the text's size, the JSON nesting depth (a value of thousands of `[` would exhaust
Python's recursion) and the length of every number (a 5,000-digit number is refused, never converted).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from eyedp_core.settings.schema import Schema, Setting, _short

__all__ = ["CONFIG_FORMAT", "MAX_DEPTH", "MAX_JSON_CHARS", "MAX_NUMBER_CHARS", "MAX_PARAMS", "MAX_VALUE_CHARS",
           "decode_json", "decode_query", "encode_json", "encode_query"]

CONFIG_FORMAT = "eyedp-settings/1"
_TRUE, _FALSE = "true", "false"
NONE_TEXT = "~"  # a cleared (None) value in a URL; JSON uses null

# Bounds checked before anything is parsed. A configuration of every setting of the app is about 6 kB.
MAX_JSON_CHARS = 200_000  # a settings file
MAX_VALUE_CHARS = 20_000  # one value in a URL (the longest list, every feature's name, is under 1 kB)
MAX_PARAMS = 300  # parameters read from one URL (the app has about 120 settings)
MAX_DEPTH = 20  # nesting of arrays and objects: a file needs 3 ({"settings": {key: [values]}}); deeper values are
# refused per setting, and only text nested beyond this is refused before parsing
MAX_NUMBER_CHARS = 40  # digits, sign, point and exponent of one number (a float's repr needs at most 24)
_TOKEN = re.compile(r'\\.|["\[\]{}]')  # an escape, a quote or a bracket: one linear pass finds the depth


class _Refused(ValueError):
    """A text refused by a bound before it was parsed (the message says which bound)."""


def _check_depth(text: str, limit: int) -> None:
    """Refuse JSON text that nests arrays or objects deeper than `limit` (strings are skipped)."""
    depth, in_string = 0, False
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok == '"':
            in_string = not in_string
        elif in_string or len(tok) == 2:
            continue
        else:
            depth += 1 if tok in "[{" else -1
        if depth > limit:
            raise _Refused(f"nested more than {limit} level{'s' if limit != 1 else ''} deep")


class _Unreadable:
    """Stands in for a number that was not converted (too long, or NaN/Infinity): the setting holding it is
    dropped with the reason, the rest of the file still restores."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _number(text: str, convert: type) -> Any:
    if len(text) > MAX_NUMBER_CHARS:
        return _Unreadable(f"a number of {len(text):,} characters (at most {MAX_NUMBER_CHARS})")
    return convert(text)


def _no_constant(text: str) -> Any:
    return _Unreadable(f"{text} is not a finite number")


def _unreadable(value: Any) -> str | None:
    """The reason a parsed value holds a number that was not converted, else None (depth is bounded)."""
    if isinstance(value, _Unreadable):
        return value.reason
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            if (why := _unreadable(v)) is not None:
                return why
    return None


def _load(text: str, depth: int) -> Any:
    """JSON text in, its value out, within the bounds on depth and number length; ValueError saying why not."""
    _check_depth(text, depth)
    try:
        return json.loads(text, parse_int=lambda t: _number(t, int), parse_float=lambda t: _number(t, float),
                          parse_constant=_no_constant)
    except _Refused:
        raise
    except (ValueError, RecursionError) as err:  # JSONDecodeError is a ValueError
        raise ValueError(f"not valid JSON ({_short(str(err), 80)})") from err


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
            val = _load(text, MAX_DEPTH)
        except _Refused:
            raise
        except ValueError as err:
            raise ValueError(f"expected a JSON list, got {_short(text)}") from err
        if (why := _unreadable(val)) is not None:
            raise ValueError(why)
        return val
    if s.kind == "bool":
        if text.lower() not in (_TRUE, _FALSE):
            raise ValueError(f"expected true or false, got {text!r}")
        return text.lower() == _TRUE
    if s.kind in ("int", "float"):
        if len(text.strip()) > MAX_NUMBER_CHARS:
            raise ValueError(f"a number of {len(text.strip()):,} characters (at most {MAX_NUMBER_CHARS})")
    if s.kind == "int":
        try:
            return int(text)
        except ValueError as err:
            raise ValueError(f"expected a whole number, got {_short(text)}") from err
    if s.kind == "float":
        try:
            out = float(text)
        except ValueError as err:
            raise ValueError(f"expected a number, got {_short(text)}") from err
        if not math.isfinite(out):
            raise ValueError(f"expected a finite number, got {_short(text)}")
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
    try:
        items = list(params.items())
    except Exception:  # noqa: BLE001 - a mapping that cannot be read restores nothing, with a message
        return {}, ["The URL's settings could not be read; none were restored."]
    if len(items) > MAX_PARAMS:
        messages.append(f"The URL holds {len(items):,} settings (at most {MAX_PARAMS}); only the first "
                        f"{MAX_PARAMS} were read.")
        items = items[:MAX_PARAMS]
    for key, text in items:
        if key in ignore:
            continue
        name = _short(str(key))
        if key not in schema:
            messages.append(f"URL setting {name} is not a setting of this app; ignored.")
            continue
        try:
            text = str(text)
            if len(text) > MAX_VALUE_CHARS:
                raise ValueError(f"a value of {len(text):,} characters (at most {MAX_VALUE_CHARS:,})")
            values[key] = schema[key].check(_parse_text(schema[key], text))
        except ValueError as err:
            messages.append(f"URL setting {name} = {_short(text)} ignored: {err}.")
        except Exception:  # noqa: BLE001 - the promise: decoding never raises, whatever the text
            messages.append(f"URL setting {name} ignored: its value could not be read.")
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
        return _decode_json(text, schema)
    except Exception:  # noqa: BLE001 - the promise: decoding never raises, whatever the file holds
        return {}, None, ["The configuration could not be read; no setting was restored."]


def _decode_json(text: str | bytes, schema: Schema) -> tuple[dict[str, Any], str | None, list[str]]:
    if len(text) > MAX_JSON_CHARS:
        return {}, None, [f"The configuration is {len(text):,} characters long (at most {MAX_JSON_CHARS:,}); "
                          "not read."]
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8-sig")
        doc = _load(text, MAX_DEPTH)
    except _Refused as err:
        return {}, None, [f"The configuration is not read: {err}."]
    except (ValueError, UnicodeDecodeError) as err:
        return {}, None, [f"The configuration is not valid JSON ({_short(str(err), 80)})."]
    if (not isinstance(doc, dict) or not isinstance(doc.get("format"), str) or doc.get("format") != CONFIG_FORMAT
            or not isinstance(doc.get("settings"), dict)):
        return {}, None, [f"Not an EyeDP configuration: expected an object with \"format\": \"{CONFIG_FORMAT}\" "
                          "and a \"settings\" object."]
    values: dict[str, Any] = {}
    messages: list[str] = []
    for key, v in doc["settings"].items():
        name = _short(key)
        if key not in schema:
            messages.append(f"Setting {name} is not a setting of this app; ignored.")
            continue
        if (why := _unreadable(v)) is not None:
            messages.append(f"Setting {name} ignored: {why}.")
            continue
        try:
            values[key] = schema[key].check(v)
        except ValueError as err:
            messages.append(f"Setting {name} = {_short(v)} ignored: {err}.")
    page = doc.get("page") if isinstance(doc.get("page"), str) else None
    return values, page, messages
