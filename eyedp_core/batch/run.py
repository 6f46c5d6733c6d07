"""One batch heatmap release on a chosen engine: the released map and its manifest (guarantee, neighbouring
relation, bounds, calibration with its numbers, engine and version)."""
from __future__ import annotations

import hashlib
import importlib.metadata
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from eyedp_core.batch.numpy_engine import DEFAULT_PARTITIONS, CleanAggregate, clean_aggregate
from eyedp_core.batch.pdp_engine import engine_noise_std, release_pipelinedp
from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.batch.sources import CHUNK_ROWS, RowFate, RowReport
from eyedp_core.dp.registry import GaussianMethod
from eyedp_core.heatmaps.calibration import calibrate_heatmap, heatmap_sensitivity
from eyedp_core.heatmaps.preview import gaussian_method
from eyedp_core.heatmaps.release import HeatmapExport, MapsSource, export_scale, release_heatmap

__all__ = ["RunOptions", "BatchRelease", "NEIGHBOURS", "ROW_RULES", "check_noise", "reference_calibration", "release_batch"]

NEIGHBOURS = ("replace one observer's whole gaze map on this stimulus (all of their fixations in every shard); "
              "the number of observers n and the canvas are public")


# What the reader does with each kind of row: public rules, stated in the manifest. The counts are not: they
# describe the private input, so they go to the run report only (eyedp_core.batch.sources.RowReport).
ROW_RULES = {f.name.lower(): f.value for f in RowFate if f is not RowFate.USED}


@dataclass(frozen=True, eq=False)
class BatchRelease:
    """Released mean map on the cell grid, its manifest and the run report of the rows read (private)."""

    values: np.ndarray
    manifest: dict[str, Any]
    report: RowReport | None = None


def _eyedp_version() -> str:
    try:
        return importlib.metadata.version("eyedp")
    except importlib.metadata.PackageNotFoundError:
        return "source tree"


def _token(files: list[str]) -> str:
    return hashlib.sha256("\n".join(files).encode()).hexdigest()[:16]


def reference_calibration(settings: HeatmapSettings, n: int, engine: Engine):
    """Settings, n and engine in, (HeatmapSensitivity, Calibration) of EyeDP's formulas for that engine's bounding out.

    numpy: the app's caps (per cell m, total C by scaling down). PipelineDP: k = ⌊C/m⌋ cells of at most m, whose
    replace-one sensitivities are those of a total cap k·m (min(m√r, m√(2k))/n in L2)."""
    s = settings
    cap_total = s.cap_total if engine is Engine.NUMPY else (
        None if s.cap_total is None else float(s.cells_per_observer * s.cap_m))
    sens = heatmap_sensitivity(s.n_cells, n, s.cap_m, cap_total)
    method = gaussian_method(s.method, s.epsilon) if engine is Engine.NUMPY else GaussianMethod.ANALYTIC
    return sens, calibrate_heatmap(sens, s.epsilon, s.delta, s.mechanism, method)


def _numpy_scale_check(s: HeatmapSettings) -> None:
    """Run the numpy engine's noise path (OpenDP's scale and draw) on an all-zero map with n = 1: a setting OpenDP
    cannot certify, or whose scale falls below the calibrated one, is a ValueError before any data is read."""
    from opendp.mod import OpenDPException

    sens, cal = reference_calibration(s, 1, Engine.NUMPY)
    source = MapsSource(fixations="preflight", stimulus=s.stimulus, stimulus_name=s.stimulus, observers=("",))
    export = HeatmapExport(aggregate=np.zeros(s.grid_shape), sensitivity=sens, calibration=cal, source=source,
                           cell_px=s.cell_px, weight=s.weight, cap_m=s.cap_m, cap_total=s.cap_total,
                           sigma_px=s.sigma_px)
    try:
        release_heatmap(export, export_scale(export))
    except (OpenDPException, OverflowError) as err:
        first = str(err).strip().splitlines()[-1][:200]
        raise ValueError(f"the numpy engine cannot release with ε = {s.epsilon:g}"
                         + (f", δ = {s.delta:g}" if s.gaussian else "") + f": OpenDP cannot certify its noise "
                         f"({first}). Choose a smaller ε.") from None


