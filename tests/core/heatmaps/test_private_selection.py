"""The DP choice of the cap m (docs/PRIVACY_MODEL.md §0.7, §6.5): public candidates, ε-DP on neighbours, and a
remembered choice that counts only for the data it read."""
from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from eyedp_core.heatmaps import cap, release
from eyedp_core.heatmaps import maps as hm
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.heatmaps.cap import SelectionSpec

B, EPS_SEL, EPS, DELTA = 10.0, 0.1, 1.0, 1e-4


def _fixations(first_count: int) -> pd.DataFrame:
    """Eight observers; observer 'a' has `first_count` fixations in one cell, the others two each elsewhere."""
    rows = [("a", 5.0, 5.0)] * first_count + [(o, 30.0 + i, 30.0) for i, o in enumerate("bcdefgh") for _ in range(2)]
    return pd.DataFrame(rows, columns=["observer", "x", "y"])


def _source(maps: hm.GazeMaps, stimulus: str = "stim-token", name: str = "comic") -> release.MapsSource:
    return release.MapsSource.of(maps, fixations="fix-token", stimulus=stimulus, stimulus_name=name)


def _choose(maps: hm.GazeMaps, source: release.MapsSource | None = None) -> release.CapChoice:
    return release.choose_cap_privately(maps, source or _source(maps), weight="count",
                                        selection=SelectionSpec(raw_bound=B, epsilon=EPS_SEL, method="exponential"),
                                        setting=HeatmapSetting(epsilon=EPS, delta=DELTA, mechanism="gaussian",
                                                               method="analytic", cap_total=None))


def test_neighbours_get_the_same_candidates_and_close_probabilities():
    """One observer 9 -> 6 fixations in a cell (g_max 9 -> 6) must not change the candidate list,
    and every candidate's probability may move by at most e^ε (a list of 1..⌈g_max⌉ would lose 7 and 9)."""
    a = hm.gaze_maps(_fixations(9), 64, 64, cell=8)
    b = hm.gaze_maps(_fixations(6), 64, 64, cell=8)
    assert (a.g_max(), b.g_max()) == (9.0, 6.0)
    ca, cb = _choose(a).candidates, _choose(b).candidates
    assert ca == cb == cap.public_candidates("count", B)
    assert 7.0 not in ca and 9.0 not in ca  # nothing derived from g_max
    # The candidate list is a function of public parameters only.
    assert list(inspect.signature(cap.public_candidates).parameters) == ["weight", "raw_bound"]
    cands = np.asarray(ca)
    stds = cap.noise_std_for_caps(a.n_observers, a.n_cells, cands, EPS, DELTA, "gaussian")
    sens = cap.cap_score_sensitivity(cands, B, a.n_observers, a.n_cells)
    pa = cap.selection_probabilities(cap.cap_scores(a, cands, B, stds), EPS_SEL, sens)
    pb = cap.selection_probabilities(cap.cap_scores(b, cands, B, stds), EPS_SEL, sens)
    assert np.all(pa > 0) and np.all(pb > 0)
    assert np.abs(np.log(pa / pb)).max() <= EPS_SEL + 1e-12


@pytest.mark.parametrize("weight,bound,expected", [("count", 4.0, (1.0, 2.0, 3.0, 4.0)),
                                                   ("duration", 0.25, (0.05, 0.1, 0.2))])
def test_public_candidates_are_the_fixed_grid_below_the_bound(weight, bound, expected):
    assert cap.public_candidates(weight, bound) == expected
    with pytest.raises(ValueError):
        cap.public_candidates("pixels", 1.0)
    with pytest.raises(ValueError, match="no public candidate"):
        release.choose_cap_privately(hm.gaze_maps(_fixations(3), 64, 64, cell=8), _source(
            hm.gaze_maps(_fixations(3), 64, 64, cell=8)), weight="count",
            selection=SelectionSpec(raw_bound=0.5, epsilon=0.1, method="exponential"),
            setting=HeatmapSetting(epsilon=1.0, delta=1e-4, mechanism="gaussian", method="analytic", cap_total=None))


def test_algorithm1_candidates_still_follow_the_paper():
    """Algorithm 1 (flagged, not private) keeps evaluating 1..⌈g_max⌉ as in the paper."""
    assert {7.0, 9.0} <= set(cap.algorithm1_candidates("count", 9.0))
    assert cap.algorithm1_candidates("duration", 9.0) == cap.PUBLIC_CAPS["duration"]


def test_remembered_choice_counts_only_for_the_data_it_read():
    """A choice made on one stimulus (or observer set) is not this stimulus' cost, and its ledger
    entry names the observers it read, whatever page state later uses the same m."""
    maps = hm.gaze_maps(_fixations(5), 64, 64, cell=8)
    here = _source(maps)
    choice = _choose(maps, here)
    assert choice.how == "dp" and choice.m in choice.candidates and choice.epsilon == EPS_SEL
    assert choice.selection_epsilon(here, "count", choice.m) == EPS_SEL
    other_stimulus = _source(maps, stimulus="other-token", name="portrait")
    assert not choice.applies_to(other_stimulus, "count", choice.m)
    assert choice.selection_epsilon(other_stimulus, "count", choice.m) == 0.0
    fewer = release.MapsSource("fix-token", "stim-token", "comic", here.observers[:-1])
    assert not choice.applies_to(fewer, "count", choice.m)
    assert not choice.applies_to(here, "duration", choice.m)
    assert not choice.applies_to(here, "count", choice.m + 1)
    entry = release.selection_release(choice)
    assert entry.participants == here.observers and entry.epsilon == EPS_SEL and entry.unit == "observer"
    assert "'comic'" in entry.label and entry.mechanism.startswith("private choice of m")


def test_algorithm1_choice_flags_by_value_and_is_not_a_charged_release():
    maps = hm.gaze_maps(_fixations(5), 64, 64, cell=8)
    choice = release.algorithm1_choice(3.0, "count", _source(maps))
    assert choice.tuned_on_private_data("count", 3.0) and not choice.tuned_on_private_data("count", 2.0)
    assert choice.selection_epsilon(_source(maps), "count", 3.0) == 0.0
    with pytest.raises(ValueError):
        release.selection_release(choice)
