"""Floating-point-safe release sampling through OpenDP (docs/PRIVACY_MODEL.md §11).

Textbook float samplers leak through the low bits of their outputs (Mironov 2012) and numpy's
generators are predictable, so anything that leaves the curator is noised here: OpenDP rounds the
input to a lattice of spacing 2^k and adds discrete Laplace/Gaussian noise drawn with exact integer
arithmetic from a cryptographic RNG; its privacy map charges the rounding. There is deliberately no
seed argument and numpy.random is never touched.
"""
from __future__ import annotations

import functools
import importlib.metadata
import math
from typing import Any

import numpy as np
import opendp.prelude as dp

from eyedp_core.dp.lattice import Metric, lattice_k
from eyedp_core.dp.registry import Family, SelectionMethod

dp.enable_features("contrib")

__all__ = ["SAMPLER", "SELECTION_METHODS", "lattice_k", "opendp_gaussian_sigma", "release_argmin",
           "release_gaussian", "release_laplace"]

SAMPLER = "OpenDP discrete lattice sampler, CSPRNG"
OPENDP_VERSION = importlib.metadata.version("opendp")

def _prepare(values: np.ndarray, scale: float, name: str) -> tuple[np.ndarray, list[float]]:
    arr = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(
            "release values must be finite: clamp to public bounds and fill missing values first"
        )
    s = float(scale)
    if not math.isfinite(s) or s <= 0:
        raise ValueError(f"{name} must be a finite number > 0 for a release, got {scale!r}")
    return arr, arr.ravel().tolist()


def _check_sensitivity(sensitivity: float | None) -> float | None:
    if sensitivity is None:
        return None
    s = float(sensitivity)
    if not math.isfinite(s) or s < 0:
        raise ValueError(f"sensitivity must be a finite number >= 0, got {sensitivity!r}")
    return s


def _vector_domain(n: int) -> Any:
    # A known size lets OpenDP charge the lattice rounding exactly instead of refusing a coarse k.
    return dp.vector_domain(dp.atom_domain(T=float, nan=False), size=n)


def _base_metadata(mechanism: Family, arr: np.ndarray, k: int) -> dict[str, Any]:
    return {
        "mechanism": mechanism.value,  # metadata is plain text: it is written to manifests
        "library": "opendp",
        "opendp_version": OPENDP_VERSION,
        "sampler": SAMPLER,
        "seeded": False,
        "lattice_k": k,
        "lattice_spacing": 2.0**k,
        "n_values": int(arr.size),
        "shape": tuple(arr.shape),
    }


def release_laplace(
    values: np.ndarray, scale: float, *, sensitivity: float | None = None, k: int | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """Array (any shape) and Laplace scale b in, (noisy array of the same shape, release metadata) out.

    Each value gets independent discrete Laplace noise of scale b on a 2^k lattice (OpenDP
    make_laplace; each value is first rounded to that lattice, so every output is a lattice point); with
    `sensitivity` = Δ1 the metadata carries OpenDP's pure ε for that sensitivity. `k` fixes the lattice
    (a release calibrated by `eyedp_core.dp.lattice`); by default it comes from `lattice_k`.
    """
    arr, flat = _prepare(values, scale, "Laplace scale")
    sens = _check_sensitivity(sensitivity)
    b = float(scale)
    k = lattice_k(b, arr.size, sens, Metric.L1) if k is None else int(k)
    meta = _base_metadata(Family.LAPLACE, arr, k)
    meta.update(scale=b, std=math.sqrt(2.0) * b, sensitivity=sens, sensitivity_metric="l1",
                measure="pure ε-DP (MaxDivergence)", epsilon=None, delta=0.0)
    if arr.size == 0:
        return arr.copy(), meta
    meas = dp.m.make_laplace(_vector_domain(arr.size), dp.l1_distance(T=float), scale=b, k=k)
    if sens is not None:
        meta["epsilon"] = float(meas.map(sens))
    noisy = np.asarray(meas(flat), dtype=float).reshape(arr.shape)
    return noisy, meta


def release_gaussian(
    values: np.ndarray, sigma: float, *, sensitivity: float | None = None, delta: float | None = None,
    k: int | None = None
) -> tuple[np.ndarray, dict[str, Any]]:
    """Array (any shape) and Gaussian std σ in, (noisy array of the same shape, release metadata) out.

    Discrete Gaussian noise of std σ on a 2^k lattice (OpenDP make_gaussian). With `sensitivity` = Δ2
    the metadata carries OpenDP's zCDP ρ, and with `delta` also OpenDP's converted ε at that δ
    (conservative compared with the analytic calibration, docs/PRIVACY_MODEL.md §11).
    """
    arr, flat = _prepare(values, sigma, "Gaussian sigma")
    sens = _check_sensitivity(sensitivity)
    if delta is not None and not (0.0 < float(delta) < 1.0):
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta!r}")
    sig = float(sigma)
    k = lattice_k(sig, arr.size, sens, Metric.L2) if k is None else int(k)
    meta = _base_metadata(Family.GAUSSIAN, arr, k)
    meta.update(scale=sig, std=sig, sensitivity=sens, sensitivity_metric="l2",
                measure="ρ-zCDP (ZeroConcentratedDivergence)", rho=None, epsilon=None,
                delta=None if delta is None else float(delta))
    if arr.size == 0:
        return arr.copy(), meta
    meas = dp.m.make_gaussian(_vector_domain(arr.size), dp.l2_distance(T=float), scale=sig, k=k)
    if sens is not None:
        meta["rho"] = float(meas.map(sens))
        if delta is not None:
            profile = dp.c.make_zCDP_to_approxDP(meas).map(sens)
            meta["epsilon"] = float(profile.epsilon(float(delta)))
    noisy = np.asarray(meas(flat), dtype=float).reshape(arr.shape)
    return noisy, meta


