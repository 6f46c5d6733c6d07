"""The Heatmaps view's target finder, A/B comparison and the private-choice-of-m comparison (cached calls of
eyedp_core.heatmaps.targets, their panels and the one figure of the finder).

Each panel's own controls sit in a fragment, so moving them re-runs only that panel; the A/B maps are pictures
(JPEG through images.overlay_jpeg), the numbers markdown tables, and the finder's curve a PNG drawn with PIL: no
Plotly chart and no dataframe on these panels (their controls redraw them on every move)."""
from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st
from PIL import Image, ImageDraw

from eyedp_core.data import bundled
from eyedp_core.dp.registry import Family, GaussianMethod, SelectionMethod
from eyedp_core.heatmaps import cap, maps, preview, targets
from eyedp_core.heatmaps.calibration import HeatmapSetting
from eyedp_core.heatmaps.cap import SelectionSpec
from eyedp_core.heatmaps.targets import Basis, DrawSpec, Measure
from eyedp_core.metrics import pearson_cc
from ui import picture, theme
from ui.fragment import fragment
from ui.heatmaps import figs, images, view
from ui.numbers import Number, numbers_html
from ui.text import html_text
from ui.widgets import fmt_num, index_in_force, log_slider, value_in_force

Q_CHOICES = (0.01, 0.02, 0.05, 0.1, 0.2)
BASES = {Basis.PRIVATE.value: "these data (tuning, not itself private)",
         Basis.PILOT.value: "public pilot: the bundled sample on a stimulus"}
MEASURES = {Measure.CC.value: "CC", Measure.HOT_SPOTS.value: "hot spots kept"}
SLOW_SECONDS = 2.0  # above this the estimate is shown before the computation starts

PlanNote = Callable[[float | None, str], None]  # (the finder's smallest ε or None, its target in words)


def _pct(v: float) -> str:
    """A share as a whole percentage ("16 %")."""
    return f"{100 * v:.0f} %"


def q_value() -> float:
    """The top share q the hot-spots measure uses (a public parameter, hm_q)."""
    return float(st.session_state.get("hm_q", targets.DEFAULT_Q))


def _band(lo: float | None, hi: float | None, fmt) -> str:
    """10–90 % band in words (an end outside the grid is said so)."""
    return f"{fmt(lo) if lo is not None else 'below the range'} – {fmt(hi) if hi is not None else 'beyond the range'}"


# --------------------------------------------------------------------------------------------
# the basis map


@st.cache_resource(show_spinner="Building the pilot maps…", max_entries=8)
def pilot_maps(stimulus: str, cell: int, weight: str) -> maps.GazeMaps:
    """A bundled stimulus, cell size and weighting -> the bundled (public, synthetic) sample's gaze maps on it."""
    fix = bundled.load_sample("fixations")
    img = bundled.stimulus_image(stimulus)
    h, w = img.shape[:2]
    sub, _ = preview.fixations_for_stimulus(fix, "the bundled sample", stimulus, w, h)
    return maps.gaze_maps(sub, w, h, cell, weight)


def _basis_maps(ctx: view.Context, basis: Basis, pilot: str | None) -> tuple[tuple, maps.GazeMaps]:
    """Basis and pilot stimulus -> (cache key, gaze maps) of the data the answers are computed on."""
    if basis is Basis.PILOT and pilot is not None:
        return ("pilot", pilot, ctx.cell_px, ctx.weight), pilot_maps(pilot, ctx.cell_px, ctx.weight)
    return ctx.maps_key, ctx.gaze_maps


@dataclass(frozen=True)
class Question:
    """What the finder asks: the measure, the target its mean must reach, and the basis the answers are computed on."""

    measure: Measure
    target: float
    basis: Basis


