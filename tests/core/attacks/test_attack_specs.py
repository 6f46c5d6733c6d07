"""evaluate and sweep take their settings as one frozen spec (EvaluateSpec, GridSpec); keywords override its
fields, give the same result as the spec, and an unknown keyword is refused."""
from __future__ import annotations

import dataclasses
import typing

import numpy as np
import pandas as pd
import pytest

from eyedp_core import attacks
from eyedp_core.attacks.engine import EvaluateOptions, EvaluateSpec
from eyedp_core.attacks.grid import GridOptions, GridSpec, Runner, RunnerOptions

FEATS = ["fix_rate_hz", "fix_dur_mean_ms", "sacc_rate_hz"]
CENTRE, SPREAD = np.array([2.5, 1000.0, 3.0]), np.array([0.2, 80.0, 0.25])


def table(rng: np.random.Generator, *, person: float = 0.0, task: float = 0.0, people: int = 4,
          windows: int = 200) -> pd.DataFrame:
    """Windows = centre + spread·(person offset + task offset + i.i.d. noise), two tasks, 0.5 s apart."""
    frames = []
    p_off, t_off = rng.normal(0, person, (people, len(FEATS))), rng.normal(0, task, (2, len(FEATS)))
    for i in range(people):
        for j, name in enumerate(("reading", "search")):
            z = p_off[i] + t_off[j] + rng.normal(0, 1.0, (windows, len(FEATS)))
            df = pd.DataFrame(CENTRE + SPREAD * z, columns=FEATS)
            df.insert(0, "t_start_s", np.arange(windows) * 0.5)
            df.insert(0, "task", name)
            df.insert(0, "participant", f"P{i}")
            frames.append(df)
    return pd.concat(frames, ignore_index=True)


@pytest.mark.parametrize(("spec", "options"), [(EvaluateSpec, EvaluateOptions), (GridSpec, GridOptions)])
def test_keyword_options_name_exactly_the_spec_fields(spec, options):
    """The TypedDict that types the keywords lists the same fields as the spec, so neither can drift."""
    assert set(typing.get_type_hints(options)) == {f.name for f in dataclasses.fields(spec)}


def test_runner_options_are_the_runner_settings():
    import inspect
    params = set(inspect.signature(Runner.__init__).parameters) - {"self", "at"}
    assert set(typing.get_type_hints(RunnerOptions)) == params


def test_spec_and_keywords_give_the_same_result_and_keywords_override():
    t = table(np.random.default_rng(2), person=1.0)
    spec = EvaluateSpec(mechanism="FPA", epsilon=100.0, bounds="auto", classifier="knn", seed=3)
    by_spec = attacks.evaluate(t, "identity", spec)
    by_kw = attacks.evaluate(t, "identity", mechanism="FPA", epsilon=100.0, bounds="auto", classifier="knn", seed=3)
    assert by_spec.accuracy == by_kw.accuracy and by_spec.plans[0].words == by_kw.plans[0].words
    assert (by_spec.predictions["predicted"] == by_kw.predictions["predicted"]).all()
    clean = attacks.evaluate(t, "identity", spec, mechanism=None, epsilon=None)
    assert clean.mechanism == "clean" and clean.plans == () and spec.mechanism == "FPA"  # the spec is unchanged


def test_grid_spec_and_keywords_give_the_same_rows():
    t = table(np.random.default_rng(4), person=1.0, task=1.0)
    grid = GridSpec(tasks=("identity",), mechanisms=("FPA",), epsilons=(10.0,), classifiers=("knn",), bounds="auto")
    by_spec = attacks.rows_frame(list(attacks.sweep(t, grid))).drop(columns="seconds")
    by_kw = attacks.rows_frame(list(attacks.sweep(t, tasks=("identity",), mechanisms=("FPA",), epsilons=(10.0,),
                                                  classifiers=("knn",), bounds="auto"))).drop(columns="seconds")
    assert by_spec.equals(by_kw) and len(by_spec) == 1 + 2  # clean, then both scenarios


def test_an_unknown_keyword_is_refused_with_the_valid_names():
    t = table(np.random.default_rng(5))
    with pytest.raises(TypeError, match="epsilom.*EvaluateSpec has .*epsilon"):
        attacks.evaluate(t, "identity", epsilom=1.0)
    with pytest.raises(TypeError, match="repetition.*GridSpec"):
        next(attacks.sweep(t, repetition=2))