def check_noise(settings: HeatmapSettings, engine: Engine) -> None:
    """Settings and engine in, None when the engine's noise scale for them is at least the calibrated one (the
    manifest's guarantee holds); otherwise a ValueError saying why, raised before any data is read."""
    s = settings
    try:
        _, cal = reference_calibration(s, 1, engine)
    except (ValueError, ArithmeticError) as err:  # the root finders of the calibration at extreme ε
        law = f"(ε, δ) = ({s.epsilon:g}, {s.delta:g})" if s.gaussian else f"ε = {s.epsilon:g}"
        raise ValueError(f"no noise scale can be calibrated for {law} ({err}); choose an ε nearer 1") from None
    if engine is Engine.NUMPY:
        _numpy_scale_check(s)
        return
    try:
        std = engine_noise_std(s)
    except Exception as err:  # noqa: BLE001  (python-dp raises several kinds for settings it cannot calibrate)
        raise ValueError(f"PipelineDP cannot calibrate noise for ε = {s.epsilon:g} ({err})") from None
    _refuse_below(std, cal.std, s, engine)


def _refuse_below(std: float, calibrated: float, s: HeatmapSettings, engine: Engine) -> None:
    """The engine's noise std and the calibrated one in, a ValueError when the engine's is lower (beyond rounding)."""
    if math.isfinite(std) and std >= calibrated * (1 - 1e-9):
        return
    law = f"(ε, δ) = ({s.epsilon:g}, {s.delta:g})" if s.gaussian else f"ε = {s.epsilon:g}"
    raise ValueError(f"the {engine.value} engine's noise for {law} has std {std:.3g}, below the {calibrated:.3g} "
                     f"that {law}-DP needs with these caps: the release would not be private, so nothing is "
                     "released. Choose a smaller ε"
                     + (" (PipelineDP's Gaussian loses its noise at ε of several hundred) or the numpy engine."
                        if s.gaussian and engine is not Engine.NUMPY else "."))


def _guarantee(s: HeatmapSettings) -> dict[str, Any]:
    d = s.delta if s.gaussian else 0.0
    kind = f"(ε, δ) = ({s.epsilon:g}, {d:g})-DP" if s.gaussian else f"pure ε = {s.epsilon:g}-DP"
    return {"statement": f"{kind} for each observer, for this stimulus' heatmap", "epsilon": s.epsilon, "delta": d,
            "unit": "observer", "neighbouring_relation": NEIGHBOURS,
            "composition": "heatmaps of several stimuli from the same observers add their ε and δ"}


@dataclass(frozen=True)
class RunOptions:
    """How a batch run reads and where it runs: the engine, Spark's master, the observer partitions, rows per
    chunk and the scratch folder (None: the system's)."""

    engine: Engine = Engine.NUMPY
    master: str = "local[*]"
    partitions: int = DEFAULT_PARTITIONS
    chunk_rows: int = CHUNK_ROWS
    tmp_dir: str | None = None


def _base_manifest(files: list[str], s: HeatmapSettings) -> dict[str, Any]:
    """Shards and settings -> the manifest entries every engine shares (version, settings, guarantee, grid)."""
    return {"eyedp_version": _eyedp_version(), "settings": s.to_dict(), "guarantee": _guarantee(s),
            "input": {"files": len(files), "token": _token(files)},
            "grid": {"rows": s.grid_shape[0], "cols": s.grid_shape[1], "cells": s.n_cells, "cell_px": s.cell_px,
                     "canvas_px": [s.width, s.height]},
            "input_rows": {"rules": ROW_RULES, "counts": "in the run report (stdout of the command line), not here: "
                           "they describe the private input and are not differentially private"}}