# A shared object (st.cache_resource: no unpickled copy of every draw per move); nothing mutates the answers.
@st.cache_resource(show_spinner=False, max_entries=24)
def answers(key: tuple, n: int, setting: HeatmapSetting, question: Question, draws: DrawSpec, seed: int,
            _gm: maps.GazeMaps) -> tuple[targets.TargetAnswer, ...]:
    """Basis maps (by key), the study's n, the setting (privacy, caps, kernel), the question (measure, target,
    basis), draws (R, q) and seed -> (smallest ε, observers needed at the setting's ε by the planning model[, by
    subsamples of the basis' observers on grids up to targets.SUBSAMPLE_CELLS cells])."""
    measure, target, basis = question.measure, question.target, question.basis
    agg = maps.aggregate(_gm, setting.cap_m, setting.cap_total)
    on_grid = replace(setting, cell_px=_gm.cell)
    eps = targets.epsilon_for_target(agg, n, on_grid, measure, target, np.random.default_rng(seed),
                                     basis=basis, draws=draws)
    obs = targets.observers_for_target(agg, on_grid, measure, target, np.random.default_rng(seed),
                                       basis=Basis.PLANNING, draws=draws)
    if _gm.n_cells > targets.SUBSAMPLE_CELLS:
        return eps, obs
    sub = targets.observers_by_subsample(_gm, on_grid, measure, target, np.random.default_rng(seed),
                                         basis=basis, draws=draws)
    return eps, obs, sub


FIG_W, FIG_H = 900, 300
FIG_LEFT, FIG_RIGHT, FIG_TOP, FIG_BOTTOM = 56, 18, 14, 50


@st.cache_data(show_spinner=False, max_entries=32)
def _cached_finder_png(cache_key: tuple, current_eps: float, _answer: targets.TargetAnswer) -> bytes:
    """finder_png, cached on the answers' key (everything they depend on) and the current ε."""
    return finder_png(_answer, current_eps)


def finder_png(answer: targets.TargetAnswer, current_eps: float) -> bytes:
    """The ε answer and the current ε -> PNG of the measure versus ε (log axis): mean, 10–90 % band of the draws,
    the target (dashed) and the current ε (dotted). A picture: the finder's controls redraw it on every move."""
    x, mean, lo, hi = answer.curve()
    lx0, lx1 = math.log10(x[0]), math.log10(x[-1])
    pw, ph = FIG_W - FIG_LEFT - FIG_RIGHT, FIG_H - FIG_TOP - FIG_BOTTOM

    def px(v):
        return FIG_LEFT + (np.log10(np.asarray(v, float)) - lx0) / (lx1 - lx0) * pw

    def py(v):
        return FIG_TOP + (1.05 - np.clip(np.nan_to_num(np.asarray(v, float)), -0.05, 1.05)) / 1.1 * ph

    img = Image.new("RGB", (FIG_W, FIG_H), "white")
    band = Image.new("RGBA", (FIG_W, FIG_H), (0, 0, 0, 0))
    ImageDraw.Draw(band).polygon(list(zip(np.r_[px(x), px(x[::-1])], np.r_[py(hi), py(lo[::-1])])),
                                 fill=picture.rgb(theme.PRIMARY) + (46,))
    d = ImageDraw.Draw(img)
    small = picture.font(12)
    grid, muted = (230, 233, 238), picture.rgb(theme.MUTED)
    for v in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        y = float(py(v))
        d.line([(FIG_LEFT, y), (FIG_LEFT + pw, y)], fill=grid)
        d.text((FIG_LEFT - 6, y), f"{v:g}", fill=muted, font=small, anchor="rm")
    for e in range(math.ceil(lx0), math.floor(lx1) + 1):
        xx = float(px(10.0 ** e))
        d.line([(xx, FIG_TOP), (xx, FIG_TOP + ph)], fill=grid)
        d.text((xx, FIG_TOP + ph + 6), f"{10.0 ** e:g}", fill=muted, font=small, anchor="ma")
    img.paste(band, (0, 0), band)
    d = ImageDraw.Draw(img)
    d.line(list(zip(px(x), py(mean))), fill=picture.rgb(theme.PRIMARY), width=3)
    ty = float(py(answer.target))
    for x0 in range(FIG_LEFT, FIG_LEFT + pw, 12):  # the target, dashed
        d.line([(x0, ty), (min(x0 + 7, FIG_LEFT + pw), ty)], fill=muted, width=2)
    d.text((FIG_LEFT + pw - 4, ty - 4), f"target {answer.target:g}", fill=muted, font=small, anchor="rb")
    if x[0] <= current_eps <= x[-1]:  # the current ε, dotted
        cx = float(px(current_eps))
        for y0 in range(FIG_TOP, FIG_TOP + ph, 6):
            d.line([(cx, y0), (cx, y0 + 2)], fill=muted, width=2)
        d.text((cx + 4, FIG_TOP + 2), f"current ε = {fmt_num(current_eps)}", fill=muted, font=small, anchor="la")
    if answer.value is not None:
        ax = float(px(answer.value))
        d.ellipse([(ax - 5, ty - 5), (ax + 5, ty + 5)], outline=picture.rgb(theme.PRIMARY), width=2)
    d.text((FIG_LEFT + pw / 2, FIG_H - 6), f"ε per observer (log scale) — {answer.measure.words}: mean (line) and "
                                           "10–90 % of the draws (band)", fill=muted, font=picture.font(13),
           anchor="mb")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# target finder


