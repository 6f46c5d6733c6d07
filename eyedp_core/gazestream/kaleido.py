"""Kaleido: windowed planar-Laplace perturbation of a gaze stream (Li et al., via David-John et al.).

docs/PRIVACY_MODEL.md §8. Guarantee: **ε per w-sample window, radius r** — two streams that differ only
inside one window of w consecutive samples, by at most r px at each sample, give output distributions
within a factor e^ε. It is a w-event, geo-indistinguishability guarantee, *not* a participant-level ε.

The algorithm with the two corrections of §8.2:

* tests run on a fixed grid, every `t_skip`-th sample (w and t_skip are both in samples); samples in
  between repeat the last published point, free. A window of w samples therefore holds at most
  n_test = ⌈w/t_skip⌉ tests, each costing ε_test = ε/(h·n_test): at most ε/h per window;
* test: η ~ Lap(r/ε_test) — the distance is in pixels, so the noise is in pixels (correction 2) —
  and the last published point is repeated iff d(g_i, g'_last) <= l_thresh + η;
* publish: ε_rem = ε − ε/h − Σ_{k=i−w+1}^{i−1} ε_k^pub over the *sliding* window (correction 1: the
  pseudocode's lower index sums the whole history), spend ε_pub = ε_rem/2 and draw planar Laplace with
  ε' = ε_pub/r per pixel. If ε_rem/2 is below `min_pub` (default (ε − ε/h)/16: at most four halvings,
  so the noise never grows past 8× the first publication's), the last point is repeated instead.

So every window spends at most ε/h on tests plus strictly less than ε − ε/h on publications (each
publication takes half of what is left). Missing gaze (NaN) at a test slot is not tested (no cost) and
the last point is repeated; whether a sample is missing is treated as public. Before the first
publication the output is NaN (nothing has been published yet). Given the screen (`bounds`), gaze is clamped
to the screen rectangle BEFORE anything reads it: the rectangle is the admissible domain, so two inputs differ by
at most its diagonal d_max at a sample and the person-level bound ε·d_max/r per window holds (unclamped, a glance
one screen off would move a sample by up to 3·d_max); clipping the published points to the screen is then
post-processing. Noise is PREVIEW noise from the caller's Generator, or, given a ReleaseSource, OpenDP draws
on the `KaleidoLattice` (positions rounded first, noise at r + 3g; docs/PRIVACY_MODEL.md §11.2).

Speed: tests and publications are sequential (each depends on the last published point and on the
window's spending), so the loop runs over test slots only — every stream of a batch advances together,
vectorised across streams, and all noise is drawn before the loop.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.dp.lattice import round_to_lattice
from eyedp_core.dp.noise import LaplaceMechanism
from eyedp_core.dp.planar import PlanarLaplaceMechanism
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.gazestream.streams import stream_columns

__all__ = ["KaleidoBound", "KaleidoLattice", "KaleidoPlan", "KaleidoRun", "admissible", "kaleido", "kaleido_lattice",
           "kaleido_plan", "kaleido_run", "person_bound", "person_bound_of", "stream_windows", "window_sums"]


@dataclass(frozen=True)
class KaleidoPlan:
    """Validated Kaleido parameters and the budget split they imply (docs/PRIVACY_MODEL.md §8.2)."""

    epsilon: float
    w: int
    t_skip: int
    h: float
    r: float
    l_thresh: float
    min_pub: float

    @property
    def n_test(self) -> int:
        """Tests per window: ⌈w/t_skip⌉."""
        return math.ceil(self.w / self.t_skip)

    @property
    def eps_test(self) -> float:
        """Budget per test: ε/(h·n_test)."""
        return self.epsilon / (self.h * self.n_test)

    @property
    def pub_budget(self) -> float:
        """What publications may spend per window: ε − ε/h."""
        return self.epsilon - self.epsilon / self.h

    @property
    def test_noise_scale(self) -> float:
        """Laplace scale of the test noise in px: r/ε_test."""
        return self.r / self.eps_test

    def schedule(self, count: int = 8) -> list[float]:
        """Budgets of successive publications inside one window when nothing else was spent (V-KAL-1)."""
        out, rem = [], self.pub_budget
        for _ in range(count):
            if rem / 2 < self.min_pub:
                break
            out.append(rem / 2)
            rem /= 2
        return out


def kaleido_plan(*, epsilon: float, w: int, t_skip: int, h: float, r: float, l_thresh: float,
                 min_pub: float | None = None) -> KaleidoPlan:
    """Kaleido parameters -> KaleidoPlan; ValueError with the offending parameter named otherwise."""
    eps = float(epsilon)
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if int(w) != w or w < 1:
        raise ValueError(f"w (window, in samples) must be an integer >= 1, got {w!r}")
    if int(t_skip) != t_skip or t_skip < 1:
        raise ValueError(f"t_skip (in samples) must be an integer >= 1, got {t_skip!r}")
    if not (math.isfinite(float(h)) and h > 1):
        raise ValueError(f"h must be > 1 (a share 1/h of each window pays for tests), got {h!r}")
    if not (math.isfinite(float(r)) and r > 0):
        raise ValueError(f"r (privacy radius, px) must be > 0, got {r!r}")
    if not math.isfinite(float(l_thresh)):
        raise ValueError(f"l_thresh must be a finite distance in px, got {l_thresh!r}")
    pub = eps - eps / float(h)
    floor = pub / 16.0 if min_pub is None else float(min_pub)
    if not (floor > 0):
        raise ValueError(f"min_pub must be > 0, got {min_pub!r}")
    return KaleidoPlan(eps, int(w), int(t_skip), float(h), float(r), float(l_thresh), floor)


# The release lattice lies this many binary digits below the radius r.
_LATTICE_BITS_BELOW_R = 40


@dataclass(frozen=True)
class KaleidoLattice:
    """Release mode's lattice 2^k px: positions are rounded to it before anything reads them, and the test
    noise and the planar displacements are lattice values, so every published coordinate is a lattice point.

    Rounding moves a point by at most √2·g/2, two neighbours' rounded points by up to √2·g more, and the test
    compares a distance with a lattice-valued threshold (up to g more): the noise is calibrated to the radius
    r' = r + 3g instead of r, so the guarantee at radius r is kept (docs/PRIVACY_MODEL.md §11.2)."""

    r: float
    k: int

    @property
    def step(self) -> float:
        """Lattice step g = 2^k px."""
        return 2.0 ** self.k

    @property
    def radius(self) -> float:
        """The radius the release's noise is calibrated to: r' = r + 3g px."""
        return self.r + 3.0 * self.step


