"""Study plans: every output released from one dataset, one cap per person, targets met or an honest
"recruit N" (docs/PRIVACY_MODEL.md §17). UI-free; the plan page and `python -m eyedp_core.batch plan` use it.

    plan = StudyPlan.from_json(text)                     # or StudyPlan(study, Cap(10), (HeatmapOutput(...), ...))
    plan, inputs = inputs_from_fixations(table, plan)    # the finders' inputs (basis maps: private, tuning)
    a = allocate(plan, 10, inputs)                       # per output ε, δ, expected utility, target met, needs
    a.table(); a.sentence; a.total.to_dict(); a.affordable("heatmap_1001-jpg")
"""
from eyedp_core.dp.accountants import Accountant
from eyedp_core.plan.accounting import PlanTotal, plan_total
from eyedp_core.plan.allocate import Allocation, OutputAllocation, allocate
from eyedp_core.plan.inputs import inputs_from_fixations, series_basis
from eyedp_core.plan.models import HeatmapBasis, PlanInputs, SeriesBasis, Utility
from eyedp_core.plan.schema import (
    ALL_STIMULI,
    AoiOutput,
    Cap,
    GazeSamplesOutput,
    HeatmapOutput,
    OutputKind,
    PlanOutput,
    SeriesFormOutput,
    StudyPlan,
    Target,
    TargetMeasure,
)

__all__ = ["ALL_STIMULI", "Accountant", "Allocation", "AoiOutput", "Cap", "GazeSamplesOutput", "HeatmapBasis",
           "HeatmapOutput", "OutputAllocation", "OutputKind", "PlanInputs", "PlanOutput", "PlanTotal",
           "SeriesBasis", "SeriesFormOutput", "StudyPlan", "Target", "TargetMeasure", "Utility", "allocate",
           "inputs_from_fixations", "plan_total", "series_basis"]
