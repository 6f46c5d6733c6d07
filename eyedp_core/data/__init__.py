"""Bundled sample datasets and the gaze simulator that wrote them."""
