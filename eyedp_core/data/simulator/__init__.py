"""The documented gaze simulator (`python -m eyedp_core.data.simulator` regenerates sample_data/)."""
