"""Streamlit panels, cached figures and compute wrappers of the timeseries view."""
