"""The stored ledger's canonical forms: one JSON text per value, the entry hash, releases to JSON and back.

Kept apart from the file handling (eyedp_core.dp.store) so anyone can re-check a chain from these rules alone:
an entry's hash is SHA-256 of the UTF-8 compact JSON array [prev_hash, study, seq, kind, time, payload], where
payload is the entry's canonical JSON text (docs/PRIVACY_MODEL.md §0.6)."""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from eyedp_core.dp.accounting import Release

__all__ = ["canonical_json", "entry_hash", "float_text", "plain_json", "release_from_json", "release_to_json"]

# Release fields that entries stored before them do not hold: written only when set.
_LATER_FIELDS = ("rho",)


def canonical_json(value: Any) -> str:
    """A JSON-able value -> its one canonical text (sorted keys, no spaces, UTF-8, no NaN/∞ literals)."""
    return json.dumps(plain_json(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def plain_json(value: Any) -> Any:
    """Context values -> plain JSON values: enums by value, tuples as lists, non-finite floats as text."""
    if isinstance(value, enum.Enum):
        return plain_json(value.value)
    if isinstance(value, bool) or value is None or isinstance(value, (str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(k): plain_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [plain_json(v) for v in items]
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return plain_json(item())
    return str(value)


def entry_hash(prev_hash: str, study: str, seq: int, kind: str, time: str, payload: str) -> str:
    """An entry's fields -> hex SHA-256 of the canonical JSON array [prev_hash, study, seq, kind, time, payload]."""
    text = json.dumps([prev_hash, study, int(seq), kind, time, payload], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def float_text(x: float | None) -> str | None:
    # repr round-trips every float exactly (shortest repr), and writes inf as 'inf', which strict JSON cannot hold
    return None if x is None else repr(float(x))


def release_to_json(release: Release) -> dict[str, Any]:
    """Release -> a JSON dict of every field (floats as their exact repr text, tuples as lists).

    A field added after entries were first stored is written only when it is not its default, so an entry that
    does not use it encodes (and hashes) exactly as before it existed."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(Release):
        v = getattr(release, f.name)
        if f.name in _LATER_FIELDS and v == f.default:
            continue
        if isinstance(v, float):
            out[f.name] = float_text(v)
        elif isinstance(v, tuple):
            out[f.name] = list(v)
        else:
            out[f.name] = v
    return out


def release_from_json(data: Mapping[str, Any]) -> Release:
    """The dict `release_to_json` made -> the identical Release."""
    kw: dict[str, Any] = {}
    for f in dataclasses.fields(Release):
        if f.name not in data:
            continue
        v = data[f.name]
        if f.name in ("epsilon", "delta") or (f.name == "rho" and v is not None):
            v = float(v)
        elif isinstance(v, list):
            v = tuple(v)
        kw[f.name] = v
    return Release(**kw)
