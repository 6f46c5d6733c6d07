"""The documented gaze simulator (`python -m eyedp_core.simulate` regenerates sample_data/)."""
