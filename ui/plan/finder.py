"""The view pages' finders, plan-aware: the ε the session's plan allots to outputs of the finder's kind, how many
the plan holds, the total per person against the cap, and whether the finder's own answer is met at that ε (or,
with no such output in the plan, how many of this kind fit under the cap at the finder's ε)."""
from __future__ import annotations

import math
from collections.abc import Callable

import streamlit as st

from eyedp_core.io.errors import DataError
from eyedp_core.plan.schema import OutputKind, slug
from ui import state
from ui.plan import parts, session, view
from ui.text import md_text
from ui.widgets import fmt_num

__all__ = ["KIND_WORDS", "THIS_ONE", "UNIT", "gaze_text", "heatmap_label", "note", "plan_text", "show"]

KIND_WORDS = {OutputKind.HEATMAP: ("heatmap", "heatmaps"), OutputKind.AOI: ("AOI table", "AOI tables"),
              OutputKind.SERIES_FORM: ("series form", "series forms"),
              OutputKind.GAZE_SAMPLES: ("gaze-sample output", "gaze-sample outputs")}
THIS_ONE = {OutputKind.HEATMAP: "this stimulus", OutputKind.AOI: "this stimulus' AOI metrics",
            OutputKind.SERIES_FORM: "this form", OutputKind.GAZE_SAMPLES: "this page's gaze samples"}
# The person an output's ε is counted per: heatmaps and AOI metrics read observers, the feature windows and gaze
# samples participants (the schema's unit_words).
UNIT = {OutputKind.HEATMAP: "observer", OutputKind.AOI: "observer", OutputKind.SERIES_FORM: "participant",
        OutputKind.GAZE_SAMPLES: "participant"}


def heatmap_label(stimulus: str) -> str:
    """-> the label a plan gives the heatmap of this stimulus (as `HeatmapOutput.label` without a name)."""
    return f"heatmap_{slug(stimulus)}"


def _count(n: int, kind: OutputKind) -> str:
    one, many = KIND_WORDS[kind]
    return f"{n:d} {one if n == 1 else many}"


def plan_text(fix: state.Dataset, kind: OutputKind, label: str, finder_epsilon: float | None, target: str) -> str:
    """Fixation table, the output kind, this page's output label, the finder's smallest ε for its target (None: not
    reached) and the target in words in, the plan-aware markdown sentence out (the allocation is cached per plan
    text and data token in `ui.plan.view`)."""
    plan, problem = session.current()
    if problem:
        return f"The session's plan cannot be read ({md_text(problem)}); see the Plan and release page."
    unit = UNIT[kind]
    rows = ()
    alloc = None
    if plan is not None and fix.frame is not None and any(o.kind is kind for o in plan.outputs):
        try:
            # With the series forms' models, as the Plan and release page: the same allocation on both.
            alloc = view.allocation(fix.token, fix.name, plan.to_json(), fix.frame, *parts.series_models(plan))
        except DataError as err:
            return f"The plan cannot be allotted on this table: {md_text(str(err))}"
        rows = alloc.of_kind(kind)
    cap = plan.cap.epsilon if plan is not None else state.epsilon_cap()
    if alloc is None or not rows:
        if finder_epsilon is None or finder_epsilon <= 0:
            return (f"**Plan:** no ε reaches {md_text(target)}, so no {KIND_WORDS[kind][0]} meeting it fits under the "
                    f"cap ε ≤ {fmt_num(cap)} per {unit}. Plan the study's outputs on the Plan and release page.")
        fit = math.floor(cap / finder_epsilon + 1e-9)  # basic composition: outputs of this ε that the cap holds
        others = 0 if plan is None else len(plan.outputs)
        shared = ("" if not others else
                  f" Your plan holds no {KIND_WORDS[kind][1]} yet; its {others} other output"
                  f"{'s already share' if others != 1 else ' already shares'} that cap, so an output added here gets less.")
        over = " (the finder's ε alone exceeds the cap)" if fit == 0 else ""
        return (f"**Plan:** at the finder's ε = {fmt_num(finder_epsilon)} for {md_text(target)}, the cap ε ≤ "
                f"{fmt_num(cap)} per {unit} holds **{_count(fit, kind)}** (⌊{fmt_num(cap)} / "
                f"{fmt_num(finder_epsilon)}⌋, basic composition){over}.{shared} Add outputs with *Add to plan* "
                "and split the cap on the Plan and release page.")
    mine = next((r for r in rows if r.label == label), None)
    included = f"{THIS_ONE[kind]} {'included' if mine is not None else 'not included'}"
    if mine is not None:
        eps = mine.epsilon
        each = f"this one gets ε = {fmt_num(eps)}"
    else:
        eps = min(r.epsilon for r in rows)
        lo, hi = eps, max(r.epsilon for r in rows)
        each = (f"each gets ε = {fmt_num(lo)}" if hi - lo <= 1e-12 * max(hi, 1.0)
                else f"they get ε = {fmt_num(lo)} to {fmt_num(hi)}")
    t = alloc.total
    verdict = ("not met: no ε reaches it" if finder_epsilon is None else
               f"met (the finder needs ε = {fmt_num(finder_epsilon)})" if eps >= finder_epsilon else
               f"not met (the finder needs ε = {fmt_num(finder_epsilon)})")
    return (f"**Plan:** your plan holds **{_count(len(rows), kind)}** ({included}); under the cap ε ≤ "
            f"{fmt_num(alloc.cap.epsilon)} per {unit} {each} (total {fmt_num(t.epsilon)} per {unit}, "
            f"{md_text(t.accountant.words)}). At ε = {fmt_num(eps)}, {md_text(target)} is **{verdict}**.")


