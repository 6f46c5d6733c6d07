"""Gather the study's stored ledger, the views' facts and settings, and build the review-board report (HTML)."""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import importlib.metadata
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from eyedp_core import attacks
from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import Ledger
from eyedp_core.dp.store import EventKind
from eyedp_core.report.aoi import ReleasedAois
from eyedp_core.report.chain import report_ledger
from eyedp_core.report.html import PERSON_SETTING, Artefact, ReportInput, build_html
from eyedp_core.settings.codec import encode_json
from ui import settings, state, theme
from ui.share.facts import finished
from ui.share.labels import setting_labels

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
    contexts = state.contexts()  # each entry's own: stored with it by the session that charged it
    out = []
    for i, r in enumerate(state.ledger().releases):
        c = contexts[i] if i < len(contexts) else {}
        out.append(Artefact(release=r, page=c.get("page"), facts=c.get("facts"), settings=c.get("settings")))
    return out


def aoi_releases() -> list[ReleasedAois]:
    """Each AOI export of the session with the 1-based positions of the ledger entries it charged."""
    from eyedp_core.aoi.release import AoiRelease  # here: app start imports no AOI code

    found: dict[int, tuple[AoiRelease, list[int]]] = {}
    for i, c in enumerate(state.contexts(), start=1):
        rel = c.get(state.RELEASED_KEY)
        if isinstance(rel, AoiRelease):
            found.setdefault(id(rel), (rel, []))[1].append(i)
    return [ReleasedAois(rel, tuple(entries)) for rel, entries in found.values()]


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
                   f"above this cap ({when}). Every new release that reads a person at or above the cap is refused.")


def cap_history() -> list[dict[str, Any]]:
    """The study's cap changes, oldest first: time (UTC, to the second), cap, the cap before (None: the study's
    first) and the reason given."""
    led = state.stored()
    if led is None:
        return []
    out = []
    for event in led.cap_history():
        p = event.payload
        out.append({"time": event.time[:19].replace("T", " ") + " UTC", "cap": float(p["epsilon_cap"]),
                    "previous": None if p.get("previous") is None else float(p["previous"]),
                    "reason": str(p.get("reason") or "")})
    return out


def cap_history_rows() -> list[dict[str, str]]:
    """The study's cap changes as table rows in words (Report page)."""
    return [{"When": c["time"], "Cap ε per person": f"{c['cap']:g}",
             "Before": "none (a new study)" if c["previous"] is None else f"{c['previous']:g}",
             "Reason given": c["reason"] or "(none given)"} for c in cap_history()]


def record_download(what: str, data: bytes, release_safe: bool) -> None:
    """Keep a report download in the study's record (what, release-safe or not, the file's SHA-256)."""
    led = state.stored()
    if led is not None:
        led.record(EventKind.REPORT_DOWNLOAD, {"file": what, "release_safe": bool(release_safe),
                                               "sha256": hashlib.sha256(data).hexdigest()})


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
    fig.add_scatter(x=labels, y=list(running), name="running sum, basic composition (upper bound per person)",
                    mode="lines+markers", line=dict(color=theme.INK))
    accountant, delta_cap = state.ledger().accounting()
    if accountant is not Accountant.BASIC:  # the count the study's charges were checked under, beside basic
        zcdp = [Ledger(rel[:i + 1]).worst_case(accountant=accountant, delta_cap=delta_cap).epsilon
                for i in range(len(rel))]
        fig.add_scatter(x=labels, y=zcdp, name=f"running total, zCDP at δ = {delta_cap:.2g} (worst-case person)",
                        mode="lines+markers", line=dict(color=theme.PRIMARY, dash="dot"))
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
    # No participant id in the report: the previewed person is not a setting a board needs.
    values = {k: v for k, v in values.items() if not PERSON_SETTING.search(k)}
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


def report_input(*, with_figures: bool = True, release_safe: bool = True) -> tuple[ReportInput, go.Figure | None]:
    """The session gathered into a ReportInput (a copy: safe to build from another thread) and its figure;
    release_safe leaves out every figure computed on the unprotected data."""
    facts = finished()
    fig = ledger_figure()
    # The releases and the stamp (study, entries, head: what `verify` checks) read at one moment, so a charge by
    # another session in between cannot put a release in the report beyond the head it states.
    ledger, chain = report_ledger(state.ledger())
    inp = ReportInput(ledger=ledger, chain=chain, cap_history=cap_history(),
                      releases_made=state.releases_made(), artefacts=artefacts(), data=data_counts(),
                      config_json=config_document(), version=versions(), epsilon_cap=state.epsilon_cap(),
                      view_facts=facts, attacks=attack_rows(),
                      preview_pages=[PREVIEW_PAGES[p] for p in facts if p in PREVIEW_PAGES],
                      generated=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                      release_safe=release_safe, setting_labels=setting_labels(), aoi_releases=aoi_releases())
    if with_figures:
        inp = with_figure(inp, fig)
    return inp, fig


