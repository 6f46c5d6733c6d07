"""The noise scale an export draws with, as OpenDP certifies it: one cached core call that the Heatmaps page, the
report's facts and the ledger's records share.

Below ui.state and ui.share (it imports neither), so that charging a release can fill in the scale without an
import cycle. OpenDP (and its ~1 s import) loads on the first call, never at app start.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st


@st.cache_data(show_spinner=False, max_entries=64)
def opendp_sigma(l2: float, eps: float, delta: float, sigma0: float) -> float:
    """Cached core call: the smallest σ >= σ0 that OpenDP's own accounting certifies (shown on every rerun)."""
    from eyedp_core.dp.release import opendp_gaussian_sigma

    return opendp_gaussian_sigma(l2, eps, delta, sigma0)


def finish(facts: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A page's facts as remembered -> a plain dict with the export's noise scale filled in (OpenDP's σ, cached)."""
    if not facts:
        return None
    if "export_scale_args" not in facts:
        return dict(facts)
    from eyedp_core.dp.registry import Family

    out = {k: v for k, v in facts.items() if k != "export_scale_args"}
    l2, eps, delta, scale, mechanism = facts["export_scale_args"]
    out["export_scale"] = scale if Family(mechanism) is Family.LAPLACE else float(opendp_sigma(l2, eps, delta, scale))
    return out
