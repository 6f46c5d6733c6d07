"""Release-mode exports on each view: charge the ledger first (refused over the cap), then draw with OpenDP.

Previews stay seeded and fast; an export is a release: no seed, OpenDP's samplers (eyedp_core.exports),
a JSON manifest, and a ledger entry. Files stay in the session until the ledger is cleared.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import streamlit as st

from eyedp_core.dp.accounting import Release
from eyedp_core.exports.gaze import release_gaze_samples
from eyedp_core.exports.timeseries import release_feature_table
from eyedp_core.gazestream.kaleido import KaleidoBound, kaleido_plan, person_bound_of
from eyedp_core.io import uploads
from eyedp_core.timeseries.setting import MechanismSetting
from ui import state
from ui.timeseries import context
from ui.widgets import badge

RESULT_KEY = "share_export_{page}"


def _result(page: str) -> dict[str, Any] | None:
    return st.session_state.get(RESULT_KEY.format(page=page))


def _offer(page: str, name: str) -> None:
    """Show the last release of this page: what it charged and the files (CSV + manifest)."""
    state.outcome_here(RESULT_KEY.format(page=page))  # a refusal, next to the export button that was pressed
    res = _result(page)
    if not res:
        return
    man = res["manifest"]
    st.success(f"Released {man['artefact']} ({man['mechanism']}) in {man['seconds']:.1f} s with "
               f"{man['noise']['values_drawn']:,} OpenDP draws; guarantee: {man['guarantee']}.",
               icon=":material/check_circle:")
    st.markdown(badge("PRIVATE RELEASE (OpenDP, no seed)", "dp"), unsafe_allow_html=True)
    _calibration(man)
    a, b = st.columns(2)
    csv = res["csv"]  # handed over only when the button is pressed (keeps reruns light)
    a.download_button("Released data (CSV)", lambda: csv, f"eyedp_{name}_release.csv", "text/csv",
                      key=f"share_dl_{page}_csv", icon=":material/download:", on_click="ignore")
    b.download_button("Manifest (JSON)", json.dumps(man, indent=2, default=str).encode(),
                      f"eyedp_{name}_release.json", "application/json", key=f"share_dl_{page}_json",
                      icon=":material/description:")


# Readable names of the manifest's calibration numbers (the core computes them; this only labels them).
_CALIBRATION_COLUMNS = {"feature": "feature", "transform_length": "n (transform length)", "k": "k",
                        "invocations": "invocations", "epsilon_per_invocation": "ε per invocation",
                        "series_sensitivity": "Δ of the series", "sensitivity": "Δ₁ of the noised values",
                        "scale_formula": "scale (formula)", "float_inflation": "ρ (FFT error)",
                        "lattice_step": "lattice step g", "release_sensitivity": "Δ₁ released (inflated)",
                        "scale": "scale released"}


def _calibration(man: Mapping[str, Any]) -> None:
    """The manifest's neighbouring relation, ε per person and noise calibration, words first, numbers behind."""
    cal = man.get("calibration")
    if not cal:
        return
    import pandas as pd  # imported here: only a drawn release needs it

    per_person = man.get("epsilon_per_person")
    with st.expander("How this release was calibrated (sensitivity, noise scale, lattice)"):
        st.markdown(f"**Neighbours:** {man['neighbouring_relation']}. "
                    + (f"**ε per person:** {per_person:.6g}. " if per_person is not None else "")
                    + "Every released value was rounded to OpenDP's lattice (step g) before its noise was added, "
                      "and the noise scale is calibrated to the sensitivity that this rounding (and, for Fourier "
                      "coefficients, the transform's floating-point error) can add, so the ε charged holds.")
        if isinstance(cal, list):
            frame = pd.DataFrame(cal)
            st.dataframe(frame[[c for c in _CALIBRATION_COLUMNS if c in frame.columns]].rename(
                columns=_CALIBRATION_COLUMNS), hide_index=True)
        else:
            st.dataframe(pd.DataFrame({"number": list(cal), "value": [str(v) for v in cal.values()]}),
                         hide_index=True)


def _charge_then(page: str, releases: list[Release]) -> bool:
    """Charge the ledger; refused over the cap: nothing is drawn and the page says why next to the button."""
    if not state.charge(releases, page=page, shown=(RESULT_KEY.format(page=page),), place=RESULT_KEY.format(page=page)):
        st.rerun()
    return True


