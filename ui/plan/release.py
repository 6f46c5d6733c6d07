"""One release of the whole plan: every output drawn through the batch bundle writer (OpenDP noise on the app's
table, held in memory), the study's ledger charged in ONE call (all outputs or none), one zip to download.

The bundle is `eyedp_core.batch.plan_run.release_plan`'s, so the app's files, names and manifest are the batch
command's; the app adds the settings file and the review-board report, and lists them in the manifest too."""
from __future__ import annotations

import hashlib
import io
import json
import math
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd

from eyedp_core.aoi.observers import ObserverTable, observer_table
from eyedp_core.aoi.release import ledger_releases
from eyedp_core.batch.numpy_engine import CleanAggregate
from eyedp_core.batch.plan_run import InMemorySources, PlanBundle, release_plan
from eyedp_core.dp.accounting import Release
from eyedp_core.exports.plan_parts import PartInputs, gaze_entry, series_entry
from eyedp_core.heatmaps import maps, preview
from eyedp_core.heatmaps.release import VIEW as HEATMAP_VIEW
from eyedp_core.plan.accounting import release_rho
from eyedp_core.plan.allocate import Allocation
from eyedp_core.plan.schema import AoiOutput, GazeSamplesOutput, HeatmapOutput, SeriesFormOutput, StudyPlan

__all__ = ["PlannedCharge", "bundle_zip", "draw_bundle", "first_over_cap", "not_releasable", "planned_charges",
           "released_in_app"]


@dataclass(frozen=True)
class PlannedCharge:
    """One output's ledger entries (an AOI output has one per noisy sum)."""

    label: str
    entries: tuple[Release, ...]


def released_in_app(output: object, parts: PartInputs | None = None) -> bool:
    """Whether the in-app release draws this output (heatmaps, AOI outputs that carry their outlines, and series
    forms and gaze samples with their session table in `parts`)."""
    if isinstance(output, (SeriesFormOutput, GazeSamplesOutput)):
        return parts is not None and (output.label in parts.series or output.label in parts.gaze)
    return isinstance(output, HeatmapOutput) or (isinstance(output, AoiOutput) and bool(output.shapes))


def not_releasable(plan: StudyPlan, parts: PartInputs) -> list[tuple[str, str]]:
    """-> (label, why) of each series form or gaze-samples output the session's tables cannot release (the plan
    is then refused whole: nothing drawn, nothing charged)."""
    return [(o.label, parts.missing.get(o.label, "no input")) for o in plan.outputs
            if isinstance(o, (SeriesFormOutput, GazeSamplesOutput)) and not released_in_app(o, parts)]


def _stimulus_rows(frame: pd.DataFrame, table_name: str, o: HeatmapOutput | AoiOutput) -> pd.DataFrame:
    width = getattr(o, "width", None) or 10 ** 6
    height = getattr(o, "height", None) or 10 ** 6
    if o.stimulus is None:
        return frame
    sub, _ = preview.fixations_for_stimulus(frame, table_name, o.stimulus, width, height)
    return sub


def _clean(frame: pd.DataFrame, table_name: str, o: HeatmapOutput) -> CleanAggregate:
    """The capped mean map of one heatmap output and its roster, as the batch numpy engine streams them."""
    sub = _stimulus_rows(frame, table_name, o)
    gm = maps.gaze_maps(sub, o.width, o.height, o.cell_px, "count", observer_col="observer")
    return CleanAggregate(maps.aggregate(gm, o.cap_m, o.cap_total), tuple(str(x) for x in gm.observers))


def _aoi_table(frame: pd.DataFrame, table_name: str, o: AoiOutput) -> ObserverTable:
    sub = _stimulus_rows(frame, table_name, o).copy()
    sub["observer"] = sub["observer"].astype(str)
    return observer_table(sub, o.shapes, o.bounds, file=table_name)


def sources(frame: pd.DataFrame, table_name: str, plan: StudyPlan) -> InMemorySources:
    """An expanded plan and the app's fixation table in, the writer's inputs out (in memory, never on disk)."""
    heat = {o.label: _clean(frame, table_name, o) for o in plan.outputs if isinstance(o, HeatmapOutput)}
    aoi = {o.label: _aoi_table(frame, table_name, o) for o in plan.outputs
           if isinstance(o, AoiOutput) and o.shapes}
    return InMemorySources(heat, aoi)


