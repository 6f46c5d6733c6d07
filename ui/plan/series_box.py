"""The Time series release-forms panel's link to the study plan: the form to add, its "Add to plan" button, and the plan-aware
sentence at that form's ε for the panel's target dB."""
from __future__ import annotations

import math

import streamlit as st

from eyedp_core.plan.schema import OutputKind
from eyedp_core.timeseries.forms import FormRow
from ui import state
from ui.plan import add, finder
from ui.timeseries.context import Ctx

__all__ = ["plan_part"]


def _row(rows: list[FormRow], choice: add.SeriesChoice, blocks: int) -> FormRow:
    """-> the comparison's row of all released features for the pick (they come first in compare_forms' rows)."""
    form, b = add.series_form(choice, blocks)
    return next(r for r in rows if r.setting.form is form and r.setting.blocks == b)


def plan_part(c: Ctx, rows: list[FormRow], target: float, blocks: int) -> None:
    """Under the forms table: pick a form, add it (coarse windows, recordings per person, target dB) to the study
    plan, and say what the plan gives series forms against that form's ε for the target."""
    d = c.series
    choices = [ch.value for ch in add.SeriesChoice]
    left, right = st.columns([2, 3], vertical_alignment="bottom")
    pick = add.SeriesChoice(left.selectbox(
        "Release form for the study plan", choices, index=choices.index(add.SeriesChoice.GROUP.value),
        format_func=lambda v: _row(rows, add.SeriesChoice(v), blocks).setting.words(), key=add.SERIES_CHOICE_KEY,
        help="The form *Add to plan* puts in the study plan, with its coarse windows, the recordings per person "
             "and the target utility above; the sentence below compares the plan's ε with its ε for the target."))
    # The plan releases only features with public bounds: declared or pre-filled bounds are not carried.
    public = all(k == "public" for k in c.bounds_kind)
    out = add.series_output(pick, blocks, state.current("features").frame, tuple(d.names) if public else (),
                            (d.length, "task" in d.recs.columns, target))
    with right:
        add.series_button(out, _row(rows, pick, blocks).setting.words())
    add.added_note(out.label, link=False)  # the plan sentence below links to the Plan and release page
    if not public:
        st.caption("The plan calibrates series forms on public bounds only: this page's declared or pre-filled "
                   "bounds are not carried, so the plan releases every feature with public bounds.")
    need = _row(rows, pick, blocks).crossing_epsilon
    finder.show(state.current("fixations"), OutputKind.SERIES_FORM, out.label,
                need if math.isfinite(need) and need > 0 else None,
                f"{target:g} dB with {_row(rows, pick, blocks).setting.words()}")
