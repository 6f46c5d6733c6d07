"""What each view showed at its current settings, kept per page for the report and the release records.

Plain dicts of numbers and text (no arrays): they are stored in session state on every run of a page and
attached to each ledger entry when it is charged (ui.state.charge).
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import streamlit as st

from eyedp_core.dp.calibration import Calibration
from ui import state
from ui.export_scale import finish


def calibration_facts(cal: Calibration) -> dict[str, Any]:
    """Calibration -> the numbers and formulas a report shows."""
    return {"mechanism": str(cal.mechanism), "method": str(cal.method), "scale": cal.scale, "std": cal.std,
            "epsilon": cal.epsilon, "delta": cal.delta, "sensitivity": cal.sensitivity,
            "formula_tex": cal.formula_tex, "plugged_tex": cal.plugged_tex, "guarantee": cal.guarantee,
            "valid": cal.valid, "note": cal.note}


def heatmaps_facts(ctx: Any) -> dict[str, Any]:
    """Heatmaps view context -> data counts, unit, sensitivity (and how), calibration, utility."""
    from eyedp_core.heatmaps.targets import DEFAULT_Q  # here: app start imports no heatmaps core
    sens = ctx.sensitivity
    return {
        "view": "Heatmaps", "unit": "observer",
        "data": {"observers": int(ctx.n_observers), "stimulus": ctx.stimulus.name,
                 "fixation table": ctx.fixations.name, "grid cells": int(ctx.gaze_maps.n_cells),
                 "cell size (px)": int(ctx.cell_px)},
        "sensitivity": {"L1": sens.l1, "L2": sens.l2, "L1 formula": sens.l1_plugged, "L2 formula": sens.l2_plugged,
                        "how": (f"public: from the caps (per-cell cap m = {ctx.cap_m:g}"
                                + (f", total cap C = {ctx.cap_total:g}" if ctx.cap_total else "")
                                + f", binding: {sens.binding}) and the public number of observers n = {sens.n}; "
                                  "one observer's whole capped map is replaced")},
        "calibration": calibration_facts(ctx.preview.calibration),
        # OpenDP's σ search (and its ~1 s import) waits for the report or a charge: see `finish`.
        "export_scale_args": [float(ctx.sensitivity.l2), float(ctx.preview.calibration.epsilon),
                              float(ctx.preview.calibration.delta), float(ctx.preview.calibration.scale),
                              ctx.preview.calibration.mechanism],
        "utility": {(f"HOT SPOTS KEPT (top {100 * DEFAULT_Q:g} %)" if k == "hot_spots"
                     else k.upper().replace("_PX", " (px)")): float(v)
                    for k, v in ctx.preview.metrics.items() if isinstance(v, (int, float))},
        "data_derived": ((["cap m chosen by Algorithm 1 on the private maps (not private)"]
                          if ctx.tuned_on_private_data else []) + list(state.data_derived_canvas(ctx.stimulus))),
        "correlation": ("The unit is one observer's whole map on this stimulus: correlation between that "
                        "observer's fixations is covered. Maps of several stimuli from the same observers compose "
                        "(their ε add up); correlation between different observers (e.g. a shared task) is not."),
        "preview_seed": int(ctx.preview_seed),
    }


def time_series_facts(ctx: Any) -> dict[str, Any]:
    """Time-series view context -> data counts, unit, sensitivity, calibration, utility, correlation bounds."""
    plan = ctx.plan
    first = ctx.preview.shown[0]
    from eyedp_core.timeseries.accounting import sub_participant_bounds  # the time-series core: not app start

    bounds = sub_participant_bounds(plan)
    nmse = [float(v) for v in ctx.preview.nmse_feature if math.isfinite(float(v))]
    return {
        "view": "Time series", "unit": "participant",
        "data": {"participants": len(ctx.info.participants), "recordings per participant": int(plan.n_recordings),
                 "features released": int(plan.n_features), "public length T (windows)": int(ctx.series.length)},
        "sensitivity": {"value": first.calibration.sensitivity,
                        "how": ("data-derived (largest distance between observed recordings; NOT a DP guarantee)"
                                if ctx.sensitivity_type == "data-derived" else
                                "public: from the declared per-feature bounds [L, U] and the transform length")},
        "calibration": calibration_facts(first.calibration),
        "calibration_title": f"{ctx.setting.label}, feature '{ctx.feature}', n = {first.length}, k = {first.k}",
        "utility": {"median NMSE over features": float(sorted(nmse)[len(nmse) // 2]) if nmse else float("nan"),
                    f"NMSE of '{ctx.feature}'": float(ctx.preview.nmse_feature[ctx.feature_index])},
        "plan": {"per invocation ε": plan.per_invocation, "unit of one invocation": plan.unit,
                 "invocations per participant": plan.invocations, "participant total ε": plan.participant_total,
                 "paper's stated ε": plan.paper_total},
        "bounds": bounds.to_dict("records"),
        "data_derived": list(ctx.length.caveats) + (["sensitivity read off the data"]
                                                    if ctx.sensitivity_type == "data-derived" else []),
        "correlation": ("Chunks of one feature series are strongly correlated in time, so the per-chunk ε of "
                        "the paper does not protect the person; the group bound over the C chunks and the "
                        "participant total (basic composition over features, chunks and recordings) do, "
                        "whatever the correlation. The Markov (TPL) estimate on the Accounting panel assumes a "
                        "first-order chain over chunks with public transition matrices."),
    }


def gaze_samples_facts(scope: Any) -> dict[str, Any]:
    """Gaze-samples page scope (Protect view) -> data counts, the Kaleido guarantee and the preview's shift."""
    kal, df, s = scope.get("kal"), scope.get("df"), scope.get("s_kal")
    if kal is None or df is None or s is None:
        raise ValueError("not the Protect view")
    shift = np.hypot(kal["x"].to_numpy() - df["x"].to_numpy(), kal["y"].to_numpy() - df["y"].to_numpy())
    return {
        "view": "Gaze samples", "unit": "w-event",
        "data": {"participants": int(df["participant"].nunique()) if "participant" in df.columns else 1,
                 "samples": int(len(df))},
        "utility": {"mean shift of the Kaleido preview (px)": float(np.nanmean(shift)),
                    "largest ε spent by one sample": float(kal["eps"].max())},
        "correlation": (f"Kaleido protects any window of {s.w} samples with ε = {s.epsilon:g} for moves within "
                        f"r = {s.r:g} px; gaze is correlated far beyond one window and another person's gaze may be "
                        "anywhere on the screen, so a person's streams are bounded only by ε·⌈n/w⌉·d_max/r "
                        "summed over them (each stream restarts the window; d_max the diagonal of the screen the "
                        "gaze is clamped to), the bound an export charges."),
    }


