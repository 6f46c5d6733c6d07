"""Kaleido's person-level bound on a person with several streams and off-screen gaze (docs/PRIVACY_MODEL.md §8.1).

The exact privacy loss of a drawn output is computed here from the mechanism's densities, independently of
kaleido.py's code: at each test slot the Laplace test η ~ Lap(r/ε_test) decides "move" iff d(g, last) > l + η,
and a publication draws planar Laplace at ε' = ε_pub/r around the (clamped) gaze; the publication budget follows
from the output alone (which slots showed a new point), so the same output is scored under both neighbours.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from eyedp_core.exports import release_gaze_samples
from eyedp_core.gazestream.kaleido import (
    admissible,
    kaleido_plan,
    kaleido_run,
    person_bound,
    person_bound_of,
    stream_windows,
)
from eyedp_core.gazestream.streams import prepare_streams

W, H = 1280, 800
EPS, WIN, T_SKIP, R, HH, L_THRESH = 1.0, 60, 1, 10.0, 2.0, 20.0
STREAMS, N = 6, 10  # one person: 6 tasks of 10 samples each


def _person(x: float, y: float, who: str = "P1") -> pd.DataFrame:
    """One person's 6 streams of 10 samples, all at (x, y)."""
    return pd.DataFrame({"participant": who, "task": np.repeat([f"T{i}" for i in range(STREAMS)], N),
                         "t_s": np.tile(np.arange(N) / 60.0, STREAMS), "x": float(x), "y": float(y)})


def _log_cdf(t: np.ndarray, b: float) -> np.ndarray:
    """ln P(η < t) for η ~ Lap(b)."""
    return np.where(t < 0, math.log(0.5) + np.minimum(t, 0) / b, np.log1p(-0.5 * np.exp(-np.maximum(t, 0) / b)))


def _log_sf(t: np.ndarray, b: float) -> np.ndarray:
    """ln P(η >= t) for η ~ Lap(b)."""
    return np.where(t >= 0, math.log(0.5) - np.maximum(t, 0) / b, np.log1p(-0.5 * np.exp(np.minimum(t, 0) / b)))


def _log_likelihood(points: np.ndarray, new: np.ndarray, gaze: np.ndarray, plan) -> np.ndarray:
    """Outputs (P, J, 2) at the test slots, which slots showed a new point (P, J), the mechanism's input at the
    slots (J, 2; NaN = missing, public: neither tested nor published) -> ln density of each output under it (P,)."""
    p_count, n_slots = new.shape
    b = plan.r / plan.eps_test
    ll = np.zeros(p_count)
    spent = np.zeros((p_count, n_slots))
    last = np.full((p_count, 2), np.nan)
    for j in range(n_slots):
        if not np.isfinite(gaze[j]).all():
            continue  # a missing sample: no test, no publication, the last point repeated
        rem = plan.pub_budget - spent[:, max(0, j - plan.n_test + 1):j].sum(axis=1)
        can = rem >= 2 * plan.min_pub  # below the floor nothing is published, whatever the test says
        dist = np.where(np.isnan(last[:, 0]), np.inf, np.hypot(*(gaze[j] - last).T))
        e = rem / 2
        eps_px = e / plan.r
        planar = 2 * np.log(eps_px) - math.log(2 * math.pi) - eps_px * np.hypot(*(points[:, j] - gaze[j]).T)
        t = dist - plan.l_thresh
        moved = np.where(np.isinf(t), 0.0, _log_cdf(np.where(np.isinf(t), 0, t), b)) + planar
        stayed = _log_sf(np.where(np.isinf(t), 0, t), b)
        stayed = np.where(np.isinf(t), -np.inf, stayed)
        ll += np.where(can, np.where(new[:, j], moved, stayed), 0.0)
        spent[:, j] = np.where(can & new[:, j], e, 0.0)
        last = np.where((can & new[:, j])[:, None], points[:, j], last)
    return ll


def _losses(raw: np.ndarray, raw_other: np.ndarray, draws: int, clamp: bool, seed: int, t_skip: int = T_SKIP,
            screen: tuple[int, int] = (W, H)) -> np.ndarray:
    """One person's gaze (streams, n, 2) and a neighbour's -> the exact privacy loss of `draws` outputs drawn
    from the first (summed over the streams): with the clamp to the screen, or reading the gaze as it is."""
    plan = kaleido_plan(epsilon=EPS, w=WIN, t_skip=t_skip, h=HH, r=R, l_thresh=L_THRESH)
    batch = np.repeat(raw[None], draws, axis=0).reshape(-1, raw.shape[1], 2)
    run = kaleido_run(batch, plan, np.random.default_rng(seed), screen if clamp else None)
    # Which slots showed a new point, read off the output itself (a continuous draw never repeats a point).
    pts = run.points
    prev = np.concatenate([np.full_like(pts[:, :1], np.nan), pts[:, :-1]], axis=1)
    new = np.isfinite(pts[..., 0]) & ~(pts == prev).all(axis=-1)
    assert np.array_equal(new, run.new_point[:, ::t_skip])
    pts = pts.reshape(draws, raw.shape[0], *pts.shape[1:])
    new = new.reshape(draws, raw.shape[0], new.shape[1])
    total = np.zeros(draws)
    for s in range(raw.shape[0]):
        mine = (admissible(raw[s], screen) if clamp else raw[s])[::t_skip]
        theirs = (admissible(raw_other[s], screen) if clamp else raw_other[s])[::t_skip]
        total += _log_likelihood(pts[:, s], new[:, s], mine, plan) - _log_likelihood(pts[:, s], new[:, s], theirs, plan)
    return total


