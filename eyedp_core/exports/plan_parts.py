"""A study plan's series-form and gaze-sample outputs, released as their pages' exports release them (docs/PRIVACY_MODEL.md
§17): their inputs built from a feature-window table and a gaze table, their ledger entries at the allotted ε,
and their files (`<label>_eps<ε>.csv` + `.json` manifest). The app's plan release and `batch plan` both use it.

* A series form: the released features (the output's, else every column of the table with public bounds in
  gaze.feature_specs) at the output's public T, released by exports.forms (ε = the allotted ε per participant).
* Gaze samples: Kaleido (exports.gaze) with the ε per window set so that its person-level bound,
  ε_window · Σ_s⌈n_s/w⌉ · d_max/r for the person with the most windows, is at most the allotted ε.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.dp.accounting import Release
from eyedp_core.exports.forms import FormSeries, form_entry, release_form_table
from eyedp_core.exports.gaze import release_gaze_samples
from eyedp_core.gaze.feature_specs import FEATURE_SPECS, feature_bounds
from eyedp_core.gazestream.kaleido import kaleido_plan, person_bound_of
from eyedp_core.gazestream.streams import StreamError, prepare_streams
from eyedp_core.io.errors import DataError
from eyedp_core.plan.inputs import series_basis
from eyedp_core.plan.models import SeriesBasis
from eyedp_core.plan.schema import GazeSamplesOutput, PlanOutput, SeriesFormOutput
from eyedp_core.timeseries.forms import Form, FormSetting, max_recordings
from eyedp_core.timeseries.signals import RECORDING_COLUMNS, feature_columns, feature_tensor

__all__ = ["GazeInput", "PartFiles", "PartInputs", "check_series_part", "gaze_entry", "gaze_input", "gaze_window_epsilon",
           "PartTables", "part_inputs", "release_gaze_part", "series_bases", "release_series_part", "series_entry", "series_input", "series_setting"]


@dataclass(frozen=True)
class GazeInput:
    """Checked gaze samples (streams.prepare_streams) and the public screen (width, height) px they are on."""

    frame: pd.DataFrame
    screen: tuple[int, int]

    @property
    def participants(self) -> tuple[str, ...]:
        """The participants with a usable stream, as text."""
        if "participant" not in self.frame.columns:
            return ("all",)
        return tuple(sorted(self.frame["participant"].astype(str).unique()))


@dataclass(frozen=True)
class PartFiles:
    """One released output: file name -> bytes, its manifest and the noise scale its manifest states."""

    files: dict[str, bytes]
    manifest: dict[str, Any]


def series_input(table: pd.DataFrame, output: SeriesFormOutput, *, file: str = "features") -> FormSeries:
    """A feature-window table (participant[, task, …], window, features) and a series-form output in, the series
    it releases out. DataError naming the file when the table has no participant column, a named feature is
    missing or has no public bounds, or no feature has public bounds."""
    if "participant" not in table.columns:
        raise DataError("the feature table has no participant column, so a series form has no people to protect",
                        file=file, expected="a 'participant' column")
    have = feature_columns(table)
    rows = table[table["participant"].notna()]
    keys = [c for c in RECORDING_COLUMNS if c in rows.columns]
    bounded = [f for f in (output.features or have) if f in FEATURE_SPECS and f in have]
    finite = np.isfinite(rows[bounded].to_numpy(dtype=float))
    # A feature without a value in some recording cannot be padded from it (as the Time series page, it is left
    # out; named in the plan, it is refused).
    everywhere = pd.DataFrame(finite, columns=bounded).groupby([rows[k].to_numpy() for k in keys]).any().all()
    names = output.features or tuple(f for f in bounded if everywhere[f])
    if not names:
        raise DataError("no feature column has public bounds (gaze.feature_specs), so a series form cannot be "
                        "calibrated without reading the data", file=file,
                        expected="feature columns such as " + ", ".join(list(FEATURE_SPECS)[:3]))
    for f in names:
        if f not in have:
            raise DataError(f"the series form names the feature '{f}' but the table has no such numeric column",
                            file=file, column=f)
        if f not in FEATURE_SPECS:
            raise DataError(f"the feature '{f}' has no public bounds (gaze.feature_specs); a plan releases only "
                            "features with public bounds", file=file, column=f)
        if not everywhere[f]:
            raise DataError(f"the feature '{f}' has no value in some recording, so its series cannot be padded",
                            file=file, column=f)
    lo, hi = feature_bounds(list(names))
    order = "window" if "window" in table.columns else "t_start_s" if "t_start_s" in table.columns else "__none__"
    x, recs = feature_tensor(rows, list(names), length=int(output.length), fill="edge", order_col=order)
    # A window without a value is released as the middle of its public range: a public constant, so a person's
    # contribution stays inside the bounds the sensitivity is calibrated to.
    mid = ((lo + hi) / 2.0)[None, :, None]
    x = np.where(np.isfinite(x), x, np.broadcast_to(mid, x.shape))
    recs = recs.copy()
    for c in recs.columns:
        if c != "length":
            recs[c] = recs[c].astype(str)
    return FormSeries(tuple(names), lo, hi, x, recs)


def check_series_part(output: SeriesFormOutput, series: FormSeries) -> None:
    """ValueError when a per-recording form counts fewer recordings per person than the table holds
    (gaze.contributions): its Δ1 would then understate what one person moves. Checked before any noise is drawn;
    the callers name the output."""
    have = max_recordings(series.recs)
    if output.form is Form.RECORDING and output.recordings_per_person < have:
        raise ValueError(f"a participant has {have} recordings in the feature table, but the plan counts "
                         f"{output.recordings_per_person} (recordings_per_person): the form's Δ1 would understate "
                         f"what one person moves; set recordings_per_person to {have} or more")


def series_setting(output: SeriesFormOutput, epsilon: float) -> FormSetting:
    """A series-form output and its allotted ε in, the form setting released."""
    return FormSetting(output.form, float(epsilon), int(output.blocks), int(output.recordings_per_person),
                       bool(output.by_task))


def series_entry(output: SeriesFormOutput, epsilon: float, series: FormSeries, study: str,
                 data_derived: tuple[str, ...] = ()) -> Release:
    """A series-form output, its allotted ε, its series and the study in, its ledger entry."""
    s = series_setting(output, epsilon)
    return form_entry(s, series.participants, f"{s.words()}, T = {series.x.shape[-1]}, {len(series.names)} features "
                                              f"(plan '{study}')", data_derived)


def release_series_part(output: SeriesFormOutput, epsilon: float, series: FormSeries, stem: str) -> PartFiles:
    """A series-form output, its allotted ε, its series and the file stem in, its files (CSV + JSON manifest)
    out: fresh OpenDP noise, no seed."""
    rel = release_form_table(series_setting(output, epsilon), series)
    files = {f"{stem}.csv": rel.table.to_csv(index=False, lineterminator="\n").encode("utf-8"),
             f"{stem}.json": (json.dumps(rel.manifest, indent=2, default=str, ensure_ascii=False) + "\n").encode()}
    return PartFiles(files, rel.manifest)


def gaze_input(frame: pd.DataFrame, output: GazeSamplesOutput, screen: tuple[int, int], *,
               file: str = "gaze") -> GazeInput:
    """A raw gaze table, a gaze-samples output and the screen to use when the output gives none in, the checked
    streams out; DataError naming the file when no stream is usable."""
    size = (int(output.width_px), int(output.height_px)) if output.width_px is not None else tuple(map(int, screen))
    try:
        prep = prepare_streams(frame, width_px=size[0], height_px=size[1])
    except StreamError as err:
        raise DataError(str(err), file=file) from None
    return GazeInput(prep.frame, size)


def gaze_window_epsilon(output: GazeSamplesOutput, epsilon: float, gaze: GazeInput) -> float:
    """A gaze-samples output, its allotted ε per person and the streams in, the largest ε per window whose
    person-level bound ε_window·Σ_s⌈n_s/w⌉·d_max/r does not pass the allotted ε."""
    unit = person_bound_of(gaze.frame, epsilon=1.0, w=output.w, r=output.r, screen_px=gaze.screen)
    per = float(epsilon) / (unit.windows * unit.distance_factor)
    while per * unit.distance_factor * unit.windows > epsilon:  # rounding must never charge above the allotted ε
        per = math.nextafter(per, 0.0)
    return per


def gaze_entry(output: GazeSamplesOutput, epsilon: float, gaze: GazeInput, study: str) -> Release:
    """A gaze-samples output, its allotted ε and the streams in, its ledger entry: per window a move anywhere on the
    screen (ε_window·d_max/r), times the windows of the person charged most (the Gaze samples page's entry)."""
    bound = person_bound_of(gaze.frame, epsilon=gaze_window_epsilon(output, epsilon, gaze), w=output.w, r=output.r,
                            screen_px=gaze.screen)
    return Release(view="Gaze samples", label=(f"Kaleido export, ε = {bound.epsilon:.4g} per {bound.w}-sample window "
                                               f"within r = {bound.r:g} px (plan '{study}')"),
                   unit="w-event", mechanism="Kaleido", sensitivity_type="public",
                   epsilon=bound.per_window_any_move, count=bound.windows, participants=gaze.participants,
                   meaning=bound.words())


def release_gaze_part(output: GazeSamplesOutput, epsilon: float, gaze: GazeInput, stem: str) -> PartFiles:
    """A gaze-samples output, its allotted ε, the streams and the file stem in, its files (CSV + JSON manifest)
    out: Kaleido with fresh OpenDP noise, no seed."""
    per = gaze_window_epsilon(output, epsilon, gaze)
    pub = output.min_pub_share * (per - per / output.h)
    plan = kaleido_plan(epsilon=per, w=output.w, l_thresh=output.l_thresh, t_skip=output.t_skip, r=output.r,
                        h=output.h, min_pub=pub)
    rel = release_gaze_samples(gaze.frame, plan, gaze.screen)
    files = {f"{stem}.csv": rel.table.to_csv(index=False, lineterminator="\n").encode("utf-8"),
             f"{stem}.json": (json.dumps(rel.manifest, indent=2, default=str, ensure_ascii=False) + "\n").encode()}
    return PartFiles(files, rel.manifest)


@dataclass(frozen=True, eq=False)
class PartInputs:
    """Per output label, what its release reads: the series of each series form, the streams of each gaze-samples
    output; `missing`: per output without its input, why (shown before a release and in its refusal)."""

    series: dict[str, FormSeries]
    gaze: dict[str, GazeInput]
    missing: dict[str, str]


@dataclass(frozen=True, eq=False)
class PartTables:
    """The tables a plan's series forms and gaze samples are released from (None: not given) and their names."""

    features: pd.DataFrame | None = None
    gaze: pd.DataFrame | None = None
    features_name: str = "features"
    gaze_name: str = "gaze"
    screen: tuple[int, int] = (1280, 800)  # the gaze's screen when an output gives none


def part_inputs(outputs: tuple[PlanOutput, ...] | list[PlanOutput], tables: PartTables) -> PartInputs:
    """A plan's outputs and the tables in, per series-form and gaze-samples output its input, or why it has none
    (no table given, or a table it cannot be released from: DataError and ValueError texts)."""
    series: dict[str, FormSeries] = {}
    gaze: dict[str, GazeInput] = {}
    missing: dict[str, str] = {}
    for o in outputs:
        try:
            if isinstance(o, SeriesFormOutput):
                if tables.features is None:
                    missing[o.label] = "no feature-window table was given"
                    continue
                series[o.label] = series_input(tables.features, o, file=tables.features_name)
                check_series_part(o, series[o.label])
            elif isinstance(o, GazeSamplesOutput):
                if tables.gaze is None:
                    missing[o.label] = "no gaze-sample table was given"
                    continue
                gaze[o.label] = gaze_input(tables.gaze, o, tables.screen, file=tables.gaze_name)
        except (DataError, ValueError) as err:
            series.pop(o.label, None)
            missing[o.label] = str(err)
    return PartInputs(series, gaze, missing)


def series_bases(outputs: tuple[PlanOutput, ...] | list[PlanOutput], parts: PartInputs) -> dict[str, SeriesBasis]:
    """A plan's outputs and their inputs in, the models' inputs of every series form with its series (read as the
    Time series form comparison reads them: private spreads, tuning); a form whose count check fails has none (its
    release refuses first)."""
    out = {}
    for o in outputs:
        s = parts.series.get(o.label)
        if isinstance(o, SeriesFormOutput) and s is not None:
            try:
                out[o.label] = series_basis(s.x, s.lo, s.hi, s.recs, o)
            except ValueError:
                continue
    return out
