"""Time-series view, shared context: what the panels read (Ctx), the accounting in words and the ledger."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import streamlit as st

from eyedp_core.dp.accounting import Release
from eyedp_core.dp.registry import Mech
from eyedp_core.timeseries.accounting import EpsilonPlan, plan_releases
from eyedp_core.timeseries.choices import KSource, PublicLength
from eyedp_core.timeseries.preview import Preview
from ui import state
from ui.timeseries import view
from ui.timeseries.data import Series, TableInfo
from ui.widgets import fmt_num

VIEW = "Time series"
K_SOURCES = {KSource.RULE: "Rule", KSource.ANALYTIC: "Analytic", KSource.OPTIMAL: "Paper's optimal",
             KSource.MANUAL: "Manual"}
TUNED_NOTE = "tuned on private data — stated ε excludes tuning"
# Beside every suggested ε of the release forms: the crossing reads the spread between people of the loaded data.
PRIVATE_EPS_NOTE = ("read from the private data (the spread between people): a guide for the curator, not to "
                    "publish, and choosing ε by it is not covered by the stated ε")


@dataclass(frozen=True, kw_only=True)
class BudgetViewSpec:
    """What the mechanism part of the page hands its budget part: the data, the shown feature and person, and
    the mechanism's structural settings (the budget part adds ε, k and R)."""

    token: str
    info: TableInfo
    series: Series
    public_t: PublicLength
    names: tuple[str, ...]  # released features
    kinds: tuple[str, ...]  # per feature: "public" | "declared" | "pre-filled"
    feature: str  # the shown feature
    task: str | None
    participant: str
    mech: Mech
    chunk_choice: str | None  # "32" … or "free" for a chunked mechanism, None otherwise
    k_source: KSource
    mode: str  # the accounting: "participant" (ε total per person) | "paper" (ε per chunk / series)
    sensitivity_mode: str  # "public" | "empirical"
    nmse_kind: str
    seed: int
    zoom: bool  # the preview's y axis zoomed to the bounds
    data_key: str  # cache key of the released data (view.data_key)
    # Resolved by the budget part (the free chunk size is its slider): the chunk size, and the data-derived
    # sensitivities with the empirical mode (None with public bounds).
    chunk: int | None = None
    sensitivities: np.ndarray | None = None

    @property
    def feature_index(self) -> int:
        """Index of the shown feature among the released ones."""
        return self.names.index(self.feature)


@dataclass(frozen=True, kw_only=True)
class Ctx:
    """Everything the panels read: data, setting, budget plan, the preview run and the shown feature."""

    token: str
    info: TableInfo
    series: Series
    length: PublicLength  # the public T and whether it was read off the data
    setting: view.Setting
    plan: EpsilonPlan
    feature_index: int  # index of the shown feature in series.names
    task: str | None
    participant: str
    row: int | None  # the shown recording's row in series.x
    transform_length: int  # FFT length n of one invocation (T for LPA/FPA)
    sensitivities: np.ndarray | None  # data-derived sensitivities, None with public bounds
    sensitivity_type: str  # "public" | "data-derived" (ledger, badges)
    bounds_kind: tuple[str, ...]  # per feature: "public" | "declared" | "pre-filled"
    preview: Preview

    @property
    def feature(self) -> str:
        """Name of the shown feature."""
        return self.series.names[self.feature_index]

    @property
    def bounds_f(self) -> tuple[float, float]:
        """Public (or declared) bounds (L, U) of the shown feature."""
        return float(self.series.lo[self.feature_index]), float(self.series.hi[self.feature_index])

    @property
    def feature_sensitivities(self) -> np.ndarray | None:
        """Data-derived sensitivities of the shown feature ((C,) or scalar array), None with public bounds."""
        if self.sensitivities is None:
            return None
        return np.asarray(self.sensitivities[self.feature_index], dtype=float)

    @property
    def keys(self) -> tuple:
        """Cache-key prefix: dataset token, released features, public T."""
        return self.token, self.series.names, self.series.length


def fe(v: float) -> str:
    """ε in, compact text out: '∞', thousands with separators, else 3 significant digits."""
    if not math.isfinite(v):
        return "∞"
    if abs(v) >= 1e7:
        return f"{v:.3g}"
    return f"{v:,.0f}" if abs(v) >= 1000 else fmt_num(v)


# --------------------------------------------------------------------------------------------
# accounting in words, ledger


def accounting_words(c: Ctx) -> str:
    """Context in, the participant-level guarantee in plain words (markdown) out."""
    p = c.plan
    unit = "chunk" if p.unit == "chunk" else "series"
    if c.sensitivity_type == "data-derived":
        why = ("the noise scale was derived from the data itself (as in the paper)" if c.setting.sensitivity_mode == "empirical"
               else "the bounds were read from this data and not confirmed as public")
        assume = f"**no DP guarantee**: {why}, so the numbers below are only what the paper would claim"
    else:
        t_note = (" (read off the data: the longest recording — a caveat in the ledger)"
                  if c.length.data_derived else "")
        assume = ("assuming every value is clamped to the public bounds, the public length T = "
                  f"{c.series.length} windows{t_note}, and at most {p.n_recordings} recording(s) per participant")
    chunks = f" × {p.n_chunks} chunks" if p.unit == "chunk" else ""
    tuned = f" The choice of k was {TUNED_NOTE}." if c.setting.tuned else ""
    return (f"Each participant's whole recording is protected with **total ε = {fe(p.participant_total)}**, "
            f"{assume}. It is the sum over {p.n_features} features{chunks} × {p.n_recordings} recordings = "
            f"{p.invocations:,} mechanism calls of **ε = {fe(p.per_invocation)} per {unit}** (sequential "
            f"composition: replacing one participant changes every {unit}). The paper would report "
            f"ε = {fe(p.paper_total)} ({p.n_features} features × {fe(p.per_invocation)}, chunks counted in "
            f"parallel, per recording) — that protects one {unit} of one feature, not the person.{tuned}")


