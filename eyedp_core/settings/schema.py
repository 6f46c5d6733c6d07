"""Settings schema: each setting's key, type, default and bounds or choices, and the validation of a value.

Pure Python (no Streamlit). The app's schema is data (ui/share/schema.json, built from the pages' widgets);
this module only knows how to check a value against one entry.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = ["KINDS", "ITEM_KINDS", "MAX_INT", "MAX_LIST_ITEMS", "MAX_TEXT_CHARS", "Schema", "Setting"]

# Bounds on what one value may hold, so that no value from a URL or a file makes a page do unbounded work.
MAX_TEXT_CHARS = 4_000  # a free-text setting (no list of choices: a data source's name, declared bounds as text)
MAX_LIST_ITEMS = 500  # a list setting (the longest, the released features, holds a few dozen)
MAX_INT = 10**15  # whole numbers beyond this are refused even without bounds (no widget goes near it)
ITEM_KINDS = ("bool", "int", "float", "str")
KINDS = (*ITEM_KINDS, "list")
Value = bool | int | float | str | list[Any] | tuple[Any, ...] | None


def _short(value: Any, limit: int = 40) -> str:
    """A value for a message: its repr, cut to `limit` characters (a hostile value can be megabytes)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        return f"a number of about {_digits(value)} digits"
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__}"
    if not isinstance(value, (str, int, float, bool, type(None))):
        return "a value that is not plain data"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _digits(n: int) -> int:
    """Decimal digits of a whole number, without str() (which refuses beyond 4,300 digits)."""
    return int(abs(n).bit_length() * 0.30103) + 1


@dataclass(frozen=True)
class Setting:
    """One setting: key, kind (bool|int|float|str|list), default, optional bounds, choices, list item kind."""

    key: str
    kind: str
    default: Any
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] | None = None
    item: str | None = None  # kind of a list's items
    length: int | None = None  # fixed length of a list (a range slider's pair); restored as a tuple
    nullable: bool = False  # None is a valid value (a cleared single-choice control)
    free_text: bool = False  # a text setting without choices (any text up to MAX_TEXT_CHARS)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "list" and self.item not in ITEM_KINDS:
            raise ValueError(f"a list setting needs item in {ITEM_KINDS}, got {self.item!r}")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))

    def check(self, value: Any) -> Value:
        """Value in, the same value in this setting's type out; ValueError saying why it is not allowed."""
        if value is None and self.nullable:
            return None
        if self.kind == "list":
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"expected a list, got {type(value).__name__}")
            if len(value) > MAX_LIST_ITEMS:
                raise ValueError(f"a list of {len(value)} values (at most {MAX_LIST_ITEMS})")
            items = [self._scalar(self.item or "str", v) for v in value]
            if self.length is not None:
                if len(items) != self.length:
                    raise ValueError(f"expected {self.length} values, got {len(items)}")
                return tuple(items)
            return items
        return self._scalar(self.kind, value)

    def _scalar(self, kind: str, value: Any) -> Any:
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"expected true or false, got {_short(value)}")
            out: Any = value
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                if isinstance(value, float) and value.is_integer():
                    value = int(value)
                else:
                    raise ValueError(f"expected a whole number, got {_short(value)}")
            if abs(value) > MAX_INT:
                raise ValueError(f"a whole number of about {_digits(value)} digits is too large")
            out = int(value)
        elif kind == "float":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"expected a number, got {_short(value)}")
            if isinstance(value, int) and abs(value) > MAX_INT:
                raise ValueError(f"a whole number of about {_digits(value)} digits is too large")
            out = float(value)
            if not math.isfinite(out):
                raise ValueError(f"expected a finite number, got {value!r}")
        else:
            if not isinstance(value, str):
                raise ValueError(f"expected text, got {_short(value)}")
            out = value.value if isinstance(value, Enum) else str.__str__(value)  # a str-Enum travels as its value
            if self.choices is None and len(out) > MAX_TEXT_CHARS:
                raise ValueError(f"a text of {len(out)} characters (at most {MAX_TEXT_CHARS})")
        if kind in ("int", "float"):
            if self.lo is not None and out < self.lo:
                raise ValueError(f"{out!r} is below the minimum {self.lo:g}")
            if self.hi is not None and out > self.hi:
                raise ValueError(f"{out!r} is above the maximum {self.hi:g}")
        if self.choices is not None and out not in self.choices:
            shown = ", ".join(map(str, self.choices[:8])) + (" …" if len(self.choices) > 8 else "")
            raise ValueError(f"{_short(out)} is not one of the choices ({shown})")
        return out

    def to_dict(self) -> dict[str, Any]:
        """Setting -> JSON-ready dict (None fields left out)."""
        d = {"kind": self.kind, "default": list(self.default) if isinstance(self.default, tuple) else self.default,
             "lo": self.lo, "hi": self.hi, "choices": list(self.choices) if self.choices is not None else None,
             "item": self.item, "length": self.length, "nullable": self.nullable or None,
             "free_text": self.free_text or None}
        return {k: v for k, v in d.items() if v is not None or k == "default"}

    @classmethod
    def from_dict(cls, key: str, d: Mapping[str, Any]) -> Setting:
        """Key and a dict from `to_dict` in, Setting out."""
        default = d.get("default")
        if d.get("length") is not None and isinstance(default, list):
            default = tuple(default)
        return cls(key=key, kind=d["kind"], default=default, lo=d.get("lo"), hi=d.get("hi"),
                   choices=tuple(d["choices"]) if d.get("choices") is not None else None,
                   item=d.get("item"), length=d.get("length"), nullable=bool(d.get("nullable", False)),
                   free_text=bool(d.get("free_text", False)))


class Schema:
    """The settings an app knows, by key; unknown keys are never accepted."""

    def __init__(self, settings: Iterable[Setting] = ()) -> None:
        self._by_key: dict[str, Setting] = {}
        for s in settings:
            self._by_key[s.key] = s

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def __getitem__(self, key: str) -> Setting:
        return self._by_key[key]

    def __iter__(self):
        return iter(list(self._by_key.values()))

    def __len__(self) -> int:
        return len(self._by_key)

    def keys(self) -> list[str]:
        """All keys, in insertion order."""
        return list(self._by_key)

    def with_prefix(self, *prefixes: str) -> list[str]:
        """Keys that start with any of the prefixes."""
        return [k for k in self._by_key if k.startswith(prefixes)]

    def defaults(self, keys: Iterable[str] | None = None) -> dict[str, Any]:
        """Key -> default for the given keys (all by default)."""
        return {k: self._by_key[k].default for k in (keys if keys is not None else self._by_key)}

    def to_dict(self) -> dict[str, Any]:
        """Schema -> JSON-ready dict keyed by setting key."""
        return {k: s.to_dict() for k, s in sorted(self._by_key.items())}

    @classmethod
    def from_dict(cls, d: Mapping[str, Mapping[str, Any]]) -> Schema:
        """Dict from `to_dict` in, Schema out."""
        return cls(Setting.from_dict(k, v) for k, v in d.items())
