"""Panels of the Plan and release page: the guarantee, the plan's editor, the allocation table, the remaining budget,
one preview picture per heatmap and the one-click release of the whole plan."""
from __future__ import annotations

import json
import math
import time
from dataclasses import replace

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.aoi.shapes import grid
from eyedp_core.batch.plan_run import PlanBundle
from eyedp_core.data import derived
from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Ledger, Release
from eyedp_core.dp.budget import covered_total
from eyedp_core.exports.plan_parts import PartInputs
from eyedp_core.io.errors import DataError
from eyedp_core.plan.allocate import Allocation
from eyedp_core.plan.inputs import table_stimuli
from eyedp_core.plan.schema import (
    AOI_METRIC_NAMES,
    AoiOutput,
    Cap,
    HeatmapOutput,
    OutputKind,
    PlanOutput,
    SeriesFormOutput,
    StudyPlan,
    Target,
    TargetMeasure,
    slug,
)
from eyedp_core.timeseries.forms import Form
from ui import settings, state
from ui.heatmaps import images
from ui.plan import add, parts, release, session, view
from ui.share import report
from ui.text import md_text
from ui.widgets import WATERMARK_HTML, badge, fmt_num

__all__ = ["allocation_table", "budget", "counted", "editor", "lead", "pictures", "release_section", "table_rows"]

RESULT_KEY = "planrel_result"  # the last release: its key (data token, plan text), zip and summary
PREVIEW_LIMIT = 6  # previews drawn by default; a larger plan lets the user pick which
STOPPED_KEY = "planrel_stopped"  # set by the Stop button while a release is drawn: the next run says so
REFUSED_KEY = "planrel_refused"  # the last refusal: its key, the text naming the output and the cap, the ledger mark
ACCOUNTANTS = {"basic": "basic composition", "zcdp": "zCDP (tighter for Gaussian)"}  # Accountant values
KIND_MEASURES = {OutputKind.HEATMAP: (TargetMeasure.HOT_SPOTS_KEPT, TargetMeasure.CC),
                 OutputKind.AOI: (TargetMeasure.DWELL_S, TargetMeasure.HIT_RATIO_POINTS, TargetMeasure.FIXATIONS,
                                  TargetMeasure.REVISITS),
                 OutputKind.SERIES_FORM: (TargetMeasure.DB,), OutputKind.GAZE_SAMPLES: ()}


def _unit(plan: StudyPlan) -> str:
    kinds = {o.unit_words() for o in plan.outputs}
    return "observer" if kinds == {"observers"} else "participant" if kinds == {"participants"} \
        else "person (observer or participant)"


def lead(plan: StudyPlan | None, alloc: Allocation | None) -> None:
    """The per-person guarantee in plain words, first: the plan's total ε per person under its accountant, the cap
    and the unit."""
    if plan is None or alloc is None:
        st.markdown("**No plan yet.** Add outputs below (or with *Add to plan* on the Heatmaps and Areas of interest "
                    "pages): the plan splits one cap per person over every output released from the same people.")
        return
    t = alloc.total
    unit = _unit(alloc.plan)
    if not alloc.within_cap:  # nothing is allotted: "ε = 0 in total" would read as perfect privacy
        st.markdown(f"**This plan of {len(alloc.outputs)} outputs does not fit its cap ε ≤ {fmt_num(alloc.cap.epsilon)}, "
                    f"δ ≤ {fmt_num(alloc.cap.delta)} per {md_text(unit)}, so nothing can be released as it stands** "
                    "(why, and what would fit, under the table). **Unit of privacy: one "
                    f"{md_text(unit)}** — every output reads the same people, so their releases compose.")
        return
    basic = "" if t.accountant is Accountant.BASIC else (
        f" (basic composition would count ε = {fmt_num(t.basic_epsilon)}, δ = {fmt_num(t.basic_delta)})"
        if t.zcdp_epsilon is None or t.zcdp_epsilon <= t.epsilon else
        f"; here basic composition (ε = {fmt_num(t.basic_epsilon)}, δ = {fmt_num(t.basic_delta)}) is smaller than "
        f"the zCDP count (ε = {fmt_num(t.zcdp_epsilon)} at δ = {fmt_num(alloc.cap.delta)}), so it is the total stated")
    st.markdown(
        f"**Each {md_text(unit)} is protected with ε = {fmt_num(t.epsilon)}, δ = {fmt_num(t.delta)} in total over the "
        f"{len(alloc.outputs)} outputs of this plan**, counted by {md_text(t.accountant.words)}{md_text(basic)}, against the "
        f"plan's cap **ε ≤ {fmt_num(alloc.cap.epsilon)}, δ ≤ {fmt_num(alloc.cap.delta)} per {md_text(unit)}**. "
        f"**Unit of privacy: one {md_text(unit)}** — every output reads the same people, so their releases compose.")


