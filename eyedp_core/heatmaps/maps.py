"""Private gaze heatmaps (Liu et al.; docs/PRIVACY_MODEL.md §6): per-observer gaze maps on a grid, cap, aggregate,
noise, Gaussian-kernel smoothing.

Pipeline: `gaze_maps` (sparse, observers × cells) -> `aggregate` (capped mean map, dense) -> `privatize`
(Gaussian or Laplace noise on the aggregate) -> `smooth` (post-processing, costs no privacy).
Sensitivities, calibrations, presets and the noise calculator live in `calibration`; the cap analysis
(Theorem 4.1, Algorithm 1, DP selection of m) in `cap`; the difference attack and the non-private
mechanisms in `attacks`; ε-curves and planning in `curves`; the page's preview in `preview` and the
private release (OpenDP export, ledger entries) in `release`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy import fft

from eyedp_core.dp.calibration import Calibration
from eyedp_core.dp.noise import sample_noise
from eyedp_core.dp.registry import Family
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.heatmaps.calibration import (
    DeltaLike,
    HeatmapSensitivity,
    HeatmapSetting,
    calibrate_heatmap,
    noise_family,
    noise_std,
)

__all__ = [
    "GazeMaps",
    "GridChoice",
    "PrivateMap",
    "aggregate",
    "cap_matrix",
    "draw_noise",
    "gaze_maps",
    "grid_for_sigma",
    "grid_shape",
    "kernel_spectrum",
    "noise_family",
    "privatize",
    "sigma_px_from_degrees",
    "smooth",
]

OBSERVER_COLUMNS = ("observer", "participant", "subject")


def grid_shape(width: int | np.ndarray, height: int | np.ndarray,
               cell: int | np.ndarray) -> tuple[int | np.ndarray, int | np.ndarray]:
    """Stimulus width and height in px and the cell size in px (numbers or numpy arrays) in, (rows, cols) of the
    cell grid out: partial cells at the right and bottom edges count as whole cells."""
    return -(-height // cell), -(-width // cell)


@dataclass(frozen=True)
class GridChoice:
    """Answer of the grid calculator: cell size in px, grid shape (rows, cols), cells r and the noise std."""

    cell: int
    grid_shape: tuple[int, int]
    r: int
    std: float


def grid_for_sigma(target_std: float, n: int, width: int, height: int, setting: HeatmapSetting, *,
                   delta_of_n: DeltaLike | None = None) -> GridChoice | None:
    """Target std, observers n, stimulus size, the setting (ε, δ, caps, noise; its cell size is what is sought)
    and optionally δ as a function of n in, the finest grid (smallest cell) whose noise std is <= target out
    (None if even a single cell is too noisy)."""
    s = setting
    cells = np.arange(1, max(width, height) + 1)
    rows, cols = grid_shape(width, height, cells)
    delta = s.delta if delta_of_n is None else delta_of_n
    stds = noise_std(n, rows * cols, s.epsilon, delta, s.cap_m, s.cap_total, s.mechanism, s.method)
    ok = np.flatnonzero(stds <= target_std)
    if ok.size == 0:
        return None
    i = ok[0]
    return GridChoice(int(cells[i]), (int(rows[i]), int(cols[i])), int(rows[i] * cols[i]), float(stds[i]))


@dataclass(frozen=True, eq=False)
class GazeMaps:
    """Per-observer gaze maps: sparse matrix observers × cells (row-major cells), grid shape and ids."""

    matrix: sp.csr_matrix
    grid_shape: tuple[int, int]  # (rows, cols) of cells
    observers: np.ndarray
    cell: int
    width: int
    height: int
    weight: str  # "count" (fixations or samples) | "duration" (dwell time in seconds)
    n_dropped: int = 0  # rows outside the stimulus or with missing coordinates

    @property
    def n_observers(self) -> int:
        """Number of observers n (rows of the matrix)."""
        return self.matrix.shape[0]

    @property
    def n_cells(self) -> int:
        """Number of grid cells r."""
        return self.matrix.shape[1]

    def index_of(self, observer: object) -> int:
        """Observer id in, row index out (KeyError if unknown)."""
        hits = np.flatnonzero(self.observers == observer)
        if hits.size == 0:
            raise KeyError(f"observer {observer!r} not in these gaze maps")
        return int(hits[0])

    def observer_map(self, i: int) -> np.ndarray:
        """Row index in, that observer's uncapped dense map (rows, cols) out."""
        return self.matrix.getrow(i).toarray().reshape(self.grid_shape)

    def dense(self) -> np.ndarray:
        """All maps as a dense (n, rows, cols) array (small grids only: n·r floats)."""
        return self.matrix.toarray().reshape((self.n_observers,) + self.grid_shape)

    def totals(self) -> np.ndarray:
        """Per-observer total count (or dwell seconds), length n."""
        return np.asarray(self.matrix.sum(axis=1)).ravel()

    def g_max(self) -> float:
        """Largest value of any observer in any cell (Algorithm 1's g_max)."""
        return float(self.matrix.data.max()) if self.matrix.nnz else 0.0


