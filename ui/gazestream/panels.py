"""Panels of the Gaze-samples page: data checks, the raw-stream view, the method cards, the comparison views,
the utility/privacy table and the k-anonymity view. Slider-driven parts are fragments (ui.fragment), so a
slider move re-runs only its own section; figures and computations are cached in ui.gazestream.view."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from eyedp_core.dp.registry import Mech
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream import display, explain, kanon
from eyedp_core.gazestream.kaleido import kaleido_plan
from eyedp_core.gazestream.streams import PreparedStreams
from ui import settings, state
from ui.fragment import fragment
from ui.gazestream import view
from ui.gazestream.controls import keep_value
from ui.numbers import Number, numbers_html
from ui.text import html_text, md_cells, md_text
from ui.widgets import badge

BADGE_KIND = {"w-event": "dp", "record": "paper", "not-dp": "notdp"}
SEED_KS = (4, 6, 8, 15)


# --------------------------------------------------------------------------------------------
# data checks


def data_notes(prep: PreparedStreams, name: str) -> None:
    """Show what the input checks found: left-out participants and fixes as warnings, the rest folded away."""
    shown = [n for n in prep.notes if n.level in ("error", "warning")]
    for n in shown[:6]:
        st.warning(f"{md_text(name)}: {md_text(n.text)}", icon=":material/warning:")
    if len(shown) > 6:
        st.warning(f"… and {len(shown) - 6} more findings of the same kinds (see the list below).")
    info = [n for n in prep.notes if n.level == "info"] + shown[6:]
    if info:
        with st.expander(f"Data checks: {len(info)} more note(s)"):
            st.markdown("\n".join(f"- **{md_text(n.participant)}**: {md_text(n.text)}" for n in info))


# --------------------------------------------------------------------------------------------
# raw stream


RAW_FIGURES = {"time": "Over time (x, y, pupil)", "screen": "On the screen (scanpath)"}
RAW_LEGEND = "blue bands: fixations, orange: blinks; x blue, y orange, pupil green"


@dataclass(frozen=True, eq=False)
class RawStream:
    """The stream the raw view shows: data token and stream key (what its caches are keyed on), its samples, the
    participant's name and the screen its positions are on."""

    token: str
    key: str
    one: pd.DataFrame
    who: str
    geometry: Geometry


@dataclass(frozen=True, eq=False)
class Comparison:
    """An original stream and a method's protected one, under the key that names the protected stream (data,
    stream, method, settings, seed)."""

    key: tuple
    original: pd.DataFrame
    protected: pd.DataFrame
    method: Mech


def raw_section(token: str, stream_key: str, one: pd.DataFrame, who: str, geometry: Geometry,
                data_name: str) -> None:
    """Detector, figure kind and chart switch (one row outside the fragments: a change re-runs the page), then
    the threshold's fragment (events) holding the time window's fragment (its numbers and the figure)."""
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="medium")
    method = row.radio("Event detection", list(display.DETECTORS), horizontal=True, key="gs_method",
                       format_func=display.DETECTORS.get)
    shown = row.radio("Figure", list(RAW_FIGURES), horizontal=True, key="gs_raw_fig", format_func=RAW_FIGURES.get)
    # A picture by default: the threshold and the window redraw it on every move (ui/gazestream/scanpath_image.py).
    interactive = shown == "screen" or row.toggle("Interactive chart (hover, zoom; slower to redraw)",
                                                  key="gs_raw_interactive")
    raw_events(RawStream(token, stream_key, one, who, geometry), data_name, method, shown, interactive)


@fragment(name="gs_raw")
def raw_events(stream: RawStream, data_name: str, method: str, shown: str, interactive: bool) -> None:
    """The detector's threshold -> events, then the time window's numbers and figure (a fragment: moving the
    threshold re-runs only this section)."""
    if method == "ivt":
        threshold = st.slider("Velocity threshold (deg/s)", 10.0, 100.0, 30.0, 5.0, key="gs_vt")
    else:
        threshold = st.slider("Dispersion threshold (deg)", 0.25, 3.0, 1.0, 0.25, key="gs_dt")
    key = view.RawKey(stream.token, stream.key, method, threshold)
    try:
        ev = view.detect(key, stream.geometry, stream.one)
    except ValueError as err:
        st.error(f"{md_text(data_name)}, participant {md_text(stream.who)}: {md_text(err)}")
        return
    t0, t1 = float(stream.one["t_s"].min()), float(stream.one["t_s"].max())
    spec = display.time_slider(t0, t1)
    if spec is None:
        st.info(f"Participant {md_text(stream.who)}'s samples all share one time stamp: there is no time axis to "
                "show.")
        return
    raw_window(stream, key, ev, spec, shown, interactive)