def test_a_person_with_six_short_streams_is_charged_six_windows() -> None:
    frame = pd.concat([_person(100, 100), _person(600, 400, "P2").query("task == 'T0'")], ignore_index=True)
    per = stream_windows(frame, WIN)
    assert per.loc["P1", "windows"] == 6 and per.loc["P1", "streams"] == 6 and per.loc["P2", "windows"] == 1
    bound = person_bound_of(frame, epsilon=EPS, w=WIN, r=R, screen_px=(W, H))
    assert bound.windows == 6 and bound.lengths == (N,) * STREAMS
    assert bound.person_epsilon == pytest.approx(EPS * 6 * math.hypot(W, H) / R)
    # The pooled count ⌈60/60⌉ = 1 would undercharge: each task restarts the window.
    assert person_bound(epsilon=EPS, w=WIN, r=R, n_max=STREAMS * N, screen_px=(W, H)).windows == 1
    rel = release_gaze_samples(frame, kaleido_plan(epsilon=EPS, w=WIN, l_thresh=L_THRESH, t_skip=T_SKIP, r=R, h=HH),
                               (W, H))
    man = rel.manifest
    assert rel.windows_per_person == 6 == man["calibration"]["windows_per_person"]
    assert man["epsilon_per_person"] == pytest.approx(bound.person_epsilon)
    assert man["parameters"]["streams"] == 7 and man["parameters"]["participants"] == 2
    assert "ε·Σ_s⌈n_s/w⌉·d_max/r" in man["guarantee"]
    assert any("missing are treated as public" in c for c in man["caveats"])
    assert set(rel.table["task"]) == {f"T{i}" for i in range(STREAMS)}  # the stream key travels with the samples


def test_off_screen_gaze_is_clamped_before_the_mechanism_reads_it() -> None:
    raw = np.array([[-0.9 * W, -0.5 * H], [1.7 * W, 300.0], [640.0, 1.9 * H], [np.nan, np.nan], [700.0, 400.0]])
    clamped = admissible(raw, (W, H))
    assert np.array_equal(clamped, [[0, 0], [W, 300], [640, H], [np.nan, np.nan], [700, 400]], equal_nan=True)
    plan = kaleido_plan(epsilon=EPS, w=WIN, l_thresh=L_THRESH, t_skip=T_SKIP, r=R, h=HH)
    a = kaleido_run(raw, plan, np.random.default_rng(5), (W, H))
    b = kaleido_run(clamped, plan, np.random.default_rng(5), (W, H))
    assert np.array_equal(a.points, b.points, equal_nan=True) and np.array_equal(a.eps, b.eps)
    # Without the screen the raw positions are read: the first publication is centred elsewhere.
    c = kaleido_run(raw, plan, np.random.default_rng(5), None)
    assert not np.allclose(c.points[0], a.points[0])
    # prepare_streams keeps such glances (within one screen size) as gaze, so the clamp is what bounds them.
    table = pd.DataFrame({"t_s": np.arange(5) / 60.0, "x": raw[:, 0], "y": raw[:, 1]})
    kept = prepare_streams(table, width_px=W, height_px=H).frame
    assert np.isfinite(kept["x"]).sum() == 4


def test_exact_privacy_loss_of_neighbours_with_off_screen_gaze_stays_under_the_charged_bound() -> None:
    """P1 looks a little off the top-left corner in all 6 tasks; its neighbour looks off the bottom-right
    corner. Clamped, the two are one screen diagonal apart at every sample: the worst a person can differ."""
    one = np.full((STREAMS, N, 2), [-0.9 * W, -0.9 * H])
    other = np.full((STREAMS, N, 2), [1.9 * W, 1.9 * H])
    bound = person_bound_of(_person(0, 0), epsilon=EPS, w=WIN, r=R, screen_px=(W, H))
    per_window = bound.per_window_any_move
    draws = 4000
    loss = _losses(one, other, draws, clamp=True, seed=11)
    # Pure DP: every output's loss is bounded, not only on average; no tolerance is needed.
    assert loss.max() <= bound.person_epsilon, (loss.max(), bound.person_epsilon)
    assert np.abs(_losses(other, one, draws, clamp=True, seed=12)).max() <= bound.person_epsilon
    # The pooled charge of one window is exceeded on average: the sum over streams is needed.
    se = loss.std(ddof=1) / math.sqrt(draws)
    assert loss.mean() - 6 * se > per_window, (loss.mean(), se, per_window)
    # Read unclamped, the same neighbours are 2.8 diagonals apart and the charged bound no longer holds.
    raw_loss = _losses(one, other, draws, clamp=False, seed=13)
    raw_se = raw_loss.std(ddof=1) / math.sqrt(draws)
    assert raw_loss.mean() - 6 * raw_se > bound.person_epsilon, (raw_loss.mean(), raw_se, bound.person_epsilon)


