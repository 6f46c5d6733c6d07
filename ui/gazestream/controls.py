"""The method controls of the Gaze-samples Protect view (Kaleido, k-same-synth, plausible deniability).

The view draws only the shown method's controls, next to its results (a fragment). The other methods' settings
feed the side-by-side table from their values in force (`*_kept`: session state, which the settings store
refills for controls not drawn, else the default; ui.widgets.value_in_force), so they survive a switch of the
shown method and travel in the URL without their eleven sliders being re-sent on every move of the shown one.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from eyedp_core.gazestream.deniability import PDSettings
from ui import settings
from ui.gazestream import view
from ui.widgets import fmt_num, log_slider, value_in_force

W_OPTIONS = [10, 20, 30, 60, 120, 240, 600]
SKIP_OPTIONS = [1, 2, 3, 6, 12, 24, 60]
H_OPTIONS = [1.25, 1.5, 2.0, 3.0, 4.0, 8.0]
FLOOR_OPTIONS = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64]
GAMMA_OPTIONS = [1.5, 2.0, 5.0, 10.0, 100.0, 1e3, 1e6, 1e10, 1e20, 1e50, 1e100]
EPS0_OPTIONS = [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0]


SLIDER_WIDTH = 200  # px: the narrow sliders of a wrapping row


def keep_value(key: str, default: Any, lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    """`value=` the control's value in force (value_in_force, clamped to [lo, hi]). A widget whose identity
    changes (its range moved with the data, or it moved to another part of the view) starts from `value`, so
    passing the current one keeps it where the user left it."""
    if lo is not None and hi is not None:
        settings.clamp(key, lo, hi)  # a value restored from a link, a file or another recording
    v = value_in_force(key, default)
    if lo is not None and hi is not None and isinstance(v, (int, float)):
        v = type(v)(min(max(v, lo), hi))
    return {"value": v}


def kept(key: str, default: Any, lo: float | None = None, hi: float | None = None) -> Any:
    """The value of a control not drawn in this run (as `keep_value` would draw it)."""
    return keep_value(key, default, lo, hi)["value"]


# Each control's default, by key: drawn (`*_controls`) or not (`*_kept`), a control starts from the same value.
DEFAULTS: dict[str, Any] = {"gs_kal_eps": 5.0, "gs_kal_w": 60, "gs_kal_skip": 12, "gs_kal_r": 50, "gs_kal_l": 60,
                            "gs_kal_h": 2.0, "gs_kal_floor": 1 / 16, "gs_pd_gamma": 2.0, "gs_pd_eps0": 1.0,
                            "gs_pd_tries": 20}


def _kept(key: str) -> Any:
    """The value of a control not drawn in this run that starts from DEFAULTS."""
    return kept(key, DEFAULTS[key])


def kaleido_kept() -> view.KaleidoSettings:
    """Kaleido's settings while its sliders are not drawn."""
    return view.KaleidoSettings(float(_kept("gs_kal_eps")), int(_kept("gs_kal_w")),
                                int(_kept("gs_kal_skip")), float(_kept("gs_kal_r")),
                                float(_kept("gs_kal_l")), float(_kept("gs_kal_h")),
                                float(_kept("gs_kal_floor")))


def synth_kept(n_people: int) -> int:
    """k-same-synth's k while its slider is not drawn."""
    return 2 if n_people < 3 else int(kept("gs_syn_k", min(3, n_people), 2, n_people))


def pd_kept(n_people: int) -> PDSettings:
    """Plausible deniability's settings while its sliders are not drawn."""
    k = 2 if n_people < 3 else int(kept("gs_pd_k", 2, 2, n_people))
    return PDSettings(k, float(_kept("gs_pd_gamma")), float(_kept("gs_pd_eps0")),
                           int(_kept("gs_pd_tries")))


def finer_kaleido_words(s: view.KaleidoSettings) -> str:
    """Kaleido's finer settings in one line (shown while their sliders are not drawn)."""
    return (f"Kept: t_skip = {s.t_skip} samples · l_thresh = {fmt_num(s.l_thresh)} px · h = {fmt_num(s.h)} · "
            f"smallest publication 1/{round(1 / s.min_pub_share)} of ε−ε/h. *All Kaleido settings* shows their sliders.")