@fragment(name="gs_raw_window")
def raw_window(stream: RawStream, key: view.RawKey, ev: pd.DataFrame, spec: display.SliderSpec, shown: str,
               interactive: bool) -> None:
    """The time window -> its headline numbers, then the raw trace (a picture unless interactive) or the scanpath,
    under one line that says what it shows and how many events fall in the window (a fragment: the window does
    not re-detect events). A window without length or without samples shows words only, no stale numbers."""
    one, who, method = stream.one, stream.who, key.method
    settings.clamp("gs_window", spec.lo, spec.hi)  # a window restored for another recording
    span = st.slider("Time window (s)", spec.lo, spec.hi, spec.value, spec.step, key="gs_window")
    if not span[1] > span[0]:  # one time point: no rate, no trace to draw
        st.info(f"The time window {span[0]:.2f}–{span[1]:.2f} s has no length; drag its ends apart.",
                icon=":material/filter_alt_off:")
        return
    if display.samples_in(one, span) == 0:  # a gap in the recording: nothing to draw, and nothing to count
        st.info(f"No samples between {span[0]:g} and {span[1]:g} s for this participant; widen the window.",
                icon=":material/filter_alt_off:")
        return
    numbers = view.summary(key, stream.geometry, float(span[0]), float(span[1]), ev)
    st.markdown(numbers_html([Number(label, value, f"Events that start between {span[0]:.2f} and {span[1]:.2f} s "
                                                   "(the time window below).")
                              for label, value in numbers.items()]), unsafe_allow_html=True)
    if not interactive:
        jpeg, counts = view.raw_picture(key, tuple(span), one, ev)
        head = f"**Raw gaze of {md_text(who)}: x and y (px) and the pupil (mm) over time** — {RAW_LEGEND}"
    else:
        fig, counts = view.raw_figure(shown, key, stream.geometry, tuple(span), who, one, ev)
        head = ""
    note = (f"{counts[0]} fixations, {counts[1]} saccades and {counts[2]} blinks in the window; detected with "
            f"{display.DETECTORS[method]} on the raw samples.")
    # The heading and the counts are one element: both change with every move of the window.
    st.markdown((head + "\n\n" if head else "") + f'<div class="eyedp-note">{html_text(note)}</div>',
                unsafe_allow_html=True)
    if not interactive:
        st.image(jpeg, output_format="JPEG")  # already JPEG: sent as it is
    else:
        # The scanpath is drawn at its own size (screen aspect ratio): stretched to a column it became a thin band.
        st.plotly_chart(fig, key=f"gs_raw_{'trace' if shown == 'time' else 'scan'}",
                        width="stretch" if shown == "time" else "content", theme=None, config={"staticPlot": True})


# --------------------------------------------------------------------------------------------
# method cards


def guarantee_card(g: explain.Guarantee, title: str, formulas: bool | None = None, more: str = "") -> None:
    """A method's promise: name, verdict badge, headline, plain words (then `more` words) as one element; the
    formulas behind a popover (`formulas` None), or written under the words when the view's Formulas switch is
    on (True) or not at all (False)."""
    # One element: every element costs the browser on each re-run, changed or not. The words in small type, as
    # a caption (they carry markdown emphasis; a "]" would close the small-type span early).
    words = "\n\n".join(f":small[{w.replace(']', '&#93;')}]" for w in (g.words, more) if w)
    shown = "\n\n".join(f"$$\n{f}\n$$" for f in g.formulas) if formulas else ""
    st.markdown(f"#### {title}\n\n{badge(g.badge, BADGE_KIND[g.verdict])}\n\n**{g.headline}.**\n\n{words}"
                + (f"\n\n{shown}" if shown else ""), unsafe_allow_html=True)
    if formulas is None:
        # A popover: the browser typesets the formulas (they change with the sliders) only when it is opened.
        with st.popover("Formulas (docs/PRIVACY_MODEL.md)", icon=":material/function:"):
            st.markdown("\n\n".join(f"$$\n{f}\n$$" for f in g.formulas))


# --------------------------------------------------------------------------------------------
# original vs protected


