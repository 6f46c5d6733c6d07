"""Release mode for the time-series view: the chosen mechanism over every released feature and recording,
its noise from OpenDP (ReleaseSource), written back as a feature table the readers accept."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.dp.registry import Mech
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.exports.manifest import manifest
from eyedp_core.timeseries.mechanisms import run

__all__ = ["FeatureRelease", "release_feature_table"]


@dataclass(frozen=True)
class FeatureRelease:
    """A released feature table (participant, [task], window, features) and its manifest."""

    table: pd.DataFrame
    manifest: dict[str, Any]


def release_feature_table(x: np.ndarray, recs: pd.DataFrame, names: tuple[str, ...], lo: np.ndarray,
                          hi: np.ndarray, *, mech: Mech, chunk: int | None, k: int, epsilon: float,
                          participant_epsilon: float, invocations: int) -> FeatureRelease:
    """Series (recordings, F, T) with their rows (participant, [task], length), public bounds, mechanism and
    per-invocation ε in, the released table out (each recording cut to its own length; noise from OpenDP).

    Only public sensitivities (from the bounds) are released: a data-derived sensitivity is not DP."""
    if mech in (Mech.STEIL, Mech.STEIL_PUBLISHED):
        raise ValueError("export the FFT mechanisms (LPA, FPA, CFPA, DCFPA); Steil's sampler is shown, not released")
    t0 = time.perf_counter()
    src = ReleaseSource()
    lo_a, hi_a = np.asarray(lo, float), np.asarray(hi, float)
    private = run(x, mech, epsilon=epsilon, rng=src, bounds=(lo_a, hi_a), k=k, chunk=chunk)
    # Clamping to the public bounds is post-processing and keeps the table inside what the readers expect.
    out = np.clip(private.values, lo_a[None, :, None], hi_a[None, :, None])
    t_pub = x.shape[-1]
    # Each recording up to its own length, at most the public T (longer ones were cut, shorter ones padded).
    lengths = np.minimum(recs["length"].to_numpy(int), t_pub) if "length" in recs.columns else np.full(len(recs), t_pub)
    rows = np.repeat(np.arange(len(recs)), lengths)
    window = np.concatenate([np.arange(n) for n in lengths]) if len(lengths) else np.zeros(0, int)
    values = out[rows, :, window]  # (sum of lengths, F)
    table = pd.DataFrame({"participant": recs["participant"].astype(str).to_numpy()[rows]})
    if "task" in recs.columns:
        table["task"] = recs["task"].astype(str).to_numpy()[rows]
    table["window"] = window
    table = pd.concat([table, pd.DataFrame(values, columns=list(names))], axis=1)
    label = mech.label(chunk)
    man = manifest(
        artefact="feature table (CSV)", mechanism=label, unit="participant",
        guarantee=(f"ε = {participant_epsilon:.6g} per participant (basic composition of {invocations} invocations "
                   f"of ε = {epsilon:.6g})"),
        epsilon=float(participant_epsilon), delta=0.0,
        parameters={"features": list(names), "public_length_T": int(x.shape[-1]), "chunk": chunk, "k": int(k),
                    "epsilon_per_invocation": float(epsilon), "bounds": {n: [float(a), float(b)]
                                                                         for n, a, b in zip(names, lo_a, hi_a)},
                    "recordings": int(len(recs))},
        values_drawn=src.values_drawn, seconds=time.perf_counter() - t0,
        files={"csv": "participant, [task], window, one column per released feature"},
        caveats=["Noise is drawn from OpenDP's discrete Laplace on a 2^k lattice (k 40 bits below the scale) and "
                 "added to the Fourier coefficients in floating point (docs/PRIVACY_MODEL.md §11)."],
        construction="OpenDP discrete Laplace per Re/Im part of each kept Fourier coefficient")
    return FeatureRelease(table, man)
