"""Panels of the Areas of interest view: the guarantee in words, the AOI source, the public bounds, the clean
and private tables (a fragment: an ε move re-runs only it), the target finder and the release export."""
from __future__ import annotations

import functools
import hashlib
import math
import time
from dataclasses import astuple, dataclass

import numpy as np
import pandas as pd
import streamlit as st

import ui.share.scripts
from eyedp_core.aoi import planning
from eyedp_core.aoi.metrics import AoiMetric, query_epsilons, query_sensitivity, unsupported_metrics
from eyedp_core.aoi.observers import AoiBounds, ObserverTable, timing
from eyedp_core.aoi.parse import aois_from_table, aois_to_table, read_aois
from eyedp_core.aoi.release import NEIGHBOURS, AoiSource, ledger_releases, release_aois
from eyedp_core.aoi.shapes import Aoi, grid
from eyedp_core.data import derived
from eyedp_core.dp.calibration import calibrate_laplace
from eyedp_core.io.errors import DataError
from eyedp_core.plan.schema import OutputKind
from ui import risk_line, state
from ui.aoi import figs, risk, tables, view
from ui.fragment import fragment
from ui.plan import add, finder
from ui.text import md_text
from ui.widgets import WATERMARK_HTML, calibration_box, log_slider

SOURCES = {AoiSource.BUNDLED.value: "Bundled AOIs", AoiSource.GRID.value: "Regular grid",
           AoiSource.UPLOAD.value: "Upload CSV / JSON", AoiSource.TABLE.value: "Edit a table"}
UPLOAD_KEY = "aoi_upload_kept"  # the last AOI file uploaded on the page: (name, bytes), this session only
RELEASE_KEY = "aoi_release_result"
HIGH_EPSILON = 10.0  # above it e^ε (> 22,000) bounds little, as the report and Heatmaps say  # the last export's files (kept so the download buttons survive reruns)


@dataclass(frozen=True)
class AoiContext:
    """What the page chose: fixation table, stimulus and its size, AOIs, bounds, the observer table, metrics."""

    fixations: state.Dataset
    width: int
    height: int
    stimulus: str
    aois: tuple[Aoi, ...]
    bounds: AoiBounds
    table: ObserverTable
    metrics: tuple[AoiMetric, ...]
    # Parameters read off the private data that set these AOIs (a blank canvas sized by the fixations' extent):
    # every ledger entry, manifest and report of a release of them names each.
    data_derived: tuple[str, ...] = ()

    @property
    def fix_token(self) -> str:
        """Content token of the fixation table (the cache key)."""
        return self.fixations.token

    @functools.cached_property
    def aois_key(self) -> str:
        """A digest of the AOIs (a cache key): hashing the AOI tuple itself took ~8 ms of every ε move."""
        return hashlib.sha256(repr(self.aois).encode()).hexdigest()


@dataclass(frozen=True)
class Canvas:
    """The picture the AOIs are drawn on, its size, and what about it was read off the private data."""

    image: np.ndarray
    width: int
    height: int
    data_derived: tuple[str, ...]


SCREEN, EXTENT = "screen", "extent"


def canvas(fixations: state.Dataset, stimulus: state.Dataset) -> Canvas:
    """The chosen fixation table and stimulus in, the canvas the AOIs are drawn on out. A blank canvas sized by
    the fixations' extent is private (one observer's extreme fixation moves a grid's corner): the screen the upload
    declared is offered instead, and the extent, when kept, is carried as a data-derived parameter."""
    h, w = stimulus.image.shape[:2]
    caveats = state.data_derived_canvas(stimulus)
    if not caveats:
        return Canvas(stimulus.image, w, h, ())
    geo = state.upload_geometry(fixations.name)
    screen = None if geo is None else (int(geo.width_px), int(geo.height_px))
    labels = {EXTENT: f"the fixations' extent, {w} × {h} px (read off the data: flagged)"}
    if screen is not None:
        labels = {SCREEN: f"the upload's screen, {screen[0]} × {screen[1]} px (public)", **labels}
    pick = st.radio("Canvas of the AOIs (no image was uploaded for this stimulus)", list(labels),
                    format_func=labels.get, key="aoi_canvas", horizontal=True,
                    help="A grid is cut from the canvas: sized by the fixations themselves, its corners move "
                         "with one observer's extreme fixation, so they are not public parameters.")
    if pick == SCREEN and screen is not None:
        return Canvas(derived.blank_canvas(*screen), screen[0], screen[1], ())
    st.warning(f"The {caveats[0]} was read off the private data: a grid on it depends on where the observers "
               "looked, so the ledger, the manifest and the report flag every release drawn on it. Use the upload's "
               "screen, declare the stimulus size on *Your data*, or upload the image to make it public.",
               icon=":material/warning:")
    return Canvas(stimulus.image, w, h, caveats)


