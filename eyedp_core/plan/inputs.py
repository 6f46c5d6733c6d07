"""The models' inputs built from a fixation table: per heatmap output the clean capped mean map on its grid
(the Heatmaps page's own gaze_maps and aggregate; private, read as the finder reads it) and the number of
observers per stimulus (public under replace-one neighbours)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from eyedp_core.heatmaps.maps import aggregate, gaze_maps
from eyedp_core.heatmaps.preview import fixations_for_stimulus
from eyedp_core.heatmaps.targets import Basis
from eyedp_core.plan.models import HeatmapBasis, PlanInputs, SeriesBasis
from eyedp_core.plan.schema import HeatmapOutput, SeriesFormOutput, StudyPlan
from eyedp_core.timeseries.forms import Form, group_sizes, max_recordings, person_spread

__all__ = ["inputs_from_fixations", "series_basis", "table_stimuli"]


def table_stimuli(fixations: pd.DataFrame) -> tuple[str, ...]:
    """-> the stimuli of a fixation table, sorted ('' when it has no stimulus column)."""
    if "stimulus" not in fixations.columns:
        return ("",)
    return tuple(sorted(str(s) for s in fixations["stimulus"].dropna().unique()))


def inputs_from_fixations(fixations: pd.DataFrame, plan: StudyPlan, *, table_name: str = "fixations",
                          basis: Basis = Basis.PRIVATE, R: int = 200) -> tuple[StudyPlan, PlanInputs]:
    """Fixation table (observer, x, y[, stimulus]), plan, the table's name and what it is in, (the plan with
    stimulus '*' expanded, PlanInputs) out. DataError when a stimulus of the plan has no fixations."""
    stimuli = table_stimuli(fixations)
    plan = plan.expanded(stimuli)
    heat: dict[str, HeatmapBasis] = {}
    observers: dict[str | None, int] = {None: int(fixations["observer"].nunique())}
    for s in stimuli:
        sub = fixations if s == "" else fixations[fixations["stimulus"].astype(str) == s]
        observers[s] = int(sub["observer"].nunique())
    for o in plan.outputs:
        if isinstance(o, HeatmapOutput):
            sub, _ = fixations_for_stimulus(fixations, table_name, o.stimulus, o.width, o.height)
            gm = gaze_maps(sub, o.width, o.height, o.cell_px, "count", observer_col="observer")
            heat[o.label] = HeatmapBasis(aggregate(gm, o.cap_m, o.cap_total), gm.n_observers, basis)
    return plan, PlanInputs(heatmaps=heat, observers=observers, stimuli=stimuli, R=R)


def series_basis(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, recs: pd.DataFrame,
                 output: SeriesFormOutput) -> SeriesBasis:
    """Series (recordings, F, T), public bounds, the recordings table and a series-form output in, its model's
    inputs out, as the Time series form comparison computes them: V_f over the output's coarse windows (read off
    the private data) and the participants per group (public). ValueError when the output counts fewer recordings
    per person than the table holds."""
    counted = max_recordings(recs)
    if output.recordings_per_person < counted:
        raise ValueError(f"{output.label}: a participant has {counted} recordings here, but the plan counts "
                         f"{output.recordings_per_person}: Δ1 would understate what one person moves")
    sizes = group_sizes(recs) if output.form is Form.GROUP else ()
    return SeriesBasis(person_spread(x, lo, hi, output.blocks), np.asarray(lo, float), np.asarray(hi, float), sizes)
