"""Heatmaps view: the privacy accounting box and the explicit "Export (private release)" action.

Previews never touch the ledger. An export asks the core (eyedp_core.heatmaps.release) for fresh OpenDP
noise (no seed) on the aggregate at cell resolution, adds its ledger entry (every export is a new entry:
releases compose) and offers CSV, PNG and metadata downloads.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import math

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from eyedp_core.batch.script import pipelinedp_script
from eyedp_core.batch.settings import Engine, HeatmapSettings
from eyedp_core.dp.accounting import Release, gaussian_rho
from eyedp_core.dp.registry import Family, SelectionMethod
from eyedp_core.heatmaps import maps, preview, release
from eyedp_core.heatmaps.cap import cap_score_sensitivity
from eyedp_core.io import uploads
from ui import state
from ui.export_scale import opendp_sigma
from ui.heatmaps import images, view
from ui.heatmaps.settings import CELLS
from ui.numbers import Number, numbers_html
from ui.text import html_text, md_text
from ui.widgets import badge, fmt_num

STIMULI_KEY = "hm_k_stimuli"
EXPORT_RESULT = "hm_export_result"  # the last export's files and summary (cleared with the ledger)


def _export(ctx: view.Context) -> release.HeatmapExport:
    """Context -> what an export of the current settings releases."""
    return release.HeatmapExport(aggregate=ctx.clean.agg, sensitivity=ctx.sensitivity,
                                 calibration=ctx.preview.calibration, source=ctx.source, cell_px=ctx.cell_px,
                                 weight=ctx.weight, cap_m=ctx.cap_m, cap_total=ctx.cap_total, sigma_px=ctx.sigma_px,
                                 tuned_on_private_data=ctx.tuned_on_private_data)


def export_scale(ctx: view.Context) -> float:
    """Context -> the noise scale of the export: Laplace b, or a Gaussian σ that OpenDP certifies."""
    cal = ctx.preview.calibration
    if cal.mechanism is Family.LAPLACE:
        return cal.scale
    return opendp_sigma(ctx.sensitivity.l2, cal.epsilon, cal.delta, cal.scale)


def stimuli_input() -> None:
    """How many stimuli are released from these observers (read by accounting_markdown; drawn by the `rare` part)."""
    st.number_input("Stimuli released from these observers", 1, 500, 1, key=STIMULI_KEY, width=320,
                    help="Each stimulus' heatmap costs the (ε, δ) above; basic sequential composition adds them.")


def accounting_markdown(ctx: view.Context) -> str:
    """Context -> the "Privacy accounting" heading, the unit of privacy and ε per observer for this stimulus, the
    total over the stimuli of stimuli_input and the ledger so far (markdown with HTML, appended to the numbers
    under the overlays: one element per ε move)."""
    choices = selection_charges(ctx)
    eps_sel = math.fsum(choices)
    k = int(st.session_state.get(STIMULI_KEY, 1))
    eps_total, delta_total = release.stimuli_total(ctx.epsilon, ctx.delta_used, k, eps_sel)
    led_eps, led_delta = state.ledger().total()
    ledger = (f"Recorded in the study's ledger so far (every session and view, worst-case person): ε = {fmt_num(led_eps)}, "
              f"δ = {fmt_num(led_delta)}. Previews are not recorded; exports and private choices of m are, each "
              "as a new entry.")
    totals = [
        Number("Total ε per observer", fmt_num(eps_total),
               f"{k} × {fmt_num(ctx.epsilon)}" + "".join(f" + {fmt_num(e)}" for e in choices)
               + (f" (the {len(choices)} private choice{'s' if len(choices) > 1 else ''} of m charged to these "
                  "observers: every choice is a release)" if choices else "")),
        Number("Total δ per observer", fmt_num(delta_total), f"{k} × {fmt_num(ctx.delta_used)}"),
    ]
    return (
        "\n\n### Privacy accounting\n\n"
        f"**Unit of privacy: one observer's whole gaze map on this stimulus.** Neighbouring datasets differ "
        f"by replacing one observer's entire (capped) map; the number of observers **n = {ctx.n_observers}** "
        f"is public. This page releases **one stimulus** ('{md_text(ctx.stimulus.name)}'): each observer is protected "
        f"with **ε = {fmt_num(ctx.epsilon)}, δ = {fmt_num(ctx.delta_used)}**"
        + (f", plus **ε = {fmt_num(eps_sel)}** for the private choice(s) of m made on them." if eps_sel else ".")
        + " Heatmaps of several stimuli from the same observers read the same people and **compose "
          f"sequentially**: their ε (and δ) add up over the stimuli released from them ({k} here: *Stimuli "
          "released from these observers*, under *Map and noise settings*).\n\n"
        + numbers_html(totals) + f'<div class="eyedp-note">{html_text(ledger)}</div>')


def tuned_warning(ctx: view.Context) -> None:
    """A warning when the cap in use was tuned on private data (Algorithm 1): the stated ε excludes the tuning."""
    if ctx.tuned_on_private_data:
        st.warning(f"The cap m = {ctx.cap_m:g} was chosen by Algorithm 1 on private maps "
                   f"('{md_text(ctx.cap_choice.source.stimulus_name)}'): tuned on private data — the stated ε excludes "
                   "the tuning. Fix m in advance or choose it privately (Optimal cap panel).",
                   icon=":material/warning:")


def selection_charges(ctx: view.Context) -> list[float]:
    """The ε of every private choice of m in the ledger made on these maps (this stimulus, these observers):
    each choice is a release of its own, so three choices cost three times."""
    mine, on = set(ctx.source.observers), f" on '{ctx.source.stimulus_name}' ("
    return [r.epsilon_total for r in state.ledger().releases
            if release.is_selection(r) and on in r.label
            and r.participants is not None and mine & set(r.participants)]


def _files(ctx: view.Context, rel: release.HeatmapRelease) -> dict[str, bytes]:
    """An export -> downloadable CSV, PNG (smoothed after the release: post-processing) and JSON."""
    sm = maps.smooth(rel.values, ctx.sigma_px, ctx.cell_px)
    png = images.overlay_png(ctx.stimulus.image, sm, ctx.cell_px, release.colour_range(sm))
    return {"csv": uploads.to_csv_bytes(release.release_table(rel.values, ctx.cell_px)), "png": png,
            "json": json.dumps(rel.metadata, indent=2, default=str).encode()}


def _planned_entry(ctx: view.Context) -> Release:
    """Context -> the ledger entry an export of the current settings charges at least (the requested ε, δ)."""
    cal = ctx.preview.calibration
    gaussian = cal.mechanism is Family.GAUSSIAN
    return Release(view=release.VIEW, label=f"heatmap of '{ctx.source.stimulus_name}'", unit="observer",
                   mechanism=f"{cal.mechanism} ({cal.method})", sensitivity_type="public", epsilon=cal.epsilon,
                   delta=cal.delta if gaussian else 0.0, participants=ctx.source.observers,
                   rho=gaussian_rho(cal.epsilon, cal.delta) if gaussian else None)


# The heatmap settings a private choice of m reads (its scores weigh each candidate's noise at the map's ε and δ),
# beside its own: the cap sliders are not among them, the choice replaces them.
_SELECTION_SETTINGS = ("hm_weight", "hm_cell", "hm_eps", "hm_delta", "hm_mech", "hm_method", "hm_use_c",
                       "hm_c_count", "hm_c_duration", "hm_stimulus")


def selection_facts(choice: release.CapChoice, ctx: view.Context, bound: float) -> dict[str, object]:
    """A private choice of m and the context it was made in -> its own facts for its ledger entry: the score's
    sensitivity and the selection noise's scale, never the heatmap preview's σ or the cap it replaced."""
    n, r = int(ctx.gaze_maps.n_observers), int(ctx.gaze_maps.n_cells)
    sens = cap_score_sensitivity(choice.candidates, bound, n, r, ctx.cap_total)
    eps = float(choice.epsilon)
    scale = 2.0 * sens / eps if sens > 0 else 0.0
    gumbel = choice.method is SelectionMethod.EXPONENTIAL
    law = "Gumbel" if gumbel else "exponential"
    return {
        "view": "Heatmaps", "unit": "observer",
        "data": {"observers": n, "stimulus": choice.source.stimulus_name, "grid cells": r,
                 "public candidates": len(choice.candidates)},
        "sensitivity": {"L∞ of the scores": sens,
                        "how": (f"public: from the bound B = {bound:g} on any observer's value in a cell, the public "
                                f"candidates {', '.join(f'{v:g}' for v in choice.candidates)}, n = {n} observers and "
                                f"r = {r} cells; one observer's whole map is replaced")},
        "calibration": {"mechanism": str(Family.EXPONENTIAL), "method": str(choice.method), "scale": scale,
                        # Gumbel(β) has standard deviation βπ/√6; the exponential law's is β.
                        "std": scale * math.pi / math.sqrt(6.0) if gumbel else scale, "epsilon": eps,
                        "delta": 0.0, "sensitivity": sens,
                        "formula_tex": r"\beta = \frac{2\,\Delta_s}{\varepsilon}",
                        "plugged_tex": rf"\beta = \frac{{2 \times {sens:.6g}}}{{{eps:g}}} = {scale:.6g}",
                        "guarantee": f"ε = {eps:g} (pure ε-DP)", "valid": True,
                        "note": f"{law} noise of scale β on each candidate's score; {choice.note}"},
        "calibration_title": f"private choice of the cap m = {choice.m:g} ({choice.method})",
        "data_derived": list(state.data_derived_canvas(ctx.stimulus)),
    }


def selection_settings(ctx: view.Context, bound: float, eps_sel: float, method: SelectionMethod) -> dict[str, object]:
    """The settings a private choice of m was made with: its own (bound B, ε, method) and the map's it reads."""
    snap = st.session_state.get("share_snapshots", {}).get("heatmaps", {})
    out: dict[str, object] = {k: snap[k] for k in _SELECTION_SETTINGS if k in snap}
    out.update({f"hm_sel_bound_{ctx.weight}": float(bound), "hm_sel_eps": float(eps_sel), "hm_sel_method": str(method)})
    return out


