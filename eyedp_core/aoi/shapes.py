"""AOI shapes: named rectangles and polygons in stimulus pixels, and a regular grid of them.

An AOI is a public parameter (it travels in shared links and settings): nothing here reads gaze data.
Pixels: origin top-left, x right, y down (docs/ARCHITECTURE.md, units).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

__all__ = ["ELSEWHERE", "MAX_AOIS", "MAX_VERTICES", "Aoi", "ShapeKind", "grid", "polygon", "rectangle"]

# The label of fixations outside every AOI.
ELSEWHERE = "elsewhere"
# Bounds on a definition: the per-observer sensitivities grow with the AOI count, and a page draws each shape.
MAX_AOIS = 100
MAX_VERTICES = 200


class ShapeKind(str, Enum):
    """How an AOI's outline is given."""

    RECTANGLE = "rect"
    POLYGON = "polygon"


@dataclass(frozen=True)
class Aoi:
    """A named AOI: its kind and its outline as polygon vertices (a rectangle as its 4 corners)."""

    name: str
    kind: ShapeKind
    vertices: tuple[tuple[float, float], ...]

    def __post_init__(self) -> None:
        if not str(self.name).strip():
            raise ValueError("an AOI needs a name")
        if str(self.name) == ELSEWHERE:
            raise ValueError(f"'{ELSEWHERE}' is reserved for fixations outside every AOI")
        pts = tuple((float(x), float(y)) for x, y in self.vertices)
        if not 3 <= len(pts) <= MAX_VERTICES:
            raise ValueError(f"AOI '{self.name}' needs 3 to {MAX_VERTICES} vertices, got {len(pts)}")
        if not all(math.isfinite(v) for p in pts for v in p):
            raise ValueError(f"AOI '{self.name}' has a vertex that is not a finite number")
        if _area(pts) <= 0:
            raise ValueError(f"AOI '{self.name}' has no area")
        object.__setattr__(self, "name", str(self.name).strip())
        object.__setattr__(self, "kind", ShapeKind(self.kind))
        object.__setattr__(self, "vertices", pts)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) bounding box."""
        xs, ys = zip(*self.vertices, strict=True)
        return min(xs), min(ys), max(xs), max(ys)


def _area(pts: tuple[tuple[float, float], ...]) -> float:
    """Vertices in, absolute shoelace area out."""
    s = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True))
    return abs(s) / 2.0


def rectangle(name: str, x0: float, y0: float, x1: float, y1: float) -> Aoi:
    """Name and two opposite corners in, a rectangle AOI out."""
    lo_x, hi_x = sorted((float(x0), float(x1)))
    lo_y, hi_y = sorted((float(y0), float(y1)))
    return Aoi(name, ShapeKind.RECTANGLE, ((lo_x, lo_y), (hi_x, lo_y), (hi_x, hi_y), (lo_x, hi_y)))


def polygon(name: str, points: list[tuple[float, float]] | tuple[tuple[float, float], ...]) -> Aoi:
    """Name and vertices (in order, not repeated at the end) in, a polygon AOI out."""
    return Aoi(name, ShapeKind.POLYGON, tuple(points))


def grid(width: float, height: float, columns: int, rows: int) -> tuple[Aoi, ...]:
    """Canvas size and cell counts in, a regular grid of rectangles named 'r1c1', 'r1c2', ... out."""
    if not (1 <= columns and 1 <= rows and columns * rows <= MAX_AOIS):
        raise ValueError(f"a grid needs 1 to {MAX_AOIS} cells, got {columns} x {rows}")
    if not (width > 0 and height > 0):
        raise ValueError(f"a grid needs a positive canvas size, got {width} x {height}")
    dx, dy = width / columns, height / rows
    return tuple(rectangle(f"r{r + 1}c{c + 1}", c * dx, r * dy, (c + 1) * dx, (r + 1) * dy)
                 for r in range(rows) for c in range(columns))