def target_panel(ctx: view.Context, plan_note: PlanNote | None = None) -> None:
    """Smallest ε and observers needed for a target on CC or hot spots kept, with their spread (the lead is drawn
    outside the finder's fragment: a move of its controls does not re-send it); `plan_note(ε found, target in
    words)` states under the answer what the session's study plan affords (the page passes it: ui.plan sits above
    this package)."""
    st.markdown("**Hot spots kept** is the share of the clean heatmap's top q cells (its hot spots) that are "
                "also among the noisy heatmap's top cells. Set a target on it or on CC and read the smallest ε "
                "that reaches it, and how many observers would reach it at the current ε.")
    _target_part(ctx, plan_note)


def _answer_lines(ctx: view.Context, answers_: tuple[targets.TargetAnswer, ...], words: str, target: float,
                  basis: str, n_basis: int) -> list[str]:
    """The finder's answers (smallest ε, observers by the planning model[, by subsamples]) as markdown bullets."""
    eps_ans, obs_ans, *sub = answers_
    lines = []
    if eps_ans.value is not None:
        lo, hi = eps_ans.expected_band
        lines.append(f"- **ε = {fmt_num(eps_ans.value)}** per observer (10–90 % of draws: "
                     f"{_band(eps_ans.low, eps_ans.high, fmt_num)}): expected {words} {eps_ans.expected:.2f} "
                     f"(10–90 %: {lo:.2f}–{hi:.2f}). Basis: {eps_ans.basis.words}.")
    else:
        lines.append(f"- No ε up to 1000 reaches a mean {words} of {target:g} with these caps and this grid.")
    if obs_ans.value is not None:
        lo, hi = obs_ans.expected_band
        lines.append(f"- **{int(obs_ans.value):,} observers** at ε = {fmt_num(ctx.epsilon)} (10–90 %: "
                     f"{_band(obs_ans.low, obs_ans.high, lambda v: f'{int(v):,}')}): expected {words} "
                     f"{obs_ans.expected:.2f} (10–90 %: {lo:.2f}–{hi:.2f}). Basis: the {Basis.PLANNING.words} "
                     f"({'the pilot' if basis == Basis.PILOT.value else 'these data'}); the sampling error of a "
                     f"smaller study is not included. This study has n = {ctx.n_observers}.")
    else:
        lines.append(f"- Even 10⁶ observers do not reach a mean {words} of {target:g} at ε = "
                     f"{fmt_num(ctx.epsilon)}: the cap m biases the map more than the target allows.")
    who = "the pilot's" if basis == Basis.PILOT.value else "these"
    if sub and sub[0].value is not None:
        a = sub[0]
        lo, hi = a.expected_band
        lines.append(f"- **{int(a.value):,} of {who} {n_basis} observers** at ε = {fmt_num(ctx.epsilon)} "
                     f"(10–90 %: {_band(a.low, a.high, lambda v: f'{int(v):,}')}), drawing them without replacement "
                     f"(sampling error and noise, against the map of all {n_basis}): expected {words} "
                     f"{a.expected:.2f} (10–90 %: {lo:.2f}–{hi:.2f}).")
    elif sub:
        lines.append(f"- Even all {n_basis} of {who} observers do not reach a mean {words} of {target:g} at "
                     f"ε = {fmt_num(ctx.epsilon)}.")
    return lines


