"""The privacy ledger: per-participant composition of every release (docs/PRIVACY_MODEL.md §0.6, §17).

The rule is COMPOSITION_RULE: every release composes. A person's total is counted by an accountant: basic
composition (ε and δ add up), or zCDP, where the entries with a zCDP ρ (Gaussian ones carry theirs, a pure ε-DP
entry is ε²/2-zCDP) add up in ρ and are converted to (ε, δ) at the δ cap, the other entries adding on top. `Ledger.add` is the only way a release enters and
nothing replaces or refunds an entry; `clear` starts a new accounting session from nothing.
Plain Python objects only (no locks, no callables) so a Ledger pickles into Streamlit session state.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.calibration import gaussian_sigma
from eyedp_core.dp.registry import GaussianMethod

if TYPE_CHECKING:  # pandas is imported where a table is built (app start needs none)
    import pandas as pd

__all__ = [
    "COMPOSITION_RULE",
    "EVERYONE",
    "EVERYONE_ELSE",
    "PARTICIPANT_UNITS",
    "UNITS",
    "Ledger",
    "PersonTotal",
    "Release",
    "advanced_composition",
    "compose",
    "gaussian_rho",
    "group_privacy",
    "zcdp_rho",
    "zcdp_to_dp",
]

UNITS = ("participant", "observer", "record", "chunk", "w-event", "event", "sample")
# Units whose neighbouring relation replaces a whole person's contribution (docs/PRIVACY_MODEL.md §0.2).
PARTICIPANT_UNITS = ("participant", "observer")
SENSITIVITY_TYPES = ("public", "data-derived")
# Row label used when no participant is named anywhere: the total applies to every participant.
EVERYONE = "(every participant)"
# Row label, beside named people, for everyone no entry names: covered only by the entries about everyone.
EVERYONE_ELSE = "(everyone not named)"
# The one ledger rule, in the words the Report page shows (docs/PRIVACY_MODEL.md §0.6).
COMPOSITION_RULE = (
    "Every release composes. Each export, recording or private choice of a parameter is a new entry in the "
    "ledger, and a person's total composes the ε (and δ) of every entry that read their data: their sum "
    "(basic composition), or, where a charge was checked under zCDP, the smaller valid of that sum and the "
    "zCDP count at the δ cap. Releasing "
    "again — the same setting twice, a new setting, or a re-recording — adds a new entry; nothing ever "
    "replaces, refunds or overwrites an earlier one. Only releases about different people do not add up."
)


@dataclass(frozen=True)
class Release:
    """One ledger entry: `count` identical (ε, δ) invocations on the data of the covered participants."""

    view: str
    label: str
    unit: str
    mechanism: str
    sensitivity_type: str
    epsilon: float
    delta: float = 0.0
    count: int = 1
    participants: tuple[str, ...] | None = None
    tuned_on_private_data: bool = False
    # Parameters treated as public that were in fact read off the private data (e.g. "length T = 431,
    # the longest recording"): each one is a caveat on the guarantee (docs/PRIVACY_MODEL.md §0.5, §0.7).
    data_derived_parameters: tuple[str, ...] = ()
    # What ε and the count mean when that is not plain "per unit, summed over the person's units" (e.g. Kaleido:
    # ε per window within a radius, and how the person-level bound charged here is built).
    meaning: str = ""
    # zCDP ρ of one invocation, set by the creator of a Gaussian entry (`gaussian_rho`, or Δ2²/(2σ²) when σ is
    # known); None: a pure entry (δ = 0, finite ε) is ε²/2-zCDP, any other entry composes only basically.
    rho: float | None = None

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {UNITS}, got {self.unit!r}")
        if self.sensitivity_type not in SENSITIVITY_TYPES:
            raise ValueError(
                f"sensitivity_type must be one of {SENSITIVITY_TYPES}, got {self.sensitivity_type!r}"
            )
        eps = float(self.epsilon)
        # +inf is allowed on purpose: a mechanism with no DP guarantee is recorded honestly as ε = ∞.
        if math.isnan(eps) or eps < 0:
            raise ValueError(f"epsilon must be >= 0 (or inf for no guarantee), got {self.epsilon!r}")
        dlt = float(self.delta)
        if not (0.0 <= dlt < 1.0):
            raise ValueError(f"delta must lie in [0, 1), got {self.delta!r}")
        if int(self.count) != self.count or self.count < 1:
            raise ValueError(f"count must be a positive integer, got {self.count!r}")
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", dlt)
        object.__setattr__(self, "count", int(self.count))
        if self.participants is not None:
            if isinstance(self.participants, str):
                raise ValueError("participants must be a sequence of ids, not a single string")
            object.__setattr__(self, "participants", tuple(str(p) for p in self.participants))
        if isinstance(self.data_derived_parameters, str):
            raise ValueError("data_derived_parameters must be a sequence of descriptions, not a single string")
        object.__setattr__(self, "data_derived_parameters", tuple(str(p) for p in self.data_derived_parameters))
        if self.rho is not None:
            rho = float(self.rho)
            if not math.isfinite(rho) or rho < 0:
                raise ValueError(f"rho must be a finite number >= 0, got {self.rho!r}")
            object.__setattr__(self, "rho", rho)

    @property
    def rho_total(self) -> float | None:
        """zCDP ρ charged to each covered participant, ρ·count (None: this entry has no zCDP statement)."""
        if self.rho is not None:
            return self.rho * self.count
        if self.delta == 0.0 and math.isfinite(self.epsilon):
            return self.epsilon * self.epsilon / 2.0 * self.count  # ε-DP implies ε²/2-zCDP (Bun–Steinke 2016)
        return None

    @property
    def epsilon_total(self) -> float:
        """ε charged to each covered participant: ε·count (basic sequential composition)."""
        return self.epsilon * self.count

    @property
    def delta_total(self) -> float:
        """δ charged to each covered participant: δ·count."""
        return self.delta * self.count

    def covers(self, participant: str) -> bool:
        """Participant id in, whether this release read that participant's data out."""
        return self.participants is None or participant in self.participants