def _observer_column(df: pd.DataFrame, observer_col: str | None) -> str:
    if observer_col is not None:
        return observer_col
    for c in OBSERVER_COLUMNS:
        if c in df.columns:
            return c
    raise ValueError(f"no observer column: expected one of {OBSERVER_COLUMNS}, got {list(df.columns)}")


def gaze_maps(fixations: pd.DataFrame, width: int, height: int, cell: int = 1, weight: str = "count",
              observer_col: str | None = None, observers: list | np.ndarray | None = None) -> GazeMaps:
    """Fixations (or raw samples) with observer, x, y[, duration_ms] and the stimulus size in px in,
    sparse per-observer GazeMaps on a grid of `cell`-px cells out.

    weight="count": each row counts 1 (fixation counts; pass raw samples for sample counts).
    weight="duration": each row counts its duration in seconds (dwell time). Rows with missing or
    out-of-stimulus coordinates are dropped (counted in `n_dropped`); observers with no valid row keep
    an empty map. `observers` fixes the public roster (its order gives the rows)."""
    cell = int(cell)
    if cell < 1 or width < 1 or height < 1:
        raise ValueError(f"need cell >= 1 and a positive stimulus size, got cell={cell}, {width}x{height}")
    if weight not in ("count", "duration"):
        raise ValueError(f"weight must be 'count' or 'duration', got {weight!r}")
    ocol = _observer_column(fixations, observer_col)
    if observers is None:
        codes, uniq = pd.factorize(fixations[ocol], sort=True)
        ids = np.asarray(uniq)
    else:
        ids = np.asarray(observers)
        codes = pd.Index(ids).get_indexer(fixations[ocol])
        if (codes < 0).any():
            raise ValueError("fixations contain observers that are not in the given roster")
    x = fixations["x"].to_numpy(dtype=float)
    y = fixations["y"].to_numpy(dtype=float)
    if weight == "duration":
        w = fixations["duration_ms"].to_numpy(dtype=float) / 1000.0
        if np.nanmin(w, initial=0.0) < 0:
            raise ValueError("durations must be >= 0")
    else:
        w = np.ones(len(x))
    with np.errstate(invalid="ignore"):
        ok = (x >= 0) & (x < width) & (y >= 0) & (y < height) & np.isfinite(w) & (codes >= 0)
    rows, cols = grid_shape(width, height, cell)
    idx = (y[ok] // cell).astype(np.int64) * cols + (x[ok] // cell).astype(np.int64)
    mat = sp.coo_matrix((w[ok], (codes[ok], idx)), shape=(len(ids), rows * cols)).tocsr()
    mat.sum_duplicates()
    mat.eliminate_zeros()
    return GazeMaps(mat, (rows, cols), ids, cell, int(width), int(height), weight, int((~ok).sum()))


def cap_matrix(maps: GazeMaps, cap_m: float | None, cap_total: float | None = None) -> sp.csr_matrix:
    """GazeMaps, per-cell cap m (None = uncapped) and optional total cap C in, capped sparse matrix out.

    The total cap scales an observer's capped map down to total C when it exceeds C: entries stay in
    [0, m] and the observer's total is <= C, which is all §6.1's sensitivity bound needs."""
    mat = maps.matrix.copy()
    if cap_m is not None and np.isfinite(cap_m):
        np.minimum(mat.data, cap_m, out=mat.data)
    if cap_total is not None and np.isfinite(cap_total):
        tot = np.asarray(mat.sum(axis=1)).ravel()
        scale = np.minimum(1.0, cap_total / np.maximum(tot, 1e-300))
        mat = sp.csr_matrix(sp.diags(scale) @ mat)
    return mat


def aggregate(maps: GazeMaps, cap_m: float | None, cap_total: float | None = None) -> np.ndarray:
    """GazeMaps, per-cell cap m (None = uncapped) and optional total cap C in, mean capped map
    G = (1/n)·Σ_i G_i as a dense (rows, cols) float64 array out."""
    mat = cap_matrix(maps, cap_m, cap_total)
    col = np.asarray(mat.sum(axis=0)).ravel()
    return (col / maps.n_observers).reshape(maps.grid_shape)


# --------------------------------------------------------------------------------------------
# smoothing (DCT-II diagonalisation of scipy's reflect-mode Gaussian filter)


@lru_cache(maxsize=64)
def _spectrum(length: int, sigma: float, truncate: float) -> np.ndarray:
    radius = int(truncate * sigma + 0.5)
    j = np.arange(1, radius + 1, dtype=float)
    h = np.exp(-0.5 * (j / sigma) ** 2)
    h0 = 1.0 / (1.0 + 2.0 * h.sum())
    h *= h0
    k = np.arange(length, dtype=float)
    # Reflect padding makes the signal 2L-periodic and even, so an even kernel acts diagonally on the
    # orthonormal DCT-II with eigenvalues h0 + 2 Σ_j h_j cos(π j k / L) (kernel wider than 2L included).
    lam = np.full(length, h0)
    for start in range(0, radius, 2048):  # bounded memory for very wide kernels
        jj = j[start:start + 2048]
        lam += 2.0 * (h[start:start + 2048, None] * np.cos(np.pi * jj[:, None] * k[None, :] / length)).sum(0)
    lam.setflags(write=False)
    return lam


def kernel_spectrum(length: int, sigma: float, truncate: float = 4.0) -> np.ndarray:
    """Axis length, Gaussian σ (in cells) and truncation in, DCT-II eigenvalues of the 1-D reflect-mode
    Gaussian filter out (σ = 0 gives ones)."""
    if sigma <= 0:
        return np.ones(length)
    return _spectrum(int(length), float(sigma), float(truncate))


def smooth(map_: np.ndarray, sigma_px: float, cell: int = 1, truncate: float = 4.0) -> np.ndarray:
    """Map (…, rows, cols), kernel σ in stimulus px, cell size in px in, Gaussian-smoothed map out.

    Equals scipy.ndimage.gaussian_filter(map, σ/cell, mode="reflect", truncate=truncate) on the last two
    axes, computed with two DCTs (cost independent of σ). Keeps float32 input in float32."""
    a = np.asarray(map_)
    if not np.issubdtype(a.dtype, np.floating):
        a = a.astype(np.float64)
    s = float(sigma_px) / cell
    if s <= 0:
        return a.copy()
    rows, cols = a.shape[-2:]
    lam = np.multiply.outer(kernel_spectrum(rows, s, truncate), kernel_spectrum(cols, s, truncate))
    spec = fft.dctn(a, type=2, norm="ortho", axes=(-2, -1))
    spec *= lam.astype(a.dtype, copy=False)
    return fft.idctn(spec, type=2, norm="ortho", axes=(-2, -1), overwrite_x=True)


def sigma_px_from_degrees(deg: float, width_px: int, width_cm: float, distance_cm: float) -> float:
    """Visual angle in degrees, screen width in px and cm, viewing distance in cm in, the same extent in
    px out (centred on the line of sight: Geometry.span_px, 2·d·tan(deg/2) over the pixel pitch)."""
    if width_cm <= 0 or distance_cm <= 0 or width_px <= 0:
        raise ValueError("screen width (px, cm) and viewing distance must be > 0")
    # Only the width is read: the width stands in for the height, which does not change x.
    return Geometry.from_cm(width_px, width_px, width_cm, width_cm, distance_cm).span_px(deg)[0]


# --------------------------------------------------------------------------------------------
# noise


@dataclass(frozen=True, eq=False)
class PrivateMap:
    """A noisy aggregate map and the calibration (mechanism, scale, std, formulas) that produced it."""

    map: np.ndarray
    calibration: Calibration


def draw_noise(rng: np.random.Generator, mechanism: Family, scale: float, shape: tuple[int, ...],
               dtype: type = np.float32) -> np.ndarray:
    """Generator, noise family (Gaussian: scale = σ, Laplace: scale = b) and shape in, i.i.d. PREVIEW noise
    out, drawn by the plain sampler of eyedp_core.dp.noise: the ε-curves draw unit noise once and rescale it
    for every ε, so no calibration is involved."""
    return sample_noise(rng, mechanism, scale, shape, dtype)


def privatize(aggregate_map: np.ndarray, setting: HeatmapSetting, sensitivity: HeatmapSensitivity,
              rng: np.random.Generator, *, calibration: Calibration | None = None,
              dtype: type = np.float32) -> PrivateMap:
    """Aggregate map, the setting (its ε, δ, noise family and Gaussian method), sensitivity and generator in,
    PrivateMap (noisy map, calibration) out. A precomputed `calibration` skips the calibration step.

    PREVIEW noise (numpy), drawn at the scale of the calibration it reports, so the shown calibration is the
    one drawn: not for data releases (docs/PRIVACY_MODEL.md §11; those go through eyedp_core.heatmaps.release)."""
    fam = setting.mechanism
    cal = calibration
    if cal is None:
        cal = calibrate_heatmap(sensitivity, setting.epsilon, setting.delta, fam, setting.method)
    if cal.mechanism != fam:
        raise ValueError(f"calibration is for {str(cal.mechanism)!r}, not {str(fam)!r}")
    a = np.asarray(aggregate_map)
    if a.size != sensitivity.r:
        raise ValueError(f"map has {a.size} cells but the sensitivity was computed for r = {sensitivity.r}")
    noisy = sample_noise(rng, cal.mechanism, cal.scale, a.shape, dtype)
    noisy += a.astype(dtype, copy=False)
    return PrivateMap(noisy, cal)