def _set_cap() -> None:
    plan, _ = session.current()
    if plan is None:
        return
    cap = Cap(float(st.session_state["planedit_cap"]), plan.cap.delta, Accountant(st.session_state["planedit_acct"]))
    session.set_plan(replace(plan, cap=cap, study=str(st.session_state.get("planedit_study") or plan.study)))


def _add_heatmaps(canvases: dict[str, tuple[int, int]], cap: float, study: str) -> None:
    for s in st.session_state.get("planedit_stimuli") or []:
        w, h = canvases[s]
        session.add_output(HeatmapOutput(stimulus=s, width=w, height=h), cap, study)


def _add_aoi(canvases: dict[str, tuple[int, int]], cap: float, study: str) -> None:
    stim = st.session_state.get("planedit_aoi_stim")
    metrics = st.session_state.get("planedit_aoi_metrics") or []
    if stim is None or not metrics:
        return
    w, h = canvases[stim]
    shapes = grid(w, h, int(st.session_state["planedit_aoi_cols"]), int(st.session_state["planedit_aoi_rows"]))
    session.add_output(AoiOutput(stimulus=stim, shapes=shapes, aois=tuple(a.name for a in shapes),
                                 metrics=tuple(AOI_METRIC_NAMES[m] for m in metrics)), cap, study)


def _add_series(cap: float, study: str) -> None:
    most = add.most_recordings(state.current("features").frame)
    for f in st.session_state.get("planedit_forms") or []:
        session.add_output(SeriesFormOutput(form=Form(f), recordings_per_person=most), cap, study)


def _edit_output() -> None:
    plan, _ = session.current()
    label = st.session_state.get("planedit_out")
    if plan is None or label is None:
        return
    outs = list(plan.outputs)
    i = next((j for j, o in enumerate(outs) if o.label == label), None)
    if i is None:
        return
    measure = st.session_state.get("planedit_measure")
    value = float(st.session_state.get("planedit_value") or 0.0)
    target = None if measure in (None, "none") or value <= 0 else Target(TargetMeasure(measure), value)
    pin = float(st.session_state.get("planedit_pin") or 0.0)
    try:
        new = replace(outs[i], target=target, epsilon=pin if pin > 0 else None,
                      priority=max(float(st.session_state.get("planedit_priority") or 1.0), 1e-3))
        StudyPlan.from_json(replace(plan, outputs=tuple(new if j == i else o for j, o in enumerate(outs))).to_json())
    except DataError as err:
        st.session_state["planedit_error"] = str(err)
        return
    outs[i] = new
    session.set_plan(replace(plan, outputs=tuple(outs)))


def _drop_output() -> None:
    plan, _ = session.current()
    label = st.session_state.get("planedit_out")
    if plan is None:
        return
    kept = tuple(o for o in plan.outputs if o.label != label)
    session.set_plan(replace(plan, outputs=kept) if kept else None)


def _sync_editor(plan: StudyPlan | None, out: PlanOutput | None) -> None:
    """Before the editor's widgets are drawn: they show the plan's values (a link, a file or another page may have
    changed the plan since)."""
    if plan is not None:
        st.session_state["planedit_cap"] = float(plan.cap.epsilon)
        st.session_state["planedit_acct"] = plan.cap.accountant.value
        st.session_state["planedit_study"] = plan.study
    if out is not None and st.session_state.get("planedit_shown") != (out.label, out.to_dict()):
        st.session_state["planedit_shown"] = (out.label, out.to_dict())
        st.session_state["planedit_measure"] = "none" if out.target is None else out.target.measure.value
        st.session_state["planedit_value"] = 0.0 if out.target is None else float(out.target.value)
        st.session_state["planedit_pin"] = 0.0 if out.epsilon is None else float(out.epsilon)
        st.session_state["planedit_priority"] = float(out.priority)


