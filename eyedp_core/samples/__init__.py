"""Gaze-samples view: computations on raw gaze streams (events for display; privacy methods of David-John et al.)."""
