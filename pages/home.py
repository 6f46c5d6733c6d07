"""Home: what EyeDP is for, what ε and δ mean, which data is loaded, and where to go."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from eyedp_core.dp import explain
from eyedp_core.dp.risk_words import pure_line_risk, risk_line
from ui import runlog, state, theme
from ui.fragment import fragment
from ui.numbers import Number, numbers_html
from ui.shell import ensure_shell
from ui.text import md_text
from ui.widgets import bounded_percent, fmt_num, log_slider, odds_words

ensure_shell()
runlog.note("page")


@fragment
def odds_panel() -> None:
    """ε slider -> the attacker's odds in words, a few priors and their bound, and on request the posterior chart
    (a fragment: only this re-runs)."""
    eps = log_slider("ε (privacy loss)", 0.01, 20.0, 1.0, key="home_eps")
    factor = explain.odds_factor(eps)
    post = float(explain.posterior_bound(0.5, eps))
    priors = (0.01, 0.1, 0.5, 0.9)
    bounds = explain.posterior_bound(np.asarray(priors), eps)
    # The two headline numbers and the table of beliefs are ONE element: each element a move re-sends costs a
    # message and a re-render.
    head = [Number("An attacker's odds grow by at most (e^ε)", odds_words(factor)),
            Number("A 50 % belief rises to at most", bounded_percent(post))]
    st.markdown(f"{numbers_html(head)}\n\n{risk_words(eps)}\n\n{belief_table(priors, bounds)}",
                unsafe_allow_html=True)
    # The chart is on request: Plotly's browser code is the largest part of a first visit to this page.
    if st.toggle("Show the curve for every belief", key="home_curve"):
        st.plotly_chart(posterior_figure(eps), theme=None)


def roster() -> tuple[int, str]:
    """The number of people in the loaded data (the fixation table's observers, else the first table that counts
    people) and what they are -> (n, kind label)."""
    for kind in ("fixations", "features", "gaze"):
        if kind in state.KINDS:
            people = state.selection(kind)[2].get("people")
            if people:
                return int(people), str(state.KINDS[kind]["label"]).lower()
    return 2, "table"


def risk_words(eps: float) -> str:
    """ε -> the risk line of a pure ε-DP release about one person among the loaded data's (markdown)."""
    n, label = roster()
    text = risk_line(pure_line_risk(eps, n), "person", "in the loaded data").removesuffix(".")
    return f"{text} (docs/PRIVACY_MODEL.md §16). Here n is the {label} table's number of people."


def belief_table(priors: tuple[float, ...], bounds: np.ndarray) -> str:
    """Priors and their posterior bounds -> a markdown table, one row per belief (no-break spaces: narrow columns
    wrapped "16.9 %" over two lines at 1280 px)."""
    return "| belief before | at most after |\n|--:|--:|\n" + "\n".join(
        f"| {p * 100:.0f} % | {bounded_percent(float(b))} |".replace(" %", "\u00a0%") for p, b in zip(priors, bounds))


@st.cache_data(max_entries=64, show_spinner=False)
def posterior_figure(eps: float) -> go.Figure:
    """ε -> the worst-case posterior against the prior (cached: the slider has a few dozen values)."""
    prior = np.linspace(0.01, 0.99, 99)
    post = explain.posterior_bound(prior, eps)
    fig = go.Figure()
    fig.add_scatter(x=prior, y=prior, name="no release (posterior = prior)", line=dict(color=theme.MUTED, dash="dot"))
    fig.add_scatter(x=prior, y=post, name=f"worst case after an ε = {fmt_num(eps)} release",
                    line=dict(color=theme.PRIMARY, width=3), fill="tonexty", fillcolor="rgba(31,95,139,0.12)")
    fig.update_layout(xaxis_title="attacker's belief before (prior)", yaxis_title="highest belief after (posterior)",
                      legend=dict(x=0.98, y=0.04, xanchor="right", yanchor="bottom"), yaxis_range=[0, 1.01])
    return theme.style(fig, 340, "How far one release can move an attacker's belief")


st.title("EyeDP — what does privacy cost your gaze data?")
st.markdown(
    """
EyeDP lets you **try differential privacy (DP) on eye-tracking data before you share it**. Move the
sliders and see at once how much noise a guarantee needs, what the noisy heatmaps and feature signals
look like, how much utility is left, and how well an attacker can still re-identify people or infer
their gender.

* **UX and research teams** choose how much noise to add before sharing gaze data.
* **Teachers** show what DP costs and what it buys — including where published methods got it wrong.
* **Ethics boards** see the unit of privacy, the total ε per person and the assumptions of a release.
"""
)