def _release_numpy(files: list[str], s: HeatmapSettings, base: dict[str, Any], run: RunOptions,
                   clean: CleanAggregate | None, report: RowReport) -> BatchRelease:
    """Shards (or their clean map) -> the numpy engine's BatchRelease, noise by OpenDP."""
    engine = Engine.NUMPY
    if clean is None:
        clean = clean_aggregate(files, s, partitions=run.partitions, chunk_rows=run.chunk_rows, tmp_dir=run.tmp_dir,
                                report=report)
    sens, cal = reference_calibration(s, clean.n_observers, engine)
    source = MapsSource(fixations=_token(files), stimulus=s.stimulus, stimulus_name=s.stimulus,
                        observers=clean.observers)
    export = HeatmapExport(aggregate=clean.aggregate, sensitivity=sens, calibration=cal, source=source,
                           cell_px=s.cell_px, weight=s.weight, cap_m=s.cap_m, cap_total=s.cap_total,
                           sigma_px=s.sigma_px)
    scale = export_scale(export)
    rel = release_heatmap(export, scale)
    std = scale if s.gaussian else scale * np.sqrt(2.0)
    meta = {k: v for k, v in rel.metadata.items() if k not in ("shape",)}
    manifest = {**base, "engine": {"name": engine.value, "noise": "OpenDP (eyedp_core.dp.release)",
                                   "versions": {"opendp": meta.get("opendp_version")}, "partitions": run.partitions},
                "n_observers": clean.n_observers,
                "bounds": {"cap_m": s.cap_m, "cap_total": s.cap_total,
                           "how": "per cell min(G_ij, m); a map with total > C is scaled down to total C"},
                "calibration": {"mechanism": str(cal.mechanism), "method": str(cal.method), "l1_sensitivity": sens.l1,
                                "l2_sensitivity": sens.l2, "l1_formula": sens.l1_plugged,
                                "l2_formula": sens.l2_plugged, "calibrated_scale": cal.scale,
                                "scale": scale, "noise_std": float(std), "epsilon_charged": rel.epsilon_charged,
                                "epsilon_opendp": rel.epsilon_opendp},
                "release": meta}
    return BatchRelease(rel.values, manifest, report)


def _release_pdp(files: list[str], s: HeatmapSettings, engine: Engine, base: dict[str, Any], run: RunOptions,
                 report: RowReport) -> BatchRelease:
    """Shards -> a PipelineDP engine's BatchRelease; ValueError when its noise falls below the calibrated one."""
    pdp = release_pipelinedp(files, s, engine, master=run.master, chunk_rows=run.chunk_rows, tmp_dir=run.tmp_dir,
                             report=report)
    sens, cal = reference_calibration(s, pdp.n_observers, engine)
    _refuse_below(pdp.std, cal.std, s, engine)
    b = pdp.bounds
    manifest = {**base, "engine": {"name": engine.value, "noise": "PipelineDP (Google's differential-privacy "
                                   "library through python-dp)", "versions": pdp.versions,
                                   **({"master": run.master} if engine is Engine.SPARK else {}),
                                   "parameter_tuning": "not used"},
                "n_observers": pdp.n_observers,
                "bounds": {"cap_m": s.cap_m, "cap_total": s.cap_total, "max_contributions_per_partition": b.m,
                           "max_partitions_contributed": b.k, "public_partitions": s.n_cells,
                           "declared_value_bound": b.v,
                           "how": "PipelineDP keeps at most m fixations per observer and cell and k = ⌊C/m⌋ random "
                                  "cells per observer; each fixation has value 1 with declared bound [0, v], v ≥ 1, "
                                  "so that PipelineDP's add/remove calibration covers replace-one"},
                "calibration": {"mechanism": str(cal.mechanism),
                                "method": "analytic (python-dp)" if s.gaussian else "b = Δ₁/ε (python-dp)",
                                "l1_sensitivity": b.l1 / pdp.n_observers, "l2_sensitivity": b.l2 / pdp.n_observers,
                                "l1_formula": f"m·min(r, 2k)/n = {b.m}·min({s.n_cells}, {2 * b.k})/{pdp.n_observers}",
                                "l2_formula": f"m·√min(r, 2k)/n = {b.m}·√min({s.n_cells}, {2 * b.k})/{pdp.n_observers}",
                                "eyedp_scale": cal.scale, "eyedp_noise_std": cal.std, "noise_std": pdp.std,
                                "scale": pdp.std if s.gaussian else pdp.std / np.sqrt(2.0),
                                "epsilon_charged": s.epsilon}}
    return BatchRelease(pdp.values, manifest, report)


def release_batch(files: list[str], settings: HeatmapSettings, run: RunOptions = RunOptions(), *,
                  clean: CleanAggregate | None = None) -> BatchRelease:
    """Shards, settings and how to run in, the BatchRelease out (noise: OpenDP for numpy, PipelineDP otherwise).
    `clean`: the numpy engine's clean map of these shards and settings when already streamed (a plan streams
    every stimulus in one pass), so the shards are not read again.

    ValueError before any data is read when the engine's noise for the settings would fall below the calibrated
    one; the run report counts every row read."""
    check_noise(settings, run.engine)
    report = RowReport()
    base = _base_manifest(files, settings)
    if run.engine is Engine.NUMPY:
        return _release_numpy(files, settings, base, run, clean, report)
    return _release_pdp(files, settings, run.engine, base, run, report)
