"""Pixels and degrees are converted by one formula, the Geometry's: gaze.events.pix_to_deg and
heatmaps.maps.sigma_px_from_degrees call it and agree with Geometry.px_to_deg to 1e-12."""
from __future__ import annotations

import math

import numpy as np
import pytest

from eyedp_core.gaze.events import pix_to_deg
from eyedp_core.gaze.geometry import PRESETS, Geometry
from eyedp_core.heatmaps.maps import sigma_px_from_degrees

LUND = PRESETS["lund2013"]  # 1024 × 768 px, 38 × 30 cm at 67 cm: 0.371 mm × 0.391 mm pixels
# Pixels twice as tall as wide (an anamorphic set-up): x and y must each use their own pitch.
TALL_PIXELS = Geometry(800, 300, 400.0, 300.0, 600.0, "non-square pixels")
DEGREES = (0.05, 0.5, 1.0, 1.5, 5.0, 20.0, 60.0)


@pytest.mark.parametrize("g", [LUND, TALL_PIXELS], ids=["lund", "tall-pixels"])
def test_events_pix_to_deg_is_the_geometry_formula(g: Geometry) -> None:
    """pix_to_deg equals Geometry.px_to_deg and the atan written here from the screen's millimetres."""
    rng = np.random.default_rng(7)
    x, y = rng.uniform(-50, g.width_px + 50, 500), rng.uniform(-50, g.height_px + 50, 500)
    got, want = pix_to_deg(x, y, g), g.px_to_deg(x, y)
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-12)
    mx, my = g.width_mm / g.width_px, g.height_mm / g.height_px
    np.testing.assert_allclose(got[0], np.degrees(np.arctan((x - g.width_px / 2) * mx / g.distance_mm)), atol=1e-12)
    np.testing.assert_allclose(got[1], np.degrees(np.arctan((y - g.height_px / 2) * my / g.distance_mm)), atol=1e-12)


@pytest.mark.parametrize("g", [LUND, TALL_PIXELS], ids=["lund", "tall-pixels"])
@pytest.mark.parametrize("deg", DEGREES)
def test_a_span_in_degrees_maps_back_to_the_same_angle(g: Geometry, deg: float) -> None:
    """A visual angle's pixel span (the heatmap kernel's σ in px), centred on the screen and read back with
    px_to_deg and pix_to_deg, is the angle again; sigma_px_from_degrees is the span's horizontal extent."""
    sx, sy = g.span_px(deg)
    cx, cy = g.width_px / 2, g.height_px / 2
    ax, _ = g.px_to_deg(np.array([cx - sx / 2, cx + sx / 2]), np.array([cy, cy]))
    _, ay = pix_to_deg(np.array([cx, cx]), np.array([cy - sy / 2, cy + sy / 2]), g)
    assert abs((ax[1] - ax[0]) - deg) < 1e-12 and abs((ay[1] - ay[0]) - deg) < 1e-12
    assert sigma_px_from_degrees(deg, g.width_px, g.width_cm, g.distance_cm) == pytest.approx(sx, rel=1e-12)
    # The closed form, from the screen's width in cm: 2·d·tan(deg/2) cm × px per cm.
    assert sx == pytest.approx(2 * g.distance_cm * math.tan(math.radians(deg) / 2) * g.width_px / g.width_cm,
                               rel=1e-12)


def test_non_square_pixels_give_different_spans_per_axis() -> None:
    """On pixels twice as tall as wide, one degree spans half as many pixels vertically (the geometry is not
    collapsed to one pitch)."""
    sx, sy = TALL_PIXELS.span_px(1.0)
    assert sx == pytest.approx(2 * sy, rel=1e-12)