FIX_SEEN_KEY = "aoi_fixations_seen"  # the token of the fixation table the stimulus was chosen for


def follow_fixations(fixations: state.Dataset, options: list[str]) -> None:
    """Before the stimulus box is drawn: when the sidebar's fixation table changed and the chosen stimulus has no
    fixations in it, choose the first stimulus that has (the upload's own come first), as Heatmaps does, rather
    than keep a choice that can only show an error."""
    if st.session_state.get(FIX_SEEN_KEY) == fixations.token:
        return
    st.session_state[FIX_SEEN_KEY] = fixations.token
    chosen = st.session_state.get("aoi_stimulus")
    if chosen is None or view.has_fixations(fixations.token, fixations.frame, chosen):
        return
    usable = [n for n in options if view.has_fixations(fixations.token, fixations.frame, n)]
    if usable:
        st.session_state["aoi_stimulus"] = usable[0]


def lead() -> None:
    """The per-observer guarantee in plain words, first."""
    st.caption(
        "How many people looked at each area of interest (AOI), how long, how soon, how often they came back "
        "and where their gaze went next — released with differential privacy. **The guarantee is per "
        "observer**: everything one person did on the stimulus (all their fixations) changes the chance of any "
        "released table by at most a factor e^ε. Each person's contribution is first clipped to the public "
        "limits below, so the noise can be set from those limits alone. The AOIs and the limits are public: "
        "choose them from the stimulus, not by looking at the private results.")


def aoi_source(stim_name: str, width: int, height: int) -> tuple[Aoi, ...] | None:
    """Stimulus name and size in, the AOIs from the chosen source out (None with a message when unusable)."""
    src = st.radio("AOIs", list(SOURCES), format_func=SOURCES.get, horizontal=True, key="aoi_source")
    bundled = view.bundled(stim_name)
    if src == "bundled":
        if not bundled:
            st.info(f"'{md_text(stim_name)}' has no bundled AOIs (only the simulator's stimuli do): using a "
                    "3 × 3 grid. Choose *Regular grid*, *Upload* or *Edit a table* to set your own.")
            return grid(width, height, 3, 3)
        st.caption("The simulator's own salient regions of this stimulus (each region's centre ± 2 spreads).")
        return bundled
    if src == "grid":
        c = st.columns(2)
        cols = int(c[0].number_input("columns", 1, 10, 3, key="aoi_grid_cols"))
        rows = int(c[1].number_input("rows", 1, 10, 3, key="aoi_grid_rows"))
        return grid(width, height, cols, rows)
    if src == "upload":
        st.caption("One row per AOI: `name, kind, x0, y0, x1, y1, points` (kind `rect` with two corners, or "
                   "`polygon` with points `x y; x y; …`), or JSON `[{\"name\", \"kind\", …}]`. Pixels of the "
                   "stimulus, origin top-left. Read in memory only.")
        up = st.file_uploader("AOI file", type=["csv", "json"], key="aoi_upload", on_change=_keep_upload)
        kept = st.session_state.get(UPLOAD_KEY)
        if up is not None:
            name, data = up.name, up.getvalue()
        elif kept is not None:  # the uploader starts empty on every page visit: the file read earlier is kept
            name, data = kept
            st.caption(f"Using **{md_text(name)}**, uploaded earlier in this session (upload another file to "
                       "replace it).")
            st.button("Forget this file", key="aoi_forget_upload", on_click=st.session_state.pop,
                      args=(UPLOAD_KEY, None))
        else:
            return None
        try:
            aois = read_aois(data, name)
        except DataError as err:
            st.error(md_text(err), icon=":material/error:")
            return None
        st.button("Edit these in the table (then they travel in links and settings files)", key="aoi_to_table",
                  on_click=_to_table, args=(aois_to_table(aois).to_csv(index=False),))
        return aois
    return _table_source(bundled or grid(width, height, 3, 3))


def _keep_upload() -> None:
    """Uploader callback: remember the AOI file (name and bytes, memory only) so it outlives a page switch, and
    forget it when the user removes it."""
    up = st.session_state.get("aoi_upload")
    if up is None:
        st.session_state.pop(UPLOAD_KEY, None)
    else:
        st.session_state[UPLOAD_KEY] = (up.name, up.getvalue())