def areas_of_interest_facts(ctx: Any) -> dict[str, Any]:
    """Areas-of-interest context -> data counts, unit, each sum's L1 sensitivity, ε split, median 95 % half-widths."""
    from eyedp_core.aoi.metrics import private_metrics, query_epsilons, query_sensitivity
    from eyedp_core.aoi.release import NEIGHBOURS

    eps = float(st.session_state.get("aoi_epsilon", 1.0))
    seed = int(st.session_state.get("aoi_seed", 0))
    split = query_epsilons(ctx.metrics, eps)
    res, _ = private_metrics(ctx.table, ctx.metrics, eps, np.random.default_rng(seed))
    return {
        "view": "Areas of interest", "unit": "observer",
        "data": {"observers": int(ctx.table.n), "stimulus": ctx.stimulus, "fixation table": ctx.fixations.name,
                 "AOIs": int(ctx.table.k)},
        "sensitivity": {**{f"L1 of {q.value}": query_sensitivity(q, ctx.table) for q in split},
                        "how": (f"public: from the per-observer limits {dict(vars(ctx.bounds))} and the AOI count; "
                                f"{NEIGHBOURS}; Laplace b = L1 / ε_q with ε split equally "
                                f"(ε_q = {eps / max(len(split), 1):.4g}, docs/PRIVACY_MODEL.md §15)")},
        "utility": {f"median 95 % half-width, {m.value} ({m.unit})": float(np.median(r.half_width))
                    for m, r in res.items()},
        "correlation": ("The unit is one observer's fixations on this stimulus: correlation between that observer's "
                        "fixations is covered. AOI releases of several stimuli from the same observers add up."),
        "data_derived": list(ctx.data_derived),
        "preview_seed": seed,
    }


FACTS = {"heatmaps": heatmaps_facts, "areas_of_interest": areas_of_interest_facts, "time_series": time_series_facts, "gaze_samples": gaze_samples_facts}


class LazyFacts(Mapping):
    """A page's facts, computed from its view context on first read (a slider move only keeps the context: the
    report, a charge or a test reads the facts far less often than the page re-runs)."""

    def __init__(self, page: str, ctx: Any) -> None:
        self._page, self._ctx, self._facts = page, ctx, None

    def _get(self) -> dict[str, Any]:
        if self._facts is None:
            try:
                self._facts = FACTS[self._page](self._ctx)
            except (AttributeError, IndexError, TypeError, ValueError):
                self._facts = {}  # a view context that changed shape: the report says the numbers are missing
            self._ctx = None
        return self._facts

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def finished() -> dict[str, dict[str, Any]]:
    """Every page's remembered facts, finished (for the report)."""
    return {page: finish(f) for page, f in st.session_state.get(state.FACTS_KEY, {}).items()}


def remember(page: str, ctx: Any) -> None:
    """Keep what the page showed (ctx None: nothing to keep); the facts are computed when first read."""
    if ctx is None or page not in FACTS:
        return
    st.session_state.setdefault(state.FACTS_KEY, {})[page] = LazyFacts(page, ctx)
