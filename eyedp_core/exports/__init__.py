"""Release-grade exports: protected data drawn in release mode (OpenDP samplers, no seed) with a manifest."""
from eyedp_core.exports.gaze import release_gaze_samples
from eyedp_core.exports.manifest import ManifestSpec, manifest
from eyedp_core.exports.timeseries import release_feature_table

__all__ = ["ManifestSpec", "manifest", "release_feature_table", "release_gaze_samples"]