def with_canvas_caveat(entry: Release, ctx: view.Context) -> Release:
    """A ledger entry of this view -> the same entry flagged when the blank canvas (and so the grid and the
    sensitivity) was sized from the fixations themselves."""
    extra = state.data_derived_canvas(ctx.stimulus)
    if not extra:
        return entry
    return dataclasses.replace(entry, data_derived_parameters=entry.data_derived_parameters + extra)


def export_cell_sizes(width: int, height: int, cells: list[int]) -> list[int]:
    """Stimulus size and the offered cell sizes -> the cell sizes whose grid an export accepts."""
    return [c for c in cells if math.ceil(width / c) * math.ceil(height / c) <= release.MAX_EXPORT_CELLS]


def export_limit_text(ctx: view.Context) -> str:
    """Context with a grid too fine to export -> what the export accepts instead, in words."""
    ok = export_cell_sizes(ctx.width, ctx.height, CELLS)
    sizes = (f"cell sizes of {ok[0]} px or more ({', '.join(str(c) for c in ok[:6])}"
             f"{' …' if len(ok) > 6 else ''} px)") if ok else "no cell size offered here"
    return (f"The preview above works at any cell size; an export is drawn with OpenDP's exact sampler, about "
            f"{1 / release.SECONDS_PER_VALUE / 1e3:.0f}k values per second, so it takes grids of up to "
            f"{release.MAX_EXPORT_CELLS:,} cells. For this {ctx.width} × {ctx.height} px stimulus that means "
            f"{sizes}; the current {ctx.cell_px} px cells make {ctx.gaze_maps.n_cells:,}. Choose a coarser cell "
            "size above to export.")


