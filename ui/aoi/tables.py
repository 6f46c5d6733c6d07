"""Markdown tables of the AOI metrics (no st.dataframe on a slider path), data-derived names through ui.text."""
from __future__ import annotations

import math

import numpy as np

from eyedp_core.aoi.metrics import AoiMetric, MetricResult
from ui.text import md_text

SHORT = {AoiMetric.HIT_RATIO: "hit ratio", AoiMetric.FIXATIONS: "fixations / obs.", AoiMetric.DWELL: "dwell (s / obs.)",
         AoiMetric.TTFF: "TTFF (s, lookers)", AoiMetric.REVISITS: "revisits / obs."}


def number(metric: AoiMetric, v: float) -> str:
    """Value of a metric in, its text in the metric's units out (hit ratio in percentage points)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if math.isinf(v):
        return "∞"
    if metric is AoiMetric.HIT_RATIO:
        return f"{100 * v:.0f} %"
    return f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}"


def pm(metric: AoiMetric, v: float, hw: float) -> str:
    """Value and half-width in, 'v ± hw' in the metric's units out (points for the hit ratio)."""
    if isinstance(v, float) and math.isnan(v):
        return "– (too few lookers)"
    if metric is AoiMetric.HIT_RATIO:
        return f"{100 * v:.0f} % ± {100 * hw:.0f} pts"
    unit = " s" if metric in (AoiMetric.DWELL, AoiMetric.TTFF) else ""
    return f"{number(metric, v)}{unit} ± {number(metric, hw)}{unit}"


def interval(metric: AoiMetric, v: float, low: float, high: float) -> str:
    """Value and interval ends in, 'v [low–high]' in the metric's units out: for an interval that is not
    symmetric (the mean time to first fixation). No value below one noisy looker, no interval where no value in
    the public range fits the noisy sums (either happens; the interval still covers 95 % of releases)."""
    unit = " s" if metric in (AoiMetric.DWELL, AoiMetric.TTFF) else ""
    value = "–" if math.isnan(v) else f"{number(metric, v)}{unit}"
    if math.isnan(low) or math.isnan(high):
        return f"{value} (no value in range fits)"
    if metric is AoiMetric.HIT_RATIO:  # "35 % [0–100 %]"
        return f"{value} [{100 * low:.0f}–{100 * high:.0f} %]"
    return f"{value} [{number(metric, low)}–{number(metric, high)}{unit}]"


def metric_table(results: dict[AoiMetric, MetricResult], *, private: bool) -> str:
    """Results in, one markdown table (AOI rows, metric columns; 'never looked' after the hit ratio) out."""
    ms = [m for m in results if m is not AoiMetric.TRANSITIONS]
    if not ms:
        return "_No per-AOI metric chosen._"
    names = results[ms[0]].names
    head = ["AOI"]
    for m in ms:
        head.append(SHORT[m])
        if m is AoiMetric.HIT_RATIO:
            head.append("never looked")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for i, name in enumerate(names):
        row = [md_text(name)]
        for m in ms:
            r = results[m]
            v, hw = float(r.private[i] if private else r.clean[i]), float(r.half_width[i])
            if private and r.low is not None and r.high is not None:
                row.append(interval(m, v, float(r.low[i]), float(r.high[i])))
            else:
                row.append(pm(m, v, hw) if private else number(m, v))
            if m is AoiMetric.HIT_RATIO and private and r.low is not None and r.high is not None:
                row.append(interval(m, 1.0 - v, 1.0 - float(r.high[i]), 1.0 - float(r.low[i])))
            elif m is AoiMetric.HIT_RATIO:
                row.append(pm(m, 1.0 - v, hw) if private else number(m, 1.0 - v))
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def widths(results: dict[AoiMetric, MetricResult]) -> dict[AoiMetric, float]:
    """Results in, each metric's median 95 % half-width out (the page's one-line summary)."""
    return {m: float(np.median(r.half_width)) for m, r in results.items()}
