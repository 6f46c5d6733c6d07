"""Gather the session's ledger, the views' facts and settings, and build the review-board report (HTML)."""
from __future__ import annotations

import dataclasses
import datetime as dt
import importlib.metadata
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eyedp_core import attacks
from eyedp_core.dp.accounting import Ledger
from eyedp_core.report import Artefact, ReportInput, build_html
from eyedp_core.settings import encode_json
from ui import settings, state, theme
from ui.share import facts as share_facts

PREVIEW_PAGES = {"heatmaps": "Heatmaps", "time_series": "Time series"}  # pages whose figures are seeded previews


def data_counts() -> dict[str, dict[str, Any]]:
    """Each selected data source -> counts only (rows, people, columns), never values."""
    out: dict[str, dict[str, Any]] = {}
    for kind, spec in state.KINDS.items():
        ds = state.current(kind)
        frame = ds.frame
        if frame is None:
            continue
        counts: dict[str, Any] = {"rows": int(len(frame))}
        for col, plural in (("participant", "participants"), ("observer", "observers"), ("task", "tasks"),
                            ("stimulus", "stimuli")):
            if col in frame.columns:
                counts[plural] = int(frame[col].nunique())
        counts["origin"] = "bundled sample" if ds.source == "sample" else "upload (kept in memory only)"
        out[f"{spec['label']}: {ds.name}"] = counts
    return out


def attack_rows() -> list[dict[str, Any]]:
    """The session's last attack run, summarised: accuracy and chance per task, mechanism, ε, scenario."""
    kept = st.session_state.get("atk_rows")
    if not kept or not kept[2]:
        return []
    table = attacks.summarise(pd.DataFrame(kept[2]))
    return [{"task": r["task"], "mechanism": r["mechanism"] or "clean", "epsilon": r["epsilon"],
             "scenario": r["train_on"], "accuracy": float(r["accuracy"]), "chance": float(r["chance"])}
            for r in table.to_dict("records")]


def artefacts() -> list[Artefact]:
    """Ledger entries with what their view showed when they were charged (None where unknown)."""
    contexts = st.session_state.get(state.CONTEXT_KEY, [])
    out = []
    for i, r in enumerate(state.ledger().releases):
        c = contexts[i] if i < len(contexts) else {}
        out.append(Artefact(release=r, page=c.get("page"), facts=c.get("facts"), settings=c.get("settings")))
    return out


def cap_status(spent: float, cap: float) -> tuple[bool, str]:
    """Worst-case ε spent and the cap -> (within the cap, what happened in words). Every charge is checked against
    the cap in force, so a ledger above the cap means the cap was lowered after those releases: the text names
    the cap they were charged under."""
    if spent <= cap:
        return True, (f"Cap: ε ≤ {cap:g} per person. Spent so far: ε = {spent:.4g} (worst-case person), so "
                      f"ε = {cap - spent:.4g} is left; any release that would exceed the cap is refused.")
    earlier = [c for c in state.caps_at_charge() if c is not None and c > cap]
    when = (f"the releases were charged under a cap of up to ε ≤ {max(earlier):g}, lowered since to {cap:g}"
            if earlier else f"the releases were charged under a higher cap than the present {cap:g}")
    return False, (f"Cap: ε ≤ {cap:g} per person. Spent so far: ε = {spent:.4g} (worst-case person): the ledger is "
                   f"above this cap ({when}). Every new release is refused.")


def ledger_figure() -> go.Figure | None:
    """ε charged per release and the running total per person, with the cap (None with an empty ledger)."""
    rel = state.ledger().releases
    if not rel:
        return None
    labels = [f"{i + 1}. {r.view}" for i, r in enumerate(rel)]
    eps = [r.epsilon_total for r in rel]
    running = pd.Series(eps).cumsum()  # an upper bound: releases about different people do not really add up
    fig = go.Figure()
    fig.add_bar(x=labels, y=eps, name="ε charged by the release", marker_color=theme.PRIMARY)
    fig.add_scatter(x=labels, y=list(running), name="running sum (upper bound per person)", mode="lines+markers",
                    line=dict(color=theme.INK))
    cap = state.epsilon_cap()
    if cap is not None:
        fig.add_hline(y=cap, line_dash="dash", line_color=theme.DANGER, annotation_text=f"cap ε ≤ {cap:g}")
    fig.update_layout(title="Privacy loss per release and running total", yaxis_title="ε per person",
                      height=340, margin=dict(l=50, r=20, t=50, b=40), template="plotly_white",
                      legend=dict(orientation="h", y=-0.25))
    return fig


def config_document() -> str:
    """The last settings of every page opened in this session (all of each page's settings) as one JSON."""
    snaps = st.session_state.get(settings.SNAPSHOTS, {})
    sch = settings.schema()
    values: dict[str, Any] = {}
    for page, snap in snaps.items():
        values.update(sch.defaults(k for k in sch.keys() if k.startswith(settings.prefixes(page))))
        values.update(snap)
    return encode_json(values, sch, page="report", extra={"pages_opened": sorted(snaps)})


def versions() -> dict[str, str]:
    """Software versions that determine the numbers."""
    out = {}
    for name in ("eyedp", "opendp", "numpy", "scipy", "streamlit", "plotly"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "0.1.0 (source tree)" if name == "eyedp" else "not installed"
    return out


def report_input(*, with_figures: bool = True) -> tuple[ReportInput, go.Figure | None]:
    """The session gathered into a ReportInput (a copy: safe to build from another thread) and its figure."""
    facts = share_facts.finished()
    fig = ledger_figure()
    inp = ReportInput(ledger=Ledger(state.ledger().releases), artefacts=artefacts(), data=data_counts(),
                      config_json=config_document(), version=versions(), epsilon_cap=state.epsilon_cap(),
                      view_facts=facts, attacks=attack_rows(),
                      preview_pages=[PREVIEW_PAGES[p] for p in facts if p in PREVIEW_PAGES],
                      generated=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    if with_figures:
        inp = with_figure(inp, fig)
    return inp, fig


def with_figure(inp: ReportInput, fig: go.Figure | None) -> ReportInput:
    """Embed the figure with plotly's JavaScript inlined (the file works offline and prints from a browser)."""
    if fig is None:
        return inp
    html = fig.to_html(include_plotlyjs=True, full_html=False, config={"displaylogo": False})
    return dataclasses.replace(inp, figures={"ε per release (interactive)": html})


def report_html() -> str:
    """The whole self-contained report."""
    return build_html(report_input()[0])


def deferred_report() -> Callable[[], bytes]:
    """The report as a callable for a one-click download: gathered now, rendered when the button is pressed."""
    inp, fig = report_input(with_figures=False)
    return lambda: build_html(with_figure(inp, fig)).encode()


def html_to_pdf(html: str, timeout: float = 90.0) -> bytes | None:
    """The report printed to PDF by headless Chromium where the machine has it (None otherwise or on failure).

    The HTML (counts only, no data values) is written to a private temporary folder that is removed at once."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        return None
    with tempfile.TemporaryDirectory(prefix="eyedp_report_") as tmp:
        src, out = Path(tmp) / "report.html", Path(tmp) / "report.pdf"
        src.write_text(html, encoding="utf-8")
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
               "--no-pdf-header-footer", f"--print-to-pdf={out}", src.as_uri()]
        try:
            subprocess.run(cmd, capture_output=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return out.read_bytes() if out.exists() and out.stat().st_size > 0 else None
