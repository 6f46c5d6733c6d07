"""The session's study plan: one text setting (`plan_json`, the plan file's JSON) that travels in share links and
settings files; the view pages append their current output to it with one click."""
from __future__ import annotations

import json
from dataclasses import replace

import streamlit as st

from eyedp_core.io.errors import DataError
from eyedp_core.plan.schema import Cap, PlanOutput, StudyPlan
from ui import settings

__all__ = ["PAGE", "PLAN_KEY", "add_output", "current", "set_plan"]

PAGE = "plan"
PLAN_KEY = "plan_json"  # the plan file's text: the one setting of the plan that travels
ADDED_KEY = "planedit_added"  # the label of the output a view page added last (a note on that page)


def current(default_cap: float = 10.0) -> tuple[StudyPlan | None, str | None]:
    """-> (the session's plan, None) or (None, why it cannot be read); (None, None) while the plan is empty."""
    text = st.session_state.get(PLAN_KEY)
    if text is None:  # a widget key Streamlit dropped on another page: the page's stored settings keep it
        text = st.session_state.get(settings.SNAPSHOTS, {}).get(PAGE, {}).get(PLAN_KEY)
    text = str(text or "").strip()
    if not text:
        return None, None
    try:
        return StudyPlan.from_json(text), None
    except DataError as err:
        return None, str(err)


def set_plan(plan: StudyPlan | None) -> None:
    """Store the plan (None: empty) in the session and in the plan page's stored settings, so that the page, its
    link and its settings file show it whichever page set it."""
    # Compact: the text travels in links, whose text settings hold at most MAX_TEXT_CHARS characters.
    text = "" if plan is None else json.dumps(plan.to_dict(), separators=(",", ":"), ensure_ascii=False)
    st.session_state[PLAN_KEY] = text
    st.session_state.setdefault(settings.SNAPSHOTS, {}).setdefault(PAGE, {})[PLAN_KEY] = text


def add_output(output: PlanOutput, cap: float, study: str) -> StudyPlan:
    """Append an output to the session's plan (a new plan under the study's cap when there is none, or when the
    stored text is not a plan); an output with the same label is replaced, so a second click updates it."""
    plan, _ = current()
    if plan is None:
        plan = StudyPlan(study, Cap(float(cap)), ())
    kept = tuple(o for o in plan.outputs if o.label != output.label)
    plan = replace(plan, outputs=(*kept, output))
    set_plan(plan)
    st.session_state[ADDED_KEY] = output.label
    return plan
