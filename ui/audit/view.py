"""Audit view: the mechanisms as the other pages configured them, read from this session's settings (the live
widgets, else the page's stored settings, else the defaults), turned into the core's audit cases."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import streamlit as st

from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.aoi.observers import AoiBounds
from eyedp_core.audit.cases import (
    AoiAudit,
    AuditCase,
    FormAudit,
    HeatmapAudit,
    KaleidoAudit,
    SeriesAudit,
    aoi_case,
    form_case,
    heatmap_case,
    kaleido_case,
    series_case,
)
from eyedp_core.data import bundled
from eyedp_core.dp.registry import Family, GaussianMethod, Mech
from eyedp_core.gazestream.kaleido import kaleido_plan
from eyedp_core.heatmaps.preview import gaussian_method
from eyedp_core.timeseries.accounting import EpsilonPlan, epsilon_plan
from ui import settings
from ui.heatmaps.view import CONTEXTS_KEY

# The bundled sample's public sizes: observers per stimulus (Heatmaps), recordings per participant (Time series)
# and AOIs per stimulus (Areas of interest, bundled AOIs).
SAMPLE_OBSERVERS = 40
SAMPLE_RECORDINGS = 3
SAMPLE_AOIS = 20
_PAGES = {"hm_": "heatmaps", "ts_": "time_series", "aoi_": "areas_of_interest", "gs_": "gaze_samples"}


def setting(key: str) -> Any:
    """A page's setting as it is now: the live widget, the page's stored settings, or the schema's default."""
    ss = st.session_state
    if key in ss:
        return ss[key]
    page = next(p for pre, p in _PAGES.items() if key.startswith(pre))
    stored = ss.get(settings.SNAPSHOTS, {}).get(page, {})
    if key in stored:
        return stored[key]
    return settings.schema()[key].default


def heatmap_family() -> Family:
    """The Heatmaps page's noise family (its export's release path)."""
    return Family(setting("hm_mech"))


def heatmap() -> AuditCase:
    """The Heatmaps page's mechanism on the bundled stimulus' grid."""
    weight = str(setting("hm_weight"))
    eps = float(setting("hm_eps"))
    fam = Family(setting("hm_mech"))
    method = gaussian_method(GaussianMethod(setting("hm_method")), eps) if fam is Family.GAUSSIAN \
        else GaussianMethod.ANALYTIC
    cell = int(setting("hm_cell"))
    n, h, w = _heatmap_data()
    cap_m = float(setting("hm_m_count" if weight == "count" else "hm_m_duration"))
    cap_total = float(setting(f"hm_c_{weight}")) if setting("hm_use_c") else None
    return heatmap_case(HeatmapAudit(fam, method, eps, float(setting("hm_delta")), n,
                                     math.ceil(h / cell), math.ceil(w / cell), cap_m, cap_total))


def _heatmap_data() -> tuple[int, int, int]:
    """Observers n and the stimulus' height and width in px: those of the data the Heatmaps page last drew in this
    session, else the bundled sample's (n and the size are public under the replace-one relation)."""
    memo = st.session_state.get(CONTEXTS_KEY)
    if memo:
        ctx = next(reversed(memo.values()))[1]
        return ctx.n_observers, ctx.height, ctx.width
    name = str(setting("hm_stimulus"))
    name = name if name in bundled.stimulus_names() else bundled.stimulus_names()[0]
    h, w = bundled.stimulus_image(name).shape[:2]
    return SAMPLE_OBSERVERS, h, w


def _series_plan() -> tuple[Mech, int | None, int, EpsilonPlan]:
    """The Time series page's mechanism, chunk (None for whole-series mechanisms), T and ε plan."""
    mech = Mech(setting("ts_mech"))
    chunk_key = str(setting("ts_chunk"))
    chunk = (int(setting("ts_chunk_free")) if chunk_key == "free" else int(chunk_key)) if mech.info.chunked else None
    length = int(setting("ts_length"))
    plan = epsilon_plan(str(setting("ts_mode")), float(setting("ts_eps")), mech, chunk, length,
                        max(1, len(setting("ts_features"))), SAMPLE_RECORDINGS)
    return mech, chunk, length, plan


def series() -> AuditCase:
    """One invocation of the Time series page's mechanism at its per-invocation ε."""
    mech, chunk, length, plan = _series_plan()
    return series_case(SeriesAudit(mech, plan.per_invocation, int(setting("ts_k")), chunk, length))


def form() -> AuditCase:
    """The Time series page's per-recording release form of the shown feature, at the page's ε per person."""
    *_, plan = _series_plan()
    blocks = max(1, min(int(setting("ts_form_blocks")), int(setting("ts_length"))))
    return form_case(FormAudit(plan.participant_total, blocks, SAMPLE_RECORDINGS))


def _total(key: str) -> float | None:
    """A total cap (0 = none)."""
    v = float(setting(key))
    return v if v > 0 else None


def aoi() -> AuditCase:
    """The AOI page's release: its ε per observer split over the metrics' queries, its bounds."""
    source = str(setting("aoi_source"))
    k = int(setting("aoi_grid_rows")) * int(setting("aoi_grid_cols")) if source == "grid" else SAMPLE_AOIS
    bounds = AoiBounds(max_fixations=int(setting("aoi_max_fix")), max_dwell_s=float(setting("aoi_max_dwell")),
                       max_ttff_s=float(setting("aoi_max_ttff")), max_revisits=int(setting("aoi_max_rev")),
                       max_transitions=int(setting("aoi_max_trans")), max_total_fixations=_total("aoi_total_fix"),
                       max_total_dwell_s=_total("aoi_total_dwell"))
    metrics = tuple(AoiMetric(m) for m in setting("aoi_metrics")) or (AoiMetric.HIT_RATIO,)
    return aoi_case(AoiAudit(float(setting("aoi_epsilon")), metrics, k, bounds))


def kaleido() -> AuditCase:
    """One Kaleido publication at the Gaze samples page's settings."""
    plan = kaleido_plan(epsilon=float(setting("gs_kal_eps")), w=int(setting("gs_kal_w")),
                        t_skip=int(setting("gs_kal_skip")), h=float(setting("gs_kal_h")),
                        r=float(setting("gs_kal_r")), l_thresh=float(setting("gs_kal_l")))
    return kaleido_case(KaleidoAudit(plan))


BUILDERS: dict[str, Callable[[], AuditCase]] = {"Heatmaps": heatmap, "Time series": series,
                                                "Time series (release form)": form, "Areas of interest": aoi,
                                                "Gaze samples (Kaleido)": kaleido}


def cases() -> tuple[list[tuple[str, AuditCase]], list[str]]:
    """The configured cases by page, and a line for each page whose settings the core refused."""
    out, problems = [], []
    for page, build in BUILDERS.items():
        try:
            out.append((page, build()))
        except (ValueError, KeyError) as err:
            problems.append(f"{page}: {err}")
    return out, problems