class Ledger:
    """Ordered list of releases with per-participant basic composition and plain-language warnings."""

    def __init__(self, releases: Iterable[Release] = ()) -> None:
        self._releases: list[Release] = []
        for r in releases:
            self.add(r)

    def add(self, release: Release) -> None:
        """Release in, appended to the ledger (nothing out): it composes with every earlier entry."""
        if not isinstance(release, Release):
            raise TypeError(f"expected a Release, got {type(release).__name__}")
        self._releases.append(release)

    @property
    def releases(self) -> list[Release]:
        """A copy of the recorded releases, oldest first."""
        return list(self._releases)

    def __len__(self) -> int:
        return len(self._releases)

    def __iter__(self):
        return iter(list(self._releases))

    def clear(self) -> None:
        """Forget every release: a new accounting session that starts from nothing."""
        self._releases.clear()
        self._accounting = (Accountant.BASIC, None)

    def accounting(self) -> tuple[Accountant, float | None]:
        """The accountant this ledger's totals are stated under and its δ cap: zCDP once a charge was checked under
        it (at that charge's δ cap), else basic composition (no δ cap needed)."""
        return getattr(self, "_accounting", (Accountant.BASIC, None))

    def note_accounting(self, accountant: Accountant, delta_cap: float | None) -> None:
        """A charge was checked under this accountant: a zCDP one makes zCDP (at its δ cap) the stated count."""
        if Accountant(accountant) is Accountant.ZCDP:
            self._accounting = (Accountant.ZCDP, delta_cap)

    def _universe(self, all_participants: Sequence[str] | None) -> list[str]:
        named = [str(p) for p in all_participants] if all_participants is not None else []
        seen = set(named)
        extra = sorted({p for r in self._releases if r.participants for p in r.participants} - seen)
        return named + extra

    @staticmethod
    def _sums(releases: Iterable[Release], accountant: Accountant = Accountant.BASIC,
              delta_cap: float | None = None) -> tuple[PersonTotal, int, int]:
        rs = list(releases)
        return compose(rs, accountant, delta_cap), len(rs), sum(r.count for r in rs)

    def _rows(self, all_participants: Sequence[str] | None = None, accountant: Accountant = Accountant.BASIC,
              delta_cap: float | None = None) -> list[tuple[str, PersonTotal, int, int]]:
        """The rows of `per_participant` (person, total, releases, invocations), as tuples (no pandas: the sidebar's
        total runs at app start)."""
        people = self._universe(all_participants)
        everyone = [r for r in self._releases if r.participants is None]
        if not people:
            return [(EVERYONE, *self._sums(everyone, accountant, delta_cap))] if self._releases else []
        # One pass over the named releases: cost grows with the ids listed, not ids x releases.
        named: dict[str, list[Release]] = {p: [] for p in people}
        for r in self._releases:
            for p in set(r.participants or ()):
                named[p].append(r)
        rows = [(p, *self._sums(everyone + named[p], accountant, delta_cap)) for p in people]
        if everyone and all_participants is None:  # people no entry names (e.g. participants of a time-series
            # release beside heatmap observers) are still covered: without a list of everyone they get one row
            rows.append((EVERYONE_ELSE, *self._sums(everyone, accountant, delta_cap)))
        return rows

    def per_participant(self, all_participants: Sequence[str] | None = None, *,
                        accountant: Accountant = Accountant.BASIC, delta_cap: float | None = None) -> pd.DataFrame:
        """Optional participant ids in, table (participant, epsilon, delta, n_releases, n_invocations) out.

        Releases with participants=None cover everyone. If no participant is named anywhere the table
        has one row, EVERYONE, holding the total that applies to each participant; otherwise, when some release
        covers everyone, a last row EVERYONE_ELSE holds the total of the people no release names. Under zCDP
        (`delta_cap` needed) epsilon and delta are the zCDP total and basic_epsilon, basic_delta and rho are added.
        """
        import pandas as pd

        zcdp = Accountant(accountant) is Accountant.ZCDP
        rows = []
        for who, t, n, inv in self._rows(all_participants, accountant, delta_cap):
            row = {"participant": who, "epsilon": t.epsilon, "delta": t.delta, "n_releases": n, "n_invocations": inv}
            if zcdp:
                row.update(basic_epsilon=t.basic_epsilon, basic_delta=t.basic_delta, rho=t.rho)
            rows.append(row)
        cols = ["participant", "epsilon", "delta", "n_releases", "n_invocations"]
        return pd.DataFrame(rows, columns=cols + (["basic_epsilon", "basic_delta", "rho"] if zcdp else []))

    def total(self, participant: str | None = None, all_participants: Sequence[str] | None = None, *,
              accountant: Accountant = Accountant.BASIC, delta_cap: float | None = None) -> tuple[float, float]:
        """Participant id (or None) in, composed (ε, δ) under the accountant out; None gives the worst-case participant.

        For None the result is (max ε, max δ) over participants, a bound valid for every participant.
        """
        t = self.worst_case(participant, all_participants, accountant=accountant, delta_cap=delta_cap)
        return t.epsilon, t.delta

    def worst_case(self, participant: str | None = None, all_participants: Sequence[str] | None = None, *,
                   accountant: Accountant = Accountant.BASIC, delta_cap: float | None = None) -> PersonTotal:
        """As `total`, with basic composition beside the accountant's count (each field its max over people)."""
        if participant is not None:
            return compose([r for r in self._releases if r.covers(str(participant))], accountant, delta_cap)
        return self._worst([t for _, t, _, _ in self._rows(all_participants, accountant, delta_cap)], accountant,
                           delta_cap)

    def worst_case_among(self, people: Collection[str] | None, *, accountant: Accountant = Accountant.BASIC,
                         delta_cap: float | None = None) -> PersonTotal:
        """As `worst_case`, over the named people only (None: everyone); one pass over the entries."""
        rows = self._rows(None, accountant, delta_cap)
        return self._worst([t for who, t, _, _ in rows if people is None or who in people], accountant, delta_cap)

    @staticmethod
    def _worst(totals: list[PersonTotal], accountant: Accountant, delta_cap: float | None) -> PersonTotal:
        """Per-person totals in, each field's max over them out (a bound valid for every one of them)."""
        if not totals:
            return compose([], accountant, delta_cap)
        rhos = [t.rho for t in totals if t.rho is not None]
        return PersonTotal(Accountant(accountant), max(t.epsilon for t in totals), max(t.delta for t in totals),
                           max(t.basic_epsilon for t in totals), max(t.basic_delta for t in totals),
                           max(rhos) if rhos else None, totals[0].delta_cap)

    def stated(self, all_participants: Sequence[str] | None = None) -> PersonTotal:
        """The worst-case total per person under the accountant the ledger's charges were checked under
        (`accounting`), basic composition beside it: what the screens, the report and the cap state."""
        accountant, delta_cap = self.accounting()
        return self.worst_case(None, all_participants, accountant=accountant, delta_cap=delta_cap)

    def to_frame(self) -> pd.DataFrame:
        """Ledger in, one table row per release (inputs plus the ε·count, δ·count charged) out."""
        cols = ["view", "label", "unit", "mechanism", "sensitivity_type", "epsilon", "delta", "count",
                "epsilon_total", "delta_total", "participants", "tuned_on_private_data", "data_derived_parameters"]
        rows = []
        for r in self._releases:
            if r.participants is None:
                who = "all"
            elif len(r.participants) <= 5:
                who = ", ".join(r.participants)
            else:
                who = f"{len(r.participants)} participants"
            rows.append({"view": r.view, "label": r.label, "unit": r.unit, "mechanism": r.mechanism,
                         "sensitivity_type": r.sensitivity_type, "epsilon": r.epsilon, "delta": r.delta,
                         "count": r.count, "epsilon_total": r.epsilon_total, "delta_total": r.delta_total,
                         "participants": who, "tuned_on_private_data": r.tuned_on_private_data,
                         "data_derived_parameters": "; ".join(r.data_derived_parameters)})
        import pandas as pd

        return pd.DataFrame(rows, columns=cols)

    def warnings(self) -> list[str]:
        """Ledger in, plain-language warnings (one per problem and release, no duplicates) out."""
        out: list[str] = []
        for r in self._releases:
            name = f"{r.view} — {r.label}"
            if r.sensitivity_type == "data-derived":
                out.append(f"{name}: the noise scale was computed from the data itself (data-derived "
                           "sensitivity), so this is not a DP guarantee.")
            if r.tuned_on_private_data:
                out.append(f"{name}: parameters were tuned on the private data; "
                           "the stated ε excludes tuning.")
            for what in r.data_derived_parameters:
                out.append(f"{name}: {what} was read off the private data and treated as public; "
                           "the stated ε does not cover what that value reveals.")
            if r.meaning:
                out.append(f"{name}: {r.meaning}.")
            elif r.unit not in PARTICIPANT_UNITS and math.isfinite(r.epsilon):
                out.append(f"{name}: ε = {r.epsilon:.4g} protects only one {r.unit}, not the whole person; "
                           f"the worst case for the person is the sum over all their {r.unit}s "
                           f"({r.count} × {r.epsilon:.4g} = {r.epsilon_total:.4g}).")
            if math.isinf(r.epsilon):
                out.append(f"{name}: this mechanism has no differential-privacy guarantee (ε = ∞).")
        return list(dict.fromkeys(out))