left, right = st.columns([1.05, 1])
with left:
    st.subheader("What ε and δ mean")
    st.markdown(
        """
A mechanism is **(ε, δ)-differentially private** if adding, removing or replacing *one person's
entire data* changes the probability of every possible output by at most a factor **e^ε** (plus a
small slack **δ**).

**The attacker's-odds reading:** whatever an attacker believed beforehand about you (say "Alice
took part", or "Alice is female"), seeing the output can multiply their **odds** by at most **e^ε**.
With ε = 1 that is ×2.7; with ε = 0.1 only ×1.1; with ε = 10 it is ×22 026 — practically no protection.

**δ** is the probability that this bound fails outright. It must be much smaller than 1/n for n
people, otherwise a mechanism could publish one person's data in the clear and still satisfy it.

**Unit of privacy.** EyeDP states, for every release, whom the guarantee protects: one
*participant* (their whole recording, all features) or one *observer* (their whole gaze map). Smaller
units (one chunk, one window) are shown only as secondary figures, because a person is more than a chunk.
"""
    )
with right:
    odds_panel()

COLUMNS_SHOWN = 8  # column names one table cell lists; the rest are behind an expander
st.subheader("Data loaded")
# A markdown table: it wraps every column name (st.dataframe would cut them off), and the bundled samples are
# described from their summary file, so a first visit loads no table.
lines = ["| kind | dataset | source | rows | people | columns |", "|---|---|---|--:|--:|---|"]
long_lists: list[tuple[str, list[str]]] = []  # tables with more columns than one cell shows
for kind, spec in state.KINDS.items():
    name, source, info, _ = state.selection(kind)
    people = "–" if info["people"] is None else f"{info['people']:,}"
    shown, rest = info["columns"][:COLUMNS_SHOWN], len(info["columns"]) - COLUMNS_SHOWN
    cols = (f"{len(info['columns'])}: " + ", ".join(map(md_text, shown))
            + (f", … ({rest} more, listed below)" if rest > 0 else ""))
    lines.append(f"| **{spec['label']}** | {md_text(name)} | {source} | {info['rows']:,} | {people} | {cols} |")
    if rest > 0:
        long_lists.append((spec["label"], info["columns"]))
st.markdown("\n".join(lines))
for label, columns in long_lists:
    with st.expander(f"All {len(columns)} columns of the {label.lower()}"):
        st.markdown(", ".join(map(md_text, columns)))
st.caption(f"Stimulus images available: {', '.join(map(md_text, state.stimulus_names()))}. Change the data in the sidebar, "
           "or upload your own on the *Your data* page. Uploads stay in memory for this session only.")

st.subheader("The views")
views = [
    ("pages/heatmaps.py", "Heatmaps", "Where people looked, with noise added per observer so that no one's gaze "
     "can be told apart (Liu et al.): the noisy maps, how much noise a cap needs, and the difference attack."),
    ("pages/time_series.py", "Time series", "Eye-movement features over time with noise added in the Fourier "
     "domain (Bozkir et al.'s LPA, FPA, CFPA, DCFPA): utility against ε, honestly counted per participant."),
    ("pages/attacks.py", "Attacks", "How well classifiers re-identify people or guess their gender and what "
     "they read, from clean and noisy features (Steil et al.'s threat models)."),
    ("pages/gaze_samples.py", "Gaze samples", "Raw gaze streams and their fixations and saccades, protected "
     "sample by sample: Kaleido, k-anonymity, k-same-synth and plausible deniability (David-John et al.)."),
    ("pages/report.py", "Report", "Everything released in this session, composed per person, ready for an "
     "ethics board."),
    ("pages/your_data.py", "Your data", "Upload your own gaze recordings, fixations, feature tables or stimulus "
     "images (CSV, TSV, Tobii, EyeLink, PNG, JPEG); they stay in memory for this session only."),
]
# Three cards per row, each as tall as its text: fixed heights cut sentences off at some widths.
for start in range(0, len(views), 3):
    for col, (path, title, text) in zip(st.columns(3), views[start:start + 3]):
        with col.container(border=True):
            st.page_link(path, label=f"**{title}**", icon=":material/arrow_forward:")
            st.caption(text)

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page

ui.share.page_tools("home")
