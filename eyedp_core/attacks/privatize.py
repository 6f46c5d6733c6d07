"""Private releases of a feature table for the attacks: table -> per-recording series -> mechanism -> table.

docs/PRIVACY_MODEL.md §0.3 (record release), §0.4 (public bounds), §0.5 (length), §0.6 and §3 (composition).
A release privatises every feature series of every recording in `rows` with one time-series mechanism
(LPA, FPA, CFPA, DCFPA from `eyedp_core.timeseries.mechanisms`) in ONE vectorised call on an array
(recordings, features, T): recordings shorter than T are padded with their own last value ("edge", a
fixed map of the person's own record, so the public-bound sensitivity still covers it) and cut back
after the mechanism. The recording lengths are treated as public (§0.5), which the notes say.

Budget. `epsilon` is, by default, the budget of the whole release **per participant**: with F features,
C chunks per series and R_p recordings of participant p, each mechanism call gets
ε_call = ε / (F · C · R_p), so the calls on one person's data add up to exactly ε (sequential composition,
§0.6; chunks of one person are not disjoint units, §3). The paper's accounting (labelled "as in the
paper", not a per-person guarantee) gives every call ε / F — features add up, chunks and recordings are
counted in parallel — so one person's true total is ε · C · R_p.

Choice of k. By default k follows a public rule (it reads only n, ε_call and a public prior on the
spectrum, never the data; §2.6 option 1); it is the rule of `eyedp_core.timeseries.k.public_k`. Under honest accounting ε_call is so small
that the rule keeps a single coefficient, k = 1: each feature then becomes one noisy constant per recording
(FPA) or per chunk (CFPA), or one noisy straight line per chunk (DCFPA). The plan says so in words.

All noise comes from the caller's numpy Generator: these are evaluations, not releases to publish (§11).
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

import eyedp_core.timeseries.k
from eyedp_core.attacks.tables import AttackTable
from eyedp_core.dp.registry import Mech
from eyedp_core.gaze.feature_specs import FEATURE_SPECS, feature_bounds
from eyedp_core.timeseries.mechanisms import cfpa, dcfpa, fpa, lpa

__all__ = ["ACCOUNTING", "ATTACK_MECHANISMS", "Bounds", "ReleasePlan", "plan_release", "public_k", "release",
           "resolve_bounds", "parse_mechanism"]

ACCOUNTING = {"participant": "ε per participant (all features, chunks and recordings add up)",
              "paper": "ε as in the paper (per recording, summed over features; chunks counted in parallel) "
                       "— not a per-person guarantee"}
# The seven methods of Bozkir et al.'s Tables 1-3, and LPA.
ATTACK_MECHANISMS: tuple[str, ...] = ("FPA", "CFPA-32", "CFPA-64", "CFPA-128", "DCFPA-32", "DCFPA-64",
                                      "DCFPA-128", "LPA")
_RUNNABLE = (Mech.LPA, Mech.FPA, Mech.CFPA, Mech.DCFPA)
# Public prior of the k rule: series sd = 10 % of the range, spectrum falling as j^-2 (smooth window features).


def parse_mechanism(label: str | Mech) -> tuple[Mech, int | None]:
    """'CFPA-32', 'FPA', Mech.LPA ... -> (mechanism, chunk or None); ValueError for anything else."""
    mech, chunk = (label, None) if isinstance(label, Mech) else Mech.parse(str(label))
    if mech not in _RUNNABLE:
        raise ValueError(f"{mech.value} is not a time-series mechanism the attacks can run "
                         f"({', '.join(m.value for m in _RUNNABLE)})")
    if mech.info.chunked and chunk is None:
        raise ValueError(f"{mech.value} needs a chunk size, e.g. {mech.value}-32")
    return mech, chunk


@dataclass(frozen=True)
class Bounds:
    """Clamp bounds per feature and where they come from ('public', 'declared' or 'data-derived')."""

    lower: np.ndarray
    upper: np.ndarray
    source: tuple[str, ...]

    @property
    def data_derived(self) -> tuple[int, ...]:
        """Indices of the features whose bounds were read off the data (not a DP guarantee, §0.4)."""
        return tuple(i for i, s in enumerate(self.source) if s == "data-derived")


def resolve_bounds(at: AttackTable, bounds: str | Mapping[str, tuple[float, float]] = "public") -> Bounds:
    """Prepared table and a bounds rule -> per-feature clamp bounds.

    "public": the documented public bounds of the known features (feature_specs); ValueError for others.
    "auto": public where known, the observed min/max elsewhere (flagged data-derived, not DP — §0.4).
    "data": observed min/max for every feature (flagged). A mapping {feature: (L, U)} declares bounds;
    features it leaves out fall back to "auto".
    """
    declared = dict(bounds) if isinstance(bounds, Mapping) else {}
    rule = "auto" if isinstance(bounds, Mapping) else str(bounds)
    if rule not in ("public", "auto", "data"):
        raise ValueError(f"bounds must be 'public', 'auto', 'data' or a mapping, got {bounds!r}")
    lo = np.empty(len(at.features))
    hi = np.empty(len(at.features))
    source = []
    unknown = [f for f in at.features if f not in FEATURE_SPECS and f not in declared]
    if rule == "public" and unknown:
        raise ValueError(f"no public bounds for {unknown[:5]}{' …' if len(unknown) > 5 else ''}: declare them "
                         "(bounds={feature: (L, U)}) or use bounds='auto' (observed range, not a DP guarantee)")
    window_s = at.window_s
    for i, f in enumerate(at.features):
        if f in declared:
            lo[i], hi[i] = map(float, declared[f])
            source.append("declared")
        elif f in FEATURE_SPECS and rule != "data":
            (lo[i],), (hi[i],) = feature_bounds([f], window_s)
            source.append("public")
        else:
            col = at.x[:, i]
            lo[i], hi[i] = (float(np.nanmin(col)), float(np.nanmax(col))) if np.isfinite(col).any() else (0.0, 1.0)
            source.append("data-derived")
        if not hi[i] > lo[i]:
            hi[i] = lo[i] + 1.0
    return Bounds(lo, hi, tuple(source))


def _noise_unit(n: int, difference: bool) -> np.ndarray:
    """n -> h(k) for k = 1 … ⌊n/2⌋+1, the expected Σ_t noise² = h(k)·(Δ2/ε)² (§2.5; DCFPA integrated, §4)."""
    k = np.arange(1, n // 2 + 2, dtype=float)
    w2 = eyedp_core.timeseries.k.parseval_weights(n) ** 2
    if not difference:
        return 2.0 * k * np.cumsum(w2)
    j = np.arange(n // 2 + 1)[:, None]
    s = np.cumsum(np.exp(2j * np.pi * j * np.arange(n)[None, :] / n), axis=1)
    per_bin = (w2[:, None] * np.abs(s) ** 2).sum(axis=1)
    return 2.0 * k / n * np.cumsum(per_bin)


def _d2_over_range(n: int, difference: bool, increment_over_range: float | None) -> float:
    """Public L2 sensitivity of a length-n series (or its differences) in units of the range R (§2, §4)."""
    if not difference:
        return float(np.sqrt(n))
    if increment_over_range is None:
        return float(np.sqrt(4 * n - 3))
    b = min(float(increment_over_range), 1.0)
    return float(np.sqrt(1.0 + 4.0 * (n - 1) * b * b))


def public_k(n: int, epsilon: np.ndarray | float, *, difference: bool = False,
             increment_over_range: float | None = None) -> np.ndarray:
    """Transform length n, per-call ε (array) -> data-free k minimising a public prior error (§2.6 option 1):
    `eyedp_core.timeseries.k.public_k` with the range as the unit (k does not depend on R)."""
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    k = eyedp_core.timeseries.k.public_k(n, epsilon=eps, value_range=1.0, difference=difference, increment_bound=increment_over_range)
    return np.asarray(k, dtype=int).reshape(eps.shape)


@dataclass(frozen=True)
class ReleasePlan:
    """How one release spends its budget: calls per person, ε per call, k, and what that means in words.

    per_call and k have one entry per recording of the release; participant_total is the largest per-person
    total (what a person is guaranteed), equal to `epsilon` under participant accounting.
    """

    label: str
    mechanism: Mech
    chunk: int | None
    accounting: str
    epsilon: float
    length: int
    n_chunks: int
    n_features: int
    recordings: int  # most recordings any one participant has in the release
    per_call: np.ndarray
    k: np.ndarray
    participant_total: float
    noise_sd_over_range: float  # typical per-window noise sd in units of the feature's public range
    words: str


def _k_words(mech: Mech, chunk: int | None, n: int, length: int) -> str:
    whole = mech is Mech.FPA or (chunk is not None and chunk >= length)
    if mech is Mech.DCFPA:
        where = "recording" if whole else f"chunk of {n} windows"
        return f"every feature becomes one noisy straight line per {where}"
    if whole:
        return "every feature becomes one noisy constant per recording (its mean plus noise)"
    return f"every feature becomes one noisy constant per chunk of {n} windows"


def plan_release(label: str | Mech, epsilon: float, *, n_features: int, length: int,
                 recordings: np.ndarray, accounting: str = "participant", k: int | str = "public",
                 increment_over_range: float | None = None) -> ReleasePlan:
    """Mechanism label, ε, features, public length T, recordings-per-participant of every recording -> plan.

    recordings: for every recording of the release, how many recordings its participant has in it (R_p).
    k: "public" (the data-free rule) or a fixed integer (capped at ⌊n/2⌋+1).
    """
    mech, chunk = parse_mechanism(label)
    eps = float(epsilon)
    if not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"ε must be a positive number, got {epsilon!r}")
    if accounting not in ACCOUNTING:
        raise ValueError(f"accounting must be one of {tuple(ACCOUNTING)}, got {accounting!r}")
    rp = np.asarray(recordings, dtype=float)
    n = length if chunk is None else min(int(chunk), length)
    c = 1 if mech in (Mech.LPA, Mech.FPA) else -(-length // int(chunk))
    if accounting == "participant":
        per_call = eps / (n_features * c * rp)
        total = eps
    else:
        per_call = np.full(rp.shape, eps / n_features)
        total = float(eps * c * rp.max()) if rp.size else eps
    difference = mech is Mech.DCFPA
    if mech is Mech.LPA:
        kk = np.zeros(rp.shape, dtype=int)
        # Δ1 = T·R, b = Δ1/ε per sample: sd = √2·T·R/ε.
        sd = float(np.sqrt(2.0) * length / per_call.min()) if rp.size else float("nan")
    else:
        if k == "public":
            kk = public_k(n, per_call, difference=difference, increment_over_range=increment_over_range)
        else:
            if int(k) < 1:
                raise ValueError(f"k must be >= 1, got {k!r}")
            kk = np.full(rp.shape, min(int(k), n // 2 + 1), dtype=int)
        d2 = _d2_over_range(n, difference, increment_over_range)
        h = _noise_unit(n, difference)[int(kk.max()) - 1] if rp.size else float("nan")
        sd = float(np.sqrt(h / n) * d2 / per_call.min()) if rp.size else float("nan")
    name = mech.label(chunk)
    rmax = int(rp.max()) if rp.size else 0
    calls = n_features * c * rmax
    head = (f"{name} at ε = {eps:g} {'per person' if accounting == 'participant' else '(paper accounting)'}: "
            f"{n_features} features × {c} chunk{'s' if c != 1 else ''} × {rmax} recording{'s' if rmax != 1 else ''}"
            f" = {calls:,} mechanism calls per person, each with ε = {float(per_call.min()):.3g}")
    if accounting == "paper":
        head += f"; the person's true total is ε = {total:g}"
    if mech is not Mech.LPA and np.all(kk == 1):
        if k == "public":
            head += (f". With so little ε per call the public rule keeps k = 1 Fourier coefficient: "
                     f"{_k_words(mech, chunk, n, length)}")
        else:
            head += f". With k = 1, {_k_words(mech, chunk, n, length)}"
    elif mech is not Mech.LPA:
        head += f"; k = {int(kk.min())}{'' if kk.min() == kk.max() else f'–{int(kk.max())}'} coefficients"
    head += f" (noise sd ≈ {sd:.3g}× each feature's range)."
    return ReleasePlan(label=name, mechanism=mech, chunk=chunk, accounting=accounting, epsilon=eps, length=int(length),
                       n_chunks=int(c), n_features=int(n_features), recordings=rmax, per_call=per_call, k=kk,
                       participant_total=float(total), noise_sd_over_range=sd, words=head)


def _segments(at: AttackTable, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted row indices -> (segment of every row, position in its segment, segment lengths)."""
    r = at.rec[rows]
    brk = np.r_[True, (r[1:] != r[:-1]) | (rows[1:] != rows[:-1] + 1)]
    starts = np.flatnonzero(brk)
    lengths = np.diff(np.r_[starts, rows.size])
    seg = np.repeat(np.arange(starts.size), lengths)
    return seg, np.arange(rows.size) - starts[seg], lengths


