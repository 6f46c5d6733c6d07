"""What the Heatmaps view releases and charges (docs/PRIVACY_MODEL.md §0.6, §0.7, §6, §11): the OpenDP export of
the capped mean map, the DP choice of the cap m, and the ledger entries of both.

Every function that charges the ledger or exports draws from a cryptographic source (OpenDP) and takes
no seed or generator. Every release composes: each export and each DP choice of m is one new ledger
entry, covering exactly the observers whose data it read; nothing replaces an earlier entry.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.dp.accounting import Release, zcdp_rho
from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.registry import Family, Mech, SelectionMethod
from eyedp_core.dp.release import opendp_gaussian_sigma, release_gaussian, release_laplace
from eyedp_core.heatmaps.calibration import HeatmapSensitivity, HeatmapSetting
from eyedp_core.heatmaps.cap import SelectionSpec, noise_std_for_caps, public_candidates, select_cap_private
from eyedp_core.heatmaps.maps import GazeMaps

__all__ = [
    "MAX_EXPORT_CELLS",
    "SECONDS_PER_VALUE",
    "VIEW",
    "CapChoice",
    "HeatmapExport",
    "HeatmapRelease",
    "MapsSource",
    "algorithm1_choice",
    "choose_cap_privately",
    "colour_range",
    "export_scale",
    "is_selection",
    "release_heatmap",
    "release_table",
    "selection_release",
    "stimuli_total",
]

VIEW = "Heatmaps"
MAX_EXPORT_CELLS = 300_000
SECONDS_PER_VALUE = 7e-6  # OpenDP's lattice samplers, measured


@dataclass(frozen=True)
class MapsSource:
    """Which private data a computation read: the fixation table and stimulus (content tokens), the
    stimulus name and the ids of the observers whose maps were used."""

    fixations: str
    stimulus: str
    stimulus_name: str
    observers: tuple[str, ...]

    @classmethod
    def of(cls, maps: GazeMaps, *, fixations: str, stimulus: str, stimulus_name: str) -> "MapsSource":
        """Gaze maps and the tokens and name of the data they were built from in, their MapsSource out."""
        return cls(str(fixations), str(stimulus), str(stimulus_name), tuple(str(o) for o in maps.observers))


@dataclass(frozen=True, kw_only=True)
class CapChoice:
    """How the cap m in use was read off the data: by the DP selection ("dp", its ε already charged to the
    observers of `source`) or by Liu's Algorithm 1 ("algorithm1", not private)."""

    how: str
    m: float
    weight: str
    source: MapsSource
    epsilon: float = 0.0
    method: SelectionMethod | None = None  # how a DP choice was drawn (None for Algorithm 1)
    note: str = ""
    candidates: tuple[float, ...] = ()  # the public list a DP choice selected from

    def is_value(self, weight: str, m: float) -> bool:
        """Map weighting and cap in use in, whether that cap is this choice's output out."""
        return self.weight == weight and self.m == float(m)

    def applies_to(self, source: MapsSource, weight: str, m: float) -> bool:
        """Data, weighting and cap in use in, whether this choice was made on exactly these data (same
        fixations, stimulus and observers) and gave this cap out."""
        return self.source == source and self.is_value(weight, m)

    def selection_epsilon(self, source: MapsSource, weight: str, m: float) -> float:
        """Data, weighting and cap in use in, the ε of a DP choice made on these data out (0 otherwise)."""
        return self.epsilon if self.how == "dp" and self.applies_to(source, weight, m) else 0.0

    def tuned_on_private_data(self, weight: str, m: float) -> bool:
        """Weighting and cap in use in, whether the cap came from Algorithm 1 on private data out.

        Matched on the value only, whatever the stimulus: the cap then reveals some observers' maps."""
        return self.how == "algorithm1" and self.is_value(weight, m)


