"""Gaze signal processing: event detection (I-VT, I-DT) and windowed features with public bounds."""