@fragment(name="targets")
def _target_part(ctx: view.Context, plan_note: PlanNote | None = None) -> None:
    """The finder's controls and answers (its own fragment: its controls re-run only this panel)."""
    row = st.container(horizontal=True, gap="medium")  # blocks, not columns: re-sent on every move of the finder
    measure = row.radio("Target on", list(MEASURES), format_func=MEASURES.get, key="hm_tg_measure",
                        index=index_in_force("hm_tg_measure", list(MEASURES)))
    target = row.slider("Target", 0.3, 0.99, value_in_force("hm_tg_target", 0.8), 0.01, key="hm_tg_target",
                        help="The mean over the draws must reach this value.")
    q = row.select_slider("Hot spots = top share q", Q_CHOICES, value=value_in_force("hm_q", targets.DEFAULT_Q), key="hm_q",
                          format_func=lambda v: f"{_pct(v)}", help="A public parameter, not read off the data.")
    basis = row.radio("Basis", list(BASES), format_func=BASES.get, key="hm_tg_basis",
                      index=index_in_force("hm_tg_basis", list(BASES)))
    row2 = st.container(horizontal=True, gap="medium")
    pilots = bundled.stimulus_names()
    pilot = row2.selectbox("Pilot stimulus (bundled sample)", pilots, key="hm_tg_pilot",
                           index=index_in_force("hm_tg_pilot", list(pilots)),
                           disabled=basis != Basis.PILOT.value,
                           help="The bundled sample is synthetic and public: answers on it cost these observers "
                                "nothing. It is built at the page's cell size, weighting and caps.")
    R = row2.slider("Draws R", 20, 300, value_in_force("hm_tg_R", 100), 10, key="hm_tg_R")
    key, gm = _basis_maps(ctx, Basis(basis), pilot)
    setting = ctx.setting
    est = targets.estimate_seconds(gm.n_cells, len(targets.EPS_GRID) + len(targets.N_GRID), R, Measure(measure))
    note = st.empty() if est > SLOW_SECONDS else None  # the time estimate only where it is slow
    if note is not None:
        note.info(f"Estimated time: about {est:.0f} s ({gm.n_cells:,} cells × {R} draws); computed once, then "
                  "cached.", icon=":material/schedule:")
    answers_key = (key, ctx.n_observers, setting, Question(Measure(measure), float(target), Basis(basis)),
                   DrawSpec(R=int(R), q=float(q)), ctx.preview_seed)
    eps_ans, obs_ans, *sub = answers(*answers_key, gm)
    if note is not None:
        note.empty()
    words = Measure(measure).words
    shown = [
        Number(f"Smallest ε per observer for {words} ≥ {target:g}",
               "not reached by ε = 1000" if eps_ans.value is None else
               ("≤ " if eps_ans.value <= targets.EPS_GRID[0] else "") + fmt_num(eps_ans.value),
               "Where the mean over the draws reaches the target; the band is where 10 % and 90 % of the draws "
               "reach it."),
        Number(f"Observers needed at ε = {fmt_num(ctx.epsilon)}",
               "more than 10⁶" if obs_ans.value is None else
               ("≤ " if obs_ans.value <= targets.N_GRID[0] else "") + f"{int(obs_ans.value):,}",
               "Planning model: N different observers with maps like the basis map (noise only)."),
    ]
    lines = _answer_lines(ctx, (eps_ans, obs_ans, *sub), words, float(target), basis, gm.n_observers)
    # The two answers as one numbers row and their explanations in one element (re-sent on every move here).
    st.markdown(numbers_html(shown) + "\n\n" + "\n".join(lines), unsafe_allow_html=True)
    if plan_note is not None:
        plan_note(eps_ans.value, f"{words} ≥ {target:g}")
    st.image(_cached_finder_png(answers_key, ctx.epsilon, eps_ans), width="stretch")
    st.caption(f"R = {R} seeded preview draws per point (seed {ctx.preview_seed}; one noise field per draw "
               f"rescaled to every ε: common random numbers); {figs.MECH_LABEL[ctx.mechanism]} noise, δ = "
               f"{fmt_num(ctx.delta_used)}, cap m = {ctx.cap_m:g}"
               + (f", C = {fmt_num(ctx.cap_total)}" if ctx.cap_total else "") +
               f"; maps smoothed with σ = {ctx.sigma_px:.1f} px and compared with the clean map after the same "
               f"smoothing; hot spots = top {_pct(q)} of cells (ties at the threshold all kept). "
               + ("These answers read every observer's map: using them to pick ε is tuning on private data, not "
                  "covered by the guarantee." if basis == Basis.PRIVATE.value else ""))


