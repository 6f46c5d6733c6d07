"""The baseline for bench/run.py: the cheapest Streamlit page with one slider."""
import streamlit as st

st.title("Trivial")
v = st.slider("value", 0, 100, 50)
st.write(v)