def test_the_exact_loss_is_a_true_density_ratio_and_within_geo_indistinguishability_for_a_small_move() -> None:
    """Gaze jumping over (and off) the screen, so tests and publications happen often; the neighbour moves every
    sample by 4 px < r. The likelihood ratio of outputs drawn from the first averages 1 (E_P[Q/P] = 1: the
    densities above are the mechanism's), and every loss stays within Σ_s⌈n_s/w⌉·ε·d/r."""
    rng = np.random.default_rng(3)
    one = rng.uniform([0.0, -0.5 * H], [W - 4.0, 1.5 * H], (STREAMS, N, 2))  # y often off the screen
    other = one + [4.0, 0.0]
    moved = admissible(other, (W, H)) - admissible(one, (W, H))
    assert np.allclose(np.hypot(moved[..., 0], moved[..., 1]), 4.0)
    draws = 20_000
    loss = _losses(one, other, draws, clamp=True, seed=21)
    ratio = np.exp(-loss)
    se = ratio.std(ddof=1) / math.sqrt(draws)
    assert abs(ratio.mean() - 1.0) < 6 * se, (ratio.mean(), se)
    assert np.abs(loss).max() <= STREAMS * EPS * 4.0 / R, np.abs(loss).max()
    assert np.abs(loss).max() > 0.5 * EPS * 4.0 / R  # the moves are seen: the check is not vacuous


def test_real_recordings_several_stimuli_per_person_and_glances_off_the_screen(realdata) -> None:
    """Lund 2013 (1024 × 768 px, 500 Hz): UL23 has two recordings (an image and a video) with gaze off the screen
    in both. The charge sums the windows of both; Kaleido reads the clamped gaze; replacing UL23's gaze by UL31's
    (same lengths and missing samples: public) loses at most the charged bound on every drawn output."""
    samples = pd.read_csv(realdata / "lund2013" / "lund2013_samples.csv.gz")
    samples = samples[samples["stimulus_type"] != "dots"]  # the dot recordings have no timestamps
    raw = pd.DataFrame({"participant": samples["participant"], "stimulus": samples["stimulus"],
                        "t_s": samples["t_us"] / 1e6, "x": samples["x_px"], "y": samples["y_px"]})
    screen = (1024, 768)
    frame = prepare_streams(raw, width_px=screen[0], height_px=screen[1]).frame
    ul23 = frame[frame["participant"] == "UL23"]
    lengths = ul23.groupby("stimulus", sort=False).size()
    assert len(lengths) == 2
    per = stream_windows(frame, WIN)
    assert per.loc["UL23", "windows"] == sum(math.ceil(n / WIN) for n in lengths)
    assert per.loc["UL23", "windows"] > math.ceil(lengths.sum() / WIN)  # the pooled count undercharges
    off = (ul23["x"] < 0) | (ul23["x"] > screen[0]) | (ul23["y"] < 0) | (ul23["y"] > screen[1])
    assert off.groupby(ul23["stimulus"]).sum().min() > 0  # glances off the screen in both, kept by the check

    seg = 600  # 600 samples of each recording around its first glance off the screen
    mine, theirs = [], []
    ul31 = frame[frame["participant"] == "UL31"]
    for (stim, part), (_, other) in zip(ul23.groupby("stimulus", sort=False), ul31.groupby("stimulus", sort=False)):
        first = int(np.flatnonzero(off[part.index].to_numpy())[0])
        start = max(0, min(first - 100, len(part) - seg))
        xy = part[["x", "y"]].to_numpy(float)[start:start + seg]
        fill = other[["x", "y"]].ffill().bfill().to_numpy(float)[:seg]  # a different person's gaze...
        fill[~np.isfinite(xy).all(axis=1)] = np.nan  # ...missing exactly where UL23's is
        mine.append(xy)
        theirs.append(fill)
    mine, theirs = np.stack(mine), np.stack(theirs)
    assert (np.abs(admissible(mine, screen) - mine) > 0).any()  # the segments hold off-screen gaze
    bound = person_bound(epsilon=EPS, w=WIN, r=R, screen_px=screen, stream_lengths=(seg, seg))
    loss = _losses(mine, theirs, 300, clamp=True, seed=31, t_skip=12, screen=screen)
    assert np.abs(loss).max() <= bound.person_epsilon, (np.abs(loss).max(), bound.person_epsilon)
    assert loss.mean() > 0  # outputs drawn from UL23 favour UL23