def _to_table(csv_text: str) -> None:
    """Button callback (runs before the widgets are drawn): the uploaded AOIs become the table source's text."""
    st.session_state["aoi_text"] = csv_text
    st.session_state["aoi_source"] = "table"


def _table_source(start: tuple[Aoi, ...]) -> tuple[Aoi, ...] | None:
    """The editable table of AOIs. Its CSV text (`aoi_text`, a setting) is the source of truth, so edited AOIs
    travel in shared links and settings files; empty text starts from `start` (the stimulus's bundled AOIs)."""
    st.caption("Edit, add or delete rows; rectangles by two corners, polygons by `points` (`x y; x y; …`).")
    text = str(st.session_state.get("aoi_text", "") or "")
    base = start
    if text.strip():
        try:
            base = read_aois(text.encode("utf-8"), "AOI text")
        except DataError as err:
            st.error(f"{md_text(err)} (the table below starts from the bundled AOIs instead)",
                     icon=":material/error:")
    # A new base (text changed) gets a fresh editor: its edits are deltas against the base it was drawn with.
    tag = hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]
    edited = st.data_editor(aois_to_table(base), num_rows="dynamic", key=f"aoi_editor_{tag}", width="stretch",
                            hide_index=True)
    try:
        aois = aois_from_table(pd.DataFrame(edited), file="AOI table")
    except DataError as err:
        st.error(md_text(err), icon=":material/error:")
        aois = None
    if aois is not None and aois != base:
        st.session_state["aoi_text"] = aois_to_table(aois).to_csv(index=False)  # before its widget is drawn
    with st.expander("The table as text (it travels in shared links and settings files)"):
        st.text_area("AOIs (CSV; empty: the bundled AOIs)", key="aoi_text", height=160)
    return aois


def bounds_inputs() -> AoiBounds:
    """The public per-observer limits, as number inputs (0 for a total: no total limit)."""
    with st.expander("Public limits per observer (they set the noise; shown in the export's manifest)"):
        c = st.columns(4)
        b = AoiBounds(
            max_fixations=int(c[0].number_input("fixations per AOI", 1, 200, 15, key="aoi_max_fix")),
            max_dwell_s=float(c[1].number_input("dwell per AOI (s)", 0.1, 120.0, 5.0, 0.5, key="aoi_max_dwell")),
            max_ttff_s=float(c[2].number_input("time to first fixation (s)", 0.1, 600.0, 10.0, 0.5,
                                               key="aoi_max_ttff")),
            max_revisits=int(c[3].number_input("revisits per AOI", 1, 100, 5, key="aoi_max_rev")),
            max_transitions=int(c[0].number_input("transitions in total", 1, 1000, 40, key="aoi_max_trans")),
            max_total_fixations=float(c[1].number_input("fixations over all AOIs (0: none)", 0, 5000, 40,
                                                        key="aoi_total_fix")) or None,
            max_total_dwell_s=float(c[2].number_input("dwell over all AOIs, s (0: none)", 0.0, 3600.0, 10.0, 1.0,
                                                      key="aoi_total_dwell")) or None,
        )
        st.caption("Each observer's values are clipped to these before anything is summed; a total limit scales "
                   "an observer's row down so it sums to at most the total. Larger limits keep more of the data "
                   "and need more noise.")
    return b


DEFAULT_METRICS = (AoiMetric.HIT_RATIO, AoiMetric.DWELL, AoiMetric.TTFF)


def metric_choice(fixations: pd.DataFrame | None = None) -> tuple[AoiMetric, ...]:
    """The metrics to release (the budget is split over what they need): only those the fixation table's columns
    can give, so no ε is spent on a metric that would be 0 everywhere; the others are named with why."""
    missing = {} if fixations is None else unsupported_metrics(*timing(fixations))
    offered = [m.value for m in AoiMetric if m not in missing]
    chosen = st.session_state.get("aoi_metrics")
    if chosen is not None:  # a choice made on another table (or a settings file) keeps what this one offers
        st.session_state["aoi_metrics"] = [n for n in chosen if n in offered]
    names = st.multiselect("Metrics", offered, default=[m.value for m in DEFAULT_METRICS if m not in missing],
                           key="aoi_metrics")
    for m, why in missing.items():
        st.caption(f"*{m.value.capitalize()}* is not offered: {why}.")
    return tuple(AoiMetric(n) for n in names)


