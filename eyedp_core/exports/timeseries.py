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
from eyedp_core.exports.manifest import ManifestSpec, manifest
from eyedp_core.timeseries.mechanisms import run
from eyedp_core.timeseries.private import PrivateSeries
from eyedp_core.timeseries.setting import MechanismSetting

__all__ = ["PARTICIPANT_NEIGHBOURS", "FeatureRelease", "calibration_table", "release_feature_table"]


@dataclass(frozen=True)
class FeatureRelease:
    """A released feature table (participant, [task], window, features) and its manifest."""

    table: pd.DataFrame
    manifest: dict[str, Any]


PARTICIPANT_NEIGHBOURS = ("participant level (replace one): one participant's every feature, chunk and recording "
                         "replaced by any series within the public bounds; the number of participants, the "
                         "recordings' keys and the length T are public")


def calibration_table(private: PrivateSeries, names: tuple[str, ...]) -> list[dict[str, Any]]:
    """A release's PrivateSeries (recordings, F, …) and the feature names in, one row per feature and
    calibration group out: the formula's numbers (§1–§4) and the lattice calibration the noise was drawn at."""
    if private.lattice is None:
        raise ValueError("the calibration table describes a release (a PrivateSeries drawn by a ReleaseSource)")
    rows = []
    inv = np.asarray(private.invocations)
    for f, name in enumerate(names):
        ids, counts = np.unique(inv[:, f], return_counts=True)
        for i, count in zip(ids.tolist(), counts.tolist(), strict=True):
            group, lat = private.groups[i], private.lattice[i]
            cal = group.calibration
            rows.append({"feature": name, "transform_length": int(group.length), "k": group.k,
                         "invocations": int(count), "epsilon_per_invocation": cal.epsilon,
                         "series_sensitivity": cal.sensitivity,
                         "series_sensitivity_metric": "l1" if group.k is None else "l2",
                         "formula": cal.formula_tex, **lat.as_dict()})
    return rows


def _rows_table(out: np.ndarray, recs: pd.DataFrame, names: tuple[str, ...]) -> pd.DataFrame:
    """Released series (recordings, F, T) and their rows -> participant, the recording's key columns ([task,
    session, recording, stimulus, trial]), window, one column per feature."""
    n_recs, t_pub = len(recs), int(out.shape[-1])
    # T rows for every recording: the output's shape is fixed by public numbers only.
    rows = np.repeat(np.arange(n_recs), t_pub)
    window = np.tile(np.arange(t_pub), n_recs)
    values = out[rows, :, window]  # (recordings·T, F)
    table = pd.DataFrame({"participant": recs["participant"].astype(str).to_numpy()[rows]})
    # Every column that tells a participant's recordings apart (task, session, recording, stimulus, trial): without
    # them the several recordings of one person in a table with no task column would share their rows' keys.
    for key in (c for c in recs.columns if c not in ("participant", "length")):
        table[key] = recs[key].astype(str).to_numpy()[rows]
    table["window"] = window
    return pd.concat([table, pd.DataFrame(values, columns=list(names))], axis=1)


def release_feature_table(x: np.ndarray, recs: pd.DataFrame, names: tuple[str, ...], lo: np.ndarray,
                          hi: np.ndarray, *, setting: MechanismSetting, participant_epsilon: float,
                          invocations: int) -> FeatureRelease:
    """Series (recordings, F, T) at the public length T with their rows (participant, [task]), public bounds,
    the mechanism setting (mechanism, chunk, k, per-invocation ε) and the per-person total over its invocations
    in, the released table out: exactly T rows per recording, whatever its true length (each series was cut or
    padded to T before the mechanism; the length itself is not released).

    Only public sensitivities (from the bounds) are released: a data-derived sensitivity is not DP. Every noised
    value is rounded to its lattice before OpenDP's noise (docs/PRIVACY_MODEL.md §11.2)."""
    mech, chunk, k, epsilon = setting.mech, setting.chunk, setting.k, setting.epsilon
    if mech in (Mech.STEIL, Mech.STEIL_PUBLISHED):
        raise ValueError("export the FFT mechanisms (LPA, FPA, CFPA, DCFPA); Steil's sampler is shown, not released")
    if setting.sensitivity_type != "public":
        raise ValueError("only public sensitivities (from the bounds) are released: a data-derived one is not DP")
    t0 = time.perf_counter()
    src = ReleaseSource()
    lo_a, hi_a = np.asarray(lo, float), np.asarray(hi, float)
    private = run(x, setting, rng=src, bounds=(lo_a, hi_a))
    # Clamping to the public bounds is post-processing and keeps the table inside what the readers expect.
    out = np.clip(private.values, lo_a[None, :, None], hi_a[None, :, None])
    t_pub = int(x.shape[-1])
    n_recs = len(recs)
    table = _rows_table(out, recs, names)
    label = mech.label(chunk)
    cal_rows = calibration_table(private, names)
    steps = sorted({r["lattice_step"] for r in cal_rows})
    man = manifest(ManifestSpec(
        artefact="feature table (CSV)", mechanism=label, unit="participant",
        guarantee=(f"ε = {participant_epsilon:.6g} per participant (basic composition of {invocations} invocations "
                   f"of ε = {epsilon:.6g})"),
        epsilon=float(participant_epsilon), delta=0.0,
        neighbouring=PARTICIPANT_NEIGHBOURS, epsilon_per_person=float(participant_epsilon),
        calibration=cal_rows,
        parameters={"features": list(names), "public_length_T": t_pub, "rows_per_recording": t_pub,
                    "chunk": chunk, "k": int(k), "epsilon_per_invocation": float(epsilon),
                    "bounds": {n: [float(a), float(b)] for n, a, b in zip(names, lo_a, hi_a)},
                    "recordings": int(n_recs)},
        values_drawn=src.values_drawn, seconds=time.perf_counter() - t0,
        files={"csv": f"participant, the recording's key ([task, session, recording, stimulus, trial]), window (0 … "
                      f"{t_pub - 1}), one column per released feature; exactly "
                      f"T = {t_pub} rows per recording"},
        caveats=[f"Every recording has exactly T = {t_pub} rows: longer recordings were cut to T and shorter ones "
                 "padded (with their last value) before the mechanism, so the rows past a recording's end are noise "
                 "around the padding; the true lengths are not released.",
                 "Each released value (" + ("each clamped sample" if mech is Mech.LPA else
                                            "Re and Im of each kept Fourier coefficient") +
                 ") was rounded to the lattice 2^k before OpenDP's discrete Laplace noise was added, so it is a "
                 "lattice point; the scale is calibrated to the sensitivity inflated by the rounding (m·2^k) and, "
                 "for the Fourier mechanisms, by the transform's floating-point error (relative ρ >= 1e-9) "
                 "(docs/PRIVACY_MODEL.md §11.2). Lattice steps used: " + ", ".join(f"{g:.6g}" for g in steps) + ".",
                 "The table is the inverse transform of the released values (post-processing), clamped to the "
                 "public bounds."],
        construction=("OpenDP make_laplace applied to each clamped sample (rounded to the lattice, then noised)"
                      if mech is Mech.LPA else
                      "OpenDP make_laplace applied to Re and Im of each kept Fourier coefficient (rounded to the "
                      "lattice, then noised)")))
    return FeatureRelease(table, man)