# --------------------------------------------------------------------------------------------
# private choice of m next to a fixed public m


@st.cache_data(show_spinner="Simulating both choices of m…", max_entries=16)
def cap_comparison(key: tuple, fixed_m: float, candidates: tuple[float, ...], selection: SelectionSpec,
                   setting: HeatmapSetting, draws: DrawSpec, seed: int, _gm: maps.GazeMaps) -> targets.CapComparison:
    """Gaze maps (by key), the fixed m, the public candidates, the selection (bound, ε, method), the map's setting
    (privacy, caps, kernel), draws (R, q) and seed -> CapComparison (on these private data: tuning)."""
    return targets.cap_choice_utility(_gm, fixed_m=fixed_m, candidates=candidates, selection=selection,
                                      setting=setting, rng=np.random.default_rng(seed), basis=Basis.PRIVATE,
                                      draws=draws)


def cap_comparison_block(ctx: view.Context, raw_bound: float, selection_epsilon: float, method: SelectionMethod,
                         fixed_m: float) -> None:
    """The fixed public m next to the private choice of m, with the expected CC and hot spots kept of each."""
    cands = cap.public_candidates(ctx.weight, raw_bound)
    if not cands:
        return
    q = q_value()
    comp = cap_comparison(ctx.maps_key, float(fixed_m), tuple(cands),
                          SelectionSpec(float(raw_bound), float(selection_epsilon), method), ctx.setting,
                          DrawSpec(R=50, q=q), ctx.preview_seed, ctx.gaze_maps)
    cc, kept = comp.summary(Measure.CC), comp.summary(Measure.HOT_SPOTS)
    likely = comp.candidates[int(np.argmax(comp.probabilities))]
    u = ctx.short_unit
    eps = ctx.epsilon
    rows = [
        "| | ε per observer | expected CC (10–90 %) | expected hot spots kept (10–90 %) |",
        "|---|---|---|---|",
        f"| **fixed public m = {fixed_m:g} {u}** | {fmt_num(eps)} | {cc['fixed'][0]:.2f} "
        f"({cc['fixed'][1]:.2f}–{cc['fixed'][2]:.2f}) | {_pct(kept['fixed'][0])} "
        f"({_pct(kept['fixed'][1])}–{_pct(kept['fixed'][2])}) |",
        f"| **private choice of m** (ε = {fmt_num(selection_epsilon)}) | {fmt_num(eps + selection_epsilon)} | "
        f"{cc['private'][0]:.2f} ({cc['private'][1]:.2f}–{cc['private'][2]:.2f}) | {_pct(kept['private'][0])} "
        f"({_pct(kept['private'][1])}–{_pct(kept['private'][2])}) |",
    ]
    diff = cc["private"][0] - cc["fixed"][0]
    verdict = (f"the private choice is expected to **{'raise' if diff > 0 else 'lower'} mean CC by "
               f"{abs(diff):.2f}**" if abs(diff) >= 0.005 else "both are expected to give the same mean CC")
    st.markdown(f"**Private choice of m or a fixed public m?** At ε = {fmt_num(eps)} for the map, {verdict} "
                f"and it spends {fmt_num(selection_epsilon)} more per observer. ")
    st.markdown("\n".join(rows))
    st.caption(f"Both against the uncapped clean map after smoothing (a common reference, so the bias of a small m "
               f"counts), {comp.cc.shape[1]} seeded draws per m. The private choice is the mixture over the public "
               f"candidates {', '.join(f'{v:g}' for v in comp.candidates)} {u} with the selection's probabilities "
               f"(most likely m = {likely:g}, p = {comp.probabilities.max():.2f}). Computed on these private data: "
               "tuning that is not itself private, and no ε is charged for it.")


