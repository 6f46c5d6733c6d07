"""Plotly figures of the Gaze-samples view, in the colours of ui/theme.py."""
from __future__ import annotations

import base64
import io

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from PIL import Image

from eyedp_core.dp.registry import Mech
from eyedp_core.gaze.geometry import Geometry
from ui import theme
from ui.gazestream.methods import METHOD_COLORS, METHOD_LABELS, ORIGINAL_COLOR

MAX_POINTS = 2500  # per trace on screen: more is invisible at display size and slows every redraw


def thin(frame: pd.DataFrame, max_points: int = MAX_POINTS) -> pd.DataFrame:
    """Samples -> every n-th row so that at most max_points remain (display only; figures state the full count)."""
    step = max(1, -(-len(frame) // max_points))
    return frame.iloc[::step] if step > 1 else frame


def screen_size(geometry: Geometry, width: int, legend_px: int = 60) -> tuple[int, int]:
    """Screen geometry and a figure width (px) -> (width, height) whose plot area has the screen's aspect ratio."""
    margin_x, margin_y = 80, 60 + legend_px  # template margins (l + r, t + b) and the legend under the plot
    plot_h = (width - margin_x) * geometry.height_px / geometry.width_px
    return width, int(round(min(max(plot_h, 200), 900) + margin_y))


def _screen_axes(fig: go.Figure, geometry: Geometry) -> None:
    """Screen coordinates: y grows downwards, square pixels, the frame is the whole screen."""
    fig.update_yaxes(range=[geometry.height_px, 0], scaleanchor="x", scaleratio=1, constrain="domain",
                     title_text="y (px)")
    fig.update_xaxes(range=[0, geometry.width_px], constrain="domain", title_text="x (px)", mirror=True,
                     showline=True)


def _bands(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Event starts and ends -> x of closed rectangles (s, s, e, e) separated by NaN gaps, for one filled trace."""
    return np.column_stack([start, start, end, end, np.full(len(start), np.nan)]).ravel()


def raw_trace(part: pd.DataFrame, fixations: pd.DataFrame, blinks: pd.DataFrame, who: str) -> go.Figure:
    """One participant's samples in a time window -> x and y (one panel, px) and the pupil (a second panel)
    against time, fixations and blinks shaded.

    Built in one constructor call with the subplot axes written out: make_subplots and per-trace updates
    validated the figure again at every step (30-300 ms per time window, now ~15 ms). x and y share one panel
    (both in px): every panel's axes cost the browser a redraw on each move."""
    rows = 2 if "pupil" in part.columns else 1
    shown = thin(part)
    heights = [0.62, 0.30] if rows == 2 else [1.0]
    data = [go.Scatter(x=shown["t_s"].to_numpy(), y=shown[c].to_numpy(), name=f"{c} (px)", mode="lines",
                       line=dict(color=theme.CATEGORY[i], width=1.2)) for i, c in enumerate(("x", "y"))]
    layout: dict = {"yaxis": dict(domain=[1 - heights[0], 1.0], title=dict(text="x, y (px)")),
                    "xaxis": dict(anchor="y", showticklabels=rows == 1, **({"ticks": ""} if rows == 2 else
                                                                            {"title": dict(text="time (s)")}))}
    if rows == 2:
        data.append(go.Scatter(x=shown["t_s"].to_numpy(), y=shown["pupil"].to_numpy(), name="pupil (mm)",
                               mode="lines", line=dict(color=theme.CATEGORY[2], width=1.2), xaxis="x2",
                               yaxis="y2", showlegend=False))
        layout["yaxis2"] = dict(domain=[0.0, heights[1]], title=dict(text="pupil (mm)"), anchor="x2")
        layout["xaxis2"] = dict(anchor="y2", matches="x", title=dict(text="time (s)"))
    # Fixation and blink bands as ONE filled trace per panel and kind (rectangles separated by gaps), drawn under
    # the lines in each panel's fixed data range: a layout shape per event cost the browser an SVG node each on
    # every threshold move (hundreds per window).
    panels = [("x", "y", shown[["x", "y"]].to_numpy(dtype=float))]
    if rows == 2:
        panels.append(("x2", "y2", shown[["pupil"]].to_numpy(dtype=float)))
    bands = []
    for xa, ya, values in panels:
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        pad = 0.05 * (hi - lo) or 1.0
        lo, hi = lo - pad, hi + pad
        layout["yaxis" if ya == "y" else "yaxis2"]["range"] = [lo, hi]
        for color, evs in (("rgba(0,114,178,0.10)", fixations), ("rgba(213,94,0,0.20)", blinks)):
            if len(evs):
                bands.append(go.Scatter(x=_bands(evs["t_start_s"].to_numpy(), evs["t_end_s"].to_numpy()),
                                        y=np.tile([lo, hi, hi, lo, np.nan], len(evs)), xaxis=xa, yaxis=ya,
                                        fill="toself", fillcolor=color, mode="none", showlegend=False,
                                        hoverinfo="skip"))
    data = bands + data
    layout.update(height=170 * rows + 150, template=theme.TEMPLATE,
                  legend=dict(orientation="h", x=1.0, xanchor="right", y=1.02, yanchor="bottom"),
                  title=f"Raw gaze of {who}: {len(part):,} samples (blue bands = fixations, orange = blinks)")
    return go.Figure(data=data, layout=layout)


def raw_scanpath(part: pd.DataFrame, fixations: pd.DataFrame, geometry: Geometry,
                 width: int = 720) -> go.Figure:
    """Samples and fixations of a time window -> scanpath on the screen (marker size = fixation duration), sized
    `width` px wide with the screen's aspect ratio (drawn at that size, not stretched into a band)."""
    sp = go.Figure()
    shown = thin(part)
    sp.add_scatter(x=shown["x"], y=shown["y"], mode="lines", line=dict(color="rgba(107,119,133,0.6)", width=1),
                   name="raw samples")
    sp.add_scatter(x=fixations["x"], y=fixations["y"], mode="markers+lines", name="fixations",
                   marker=dict(size=(fixations["duration_ms"] / 25).clip(4, 30), color=theme.CATEGORY[0],
                               opacity=0.7, line=dict(color="white", width=1)),
                   line=dict(color=theme.CATEGORY[0], width=1))
    _screen_axes(sp, geometry)
    w, h = screen_size(geometry, width)
    sp.update_layout(width=w, legend=dict(orientation="h", y=-0.12, yanchor="top"))
    return theme.style(sp, h, f"Scanpath on the {geometry.width_px} × {geometry.height_px} px screen "
                              "(marker size = fixation duration)")


def image_uri(image: np.ndarray, max_width: int = 640) -> str:
    """RGB array -> a JPEG data URI no wider than max_width (for a Plotly layout image). Small on purpose: the
    URI travels with the scanpath figure on every slider move, and the picture is drawn faded behind it."""
    im = Image.fromarray(image)
    if im.width > max_width:
        im = im.resize((max_width, round(im.height * max_width / im.width)))
    buf = io.BytesIO()
    im.convert("RGB").save(buf, format="JPEG", quality=70)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


def compare_scanpath(original: pd.DataFrame, protected: pd.DataFrame, method: Mech, geometry: Geometry,
                     title: str, stimulus: str | None = None, width: int = 820) -> go.Figure:
    """Trailing samples of the original and the protected stream -> both scanpaths over the screen (or stimulus)."""
    fig = go.Figure()
    if stimulus is not None:
        fig.add_layout_image(dict(source=stimulus, xref="x", yref="y", x=0, y=0, sizex=geometry.width_px,
                                  sizey=geometry.height_px, sizing="stretch", layer="below", opacity=0.55))
    for frame, name, col, lw in ((original, "original", ORIGINAL_COLOR, 1.2),
                                    (protected, METHOD_LABELS[method], METHOD_COLORS[method], 1.6)):
        # Lines only: one SVG path per stream (markers cost a node each on every redraw); the ring marks "now".
        fig.add_scatter(x=frame["x"], y=frame["y"], mode="lines", name=name,
                        line=dict(color=theme.rgba(col, 0.75) if col.startswith("#") else col, width=lw))
        last = frame[["x", "y"]].dropna().tail(1)
        if len(last):
            fig.add_scatter(x=last["x"], y=last["y"], mode="markers", showlegend=False, hoverinfo="skip",
                            marker=dict(size=14, color=col, symbol="circle-open", line=dict(width=3)))
    _screen_axes(fig, geometry)
    w, h = screen_size(geometry, width)
    fig.update_layout(width=w, legend=dict(orientation="h", y=-0.12, yanchor="top"))
    return theme.style(fig, h, title)


def envelope(t: np.ndarray, y: np.ndarray, bins: int = 1200) -> tuple[np.ndarray, np.ndarray]:
    """Series -> at most 2·bins points: the lowest and highest value of each of `bins` equal runs of samples, so
    that a thinned line still reaches every peak (display only: a budget line must show its true maxima)."""
    if len(t) <= 2 * bins:
        return t, y
    starts = np.linspace(0, len(t), bins, endpoint=False).astype(int)
    lo, hi = np.minimum.reduceat(y, starts), np.maximum.reduceat(y, starts)
    return np.repeat(t[starts], 2), np.column_stack([lo, hi]).ravel()


def budget_chart(t: np.ndarray, window: np.ndarray, new_point: np.ndarray, epsilon: float, w: int,
                 tests_share: float) -> go.Figure:
    """Times, budget of the w-sample window ending at each sample, publication flags, ε -> the budget chart."""
    fig = go.Figure()
    t_line, y_line = envelope(t, window)
    fig.add_scatter(x=t_line, y=y_line, mode="lines", name=f"spent in the last {w} samples",
                    line=dict(color=METHOD_COLORS[Mech.KALEIDO], width=1.5))
    fig.add_hline(y=epsilon, line=dict(color=theme.DANGER, dash="dash"),
                  annotation_text=f"ε = {epsilon:g} per window", annotation_position="top left")
    fig.add_hline(y=tests_share, line=dict(color=theme.MUTED, dash="dot"),
                  annotation_text="tests' share ε/h", annotation_position="bottom left")
    pub_t = t[new_point]
    fig.add_scatter(x=pub_t, y=window[new_point], mode="markers", name="new point published",
                    marker=dict(size=5, color=theme.PRIMARY))
    fig.update_yaxes(title_text="ε spent in window", rangemode="tozero")
    fig.update_xaxes(title_text="time (s)")
    # Legend above the plot, right-aligned: under it, it covered the time axis title.
    fig.update_layout(legend=dict(orientation="h", x=1.0, xanchor="right", y=1.02, yanchor="bottom"))
    return theme.style(fig, 340, "Kaleido: budget spent in every sliding window (never above ε)")


def tries_chart(records: pd.DataFrame, max_tries: int) -> go.Figure:
    """PD records -> how many draws each fixation needed (published) or used up (dropped)."""
    fig = go.Figure()
    for passed, name, col in ((True, "published", theme.OK), (False, "dropped", theme.DANGER)):
        sub = records[records["passed"] == passed]
        fig.add_histogram(x=sub["tries"], name=f"{name} ({len(sub):,})", marker_color=col,
                          xbins=dict(start=0.5, end=max_tries + 0.5, size=1))
    fig.update_layout(barmode="stack", legend=dict(orientation="h", y=-0.25))
    fig.update_xaxes(title_text="draws used per fixation")
    fig.update_yaxes(title_text="fixations")
    return theme.style(fig, 300, "Plausible deniability: draws per fixation")
