"""No function that charges the ledger or exports accepts or uses a seed (docs/PRIVACY_MODEL.md §11): no seed or
generator parameter, numpy.random untouched, and two calls with identical inputs and identical numpy global
state give different outputs."""
from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

from eyedp_core.dp import release as dp_release
from eyedp_core.heatmaps import cap, preview, release
from eyedp_core.heatmaps import maps as hm
from eyedp_core.heatmaps.calibration import HeatmapSetting, calibrate_heatmap
from eyedp_core.heatmaps.cap import SelectionSpec

# Everything on the Heatmaps side that is charged to the ledger or leaves the curator.
CHARGED_OR_EXPORTED = [cap.select_cap_private, release.choose_cap_privately, release.release_heatmap,
                       dp_release.release_argmin, dp_release.release_gaussian, dp_release.release_laplace]
SEEDISH = {"seed", "rng", "random_state", "generator", "random", "preview_seed"}


def _maps() -> hm.GazeMaps:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"observer": rng.integers(0, 12, 600), "x": rng.uniform(0, 64, 600),
                       "y": rng.uniform(0, 48, 600)})
    return hm.gaze_maps(df, 64, 48, cell=8)


def _choose(maps: hm.GazeMaps) -> float:
    source = release.MapsSource.of(maps, fixations="f", stimulus="s", stimulus_name="stim")
    # ε tiny and eleven candidates: the choice is close to uniform, so a repeat by chance is unlikely.
    return release.choose_cap_privately(maps, source, weight="count",
                                        selection=SelectionSpec(raw_bound=20.0, epsilon=0.01, method="exponential"),
                                        setting=HeatmapSetting(epsilon=1.0, delta=1e-4, mechanism="gaussian",
                                                               method="analytic", cap_total=None)).m


def _export(maps: hm.GazeMaps, mechanism: str) -> release.HeatmapExport:
    sens = preview.maps_sensitivity(maps, 2.0, None)
    cal = calibrate_heatmap(sens, 1.0, 1e-4, mechanism)
    source = release.MapsSource.of(maps, fixations="f", stimulus="s", stimulus_name="stim")
    return release.HeatmapExport(aggregate=hm.aggregate(maps, 2.0), sensitivity=sens, calibration=cal,
                                 source=source, cell_px=8, weight="count", cap_m=2.0, cap_total=None, sigma_px=10.0)


@pytest.mark.parametrize("fn", CHARGED_OR_EXPORTED, ids=lambda f: f.__name__)
def test_no_seed_or_generator_parameter(fn):
    params = set(inspect.signature(fn).parameters)
    assert not params & SEEDISH, f"{fn.__name__} accepts {params & SEEDISH}"


def test_private_choice_of_m_differs_under_identical_numpy_state():
    """m is not drawn from a seed (default_rng(preview seed + …) would give the same m on every press)."""
    maps = _maps()
    picks = []
    for _ in range(30):
        np.random.seed(0)  # identical numpy global state before every call
        picks.append(_choose(maps))
    assert len(set(picks)) > 1, picks


@pytest.mark.parametrize("mechanism", ["gaussian", "laplace"])
def test_export_differs_under_identical_numpy_state(mechanism):
    maps = _maps()
    export = _export(maps, mechanism)
    scale = release.export_scale(export)
    np.random.seed(0)
    first = release.release_heatmap(export, scale).values
    np.random.seed(0)
    second = release.release_heatmap(export, scale).values
    assert not np.array_equal(first, second)


def test_charged_paths_never_call_numpy_random(monkeypatch):
    maps = _maps()
    export = _export(maps, "gaussian")
    scale = release.export_scale(export)

    def forbidden(*args, **kwargs):
        raise AssertionError("numpy.random was called on a charged path")

    for name in dir(np.random):
        if not name.startswith("_") and callable(getattr(np.random, name)):
            monkeypatch.setattr(np.random, name, forbidden)
    with pytest.raises(AssertionError):  # the trap is armed
        np.random.default_rng()
    assert _choose(maps) in cap.PUBLIC_CAPS["count"]
    rel = release.release_heatmap(export, scale)
    assert rel.values.shape == maps.grid_shape and rel.metadata["seeded"] is False
