"""Streamlit panels, cached figures and compute wrappers of the Gaze-samples view (raw gaze streams)."""