def kaleido_controls(every_setting: bool) -> view.KaleidoSettings:
    """Kaleido's sliders -> its settings (ε, w and r only unless `every_setting`: the finer four keep their
    values)."""
    # One wrapping row of sliders: one block re-sent on every move, not a block and two columns.
    row = st.container(horizontal=True, gap="medium")
    with row:
        eps = log_slider("ε per window", 0.1, 100.0, DEFAULTS["gs_kal_eps"], "gs_kal_eps",
                         help="Budget of every window of w samples.")
    w = int(row.select_slider("w (window, samples)", W_OPTIONS, key="gs_kal_w", width=SLIDER_WIDTH,
                              **keep_value("gs_kal_w", DEFAULTS["gs_kal_w"])))
    r = float(row.slider("r (radius, px)", 5, 200, step=5, key="gs_kal_r", width=SLIDER_WIDTH,
                         help="Moves up to r px inside one window are protected at ε.", **keep_value("gs_kal_r", DEFAULTS["gs_kal_r"])))
    if not every_setting:
        return replace(kaleido_kept(), epsilon=eps, w=w, r=r)
    t_skip = int(row.select_slider("t_skip (samples)", SKIP_OPTIONS, key="gs_kal_skip", width=SLIDER_WIDTH,
                                   help="Test every t_skip-th sample; the samples between repeat the last point.",
                                   **keep_value("gs_kal_skip", DEFAULTS["gs_kal_skip"])))
    l_thresh = float(row.slider("l_thresh (px)", 0, 300, step=10, key="gs_kal_l", width=SLIDER_WIDTH,
                                help="Repeat the last point while the gaze stays within about this distance.",
                                **keep_value("gs_kal_l", DEFAULTS["gs_kal_l"])))
    h = float(row.select_slider("h (1/h of ε for tests)", H_OPTIONS, key="gs_kal_h", width=SLIDER_WIDTH,
                                **keep_value("gs_kal_h", DEFAULTS["gs_kal_h"])))
    floor = float(row.select_slider("smallest publication", FLOOR_OPTIONS, key="gs_kal_floor", width=SLIDER_WIDTH,
                                    format_func=lambda v: f"1/{round(1 / v)} of ε−ε/h",
                                    help="Below this budget a window repeats the last point instead of "
                                         "publishing with huge noise.", **keep_value("gs_kal_floor", DEFAULTS["gs_kal_floor"])))
    return view.KaleidoSettings(eps, w, t_skip, r, l_thresh, h, floor)


def synth_controls(n_people: int) -> int:
    """k-same-synth's slider -> k (no slider when fewer than 3 identities leave nothing to choose)."""
    if n_people < 3:
        st.caption(f"k = 2: with {n_people} identit{'y' if n_people == 1 else 'ies'} there is nothing to choose.")
        return 2
    return int(st.slider("k (identities per group)", 2, n_people, key="gs_syn_k",
                         **keep_value("gs_syn_k", min(3, n_people), 2, n_people)))


def pd_controls(n_people: int) -> PDSettings:
    """Plausible deniability's sliders -> its settings."""
    if n_people < 3:
        k = 2
        st.caption(f"k = 2: with {n_people} identit{'y' if n_people == 1 else 'ies'} there is nothing to choose.")
    else:
        k = int(st.slider("k (plausible identities, incl. the owner)", 2, n_people, key="gs_pd_k",
                          **keep_value("gs_pd_k", 2, 2, n_people)))
    row = st.container(horizontal=True, gap="medium")  # one block re-sent on every move, not a block and two columns
    gamma = float(row.select_slider("γ (bucket width)", GAMMA_OPTIONS, key="gs_pd_gamma", format_func=fmt_num,
                                    width=SLIDER_WIDTH, **keep_value("gs_pd_gamma", DEFAULTS["gs_pd_gamma"])))
    eps0 = float(row.select_slider("ε0 (threshold noise)", EPS0_OPTIONS, key="gs_pd_eps0", width=SLIDER_WIDTH,
                                   **keep_value("gs_pd_eps0", DEFAULTS["gs_pd_eps0"])))
    tries = int(row.slider("max draws (as published: until pass)", 1, 50, key="gs_pd_tries", width=SLIDER_WIDTH,
                           **keep_value("gs_pd_tries", DEFAULTS["gs_pd_tries"])))
    return PDSettings(k, gamma, eps0, tries)