def export_section(ctx: view.Context) -> None:
    """The explicit private release: OpenDP noise at cell resolution, ledger entry, downloads (the page draws the
    heading). Its text depends on the grid and the noise family only, not on ε: an ε move does not redraw it."""
    if ctx.gaze_maps.n_cells > release.MAX_EXPORT_CELLS:
        st.info(export_limit_text(ctx), icon=":material/info:")
        return
    _export_words(ctx)
    if st.button("Export (private release)", type="primary", key="hm_export", icon=":material/ios_share:"):
        if not _export_now(ctx):
            return
    state.outcome_here("hm_export")  # a refusal, next to the button that was pressed
    _export_result()


def _export_words(ctx: view.Context) -> None:
    """What an export releases, with which noise, and a warning for each stimulus size read off the data."""
    r = ctx.gaze_maps.n_cells
    if ctx.preview.calibration.mechanism is Family.GAUSSIAN:
        # OpenDP's σ search takes ~0.1 s per (ε, δ): done when exporting, not on every slider move
        noise = ("Gaussian noise with σ a little above the preview's σ (Noise scale above): OpenDP accounts its "
                 "discrete Gaussian through zCDP, which needs slightly more noise for the same (ε, δ) "
                 "(docs/PRIVACY_MODEL.md §11); the exact σ is found when you export and shown with the result")
    else:
        noise = "Laplace noise with the preview's scale b = Δ₁/ε (Noise scale above)"
    st.markdown(
        f"Releases the noisy aggregate of '{md_text(ctx.stimulus.name)}' at cell resolution ({r:,} cells of {ctx.cell_px} px, "
        f"about {max(r * release.SECONDS_PER_VALUE, 0.1):.1f} s) with **fresh OpenDP noise** (discrete lattice "
        f"sampler, cryptographic RNG, no seed — not the preview above): {noise}. Each export is recorded in the "
        "study's ledger (Report page) as a new entry for every observer of this stimulus.")
    for what in state.data_derived_canvas(ctx.stimulus):
        st.warning(f"The {what} was read off the private data: it sets the grid and so the sensitivity, and the "
                   "ledger and the report flag every release drawn on it. Declare the stimulus size on *Your data* "
                   "(or upload the image) to make it public.", icon=":material/warning:")


