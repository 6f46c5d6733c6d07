"""Screen geometry and units: pixels, normalised coordinates, millimetres and degrees of visual angle.

`Geometry` is the one screen-geometry type of the core (uploads, event detection, features, heatmap kernels,
gaze-sample views). It describes a display: its resolution in pixels, its physical size in millimetres and the
viewing distance in millimetres (the fields); the same lengths in centimetres are properties (`width_cm`,
`height_cm`, `distance_cm`) and `Geometry.from_cm` builds one from centimetres. It lives in `gaze`, the lowest
layer that needs it, so that `io` (uploads) and `gaze` (event detectors) share it. Degrees are angles from the line of sight to the screen centre, computed exactly
with atan (not with a pixels-per-degree constant), x to the right and y downwards unless told otherwise.
Every conversion returns pixels with the origin top-left, x right, y down: the convention of the app.

Presets are rough, documented stand-ins for when the lab did not note its set-up; `Geometry.from_fov`
builds a head-mounted display from its field of view (a virtual screen at 1 m).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

UNITS = ("px", "norm", "mm", "deg")
UNIT_LABELS = {"px": "pixels (origin top-left)", "norm": "normalised 0-1 (of the width and height)",
               "mm": "millimetres on the screen (origin top-left)",
               "deg": "degrees of visual angle from the centre"}
MM_PER_INCH = 25.4


# The one tolerance of the whole app for positions off the screen or canvas, as a share of its width and height:
# trackers report gaze a little past the edge (calibration error, a look at the bezel). Upload checks set samples
# further out to missing; fixations derived from gaze are clipped to the canvas within it and dropped beyond it;
# the heatmaps clip fixations within it and refuse a table with positions beyond it (a wrong stimulus size).
ON_SCREEN_TOLERANCE = 0.1

@dataclass(frozen=True)
class Geometry:
    """A display: resolution (px), physical size (mm) and viewing distance (mm)."""

    width_px: int
    height_px: int
    width_mm: float
    height_mm: float
    distance_mm: float
    name: str = ""

    def __post_init__(self) -> None:
        """Validate: every size and the distance must be positive and finite."""
        for field_name in ("width_px", "height_px", "width_mm", "height_mm", "distance_mm"):
            value = getattr(self, field_name)
            if not (isinstance(value, (int, float, np.integer, np.floating)) and math.isfinite(float(value))
                    and float(value) > 0):
                raise ValueError(f"Geometry.{field_name} must be a positive number, got {value!r}")

    @classmethod
    def from_diagonal(cls, diagonal_inch: float, width_px: int, height_px: int, distance_mm: float,
                      name: str = "") -> Geometry:
        """Screen diagonal (inches), resolution and distance -> Geometry with square pixels."""
        diag_px = math.hypot(width_px, height_px)
        mm_per_px = diagonal_inch * MM_PER_INCH / diag_px
        return cls(width_px, height_px, width_px * mm_per_px, height_px * mm_per_px, distance_mm, name)

    @classmethod
    def from_fov(cls, width_px: int, height_px: int, fov_x_deg: float, fov_y_deg: float,
                 name: str = "") -> Geometry:
        """Resolution and full field of view (degrees) -> Geometry of a virtual screen 1 m away (HMDs)."""
        d = 1000.0
        return cls(width_px, height_px, 2 * d * math.tan(math.radians(fov_x_deg) / 2),
                   2 * d * math.tan(math.radians(fov_y_deg) / 2), d, name)

    @classmethod
    def from_cm(cls, width_px: int, height_px: int, width_cm: float, height_cm: float, distance_cm: float,
                name: str = "") -> Geometry:
        """Resolution, physical size and viewing distance in centimetres -> Geometry (stored in mm)."""
        return cls(width_px, height_px, float(width_cm) * 10.0, float(height_cm) * 10.0, float(distance_cm) * 10.0,
                   name)

    @property
    def width_cm(self) -> float:
        """-> the screen's physical width in cm."""
        return self.width_mm / 10.0

    @property
    def height_cm(self) -> float:
        """-> the screen's physical height in cm."""
        return self.height_mm / 10.0

    @property
    def distance_cm(self) -> float:
        """-> the viewing distance in cm."""
        return self.distance_mm / 10.0

    def cm_per_px(self) -> tuple[float, float]:
        """-> the physical pixel pitch (cm per px horizontally, vertically)."""
        return self.width_cm / self.width_px, self.height_cm / self.height_px

    def deg_per_px(self) -> tuple[float, float]:
        """-> the visual angle of one pixel at the screen centre (deg/px horizontally, vertically)."""
        cx, cy = self.cm_per_px()
        d = self.distance_cm
        return float(np.degrees(2 * np.arctan(cx / (2 * d)))), float(np.degrees(2 * np.arctan(cy / (2 * d))))

    @property
    def mm_per_px(self) -> tuple[float, float]:
        """-> (mm per pixel horizontally, vertically)."""
        return self.width_mm / self.width_px, self.height_mm / self.height_px

    @property
    def px_per_deg(self) -> float:
        """-> pixels per degree at the screen centre (mean of both axes), for kernels and thresholds."""
        mx, my = self.mm_per_px
        per_deg_mm = self.distance_mm * math.tan(math.radians(1.0))
        return 0.5 * (per_deg_mm / mx + per_deg_mm / my)

    @property
    def field_of_view_deg(self) -> tuple[float, float]:
        """-> full horizontal and vertical field of view of the screen, in degrees."""
        return (2 * math.degrees(math.atan(self.width_mm / 2 / self.distance_mm)),
                2 * math.degrees(math.atan(self.height_mm / 2 / self.distance_mm)))

    def describe(self) -> str:
        """-> one line: name, resolution, size, distance, pixels per degree."""
        head = f"{self.name}: " if self.name else ""
        return (f"{head}{self.width_px} × {self.height_px} px, {self.width_mm:.0f} × {self.height_mm:.0f} "
                f"mm at {self.distance_mm / 10:.0f} cm ({self.px_per_deg:.1f} px/deg)")

    def deg_to_px(self, ax: np.ndarray, ay: np.ndarray, y_up: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Angles from the centre (deg; y down unless y_up) -> pixels, origin top-left."""
        mx, my = self.mm_per_px
        ax = np.asarray(ax, dtype=float)
        ay = np.asarray(ay, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            # Angles at or beyond ±90° have no point on the screen plane.
            ax = np.where(np.abs(ax) < 90, ax, np.nan)
            ay = np.where(np.abs(ay) < 90, ay, np.nan)
            x = self.width_px / 2 + self._offset_px(ax, mx)
            sy = -1.0 if y_up else 1.0
            y = self.height_px / 2 + sy * self._offset_px(ay, my)
        return x, y

    def _offset_px(self, angle_deg: np.ndarray | float, mm_per_px: float) -> np.ndarray:
        """An angle from the line of sight (deg) and the pixel pitch along one axis -> the pixel offset from the
        screen centre (d·tan(angle) mm over the pitch): the one angle-to-pixel formula of the core."""
        return self.distance_mm * np.tan(np.radians(angle_deg)) / mm_per_px

    def span_px(self, deg: float) -> tuple[float, float]:
        """A visual angle centred on the line of sight (deg) -> its extent in pixels (horizontally, vertically):
        2·d·tan(deg/2) mm over the pixel pitch (kernel widths given in degrees)."""
        mx, my = self.mm_per_px
        return float(2.0 * self._offset_px(deg / 2.0, mx)), float(2.0 * self._offset_px(deg / 2.0, my))

    def px_to_deg(self, x: np.ndarray, y: np.ndarray, y_up: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Pixels (origin top-left) -> angles from the centre in degrees (y down unless y_up)."""
        mx, my = self.mm_per_px
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        ax = np.degrees(np.arctan((x - self.width_px / 2) * mx / self.distance_mm))
        ay = np.degrees(np.arctan((y - self.height_px / 2) * my / self.distance_mm))
        return ax, (-ay if y_up else ay)

    def mm_to_px(self, x_mm: np.ndarray, y_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Millimetres on the screen (origin top-left) -> pixels."""
        mx, my = self.mm_per_px
        return np.asarray(x_mm, dtype=float) / mx, np.asarray(y_mm, dtype=float) / my

    def norm_to_px(self, nx: np.ndarray, ny: np.ndarray, y_up: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Normalised 0-1 coordinates (origin top-left, or bottom-left if y_up) -> pixels."""
        nx = np.asarray(nx, dtype=float)
        ny = np.asarray(ny, dtype=float)
        return nx * self.width_px, ((1.0 - ny) if y_up else ny) * self.height_px

    def to_px(self, x: np.ndarray, y: np.ndarray, units: str,
              y_up: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Coordinates in `units` (px, norm, mm, deg) -> pixels, origin top-left."""
        if units == "px":
            return np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if units == "norm":
            return self.norm_to_px(x, y, y_up)
        if units == "mm":
            return self.mm_to_px(x, y)
        if units == "deg":
            return self.deg_to_px(x, y, y_up)
        raise ValueError(f"units must be one of {UNITS}, got {units!r}")

    def off_screen(self, x: np.ndarray, y: np.ndarray, margin: float | None = None) -> np.ndarray:
        """Pixels -> boolean mask of samples more than `margin` × the screen size outside the screen."""
        x = np.asarray(x, dtype=float)
        y = np.asarray(y, dtype=float)
        margin = ON_SCREEN_TOLERANCE if margin is None else margin
        mx, my = margin * self.width_px, margin * self.height_px
        with np.errstate(invalid="ignore"):
            return (x < -mx) | (x > self.width_px + mx) | (y < -my) | (y > self.height_px + my)


# A 24" 16:9 monitor is 531 x 299 mm; a 14" laptop 310 x 174 mm. The VR preset is a typical per-eye panel
# and field of view of current headsets; GazeBase and Lund 2013 are the set-ups their papers report.
PRESETS: dict[str, Geometry] = {
    "desktop_24": Geometry.from_diagonal(24, 1920, 1080, 600, '24" monitor, 1920 × 1080 at 60 cm'),
    "laptop_14": Geometry.from_diagonal(14, 1920, 1080, 500, '14" laptop, 1920 × 1080 at 50 cm'),
    "vr_headset": Geometry.from_fov(1440, 1600, 100, 110,
                                    "VR headset, 1440 × 1600 per eye, 100° × 110° field"),
    "gazebase": Geometry(1680, 1050, 474, 297, 550, "GazeBase, 1680 × 1050, 47.4 × 29.7 cm at 55 cm"),
    "lund2013": Geometry(1024, 768, 380, 300, 670,
                         "Lund 2013 (SMI Hi-Speed), 1024 × 768, 38 × 30 cm at 67 cm"),
}
DEFAULT_PRESET = "desktop_24"