# --------------------------------------------------------------------------------------------
# composition bounds


def advanced_composition(epsilon0: float, k: int, delta_prime: float) -> float:
    """Per-mechanism ε0, number k and slack δ' in, ε' = ε0·√(2k ln(1/δ')) + k·ε0·(e^ε0 − 1) out.

    Dwork–Rothblum–Vadhan: k mechanisms each (ε0, δ0)-DP are (ε', k·δ0 + δ')-DP. For large ε0 it can
    exceed the basic k·ε0; callers should show the smaller of the two.
    """
    eps0 = float(epsilon0)
    if not math.isfinite(eps0) or eps0 < 0:
        raise ValueError(f"epsilon0 must be a finite number >= 0, got {epsilon0!r}")
    if int(k) != k or k < 0:
        raise ValueError(f"k must be a non-negative integer, got {k!r}")
    if not (0.0 < float(delta_prime) < 1.0):
        raise ValueError(f"delta_prime must lie strictly between 0 and 1, got {delta_prime!r}")
    if eps0 > 700.0:  # e^ε0 overflows a float: the bound is infinite (basic composition is the smaller)
        return math.inf if k else 0.0
    return eps0 * math.sqrt(2.0 * k * math.log(1.0 / delta_prime)) + k * eps0 * math.expm1(eps0)