def kaleido_lattice(plan: KaleidoPlan) -> KaleidoLattice:
    """Kaleido plan in, its release lattice out: g = 2^k, k = ⌊log2 r⌋ − 40 (so 3g/r < 2^-38)."""
    return KaleidoLattice(plan.r, math.floor(math.log2(plan.r)) - _LATTICE_BITS_BELOW_R)


def _round_complex(z: np.ndarray, k: int) -> np.ndarray:
    """Points as complex numbers in, both coordinates rounded to the lattice 2^k out (NaN stays NaN)."""
    return round_to_lattice(z.real, k) + 1j * round_to_lattice(z.imag, k)


@dataclass(frozen=True)
class KaleidoRun:
    """One run: published points (…, n, 2), budget spent per sample (…, n), which samples were tested
    and which published a new point; `points` (…, J, 2) is what each test slot showed before the clip to the
    screen (the mechanism's own output, of which `published` is post-processing)."""

    plan: KaleidoPlan
    published: np.ndarray
    eps: np.ndarray
    tested: np.ndarray
    new_point: np.ndarray
    points: np.ndarray | None = None


def _run_batch(g: np.ndarray, plan: KaleidoPlan, rng: np.random.Generator,
               bounds: tuple[float, float] | None) -> KaleidoRun:
    """(P, n, 2) streams (NaN = missing or padding) -> KaleidoRun for all of them, advancing together."""
    if not isinstance(rng, (np.random.Generator, ReleaseSource)):
        raise TypeError("Kaleido needs a numpy.random.Generator (preview) or a ReleaseSource (release)")
    p_count, n = g.shape[:2]
    slots = np.arange(0, n, plan.t_skip)
    n_slots = slots.size
    gs = g[:, slots, :] if bounds is None else admissible(g[:, slots, :], bounds)  # (P, J, 2)
    valid = np.isfinite(gs).all(axis=2)
    # Release: everything on the lattice, the noise at the radius r' = r + 3g that covers the rounding.
    lattice = kaleido_lattice(plan) if isinstance(rng, ReleaseSource) else None
    radius = plan.r if lattice is None else lattice.radius
    # All noise up front: test noise Lap(r/ε_test) in px, unit planar-Laplace radii (Gamma(2, 1)) and angles.
    eta = LaplaceMechanism(epsilon=plan.eps_test, sensitivity=radius).sample(
        rng, (n_slots, p_count), lattice_k=None if lattice is None else lattice.k)
    unit = PlanarLaplaceMechanism(epsilon=1.0).sample(rng, n_slots * p_count).reshape(n_slots, p_count, 2)
    # Points as complex numbers x + iy: one subtraction and one abs give the distance.
    z = np.ascontiguousarray((gs[:, :, 0] + 1j * gs[:, :, 1]).T)  # (J, P); NaN where missing
    if lattice is not None:
        z = _round_complex(z, lattice.k)  # before anything reads the positions
    noise = (unit[:, :, 0] + 1j * unit[:, :, 1]) * radius  # planar Laplace at ε' = 1/r, scaled by 1/ε_pub below
    thresh = plan.l_thresh + eta
    pub = np.zeros((n_slots + 1, p_count))  # cumulative publication budget over slots
    out = np.empty((n_slots, p_count), complex)
    spent = np.empty((n_slots, p_count))
    # Far-away sentinel for "nothing published yet": the first valid test always publishes; a NaN gaze
    # gives a NaN distance, and NaN > threshold is False, so missing samples are never tested.
    last = np.full(p_count, 1e150 + 0j)
    back = plan.n_test - 1  # earlier slots inside a window ending at the current one
    budget = plan.pub_budget
    floor2 = 2.0 * plan.min_pub
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(n_slots):
            move = np.abs(z[j] - last) > thresh[j]
            rem = budget - (pub[j] - pub[j - back if j >= back else 0])
            e = 0.5 * rem * (move & (rem >= floor2))
            step = noise[j] / e
            if lattice is not None:
                step = _round_complex(step, lattice.k)  # lattice + lattice: the published point is a lattice point
            last = np.where(e > 0, z[j] + step, last)
            out[j] = last
            spent[j] = e
            pub[j + 1] = pub[j] + e
    out[np.abs(out) > 1e149] = np.nan
    out = np.stack([out.real, out.imag], axis=-1)  # (J, P, 2)
    points = np.transpose(out, (1, 0, 2))
    # Every sample shows the point published at or before its slot; costs sit on the slot samples.
    slot_of = np.arange(n) // plan.t_skip
    published = np.transpose(out, (1, 0, 2))[:, slot_of, :]
    if bounds is not None:
        published = np.stack([np.clip(published[..., 0], 0, bounds[0]), np.clip(published[..., 1], 0, bounds[1])],
                             axis=-1)
    eps = np.zeros((p_count, n))
    tested = np.zeros((p_count, n), bool)
    new_point = np.zeros((p_count, n), bool)
    tested[:, slots] = valid
    new_point[:, slots] = spent.T > 0
    eps[:, slots] = np.where(valid, plan.eps_test, 0.0) + spent.T
    return KaleidoRun(plan, published, eps, tested, new_point, points)