def with_figure(inp: ReportInput, fig: go.Figure | None) -> ReportInput:
    """Embed the figure with plotly's JavaScript inlined (the file works offline and prints from a browser)."""
    if fig is None:
        return inp
    html = fig.to_html(include_plotlyjs=True, full_html=False, config={"displaylogo": False})
    return dataclasses.replace(inp, figures={"ε per release (interactive)": html})


def report_html(release_safe: bool = True) -> str:
    """The whole self-contained report (release-safe unless asked for the curator's full report)."""
    return build_html(report_input(release_safe=release_safe)[0])


def deferred_report(release_safe: bool = True) -> Callable[[], bytes]:
    """The report as a callable for a one-click download: gathered now, rendered when the button is pressed."""
    inp, fig = report_input(with_figures=False, release_safe=release_safe)
    led = state.stored()

    def build() -> bytes:
        data = build_html(with_figure(inp, fig)).encode()
        if led is not None:  # pressed: the download is an entry of the study's record
            led.record(EventKind.REPORT_DOWNLOAD, {"file": "html", "release_safe": bool(release_safe),
                                                   "sha256": hashlib.sha256(data).hexdigest()})
        return data

    return build


def html_to_pdf(html: str, timeout: float = 90.0) -> bytes | None:
    """The report printed to PDF by headless Chromium where the machine has it (None otherwise or on failure).

    The report never touches the disk: the HTML goes to Chromium and the PDF comes back over its DevTools pipe.
    Chromium gets a fresh empty profile folder of its own (removed at once), so two sessions printing at the same
    time do not share one browser; no report content is written there."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        return None
    try:
        with tempfile.TemporaryDirectory(prefix="eyedp_pdf_") as profile:
            return _print_over_pipe(exe, html, timeout, profile)
    except (OSError, ValueError, KeyError, RuntimeError, subprocess.SubprocessError):
        return None


def _print_over_pipe(exe: str, html: str, timeout: float, profile: str) -> bytes:
    """Chromium with --remote-debugging-pipe (commands on its fd 3, answers on fd 4): set the page's HTML, print it
    and read the PDF from the answer. A shell moves our pipes to fds 3 and 4 (no preexec_fn in a threaded server)."""
    cmd = ["sh", "-c", 'exec "$@" 3<&0 4>&1 0</dev/null 1>/dev/null', "sh", exe, "--headless", "--no-sandbox",
           "--disable-gpu", "--no-first-run", "--disable-background-networking", "--remote-debugging-pipe",
           f"--user-data-dir={profile}", "about:blank"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    pending = b""
    count = 0

    def call(method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        nonlocal pending, count
        count += 1
        msg: dict[str, Any] = {"id": count, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        proc.stdin.write(json.dumps(msg).encode() + b"\0")
        proc.stdin.flush()
        while True:  # answers and events arrive NUL-separated; events have no id
            while b"\0" not in pending:
                if time.monotonic() > deadline:
                    raise RuntimeError("Chromium did not answer in time")
                chunk = proc.stdout.read1(1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed its DevTools pipe")
                pending += chunk
            raw, pending = pending.split(b"\0", 1)
            got = json.loads(raw)
            if got.get("id") == count:
                if "error" in got:
                    raise RuntimeError(str(got["error"]))
                return got["result"]

    try:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        sid = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        frame = call("Page.getFrameTree", session=sid)["frameTree"]["frame"]["id"]
        call("Page.setDocumentContent", {"frameId": frame, "html": html}, session=sid)
        # Let the inlined plotly figure draw before printing.
        call("Runtime.evaluate", {"expression": "new Promise(r => requestAnimationFrame(() => setTimeout(r, 200)))",
                                  "awaitPromise": True}, session=sid)
        data = call("Page.printToPDF", {"printBackground": True, "displayHeaderFooter": False}, session=sid)["data"]
        call("Browser.close")
        return base64.b64decode(data)
    finally:
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
