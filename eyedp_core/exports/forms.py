"""Release mode for a time-series release form (docs/PRIVACY_MODEL.md §14): the form's clean values in range
units, rounded to OpenDP's lattice and noised there by one Laplace measurement calibrated to the form's Δ1
(ReleaseSource), written back in feature units as a table with its manifest and its ledger entry."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.dp.accounting import Release
from eyedp_core.dp.lattice import FLOAT_INFLATION, LatticeCalibration, Metric, lattice_calibration
from eyedp_core.dp.registry import Family
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.exports.manifest import ManifestSpec, manifest
from eyedp_core.exports.timeseries import PARTICIPANT_NEIGHBOURS
from eyedp_core.timeseries.forms import Form, FormCalibration, FormSetting, calibrate, form_values, max_recordings

__all__ = ["FORM_VIEW", "FormSeries", "FormTableRelease", "form_entry", "form_lattice", "release_form_table"]

FORM_VIEW = "Time series"


@dataclass(frozen=True, eq=False)
class FormSeries:
    """What a form is released from: the released features, their public bounds, the series (recordings, F, T)
    at the public length T and the recordings table (participant[, task, session, …], length)."""

    names: tuple[str, ...]
    lo: np.ndarray
    hi: np.ndarray
    x: np.ndarray
    recs: pd.DataFrame

    @property
    def participants(self) -> tuple[str, ...]:
        """The participants of the table (sorted, as text)."""
        return tuple(sorted(self.recs["participant"].astype(str).unique()))


@dataclass(frozen=True)
class FormTableRelease:
    """A released form: the table (units × coarse windows, one column per feature), its manifest, the noise scale
    per feature in feature units (R_f · b' with the lattice-inflated b') and the clean values (private: tests)."""

    table: pd.DataFrame
    manifest: dict[str, Any]
    feature_scale: np.ndarray
    noisy: np.ndarray
    clean: np.ndarray


def form_lattice(cal: FormCalibration, values: int) -> LatticeCalibration:
    """A form's calibration and the number of values released in, the lattice the release noises on: Δ1 in range
    units, inflated by the rounding to the lattice and by FLOAT_INFLATION for the float error of the means and of
    the division by the range computed before the rounding (docs/PRIVACY_MODEL.md §11.2)."""
    return lattice_calibration(metric=Metric.L1, epsilon=cal.setting.epsilon, base_scale=cal.scale,
                               sensitivity=cal.l1_sensitivity, values=values, float_inflation=FLOAT_INFLATION)


def _table(units: pd.DataFrame, values: np.ndarray, names: tuple[str, ...]) -> pd.DataFrame:
    """Units (recordings or groups), values (units, F, blocks) -> one row per unit and coarse window."""
    n_units, _, blocks = values.shape
    rows = np.repeat(np.arange(n_units), blocks)
    block = np.tile(np.arange(blocks), n_units)
    # A recording's true length is private (only the public T is released): its column is never written.
    keys = units.drop(columns=["length"], errors="ignore").reset_index(drop=True)
    table = pd.DataFrame({c: keys[c].astype(str).to_numpy()[rows] if c != "participants" else
                          keys[c].to_numpy()[rows] for c in keys.columns})
    table["block"] = block
    return pd.concat([table, pd.DataFrame(values[rows, :, block], columns=list(names))], axis=1)


def release_form_table(setting: FormSetting, series: FormSeries) -> FormTableRelease:
    """A form setting (its ε is the total per participant) and the series in, the released table out: every value
    a mean of clamped series, divided by its feature's range, rounded to the lattice and noised by OpenDP's
    Laplace at b' = Δ1'/ε (one measurement: ε-DP per participant for the whole table), then mapped back to
    feature units (post-processing; not clamped, so means of released values stay unbiased). ValueError when the
    setting counts fewer recordings per person than the table holds."""
    t0 = time.perf_counter()
    lo, hi = np.asarray(series.lo, float), np.asarray(series.hi, float)
    units, clean, sizes = form_values(setting, series.x, lo, hi, series.recs)
    cal = calibrate(setting, lo, hi, sizes)
    span = hi - lo
    unit_values = (clean - lo[None, :, None]) / span[None, :, None]
    lat = form_lattice(cal, unit_values.size)
    src = ReleaseSource()
    noisy = lo[None, :, None] + span[None, :, None] * src.perturb(Family.LAPLACE, unit_values, lat.scale, lat.k)
    table = _table(units, noisy, series.names)
    counted = max_recordings(series.recs)
    unit_words = "recording" if setting.form is Form.RECORDING else "task group"
    man = manifest(ManifestSpec(
        artefact=f"time-series release form: {setting.words()} (CSV)", mechanism="Laplace (release form)",
        unit="participant",
        guarantee=(f"ε = {setting.epsilon:.6g} per participant for the whole table (one Laplace measurement of "
                   f"L1 sensitivity Δ1 = {cal.l1_sensitivity:.6g} ranges)"),
        epsilon=float(setting.epsilon), delta=0.0, neighbouring=PARTICIPANT_NEIGHBOURS,
        epsilon_per_person=float(setting.epsilon),
        calibration={"l1_sensitivity_ranges": cal.l1_sensitivity, "scale_ranges": cal.scale,
                     "feature_scale": {n: float(v) for n, v in zip(series.names, span * lat.scale)},
                     "formula": cal.formula, "group_sizes": list(cal.group_sizes),
                     "recordings_per_person": setting.recordings_per_person,
                     "recordings_per_person_counted": counted, **lat.as_dict()},
        parameters={"form": setting.form.value, "blocks": setting.blocks, "by_task": setting.by_task,
                    "features": list(series.names), "public_length_T": int(series.x.shape[-1]),
                    "bounds": {n: [float(a), float(b)] for n, a, b in zip(series.names, lo, hi)},
                    "units": int(len(units))},
        values_drawn=src.values_drawn, seconds=time.perf_counter() - t0,
        files={"csv": f"one row per {unit_words} and coarse window (block 0 … {setting.blocks - 1}), one column per "
                      "released feature (its mean over the window)"},
        caveats=["Each value is a mean of the series clamped to the public bounds and cut or padded (with its last "
                 f"value) to the public T = {int(series.x.shape[-1])} windows; true lengths are not released.",
                 "Values are divided by their feature's range, rounded to the lattice 2^k and noised by OpenDP's "
                 "discrete Laplace at the scale calibrated to Δ1 inflated by that rounding (docs/PRIVACY_MODEL.md "
                 "§11.2), then mapped back to feature units; they are not clamped, so a released mean may lie "
                 "outside the bounds.",
                 f"A participant counts at most {setting.recordings_per_person} recording(s) (the table has "
                 f"{counted} for the participant with the most, counted by gaze.contributions)."],
        construction="OpenDP make_laplace applied to each form value in range units (rounded to the lattice, then "
                     "noised)"))
    return FormTableRelease(table, man, span * lat.scale, noisy, clean)


def form_entry(setting: FormSetting, participants: tuple[str, ...], label: str,
               data_derived: tuple[str, ...] = ()) -> Release:
    """A form setting, the table's participants and a label in, the ledger entry of its release (ε per
    participant, one invocation)."""
    return Release(view=FORM_VIEW, label=label, unit="participant", mechanism="Laplace (release form)",
                   sensitivity_type="public", epsilon=float(setting.epsilon), participants=participants,
                   data_derived_parameters=data_derived)