def time_series_export(ctx: Any) -> None:
    """Feature table CSV of every released feature and recording, in release mode."""
    st.markdown("**Export (release mode).** The mechanism and settings above over every released feature and "
                "recording, with fresh OpenDP noise (no seed): not the preview. Charged to the ledger as a new "
                "entry, as a recording is.")
    if ctx is None:
        st.markdown("Choose valid settings above to export.")
        return
    st.caption(context.twice_note(ctx, "export"))
    if ctx.sensitivity_type == "data-derived":
        st.warning("A data-derived sensitivity is not differential privacy: choose public bounds to export.",
                   icon=":material/block:")
        return
    if st.button("Export the feature table (private release)", key="ts_release_export", type="primary",
                 icon=":material/ios_share:"):
        _charge_then("time_series", context.main_releases(ctx))
        s = ctx.series
        with st.spinner("Drawing OpenDP noise for every feature and recording…"):
            setting = MechanismSetting(mech=ctx.setting.mech, epsilon=ctx.plan.per_invocation, k=int(ctx.setting.k),
                                       chunk=ctx.setting.chunk)
            rel = release_feature_table(s.x, s.recs, s.names, s.lo, s.hi, setting=setting,
                                        participant_epsilon=ctx.plan.participant_total,
                                        invocations=ctx.plan.invocations)
        st.session_state[RESULT_KEY.format(page="time_series")] = {"csv": uploads.to_csv_bytes(rel.table),
                                                                   "manifest": rel.manifest}
        st.rerun()
    _offer("time_series", "features")


def gaze_samples_export(scope: Mapping[str, Any] | None) -> None:
    """Protected gaze samples CSV (Kaleido, release mode) of every stream."""
    st.markdown("**Export (release mode).** Kaleido with the settings above over every stream, its planar "
                "Laplace and test noise drawn from OpenDP (no seed): not the preview. Only participant, task, "
                "time and the protected x, y are written.")
    scope = scope or {}
    s_kal, df, geometry = scope.get("s_kal"), scope.get("df"), scope.get("geometry")
    if s_kal is None or df is None or geometry is None:
        st.markdown("To export protected samples, switch the View above to protecting the stream.")
        return
    people = tuple(str(p) for p in df["participant"].unique()) if "participant" in df.columns else None
    bound = person_bound_of(df, epsilon=s_kal.epsilon, w=s_kal.w, r=s_kal.r,
                            screen_px=(geometry.width_px, geometry.height_px))
    entry = kaleido_entry(bound, people)
    st.markdown(f"Charged per person: {bound.words()} (treated as public: the stream lengths and the screen size).")
    if state.refusal([entry]) is not None:  # said before the click: at usual settings this bound exceeds any cap
        st.info(f"Under the study's cap (ε ≤ {state.epsilon_cap():g} per person) this export would be refused: "
                "Kaleido's person-level bound is far above it. The preview above shows what it would do.",
                icon=":material/block:")
    if st.button("Export protected samples (private release)", key="gs_release_export", type="primary",
                 icon=":material/ios_share:"):
        _charge_then("gaze_samples", [entry])
        pub = s_kal.min_pub_share * (s_kal.epsilon - s_kal.epsilon / s_kal.h)
        with st.spinner("Drawing OpenDP noise for every stream…"):
            plan = kaleido_plan(epsilon=s_kal.epsilon, w=s_kal.w, l_thresh=s_kal.l_thresh, t_skip=s_kal.t_skip,
                                r=s_kal.r, h=s_kal.h, min_pub=pub)
            rel = release_gaze_samples(df, plan, (geometry.width_px, geometry.height_px))
        st.session_state[RESULT_KEY.format(page="gaze_samples")] = {"csv": uploads.to_csv_bytes(rel.table),
                                                                    "manifest": rel.manifest}
        st.rerun()
    _offer("gaze_samples", "gaze")


def kaleido_entry(bound: KaleidoBound, people: tuple[str, ...] | None) -> Release:
    """Kaleido's bounds and the streams' people -> its ledger entry: per window, a move anywhere on the screen
    (ε·d_max/r), times the windows Σ_s⌈n_s/w⌉ of the person charged most: the person-level bound."""
    return Release(view="Gaze samples", label=(f"Kaleido export, ε = {bound.epsilon:g} per {bound.w}-sample window "
                                               f"within r = {bound.r:g} px"),
                   unit="w-event", mechanism="Kaleido", sensitivity_type="public",
                   epsilon=bound.per_window_any_move, count=bound.windows, participants=people,
                   meaning=bound.words())


def heatmaps_export(_: Any) -> None:
    """The heatmap export lives in the page's own Export section (PNG, array CSV, JSON metadata)."""
    st.markdown("The heatmap release (PNG image, noisy array as CSV, JSON manifest; OpenDP, no seed) is in the "
               "*Export (private release)* section above.")


EXPORTS = {"time_series": time_series_export, "gaze_samples": gaze_samples_export, "heatmaps": heatmaps_export}
