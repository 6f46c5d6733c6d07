"""Private gaze heatmaps (Liu et al.): maps, caps, calibration, curves, attacks (see maps)."""