def _export_now(ctx: view.Context) -> bool:
    """The pressed export: refused over the cap, else drawn, charged and kept for the next run (which it starts);
    False when the release failed (its error shown)."""
    r, cal = ctx.gaze_maps.n_cells, ctx.preview.calibration
    # The requested ε is the least the export charges: over the cap, refuse before drawing anything.
    ask = _planned_entry(ctx)
    if state.refusal([ask]) is not None:
        state.charge([ask], page="heatmaps", shown=(EXPORT_RESULT,), place="hm_export")  # refused: adds nothing
        st.rerun()
    with st.spinner(f"Drawing OpenDP noise for {r:,} cells…"):
        scale = export_scale(ctx)
        try:
            rel = release.release_heatmap(_export(ctx), scale)
        except ValueError as err:
            st.error(f"The release failed: {md_text(err)}")
            return False
    if not state.charge([with_canvas_caveat(rel.ledger_entry, ctx)], page="heatmaps", shown=(EXPORT_RESULT,),
                        place="hm_export"):
        st.rerun()  # OpenDP's own accounting pushed it over the study's cap: the draw is discarded
    st.session_state[EXPORT_RESULT] = {"label": rel.label, "eps": rel.epsilon_charged,
                                       "eps_lib": rel.epsilon_opendp, "files": _files(ctx, rel),
                                       "scale": scale, "preview_scale": cal.scale,
                                       "gaussian": cal.mechanism is Family.GAUSSIAN}
    st.rerun()  # the sidebar's ledger summary was drawn before this run recorded the release
    return True