def choose_cap_privately(maps: GazeMaps, source: MapsSource, *, weight: str, selection: SelectionSpec,
                         setting: HeatmapSetting) -> CapChoice:
    """Gaze maps and their source, the weighting, the selection (public raw bound B, its ε and method) and the
    heatmap's setting (ε, δ, noise, total cap C) in, the ε-DP CapChoice out (drawn by OpenDP; charge
    `selection_release` of it).

    The candidates are the public list for this weighting (never derived from anyone's counts, §0.7)."""
    raw_bound, s = selection.raw_bound, setting
    cands = public_candidates(weight, raw_bound)
    if not cands:
        raise ValueError(f"no public candidate cap is <= the bound B = {raw_bound:g}")
    stds = noise_std_for_caps(maps.n_observers, maps.n_cells, cands, s.epsilon, s.delta, s.mechanism, s.method,
                              s.cap_total)
    sel = select_cap_private(maps, cands, raw_bound, stds, selection.epsilon, selection.method,
                             raw_total_bound=s.cap_total)
    return CapChoice(how="dp", m=sel.m, weight=weight, source=source, epsilon=sel.epsilon, method=sel.method,
                     note=sel.note, candidates=sel.candidates)


def algorithm1_choice(m: float, weight: str, source: MapsSource) -> CapChoice:
    """Algorithm 1's cap, the weighting and the data it read in, the (not private) CapChoice out."""
    return CapChoice(how="algorithm1", m=float(m), weight=weight, source=source)


def _selection_mechanism(method: SelectionMethod) -> str:
    """Selection method in, the ledger's mechanism text of a private choice of m out."""
    return f"{Mech.CAP_SELECTION} ({method})"


def is_selection(entry: Release) -> bool:
    """A ledger entry in, whether it charges a private choice of m made in this view out."""
    return entry.view == VIEW and entry.mechanism in {_selection_mechanism(m) for m in SelectionMethod}


def selection_release(choice: CapChoice) -> Release:
    """A DP CapChoice in, its ledger entry out: ε of the selection, charged to the observers it read."""
    if choice.how != "dp":
        raise ValueError("only a DP choice of m is a charged release; Algorithm 1 is flagged instead")
    return Release(view=VIEW, label=f"DP choice of the cap m = {choice.m:g} on '{choice.source.stimulus_name}' "
                                    f"({choice.method})",
                   unit="observer", mechanism=_selection_mechanism(choice.method),
                   sensitivity_type="public", epsilon=choice.epsilon, participants=choice.source.observers)


def stimuli_total(epsilon: float, delta: float, stimuli: int, selection_epsilon: float = 0.0) -> tuple[float, float]:
    """Per-stimulus (ε, δ), number of stimuli released from the same observers and the ε of a DP choice of
    m in, the per-observer (ε, δ) out (basic sequential composition, §0.6)."""
    return stimuli * epsilon + selection_epsilon, stimuli * delta


@dataclass(frozen=True, kw_only=True)
class HeatmapExport:
    """What an export releases: the clean capped aggregate and everything public about it; the preview's
    calibration fixes the mechanism, (ε, δ) and the Gaussian method."""

    aggregate: np.ndarray
    sensitivity: HeatmapSensitivity
    calibration: Calibration
    source: MapsSource
    cell_px: int
    weight: str
    cap_m: float
    cap_total: float | None
    sigma_px: float
    tuned_on_private_data: bool = False


@dataclass(frozen=True, eq=False)
class HeatmapRelease:
    """An export: released values, metadata, the noise scale, the ε charged and its ledger entry."""

    values: np.ndarray
    metadata: dict[str, Any]
    scale: float
    epsilon_charged: float
    epsilon_opendp: float | None
    label: str
    ledger_entry: Release


def export_scale(export: HeatmapExport) -> float:
    """Export in, its noise scale out: Laplace b, or the smallest Gaussian σ >= the preview's that OpenDP's
    own accounting certifies for the requested (ε, δ) (§11)."""
    cal = export.calibration
    if cal.mechanism is Family.LAPLACE:
        return cal.scale
    return opendp_gaussian_sigma(export.sensitivity.l2, cal.epsilon, cal.delta, cal.scale)