@fragment
def compare_view(pair: Comparison, geometry: Geometry, who: str, stimulus_uri: str | None, stimulus_note: str,
                 interactive: bool = False) -> None:
    """Time slider + trail length -> the original and protected scanpaths up to that time, as a picture or (when
    `interactive`) the Plotly chart (a fragment)."""
    key, original, protected, method = pair.key, pair.original, pair.protected, pair.method
    t_lo = float(np.nanmin([original["t_s"].min(), protected["t_s"].min()]))
    t_hi = float(np.nanmax([original["t_s"].max(), protected["t_s"].max()]))
    spec = display.time_slider(t_lo, t_hi)
    if spec is None:
        st.info("This stream has no time span to animate.")
        return
    row = st.container(horizontal=True, gap="medium")  # one block, not three columns, re-sent on every move
    default = min(spec.lo + 5.0, spec.hi)
    # Another method's stream has another time range (a new slider to Streamlit): keep the user's time point.
    t_end = row.slider("Time (s) — move to animate the scanpaths", spec.lo, spec.hi, step=spec.step, key="gs_t",
                       **keep_value("gs_t", default, spec.lo, spec.hi))
    trail = float(row.select_slider("Trail (s)", [0.5, 1.0, 2.0, 3.0, 5.0, 10.0], key="gs_trail", width=220,
                                    **keep_value("gs_trail", 3.0)))
    moment = view.Trail(float(t_end), trail)
    if interactive:
        fig = view.compare_figure(key, moment, method, geometry, who, stimulus_uri, original, protected)
        st.caption(stimulus_note)
        st.plotly_chart(fig, key="gs_compare", width="content", theme=None, config={"staticPlot": True})
    else:
        # The title and what lies underneath as one element: the title changes on every move.
        st.markdown(f"**{md_text(view.compare_title(who, method, moment))}** — {stimulus_note}")
        st.image(view.compare_picture(key, moment, method, geometry, stimulus_uri, original, protected),
                 width="content", output_format="JPEG")


def kaleido_budget(one: pd.DataFrame, s: view.KaleidoSettings, key: tuple) -> None:
    """One participant's Kaleido run (named by `key`: data, stream, seed) -> the budget-per-window chart and its
    counts."""
    fig, ws, new = view.budget_figure(key, s, one)
    st.plotly_chart(fig, theme=None, key="gs_budget", config={"displayModeBar": False})
    tested = int(one["tested"].sum())
    st.caption(f"{tested:,} tests and {int(new.sum()):,} new published points over {len(one):,} samples; the "
               f"largest window spent {ws.max():.4g} of ε = {s.epsilon:g} (tests at most ε/h = "
               f"{s.epsilon / s.h:.3g}, publications strictly less than ε − ε/h).")


# --------------------------------------------------------------------------------------------
# k-anonymity


def md_table(frame: pd.DataFrame) -> str:
    """A small table -> markdown text (the cheapest element to redraw when its content changes on a move)."""
    head = "| " + " | ".join(map(md_text, frame.columns)) + " |"
    rule = "|" + "|".join(":--" if frame[c].dtype == object or str(frame[c].dtype) == "str" else "--:"
                          for c in frame.columns) + "|"
    return "\n".join([head, rule, *("| " + " | ".join(map(md_text, r)) + " |" for r in frame.itertuples(index=False))])


@st.cache_data(max_entries=8, show_spinner=False)
def _seed_table2() -> tuple[pd.DataFrame, str]:
    """The seed's Table 2 next to EyeDP's schemes (a table) and why each differs (markdown); computed once."""
    rows, why = [], []
    for kk in SEED_KS:
        cmp = kanon.compare_with_seed(kk)
        rows.append({"k": kk, "verdict": cmp.verdict, "seed (Table 2)": cmp.seed.text(), "EyeDP": cmp.ours.text()})
        why.append(f"- **k = {kk} — {cmp.verdict}.** {cmp.explanation}")
    return pd.DataFrame(rows).set_index("k"), "\n".join(why)


@fragment(name="gs_kanon")
def kanon_view() -> None:
    """k-anonymity of demographics: the generalised table, the seed's Table 2 and the intersection attack
    (a fragment; k and the attack's releases are fragments of their own inside it)."""
    sources = {"seed": "ET-DK2 + 360_em (David-John et al., Table 1, 31 rows)",
               "bundled": "The bundled readers (20, synthetic)"}
    src = st.radio("Demographics", list(sources), format_func=sources.get, horizontal=True, key="gs_demo")
    demo = kanon.SEED_DEMOGRAPHICS if src == "seed" else state.demographics()
    n = len(demo)
    if n < 4:
        st.info(f"The demographics table has {n} rows: k-anonymity needs at least 4 rows to show anything.")
        return
    kanon_k(demo, n, src)
    if src == "seed":
        st.markdown("#### The seed's Table 2, reproduced or explained")
        table2, why = _seed_table2()
        st.table(table2)  # wraps the long schemes instead of cutting them off; the same on every run
        st.markdown(why)
    kanon_attack(demo, src, n)


