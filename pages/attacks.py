"""Attacks: how well classifiers re-identify people or infer gender and document type from features."""
from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eyedp_core.attacks import protocols as attacks
from ui import state
from ui import theme
from ui.shell import ensure_shell
from ui.widgets import coming_soon

ensure_shell()

st.title("Attacks")
ds = state.current("features")
df = ds.frame
st.markdown(
    f"Feature table **{ds.name}**: {df['participant'].nunique()} participants, {len(df):,} windows, "
    f"{len(attacks.feature_columns(df))} features. The attacks follow Steil et al.'s threat models: "
    "**re-identification with prior knowledge** (the attacker holds earlier recordings of every person) "
    "and **gender or document type without prior knowledge** (trained on other people only)."
)


@st.cache_data(show_spinner="Training the attack classifiers on clean data…", max_entries=8)
def clean_baseline(token: str, _df: pd.DataFrame) -> pd.DataFrame:
    """Feature table -> accuracy of each attack protocol on clean data (cached on the data token)."""
    runs = []
    if "task" in _df.columns:
        runs.append(("Re-identification", attacks.reidentify(_df)))
        if _df["task"].nunique() > 1:
            runs.append(("Document type", attacks.classify_documents(_df)))
    if "gender" in _df.columns and _df["gender"].nunique() > 1:
        runs.append(("Gender", attacks.infer_gender(_df)))
    return pd.DataFrame([{"attack": name, "per window": r.window_accuracy, "majority vote": r.vote_accuracy,
                          "chance": r.chance} for name, r in runs])


try:
    base = clean_baseline(ds.token, df)
except ValueError as err:
    st.error(f"{ds.name}: cannot run the attacks: {err}")
    st.stop()

if base.empty:
    st.info("This table has no task or gender column, so none of the attack protocols applies.")
else:
    fig = go.Figure()
    for i, col in enumerate(["per window", "majority vote"]):
        fig.add_bar(x=base["attack"], y=base[col], name=col, marker_color=theme.CATEGORY[i],
                    text=[f"{v:.2f}" for v in base[col]], textposition="outside")
    fig.add_scatter(x=base["attack"], y=base["chance"], mode="markers", name="chance level",
                    marker=dict(symbol="line-ew-open", size=40, color=theme.DANGER, line=dict(width=3)))
    fig.update_layout(yaxis_title="accuracy", yaxis_range=[0, 1.1], barmode="group")
    st.plotly_chart(theme.style(fig, 380, "Clean data: how well each attack works before any noise"))
    st.caption("SVM (RBF, C = 1) on standardised features. Re-identification: train on the first half of "
               "each recording, test on the second half. Document type and gender: leave one participant out. "
               "Majority vote over the windows of a recording (participant for gender).")
st.dataframe(df.head(12), hide_index=True)
coming_soon("The same attacks on privatised features (train clean / test noisy, and both noisy), across ε.")
