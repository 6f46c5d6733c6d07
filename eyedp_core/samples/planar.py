"""Planar Laplace for the Gaze-samples view: the mechanism object lives with the others in eyedp_core.dp."""
from eyedp_core.dp.planar import PlanarLaplaceMechanism, planar_laplace, radius_quantile

__all__ = ["PlanarLaplaceMechanism", "planar_laplace", "radius_quantile"]
