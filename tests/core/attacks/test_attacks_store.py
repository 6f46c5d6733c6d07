"""Attack results on disk: a key changes with the table, the settings and the code, a kept result reads back, and
the shipped file is consulted after the directory."""
from __future__ import annotations

import dataclasses
import gzip
import json

import numpy as np
import pandas as pd
import pytest

from eyedp_core import attacks
from eyedp_core.attacks import store
from eyedp_core.attacks.engine import Point
from tests.core.attacks.test_attacks_ceiling import gender_table

PROTOCOL = {"gap": "window", "subsample": None, "seed": 0, "bounds": "auto", "max_train": 1000}


def _key(at, point=Point(), task="gender", protocol=PROTOCOL) -> str:
    return store.result_key(store.table_fingerprint(at), protocol, dataclasses.astuple(point), task, ("svm",), True)


def test_keys_follow_table_settings_and_code(monkeypatch):
    at = attacks.prepare(gender_table())
    other = attacks.prepare(gender_table(seed=4))
    assert _key(at) == _key(attacks.prepare(gender_table()))
    assert _key(at) != _key(other)
    assert _key(at) != _key(at, protocol={**PROTOCOL, "seed": 1})
    assert _key(at) != _key(at, Point(mechanism="FPA", epsilon=1.0, train_on="private"))
    assert _key(at) != _key(at, task="identity")
    before = _key(at)
    monkeypatch.setattr(store, "code_fingerprint", lambda: "edited")
    assert _key(at) != before


def test_put_get_round_trip_and_shipped_file(tmp_path):
    at = attacks.prepare(gender_table())
    rows = [dataclasses.asdict(r) for r in attacks.sweep(at, tasks=["gender"], classifiers=["svm"],
                                                         mechanisms=["FPA"], epsilons=[1.0], train_on=["private"],
                                                         bounds={"f1": (0.0, 100.0)}, include_clean=False)]
    shipped = tmp_path / "shipped.json.gz"
    s = store.ResultStore(tmp_path / "dir", shipped=shipped)
    key = _key(at)
    assert s.get(key) is None
    s.put(key, rows)
    back, from_shipped = s.get(key)
    assert not from_shipped and back[0]["accuracy"] == rows[0]["accuracy"]
    assert [tuple(c) for c in back[0]["calls"]] == [tuple(c) for c in rows[0]["calls"]]
    # Summaries of read-back rows equal those of the computed ones (calls come back as lists).
    a, b = attacks.summarise(pd.DataFrame(rows)), attacks.summarise(pd.DataFrame(back))
    assert a["calls"].tolist() == b["calls"].tolist() and np.allclose(a["accuracy"], b["accuracy"])
    assert store.pack(tmp_path / "dir", [key], target=shipped) == 1
    only_shipped = store.ResultStore(tmp_path / "empty", shipped=shipped)
    got, from_shipped = only_shipped.get(key)
    assert from_shipped and got == json.loads(json.dumps(rows))
    (tmp_path / "dir" / f"{key}.json").write_text("{broken")
    assert s.get(key)[1] is True  # a damaged file is skipped, the shipped copy answers


def test_shipped_file_is_gzipped_json_of_rows():
    if not store.SHIPPED.exists():
        pytest.fail(f"{store.SHIPPED} is missing: run python bench/attacks_precompute.py")
    with gzip.open(store.SHIPPED, "rt", encoding="utf-8") as f:
        data = json.load(f)
    assert data and all(isinstance(v, list) and v and "accuracy" in v[0] for v in data.values())