@fragment(name="gs_kanon_k")
def kanon_k(demo: pd.DataFrame, n: int, src: str) -> None:
    """k -> the promise, the generalised table and its classes (a fragment: only this part re-runs)."""
    k = int(st.slider("k", 2, n // 2, key="gs_kanon_k", **keep_value("gs_kanon_k", min(4, n // 2), 2, n // 2)))
    guarantee_card(explain.kanon_guarantee(k), "k-anonymity (gender, age)")
    try:
        scheme_text, rows_md, classes_md = _kanon_texts(src, k, demo)
    except ValueError as err:
        st.error(md_text(err))
        return
    c = st.columns([1.3, 1])
    with c[0]:
        st.markdown(f"**Generalised table, k = {k}:** {scheme_text}")
        with st.container(height=300):  # scrolls like the table it replaces; markdown redraws cheaply
            st.markdown(rows_md)
    with c[1]:
        st.markdown("**Classes**\n\n" + classes_md)
        st.caption("Ranges cover every age from the youngest to the oldest in the table (that span is itself read "
                   "off the data). Among all schemes with every class ≥ k we take the one with the most classes "
                   "(the seed's rule); ties keep gender, then the narrowest ranges.")


@st.cache_data(max_entries=64, show_spinner=False)
def _kanon_texts(src: str, k: int, demo: pd.DataFrame) -> tuple[str, str, str]:
    """Demographics (hashed: a few dozen rows) and k -> the scheme in words, the released rows and the classes as
    markdown tables (ValueError when no scheme has every class ≥ k)."""
    table, scheme = kanon.k_anonymize(demo, k)
    shown = table[["participant", "gender", "age_range", "class_size"]].rename(
        columns={"participant": "person", "age_range": "age range (released)", "class_size": "class size"})
    classes = kanon.class_sizes(demo, scheme)
    classes["meets k"] = classes["meets k"].map({True: "yes", False: "no"})
    return scheme.text(), md_table(shown), md_table(classes)


@fragment(name="gs_kanon_attack")
def kanon_attack(demo: pd.DataFrame, src: str, n: int) -> None:
    """Releases chosen together -> the intersection attack's joint classes (a fragment)."""
    st.markdown("#### Intersection attack: several generalisations of the same rows")
    ks = [kk for kk in SEED_KS if kk <= n] if src == "seed" else [kk for kk in (2, 3, 4, 5, 8) if kk <= n // 2]
    chosen = st.multiselect("Released together (k)", ks, default=[kk for kk in (4, 8, 15) if kk in ks] or ks[:2],
                            key="gs_attack_ks")
    if not chosen:
        st.info("Choose at least one release.")
        return
    schemes = [kanon.SEED_TABLE2[kk] if src == "seed" else kanon.k_anonymize(demo, kk)[1] for kk in sorted(chosen)]
    joint = kanon.intersection_attack(demo, schemes)
    smallest = int(joint["rows"].min())
    single = int((joint["rows"] == 1).sum())
    m = st.columns(3)
    m[0].metric("Smallest joint class", smallest)
    m[1].metric("People singled out", single)
    m[2].metric("Smallest class of any single release", min(s.k for s in schemes))
    which = "the seed's published schemes" if src == "seed" else "EyeDP's schemes"
    st.caption(f"Linking {which} for k = {', '.join(map(str, sorted(chosen)))} row by row: each release alone is "
               "k-anonymous, but the intersection of their classes is much smaller. This is why EyeDP allows one "
               "generalisation per dataset (docs/PRIVACY_MODEL.md §9.1).")
    st.table(md_cells(joint), hide_index=True)  # wraps the "who" lists instead of cutting them off


def kaleido_plan_for(s: view.KaleidoSettings):
    """Settings -> the validated KaleidoPlan (for the guarantee text)."""
    return kaleido_plan(epsilon=s.epsilon, w=s.w, t_skip=s.t_skip, h=s.h, r=s.r, l_thresh=s.l_thresh,
                        min_pub=s.min_pub_share * (s.epsilon - s.epsilon / s.h))
