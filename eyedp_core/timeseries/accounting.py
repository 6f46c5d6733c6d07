"""Budget accounting for the time-series mechanisms: the paper's per-chunk ε versus the participant total.

docs/PRIVACY_MODEL.md §0.6, §3, §4, §10. One mechanism *invocation* perturbs one chunk (CFPA/DCFPA) or one
whole series (LPA/FPA/Steil) of one feature of one recording. Replacing a participant changes every
invocation on that participant's data, so the participant-level ε is the SUM over features, chunks
and recordings (sequential composition). The paper counts chunks in parallel and reports Σ_features ε
per recording; we show that number only as "as in the paper".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from eyedp_core.dp.accounting import Release, advanced_composition, group_privacy
from eyedp_core.dp.registry import TIME_SERIES, Mech
from eyedp_core.timeseries.labels import CHUNKED, STEIL, as_mech
from eyedp_core.timeseries.sensitivity import n_chunks
from eyedp_core.timeseries.temporal_leakage import temporal_leakage

__all__ = [
    "CHUNKED",
    "MECHANISMS",
    "EpsilonPlan",
    "epsilon_plan",
    "plan_releases",
    "sub_participant_bounds",
]

Mode = Literal["paper", "participant"]
MECHANISMS: tuple[Mech, ...] = TIME_SERIES + STEIL
# How the ledger names each mechanism (the Steil forms say which one it is).
_NAMES = {
    **{m: m.value for m in TIME_SERIES},
    Mech.STEIL: "Steil (Laplace form)",
    Mech.STEIL_PUBLISHED: "Steil (as published — not DP)",
}


@dataclass(frozen=True)
class EpsilonPlan:
    """Budget split for one mechanism setting: per-invocation ε, counts, paper's and participant totals."""

    mode: str
    mechanism: Mech
    epsilon_input: float  # the number the user chose (meaning depends on mode)
    per_invocation: float  # ε of ONE call: one chunk (chunked) or one series, of one feature and recording
    n_chunks: int  # invocations per feature series (1 for whole-series mechanisms)
    n_features: int
    n_recordings: int
    unit: str  # unit the per-invocation ε protects: "chunk" or "record"
    has_guarantee: bool = True  # False for the published Steil sampler (ε = ∞)

    @property
    def invocations(self) -> int:
        """Mechanism calls on one participant's data: features × chunks × recordings."""
        return self.n_features * self.n_chunks * self.n_recordings


    @property
    def paper_total(self) -> float:
        """The paper's total per recording: Σ over features, chunks in parallel (NOT a participant bound)."""
        return self.per_invocation * self.n_features

    @property
    def per_series(self) -> float:
        """ε of one feature series of one recording (sum over its chunks): C·ε_c."""
        return self.per_invocation * self.n_chunks

    @property
    def participant_total(self) -> float:
        """Participant-level ε: per-invocation ε × features × chunks × recordings (∞ without a guarantee)."""
        return self.per_invocation * self.invocations if self.has_guarantee else math.inf

    def to_dict(self) -> dict:
        """Plan in, flat dict of inputs and derived totals out (for tables)."""
        return {
            "mode": self.mode,
            "mechanism": self.mechanism.value,
            "epsilon_input": self.epsilon_input,
            "per_invocation": self.per_invocation,
            "n_chunks": self.n_chunks,
            "n_features": self.n_features,
            "n_recordings": self.n_recordings,
            "invocations": self.invocations,
            "unit": self.unit,
            "per_series": self.per_series,
            "paper_total": self.paper_total,
            "participant_total": self.participant_total,
        }


def epsilon_plan(
    mode: Mode,
    epsilon: float,
    mechanism: Mech | str,
    chunk: int | None,
    length: int,
    n_features: int,
    n_recordings: int = 1,
) -> EpsilonPlan:
    """(mode, ε, mechanism, chunk, T, #features, #recordings) in, EpsilonPlan out.

    mode="paper": ε is per invocation as the paper states it (per chunk for CFPA/DCFPA, per feature
    series otherwise). mode="participant": ε is the participant-level total and every invocation gets
    ε/(features × chunks × recordings) — the fair comparison in which CFPA's advantage shrinks.
    """
    mech = as_mech(mechanism)
    if mode not in ("paper", "participant"):
        raise ValueError(f"mode must be 'paper' or 'participant', got {mode!r}")
    eps = float(epsilon)
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}")
    if n_features < 1 or n_recordings < 1:
        raise ValueError("need at least one feature and one recording")
    if mech in CHUNKED:
        if chunk is None:
            raise ValueError(f"{mechanism} needs a chunk length")
        c = n_chunks(int(length), int(chunk))
    else:
        c = 1
    count = int(n_features) * c * int(n_recordings)
    per = eps if mode == "paper" else eps / count
    return EpsilonPlan(
        mode=mode,
        mechanism=mech,
        epsilon_input=eps,
        per_invocation=per,
        n_chunks=c,
        n_features=int(n_features),
        n_recordings=int(n_recordings),
        unit="chunk" if mech in CHUNKED else "record",
        has_guarantee=mech.info.is_dp,
    )


