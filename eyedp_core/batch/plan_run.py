"""`python -m eyedp_core.batch plan --plan plan.json --input GLOB --engine numpy|pipelinedp|spark --out DIR`: a
whole study plan released from sharded fixation files into one bundle (docs/PRIVACY_MODEL.md §17).

Order, so that a plan over its cap or a setting an engine cannot certify writes nothing and charges nothing:
1. the plan is read and its pins checked against the cap (before any data is read);
2. the clean capped map of every heatmap output is streamed in one pass over the shards (`plan_sources`): the
   basis of the finders' models (read off the private data as the Heatmaps finder reads it: tuning, not itself
   private), and on the numpy engine the map that is released;
3. `plan.allocate` splits the cap; a total over the cap, or an engine whose noise at an allotted ε falls below
   the calibrated one, ends the run here;
4. each heatmap is released by `release_batch` on the chosen engine (OpenDP noise on the streamed map, or
   PipelineDP's own pass and noise);
5. every file is written into a temporary folder beside DIR and moved into place only when all are written.

AOI outputs that give their `shapes` are released too (`plan_aoi`: the AOI page's clipped contributions summed
partition by partition of observers, in memory flat in their number, and its OpenDP release; read before the
allocation so that a metric the shards cannot give is refused first). Series forms and gaze samples are released
from their own tables (`--series` feature-window tables, `--samples` gaze-sample tables; exports.plan_parts, as in
the app), read and checked before any noise. AOI outputs without shapes, and series forms or gaze samples whose
table is not given, are listed in the manifest with their ε reserved, counted in the plan's total, and no file.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import csv

from eyedp_core.aoi.observers import ObserverTable
from eyedp_core.batch.numpy_engine import CleanAggregate
from eyedp_core.batch.plan_aoi import aoi_sums, release_aoi_files
from eyedp_core.batch.plan_png import legend_png
from eyedp_core.batch.plan_sources import clean_aggregates
from eyedp_core.batch.plan_tables import read_tables
from eyedp_core.batch.run import RunOptions, check_noise, release_batch
from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.batch.sources import CHUNK_ROWS, RowReport
from eyedp_core.exports.plan_parts import (
    PartInputs,
    PartTables,
    part_inputs,
    release_gaze_part,
    release_series_part,
    series_bases,
)
from eyedp_core.gaze.events import SAMPLE_SCREEN
from eyedp_core.heatmaps.release import release_table
from eyedp_core.io.errors import DataError
from eyedp_core.plan.allocate import Allocation, OutputAllocation, allocate
from eyedp_core.plan.models import HeatmapBasis, PlanInputs
from eyedp_core.plan.schema import (
    ALL_STIMULI,
    AoiOutput,
    GazeSamplesOutput,
    HeatmapOutput,
    SeriesFormOutput,
    StudyPlan,
)

__all__ = ["BUNDLE_VERSION", "InMemorySources", "PlanBundle", "ReleaseStopped", "eps_tag", "heatmap_settings", "release_plan", "scan_stimuli",
           "write_bundle"]

BUNDLE_VERSION = 1


@dataclass(frozen=True, eq=False)
class PlanBundle:
    """Everything a plan's release writes: file name -> bytes, and the manifest (also one of the files)."""

    files: dict[str, bytes]
    manifest: dict[str, Any]
    allocation: Allocation
    reports: dict[str, RowReport]  # rows read, per stimulus (private: the operator's run report)


@dataclass(frozen=True, eq=False)
class InMemorySources:
    """A plan's inputs already in memory (the app's table): per heatmap label its clean capped map and roster,
    per AOI label its per-observer table."""

    cleans: dict[str, CleanAggregate]
    aoi_tables: dict[str, ObserverTable]


def eps_tag(epsilon: float) -> str:
    """ε in, its tag in file names out: 3 -> 'eps3', 3.3333 -> 'eps3.33', 250.4 -> 'eps250'."""
    e = float(epsilon)
    text = f"{e:.0f}" if e >= 100 else f"{e:.3g}"
    return "eps" + text.replace("+", "")


def heatmap_settings(output: HeatmapOutput, epsilon: float) -> HeatmapSettings:
    """A plan's heatmap output and its allotted ε in, the batch HeatmapSettings out."""
    o = output
    return HeatmapSettings(stimulus=o.stimulus, width=o.width, height=o.height, cell_px=o.cell_px,
                           epsilon=float(epsilon), delta=o.delta, mechanism=o.mechanism, method=o.method,
                           cap_m=o.cap_m, cap_total=o.cap_total, sigma_px=o.sigma_px)


