"""Utility and privacy of protected gaze streams, every method measured the same way.

* **displacement (deg)**: mean visual angle between each protected sample and the original sample at the
  nearest time of the same stream (within one sample interval); samples without gaze on either side skipped;
* **heatmap CC**: Pearson correlation of the sample-density maps (all streams pooled, cells of `cell_px`,
  Gaussian blur of 1° of visual angle) of the protected and the original samples on the screen;
* **fixation rate / duration change**: I-VT (30 deg/s) on both; relative change of fixations per second
  and of the mean fixation duration;
* **re-identification**: an attacker who holds clean enrolment data. Window features
  (`eyedp_core.gaze.features.window_features`, 48 features) over windows of `window_s`; per participant
  the earlier half of the clean windows trains a standardised RBF-SVM (C = 1), and the protected
  windows of the later half are classified. Chance = 1 / participants. The "original" row attacks the
  clean later half (the risk without protection).

These are empirical figures on one dataset, not guarantees.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.ndimage import gaussian_filter
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from eyedp_core.gaze.events import SAMPLE_SCREEN, angular_distance_deg, detect_events
from eyedp_core.gaze.feature_specs import FEATURE_NAMES
from eyedp_core.gaze.features import window_features
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.streams import stream_columns
from eyedp_core.metrics import pearson_cc

__all__ = ["Figures", "Reference", "displacement_deg", "heatmap_cc", "reference",
           "reidentification", "evaluate", "utility_privacy_table"]


@dataclass(frozen=True)
class Figures:
    """The utility and privacy figures of one protected stream set."""

    displacement_deg: float
    heatmap_cc: float
    fixation_rate_change: float
    fixation_duration_change: float
    reid_accuracy: float
    reid_chance: float
    reid_windows: int


def _xy(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    return frame["x"].to_numpy(float), frame["y"].to_numpy(float)


def displacement_deg(original: pd.DataFrame, protected: pd.DataFrame,
                     geometry: Geometry = SAMPLE_SCREEN) -> float:
    """Original and protected samples -> mean angular distance (deg) at matching times of the same stream."""
    keys = [c for c in stream_columns(original) if c in protected.columns]
    if len(protected) == len(original) and np.array_equal(protected["t_s"].to_numpy(), original["t_s"].to_numpy()):
        ox, oy = _xy(original)
        px, py = _xy(protected)
    else:
        dt = float(np.median(np.diff(np.sort(original["t_s"].to_numpy())))) or 1e-3
        left = protected[[*keys, "t_s", "x", "y"]].sort_values("t_s", kind="stable")
        right = original[[*keys, "t_s", "x", "y"]].sort_values("t_s", kind="stable")
        m = pd.merge_asof(left, right, on="t_s", by=keys or None, direction="nearest", tolerance=dt,
                          suffixes=("_p", "_o"))
        px, py, ox, oy = (m[c].to_numpy(float) for c in ("x_p", "y_p", "x_o", "y_o"))
    d = angular_distance_deg(ox, oy, px, py, geometry)
    d = d[np.isfinite(d)]
    return float(d.mean()) if d.size else float("nan")


def _density(frame: pd.DataFrame, geometry: Geometry, cell_px: float) -> np.ndarray:
    x, y = _xy(frame)
    ok = np.isfinite(x) & np.isfinite(y) & (x >= 0) & (x < geometry.width_px) & (y >= 0) & (y < geometry.height_px)
    nx = int(np.ceil(geometry.width_px / cell_px))
    ny = int(np.ceil(geometry.height_px / cell_px))
    h, _, _ = np.histogram2d(y[ok], x[ok], bins=(ny, nx), range=((0, ny * cell_px), (0, nx * cell_px)))
    sigma = 1.0 / max(geometry.deg_per_px()) / cell_px  # one degree of visual angle, in cells
    return gaussian_filter(h, sigma)


def heatmap_cc(original: pd.DataFrame, protected: pd.DataFrame, geometry: Geometry = SAMPLE_SCREEN,
               cell_px: float = 8.0) -> float:
    """Original and protected samples -> CC of their blurred on-screen sample-density maps."""
    return float(pearson_cc(_density(original, geometry, cell_px), _density(protected, geometry, cell_px)))


def _fixation_stats(frame: pd.DataFrame, geometry: Geometry) -> tuple[float, float]:
    keys = stream_columns(frame)
    cols = [*keys, "t_s", "x", "y"]
    ev = detect_events(frame[cols], geometry, method="ivt")
    fix = ev[ev["type"] == "fixation"]
    span = frame.groupby(keys)["t_s"].agg(lambda t: float(t.max() - t.min())).sum() if keys else \
        float(frame["t_s"].max() - frame["t_s"].min())
    rate = len(fix) / span if span > 0 else float("nan")
    return rate, float(fix["duration_ms"].mean()) if len(fix) else float("nan")


def _windows(frame: pd.DataFrame, window_s: float, geometry: Geometry) -> pd.DataFrame:
    keys = stream_columns(frame)
    return window_features(frame[[*keys, "t_s", "x", "y", *(["pupil"] if "pupil" in frame else [])]],
                           window_s=window_s, step_s=window_s, geometry=geometry)


def _order_key(win: pd.DataFrame, keys: list[str], ranks: dict) -> np.ndarray:
    """Windows -> a sortable number per window: stream rank within its participant, then start time."""
    rank = np.array([ranks.get(tuple(r), 0) for r in win[keys].itertuples(index=False)], float)
    return rank * 1e7 + win["t_start_s"].to_numpy(float)


@dataclass(frozen=True, eq=False)
class Reference:
    """Everything measured once on the original samples: density map, fixation statistics and the trained
    attacker (clean windows before each participant's median window)."""

    geometry: Geometry
    window_s: float
    cell_px: float
    density: np.ndarray
    fixation_rate: float
    fixation_duration_ms: float
    keys: tuple[str, ...]
    ranks: dict
    split: pd.Series
    clean_windows: pd.DataFrame
    features: tuple[str, ...]
    means: np.ndarray
    scaler: StandardScaler | None
    classifier: SVC | None
    n_people: int

    @property
    def chance(self) -> float:
        return 1.0 / self.n_people if self.n_people else float("nan")


def reference(original: pd.DataFrame, *, geometry: Geometry = SAMPLE_SCREEN, window_s: float = 10.0,
              cell_px: float = 8.0) -> Reference:
    """Original samples -> Reference (the clean side of every figure, computed once)."""
    rate, dur = _fixation_stats(original, geometry)
    clean = _windows(original, window_s, geometry)
    keys = [c for c in stream_columns(original) if c in clean.columns]
    ranks: dict = {}
    for _, grp in clean[keys].drop_duplicates().groupby("participant", sort=False):
        for i, r in enumerate(grp.itertuples(index=False)):
            ranks[tuple(r)] = i
    key_clean = _order_key(clean, keys, ranks)
    split = pd.Series(key_clean).groupby(clean["participant"].to_numpy()).median()
    train = clean[key_clean < split.reindex(clean["participant"]).to_numpy()]
    feats = tuple(f for f in FEATURE_NAMES if f in clean.columns)
    scaler = clf = None
    means = np.zeros(len(feats))
    if train["participant"].nunique() >= 2:
        xtr = train[list(feats)].to_numpy(float)
        finite = np.isfinite(xtr)
        counts = finite.sum(axis=0)
        means = np.where(counts > 0, np.where(finite, xtr, 0.0).sum(axis=0) / np.maximum(counts, 1), 0.0)
        means = np.where(np.isfinite(means), means, 0.0)
        xtr = np.where(np.isfinite(xtr), xtr, means)
        scaler = StandardScaler().fit(xtr)
        clf = SVC(C=1.0, kernel="rbf", gamma="scale").fit(scaler.transform(xtr), train["participant"].to_numpy())
    return Reference(geometry, window_s, cell_px, _density(original, geometry, cell_px), rate, dur, tuple(keys),
                     ranks, split, clean, feats, means, scaler, clf, int(clean["participant"].nunique()))


MIN_GAZE_SHARE = 0.1  # a protected window with less gaze than this published nothing to attack


def _gaze_share(frame: pd.DataFrame, windows: pd.DataFrame, keys: list[str], window_s: float) -> np.ndarray:
    """Samples and their feature windows -> share of each window's samples that carry gaze (x and y)."""
    f = frame[[*keys, "t_s", "x", "y"]].copy()
    f["t0"] = f.groupby(keys)["t_s"].transform("min") if keys else f["t_s"].min()
    f["window"] = np.floor((f["t_s"] - f["t0"]) / window_s + 1e-9).astype(int)
    f["ok"] = np.isfinite(f["x"].to_numpy(float)) & np.isfinite(f["y"].to_numpy(float))
    share = f.groupby([*keys, "window"])["ok"].mean().rename("share").reset_index()
    joined = windows[[*keys, "window"]].merge(share, on=[*keys, "window"], how="left")
    return joined["share"].fillna(0.0).to_numpy()


def reidentification(original: pd.DataFrame | None, protected: pd.DataFrame | None, *, window_s: float = 10.0,
                     geometry: Geometry = SAMPLE_SCREEN, ref: Reference | None = None
                     ) -> tuple[float, float, int]:
    """Clean samples (enrolment) and protected samples (None = attack the clean data) -> (accuracy, chance, windows).

    Per participant, clean windows before the median window train; protected windows from the median on
    are classified; protected windows with less than 10 % gaze (nothing published) are not attacked. `ref`
    reuses a Reference of the same original samples."""
    ref = ref if ref is not None else reference(original, geometry=geometry, window_s=window_s)
    test_all = ref.clean_windows if protected is None else _windows(protected, ref.window_s, ref.geometry)
    if protected is not None and not test_all.empty:
        test_all = test_all[_gaze_share(protected, test_all, list(ref.keys), ref.window_s) >= MIN_GAZE_SHARE]
    if test_all.empty:
        return float("nan"), ref.chance, 0
    key_test = _order_key(test_all, list(ref.keys), ref.ranks)
    cut = ref.split.reindex(test_all["participant"]).to_numpy()
    test = test_all[key_test >= cut]
    if ref.classifier is None or test.empty:
        return float("nan"), ref.chance, int(len(test))
    xte = test[list(ref.features)].to_numpy(float)
    xte = np.where(np.isfinite(xte), xte, ref.means)
    pred = ref.classifier.predict(np.nan_to_num(ref.scaler.transform(xte)))
    return float(np.mean(pred == test["participant"].to_numpy())), ref.chance, int(len(test))


def evaluate(original: pd.DataFrame, protected: pd.DataFrame, *, geometry: Geometry = SAMPLE_SCREEN,
             window_s: float = 10.0, attack: bool = True, ref: Reference | None = None) -> Figures:
    """Original and protected samples -> Figures (all five measures); `ref` reuses the clean side."""
    ref = ref if ref is not None else reference(original, geometry=geometry, window_s=window_s)
    disp = displacement_deg(original, protected, ref.geometry)
    cc = float(pearson_cc(ref.density, _density(protected, ref.geometry, ref.cell_px)))
    r1, d1 = _fixation_stats(protected, ref.geometry)
    acc, chance, n = (reidentification(original, protected, ref=ref) if attack
                      else (float("nan"), float("nan"), 0))
    return Figures(disp, cc, r1 / ref.fixation_rate - 1.0, d1 / ref.fixation_duration_ms - 1.0, acc, chance, n)


def utility_privacy_table(original: pd.DataFrame, protected: dict[str, pd.DataFrame], *,
                          geometry: Geometry = SAMPLE_SCREEN, window_s: float = 10.0) -> pd.DataFrame:
    """Original samples and {method: protected samples} -> one row per method (plus "original") of Figures."""
    ref = reference(original, geometry=geometry, window_s=window_s)
    acc0, chance, n0 = reidentification(original, None, ref=ref)
    rows = [dict(method="original (no protection)", displacement_deg=0.0, heatmap_cc=1.0,
                 fixation_rate_change=0.0, fixation_duration_change=0.0, reid_accuracy=acc0,
                 reid_chance=chance, reid_windows=n0)]
    for name, frame in protected.items():
        f = evaluate(original, frame, ref=ref)
        rows.append(dict(method=name, **f.__dict__))
    return pd.DataFrame(rows)
