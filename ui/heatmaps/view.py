"""Heatmaps view: choosing the fixations for a stimulus, cached compute wrappers and the overlay images.

Everything expensive is cached with st.cache_data, keyed on the dataset tokens (fixations and stimulus)
plus the parameters; the large objects (tables, gaze maps, maps) travel as underscore arguments, which
Streamlit does not hash. The noisy preview (noise draw + smoothing + metrics) is cheap and is not cached,
so an ε move costs a noise draw on the cell grid and never rebuilds gaze maps or curves.
"""
from __future__ import annotations

import base64
import io as _io
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

import numpy as np
import pandas as pd
import streamlit as st
from PIL import Image

from eyedp_core.heatmaps import attacks as heatmap_attacks

from eyedp_core.heatmaps import cap as heatmap_cap

from eyedp_core.heatmaps import maps as heatmaps

from eyedp_core.io import uploads as io

from eyedp_core.heatmaps import saliency as saliency_metrics
from eyedp_core.heatmaps.calibration import HeatmapSensitivity, heatmap_sensitivity, noise_std
from eyedp_core.heatmaps.curves import eps_curves, plan_study
from eyedp_core.dp.mechanisms import Calibration
from ui import theme
from ui.state import Dataset

DISPLAY_WIDTH = 960  # overlay images are sent to the browser at most this wide (JPEG)
WEIGHTS = {"count": "fixation count", "duration": "dwell time (s)"}
UNITS = {"count": "fixations per observer per cell", "duration": "seconds per observer per cell"}
BAR_UNITS = {"count": "fixations / observer / cell", "duration": "s / observer / cell"}


# --------------------------------------------------------------------------------------------
# data selection


def stimulus_key(name: str) -> set[str]:
    """Stimulus or file name -> the names a fixation table's 'stimulus' column may use for it."""
    return {name, PurePath(name).stem}


def fixations_for(ds: Dataset, stim_name: str, width: int, height: int) -> tuple[pd.DataFrame, str]:
    """Fixation dataset, stimulus name and size -> (rows for that stimulus, how they were chosen).

    Tables with a 'stimulus' column are filtered to the chosen stimulus; tables without one apply to
    it as a whole. Raises io.DataError when nothing matches or a coordinate lies outside the image."""
    fix = ds.frame
    if fix is None or fix.empty:
        raise io.DataError(f"{ds.name} holds no fixations.", file=ds.name)
    if "stimulus" in fix.columns:
        names = stimulus_key(stim_name)
        sub = fix[fix["stimulus"].astype(str).isin(names)]
        if sub.empty:
            have = ", ".join(sorted(map(str, fix["stimulus"].dropna().unique()))[:12])
            raise io.DataError(f"no fixations for the stimulus '{stim_name}'. The table has fixations for: "
                               f"{have}. Choose one of those stimuli, or upload fixations recorded on "
                               f"'{stim_name}' (without a stimulus column they apply to the chosen image).",
                               file=ds.name, expected=f"rows with stimulus = '{stim_name}'")
        how = f"the rows of {ds.name} with stimulus = '{stim_name}'"
    else:
        sub = fix
        how = f"every row of {ds.name} (it has no stimulus column, so it applies to the chosen image)"
    io.check_in_bounds(sub, width, height, ds.name)
    if sub["observer"].nunique() < 2:
        raise io.DataError(f"only {sub['observer'].nunique()} observer looked at '{stim_name}'; a private "
                           "heatmap of the mean map needs at least 2 observers (n is public).", file=ds.name)
    return sub, how


# --------------------------------------------------------------------------------------------
# cached compute


@st.cache_data(show_spinner="Building gaze maps…", max_entries=24)
def gaze_maps(fix_token: str, stim_token: str, cell: int, weight: str, width: int, height: int,
              _sub: pd.DataFrame) -> heatmaps.GazeMaps:
    """Fixations of one stimulus (keyed by tokens), cell size and weighting -> per-observer GazeMaps."""
    return heatmaps.gaze_maps(_sub, width, height, cell, weight)


@dataclass(frozen=True, eq=False)
class CleanMaps:
    """The capped aggregate on the cell grid, its smoothed version and the colour range (from the clean map)."""

    agg: np.ndarray
    smooth: np.ndarray
    vmax: float


