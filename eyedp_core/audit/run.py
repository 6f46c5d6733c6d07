"""Running an audit case: draws in batches (so a page can show progress and stop between them), the estimator
on what was drawn, the time taken."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from eyedp_core.audit.cases import AuditCase
from eyedp_core.audit.estimator import Bound, epsilon_lower_bound

__all__ = ["AuditResult", "run_case"]

CONFIDENCE = 0.95
STAT_DIGITS = 9
_BATCHES = 20


@dataclass(frozen=True)
class AuditResult:
    """One case's audit: the claim, the lower bound ε̂ with its test, draws per neighbour, seconds, stopped."""

    case: AuditCase
    bound: Bound
    draws: int
    seconds: float
    stopped: bool

    @property
    def exceeds(self) -> bool:
        """Whether ε̂ is above the claimed ε: at the stated confidence, the mechanism breaks its guarantee."""
        return self.bound.epsilon > self.case.epsilon * (1 + 1e-9)


def run_case(case: AuditCase, *, draws: int | None = None, confidence: float = CONFIDENCE, seed: int = 0,
             progress: Callable[[float], bool] | None = None) -> AuditResult:
    """Case, draws per neighbour (default: the case's), confidence and seed in, AuditResult out. `progress`
    gets the fraction done after each batch and returns False to stop (the bound then uses what was drawn)."""
    total = int(draws or case.draws)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    size = max(1, -(-total // _BATCHES))
    first, second, done, stopped = [], [], 0, False
    while done < total:
        n = min(size, total - done)
        a, b = case.draw(rng, n)
        first.append(a)
        second.append(b)
        done += n
        if progress is not None and not progress(done / total) and done < total:
            stopped = True
            break
    # Rounded to 1e-9 noise scales: preview noise added to an unrounded float keeps the float's residue (§11.2),
    # which a threshold on tied values could read; the audit tests the mechanism's law, and the release path's
    # lattice is checked by eyedp_core.audit.residue.
    a, b = (np.round(np.concatenate(x), STAT_DIGITS) for x in (first, second))
    # The draws are i.i.d., so the halves the estimator splits are independent whichever batch they came from.
    bound = epsilon_lower_bound(a, b, delta=case.delta, confidence=confidence)
    return AuditResult(case, bound, done, time.perf_counter() - t0, stopped)