def editor(plan: StudyPlan | None, fixations: pd.DataFrame, canvases: dict[str, tuple[int, int]]) -> None:
    """Pick the outputs (heatmaps of the table's stimuli, series forms; AOI metrics come from their page), the cap
    and accountant, and per output its target, a pinned ε or its priority."""
    cap, study = state.epsilon_cap(), state.study()
    stims = [s for s in table_stimuli(fixations) if s]
    _add_heatmaps_and_series(stims, canvases, cap, study)
    _add_aoi_grid(stims, canvases, cap, study)
    if plan is None:
        return
    _edit_plan(plan)


def _add_heatmaps_and_series(stims: list[str], canvases: dict[str, tuple[int, int]], cap: float, study: str) -> None:
    """Side by side: heatmap outputs of the table's stimuli, and the time-series release forms."""
    a, b = st.columns(2)
    with a:
        st.multiselect("Heatmaps of stimuli", stims, key="planedit_stimuli",
                       help="The stimuli of the fixation table in use (sidebar); one heatmap output per stimulus.")
        st.button("Add heatmaps", key="planedit_add_hm", on_click=_add_heatmaps, args=(canvases, cap, study),
                  icon=":material/playlist_add:")
    with b:
        st.multiselect("Time-series release forms", [f.value for f in Form], key="planedit_forms",
                       help="Released with the plan from the feature-window table in use (sidebar): every feature "
                            "with public bounds at T = 600 windows (the plan file's 'features' and 'length' change "
                            "it).")
        c1, c2 = st.columns(2)
        c1.button("Add series forms", key="planedit_add_ts", on_click=_add_series, args=(cap, study),
                  icon=":material/playlist_add:")
        c2.button("Add gaze samples", key="planedit_add_gs", on_click=add.add_gaze, args=(None, cap, study),
                  icon=":material/playlist_add:",
                  help="The gaze samples in use (sidebar), released by Kaleido with the Gaze samples page's settings; "
                       "the plan allots its ε per person (the ε per window follows from it).")


def _add_aoi_grid(stims: list[str], canvases: dict[str, tuple[int, int]], cap: float, study: str) -> None:
    """AOI metrics on a grid of AOIs over one stimulus (other AOIs come from their page)."""
    with st.container(border=True):
        st.markdown("**AOI metrics on a grid of AOIs**")
        g1, g2, g3, g4 = st.columns([2, 3, 1, 1])
        g1.selectbox("AOI stimulus", stims, key="planedit_aoi_stim")
        g2.multiselect("Metrics", list(AOI_METRIC_NAMES), default=["hit_ratio", "dwell"], key="planedit_aoi_metrics")
        g3.number_input("Columns", 1, 8, 3, key="planedit_aoi_cols")
        g4.number_input("Rows", 1, 8, 3, key="planedit_aoi_rows")
        st.button("Add AOI metrics", key="planedit_add_aoi", on_click=_add_aoi, args=(canvases, cap, study),
                  icon=":material/playlist_add:", disabled=not stims)
        st.caption("Other AOIs: draw or upload them on the *Areas of interest* page and press *Add to plan* there "
                   "(their outlines travel with the plan). The Heatmaps page's *Add to plan* adds a heatmap with "
                   "its grid, caps and noise settings.")