def release_heatmap(export: HeatmapExport, scale: float) -> HeatmapRelease:
    """Export and its noise scale (from `export_scale`) in, the released map with fresh OpenDP noise on the
    cell grid, its metadata and its ledger entry out. No seed: two calls give two independent releases."""
    cal, sens = export.calibration, export.sensitivity
    if scale < cal.scale * (1 - 1e-9):
        raise ValueError(f"the export scale {scale:g} is below the calibrated {cal.scale:g}")
    r = int(np.asarray(export.aggregate).size)
    if r > MAX_EXPORT_CELLS:
        raise ValueError(f"the grid has {r:,} cells; exports are limited to {MAX_EXPORT_CELLS:,} cells")
    gaussian = cal.mechanism is Family.GAUSSIAN
    if gaussian:
        values, meta = release_gaussian(export.aggregate, scale, sensitivity=sens.l2, delta=cal.delta)
    else:
        values, meta = release_laplace(export.aggregate, scale, sensitivity=sens.l1)
    eps_lib = meta.get("epsilon")
    # Charge the larger of the requested ε and OpenDP's own accounting of what it drew.
    eps_charged = max(cal.epsilon, float(eps_lib)) if eps_lib is not None else cal.epsilon
    delta = cal.delta if gaussian else 0.0
    rows, cols = values.shape
    caps = f"m = {export.cap_m:g}" + (f", C = {export.cap_total:.3g}" if export.cap_total else "")
    label = (f"heatmap of '{export.source.stimulus_name}' ({rows}×{cols} cells of {export.cell_px} px, {caps})")
    meta.update(view=VIEW, stimulus=export.source.stimulus_name, unit="observer (whole gaze map on this stimulus)",
                n_observers=len(export.source.observers), cell_px=export.cell_px, grid_shape=[rows, cols],
                cap_m=export.cap_m, cap_total=export.cap_total, weight=export.weight, epsilon_requested=cal.epsilon,
                delta_requested=delta, calibration=str(cal.method), preview_scale=cal.scale, epsilon_charged=eps_charged,
                l1_sensitivity=sens.l1, l2_sensitivity=sens.l2, tuned_on_private_data=export.tuned_on_private_data,
                png_note=f"PNG: smoothed with σ = {export.sigma_px:.1f} px after the release (post-processing)")
    # A Gaussian draw's zCDP ρ from its own σ and L2 sensitivity (exact for what was drawn).
    rho = zcdp_rho(sens.l2, float(scale)) if gaussian else None
    entry = Release(view=VIEW, label=label, unit="observer", mechanism=f"{cal.mechanism} ({cal.method})",
                    sensitivity_type="public", epsilon=eps_charged, delta=delta, participants=export.source.observers,
                    tuned_on_private_data=export.tuned_on_private_data, rho=rho)
    return HeatmapRelease(values, meta, float(scale), eps_charged, None if eps_lib is None else float(eps_lib),
                          label, entry)


def release_table(values: np.ndarray, cell_px: int) -> pd.DataFrame:
    """Released map on the cell grid and the cell size in, one row per cell (row, col, x0_px, y0_px, value) out."""
    rows, cols = values.shape
    rr, cc = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    return pd.DataFrame({"row": rr.ravel(), "col": cc.ravel(), "x0_px": cc.ravel() * cell_px,
                         "y0_px": rr.ravel() * cell_px, "value": np.asarray(values).ravel()})


def colour_range(released_smooth: np.ndarray) -> float:
    """Smoothed released map in, the top of its colour scale out: from the released map itself, since the
    clean map's maximum is private (a robust 99.9 % quantile, 1 when the map is empty)."""
    top = float(np.quantile(np.clip(released_smooth, 0, None), 0.999))
    return top if top > 0 and math.isfinite(top) else 1.0