@st.cache_data(show_spinner="Aggregating…", max_entries=48)
def clean_maps(key: tuple, m: float, cap_total: float | None, sigma_px: float,
               _gm: heatmaps.GazeMaps) -> CleanMaps:
    """Gaze-map key, caps and kernel σ in px -> CleanMaps (aggregate, smoothed, colour range)."""
    agg = heatmaps.aggregate(_gm, m, cap_total)
    sm = heatmaps.smooth(agg, sigma_px, _gm.cell)
    vmax = float(sm.max()) if sm.size and sm.max() > 0 else 1.0
    return CleanMaps(agg, sm, vmax)


@dataclass(frozen=True, eq=False)
class NoisyPreview:
    """A seeded preview: the calibration, the noisy aggregate, its smoothed version and the quality metrics."""

    calibration: Calibration
    noisy: np.ndarray
    smooth: np.ndarray
    metrics: dict[str, float]


def noisy_preview(clean: CleanMaps, sens: HeatmapSensitivity, eps: float, delta: float, mechanism: str,
                  method: str, seed: int, sigma_px: float, cell: int) -> NoisyPreview:
    """Clean maps, sensitivity, (ε, δ), mechanism, Gaussian method, seed, kernel and cell -> NoisyPreview.

    Seeded numpy noise (a preview, docs/PRIVACY_MODEL.md §11): the same seed gives the same noise field, scaled."""
    rng = np.random.default_rng(seed)
    pm = heatmaps.privatize(clean.agg, eps, delta, mechanism, sens, rng, method)
    sm = heatmaps.smooth(pm.map, sigma_px, cell)
    met = saliency_metrics.heatmap_metrics(clean.smooth, sm, cell=cell)
    return NoisyPreview(pm.calibration, pm.map, sm, met)


def std_for_caps(gm: heatmaps.GazeMaps, m_values: np.ndarray, cap_total: float | None, eps: float,
                 delta: float, mechanism: str, method: str) -> np.ndarray:
    """Candidate caps and the privacy settings -> the noise std each cap would need (public numbers)."""
    m = np.asarray(m_values, dtype=float)
    return np.broadcast_to(noise_std(gm.n_observers, gm.n_cells, eps, delta, m, cap_total, mechanism, method),
                           m.shape).astype(float)


@st.cache_data(show_spinner="Evaluating Algorithm 1 (expected MSE per cap)…", max_entries=24)
def cap_curve(key: tuple, cap_total: float | None, eps: float, delta: float, mechanism: str, method: str,
              m_values: tuple[float, ...], _gm: heatmaps.GazeMaps) -> heatmap_cap.CapCurve:
    """Gaze-map key, caps, privacy settings and candidate caps -> Liu's Algorithm 1 curve (NOT private)."""
    m = np.asarray(m_values, dtype=float)
    return heatmaps.optimal_cap(_gm, m_values=m,
                                noise_std=std_for_caps(_gm, m, cap_total, eps, delta, mechanism, method))


CURVE_CACHE_SIZE = 24


@st.cache_resource(show_spinner=False)
def _curve_store() -> OrderedDict:
    """Process-wide LRU store of ε-curve tables (st.cache_data cannot replay a progress bar drawn outside)."""
    return OrderedDict()


def curves(key: tuple, cell: int, m: float, cap_total: float | None, sigma_px: float,
           eps_list: tuple[float, ...], delta: float, method: str, R: int, seed: int, clean: CleanMaps,
           sens: HeatmapSensitivity, progress: Callable[[float], None] | None = None
           ) -> tuple[pd.DataFrame, list[str]]:
    """Map key, caps, kernel, ε grid, δ, Gaussian method, draws R and seed -> (tidy curve table, notes).

    Cached on the tokens and parameters; `progress` is called only when the curves are computed."""
    store = _curve_store()
    k = (key, cell, m, cap_total, sigma_px, eps_list, delta, method, R, seed)
    if k in store:
        store.move_to_end(k)
        return store[k]
    df = eps_curves(clean.agg, sens, list(eps_list), delta, np.random.default_rng(seed), R=R,
                    sigma_px=sigma_px, cell=cell, method=method, progress=progress)
    store[k] = (df, list(df.attrs.get("notes", [])))
    while len(store) > CURVE_CACHE_SIZE:
        store.popitem(last=False)
    return store[k]


