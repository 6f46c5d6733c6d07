"""The "Python script" download of each view: the view's parameters -> a runnable script on eyedp_core."""
from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import streamlit as st

from eyedp_core.report.scripts import SCRIPTS
from ui import state

PARAMS_KEY = "share_script_params"  # page -> the parameters of its last run (tests read them)


def _source(ds: Any) -> dict[str, Any]:
    """A selected Dataset -> how a script loads it (a bundled sample by name, or the uploaded file's name and, when
    the page kept it, how the page read it)."""
    if ds.source == "sample":
        return {"sample": ds.token.split(":", 1)[1], "name": ds.name}
    return {"name": ds.name} if ds.read is None else {"name": ds.name, "read": ds.read}


def heatmaps_params(ctx: Any) -> dict[str, Any]:
    """Heatmaps context -> script parameters."""
    cal = ctx.preview.calibration
    return {"fixations": _source(ctx.fixations), "stimulus": ctx.stimulus.name,
            "stimulus_sample": ctx.stimulus.source == "sample", "cell_px": int(ctx.cell_px), "weight": ctx.weight,
            "cap_m": float(ctx.cap_m), "cap_total": None if ctx.cap_total is None else float(ctx.cap_total),
            "sigma_px": float(ctx.sigma_px), "epsilon": float(cal.epsilon), "delta": float(ctx.delta),
            "mechanism": str(ctx.mechanism), "method": str(ctx.method), "seed": int(ctx.preview_seed)}


def time_series_params(ctx: Any) -> dict[str, Any] | None:
    """Time-series context -> script parameters (None with a data-derived sensitivity: not reproduced here)."""
    if ctx.sensitivities is not None:
        return None
    ds = state.current("features")
    cols = ds.frame.columns if ds.frame is not None else []
    order = "window" if "window" in cols else ("t_start_s" if "t_start_s" in cols else "__none__")
    s = ctx.series
    return {"features_source": _source(ds), "names": list(s.names), "lo": [float(v) for v in np.asarray(s.lo)],
            "hi": [float(v) for v in np.asarray(s.hi)], "length": int(s.length), "order_col": order,
            "mech": ctx.setting.mech.value, "chunk": ctx.setting.chunk, "epsilon": float(ctx.plan.per_invocation),
            "k": int(ctx.setting.k), "seed": int(ctx.setting.seed), "feature_index": int(ctx.feature_index),
            "nmse_kind": ctx.setting.nmse_kind}


def gaze_samples_params(scope: Mapping[str, Any]) -> dict[str, Any] | None:
    """Gaze-samples page scope -> script parameters (None outside the Protect view)."""
    s, geometry = scope.get("s_kal"), scope.get("geometry")
    if s is None or geometry is None or scope.get("seed") is None:
        return None
    return {"gaze_source": _source(state.current("gaze")), "width_px": int(geometry.width_px),
            "height_px": int(geometry.height_px), "epsilon": float(s.epsilon), "w": int(s.w),
            "l_thresh": float(s.l_thresh), "t_skip": int(s.t_skip), "r": float(s.r), "h": float(s.h),
            "min_pub": float(s.min_pub_share * (s.epsilon - s.epsilon / s.h)), "seed": int(scope["seed"])}


def home_params(_: Any) -> dict[str, Any]:
    """Home -> its ε slider."""
    return {"epsilon": float(st.session_state.get("home_eps", 1.0))}


def report_params(_: Any) -> dict[str, Any] | None:
    """Report -> the ledger's releases and the cap (None with an empty ledger)."""
    ledger = state.ledger()
    releases = ledger.releases
    if not releases:
        return None
    accountant, delta_cap = ledger.accounting()
    return {"releases": [dataclasses.asdict(r) for r in releases], "epsilon_cap": state.epsilon_cap(),
            "accountant": accountant.value, "delta_cap": delta_cap}


# Why a view offers no script right now, and what gives one.
NO_SCRIPT = {
    "gaze_samples": "The Python script reproduces the Kaleido preview: switch the View above to protecting the "
                    "stream to get it.",
    "attacks": "The Python script re-runs the attacks of your last run: press *Run attacks* first.",
    "report": "The Python script recomposes the ledger per person: it is offered once something is released.",
    "": "No Python script for the current settings: the script covers the view's main computation with public "
        "bounds.",
}
def attacks_params(_: Any) -> dict[str, Any] | None:
    """Attacks -> the last requested run's grid and protocol (None before the first run)."""
    # Imported here: the attack engine (scikit-learn) is not app start.
    from ui.attacks.view import BOUNDS_RULE, MAX_TRAIN, SEED

    request = st.session_state.get("atk_request")
    if request is None:
        return None
    return {"features_source": _source(state.current("features")), "mechanisms": list(request.mechanisms),
            "epsilons": [float(e) for e in request.epsilons], "scenarios": list(request.scenarios),
            "classifiers": [str(c) for c in request.classifiers], "tasks": list(request.tasks),
            "majority_vote": bool(request.majority_vote), "repetitions": int(request.repetitions),
            "accounting": request.accounting, "gap": request.gap, "k": request.k, "subsample": request.subsample,
            "seed": SEED, "bounds": BOUNDS_RULE, "max_train": MAX_TRAIN,
            "extend": bool(request.extend)}


def areas_of_interest_params(ctx: Any) -> dict[str, Any] | None:
    """Areas-of-interest context -> script parameters (the AOIs as records: they are public)."""
    if not ctx.metrics:
        return None
    import math

    from eyedp_core.aoi.parse import aois_to_table

    aois = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
            for r in aois_to_table(ctx.aois).to_dict("records")]
    return {"fixations": _source(ctx.fixations), "stimulus": ctx.stimulus, "width": int(ctx.width),
            "height": int(ctx.height), "aois": aois, "bounds": dict(vars(ctx.bounds)),
            "metrics": [m.value for m in ctx.metrics], "epsilon": float(st.session_state.get("aoi_epsilon", 1.0)),
            "seed": int(st.session_state.get("aoi_seed", 0))}


ARGLESS = ("home", "report", "attacks")  # pages whose script needs no view context
PARAMS = {"attacks": attacks_params, "heatmaps": heatmaps_params, "time_series": time_series_params, "gaze_samples": gaze_samples_params,
          "home": home_params, "report": report_params, "areas_of_interest": areas_of_interest_params}


def remember(page: str, ctx: Any) -> dict[str, Any] | None:
    """The view's script parameters now (None: no script for these settings), kept in the session for the report
    and the tests whether or not the share box is open."""
    if page not in PARAMS:
        return None
    params = None if ctx is None and page not in ARGLESS else PARAMS[page](ctx)
    kept = st.session_state.setdefault(PARAMS_KEY, {})
    if params is None:
        kept.pop(page, None)
    else:
        kept[page] = params
    return params


def script_box(page: str, ctx: Any) -> None:
    """Offer the view's Python script (or say why there is none), from the parameters `remember` kept."""
    if page not in PARAMS:
        return
    params = st.session_state.get(PARAMS_KEY, {}).get(page)
    if params is None:
        st.markdown(f"**Reproduce in code.** {NO_SCRIPT.get(page, NO_SCRIPT[''])}")
        return
    st.markdown("**Reproduce in code.** A short script on `eyedp_core` that loads the same data and recomputes "
                "this view's numbers with these settings (the same preview seed gives the same noise).")
    # Built on click (a deferred download): the open box costs no script text per move.
    st.download_button("Python script", functools.partial(SCRIPTS[page], params), f"eyedp_{page}.py", "text/x-python",
                       key=f"share_dl_{page}_script", icon=":material/code:", on_click="ignore")