def group_privacy(epsilon: float, delta: float, group_size: int) -> tuple[float, float]:
    """(ε, δ) per unit and group size L in, (L·ε, L·e^{(L−1)ε}·δ) for a block of L correlated units out."""
    eps = float(epsilon)
    if math.isnan(eps) or eps < 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
    if not (0.0 <= float(delta) < 1.0):
        raise ValueError(f"delta must lie in [0, 1), got {delta!r}")
    if int(group_size) != group_size or group_size < 1:
        raise ValueError(f"group_size must be a positive integer, got {group_size!r}")
    size = int(group_size)
    grp_delta = 0.0 if delta == 0 else min(1.0, size * math.exp((size - 1) * eps) * float(delta))
    return size * eps, grp_delta


def zcdp_rho(l2_sensitivity: float, sigma: float) -> float:
    """L2 sensitivity and Gaussian std σ in, zCDP parameter ρ = Δ2²/(2σ²) out (Bun–Steinke 2016)."""
    d2, sig = float(l2_sensitivity), float(sigma)
    if not math.isfinite(d2) or d2 < 0:
        raise ValueError(f"l2_sensitivity must be a finite number >= 0, got {l2_sensitivity!r}")
    if not math.isfinite(sig) or sig <= 0:
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    return d2 * d2 / (2.0 * sig * sig)