@st.cache_data(show_spinner="Running the difference attack…", max_entries=24)
def attack_table(key: tuple, target: int, m: float, cap_total: float | None, eps: float, delta: float,
                 method: str, seed: int, _gm: heatmaps.GazeMaps) -> pd.DataFrame:
    """Gaze-map key, target row, caps, privacy settings and seed -> one row per mechanism (attack_demo)."""
    return heatmap_attacks.attack_demo(_gm, target, m, eps, delta, np.random.default_rng(seed),
                                       cap_total=cap_total, method=method)


@st.cache_data(show_spinner="Simulating study sizes…", max_entries=24)
def planning(key: tuple, cell: int, n_values: tuple[int, ...], eps: float, delta_rule: str, delta: float, m: float,
             cap_total: float | None, sigma_px: float, mechanism: str, method: str, R: int, seed: int,
             _clean: CleanMaps) -> pd.DataFrame:
    """Map key, hypothetical study sizes N, privacy settings and kernel -> plan_study table (planning only)."""
    dl = (lambda N: float(N) ** -1.5) if delta_rule == "n^-1.5" else delta
    return plan_study(_clean.agg, list(n_values), eps, dl, np.random.default_rng(seed), m=m,
                      cap_total=cap_total, sigma_px=sigma_px, cell=cell, mechanism=mechanism,
                      method=method if mechanism == "gaussian" else "analytic", R=R)


def sensitivity(gm: heatmaps.GazeMaps, m: float, cap_total: float | None) -> HeatmapSensitivity:
    """GazeMaps and caps -> the public sensitivities of the capped mean map (§6.1)."""
    return heatmap_sensitivity(gm.n_cells, gm.n_observers, m, cap_total)


# --------------------------------------------------------------------------------------------
# overlay images


@st.cache_data(show_spinner=False, max_entries=8)
def _lut() -> np.ndarray:
    """The RGBA look-up table of theme.HEAT_SCALE (256 levels)."""
    return theme.heat_lut(256)


@st.cache_data(show_spinner=False, max_entries=16)
def _display_stimulus(stim_token: str, _image: np.ndarray) -> np.ndarray:
    """Stimulus pixels -> the same image at display size (float32 RGB), cached per stimulus."""
    h, w = _image.shape[:2]
    dw = min(w, DISPLAY_WIDTH)
    dh = max(1, int(round(h * dw / w)))
    img = Image.fromarray(_image).resize((dw, dh), Image.BILINEAR) if dw != w else Image.fromarray(_image)
    return np.asarray(img, dtype=np.float32)


def _display_map(map_: np.ndarray, cell: int, width: int, height: int, dw: int, dh: int) -> np.ndarray:
    """Map on the cell grid -> values at the display pixels, bilinear between cell centres (display only)."""
    ys = (np.arange(dh) + 0.5) * height / dh / cell - 0.5
    xs = (np.arange(dw) + 0.5) * width / dw / cell - 0.5
    if cell == 1 and dw == width and dh == height:
        return map_[:height, :width]
    y0 = np.clip(np.floor(ys).astype(np.int64), 0, map_.shape[0] - 1)
    x0 = np.clip(np.floor(xs).astype(np.int64), 0, map_.shape[1] - 1)
    y1 = np.minimum(y0 + 1, map_.shape[0] - 1)
    x1 = np.minimum(x0 + 1, map_.shape[1] - 1)
    fy = np.clip(ys - y0, 0.0, 1.0)[:, None].astype(np.float32)
    fx = np.clip(xs - x0, 0.0, 1.0)[None, :].astype(np.float32)
    a = np.asarray(map_, dtype=np.float32)
    top = a[np.ix_(y0, x0)] * (1 - fx) + a[np.ix_(y0, x1)] * fx
    bottom = a[np.ix_(y1, x0)] * (1 - fx) + a[np.ix_(y1, x1)] * fx
    return top * (1 - fy) + bottom * fy