def preview_choices(metrics: tuple[AoiMetric, ...]) -> None:
    """The bar chart's metric and the preview seed: outside the ε part, so an ε move does not re-send them (the
    part reads them from the session)."""
    row = st.container(horizontal=True, vertical_alignment="bottom")
    per_aoi = [m.value for m in metrics if m is not AoiMetric.TRANSITIONS]
    if per_aoi:
        row.selectbox("Bar chart of", per_aoi, key="aoi_chart")
    row.number_input("Preview seed", 0, 10**6, 0, key="aoi_seed", width=130,
                     help="The seed of the on-screen preview's numpy noise; an export draws its own noise.")


@fragment(name="aoi_privacy")
def privacy_part(ctx: AoiContext) -> None:
    """ε, the clean and private tables side by side, the bar chart and the transition picture (at the preview seed
    and chart metric chosen above the part).

    Every element here is re-sent on each ε move (a message and a re-render each), so the ε slider is its only
    widget (the chart's metric and the seed are chosen above it), and the summary and both tables are one
    markdown element."""
    eps = log_slider("ε per observer (total over the chosen metrics)", 0.05, 50.0, 1.0, key="aoi_epsilon")
    seed = int(st.session_state.get("aoi_seed", 0))
    if eps > HIGH_EPSILON:
        exponent = math.floor(eps / math.log(10))
        st.warning(f"ε = {eps:g} lets a release move anyone's odds about one observer by up to e^ε ≈ "
                   f"{math.exp(eps) / 10 ** exponent:.1f} × 10^{exponent} times: above ε ≈ {HIGH_EPSILON:g} the "
                   "bound says little about any one observer.", icon=":material/warning:")
    if not ctx.metrics:
        st.info("Choose at least one metric.")
        return
    t0 = time.perf_counter()
    res = view.preview_metrics(ctx.fix_token, ctx.stimulus, ctx.aois_key, astuple(ctx.bounds),
                               tuple(m.value for m in ctx.metrics), eps, seed, ctx.table)
    ms = (time.perf_counter() - t0) * 1000
    eq = query_epsilons(ctx.metrics, eps)
    hit = res.get(AoiMetric.HIT_RATIO)
    if hit is not None and float(np.median(hit.half_width)) > 0.5:
        st.info(f"At ε = {eps:g} the hit-ratio intervals (± {100 * float(np.median(hit.half_width)):.0f} points) are "
                f"wider than the whole 0–100 % range: with {ctx.table.n} observers and {ctx.table.k} AOIs this ε "
                "cannot tell who looked where. The target finder below gives the ε or the number of observers a "
                "target needs; fewer AOIs and fewer metrics help too.", icon=":material/info:")
    # The two tables side by side in one element: an HTML grid whose cells hold markdown (blank lines around it).
    st.markdown(f"**{ctx.table.n} observers, {ctx.table.k} AOIs.** {_split_words(eps, len(eq))} Intervals: 95 %, "
                f"in each metric's units{_interval_words(ctx.metrics)}. Computed in {ms:.0f} ms.\n\n"
                f"{risk.risk_markdown(eq, ctx.table)}\n\n"
                f"{WATERMARK_HTML}\n\n<div class=\"eyedp-pair\"><div>\n\n"
                "**Clean** (clipped to the public limits; never shown outside this session)\n\n"
                + tables.metric_table(res, private=False)
                + "\n\n</div><div>\n\n**Private** (seeded preview) with its 95 % interval\n\n"
                + tables.metric_table(res, private=True) + "\n\n" + expected_error_words(ctx, eps)
                + "\n\n</div></div>", unsafe_allow_html=True)
    per_aoi = [m for m in ctx.metrics if m is not AoiMetric.TRANSITIONS]
    if per_aoi:
        chosen = st.session_state.get("aoi_chart")
        chart_m = AoiMetric(chosen) if chosen in {m.value for m in per_aoi} else per_aoi[0]
        # PNG as made: "auto" would decode it and encode a JPEG again (slower, and blurs the chart's text).
        st.image(figs.bar_png(res[chart_m], chart_m.unit), width="stretch", output_format="PNG")
    if AoiMetric.TRANSITIONS in res:
        r = res[AoiMetric.TRANSITIONS]
        st.markdown(f"**Transitions per observer, private** (each cell ± {r.half_width.flat[0]:.2g}); "
                    "rows: from, columns: to; the last state is *elsewhere*.")
        st.image(figs.matrix_picture(r.private, r.names))
    # A toggle, not an expander: a collapsed expander still sends and renders its formulas (KaTeX) on every ε move.
    if st.toggle("Show the formulas: sensitivity and noise of each sum", key="aoi_formulas"):
        st.caption(NEIGHBOURS.capitalize() + ". docs/PRIVACY_MODEL.md §15.")
        for q, e in eq.items():
            calibration_box(calibrate_laplace(query_sensitivity(q, ctx.table), e), title=f"{q.value}")
        risk_line.draw_formulas(risk.person(eq, ctx.table), ctx.table.n)
    # The script export reads the ε and seed of this run (an ε move re-runs only this fragment).
    ui.share.scripts.remember("areas_of_interest", ctx)


