"""Attack results kept on disk across sessions, keyed on the data, the settings and the code that computed them.

A result (one grid point × task × classifiers) depends only on the feature table, the protocol settings, the seed
and the code of the attack engine and the mechanisms; its key is the SHA-256 of all of them, so a changed table,
setting or engine never reads an old result. Two places are looked in: a directory of JSON files that the app
writes (EYEDP_ATTACK_CACHE, else ~/.cache/eyedp/attacks), and a file shipped with the package holding the
bundled sample's default run (`SHIPPED`, made by bench/attacks_precompute.py with this same code).
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from eyedp_core.attacks.tables import AttackTable

__all__ = ["CODE_FILES", "SHIPPED", "ResultStore", "code_fingerprint", "pack", "result_key", "table_fingerprint"]

_HERE = Path(__file__).resolve().parent
_CORE = _HERE.parent
# The code a result depends on: the engine, splits, releases, classifiers, table preparation, the row layout,
# the mechanisms, the k rule and the public feature bounds.
CODE_FILES: tuple[Path, ...] = (
    _HERE / "engine.py", _HERE / "splits.py", _HERE / "privatize.py", _HERE / "classifiers.py",
    _HERE / "tables.py", _HERE / "grid.py", _HERE / "ceiling.py",
    _CORE / "timeseries" / "mechanisms.py", _CORE / "timeseries" / "k.py", _CORE / "gaze" / "feature_specs.py",
)
SHIPPED = _HERE / "precomputed" / "sample_default.json.gz"


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 over the source of every file a result depends on (any edit makes old results unreachable)."""
    h = hashlib.sha256()
    for path in CODE_FILES:
        h.update(path.name.encode())
        h.update(path.read_bytes() if path.exists() else b"missing")
    return h.hexdigest()


def table_fingerprint(at: AttackTable) -> str:
    """SHA-256 of what the attacks read: feature values, names, labels, participants and recordings."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(at.x, dtype=float).tobytes())
    h.update(json.dumps([list(at.features), list(at.labels), float(at.window_s), at.step_s, int(at.gap_windows),
                         list(at.rec_keys)]).encode())
    for col in ("participant", *at.labels):
        if col in at.frame.columns:
            h.update(at.frame[col].astype(str).str.cat(sep="\x1f").encode())
    h.update(np.ascontiguousarray(at.rec).tobytes())
    h.update(np.ascontiguousarray(at.pos).tobytes())
    return h.hexdigest()


def result_key(table: str, protocol: Mapping[str, Any], point: Sequence[Any], task: str,
               classifiers: Sequence[str], majority_vote: bool) -> str:
    """Table fingerprint, protocol settings, grid point (its fields), task, classifiers, vote in, the key out."""
    text = json.dumps({"table": table, "code": code_fingerprint(), "protocol": dict(protocol),
                       "point": [str(v) for v in point], "task": task, "classifiers": [str(c) for c in classifiers],
                       "vote": bool(majority_vote)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _default_directory() -> Path:
    env = os.environ.get("EYEDP_ATTACK_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "eyedp" / "attacks"


@functools.lru_cache(maxsize=2)
def _shipped(path: Path) -> dict[str, list[dict]]:
    """The shipped results (empty when the file is missing or unreadable)."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


class ResultStore:
    """Results on disk: `get` looks in the directory, then the shipped file; `put` writes the directory."""

    def __init__(self, directory: Path | None = None, shipped: Path | None = SHIPPED) -> None:
        self.directory = directory or _default_directory()
        self.shipped = shipped

    def get(self, key: str) -> tuple[list[dict], bool] | None:
        """Key in, (rows, True when they came from the shipped file) out, or None when nothing is kept."""
        path = self.directory / f"{key}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8")), False
        except (OSError, ValueError):
            pass
        if self.shipped is not None and key in _shipped(self.shipped):
            return _shipped(self.shipped)[key], True
        return None

    def put(self, key: str, rows: list[dict]) -> None:
        """Keep rows under key (a failed write only costs a recomputation next time)."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            tmp = self.directory / f"{key}.json.tmp{os.getpid()}"
            tmp.write_text(json.dumps(rows, default=_plain), encoding="utf-8")
            tmp.replace(self.directory / f"{key}.json")
        except OSError:
            return


def _plain(v: Any) -> Any:
    """numpy scalars and arrays as plain JSON values."""
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    raise TypeError(f"cannot store {type(v).__name__}")


def pack(directory: Path, keys: Sequence[str], target: Path = SHIPPED) -> int:
    """The results of `keys` in a store directory in, one gzipped JSON file of them (the shipped file) out."""
    data = {k: json.loads((directory / f"{k}.json").read_text(encoding="utf-8")) for k in keys}
    target.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(target, "wt", encoding="utf-8") as f:
        json.dump(data, f, sort_keys=True)
    _shipped.cache_clear()
    return len(data)