def composite(stim_token: str, image: np.ndarray, map_: np.ndarray, cell: int, vmax: float,
              full_size: bool = False) -> np.ndarray:
    """Stimulus, map on the cell grid, cell size and colour range -> RGB uint8 overlay (negatives clipped).

    At display size by default; full_size=True composites at stimulus pixels (for PNG downloads)."""
    h, w = image.shape[:2]
    if full_size:
        base = image.astype(np.float32)
        vals = _display_map(map_, cell, w, h, w, h)
    else:
        base = _display_stimulus(stim_token, image)
        vals = _display_map(map_, cell, w, h, base.shape[1], base.shape[0])
    idx = (np.clip(vals / max(vmax, 1e-300), 0.0, 1.0) * 255.0).astype(np.uint8)
    rgba = _lut()[idx].astype(np.float32)
    alpha = rgba[..., 3:4] / 255.0
    out = base * (1.0 - alpha) + rgba[..., :3] * alpha
    return np.clip(out, 0, 255).astype(np.uint8)


def to_data_uri(rgb: np.ndarray, fmt: str = "JPEG") -> str:
    """RGB uint8 array -> data URI (JPEG for the page, PNG on request)."""
    buf = _io.BytesIO()
    Image.fromarray(rgb).save(buf, format=fmt, **({"quality": 88} if fmt == "JPEG" else {}))
    mime = "image/jpeg" if fmt == "JPEG" else "image/png"
    return f"data:{mime};base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _overlay_uri(stim_token: str, image: np.ndarray, map_: np.ndarray, cell: int, vmax: float) -> tuple[str, int]:
    """Stimulus, map, cell size and colour range -> (JPEG data URI of the overlay, its width in px)."""
    rgb = composite(stim_token, image, map_, cell, vmax)
    return to_data_uri(rgb), rgb.shape[1]


@st.cache_data(show_spinner=False, max_entries=32)
def _cached_overlay_uri(cache_key: tuple, stim_token: str, cell: int, vmax: float, _image: np.ndarray,
                        _map: np.ndarray) -> tuple[str, int]:
    """Cache key of a map that does not change with ε (the clean map) -> its overlay data URI and width."""
    return _overlay_uri(stim_token, _image, _map, cell, vmax)


def png_bytes(rgb: np.ndarray) -> bytes:
    """RGB uint8 array -> PNG file bytes."""
    buf = _io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# what the page hands to its panels


@dataclass(frozen=True, eq=False)
class Context:
    """Everything the secondary panels and the export need from the page's current settings."""

    fix_ds: Dataset
    stim: Dataset
    key: tuple  # (fixations token, stimulus token, cell, weight): the gaze-map cache key
    gm: heatmaps.GazeMaps
    sens: HeatmapSensitivity
    clean: CleanMaps
    preview: NoisyPreview
    eps: float
    delta: float
    mechanism: str
    method: str
    m: float
    cap_total: float | None
    cell: int
    sigma_px: float
    weight: str
    seed: int
    tuned: dict | None  # how m was chosen from the data (None: a public/fixed m)

    @property
    def n(self) -> int:
        """Number of observers (public)."""
        return self.gm.n_observers

    @property
    def delta_used(self) -> float:
        """δ the preview/export spends: the chosen δ for Gaussian noise, 0 for Laplace (pure ε-DP)."""
        return self.delta if self.mechanism == "gaussian" else 0.0

    @property
    def width(self) -> int:
        """Stimulus width in px."""
        return self.gm.width

    @property
    def height(self) -> int:
        """Stimulus height in px."""
        return self.gm.height

    @property
    def unit(self) -> str:
        """Unit of a map value: fixations or seconds per observer per cell."""
        return UNITS[self.weight]

    @property
    def short_unit(self) -> str:
        """Short unit of the cap m and of map values."""
        return "fixations" if self.weight == "count" else "s"

    def overlay(self, map_: np.ndarray, vmax: float, title: str, plot_width: int = 420,
                cache_key: tuple | None = None, unit: str | None = None):
        """Map on the cell grid, colour range, title and the expected plot width in px -> overlay figure.

        With a cache_key (e.g. the clean map's parameters) the composited image is cached."""
        from ui.heatmaps import figs as heatmap_figs

        if cache_key is None:
            uri, display_w = _overlay_uri(self.stim.token, self.stim.image, map_, self.cell, vmax)
        else:
            uri, display_w = _cached_overlay_uri(cache_key, self.stim.token, self.cell, vmax, self.stim.image,
                                                 map_)
        fig_height = int(np.clip(plot_width * self.height / self.width + 140, 240, 700))
        return heatmap_figs.overlay_figure(uri, self.width, self.height, display_w, vmax, title,
                                           unit or BAR_UNITS[self.weight], fig_height)