def expected_error_words(ctx: AoiContext, eps: float) -> str:
    """Context and ε in, the expected absolute error of one private value per metric with its 10–90 % band
    (planning.expected_absolute_error: any release, not this preview's luck) as one markdown line out."""
    parts = []
    for m in ctx.metrics:
        if m in (AoiMetric.TTFF, AoiMetric.TRANSITIONS):  # a ratio of two noisy sums / a matrix: intervals only
            continue
        e, lo, hi = planning.expected_absolute_error(m, epsilon=eps, n=ctx.table.n, k=ctx.table.k, bounds=ctx.bounds,
                                                     metrics=ctx.metrics)
        if m is AoiMetric.HIT_RATIO:
            parts.append(f"{tables.SHORT[m]} ± {100 * e:.1f} pts (10–90 %: {100 * lo:.1f}–{100 * hi:.1f})")
        else:
            unit = " s" if m is AoiMetric.DWELL else ""
            parts.append(f"{tables.SHORT[m]} ± {e:.3g}{unit} (10–90 %: {lo:.3g}–{hi:.3g}{unit})")
    if not parts:
        return ""
    return ("Expected absolute error of one private value, in any release (not this preview's luck): "
            + "; ".join(parts) + ". Before clipping to the public range.")


def _count(n: int, one: str, many: str) -> str:
    """A count and the noun's two forms in, '1 noisy sum' or '3 noisy sums' out."""
    return f"{n} {one if n == 1 else many}"


def _split_words(eps: float, sums: int) -> str:
    """ε and the number of noisy sums in, how ε is spent in words out (no 'split' over a single sum)."""
    if sums == 1:
        return f"ε = {eps:g} per observer, all on 1 noisy sum."
    return (f"ε = {eps:g} per observer, split equally over {sums} noisy sums (ε = {eps / sums:.3g} each; they add up "
            "to ε, sequential composition).")


def _interval_words(metrics: tuple[AoiMetric, ...]) -> str:
    """The chosen metrics in, what the intervals of the clipped metrics say out (empty when none is chosen)."""
    out = ""
    if AoiMetric.HIT_RATIO in metrics:
        out += ("; hit ratios and their intervals are clipped to 0–100 % (a share cannot lie outside it; the clipped "
                "interval covers as often)")
    if AoiMetric.TTFF in metrics:
        out += ("; time to first fixation is the noisy TTFF sum over the noisy looker count, clipped to 0 – the "
                "limit, with the exact interval of that ratio [low–high]: no value below one noisy looker (the "
                "interval is still given), no interval where no time in the range fits both sums, and the whole "
                "range where the sums say nothing")
    return out


def target_finder(ctx: AoiContext) -> None:
    """Smallest ε for a dwell-time interval, observers needed for a hit-ratio interval (public planning)."""
    with st.expander("Target finder (public planning from the formula; reads no data beyond n and the AOI count)"):
        metrics = ctx.metrics or (AoiMetric.DWELL,)
        c = st.columns(2)
        h = float(c[0].number_input("± seconds on dwell time", 0.01, 100.0, 0.5, 0.05, key="aoi_target_dwell"))
        eps = planning.epsilon_for_half_width(AoiMetric.DWELL, h, n=ctx.table.n, k=ctx.table.k, bounds=ctx.bounds,
                                              metrics=metrics)
        c[0].markdown(f"Smallest ε per observer for **dwell ± {h:g} s** with {ctx.table.n} observers and these "
                      f"metrics: **ε = {eps:.3g}**.")
        pts = float(c[1].number_input("± points on hit ratio", 0.5, 100.0, 5.0, 0.5, key="aoi_target_hit"))
        e2 = float(c[1].number_input("at ε", 0.01, 100.0, 1.0, 0.1, key="aoi_target_eps"))
        n = planning.observers_for_half_width(AoiMetric.HIT_RATIO, pts / 100, epsilon=e2, k=ctx.table.k,
                                              bounds=ctx.bounds, metrics=metrics)
        c[1].markdown(f"Observers needed for **hit ratio ± {pts:g} points** at ε = {e2:g}: **{n:,}**.")
        label = add.aoi_output(ctx.stimulus, ctx.aois, metrics, ctx.bounds).label  # this output's name in a plan
        finder.show(ctx.fixations, OutputKind.AOI, label, eps if math.isfinite(eps) else None, f"dwell ± {h:g} s")
        st.caption("Both come from the half-width b·ln 20 / n with b = Δ1 / (ε / number of sums): public "
                   "arithmetic, not a release.")


