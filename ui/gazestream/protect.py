"""Gaze-samples page, "Protect the stream" view.

One method is shown at a time (the Method picker): its promise, its controls, its protected scanpath or its
own chart, then the side-by-side table of every method and the share box. That method's part is a fragment
of its own (gs_kaleido, gs_synth, gs_pd), nested in the view's fragment (gs_protect): moving one of its
sliders re-runs only that part, and the table is rebuilt from every method's cached results. Only the shown
method's controls are drawn; the table takes the other methods' settings from their kept values
(ui/gazestream/controls.py). The switches that choose what is drawn (figure, interactive chart, formulas)
sit in the view's fragment above the method's part, the attack and share switches under it: none of them is
re-sent on a move of the method's sliders.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from eyedp_core.dp.registry import Mech
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream import explain
from eyedp_core.gazestream.deniability import PDSettings
from eyedp_core.gazestream.kaleido import stream_windows
from eyedp_core.gazestream.streams import PreparedStreams
from ui import state
from ui.fragment import fragment
from ui.gazestream import controls, figs, panels, risk, view
from ui.gazestream.methods import METHOD_LABELS, PICKER_LABELS, method_of
from ui.gazestream.table import utility_table
from ui.share.tools import remember, share_box, share_toggle
from ui.text import md_text
from ui.widgets import preview_watermark

LEAD = ("**What each method promises.** **Kaleido** is differential privacy *per window of samples*: any "
        "w consecutive samples are protected at ε for moves up to r pixels — not the whole recording. "
        "**k-same-synth** is **NOT differential privacy**: every released event parameter is the mean of at least "
        "k people, so knowing all but one of a group gives the last one away. **Plausible deniability** as "
        "published is **NOT differential privacy** either: a fixation is released only if k − 1 others could "
        "have produced it, and failing ones are re-drawn. Its randomised-threshold form is **NOT differential "
        "privacy as implemented** either: the paper claims a per-fixation (ε, δ) (never a per-person one) for "
        "records published apart from their seed, but here each record keeps its seed's participant. Pick a method to see its promise with your numbers, its protected "
        "scanpath, and every method side by side.")
REID_HELP = ("Trains a classifier on each person's clean earlier windows and names the person behind each later "
             "protected window. It takes a few seconds for every new setting, so it runs when switched on; "
             "settings already measured keep their figure.")


@dataclass(frozen=True, eq=False)
class Scope:
    """What every method's part needs: data, the chosen stream, its stimulus and the preview seed."""

    token: str
    prep: PreparedStreams
    who: object
    stim_name: str | None
    sel: str | None
    geometry: Geometry
    seed: int
    one: pd.DataFrame
    uri: str | None
    note: str
    figure: str  # "scanpath" or "detail" (the method's own chart)
    interactive: bool  # the scanpaths as the Plotly chart
    formulas: bool  # the formulas written under each promise
    every_setting: bool  # Kaleido's four finer sliders drawn too (else their kept values, named above the part)
    attack: bool  # measure re-identification for the table
    share_box: Any  # the open share box's container (under its switch), or None while it is closed
    # Draws the study plan's "Add to plan" box for Kaleido on this screen (px); the page passes it (ui.plan sits
    # above this package), None: not drawn.
    plan_box: Callable[[tuple[int, int]], None] | None = None

    @property
    def stream_key(self) -> tuple:
        return (self.token, str(self.who), self.stim_name)


@dataclass(frozen=True)
class Settings:
    """Every method's settings (the shown method's from its own part, the others' from the folded box)."""

    kal: view.KaleidoSettings
    syn: int
    pd: PDSettings