def gaze_text(fix: state.Dataset) -> str:
    """Fixation table in, the Gaze samples page's plan sentence out: how many gaze-sample outputs the session's plan
    holds and the ε each is allotted per participant, or that none is planned (gaze samples have no utility model in
    the plan, so there is no target to meet)."""
    plan, problem = session.current()
    if problem:
        return f"The session's plan cannot be read ({md_text(problem)}); see the Plan and release page."
    kind = OutputKind.GAZE_SAMPLES
    cap = plan.cap.epsilon if plan is not None else state.epsilon_cap()
    if plan is None or fix.frame is None or not any(o.kind is kind for o in plan.outputs):
        n = 0 if plan is None else len(plan.outputs)
        held = "" if not n else f" (it holds {n} other output{'s' if n != 1 else ''})"
        return (f"**Plan:** no gaze samples are planned{held}. *Add to plan* puts Kaleido's settings and this screen "
                f"in the study plan, which splits the cap ε ≤ {fmt_num(cap)} per participant over all its outputs.")
    try:
        alloc = view.allocation(fix.token, fix.name, plan.to_json(), fix.frame, *parts.series_models(plan))
    except DataError as err:
        return f"The plan cannot be allotted on this table: {md_text(str(err))}"
    rows = alloc.of_kind(kind)
    each = "; ".join(f"'{md_text(r.label)}' gets ε = {fmt_num(r.epsilon)}" for r in rows)
    return (f"**Plan:** your plan holds **{_count(len(rows), kind)}**; under the cap ε ≤ {fmt_num(alloc.cap.epsilon)} "
            f"per participant {each} per participant (total {fmt_num(alloc.total.epsilon)} per participant, "
            f"{md_text(alloc.total.accountant.words)}). Gaze samples have no utility model in the plan, so there is "
            "no target to meet: Kaleido spreads that ε over each participant's windows at release.")


def show(fix: state.Dataset, kind: OutputKind, label: str, finder_epsilon: float | None, target: str) -> None:
    """The plan-aware sentence under a finder's answer, with a link to the Plan and release page."""
    st.markdown(plan_text(fix, kind, label, finder_epsilon, target))
    st.page_link("pages/plan.py", label="Plan and release", icon=":material/checklist:")


def note(fix: state.Dataset, kind: OutputKind, label: str) -> Callable[[float | None, str], None]:
    """-> `show` bound to a page's table, kind and output label: a finder calls it with (its ε, its target)."""
    def draw(finder_epsilon: float | None, target: str) -> None:
        show(fix, kind, label, finder_epsilon, target)
    return draw
