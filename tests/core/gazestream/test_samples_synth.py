"""k-same-synth and plausible deniability (docs/PRIVACY_MODEL.md §9.2, §9.3)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core import gazestream
from eyedp_core.data import bundled
from eyedp_core.gazestream.deniability import PDSettings, bucket, event_synth_pd, pd_guarantee
from eyedp_core.gazestream.events import FIXATION_PARAMS, SACCADE_PARAMS, event_params
from eyedp_core.gazestream.synth import k_same_clusters


@pytest.fixture(scope="module")
def streams() -> pd.DataFrame:
    """The bundled streams, first 40 s (ten readers)."""
    g = bundled.load_sample("gaze_streams")
    return g[g["t_s"] < 40].reset_index(drop=True)


@pytest.fixture(scope="module")
def params(streams):
    return event_params(streams)


@pytest.mark.parametrize("k", [2, 3, 4, 6])
def test_every_released_vector_is_shared_by_k_identities(streams, params, k):
    res = gazestream.k_same_synth(streams, k, np.random.default_rng(k), events=params)
    for kind, cols in (("fixation", FIXATION_PARAMS), ("saccade", SACCADE_PARAMS)):
        rel = res.params[res.params["type"] == kind]
        shared = rel.groupby(["task", "index", *cols])["participant"].transform("nunique")
        assert shared.min() >= k, f"a released {kind} vector is shared by fewer than {k} identities"
    # The output for any identity is made from released vectors only: each identity's synthetic fixation
    # samples scatter around the released centres (and nothing else).
    fx = res.params[res.params["type"] == "fixation"].set_index(["participant", "index"])
    syn = res.samples[res.samples["event"] == "fixation"]
    centres = syn.groupby(["participant", "event_index"])[["x", "y"]].mean()
    centres.index.names = ["participant", "index"]
    joined = centres.join(fx[["mu_x", "mu_y", "sd_x"]])
    assert np.median(np.abs(joined["x"] - joined["mu_x"]) / joined["sd_x"]) < 1.0


def test_clusters_have_at_least_k_members_and_nearest_neighbours_group(rng):
    z = rng.normal(size=(50, 11, 3))
    lab = k_same_clusters(z, 3)
    for row in lab:
        assert np.bincount(row).min() >= 3
    # Two tight, far-apart groups of 3 are never mixed.
    z2 = np.concatenate([rng.normal(0, 0.01, (1, 3, 2)), rng.normal(100, 0.01, (1, 3, 2))], axis=1)
    lab2 = k_same_clusters(z2, 3)[0]
    assert len(set(lab2[:3])) == 1 and len(set(lab2[3:])) == 1 and lab2[0] != lab2[3]


def test_too_few_identities_is_a_clear_error(streams):
    two = streams[streams["participant"].isin(["P01", "P02"])]
    with pytest.raises(ValueError, match="fewer than k = 3"):
        gazestream.k_same_synth(two, 3, np.random.default_rng(0))


def test_pd_bucket_edges():
    # γ^(-i'-1) < Pr <= γ^(-i'): Pr = γ^-2 exactly is bucket 2, just above it bucket 1.
    g = 10.0
    assert bucket(np.log(g ** -2.0), g) == 2
    assert bucket(np.log(g ** -2.0) + 1e-9, g) == 1
    assert bucket(np.log(0.5 * g ** -3), g) == 3


def _twins(n_people: int, unique: bool, rng: np.random.Generator) -> pd.DataFrame:
    """People whose fixations sit at the same places (unique=False) or far apart (unique=True)."""
    rows = []
    for p in range(n_people):
        t, x0 = 0.0, 200.0 + (300.0 * p if unique else 0.0)
        for i in range(6):
            for j in range(60):  # 60 samples = 0.5 s fixation at 120 Hz, 1 px noise
                rows.append((f"S{p}", t, x0 + 40 * i + rng.normal(0, 1), 300 + rng.normal(0, 1)))
                t += 1 / 120
            for j in range(4):  # a 4-sample saccade
                rows.append((f"S{p}", t, x0 + 40 * i + 10 * (j + 1), 300.0))
                t += 1 / 120
    return pd.DataFrame(rows, columns=["participant", "t_s", "x", "y"])


def test_pd_passes_with_plausible_others_and_fails_without(rng):
    same = event_synth_pd(_twins(4, False, rng), PDSettings(k=3, gamma=1e6, max_tries=10), rng)
    assert same.n_published > 0.8 * same.n_events
    assert (same.records.loc[same.records["passed"], "plausible_identities"] >= 2).all()
    apart = event_synth_pd(_twins(4, True, rng), PDSettings(k=3, gamma=1e6, max_tries=10), rng)
    assert apart.n_published == 0 and (apart.records["tries"] == 10).all()
    x = apart.samples["x"].to_numpy()
    assert np.isnan(x).all()  # nothing published: nothing of the person is shown


def test_pd_randomised_form_draws_once_and_drops(rng):
    res = event_synth_pd(_twins(4, False, rng), PDSettings(k=3, gamma=1e6, eps0=1.0), rng, form="randomised")
    assert (res.records["tries"] == 1).all() and 0 < res.n_dropped < res.n_events
    tab = pd_guarantee(5, 2.0, 1.0)
    assert tab["epsilon"].iloc[0] == pytest.approx(1.0 + np.log(3.0))
    assert tab["delta"].iloc[-1] == pytest.approx(np.exp(-1.0))