@fragment(name="gs_protect")
def protect_view(token: str, prep: PreparedStreams, who: object, stim_name: str | None, sel: str | None,
                 geometry: Geometry, plan_box: Callable[[tuple[int, int]], None] | None = None) -> None:
    """Checked streams, the chosen participant and stimulus -> the Protect view (a fragment); `plan_box(screen)`
    draws the study plan's box under Kaleido's part."""
    st.markdown(LEAD)
    c = st.columns([1, 3, 2])
    seed = int(c[0].number_input("Preview seed", 0, 2**31 - 1, key="gs_seed", **controls.keep_value("gs_seed", 0),
                                 help="Every protected stream here is drawn from a numpy Generator seeded with "
                                      "this number (reproducible previews, docs/PRIVACY_MODEL.md §11)."))
    # The picker holds labels (settings files and share links store them); the page works on the member.
    shown = c[1].radio("Method", list(PICKER_LABELS), horizontal=True, key="gs_show")
    with c[2]:
        preview_watermark()
    one = view.pick(prep.frame, who, stim_name, sel)
    uri, note = _stimulus(stim_name, geometry)
    mech = method_of(shown)  # the picker's label, parsed once
    figure, interactive, formulas, every_setting = _switches(mech)
    part = st.container()  # the method's part, drawn last: the switches under it are not re-sent on its moves
    attack = st.toggle("Re-identification attack", key="gs_reid", help=REID_HELP)
    share = share_toggle()
    scope = Scope(token, prep, who, stim_name, sel, geometry, seed, one, uri, note, figure, interactive, formulas,
                  every_setting, attack, st.container() if share else None, plan_box)
    with part:
        if mech is Mech.KALEIDO:
            kaleido_part(scope)
        elif mech is Mech.K_SAME_SYNTH:
            synth_part(scope)
        else:
            pd_part(scope, mech)


DETAIL = {Mech.KALEIDO: "Budget per window", Mech.EVENT_SYNTH_PD: "Draws per fixation",
          Mech.EVENT_SYNTH_PD_RANDOMISED: "Draws per fixation"}


def _switches(mech: Mech) -> tuple[str, bool, bool, bool]:
    """The figure under the method's controls (the scanpaths or the method's own chart; one chart redrawn per
    move), whether the scanpaths are the interactive chart, whether the promises show their formulas, and whether
    Kaleido's finer sliders are drawn -> (figure, interactive, formulas, every_setting)."""
    row = st.container(horizontal=True, vertical_alignment="center", gap="medium")
    figure = "scanpath"
    if mech in DETAIL:
        figure = row.radio("Figure", ["scanpath", "detail"], horizontal=True, key="gs_fig",
                           label_visibility="collapsed",
                           format_func={"scanpath": "Scanpaths over the stimulus", "detail": DETAIL[mech]}.get)
    # A picture by default: the sliders redraw it on every move, and swapping an image is far cheaper for the
    # browser than a Plotly redraw (ui/gazestream/scanpath_image.py); the Plotly figure is one switch away.
    interactive = figure == "scanpath" and row.toggle("Interactive chart", key="gs_scan_interactive",
                                                      help="Axes in px, zoom; slower to redraw than the picture.")
    formulas = row.toggle("Formulas", key="gs_formulas",
                          help="Each promise's formulas with these settings, under its words (docs/PRIVACY_MODEL.md).")
    every_setting = False
    if mech is Mech.KALEIDO:
        # Four sliders fewer re-sent on every move of ε, w or r while the finer settings keep their values; the
        # values in force are named here (they cannot change while their sliders are hidden).
        every_setting = row.toggle("All Kaleido settings", key="gs_kal_all",
                                   help="Show the sliders of t_skip, l_thresh, h and the smallest publication too.")
        if not every_setting:
            st.caption(controls.finer_kaleido_words(controls.kaleido_kept()))
    return figure, interactive, formulas, every_setting


def _stimulus(stim_name: str | None, geometry: Geometry) -> tuple[str | None, str]:
    """The stimulus under the scanpaths (a cached JPEG data URI) and the caption that says what is underneath."""
    stims = state.stimuli()
    if stim_name is not None and stim_name in stims and stims[stim_name].image is not None:
        image = stims[stim_name].image
        return (view.stimulus_uri(stim_name, view.fingerprint(image), image),
                f"Background: the stimulus '{md_text(stim_name)}'.")
    return None, (f"No stimulus image named '{md_text(stim_name)}' is loaded, so the frame is the screen "
                  f"({geometry.width_px} × {geometry.height_px} px); upload one on Your data to see it "
                  "underneath." if stim_name else "The frame is the screen.")