def _edit_plan(plan: StudyPlan) -> None:
    """The plan's study, cap and accountant, then one chosen output's target, pinned ε and priority."""
    labels = [o.label for o in plan.outputs]
    if st.session_state.get("planedit_out") not in labels:
        st.session_state["planedit_out"] = labels[0]
    chosen = next(o for o in plan.outputs if o.label == st.session_state["planedit_out"])
    _sync_editor(plan, chosen)
    c1, c2, c3 = st.columns(3)
    c1.text_input("Study", key="planedit_study", on_change=_set_cap)
    c2.number_input("Plan cap: ε per person", 0.01, 1e4, key="planedit_cap", on_change=_set_cap)
    c3.radio("Accountant", list(ACCOUNTANTS), key="planedit_acct", on_change=_set_cap, horizontal=True,
             format_func=ACCOUNTANTS.get)
    with st.container(border=True):
        st.markdown("**Edit an output**")
        e1, e2, e3 = st.columns(3)
        e1.selectbox("Output", labels, key="planedit_out")
        measures = ["none", *(m.value for m in KIND_MEASURES[chosen.kind])]
        if st.session_state.get("planedit_measure") not in measures:
            st.session_state["planedit_measure"] = "none"
        e2.selectbox("Target measure", measures, key="planedit_measure",
                     format_func=lambda v: "no target" if v == "none" else TargetMeasure(v).words)
        e3.number_input("Target value (hot spots kept and CC as a share, 0–1)", 0.0, 1e4, key="planedit_value",
                        step=0.05)
        f1, f2 = st.columns(2)
        f1.number_input("Pin ε (0: allotted by the plan)", 0.0, 1e4, key="planedit_pin", step=0.5)
        f2.number_input("Priority (its share of what is left)", 0.001, 1e3, key="planedit_priority", step=0.5)
        g1, g2 = st.columns(2)
        g1.button("Apply to output", key="planedit_apply", on_click=_edit_output, icon=":material/check:")
        g2.button("Remove output", key="planedit_drop", on_click=_drop_output, icon=":material/delete:")
        err = st.session_state.pop("planedit_error", None)
        if err:
            st.error(md_text(err), icon=":material/error:")


def _fmt(measure: str | None, v: float | None) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    return f"{100 * v:.0f} %" if measure == TargetMeasure.HOT_SPOTS_KEPT.value else f"{v:.3g}"


def table_rows(alloc: Allocation) -> pd.DataFrame:
    """The allocation as ONE table: output · ε · expected utility with its 10–90 % band · target · met? · what
    would meet it (ε needed at today's n, people needed at the allotted ε)."""
    rows = []
    for d in alloc.table():
        m = d["measure"]
        band = d["band_10_90"]
        tgt = d["target"]
        rows.append({
            "Output": d["output"], "ε": round(float(d["epsilon"]), 4), "δ": d["delta"],
            "Measure": "—" if m is None else TargetMeasure(m).words,
            "Expected": _fmt(m, d["expected"]),
            # A ± half-width's band is that of the absolute error of one draw (what the half-width bounds at 95 %).
            "10–90 %": "—" if not band else ("" if TargetMeasure(m).higher_is_better else "|error| ")
            + f"{_fmt(m, band[0])} – {_fmt(m, band[1])}",
            "Target": "—" if not tgt else ", ".join(f"{TargetMeasure(k).words} {_fmt(k, v)}" for k, v in tgt.items()),
            "Target met?": {True: "yes", False: "no", None: "—"}[d["target_met"]],
            "ε needed": "—" if d["epsilon_needed"] is None else f"{d['epsilon_needed']:.3g}",
            "People needed": "—" if d["people_needed"] is None else str(d["people_needed"]),
            "What would meet it": d["what_would_meet"] or "—",
        })
    return pd.DataFrame(rows)


def allocation_table(alloc: Allocation) -> None:
    """The table and the honest sentence."""
    st.dataframe(table_rows(alloc), hide_index=True, key="planedit_table_view")
    (st.success if alloc.all_targets_met and alloc.within_cap else st.warning)(md_text(alloc.sentence))


def counted(alloc: Allocation) -> tuple[Accountant, float | None]:
    """The accountant the plan's release is charged under and the δ it is checked at: the plan's own (basic, as
    every page's charge, checks ε only)."""
    cap = alloc.plan.cap
    return cap.accountant, (cap.delta if cap.accountant is Accountant.ZCDP else None)


