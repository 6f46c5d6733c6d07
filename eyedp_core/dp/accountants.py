"""How a person's releases are counted against the cap: the accountants (docs/PRIVACY_MODEL.md §0.6, §17).

A plan states one, every ledger charge records the one its cap was checked under, and the ledger's totals are
given under it with basic composition beside them."""
from __future__ import annotations

from enum import StrEnum

__all__ = ["Accountant"]


class Accountant(StrEnum):
    """How the per-person total of a plan's or a ledger's releases is counted against the cap."""

    BASIC = "basic"  # sequential composition: Σ ε_i, Σ δ_i (valid for every mechanism)
    ZCDP = "zcdp"  # Gaussian releases as ρ = Δ2²/(2σ²), pure-ε ones as ε²/2, Σρ converted at the cap's δ

    @property
    def words(self) -> str:
        """Plain words for tables and manifests."""
        return {Accountant.BASIC: "basic composition (ε and δ add up)",
                Accountant.ZCDP: "zCDP: ρ adds up, converted to (ε, δ) at the cap's δ (Canonne–Kamath–Steinke "
                                 "2020)"}[self]
