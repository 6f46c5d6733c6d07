"""What a guarantee allows any attacker (`Risk`: the one type of the pages' risk lines and the report's sentence),
the pages' risk line in words, and the pure ε-DP figures in closed form (docs/PRIVACY_MODEL.md §16).

Kept free of scipy: the Home page's teaching slider states a pure ε and must stay light on a first visit
(eyedp_core.dp.risk, with scipy, computes the figures of other curves for the pages that calibrate noise)."""
from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["LINE_FPR", "Risk", "pure_line_risk", "risk_line"]

# The false-positive rate the one-line summary quotes (the 1 % figure is in the report's table).
LINE_FPR = 0.05


@dataclass(frozen=True)
class Risk:
    """What a guarantee allows any attacker, in the numbers the pages and the report print: the highest TPR at
    each quoted FPR and the success of singling one of n out; the report adds the largest advantage TPR − FPR
    and the inference of a binary attribute with a known prior (None where not computed: a page's risk line
    reads only TPR at LINE_FPR and singling out)."""

    tpr: tuple[tuple[float, float], ...]  # (FPR, highest TPR at that FPR)
    n: int
    singling_out: float
    advantage: float | None = None
    prior: float = 0.5
    attribute: float | None = None

    @property
    def singling_out_guess(self) -> float:
        """Singling one out of n by guessing alone: 1/n."""
        return 1.0 / self.n

    @property
    def attribute_guess(self) -> float:
        """The success of inferring the attribute by guessing the likelier value."""
        return max(self.prior, 1.0 - self.prior)

    def tpr_at(self, fpr: float) -> float:
        """The highest TPR at one of the quoted FPRs (KeyError for an FPR not quoted)."""
        return dict(self.tpr)[fpr]


def pure_line_risk(epsilon: float, n: int) -> Risk:
    """A pure ε and the roster size n in, the line's figures out: TPR = min(1, e^ε·α, 1 − e^−ε·(1 − α)) (the
    (ε, 0) trade-off curve read at α) and singling out = e^ε/(e^ε + n − 1)."""
    if epsilon < 0 or n < 1:
        raise ValueError(f"need ε >= 0 and n >= 1, got ε={epsilon!r}, n={n!r}")
    e = math.exp(min(epsilon, 700.0))
    a = LINE_FPR
    return Risk(tpr=((a, min(1.0, e * a, 1.0 - (1.0 - a) / e)),), n=n, singling_out=min(1.0, e / (e + n - 1)))


def _pct(v: float) -> str:
    """A probability as a percentage that never rounds to a false 100 % (a ceiling of 99.97 % is not 100 %)."""
    p = 100.0 * v
    if v >= 1.0:
        return "100 %"
    if p >= 99.95:
        return "> 99.9 %"
    return f"{p:.3g} %" if p >= 1 else f"{p:.2g} %"


def risk_line(r: Risk, unit: str = "person", roster: str = "") -> str:
    """A Risk quoting LINE_FPR in, one plain sentence of its two figures out (`roster` says where n comes from,
    e.g. "in the loaded data")."""
    plural = "people" if unit == "person" else f"{unit}s"
    where = f" ({r.n} {plural} {roster}, a roster taken as public)" if roster else ""
    return (f"At this ε, an attacker who knows everything else can tell whether a given {unit} was in the data with "
            f"at most {_pct(r.tpr_at(LINE_FPR))} true positives at {_pct(LINE_FPR)} false positives; singling one "
            f"out of {r.n}{where} succeeds at most {_pct(r.singling_out)} of the time, against "
            f"{_pct(r.singling_out_guess)} by guessing.")