def used_source(stim_name: str) -> AoiSource:
    """The source the page's AOIs came from (the bundled choice on a stimulus without bundled AOIs is a grid)."""
    src = AoiSource(st.session_state.get("aoi_source", AoiSource.BUNDLED.value))
    return AoiSource.GRID if src is AoiSource.BUNDLED and not view.bundled(stim_name) else src


def released_caveats(stim_name: str, chosen: Canvas) -> tuple[str, ...]:
    """The data-derived parameters a release of the page's AOIs carries: the canvas read off the data, unless the
    AOIs came from an uploaded file (their corners are then the file's, whatever the canvas)."""
    return () if used_source(stim_name) is AoiSource.UPLOAD else chosen.data_derived


def export_panel(ctx: AoiContext) -> None:
    """Charge the ledger, then release through OpenDP: private table (CSV) and manifest (JSON)."""
    st.subheader("Release")
    eps = float(st.session_state.get("aoi_epsilon", 1.0))
    on_data = st.checkbox("I drew these AOIs after looking at these data (e.g. their heatmap)", key="aoi_on_data",
                          help="AOIs are public parameters: drawn around where these observers looked, they reveal "
                               "something the noise does not cover. Ticked, the ledger and manifest say so.")
    if on_data:
        st.warning("AOIs drawn by looking at these data are not covered by the guarantee: what they reveal about "
                   "where people looked is published as is. Draw them from the stimulus (or from other data) instead.",
                   icon=":material/warning:")
    entries = (ledger_releases(ctx.table, ctx.metrics, eps, ctx.stimulus, aois_from_data=on_data,
                               data_derived=ctx.data_derived) if ctx.metrics else [])
    # No ε in this text: an ε move re-runs only the privacy part's fragment, which states it, and would leave a
    # number here behind. The click re-runs the page and charges the slider's value.
    st.caption(f"Charges each of the {ctx.table.n} observers of '{md_text(ctx.stimulus)}' the ε per observer "
               f"set above ({_count(len(entries), 'ledger entry', 'ledger entries')}, one per noisy sum) and draws "
               "the noise with OpenDP (no "
               "seed). Each export is a new release: it adds to the ledger.")
    if st.button("Charge ledger and export", key="aoi_export", disabled=not entries, icon=":material/lock:"):
        if state.charge(entries, page="areas_of_interest", place="aoi_export", shown=(RELEASE_KEY,)):
            defs = aois_to_table(ctx.aois).replace({np.nan: None}).to_dict("records")
            rel = release_aois(ctx.table, ctx.metrics, eps, ctx.stimulus, defs, aois_from_data=on_data,
                               aoi_source=used_source(ctx.stimulus), data_derived=ctx.data_derived)
            state.attach_released(len(entries), rel)
            st.session_state[RELEASE_KEY] = (rel.table.to_csv(), rel.manifest_json(),
                                             None if rel.transitions is None else rel.transitions.to_csv())
        st.rerun()  # the sidebar, drawn before this run, states the new total (or the refusal) on the next
    state.outcome_here("aoi_export")  # a refusal, next to the button that was pressed
    out = st.session_state.get(RELEASE_KEY)
    if out:
        st.success("Released. The private table and its manifest:")
        c = st.columns(3)
        c[0].download_button("Private AOI table (CSV)", out[0], "aoi_private.csv", "text/csv", key="aoi_dl_csv")
        c[1].download_button("Manifest (JSON)", out[1], "aoi_manifest.json", "application/json", key="aoi_dl_json")
        if out[2]:
            c[2].download_button("Transitions (CSV)", out[2], "aoi_transitions.csv", "text/csv", key="aoi_dl_tr")
