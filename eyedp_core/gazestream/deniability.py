"""event-synth-PD for fixations: plausible deniability (David-John et al.; Bindschaedler et al. 2017).

docs/PRIVACY_MODEL.md §9.3. A fixation with parameters d = (μx, μy, σx, σy, n samples) is re-drawn from the
generative model M(d): n samples from the 2-D normal N((μx, μy), diag(σx², σy²)). The candidate y passes
the **PD event privacy test (k, γ)** if at least k − 1 *other* identities own a fixation record d_a whose
density Pr[y | d_a] falls in the same γ-bucket as Pr[y | d], bucket i' with γ^(−i'−1) < Pr <= γ^(−i').
(A record with another sample count cannot produce y: its probability is 0, never in the bucket.)

Two forms:

* **as published** — retry with fresh draws until the test passes (capped at `max_tries`; the published
  loop would never end for an event that cannot pass, so those are dropped and counted). NOT
  differential privacy: the threshold is fixed and the retries make the output depend on how
  atypical the seed is; nothing bounds what one release reveals about a person.
* **randomised threshold** (docs/PRIVACY_MODEL.md §9.3) — one candidate per event, accepted iff the
  count reaches k − 1 + Lap(1/ε0) (fresh noise per candidate); failing candidates are dropped, not
  re-drawn, and the number dropped is reported. NOT differential privacy as implemented either: each
  synthetic fixation is published under its seed's participant and time, so the record names whose
  fixation it came from and its position reveals the seed's. The paper's claim (Bindschaedler et al.:
  (ε, δ) with ε = ε0 + ln(1 + γ/t), δ = e^(−ε0·(k − t)) for an integer 1 <= t < k, per *record*, never per
  person) needs seeds drawn at random and records published detached from them, and a generative model
  independent of the protected data (true here: the 2-D normal family is fixed in advance); `pd_guarantee`
  computes that claim only so the page can show it labelled as the paper's, beside the correct statement.
  Its constants are quoted from memory in the specification and still to be checked against their Theorem 1.

Saccades are not handled: the seed synthesises them with a conditional VAE trained with TensorFlow,
which needs a neural-network library EyeDP does not ship; it is left out. The published stream therefore
holds the accepted fixations only: every other sample (saccades, blinks, dropped fixations) is NaN.
Randomness: a numpy Generator the caller passes (preview; docs/PRIVACY_MODEL.md §11).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from eyedp_core.dp.noise import LaplaceMechanism
from eyedp_core.gaze.events import SAMPLE_SCREEN
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.events import EventParams, event_params
from eyedp_core.gazestream.streams import selection_column, stream_columns

__all__ = ["FORMS", "PDResult", "PDSettings", "bucket", "event_synth_pd", "pd_guarantee"]

FORMS = ("published", "randomised")


@dataclass(frozen=True)
class PDSettings:
    """The PD event privacy test (k, γ) and its forms' knobs: ε0 of the randomised threshold, the retries of the
    published form."""

    k: int
    gamma: float
    eps0: float = 1.0
    max_tries: int = 20


def bucket(log_density: np.ndarray, gamma: float) -> np.ndarray:
    """Natural-log densities ln Pr and γ > 1 -> bucket i' with γ^(−i'−1) < Pr <= γ^(−i'), i.e. ⌊−ln Pr / ln γ⌋.

    A relative 1e-12 absorbs the rounding of the log ratio, so Pr = γ^(−i') exactly lands in bucket i'."""
    x = -np.asarray(log_density, float) / math.log(gamma)
    return np.floor(x + 1e-12 * np.maximum(1.0, np.abs(x)))


def pd_guarantee(k: int, gamma: float, eps0: float) -> pd.DataFrame:
    """k, γ, ε0 -> the paper's claimed (ε, δ) per seed-detached record for each integer 1 <= t < k (§9.3); NOT a
    guarantee of the randomised form as implemented, whose records keep their seed's participant."""
    t = np.arange(1, max(int(k), 2))
    return pd.DataFrame({"t": t, "epsilon": eps0 + np.log1p(gamma / t), "delta": np.exp(-eps0 * (k - t))})


@dataclass(frozen=True)
class PDResult:
    """Published stream (x, y of accepted fixations; NaN everywhere else) and per-fixation outcomes."""

    samples: pd.DataFrame
    records: pd.DataFrame
    form: str
    k: int
    gamma: float
    eps0: float
    max_tries: int

    @property
    def n_events(self) -> int:
        return len(self.records)

    @property
    def n_published(self) -> int:
        return int(self.records["passed"].sum())

    @property
    def n_dropped(self) -> int:
        return self.n_events - self.n_published


def _loglik(yx: np.ndarray, yy: np.ndarray, mu_x: np.ndarray, mu_y: np.ndarray, sd_x: np.ndarray,
            sd_y: np.ndarray) -> np.ndarray:
    """Candidates' samples (P, n) and records' parameters (R,) -> ln Pr[y | d_a] as (P, R), from the candidates'
    sufficient statistics."""
    n = yx.shape[1]
    sx, sy, sxx, syy = yx.sum(1), yy.sum(1), (yx ** 2).sum(1), (yy ** 2).sum(1)
    qx = (sxx[:, None] - 2 * mu_x[None] * sx[:, None] + n * mu_x[None] ** 2) / (2 * sd_x[None] ** 2)
    qy = (syy[:, None] - 2 * mu_y[None] * sy[:, None] + n * mu_y[None] ** 2) / (2 * sd_y[None] ** 2)
    return -n * np.log(2 * math.pi * sd_x * sd_y)[None] - qx - qy


def _check_arguments(samples: pd.DataFrame, form: str, k: int, gamma: float, max_tries: int,
                     rng: np.random.Generator) -> None:
    """event_synth_pd's arguments -> None, or the error that names the first one out of range."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    if int(k) != k or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if not (math.isfinite(gamma) and gamma > 1):
        raise ValueError(f"gamma must be > 1 (bucket width), got {gamma!r}")
    if int(max_tries) != max_tries or max_tries < 1:
        raise ValueError(f"max_tries must be an integer >= 1, got {max_tries!r}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError("plausible-deniability previews need a numpy.random.Generator")
    if "participant" not in samples.columns:
        raise ValueError("plausible deniability compares identities: the samples need a participant column")


def _other_identities(b: np.ndarray, pending: np.ndarray, onehot: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Likelihood buckets (candidates × records of the group), each candidate's own record, records' identities
    (one-hot) -> per candidate, how many OTHER identities have a record in its own bucket."""
    self_b = b[np.arange(pending.size), pending]
    match = (b == self_b[:, None]).astype(float) @ onehot > 0  # (P, identities)
    match[np.arange(pending.size), own[pending]] = False
    return match.sum(1)


def event_synth_pd(samples: pd.DataFrame, settings: PDSettings, rng: np.random.Generator, *,
                   form: str = "published", geometry: Geometry = SAMPLE_SCREEN, method: str = "ivt",
                   threshold: float | None = None, events: EventParams | None = None) -> PDResult:
    """Raw samples, the test's settings (k, γ, ε0, max_tries), a Generator and the form -> PDResult: fixations
    re-drawn where they pass the PD test.

    form "published" retries up to max_tries; "randomised" draws once against k − 1 + Lap(1/ε0) and drops
    failures. Records are compared within the same stimulus (the `stimulus`/`task` column)."""
    k, gamma, eps0, max_tries = settings.k, settings.gamma, settings.eps0, settings.max_tries
    _check_arguments(samples, form, k, gamma, max_tries, rng)
    k = int(k)
    ep = events if events is not None else event_params(samples, geometry, method=method, threshold=threshold)
    fx = ep.fixations.reset_index(drop=True)
    keys = stream_columns(samples)
    sel = selection_column(samples)
    thr_noise = LaplaceMechanism(epsilon=eps0, sensitivity=1.0) if form == "randomised" else None
    tries, plausible, passed = np.zeros(len(fx), np.intp), np.zeros(len(fx), np.intp), np.zeros(len(fx), bool)
    out_x, out_y = np.full(len(samples), np.nan), np.full(len(samples), np.nan)  # gaze of fixations that passed
    who_codes, who_names = pd.factorize(fx["participant"]) if len(fx) else (np.zeros(0, np.intp), [])
    n_id = len(who_names)
    sel_codes = pd.factorize(fx[sel])[0] if sel is not None and len(fx) else np.zeros(len(fx), np.intp)
    n_col = fx["n"].to_numpy(np.intp) if len(fx) else np.zeros(0, np.intp)
    mu_x, mu_y = fx["mu_x"].to_numpy(float), fx["mu_y"].to_numpy(float)
    sd_x, sd_y = fx["sd_x"].to_numpy(float), fx["sd_y"].to_numpy(float)
    rows_of = [ep.rows(tuple(r[c] for c in keys) if keys else (), int(r["first"]), int(r["stop"]))
               for r in fx[[*keys, "first", "stop"]].to_dict("records")] if len(fx) else []
    attempts = 1 if form == "randomised" else int(max_tries)
    # Records that can have produced a candidate: same stimulus and the same number of samples.
    for (_s, n), idx in pd.DataFrame({"s": sel_codes, "n": n_col}).groupby(["s", "n"]).indices.items():
        n = int(n)
        onehot = np.zeros((idx.size, n_id))
        onehot[np.arange(idx.size), who_codes[idx]] = 1.0
        own = who_codes[idx]
        pending = np.arange(idx.size)
        for _ in range(attempts):
            if pending.size == 0:
                break
            tgt = idx[pending]
            z = rng.standard_normal((pending.size, n, 2))
            yx = mu_x[tgt, None] + sd_x[tgt, None] * z[:, :, 0]
            yy = mu_y[tgt, None] + sd_y[tgt, None] * z[:, :, 1]
            ll = _loglik(yx, yy, mu_x[idx], mu_y[idx], sd_x[idx], sd_y[idx])
            count = _other_identities(bucket(ll, gamma), pending, onehot, own)
            need = k - 1 + (thr_noise.sample(rng, pending.size) if thr_noise is not None else 0.0)
            ok = count >= need
            tries[tgt] += 1
            plausible[tgt] = count
            for j in np.flatnonzero(ok):
                rows = rows_of[tgt[j]]
                out_x[rows] = yx[j, : rows.size]
                out_y[rows] = yy[j, : rows.size]
            passed[tgt[ok]] = True
            pending = pending[~ok]
    published = samples.copy()
    published["x"], published["y"] = out_x, out_y
    records = fx[[*keys, "index", "t_start_s", "duration_s", "n"]].assign(tries=tries, plausible_identities=plausible,
                                                                         passed=passed)
    return PDResult(published, records, form, k, float(gamma), float(eps0), int(max_tries))