def planned_charges(alloc: Allocation, frame: pd.DataFrame, table_name: str,
                    data_derived: tuple[str, ...] = (), parts: PartInputs | None = None) -> list[PlannedCharge]:
    """The allocation in, per output released in the app its ledger entries at its allotted ε (unit: observer;
    the observers of its stimulus covered; a series form's participants, a gaze-samples output's w-event windows
    of the person charged most, from `parts`)."""
    out = []
    study = alloc.plan.study
    for r in alloc.outputs:
        o = r.output
        if isinstance(o, HeatmapOutput):
            obs = tuple(str(x) for x in pd.unique(_stimulus_rows(frame, table_name, o)["observer"]))
            gaussian = o.gaussian
            entry = Release(view=HEATMAP_VIEW, label=f"heatmap of '{o.stimulus}' (plan '{study}')", unit="observer",
                            mechanism=f"{o.mechanism} ({preview.gaussian_method(o.method, r.epsilon)})" if gaussian
                            else f"{o.mechanism}", sensitivity_type="public", epsilon=r.epsilon,
                            delta=o.delta if gaussian else 0.0, participants=obs,
                            data_derived_parameters=data_derived, rho=release_rho(o, r.epsilon) if gaussian else None)
            out.append(PlannedCharge(r.label, (entry,)))
        elif isinstance(o, AoiOutput) and o.shapes:
            table = _aoi_table(frame, table_name, o)
            out.append(PlannedCharge(r.label, tuple(ledger_releases(table, o.metrics, r.epsilon, o.stimulus or "",
                                                                    data_derived=data_derived))))
        elif isinstance(o, SeriesFormOutput) and parts is not None and o.label in parts.series:
            out.append(PlannedCharge(r.label, (series_entry(o, r.epsilon, parts.series[o.label], study),)))
        elif isinstance(o, GazeSamplesOutput) and parts is not None and o.label in parts.gaze:
            out.append(PlannedCharge(r.label, (gaze_entry(o, r.epsilon, parts.gaze[o.label], study),)))
    allotted = {r.label: r.epsilon for r in alloc.outputs}
    return [PlannedCharge(c.label, tuple(_plan_rho(e, allotted[c.label]) for e in c.entries)) for c in out]


def _plan_rho(entry: Release, epsilon: float) -> Release:
    """A pure entry of an output allotted ε in, stated at ρ = ε_entry·ε/2 per invocation out (≥ ε_entry²/2, so
    valid): an output's entries then add up to the ε²/2 the plan counts for it, and the ledger counts the plan's
    release as the plan states it (docs/PRIVACY_MODEL.md §17)."""
    if entry.rho is not None or entry.delta > 0 or not math.isfinite(entry.epsilon):
        return entry
    return replace(entry, rho=entry.epsilon * epsilon / 2.0)


def first_over_cap(charges: list[PlannedCharge], fits: object) -> str | None:
    """Planned charges and a test `fits(entries) -> refusal text or None` in, the label of the first output whose
    entries, added after those before it, do not fit (None: all fit)."""
    so_far: list[Release] = []
    for c in charges:
        so_far.extend(c.entries)
        if fits(so_far) is not None:
            return c.label
    return None


def draw_bundle(frame: pd.DataFrame, table_name: str, plan: StudyPlan, parts: PartInputs | None = None,
                progress: Callable[[int, int, str], bool] | None = None) -> PlanBundle:
    """An expanded plan, the app's fixation table and the session's series and gaze inputs in, the batch writer's
    bundle out (fresh OpenDP noise, no seed). ValueError when the plan does not fit its cap or a series form or
    gaze-samples output has no input here (naming it); nothing is charged here."""
    parts = parts or PartInputs({}, {}, {})
    blocked = not_releasable(plan, parts)
    if blocked:
        raise ValueError("nothing released: " + "; ".join(f"{label} cannot be released here ({why})"
                                                           for label, why in blocked))
    return release_plan([], plan, in_memory=sources(frame, table_name, plan), parts=parts, progress=progress)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bundle_zip(bundle: PlanBundle, extra: dict[str, bytes]) -> tuple[bytes, dict[str, object]]:
    """The writer's bundle and the app's extra files (settings, report) in, (zip bytes, manifest) out: the
    manifest lists the extra files with their SHA-256 beside plan.json, and every file of the zip is listed."""
    manifest = json.loads(bundle.files["manifest.json"])
    manifest["files"] = [*manifest.get("files", []), *({"name": k, "sha256": _sha(v)} for k, v in extra.items())]
    files = {**{k: v for k, v in bundle.files.items() if k != "manifest.json"}, **extra}
    files["manifest.json"] = (json.dumps(manifest, indent=2, default=str, ensure_ascii=False) + "\n").encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue(), manifest