def budget(alloc: Allocation, fix: state.Dataset) -> None:
    """The study's stored ledger: spent and its cap under the plan's accountant (basic beside it), and whether this
    plan's release fits: the very check its charge makes."""
    acct, delta_cap = counted(alloc)
    cap = state.epsilon_cap()
    try:
        entries = [e for c in release.planned_charges(alloc, fix.frame, fix.name, (), parts.session_parts(alloc.plan))
                   for e in c.entries]
    except (ValueError, DataError):  # the release section says why the plan cannot be released from this table
        entries = []
    before = state.ledger().releases
    fits = state.refusal(entries, acct, delta_cap) is None
    if acct is Accountant.BASIC:
        spent = Ledger(before).total()[0]
        left = max(0.0, cap - spent)
        st.markdown(
            f"**Remaining budget of the study '{md_text(state.study())}': ε = {fmt_num(left)}** per person (cap ε ≤ {fmt_num(cap)}, "
            f"recorded so far ε = {fmt_num(spent)}; the ledger adds up every release). Releasing this plan charges "
            f"ε = {fmt_num(alloc.total.basic_epsilon)}, counted by basic composition "
            + ("— it fits." if fits else "— **more than is left: the release will be refused.** Lower the plan's "
               f"cap to {fmt_num(left)} or drop an output."))
        return
    now = Ledger(before).worst_case(accountant=acct, delta_cap=delta_cap)
    after = covered_total(Ledger([*before, *entries]), entries, acct, delta_cap)
    st.markdown(
        f"**Budget of the study '{md_text(state.study())}': recorded so far ε = {fmt_num(now.epsilon)} per person**, counted by zCDP "
        f"at the plan's δ = {fmt_num(delta_cap)} (basic composition: ε = {fmt_num(now.basic_epsilon)}, δ = "
        f"{fmt_num(now.basic_delta)}), against the study's cap ε ≤ {fmt_num(cap)}. This plan's release is charged "
        "under the plan's accountant: the ledger's entries and this plan's, counted together by zCDP (ρ adds up, "
        f"converted at δ = {fmt_num(delta_cap)}), bring the people it reads to **ε = {fmt_num(after.epsilon)}, "
        f"δ = {fmt_num(after.delta)} per person** (basic composition would count ε = "
        f"{fmt_num(after.basic_epsilon)}, δ = {fmt_num(after.basic_delta)}); the cap is enforced on that zCDP total "
        + ("— it fits." if fits else "— **above the cap: the release will be refused.** Lower the plan's cap or "
           "drop an output."))


def pictures(alloc: Allocation, fix: state.Dataset, stimuli: dict[str, state.Dataset]) -> None:
    """One seeded preview per heatmap output at its allotted ε (watermarked: not a release)."""
    heat = [r for r in alloc.outputs if isinstance(r.output, HeatmapOutput) and r.epsilon > 0]
    if not heat:
        return
    st.markdown(WATERMARK_HTML, unsafe_allow_html=True)
    if len(heat) > PREVIEW_LIMIT:  # hundreds of stimuli: preview the ones asked for, not all at every run
        labels = [r.label for r in heat]
        pick = st.multiselect(f"Preview these heatmaps ({len(heat)} in the plan; the table above covers all)",
                              labels, default=labels[:PREVIEW_LIMIT], key="planpreview_pick")
        heat = [r for r in heat if r.label in set(pick)]
        if not heat:
            return
    cols = st.columns(min(3, len(heat)))
    for i, r in enumerate(heat):
        o = r.output
        try:
            clean, noisy, cc = view.heatmap_preview(fix.token, fix.name, json.dumps(o.to_dict(), sort_keys=True),
                                                    float(r.epsilon), view.PREVIEW_SEED, o, fix.frame)
        except DataError as err:
            cols[i % len(cols)].error(md_text(err))
            continue
        ds = stimuli.get(o.stimulus)
        image = ds.image if ds is not None and ds.image is not None else derived.blank_canvas(o.width, o.height)
        token = ds.token if ds is not None else f"blank:{o.width}x{o.height}"
        vmax = float(clean.max()) if clean.size and clean.max() > 0 else 1.0
        jpeg = images.overlay_jpeg(token, np.asarray(image), noisy, o.cell_px, vmax)
        cols[i % len(cols)].image(jpeg, caption=f"PREVIEW {md_text(o.label)} at ε = {r.epsilon:.3g} (seeded; CC of this "
                                                f"draw {cc:.2f}: the table gives the expectation)")