# --------------------------------------------------------------------------------------------
# one fragment per method


@fragment(name="gs_kaleido")
def kaleido_part(scope: Scope) -> None:
    """Kaleido's promise, controls, scanpath or budget chart, and the side-by-side table (a fragment)."""
    card = st.container()  # the promise leads; it follows the controls drawn under it
    s_kal = controls.kaleido_controls(scope.every_setting)
    plan = panels.kaleido_plan_for(s_kal)
    with card:
        streams = _person_streams(scope, plan.w)
        panels.guarantee_card(explain.kaleido_guarantee(plan, scope.prep.rate_hz, len(scope.one), scope.geometry,
                                                        streams),
                              METHOD_LABELS[Mech.KALEIDO], scope.formulas,
                              risk.kaleido_line(plan.epsilon, plan.w, plan.r, len(scope.one), scope.geometry,
                                                   streams, len(scope.prep.participants)))
    kal = _kaleido(scope, s_kal)
    prot = view.one_of(scope.token, Mech.KALEIDO, s_kal, scope.seed, str(scope.who), scope.stim_name, scope.sel,
                       kal)
    if scope.figure == "scanpath":
        _scanpaths(scope, Mech.KALEIDO, s_kal, prot)
    else:
        panels.kaleido_budget(prot, s_kal, (*scope.stream_key, scope.seed))
    _table_and_share(scope, Mech.KALEIDO, s_kal, kal)
    if scope.plan_box is not None:
        scope.plan_box((int(scope.geometry.width_px), int(scope.geometry.height_px)))


@fragment(name="gs_synth")
def synth_part(scope: Scope) -> None:
    """k-same-synth's promise, its k, the synthetic scanpath and the side-by-side table (a fragment)."""
    card = st.container()  # the promise leads; it follows the control drawn under it
    k_syn = controls.synth_controls(len(scope.prep.participants))
    with card:
        panels.guarantee_card(explain.synth_guarantee(k_syn), METHOD_LABELS[Mech.K_SAME_SYNTH], scope.formulas)
    try:
        res = _synth(scope, k_syn)
    except ValueError as err:
        st.info(f"k-same-synth published nothing for {md_text(scope.who)}. {md_text(err)}")
    else:
        prot = view.one_of(scope.token, Mech.K_SAME_SYNTH, k_syn, scope.seed, str(scope.who), scope.stim_name,
                           scope.sel, res.samples)
        _scanpaths(scope, Mech.K_SAME_SYNTH, k_syn, prot)
        st.caption(" ".join(res.notes) + " Blinks are not synthesised; the synthetic stream is as long as the "
                   "aligned events.")
    _table_and_share(scope, Mech.K_SAME_SYNTH, k_syn)


@fragment(name="gs_pd")
def pd_part(scope: Scope, shown: Mech) -> None:
    """Plausible deniability's promise (the shown form), controls, scanpath or draws chart, and the table."""
    form = "randomised" if shown is Mech.EVENT_SYNTH_PD_RANDOMISED else "published"
    other = "published" if form == "randomised" else "randomised"
    card = st.container()  # the promise leads; it follows the controls drawn under it
    s_pd = controls.pd_controls(len(scope.prep.participants))
    with card:
        panels.guarantee_card(_pd_words(form, s_pd), "Plausible deniability (fixations)", scope.formulas,
                              f"The {'randomised-threshold' if other == 'randomised' else 'published'} form: "
                              + _pd_words(other, s_pd).words)
    run = _deniability(scope, form, s_pd)
    if scope.figure == "scanpath":
        prot = view.one_of(scope.token, shown, s_pd, scope.seed, str(scope.who), scope.stim_name, scope.sel,
                           run.samples)
        _scanpaths(scope, shown, s_pd, prot)
    else:
        st.plotly_chart(figs.tries_chart(run.records, 1 if run.form == "randomised" else run.max_tries),
                        theme=None, key="gs_tries", config={"displayModeBar": False})
    st.caption(f"{run.n_published:,} of {run.n_events:,} fixations published, {run.n_dropped:,} dropped "
               + ("(failed the noisy threshold; not re-drawn)." if run.form == "randomised" else
                  f"(no pass within {run.max_tries} draws; the published loop would never stop). ")
               + " A fixation passes only if another person has a fixation with the same number of samples "
                 "under which the draw is almost as likely — with tracker noise of a few pixels, that needs "
                 "a fixation within a few pixels of this one.")
    _table_and_share(scope, shown, s_pd)


