"""AOIs of the bundled stimuli, derived from the simulator's own salient regions.

The simulator draws each stimulus together with the `Region`s (centre, spread) its observers look at; an AOI
is the region's box centre ± 2 spreads (about 95 % of that region's simulated fixations per axis), clipped to
the canvas. They are public: they come from the stimulus definitions, never from gaze data.
"""
from __future__ import annotations

from functools import lru_cache

from eyedp_core.aoi.shapes import Aoi, rectangle
from eyedp_core.data.simulator.main import MASTER_SEED
from eyedp_core.data.simulator.stimuli import HEIGHT, STIMULI, WIDTH, Region, render_stimuli

__all__ = ["REGION_SPREADS", "bundled_aois", "region_aoi"]

REGION_SPREADS = 2.0


def region_aoi(region: Region) -> Aoi:
    """Simulator region in, its rectangle AOI (centre ± REGION_SPREADS spreads, clipped to the canvas) out."""
    return rectangle(region.name, max(0.0, region.x - REGION_SPREADS * region.sx),
                     max(0.0, region.y - REGION_SPREADS * region.sy),
                     min(float(WIDTH), region.x + REGION_SPREADS * region.sx),
                     min(float(HEIGHT), region.y + REGION_SPREADS * region.sy))


@lru_cache(maxsize=1)
def _regions() -> dict[str, tuple[Region, ...]]:
    """The bundled stimuli's regions, drawn once (the same seed as the bundled files)."""
    return {name: tuple(regions) for name, (_, regions) in render_stimuli(MASTER_SEED).items()}


def bundled_aois(stimulus: str) -> tuple[Aoi, ...]:
    """Bundled stimulus name in, its AOIs out (empty for a stimulus the simulator did not draw)."""
    if stimulus not in STIMULI:
        return ()
    return tuple(region_aoi(r) for r in _regions()[stimulus])