# --------------------------------------------------------------------------------------------
# A/B comparison


def compare_panel(ctx: view.Context) -> None:
    """Two settings side by side: A = the page's, B = chosen here (the lead is drawn outside B's fragment: a move of
    B does not re-send it)."""
    st.markdown("**A** is the setting chosen above; choose **B** here. Both use the same preview seed, grid and "
                "kernel, and are compared with the clean heatmap shown above.")
    _compare_part(ctx)


@fragment(name="compare")
def _compare_part(ctx: view.Context) -> None:
    """B's controls, both maps as pictures, their numbers and guarantees, and the difference in one sentence."""
    row = st.container(horizontal=True, gap="medium")  # one block, not three columns: re-sent on every move of B
    with row:
        eps_b = log_slider("ε of B (per observer)", 0.01, 100.0, 10.0, "hm_ab_eps")
    cands = cap.PUBLIC_CAPS[ctx.weight]
    m_b = row.select_slider(f"Cap m of B ({ctx.short_unit})", cands, key="hm_ab_m",
                            value=value_in_force("hm_ab_m", float(cands[0])))
    mechs = [f.value for f in figs.MECH_LABEL]
    mech_b = Family(row.radio("Noise of B", mechs, format_func=lambda v: figs.MECH_LABEL[v], key="hm_ab_mech",
                              index=index_in_force("hm_ab_mech", mechs), horizontal=True))
    side_b = ab_side(ctx, "B", float(eps_b), float(m_b), mech_b)
    side_a = ab_side(ctx, "A", ctx.epsilon, ctx.cap_m, ctx.mechanism)
    # Columns, not a horizontal block: their widths are fixed halves whatever picture arrives first.
    for col, name, side in zip(st.columns(2, gap="small"), ("A", "B"), (side_a, side_b)):
        col.image(side["jpeg"], width="stretch",
                  caption=f"**{name}** — {figs.MECH_LABEL[side['mechanism']]}, ε = {fmt_num(side['epsilon'])}, "
                          f"m = {side['m']:g} {ctx.short_unit}")
    a, b = side_a["utility"], side_b["utility"]
    rows = ["| | A | B |", "|---|---|---|",
            f"| guarantee per observer | {side_a['guarantee']} | {side_b['guarantee']} |",
            f"| ε per observer (this map) | {fmt_num(a.epsilon_per_observer)} | {fmt_num(b.epsilon_per_observer)} |",
            f"| δ | {fmt_num(a.delta)} | {fmt_num(b.delta)} |",
            f"| noise std σ per cell | {a.std:.3g} | {b.std:.3g} |",
            f"| CC of this preview | {side_a['cc']:.3f} | {side_b['cc']:.3f} |",
            f"| expected CC (10–90 %) | {a.cc:.2f} ({side_a['cc_band']}) | {b.cc:.2f} ({side_b['cc_band']}) |",
            f"| hot spots kept, this preview | {_pct(side_a['kept'])} | {_pct(side_b['kept'])} |",
            f"| expected hot spots kept (10–90 %) | {_pct(a.kept)} ({side_a['kept_band']}) | "
            f"{_pct(b.kept)} ({side_b['kept_band']}) |"]
    note = ("ε per observer of this map (A's includes a private choice of m made on these data). Expected "
            f"values over {AB_DRAWS} seeded draws; hot spots = top {_pct(q_value())} of cells. Previews "
            "only: nothing here is released or charged.")
    # The table, the difference and the note in one element (re-sent on every move of B).
    st.markdown("\n".join(rows) + "\n\n" + targets.difference_sentence(a, b)
                + f'\n\n<div class="eyedp-note">{html_text(note)}</div>', unsafe_allow_html=True)