def _cks20_objective(rho: float, log_inv_delta: float, alpha: float) -> float:
    # Canonne–Kamath–Steinke 2020, Prop. 12 / Cor. 13 (same bound as Asoodeh et al. 2021).
    gap = alpha - 1.0
    return rho * alpha + (log_inv_delta + gap * math.log1p(-1.0 / alpha) - math.log(alpha)) / gap


def zcdp_to_dp(rho: float, delta: float, method: str = "cks20") -> float:
    """ρ-zCDP and δ in, ε such that the mechanism is (ε, δ)-DP out.

    "bun-steinke": ε = ρ + 2√(ρ ln(1/δ)) (Bun–Steinke 2016 Prop. 1.3, the textbook conversion).
    "cks20" (default): inf over α > 1 of ρα + [ln(1/δ) + (α−1)ln(1−1/α) − ln α]/(α−1)
    (Canonne–Kamath–Steinke 2020 Cor. 13), the conversion OpenDP 0.16 uses; never larger.
    """
    r, d = float(rho), float(delta)
    if not math.isfinite(r) or r < 0:
        raise ValueError(f"rho must be a finite number >= 0, got {rho!r}")
    if not (0.0 < d < 1.0):
        raise ValueError(f"delta must lie strictly between 0 and 1, got {delta!r}")
    if r == 0.0:
        return 0.0
    log_inv = math.log(1.0 / d)
    standard = r + 2.0 * math.sqrt(r * log_inv)
    if method == "bun-steinke":
        return standard
    if method != "cks20":
        raise ValueError(f"unknown conversion {method!r}; use 'cks20' or 'bun-steinke'")
    # Search over u = ln(α − 1), centred on the RDP optimum α ≈ 1 + √(ln(1/δ)/ρ).
    centre = 0.5 * math.log(log_inv / r)
    from scipy.optimize import minimize_scalar  # imported here: scipy.optimize costs ~0.4 s of app start

    res = minimize_scalar(lambda u: _cks20_objective(r, log_inv, 1.0 + math.exp(u)),
                          bounds=(centre - 30.0, centre + 30.0), method="bounded",
                          options={"xatol": 1e-12, "maxiter": 500})
    best = min(float(res.fun), _cks20_objective(r, log_inv, 1.0 + math.exp(centre)), standard)
    return max(best, 0.0)


# --------------------------------------------------------------------------------------------
# a person's total under an accountant