def _export_result() -> None:
    """The last export of this session: what was charged, the σ used, and its downloads and picture."""
    res = st.session_state.get(EXPORT_RESULT)
    if not res:
        return
    lib = (f" (OpenDP's own accounting of the release: ε = {fmt_num(res['eps_lib'])}; the ledger charges the "
           "larger of this and the requested ε)") if res["eps_lib"] is not None else ""
    used = (f" Noise σ = {fmt_num(res['scale'])} ({res['scale'] / res['preview_scale']:.3f}× the preview's σ)."
            if res.get("gaussian") else "")
    st.success(f"Released {md_text(res['label'])}; ledger charged ε = {fmt_num(res['eps'])}{lib}.{used}",
               icon=":material/check_circle:")
    st.markdown(badge("PRIVATE RELEASE (OpenDP)", "dp"), unsafe_allow_html=True)
    a, b, c = st.columns(3)
    a.download_button("Noisy aggregate (CSV)", res["files"]["csv"], "eyedp_heatmap_release.csv", "text/csv",
                      key="hm_dl_csv")
    b.download_button("Heatmap image (PNG)", res["files"]["png"], "eyedp_heatmap_release.png", "image/png",
                      key="hm_dl_png")
    c.download_button("Release metadata (JSON)", res["files"]["json"], "eyedp_heatmap_release.json",
                      "application/json", key="hm_dl_json")
    st.image(res["files"]["png"], width=640,
             caption="The released map, smoothed after the release (post-processing); colour range from the "
                     "released map itself, since the clean map's maximum is private.")


def scale_out_expander() -> DeltaGenerator:
    """"Run this release at scale" (lazy: its content, scale_out_body, is drawn only while it is open)."""
    return st.expander("Run this release at scale", icon=":material/dns:", key="hm_scale_open", on_change="rerun")


def scale_out_body(ctx: view.Context) -> None:
    """The settings file and the batch commands for the current settings (the files are built only when
    downloaded)."""
    try:
        s = HeatmapSettings(stimulus=ctx.source.stimulus_name, width=ctx.width, height=ctx.height, cell_px=ctx.cell_px,
                            epsilon=ctx.epsilon, delta=ctx.delta, mechanism=ctx.mechanism,
                            method=preview.gaussian_method(ctx.method, ctx.epsilon), cap_m=ctx.cap_m,
                            cap_total=ctx.cap_total, sigma_px=ctx.sigma_px, weight=ctx.weight)
    except ValueError as err:
        st.info(f"Batch releases cannot run these settings: {md_text(err)}.", icon=":material/info:")
        return
    st.markdown("The same release (same bounds, calibration and guarantee) over all your observers' sharded "
                "fixation files, on this machine or on Spark (README, *Scaling out*). Replace the input glob "
                "with your files' location.")
    st.code(s.command(), language="bash")
    a = b = c = st.container(horizontal=True, gap="small")  # one block, not three columns: re-sent per ε move
    a.download_button("Job settings (JSON)", lambda: s.to_json().encode(),
                      "eyedp_heatmap_settings.json", "application/json", key="hm_scale_settings",
                      on_click="ignore")
    b.download_button("Commands (shell)", functools.partial(_commands, s), "eyedp_heatmap_batch.sh",
                      "text/x-shellscript", key="hm_scale_commands", on_click="ignore")
    if float(s.cap_m).is_integer():  # PipelineDP counts whole contributions
        c.download_button("PipelineDP script (Python)", lambda: pipelinedp_script(s).encode(),
                          "eyedp_heatmap_pipelinedp.py", "text/x-python", key="hm_scale_pdp", on_click="ignore")


def _commands(s: HeatmapSettings) -> bytes:
    """Settings -> a shell script with the batch command for each engine."""
    lines = ["#!/bin/sh", "# EyeDP batch heatmap release: the Heatmaps page's current settings (README, Scaling out).",
             "# Replace the input glob with your fixation shards (Parquet, CSV or CSV.gz: observer, x, y[, stimulus]).",
             "", "# Embedded engine (one machine, bounded memory, OpenDP noise):", s.command(), "",
             "# PipelineDP on Spark (pip install -r requirements-scale.txt; --master your cluster's URL):",
             "# " + s.command(engine=Engine.SPARK), ""]
    return "\n".join(lines).encode()