AB_DRAWS = 100


def ab_side(ctx: view.Context, label: str, eps: float, m: float, mechanism: Family) -> dict:
    """One side of the A/B panel at (ε, m, noise) with the page's other settings -> picture, numbers, guarantee."""
    method = preview.gaussian_method(ctx.method, eps) if mechanism is Family.GAUSSIAN else GaussianMethod.ANALYTIC
    setting = replace(ctx.setting, epsilon=eps, mechanism=mechanism, method=method, cap_m=m)
    sens = preview.maps_sensitivity(ctx.gaze_maps, m, ctx.cap_total)
    clean = view.clean_maps(ctx.maps_key, m, ctx.cap_total, ctx.sigma_px, ctx.gaze_maps)
    prev = view.noisy_preview(ctx.maps_key, setting, ctx.preview_seed, clean, sens)
    q = q_value()
    nums = side_numbers(ctx, clean.agg, setting, prev.smooth, q)
    delta = preview.delta_spent(mechanism, ctx.delta)
    jpeg = images.cached_overlay_jpeg(("ab", ctx.maps_key, m, ctx.cap_total, ctx.sigma_px, eps, ctx.delta, mechanism,
                                       method, ctx.preview_seed), ctx.stimulus.token, ctx.cell_px, ctx.clean.vmax,
                                      ctx.stimulus.image, prev.smooth)
    # The page's own setting also carries a private choice of m made on these data (its ε adds up).
    extra = ctx.selection_epsilon if label == "A" else 0.0
    util = targets.SettingUtility(label, eps + extra, delta, nums["std"], nums["cc"], nums["kept"])
    return {"epsilon": eps, "m": m, "mechanism": mechanism, "jpeg": jpeg, "utility": util,
            "guarantee": prev.calibration.guarantee, "cc": nums["cc_now"], "kept": nums["kept_now"],
            "cc_band": nums["cc_band"], "kept_band": nums["kept_band"]}


def side_numbers(ctx: view.Context, agg: np.ndarray, setting: HeatmapSetting, noisy_smooth: np.ndarray,
                 q: float) -> dict:
    """One side's numbers (its setting: ε, noise, m and the page's other settings) against the page's clean map
    (cached per setting)."""
    return _side_numbers(ctx.maps_key, setting, ctx.preview_seed, q, ctx.cap_m, ctx.n_observers,
                         (agg, ctx.clean.agg, ctx.clean.smooth, noisy_smooth))


@st.cache_data(show_spinner=False, max_entries=32)
def _side_numbers(key: tuple, setting: HeatmapSetting, seed: int, q: float, ref_m: float, n: int,
                  _maps: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> dict:
    """One side's numbers, cached on everything they depend on (the reference is the page's clean map at cap
    ref_m; `_maps`: this side's aggregate, the reference aggregate, the smoothed reference and this side's
    smoothed preview): its noise std, expected CC and hot spots kept over AB_DRAWS draws, and those of its
    preview."""
    _agg, _ref_agg, _ref_smooth, _noisy_smooth = _maps
    std = setting.std(n, _agg.size)
    d = targets.utility_at_stds(_agg, [std], np.random.default_rng(seed), replace(setting, cell_px=key[2]),
                                DrawSpec(R=AB_DRAWS, q=q), reference=_ref_agg)
    cc, kept = d.cc[0], d.kept[0]
    return {"std": std, "cc": float(np.nanmean(cc)), "kept": float(np.nanmean(kept)),
            "cc_band": "–".join(f"{v:.2f}" for v in np.nanquantile(cc, targets.BAND)),
            "kept_band": "–".join(f"{_pct(v)}" for v in np.nanquantile(kept, targets.BAND)),
            "cc_now": float(pearson_cc(_ref_smooth, _noisy_smooth)),
            "kept_now": float(targets.hot_spots_kept(_ref_smooth, _noisy_smooth, q))}