@dataclass(frozen=True)
class ReleaseSetting:
    """What one attack release spends: mechanism label, ε per person, accounting, k rule and DCFPA's public bound
    B on |x_t − x_{t−1}| as a fraction of each feature's range."""

    mechanism: str | Mech
    epsilon: float
    accounting: str = "participant"
    k: int | str = "public"
    increment_bound: float | None = None


def release(at: AttackTable, rows: np.ndarray, setting: ReleaseSetting, *, bounds: Bounds,
            rng: np.random.Generator) -> tuple[np.ndarray, ReleasePlan]:
    """Prepared table, rows to release (runs of consecutive windows), setting, bounds, rng ->
    (private feature values (len(rows), F), the plan that spent the budget).

    Each run of consecutive windows of one recording is one released series; ε is per participant over
    all the series of this release (see the module docstring).
    """
    rows = np.sort(np.asarray(rows, dtype=int))
    if rows.size == 0:
        raise ValueError("nothing to release")
    label, epsilon, accounting = setting.mechanism, setting.epsilon, setting.accounting
    k, increment_bound = setting.k, setting.increment_bound
    mech, chunk = parse_mechanism(label)
    seg, pos, lengths = _segments(at, rows)
    t_pub = int(lengths.max())
    seg_part = at.rec_participant[at.rec[rows[np.r_[0, np.cumsum(lengths)[:-1]]]]]
    _, inv, counts = np.unique(seg_part, return_inverse=True, return_counts=True)
    plan = plan_release(mech.label(chunk), epsilon, n_features=len(at.features), length=t_pub,
                        recordings=counts[inv], accounting=accounting, k=k, increment_over_range=increment_bound)
    # (segments, T, F) by edge padding: index of the source row for every (segment, t).
    starts = np.r_[0, np.cumsum(lengths)[:-1]]
    src = starts[:, None] + np.minimum(np.arange(t_pub)[None, :], lengths[:, None] - 1)
    x = at.x[rows][src]  # (S, T, F)
    # Missing values -> the series' own mean (a fixed map of the person's own record), else the lower bound.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-missing series: mean of nothing
        mean = np.nanmean(x, axis=1, keepdims=True)
    mean = np.where(np.isfinite(mean), mean, bounds.lower[None, None, :])
    x = np.where(np.isfinite(x), x, mean)
    series = np.ascontiguousarray(x.transpose(0, 2, 1))  # (S, F, T)
    b = (bounds.lower[None, :], bounds.upper[None, :])
    eps = plan.per_call[:, None]
    kk = plan.k[:, None]
    if mech is Mech.LPA:
        out = lpa(series, epsilon=eps, sensitivity=None, rng=rng, bounds=b)
    elif mech is Mech.FPA:
        out = fpa(series, epsilon=eps, k=kk, sensitivity=None, rng=rng, bounds=b)
    elif mech is Mech.CFPA:
        out = cfpa(series, epsilon=eps, k=kk, chunk=int(chunk), sensitivity=None, rng=rng, bounds=b)
    else:
        inc = None if increment_bound is None else (bounds.upper - bounds.lower)[None, :] * float(increment_bound)
        out = dcfpa(series, epsilon=eps, k=kk, chunk=int(chunk), sensitivity=None, rng=rng, bounds=b,
                    increment_bound=inc)
    return out[seg, :, pos], plan