def scan_stimuli(files: list[str]) -> tuple[str, ...]:
    """Shards in, the sorted stimuli of their 'stimulus' columns out (only that column is read); DataError when
    no shard has one (a plan's stimulus '*' needs them)."""
    seen: set[str] = set()
    for path in files:
        name = os.path.basename(path)
        try:
            if path.lower().endswith((".parquet", ".pq", ".parq")):
                pf = pq.ParquetFile(path)
                if "stimulus" not in pf.schema_arrow.names:
                    continue
                for batch in pf.iter_batches(columns=["stimulus"], batch_size=CHUNK_ROWS):
                    seen.update(str(v) for v in pc.unique(batch.column(0)).to_pylist() if v is not None)
            else:
                sep = "\t" if ".tsv" in path.lower() else ","
                parse = csv.ParseOptions(delimiter=sep, invalid_row_handler=lambda _: "skip")
                with csv.open_csv(path, parse_options=parse) as r:
                    if "stimulus" not in r.schema.names:
                        continue
                with csv.open_csv(path, parse_options=parse, convert_options=csv.ConvertOptions(
                        include_columns=["stimulus"], column_types={"stimulus": pa.string()})) as r:
                    for batch in r:
                        seen.update(str(v) for v in pc.unique(batch.column(0)).to_pylist() if v)
        except (pa.ArrowException, OSError, UnicodeDecodeError) as err:
            raise DataError(f"cannot read its stimulus column ({err})", file=name) from None
    if not seen:
        raise DataError("the plan asks for every stimulus ('*') but no shard has a 'stimulus' column",
                        file=files[0] if files else None, expected="a 'stimulus' column, or the stimuli named")
    return tuple(sorted(seen))


def _caption(study: str, s: HeatmapSettings) -> str:
    """-> the picture's caption: study, stimulus, the guarantee's ε and δ and its unit."""
    # Spelled out: the picture's bundled font has no Greek letters.
    law = f"epsilon = {s.epsilon:.3g}, delta = {s.delta:g}" if s.gaussian else f"epsilon = {s.epsilon:.3g} (pure)"
    return f"{study} - {s.stimulus} - {law} per observer - mean capped fixation map"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _json_bytes(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, default=str, ensure_ascii=False) + "\n").encode("utf-8")


def _refuse_over_cap(a: Allocation) -> None:
    if not a.within_cap:
        raise ValueError(f"nothing released: {a.sentence}")


@dataclass(frozen=True, eq=False)
class _Cleans:
    """What the pass over the shards gave: per heatmap label its clean map, per AOI label its table or sums, the
    rows read per stimulus, and the observers per stimulus."""

    heat: dict[str, CleanAggregate]
    aoi: dict[str, Any]
    reports: dict[str, RowReport]
    observers: dict[str | None, int]


def _checked_plan(files: list[str], plan: StudyPlan, engine: Engine) -> StudyPlan:
    """The plan with "*" expanded to the shards' stimuli, refused (before any data is read) when its pins alone
    exceed the cap, two outputs share a label, or an engine cannot release a heatmap setting."""
    if any(isinstance(o, HeatmapOutput) and o.stimulus == ALL_STIMULI for o in plan.outputs):
        plan = plan.expanded(scan_stimuli(files))
    _refuse_over_cap(allocate(plan, plan.cap))
    labels = [o.label for o in plan.outputs]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise ValueError(f"two outputs share the label {dup[0]!r}; give them different stimuli or names")
    for o in plan.outputs:
        if isinstance(o, HeatmapOutput):
            check_noise(heatmap_settings(o, o.epsilon if o.epsilon is not None else 1.0), engine)
    return plan


def _read_cleans(files: list[str], plan: StudyPlan, run: RunOptions, in_memory: InMemorySources | None) -> _Cleans:
    """Shards (or the app's tables in memory) in, every heatmap's clean map and every AOI output's sums out."""
    heat = [o for o in plan.outputs if isinstance(o, HeatmapOutput)]
    reports: dict[str, RowReport] = {}
    if in_memory is not None:
        cleans = [in_memory.cleans[o.label] for o in heat]
        aoi = dict(in_memory.aoi_tables)
    else:
        cleans = clean_aggregates(files, [heatmap_settings(o, 1.0) for o in heat], partitions=run.partitions,
                                  chunk_rows=run.chunk_rows, tmp_dir=run.tmp_dir, reports=reports) if heat else []
        aoi = dict(aoi_sums(files, [o for o in plan.outputs if isinstance(o, AoiOutput) and o.shapes],
                            partitions=run.partitions, chunk_rows=run.chunk_rows, tmp_dir=run.tmp_dir))
    observers: dict[str | None, int] = {o.stimulus: c.n_observers for o, c in zip(heat, cleans)}
    observers.update({o.stimulus: aoi[o.label].n for o in plan.outputs if o.label in aoi})
    return _Cleans({o.label: c for o, c in zip(heat, cleans)}, aoi, reports, observers)