# --------------------------------------------------------------------------------------------
# shared pieces


@st.cache_data(max_entries=64, show_spinner=False)
def _pd_words(form: str, s: PDSettings) -> explain.Guarantee:
    """PD form and settings -> its guarantee (the randomised form's (ε, δ) table is computed once per setting)."""
    return explain.pd_guarantee_words(form, s.k, s.gamma, s.eps0)


def _person_streams(scope: Scope, w: int) -> tuple[int, ...] | None:
    """The shown person's stream lengths (what an export charges them for), or None if unknown."""
    per = stream_windows(scope.prep.frame, w)
    return per.loc[str(scope.who), "lengths"] if str(scope.who) in per.index else None


def _kaleido(scope: Scope, s: view.KaleidoSettings) -> pd.DataFrame:
    g = scope.geometry
    return view.kaleido(scope.token, s, scope.seed, (g.width_px, g.height_px), scope.prep.frame)


def _synth(scope: Scope, k: int):
    ep = view.params(scope.token, scope.geometry, scope.prep.frame)
    return view.synth(scope.token, k, scope.seed, scope.geometry, scope.prep.frame, ep)


def _deniability(scope: Scope, form: str, s: PDSettings):
    ep = view.params(scope.token, scope.geometry, scope.prep.frame)
    return view.deniability(scope.token, form, s, scope.seed, scope.geometry, scope.prep.frame, ep)


def _scanpaths(scope: Scope, method: Mech, settings: object, prot: pd.DataFrame) -> None:
    """The original and protected scanpaths of the chosen stream, with the time slider (a nested fragment)."""
    if prot.empty or not prot[["x", "y"]].notna().any().any():
        st.info(f"{METHOD_LABELS[method]} published nothing for {md_text(scope.who)}.")
        return
    key = (*scope.stream_key, method, settings, scope.seed)
    pair = panels.Comparison(key, scope.one, prot, method)
    panels.compare_view(pair, scope.geometry, str(scope.who), scope.uri, scope.note,
                        scope.interactive)


GUARANTEE_TEXT: dict[Mech, Callable[[Settings], str]] = {
    Mech.KALEIDO: lambda s: f"ε = {s.kal.epsilon:g} per {s.kal.w}-sample window, r = {s.kal.r:g} px",
    Mech.K_SAME_SYNTH: lambda s: f"each event vector shared by ≥ {s.syn} (not DP)",
    Mech.EVENT_SYNTH_PD: lambda s: (f"≥ {s.pd.k - 1} other plausible identit{'y' if s.pd.k == 2 else 'ies'} "
                                    "per fixation (not DP)"),
    Mech.EVENT_SYNTH_PD_RANDOMISED: lambda s: "not DP as implemented (records keep their seed's participant)",
}