def _key(fix: state.Dataset, plan_json: str) -> tuple[str, str]:
    return fix.token, plan_json


def _mark() -> tuple[int, float]:
    return len(state.ledger().releases), state.epsilon_cap()


def release_section(alloc: Allocation, fix: state.Dataset, plan_json: str,
                    data_derived: tuple[str, ...] = ()) -> None:
    """One click: every output through the release path, one atomic charge, one zip."""
    key = _key(fix, plan_json)
    res = st.session_state.get(RESULT_KEY)
    if res is not None and res["key"] != key:  # the plan or the data changed: its release box goes
        st.session_state.pop(RESULT_KEY, None)
    inputs = parts.session_parts(alloc.plan)
    try:
        charges = release.planned_charges(alloc, fix.frame, fix.name, data_derived, inputs)
    except (ValueError, DataError) as err:  # e.g. dwell asked of a table without durations: nothing can be charged
        st.error(f"The plan cannot be released from this table: {md_text(err)}", icon=":material/error:")
        return
    blocked = release.not_releasable(alloc.plan, inputs)
    skipped = [r.label for r in alloc.outputs if not release.released_in_app(r.output, inputs)
               and r.label not in dict(blocked)]
    st.markdown(f"One click draws the {len(charges)} output{'s' if len(charges) != 1 else ''} with fresh OpenDP noise "
                "(no seed, not the previews above), charges the study's ledger for all of them in one step (all or "
                "nothing) and offers one zip: per output its files named for what they hold (heatmap PNGs with a "
                "colour legend and an ε/δ caption, CSVs, JSON manifests), plan.json, the settings file, the "
                "review-board report and manifest.json with every file's SHA-256.")
    if skipped:
        st.caption("Not released here (their ε stays reserved in the plan's total): "
                   + ", ".join(md_text(s) for s in skipped) + ". Release them from their page at their allotted ε.")
    for label, why in blocked:  # said before the click: the whole plan is refused while one output cannot be drawn
        st.error(f"**{md_text(label)} cannot be released from this session's data**: {md_text(why)}. The plan is "
                 "released whole or not at all: drop this output (choose it under *Outputs and targets* and press "
                 "*Drop*) or choose a usable table in the sidebar.", icon=":material/block:")
    if st.button("Release the whole plan", type="primary", key="plan_release", icon=":material/ios_share:",
                 disabled=not charges or not alloc.within_cap or bool(blocked)):
        _release(alloc, fix, key, charges, data_derived, inputs)
        st.rerun()
    if st.session_state.pop(STOPPED_KEY, False):
        st.info("Release stopped before the ledger was charged: nothing was released or charged.",
                icon=":material/pause_circle:")
    ref = st.session_state.get(REFUSED_KEY)
    if ref is not None:
        if ref[0] == key and ref[2] == _mark():
            st.error(md_text(ref[1]), icon=":material/block:")
        else:
            st.session_state.pop(REFUSED_KEY, None)
    res = st.session_state.get(RESULT_KEY)
    if res is not None:
        st.success(md_text(res["summary"]), icon=":material/check_circle:")
        st.markdown(badge("PRIVATE RELEASE (OpenDP)", "dp"), unsafe_allow_html=True)
        st.download_button("Download the bundle (zip)", res["zip"], res["name"], "application/zip",
                           key="planrel_download", icon=":material/download:")


def _stopped() -> None:
    st.session_state[STOPPED_KEY] = True