# Cached: a function of its four numbers alone, and each search runs OpenDP's map some fifty times (about 0.4 s);
# a plan releases many heatmaps at the same (Δ2, ε, δ) and checks each setting before drawing it.
@functools.lru_cache(maxsize=1024)
def opendp_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float, sigma0: float) -> float:
    """Δ2, (ε, δ) and a calibrated σ0 in, the smallest σ >= σ0 (to 1e-6) whose OpenDP release is (ε, δ)-DP
    by OpenDP's own accounting out.

    OpenDP accounts its discrete Gaussian through zCDP, looser than the exact analytic calibration
    (docs/PRIVACY_MODEL.md §11), so an export may need a little more noise than the preview. OpenDP's
    `binary_search_param` finds the boundary σ of the release's own chain (the discrete Gaussian on its lattice,
    zCDP converted to (ε, δ) at the fixed δ) over a one-value domain."""
    if not (math.isfinite(sigma0) and sigma0 > 0):
        raise ValueError(f"sigma0 must be a finite number > 0, got {sigma0!r}")
    sens, delta = float(l2_sensitivity), float(delta)

    def chain(sigma: float) -> Any:
        """σ in, the release's measurement at σ with (ε, δ) out for a fixed δ."""
        meas = dp.m.make_gaussian(_vector_domain(1), dp.l2_distance(T=float), scale=sigma,
                                  k=lattice_k(sigma, 1, sens, Metric.L2))
        return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(meas), delta)

    if chain(float(sigma0)).check(sens, (float(epsilon), delta)):
        return float(sigma0)
    sigma = dp.binary_search_param(chain, d_in=sens, d_out=(float(epsilon), delta), bounds=(float(sigma0), None))
    # The map also depends (about 1e-12 relative) on the lattice, which follows the number of values released:
    # the margin keeps a release of any size within (ε, δ).
    return float(sigma) * (1 + 1e-6)


SELECTION_METHODS = tuple(m.value for m in SelectionMethod)  # the names, for messages and pickers


def release_argmin(scores: np.ndarray, *, sensitivity: float, epsilon: float,
                   method: SelectionMethod = SelectionMethod.EXPONENTIAL) -> tuple[int, dict[str, Any]]:
    """Scores (lower is better), their L∞ sensitivity, ε and method in, (ε-DP index of a low score,
    release metadata) out, drawn by OpenDP from a cryptographic RNG (no seed).

    "exponential": Gumbel noise of scale 2Δ/ε, i.e. exactly the exponential mechanism with P(i) ∝
    exp(−ε·score_i/(2Δ)) (McSherry–Talwar: ε-DP); OpenDP certifies it as ρ = ε²/8 zCDP, checked here.
    "report-noisy-min": exponential noise of scale 2Δ/ε (OpenDP's pure-DP noisy max; its map gives ε).
    Scale 2Δ/ε, not Δ/ε, because the scores of neighbours may move in opposite directions."""
    if method not in SELECTION_METHODS:
        raise ValueError(f"unknown selection method {method!r}; use one of {SELECTION_METHODS}")
    s = np.asarray(scores, dtype=float).ravel()
    if s.size == 0 or not np.all(np.isfinite(s)):
        raise ValueError("selection needs at least one score, all finite")
    eps, sens = float(epsilon), _check_sensitivity(sensitivity)
    if not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    meta: dict[str, Any] = {"mechanism": str(method), "library": "opendp", "opendp_version": OPENDP_VERSION,
                            "sampler": SAMPLER, "seeded": False, "n_candidates": int(s.size),
                            "sensitivity": sens, "sensitivity_metric": "linf", "epsilon": eps, "delta": 0.0}
    if sens == 0:
        # The scores do not depend on anyone's data: the plain argmin is 0-DP and needs no noise.
        meta.update(scale=0.0, epsilon=0.0)
        return int(np.argmin(s)), meta
    scale = 2.0 * sens / eps
    space = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float))
    if method == SelectionMethod.EXPONENTIAL:
        meas = dp.m.make_noisy_max(*space, dp.zero_concentrated_divergence(), scale=scale, negate=True)
        rho = float(meas.map(sens))
        # Gumbel noisy max is the exponential mechanism, whose zCDP cost is ε²/8: guards against a change
        # of OpenDP's noise law under this constructor.
        if not math.isclose(rho, eps * eps / 8.0, rel_tol=1e-6):
            raise RuntimeError(f"OpenDP's noisy max is not the exponential mechanism here (ρ = {rho:g})")
        meta.update(scale=scale, rho=rho, measure="pure ε-DP (exponential mechanism, Gumbel noise)")
    else:
        meas = dp.m.make_noisy_max(*space, dp.max_divergence(), scale=scale, negate=True)
        meta.update(scale=scale, epsilon=max(eps, float(meas.map(sens))),
                    measure="pure ε-DP (MaxDivergence, exponential noise)")
    return int(meas(s.tolist())), meta
