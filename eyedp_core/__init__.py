"""EyeDP core: pure, typed computing for the privacy-utility explorer (no Streamlit, no Plotly).

Subpackages by concept: dp (mechanisms, ledger, release), io, data (samples, simulator), gaze
(events, features), one package per view (heatmaps, timeseries, attacks, samples), and metrics.
See docs/ARCHITECTURE.md.
"""