def _draw(alloc: Allocation, fix: state.Dataset, inputs: PartInputs) -> PlanBundle:
    """Every output drawn with a progress bar, the time left (from the outputs drawn so far) and a Stop button. A
    press of Stop ends this run before the ledger is charged: nothing is released."""
    stop = st.empty()
    stop.button("Stop the release", key="planrel_stop", on_click=_stopped, icon=":material/stop_circle:")
    bar = st.progress(0.0, text="Drawing OpenDP noise for every output of the plan…")
    start = time.monotonic()

    def tick(i: int, n: int, label: str) -> bool:
        left = "" if i == 0 else f"; about {math.ceil((time.monotonic() - start) / i * (n - i))} s left"
        bar.progress(i / n, text=md_text(f"Drawing {label} ({i + 1} of {n}){left}"))
        return True

    try:
        return release.draw_bundle(fix.frame, fix.name, alloc.plan, inputs, progress=tick)
    finally:
        bar.empty()
        stop.empty()


def _release(alloc: Allocation, fix: state.Dataset, key: tuple[str, str], charges: list[release.PlannedCharge],
             data_derived: tuple[str, ...], inputs: PartInputs) -> None:
    st.session_state.pop(RESULT_KEY, None)
    st.session_state.pop(REFUSED_KEY, None)
    cap = state.epsilon_cap()
    acct, delta_cap = counted(alloc)
    over = release.first_over_cap(charges, lambda entries: state.refusal(entries, acct, delta_cap))
    if over is not None:
        spent, _ = state.ledger().total(accountant=acct, delta_cap=delta_cap)
        st.session_state[REFUSED_KEY] = (key, _refusal_text(over, cap, spent, charges, (acct, delta_cap)), _mark())
        return
    try:
        bundle = _draw(alloc, fix, inputs)
    except (ValueError, DataError) as err:
        st.session_state[REFUSED_KEY] = (key, f"Nothing was released or charged: {err}", _mark())
        return
    drawn = release.planned_charges(bundle.allocation, fix.frame, fix.name, data_derived, inputs)
    entries = [e for c in drawn for e in c.entries]
    if not state.charge(entries, page=session.PAGE, place="plan_release", counted=(acct, delta_cap)):
        spent, _ = state.ledger().total(accountant=acct, delta_cap=delta_cap)
        over = release.first_over_cap(drawn, lambda entries: state.refusal(entries, acct, delta_cap))
        st.session_state[REFUSED_KEY] = (key, _refusal_text(over or drawn[-1].label, cap, spent, drawn,
                                                            (acct, delta_cap)), _mark())
        return  # another session charged in between: the draw is discarded, nothing was handed out
    extra = {"settings.json": settings.config_json(session.PAGE).encode("utf-8"),
             "review_board_report.html": report.build_html(
                 report.report_input(with_figures=False)[0]).encode("utf-8")}
    data, manifest = release.bundle_zip(bundle, extra)
    names = [f["name"] for o in manifest["outputs"] for f in o.get("files", [])]
    st.session_state[RESULT_KEY] = {
        "key": key, "zip": data, "name": f"{slug(alloc.plan.study)}_plan_bundle.zip",
        "summary": (f"Released {len(drawn)} outputs ({len(names)} files) and charged the ledger in one step: "
                    + _charged_words(entries, acct, delta_cap) + ".")}


def _charged_words(entries: list[Release], acct: Accountant, delta_cap: float | None) -> str:
    """What a release of these entries adds per person, counted by the accountant it was charged under."""
    t = Ledger(entries).worst_case(accountant=acct, delta_cap=delta_cap)
    if acct is Accountant.BASIC:
        return f"ε = {fmt_num(t.epsilon)} per person (basic composition)"
    return (f"ε = {fmt_num(t.epsilon)}, δ = {fmt_num(t.delta)} per person counted by zCDP (basic composition: "
            f"ε = {fmt_num(t.basic_epsilon)}, δ = {fmt_num(t.basic_delta)})")


def _refusal_text(label: str, cap: float, spent: float, charges: list[release.PlannedCharge],
                  how: tuple[Accountant, float | None] = (Accountant.BASIC, None)) -> str:
    words = _charged_words([e for c in charges for e in c.entries], *how)
    return (f"Refused: releasing the plan would pass the study's cap ε ≤ {fmt_num(cap)} per person at "
            f"'{label}' (recorded so far ε = {fmt_num(spent)}; the plan alone: {words}). Nothing was "
            "released or charged. Lower the plan's cap to what is left, or drop an output.")
