"""Gaze samples: what Kaleido's person-level bound allows an attacker, under its promise (docs/PRIVACY_MODEL.md §16).

Kaleido's noise budget varies per publication, so the line reads the charged (ε, δ = 0): per window for the
window's guarantee, and the person-level bound (windows × d_max/r) for a participant's whole recording."""
from __future__ import annotations

from eyedp_core.dp.risk import TradeOff, tpr_at
from eyedp_core.dp.risk_words import LINE_FPR
from eyedp_core.gaze.geometry import Geometry
from eyedp_core.gazestream.kaleido import person_bound
from ui import risk_line


def kaleido_line(epsilon: float, w: int, r: float, n_samples: int, geometry: Geometry,
                 stream_lengths: tuple[int, ...] | None, n_people: int) -> str:
    """Kaleido's ε, w, r, the shown person's samples (or streams), the screen and the roster size -> the risk line
    for the person's whole recording, then the per-window figure (markdown)."""
    bound = person_bound(epsilon=epsilon, w=w, r=r, n_max=n_samples, stream_lengths=stream_lengths,
                         screen_px=(geometry.width_px, geometry.height_px))
    window = 100 * tpr_at(TradeOff.approx(epsilon), LINE_FPR)
    scope = (f"These figures are for the whole recording (its person-level ε = {bound.person_epsilon:.4g}); within "
             f"one {w}-sample window, telling a move of up to {r:g} px succeeds with at most {window:.3g} % true "
             f"positives at {100 * LINE_FPR:g} % false positives.")
    return risk_line.line(TradeOff.approx(bound.person_epsilon), n_people, "participant", scope)
