"""EyeDP core: pure, typed computing for the privacy-utility explorer (no Streamlit, no Plotly).

Subpackages by concept: dp (calibration, noise, the ledger and its store, releases, risk), io (uploads), data
(the bundled samples, the simulator), gaze (events, features, geometry, contributions), one package per view
(heatmaps, timeseries, gazestream, aoi, attacks), plan (study plans), exports, report, batch, and metrics.
See docs/ARCHITECTURE.md.
"""