def admissible(points: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
    """Gaze (…, 2) and the screen (width, height) in px -> gaze clamped to the screen rectangle, the domain whose
    diagonal bounds how far a neighbour moves a sample; missing (non-finite) gaze stays missing."""
    pts = np.asarray(points, dtype=float)
    upper = np.array([float(bounds[0]), float(bounds[1])])
    return np.where(np.isfinite(pts), np.clip(pts, 0.0, upper), np.nan)


def _as_batch(stream: np.ndarray) -> tuple[np.ndarray, bool]:
    arr = np.asarray(stream, dtype=float)
    if arr.ndim == 2 and arr.shape[1] == 2:
        return arr[None], True
    if arr.ndim == 3 and arr.shape[2] == 2:
        return arr, False
    raise ValueError(f"a stream is an (n, 2) array of pixel positions (or (streams, n, 2)); got shape {arr.shape}")


def kaleido_run(stream: np.ndarray | pd.DataFrame, plan: KaleidoPlan, rng: np.random.Generator,
                bounds: tuple[float, float] | None = None) -> KaleidoRun | tuple[KaleidoRun, pd.DataFrame]:
    """Like `kaleido`, with the tests and publications: arrays give a KaleidoRun; a table gives
    (KaleidoRun over its padded streams, the table with x, y replaced and columns eps, tested, new_point)."""
    if isinstance(stream, pd.DataFrame):
        keys = stream_columns(stream)
        n = len(stream)
        if keys:
            code = stream.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
        else:
            code = np.zeros(n, np.intp)
        order = np.argsort(code, kind="stable")
        sizes = np.bincount(code)
        offset = np.r_[0, np.cumsum(sizes)[:-1]]
        pos_in = np.empty(n, np.intp)
        pos_in[order] = np.arange(n) - np.repeat(offset, sizes)
        batch = np.full((sizes.size, int(sizes.max()) if n else 0, 2), np.nan)
        batch[code, pos_in, 0] = stream["x"].to_numpy(float)
        batch[code, pos_in, 1] = stream["y"].to_numpy(float)
        run = _run_batch(batch, plan, rng, bounds)
        out = stream.copy()
        out["x"] = run.published[code, pos_in, 0]
        out["y"] = run.published[code, pos_in, 1]
        out["eps"] = run.eps[code, pos_in]
        out["tested"] = run.tested[code, pos_in]
        out["new_point"] = run.new_point[code, pos_in]
        return run, out
    batch, single = _as_batch(stream)
    run = _run_batch(batch, plan, rng, bounds)
    if single:
        return KaleidoRun(plan, run.published[0], run.eps[0], run.tested[0], run.new_point[0], run.points[0])
    return run


def kaleido(stream: np.ndarray | pd.DataFrame, plan: KaleidoPlan, rng: np.random.Generator,
            bounds: tuple[float, float] | None = None) -> tuple[np.ndarray | pd.DataFrame, np.ndarray]:
    """Gaze stream and its plan (`kaleido_plan(...)`: ε per w-sample window, radius r) -> (published stream,
    budget spent per sample).

    `stream`: an (n, 2) array of pixel positions in time order (NaN = missing), a (streams, n, 2) batch,
    or a table with x, y (and participant/stimulus columns: each stream is processed on its own, in the
    table's row order). w and t_skip are in samples, r and l_thresh in px, h > 1; bounds: the screen (W, H)
    the gaze is clamped to. Returns the same shape (a table gets x, y replaced) and the per-sample ε spent
    (tests + publications)."""
    res = kaleido_run(stream, plan, rng, bounds)
    if isinstance(res, tuple):
        run, table = res
        return table.drop(columns=["eps", "tested", "new_point"]), table["eps"].to_numpy()
    return res.published, res.eps


def window_sums(eps: np.ndarray, w: int) -> np.ndarray:
    """Per-sample budgets (…, n) and window w -> budget of the window of w samples ending at each sample."""
    e = np.asarray(eps, dtype=float)
    cs = np.concatenate([np.zeros(e.shape[:-1] + (1,)), np.cumsum(e, axis=-1)], axis=-1)
    n = e.shape[-1]
    hi = np.arange(1, n + 1)
    lo = np.maximum(hi - int(w), 0)
    return cs[..., hi] - cs[..., lo]


def stream_windows(frame: pd.DataFrame, w: int) -> pd.DataFrame:
    """Gaze table and window w -> per participant: streams, samples and windows Σ_s ⌈n_s/w⌉ charged.

    Each stream (participant × task/stimulus/recording/trial) restarts Kaleido's window, so a person's streams
    are covered by the sum of their own windows, not by ⌈(Σ_s n_s)/w⌉. Stream lengths are treated as public."""
    keys = stream_columns(frame)
    if keys:
        sizes = frame.groupby(keys, sort=False, dropna=False).size().rename("n").reset_index()
    else:
        sizes = pd.DataFrame({"n": [len(frame)]})
    # Without a participant column every stream is one person's (prepare_streams names them "all").
    sizes["participant"] = sizes["participant"].astype(str) if "participant" in sizes else "all"
    sizes["windows"] = -(-sizes["n"] // int(w))
    out = sizes.groupby("participant", sort=False).agg(streams=("n", "size"), samples=("n", "sum"),
                                                       windows=("windows", "sum"),
                                                       lengths=("n", lambda v: tuple(int(x) for x in v)))
    return out


@dataclass(frozen=True)
class KaleidoBound:
    """What Kaleido's ε means for one person (docs/PRIVACY_MODEL.md §8.1): ε per w-sample window for moves
    within r, and the only person-level bound, ε·Σ_s⌈n_s/w⌉·d_max/r over the person's streams, with d_max the
    diagonal of the screen the gaze is clamped to."""

    epsilon: float
    w: int
    r: float
    n_max: int  # samples of the charged person, all streams together (treated as public)
    diagonal: float  # px: the farthest a person-level neighbour can move one (clamped) sample
    stream_lengths: tuple[int, ...] = ()  # that person's streams; empty means one stream of n_max samples

    @property
    def lengths(self) -> tuple[int, ...]:
        """Samples of each of the charged person's streams."""
        return self.stream_lengths or (self.n_max,)

    @property
    def windows(self) -> int:
        """Disjoint w-sample windows that cover the person's streams, each stream restarting the window:
        Σ_s ⌈n_s/w⌉."""
        return max(sum(math.ceil(n / self.w) for n in self.lengths), 1)

    @property
    def distance_factor(self) -> float:
        """d_max/r (at least 1): a move of d px costs ε·d/r, and a different person's gaze may be anywhere."""
        return max(self.diagonal / self.r, 1.0)

    @property
    def per_window_any_move(self) -> float:
        """ε of one window when its samples may move anywhere on the screen: ε·d_max/r."""
        return self.epsilon * self.distance_factor

    @property
    def person_epsilon(self) -> float:
        """The person-level bound ε·Σ_s⌈n_s/w⌉·d_max/r (group privacy over windows, scaled by distance)."""
        return self.per_window_any_move * self.windows

    def words(self) -> str:
        """What the numbers are, in one sentence with the numbers plugged in."""
        k = len(self.lengths)
        what = (f"a stream of up to {self.n_max:,} samples" if k == 1 else
                f"{k} streams of {self.n_max:,} samples in all, each restarting the window")
        return (f"ε = {self.epsilon:g} holds per window of {self.w} samples for moves within r = {self.r:g} px; "
                f"a whole person (every sample of {what}, moved anywhere on the screen the gaze is clamped to, "
                f"diagonal d_max = {self.diagonal:.0f} px) is bounded only by ε·⌈n/w⌉·d_max/r summed over the "
                f"person's streams, ε·Σ_s⌈n_s/w⌉·d_max/r = {self.epsilon:g} × {self.windows:,} × "
                f"{self.distance_factor:.3g} = {self.person_epsilon:.4g}")


def person_bound(*, epsilon: float, w: int, r: float, screen_px: tuple[float, float], n_max: int | None = None,
                 stream_lengths: tuple[int, ...] | None = None) -> KaleidoBound:
    """Kaleido's ε, w, r, the screen (width, height) in px and one person's stream lengths (or one stream of
    n_max samples) -> its bounds."""
    lengths = tuple(int(n) for n in stream_lengths) if stream_lengths else ()
    total = sum(lengths) if lengths else int(n_max or 0)
    return KaleidoBound(float(epsilon), int(w), float(r), total, float(math.hypot(*screen_px)), lengths)


def person_bound_of(frame: pd.DataFrame, *, epsilon: float, w: int, r: float,
                    screen_px: tuple[float, float]) -> KaleidoBound:
    """Gaze table, Kaleido's ε, w, r and the screen -> the bound of the person charged the most windows."""
    per = stream_windows(frame, w)
    lengths = per.loc[per["windows"].idxmax(), "lengths"] if len(per) else (0,)
    return person_bound(epsilon=epsilon, w=w, r=r, screen_px=screen_px, stream_lengths=lengths)
