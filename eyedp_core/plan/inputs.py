"""The models' inputs built from a fixation table: per heatmap output the clean capped mean map on its grid
(the Heatmaps page's own gaze_maps and aggregate; private, read as the finder reads it) and the number of
observers per stimulus (public under replace-one neighbours)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from eyedp_core.heatmaps.maps import aggregate, gaze_maps
from eyedp_core.heatmaps.preview import fixations_for_stimulus
from eyedp_core.heatmaps.targets import Basis
from eyedp_core.plan.models import HeatmapBasis, PlanInputs
from eyedp_core.plan.schema import HeatmapOutput, StudyPlan

__all__ = ["inputs_from_aggregates", "inputs_from_fixations", "table_stimuli"]


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


def inputs_from_aggregates(plan: StudyPlan, maps: dict[str, tuple[np.ndarray, int]], *,
                           basis: Basis = Basis.PRIVATE, R: int = 200) -> PlanInputs:
    """Plan (expanded) and {stimulus: (clean capped mean map, n)} in (the batch engines' clean aggregates), the
    PlanInputs of its heatmap outputs out."""
    heat = {o.label: HeatmapBasis(np.asarray(maps[o.stimulus][0], float), int(maps[o.stimulus][1]), basis)
            for o in plan.outputs if isinstance(o, HeatmapOutput) and o.stimulus in maps}
    return PlanInputs(heatmaps=heat, observers={s: int(v[1]) for s, v in maps.items()},
                      stimuli=tuple(maps), R=R)