def gaussian_rho(epsilon: float, delta: float, method: GaussianMethod = GaussianMethod.ANALYTIC) -> float:
    """(ε, δ) of a Gaussian release (and the method that calibrated σ) in, the zCDP ρ = Δ2²/(2σ²) of its σ out.

    With the analytic method σ is the smallest σ/Δ2 of ANY Gaussian mechanism that is (ε, δ)-DP (Balle–Wang 2018),
    so this ρ is valid, and conservative, for every Gaussian mechanism stated at (ε, δ); a creator that knows σ
    and Δ2 may state zcdp_rho(Δ2, σ) instead (never larger)."""
    return zcdp_rho(1.0, gaussian_sigma(1.0, float(epsilon), float(delta), method))


@dataclass(frozen=True)
class PersonTotal:
    """A person's composed (ε, δ) under an accountant, with basic composition beside it and Σρ (zCDP)."""

    accountant: Accountant
    epsilon: float
    delta: float
    basic_epsilon: float
    basic_delta: float
    rho: float | None = None  # Σρ of the entries composed in zCDP (None under basic or when no entry has one)
    delta_cap: float | None = None  # the δ the zCDP count is converted at (None under basic)
    # The zCDP count itself, before the smaller of it and basic composition is stated (None when not computed).
    zcdp_epsilon: float | None = None

    @property
    def words(self) -> str:
        """How this total is counted, in words, with basic composition beside it under another accountant."""
        if self.accountant is Accountant.BASIC:
            return "counted by basic composition (ε and δ add up)"
        return (f"counted by zCDP at the δ cap {self.delta_cap:.2g} (ρ adds up over the Gaussian and pure-ε entries, "
                f"converted to (ε, δ); other entries add on top; the smaller of that and basic composition is "
                f"stated); basic composition counts ε = {self.basic_epsilon:.4g}, δ = {self.basic_delta:.2g}")


def compose(releases: Iterable[Release], accountant: Accountant = Accountant.BASIC,
            delta_cap: float | None = None) -> PersonTotal:
    """One person's releases, the accountant and (for zCDP) the δ cap in, the person's total out.

    zCDP (docs/PRIVACY_MODEL.md §0.6, accountants of the ledger): the entries with a ρ compose in zCDP, Σρ converted to (ε_z, δ_z)-DP at
    δ_z = δ_cap − Σδ of the others (Canonne–Kamath–Steinke 2020); the others add basically on top, so the total is
    (ε_z + Σε_other, δ_cap) by sequential composition of the two groups. The stated total is the smaller valid of
    that and basic composition (which holds whenever its Σδ ≤ δ_cap); basic when δ_z would be ≤ 0."""
    rs = list(releases)
    basic_e = math.fsum(r.epsilon_total for r in rs)
    basic_d = math.fsum(r.delta_total for r in rs)
    acct = Accountant(accountant)
    if acct is Accountant.BASIC:
        return PersonTotal(acct, basic_e, basic_d, basic_e, basic_d, None)
    if delta_cap is None or not (0.0 < float(delta_cap) < 1.0):
        raise ValueError(f"the zCDP accountant needs a δ cap strictly between 0 and 1, got {delta_cap!r}")
    cap = float(delta_cap)
    basic = PersonTotal(acct, basic_e, basic_d, basic_e, basic_d, None, cap)
    rhos = [r.rho_total for r in rs]
    group = [rho for rho in rhos if rho is not None]
    if not group:
        return basic
    rho = math.fsum(group)
    slack = float(delta_cap) - math.fsum(r.delta_total for r, q in zip(rs, rhos) if q is None)
    if slack <= 0.0:
        return PersonTotal(acct, basic_e, basic_d, basic_e, basic_d, rho, cap)
    eps = _zcdp_epsilon(rho, slack) + math.fsum(r.epsilon_total for r, q in zip(rs, rhos) if q is None)
    if basic_d <= cap and basic_e <= eps:
        return PersonTotal(acct, basic_e, basic_d, basic_e, basic_d, rho, cap, eps)
    return PersonTotal(acct, eps, cap, basic_e, basic_d, rho, cap, eps)


@functools.lru_cache(maxsize=4096)
def _zcdp_epsilon(rho: float, delta: float) -> float:
    # Cached: people with the same entries share one conversion (each is a numerical minimisation).
    return zcdp_to_dp(rho, delta)