def _rows(scope: Scope, s: Settings, kal: pd.DataFrame, attack: bool) -> list[dict]:
    """Every method's figures at the current settings, each from its cache (a method's row is measured once per
    settings and seed); re-identification only where measured, or measured now when `attack`."""
    df, g, token, seed = scope.prep.frame, scope.geometry, scope.token, scope.seed
    outputs: dict[Mech, pd.DataFrame] = {Mech.KALEIDO: kal}
    notes: dict[Mech, str] = {}
    try:
        outputs[Mech.K_SAME_SYNTH] = _synth(scope, s.syn).samples
    except ValueError as err:
        notes[Mech.K_SAME_SYNTH] = str(err)
    for form, mech in (("published", Mech.EVENT_SYNTH_PD), ("randomised", Mech.EVENT_SYNTH_PD_RANDOMISED)):
        run = _deniability(scope, form, s.pd)
        outputs[mech] = run.samples
        if run.n_published == 0:
            notes[mech] = f"nothing published: 0 of {run.n_events:,} fixations passed the test"
    per: dict[Mech, object] = {Mech.KALEIDO: s.kal, Mech.K_SAME_SYNTH: s.syn, Mech.EVENT_SYNTH_PD: s.pd,
                               Mech.EVENT_SYNTH_PD_RANDOMISED: s.pd}
    base = dict(method="original (no protection)", guarantee="none", note="",
                **view.baseline(token, g, df, len(scope.prep.participants)))
    got = view.reid(token, None, None, seed, g, df, None, attack)
    if got is not None:
        base["reid_accuracy"] = got[0]
    rows = [base]
    for mech, label in METHOD_LABELS.items():
        row: dict[str, Any] = dict(method=label, guarantee=GUARANTEE_TEXT[mech](s), note=notes.get(mech, ""))
        if mech in outputs:
            try:
                row.update(view.figures(token, mech, per[mech], seed, g, df, outputs[mech]))
                got = view.reid(token, mech, per[mech], seed, g, df, outputs[mech], attack)
                if got is not None:
                    row["reid_accuracy"] = got[0]
            except ValueError as err:
                row["note"] = str(err)
        rows.append(row)
    return rows


def _all_settings(shown: Mech, own: Any, n_people: int) -> Settings:
    """The shown method's settings and the other methods' kept ones (they feed the table) -> Settings."""
    pd_shown = shown in (Mech.EVENT_SYNTH_PD, Mech.EVENT_SYNTH_PD_RANDOMISED)
    return Settings(own if shown is Mech.KALEIDO else controls.kaleido_kept(),
                    own if shown is Mech.K_SAME_SYNTH else controls.synth_kept(n_people),
                    own if pd_shown else controls.pd_kept(n_people))


@st.cache_resource(max_entries=64, show_spinner="Measuring every method at these settings…")
def _cached_rows(token: str, s: Settings, seed: int, geometry: Geometry, attack: bool, measured: int,
                 _scope: Scope, _kal: pd.DataFrame) -> list[dict]:
    """`_rows`, kept per data, settings, seed and number of attacks measured so far (the store only grows), so
    that a move back to known settings rebuilds no row (callers never mutate the list)."""
    return _rows(_scope, s, _kal, attack)


def _table_and_share(scope: Scope, shown: Mech, own: Any, kal: pd.DataFrame | None = None) -> None:
    """The side-by-side table of every method (each other method at its kept settings: pick it to change them),
    and what the share box reads (its export uses the Kaleido settings), drawn into it while it is open."""
    s = _all_settings(shown, own, len(scope.prep.participants))
    kal = kal if kal is not None else _kaleido(scope, s.kal)
    rows = _cached_rows(scope.token, s, scope.seed, scope.geometry, scope.attack,
                        len(view.reid_store(scope.token)), scope, kal)
    utility_table(
        rows, len(scope.prep.participants), "### All methods side by side, at these settings",
        note="Each method at its settings as last chosen: pick it above to change them. Displacement: mean visual "
             "angle between protected and original samples at the same time. Heatmap CC: correlation of the "
             "blurred sample densities. Fixation changes: I-VT on the protected stream vs the original. "
             "Re-identification (switch it on below; \"–\" until measured): an SVM trained on each person's clean "
             f"earlier windows ({view.WINDOW_S:g} s) names the person behind each later protected window. Empirical "
             "figures on this data, not guarantees.")
    ctx = {"s_kal": s.kal, "df": scope.prep.frame, "geometry": scope.geometry, "kal": kal, "seed": scope.seed}
    remember("gaze_samples", ctx)  # the report and the script read it, with the box open or closed
    if scope.share_box is not None:
        with scope.share_box:  # under its switch, outside this part: redrawn here, as it follows these settings
            share_box("gaze_samples", ctx)