def plan_releases(
    plan: EpsilonPlan,
    *,
    view: str = "Time series",
    label: str | None = None,
    sensitivity_type: str = "public",
    participants: tuple[str, ...] | None = None,
    tuned_on_private_data: bool = False,
    data_derived_parameters: tuple[str, ...] = (),
) -> list[Release]:
    """EpsilonPlan and metadata in, ledger Release records (count = features × chunks × recordings) out.

    `data_derived_parameters` names what was read off the private data but treated as public (such as
    the length T of the longest recording); the ledger shows each one as a caveat."""
    name = _NAMES[plan.mechanism]
    if label is None:
        chunk_txt = f", {plan.n_chunks} chunks per series" if plan.mechanism in CHUNKED else ""
        label = (
            f"{name}: {plan.n_features} features × {plan.n_recordings} recordings{chunk_txt}, "
            f"ε = {plan.per_invocation:.4g} per {plan.unit}"
        )
    eps = plan.per_invocation if plan.has_guarantee else math.inf
    return [
        Release(
            view=view,
            label=label,
            unit=plan.unit,
            mechanism=name,
            sensitivity_type=sensitivity_type,
            epsilon=eps,
            count=plan.invocations,
            participants=participants,
            tuned_on_private_data=tuned_on_private_data,
            data_derived_parameters=tuple(data_derived_parameters),
        )
    ]


def sub_participant_bounds(
    plan: EpsilonPlan,
    *,
    delta: float = 0.0,
    delta_prime: float = 1e-6,
    backward: np.ndarray | None = None,
    forward: np.ndarray | None = None,
) -> pd.DataFrame:
    """EpsilonPlan (optional public Markov matrices over chunks) in, table of ε bounds by scope out.

    Rows: per invocation (paper's unit); group bound for one feature series (C correlated chunks,
    rigorous); participant total (rigorous, basic composition); advanced composition of all
    invocations ((ε, δ'), shown only if smaller); Cao et al. TPL over the C chunks of one series when
    P^B/P^F are given (model-based estimate, not a bound for the person).
    """
    eps = plan.per_invocation
    g_eps, g_delta = group_privacy(eps, delta, plan.n_chunks)
    rows = [
        {"scope": f"one {plan.unit} (as in the paper)", "epsilon": eps, "delta": delta, "kind": "per unit"},
        {
            "scope": f"one feature series ({plan.n_chunks} {plan.unit}s), group bound",
            "epsilon": g_eps,
            "delta": g_delta,
            "kind": "rigorous",
        },
        {
            "scope": "participant (all features, chunks, recordings)",
            "epsilon": plan.participant_total,
            "delta": delta * plan.invocations,
            "kind": "rigorous",
        },
    ]
    adv = advanced_composition(eps, plan.invocations, delta_prime)
    if adv < plan.participant_total:
        rows.append(
            {
                "scope": "participant, advanced composition",
                "epsilon": adv,
                "delta": delta * plan.invocations + delta_prime,
                "kind": "rigorous (ε, δ)",
            }
        )
    if backward is not None or forward is not None:
        pb = backward if backward is not None else forward
        pf = forward if forward is not None else backward
        tpl = temporal_leakage(pb, pf, eps, steps=plan.n_chunks)
        rows.append(
            {
                "scope": f"one feature series, Markov-model TPL over {plan.n_chunks} {plan.unit}s",
                "epsilon": float(tpl["tpl"].max()),
                "delta": delta,
                "kind": "model-based estimate",
            }
        )
    if not plan.has_guarantee:
        for r in rows:
            r["epsilon"], r["kind"] = math.inf, "no guarantee"
    return pd.DataFrame(rows, columns=["scope", "epsilon", "delta", "kind"])
