"""Home: what EyeDP is for, what ε and δ mean, which data is loaded, and where to go."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from eyedp_core.dp import explain
from ui import state
from ui import theme
from ui.widgets import fmt_num, log_slider
from ui.shell import ensure_shell

ensure_shell()

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
    eps = log_slider("ε (privacy loss)", 0.01, 20.0, 1.0, key="home_eps")
    prior = np.linspace(0.01, 0.99, 99)
    post = explain.posterior_bound(prior, eps)
    fig = go.Figure()
    fig.add_scatter(x=prior, y=prior, name="no release (posterior = prior)", line=dict(color=theme.MUTED, dash="dot"))
    fig.add_scatter(x=prior, y=post, name=f"worst case after an ε = {fmt_num(eps)} release",
                    line=dict(color=theme.PRIMARY, width=3), fill="tonexty", fillcolor="rgba(31,95,139,0.12)")
    fig.update_layout(xaxis_title="attacker's belief before (prior)", yaxis_title="highest belief after (posterior)",
                      legend=dict(x=0.02, y=0.98), yaxis_range=[0, 1.01])
    st.plotly_chart(theme.style(fig, 340, "How far one release can move an attacker's belief"))
    c1, c2 = st.columns(2)
    c1.metric("Odds factor e^ε", fmt_num(explain.odds_factor(eps)))
    c2.metric("Belief 50 % → at most", f"{100 * float(explain.posterior_bound(0.5, eps)):.1f} %")

st.subheader("Data loaded")
rows = []
for kind, spec in state.KINDS.items():
    ds = state.current(kind)
    df = ds.frame
    who = next((c for c in ("participant", "observer") if c in df.columns), None)
    rows.append({
        "kind": spec["label"], "dataset": ds.name, "source": ds.source,
        "rows": len(df), "people": df[who].nunique() if who else None,
        "columns": ", ".join(map(str, df.columns[:8])) + (" …" if df.shape[1] > 8 else ""),
    })
st.dataframe(rows, hide_index=True)
st.caption(f"Stimulus images available: {', '.join(state.stimuli())}. Change the data in the sidebar, "
           "or upload your own on the *Your data* page. Uploads stay in memory for this session only.")

st.subheader("The views")
views = [
    ("pages/heatmaps.py", "Heatmaps", "Private gaze heatmaps with a per-observer cap (Liu et al.): Gaussian and "
     "Laplace noise, the optimal cap, a noise calculator and the difference attack."),
    ("pages/time_series.py", "Time series", "LPA, FPA, CFPA and DCFPA on eye-movement feature signals (Bozkir et al.), "
     "utility versus ε, choice of k, correlation, and honest per-participant accounting."),
    ("pages/attacks.py", "Attacks", "How well classifiers re-identify people or infer gender and document type "
     "from clean and noisy features (Steil et al.'s threat models)."),
    ("pages/gaze_samples.py", "Gaze samples", "Raw gaze streams, detected fixations and saccades, scanpaths."),
    ("pages/report.py", "Report", "Everything released in this session, composed per person, ready for an ethics board."),
]
cols = st.columns(len(views))
for col, (path, title, text) in zip(cols, views):
    with col:
        with st.container(border=True, height=190):
            st.page_link(path, label=f"**{title}**", icon=":material/arrow_forward:")
            st.caption(text)

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page
ui.share.page_tools("home")
