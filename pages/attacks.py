"""Attacks: re-identification, gender and document-type inference from clean and noisy features."""
from __future__ import annotations

import streamlit as st

from ui import state
from ui.widgets import coming_soon
from ui.shell import ensure_shell

ensure_shell()

st.title("Attacks")
ds = state.current("features")
df = ds.frame
st.markdown(f"Feature table **{ds.name}**: {df['participant'].nunique()} participants, {len(df):,} windows.")
st.dataframe(df.head(20), hide_index=True)
coming_soon("Classifier attacks (Steil et al.'s threat models) on clean and privatised features.")