def _heatmap_files(files: list[str], r: OutputAllocation, study: str, run: RunOptions,
                   clean: CleanAggregate) -> tuple[dict[str, bytes], dict[str, Any]]:
    """One heatmap output at its allotted ε released on the run's engine -> (its files, its manifest fields)."""
    s = heatmap_settings(r.output, r.epsilon)
    rel = release_batch(files, s, run, clean=clean if run.engine is Engine.NUMPY else None)
    charged = float(rel.manifest["calibration"]["epsilon_charged"])
    if charged > r.epsilon * (1 + 1e-9):  # the library's own accounting is above the allotted ε
        raise ValueError(f"nothing released: {r.label} would be charged ε = {charged:.6g}, above its allotted "
                         f"{r.epsilon:.6g}")
    stem = f"{r.label}_{eps_tag(r.epsilon)}"
    own = {f"{stem}.csv": release_table(rel.values, s.cell_px).to_csv(index=False, lineterminator="\n").encode("utf-8"),
           f"{stem}.png": legend_png(rel.values, s.cell_px, s.sigma_px, s.width, s.height, _caption(study, s)),
           f"{stem}.json": _json_bytes(rel.manifest)}
    return own, {"guarantee": rel.manifest["guarantee"]["statement"],
                 "noise_std": rel.manifest["calibration"]["noise_std"]}


def _output_files(files: list[str], r: OutputAllocation, context: tuple[StudyPlan, RunOptions, _Cleans, PartInputs]
                  ) -> tuple[dict[str, bytes], dict[str, Any]]:
    """One allotted output in, (its files, its manifest fields) out; no file for an output kept in reserve."""
    plan, run, cleans, parts = context
    stem = f"{r.label}_{eps_tag(r.epsilon)}"
    if isinstance(r.output, HeatmapOutput):
        return _heatmap_files(files, r, plan.study, run, cleans.heat[r.label])
    if r.label in cleans.aoi:
        own, aoi_manifest = release_aoi_files(r.output, cleans.aoi[r.label], r.epsilon, stem)
        return own, {"guarantee": f"pure ε = {r.epsilon:g}-DP for each observer, for these AOI metrics",
                     "queries": aoi_manifest["queries"]}
    if isinstance(r.output, SeriesFormOutput) and r.label in parts.series:
        part = release_series_part(r.output, r.epsilon, parts.series[r.label], stem)
    elif isinstance(r.output, GazeSamplesOutput) and r.label in parts.gaze:
        part = release_gaze_part(r.output, r.epsilon, parts.gaze[r.label], stem)
    else:
        missing = f" ({parts.missing[r.label]})" if r.label in parts.missing else ""
        return {}, {"note": "not released here (an AOI output without 'shapes', or a series form or gaze samples "
                            "without their table: `--series` / `--samples` on the batch path): its ε is reserved in "
                            "the plan's total" + missing}
    return dict(part.files), {"guarantee": part.manifest["guarantee"],
                              "epsilon_per_person": part.manifest["epsilon_per_person"]}


class ReleaseStopped(ValueError):
    """The caller's progress callback asked to stop: no bundle, so nothing can be charged or written."""


def release_plan(files: list[str], plan: StudyPlan, run: RunOptions = RunOptions(), *, R: int = 200,
                 in_memory: InMemorySources | None = None, parts: PartInputs | None = None,
                 progress: Callable[[int, int, str], bool] | None = None) -> PlanBundle:
    """Shards, plan and how to run in, the PlanBundle out (nothing written). ValueError before any noise is drawn
    when the plan does not fit its cap or an engine cannot certify an allotted ε; DataError on bad input.
    `in_memory`: the app's clean maps and AOI tables of an expanded plan, built from its table in memory (numpy
    engine, no shard read), so the app's bundle is this one. `parts`: the series of the series forms and the
    streams of the gaze-samples outputs (exports.plan_parts, the app's and `--series` / `--samples`); an output
    without its input keeps its ε reserved and writes no file. `progress(i, n, label)` is called before output i of
    n is drawn; False stops the release (ReleaseStopped) with nothing returned."""
    plan = _checked_plan(files, plan, run.engine)
    cleans = _read_cleans(files, plan, run, in_memory)
    parts = parts or PartInputs({}, {}, {})
    inputs = PlanInputs(heatmaps={k: HeatmapBasis(c.aggregate, c.n_observers) for k, c in cleans.heat.items()},
                        observers=cleans.observers, series=series_bases(plan.outputs, parts), R=R)
    alloc = allocate(plan, plan.cap, inputs)
    _refuse_over_cap(alloc)
    for r in alloc.outputs:
        if isinstance(r.output, HeatmapOutput):
            check_noise(heatmap_settings(r.output, r.epsilon), run.engine)
    files_out: dict[str, bytes] = {}
    entries = []
    for i, r in enumerate(alloc.outputs):
        if progress is not None and not progress(i, len(alloc.outputs), r.label):
            raise ReleaseStopped(f"stopped before {r.label} ({i} of {len(alloc.outputs)} outputs drawn): nothing "
                                 "was released or charged")
        own, fields = _output_files(files, r, (plan, run, cleans, parts))
        files_out.update(own)
        entries.append({**r.to_dict(), "stimulus": getattr(r.output, "stimulus", None), "released": bool(own),
                        **fields, "files": [{"name": k, "sha256": _sha(v)} for k, v in own.items()]})
    files_out["plan.json"] = plan.to_json().encode("utf-8") + b"\n"
    manifest = {"eyedp_bundle": BUNDLE_VERSION, "study": plan.study, "engine": run.engine.value,
                "cap": plan.cap.to_dict(), "total_per_person": alloc.total.to_dict(), "sentence": alloc.sentence,
                "unit": _unit_words(plan),
                "outputs": entries,
                "files": [{"name": "plan.json", "sha256": _sha(files_out["plan.json"])}],
                "model_inputs": "the clean capped map of each stimulus, read off the private data to predict "
                                "utility (tuning: not itself private, as on the Heatmaps page); n is public"}
    files_out["manifest.json"] = _json_bytes(manifest)
    return PlanBundle(files_out, manifest, alloc, cleans.reports)


