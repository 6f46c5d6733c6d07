"""Streamlit panels, cached figures and compute wrappers of the samples view."""