def accounting_line(c: Ctx) -> str:
    """Context in, the one-sentence summary shown above the preview (markdown) out."""
    p = c.plan
    unit = "chunk" if p.unit == "chunk" else "series"
    chunks = f" × {p.n_chunks} chunks" if p.unit == "chunk" else ""
    why = "data-derived sensitivity" if c.setting.sensitivity_mode == "empirical" else "bounds read from the data"
    cond = f" — **not a DP guarantee** ({why})" if c.sensitivity_type == "data-derived" else ""
    return (f"Each participant's whole recording is protected with **total ε = {fe(p.participant_total)}** "
            f"({p.n_features} features{chunks} × {p.n_recordings} recordings × ε = {fe(p.per_invocation)} per {unit})"
            f"{cond}; the paper would state ε = {fe(p.paper_total)}. Details and assumptions under *Accounting*.")


def calibration_title(c: Ctx) -> str:
    """Context in, the title of the calibration box: which invocation of the run the shown calibration is."""
    first, label = c.preview.shown[0], c.setting.label
    if c.setting.mech is Mech.LPA:
        return f"LPA: Laplace scale b per sample (T = {first.length})"
    if c.sensitivities is not None:
        return f"{label}: λ per Re/Im part (the chunk with the median data-derived λ, n = {first.length})"
    if c.setting.mech is Mech.FPA:
        return f"FPA: λ per Re/Im part (whole series, n = {first.length}, k = {first.k})"
    return f"{label}: λ per Re/Im part (chunks of n = {first.length}, k = {first.k})"


def calibration_note(c: Ctx) -> str:
    """Context in, a note on the shorter last chunk's own calibration ('' when every chunk has full length)."""
    if len(c.preview.shown) < 2:
        return ""
    tail = c.preview.shown[-1]
    return (f"The last chunk has {tail.length} windows: it is transformed at its true length with its own "
            f"Δ₂ = {tail.calibration.sensitivity:.4g}, k = {tail.k} and λ = {tail.calibration.scale:.4g}.")


def main_releases(c: Ctx) -> list[Release]:
    """Context in, the ledger releases of the previewed mechanism at the current setting out."""
    p = c.plan
    how = {KSource.RULE: "public rule", KSource.ANALYTIC: "analytic minimum", KSource.OPTIMAL: "paper's search",
           KSource.MANUAL: "manual"}
    k = "" if c.setting.mech is Mech.LPA else f", k = {c.setting.k} ({how[c.setting.k_source]})"
    chunks = f" × {p.n_chunks} chunks" if p.unit == "chunk" else ""
    label = (f"{c.setting.label}{k}, T = {c.series.length}: {p.n_features} features{chunks} × {p.n_recordings} "
             f"recordings, ε = {p.per_invocation:.4g} per {p.unit}")
    return plan_releases(p, view=VIEW, label=label, sensitivity_type=c.sensitivity_type,
                         tuned_on_private_data=c.setting.tuned, data_derived_parameters=c.length.caveats)


def record(releases: list[Release], place: str = "time_series") -> None:
    """Append these releases to the ledger: every release composes, so recording twice counts twice; refused, the
    reason waits for `state.outcome_here(place)` next to the button that was pressed."""
    if not state.charge(releases, page="time_series", shown=("ts_recorded_msg",), place=place):
        st.rerun()  # refused over the study's cap: nothing added


def already_charged(c: Ctx) -> bool:
    """Whether the ledger already holds this very setting's entries (recorded or exported before)."""
    mine = main_releases(c)
    held = state.ledger().releases
    return bool(mine) and all(r in held for r in mine)


RECORD_NOTE = ("Recording and exporting are separate releases: each charges the setting above to every person's "
               "budget, so doing both — the button above and the release-mode export at the end of the page — "
               "charges it twice.")


def already_note(c: Ctx) -> str:
    """Context in, ' This exact setting is already in the ledger: …' when it is, else '' (markdown)."""
    if not already_charged(c):
        return ""
    return (f" This exact setting is already in the ledger: recording it again charges another "
            f"ε = {c.plan.participant_total:.4g} per person.")


def twice_note(c: Ctx, action: str) -> str:
    """Context and the action ("record" | "export") -> a sentence, shown before the click, on charging twice."""
    eps = f"ε = {c.plan.participant_total:.4g} per person"
    other = ("the release-mode export at the end of the page" if action == "record"
             else "*Record in the privacy ledger*")
    text = (f"Recording and exporting are separate releases: each charges this setting ({eps}), so doing both — "
            f"this button and {other} — charges it twice.")
    if already_charged(c):
        text += f" This exact setting is already in the ledger: pressing charges another {eps}."
    return text


def ledger_table() -> None:
    """Show what this view has recorded in the session's ledger."""
    frame = state.ledger().to_frame()
    mine = frame[frame["view"] == VIEW]
    if mine.empty:
        st.caption("Nothing from this view is in the ledger yet (use *Record in the privacy ledger* above).")
    else:
        st.dataframe(mine[["label", "unit", "mechanism", "sensitivity_type", "epsilon", "count", "epsilon_total",
                           "tuned_on_private_data", "data_derived_parameters"]], hide_index=True)
        st.caption("Every recording is a separate release and composes with the others: recording the same "
                   "setting twice counts it twice, as publishing it twice would.")