def _unit_words(plan: StudyPlan) -> str:
    """-> the manifest's unit: observers (fixation outputs), participants (series forms, gaze samples) or both."""
    kinds = {o.unit_words() for o in plan.outputs}
    who = "observer" if kinds == {"observers"} else "participant" if kinds == {"participants"} else \
        "observer or participant"
    return (f"person ({who}): every output reads the same people, so their releases compose (a study's ledger "
            "composes them per person id, under the plan's accountant)")


def write_bundle(out_dir: str, bundle: PlanBundle) -> list[str]:
    """Output folder and bundle in, the written paths out: all files or none (a temporary folder beside it)."""
    out = os.path.abspath(out_dir)
    parent = os.path.dirname(out.rstrip(os.sep)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out.rstrip(os.sep))}.partial-", dir=parent)
    try:
        for name, data in bundle.files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        if not os.path.exists(out):
            os.replace(tmp, out)
            tmp = ""
        else:
            for name in bundle.files:
                os.replace(os.path.join(tmp, name), os.path.join(out, name))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return [os.path.join(out, name) for name in bundle.files]


def plan_parts(plan: StudyPlan, series: list[str] | None, samples: list[str] | None) -> PartInputs:
    """A plan and the `--series` / `--samples` files (None: not given) in, the inputs of its series forms and gaze
    samples out. A table given but unusable for an output of its kind is refused naming the output (ValueError,
    before any noise); an output whose table was not given keeps its ε reserved."""
    features = read_tables(series, ("participant",), "feature-window") if series else None
    gaze = read_tables(samples, ("participant", "t_s", "x", "y"), "gaze-sample") if samples else None
    tables = PartTables(features, gaze, "--series tables", "--samples tables",
                        (int(SAMPLE_SCREEN.width_px), int(SAMPLE_SCREEN.height_px)))
    parts = part_inputs(plan.outputs, tables)
    for o in plan.outputs:
        given = features is not None if isinstance(o, SeriesFormOutput) else gaze is not None
        if isinstance(o, (SeriesFormOutput, GazeSamplesOutput)) and given and o.label in parts.missing:
            raise ValueError(f"nothing released: {o.label} cannot be released from the given table: "
                             f"{parts.missing[o.label]}")
    return parts


def run_plan_command(plan_path: str, files: list[str], out: str, run: RunOptions, *,
                     series: list[str] | None = None, samples: list[str] | None = None) -> dict[str, Any]:
    """The `plan` subcommand's work: plan file, shards, folder, how to run and the series / sample files in, the
    run report out."""
    try:
        with open(plan_path, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise ValueError(f"--plan '{plan_path}' cannot be read ({err.strerror or err})") from None
    try:
        plan = StudyPlan.from_json(text)
    except DataError as err:
        err.file = os.path.basename(plan_path)
        raise DataError(err.message, file=err.file, row=err.row, expected=err.expected) from None
    bundle = release_plan(files, plan, run, parts=plan_parts(plan, series, samples))
    paths = write_bundle(out, bundle)
    m = bundle.manifest
    return {"released": paths, "total_per_person": m["total_per_person"], "sentence": m["sentence"],
            "outputs": [{k: o[k] for k in ("output", "epsilon", "delta", "target_met", "released")}
                        for o in m["outputs"]],
            "input_rows": {stim: rep.to_dict() for stim, rep in bundle.reports.items()}}
