"""Build the review-board report as one self-contained HTML page (works offline, prints to PDF).

Pure string building: figures arrive as ready HTML snippets (the UI renders them with plotly's JavaScript
inlined), every number is read from the ledger and the facts the views computed, never recomputed here.
Each section has a fixed id (SECTIONS) so a test can find it.
"""
from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eyedp_core.dp.accounting import COMPOSITION_RULE, PARTICIPANT_UNITS, Ledger, Release, group_privacy
from eyedp_core.report.tables import person_table

__all__ = ["SECTIONS", "Artefact", "ReportInput", "build_html", "epsilon_reading"]

SECTIONS = {
    "summary": "Summary",
    "data": "Data used",
    "unit": "Unit of protection and threat models",
    "artefacts": "Released artefacts",
    "composition": "Total privacy loss per person",
    "utility": "Utility and attacks at the chosen settings",
    "reading": "What ε and δ mean",
    "caveats": "Caveats",
    "reproduce": "Reproduce this report",
}

THREAT_MODELS = (
    ("Re-identification", "An attacker who holds earlier, clean recordings of the participants tries to name the "
     "person behind a released recording or map (Steil et al.'s first threat model)."),
    ("Attribute inference", "An attacker trains on other people's data to infer a private attribute (gender, task "
     "or document read) from a released recording (Steil et al.'s second threat model)."),
    ("Difference / membership", "An attacker who knows everyone but one person compares releases with and without "
     "that person (the neighbouring datasets of differential privacy)."),
)

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1b2430;max-width:1000px;margin:24px auto;
padding:0 20px;line-height:1.45}
h1{color:#1f5f8b;margin-bottom:4px}h2{color:#1f5f8b;border-bottom:2px solid #e3e8ee;padding-bottom:3px;margin-top:28px}
table{border-collapse:collapse;width:100%;margin:8px 0 14px;font-size:0.9em}
th,td{border:1px solid #d5dbe2;padding:4px 7px;text-align:left;vertical-align:top}
th{background:#f2f5f8}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.headline{font-size:1.15em;background:#eef5fb;border-left:5px solid #1f5f8b;padding:10px 14px}
.warn{background:#fff6e5;border-left:5px solid #d98c00;padding:8px 12px;margin:6px 0}
.bad{background:#fdecea;border-left:5px solid #c0392b;padding:8px 12px;margin:6px 0}
.muted{color:#6b7785;font-size:0.9em}code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.85em}
pre{background:#f6f8fa;border:1px solid #e3e8ee;padding:10px;white-space:pre-wrap;word-break:break-word}
.artefact{border:1px solid #d5dbe2;border-radius:6px;padding:8px 14px;margin:10px 0;break-inside:avoid}
.fig{break-inside:avoid;margin:8px 0}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}.artefact,.fig,table{break-inside:avoid}
.noprint{display:none}}
"""


@dataclass(frozen=True)
class Artefact:
    """One ledger entry with the page it came from, that page's settings and what it showed when charged."""

    release: Release
    page: str | None = None
    facts: Mapping[str, Any] | None = None
    settings: Mapping[str, Any] | None = None


@dataclass
class ReportInput:
    """Everything the report states; the UI gathers it from the session."""

    ledger: Ledger
    artefacts: Sequence[Artefact]
    data: Mapping[str, Mapping[str, Any]]  # source -> counts (never the data)
    config_json: str
    version: Mapping[str, str]
    epsilon_cap: float | None = None
    view_facts: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # page -> facts at current settings
    attacks: Sequence[Mapping[str, Any]] = ()  # rows: task, mechanism, epsilon, accuracy, chance
    figures: Mapping[str, str] = field(default_factory=dict)  # caption -> HTML snippet
    preview_pages: Sequence[str] = ()
    generated: str = ""


def _e(x: Any) -> str:
    return html.escape(str(x))


def fmt(v: Any) -> str:
    """Number -> compact text (∞ for infinity); other values as text."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if math.isinf(v):
        return "∞"
    if math.isnan(v):
        return "–"
    if v == 0:
        return "0"
    if abs(v) < 1e-3 or abs(v) >= 1e6:
        return f"{v:.3e}"
    return f"{v:.4g}"


def _table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]]) -> str:
    head = "".join(f"<th>{_e(label)}</th>" for _, label in columns)
    body = []
    for r in rows:
        cells = []
        for key, _ in columns:
            v = r.get(key, "")
            cls = ' class="num"' if isinstance(v, (int, float)) and not isinstance(v, bool) else ""
            cells.append(f"<td{cls}>{_e(fmt(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def epsilon_reading(epsilon: float, delta: float) -> str:
    """ε and δ in, their plain-language reading (the e^ε bound on any conclusion about one person) out."""
    if math.isinf(epsilon):
        return ("ε = ∞: there is no differential-privacy guarantee; what can be learned about one person is not "
                "bounded.")
    bound = math.exp(epsilon) if epsilon < 700 else float("inf")
    prior = 0.5
    post = prior * bound / (prior * bound + (1 - prior)) if math.isfinite(bound) else 1.0
    text = (f"ε = {fmt(epsilon)} means that whether or not any one person's data was used changes the probability "
            f"of any outcome, and so of any conclusion drawn from the release, by at most a factor e^ε = "
            f"{fmt(bound)}. An attacker who thought a fact about a person was 50 % likely can be at most "
            f"{100 * post:.4g} % sure after seeing the release.")
    if delta > 0:
        text += (f" δ = {fmt(delta)} is the probability with which this bound may fail outright; it should be much "
                 "smaller than 1/n (one over the number of people).")
    else:
        text += " δ = 0: the bound holds without exception (pure ε-differential privacy)."
    return text


def _section(key: str, body: str) -> str:
    return f'<section id="{key}"><h2>{_e(SECTIONS[key])}</h2>{body}</section>'


def _summary(inp: ReportInput) -> str:
    eps, dlt = inp.ledger.total()
    n = len(inp.ledger.releases)
    cap = (f" The user-set cap is ε ≤ {fmt(inp.epsilon_cap)} per person; releases that would exceed it are refused."
           if inp.epsilon_cap is not None else " No cap on ε per person was set.")
    if n == 0:
        head = ("Nothing has been released in this session yet: the ledger is empty. The sections below describe the "
                "views at their current settings (previews, not releases).")
    else:
        head = (f"Worst-case total privacy loss for any one person after composing all {n} release(s): "
                f"<b>ε = {_e(fmt(eps))}</b>, <b>δ = {_e(fmt(dlt))}</b>.")
    return f'<p class="headline">{head}{_e(cap)}</p><p>{_e(COMPOSITION_RULE)}</p>'


def _data(inp: ReportInput) -> str:
    if not inp.data:
        return "<p>No data was read.</p>"
    rows = [{"source": src, "what": ", ".join(f"{k}: {fmt(v)}" for k, v in counts.items())}
            for src, counts in inp.data.items()]
    return ("<p>Counts only; no recorded value appears in this report.</p>"
            + _table(rows, [("source", "Data source"), ("what", "Counts")]))


def _unit(inp: ReportInput) -> str:
    units = sorted({r.unit for r in inp.ledger.releases}) or ["participant"]
    lines = []
    for u in units:
        if u == "observer":
            lines.append("<li><b>observer</b> (Heatmaps): neighbouring datasets differ by replacing one observer's "
                         "whole, capped gaze map on a stimulus.</li>")
        elif u == "participant":
            lines.append("<li><b>participant</b>: neighbouring datasets differ by replacing everything one person "
                         "contributed (all their recordings).</li>")
        else:
            lines.append(f"<li><b>{_e(u)}</b>: protects one {_e(u)} only, <i>not</i> the whole person; the person's "
                         "total is the sum over all their units (see Total privacy loss).</li>")
    threats = "".join(f"<li><b>{_e(t)}</b>: {_e(d)}</li>" for t, d in THREAT_MODELS)
    return f"<p>Units of protection used:</p><ul>{''.join(lines)}</ul><p>Threat models considered:</p><ul>{threats}</ul>"


def _artefact(i: int, a: Artefact) -> str:
    r = a.release
    rows = [{"k": "view", "v": r.view}, {"k": "mechanism", "v": r.mechanism},
            {"k": "unit of protection", "v": r.unit}, {"k": "ε per invocation", "v": r.epsilon},
            {"k": "δ per invocation", "v": r.delta}, {"k": "invocations on one person", "v": r.count},
            {"k": "ε charged per person (ε × invocations)", "v": r.epsilon_total},
            {"k": "δ charged per person", "v": r.delta_total},
            {"k": "sensitivity", "v": r.sensitivity_type},
            {"k": "people covered", "v": "everyone" if r.participants is None else f"{len(r.participants)} named"}]
    out = [f'<div class="artefact"><h3>{i}. {_e(r.label)}</h3>',
           _table(rows, [("k", "Item"), ("v", "Value")])]
    f = a.facts or {}
    sens = f.get("sensitivity")
    if sens:
        parts = [f"{k} = {fmt(v)}" for k, v in sens.items() if isinstance(v, (int, float))]
        out.append(f"<p><b>Sensitivity</b>: {_e('; '.join(parts))}. <b>How obtained</b>: {_e(sens.get('how', ''))}</p>")
        for k in ("L1 formula", "L2 formula"):
            if sens.get(k):
                out.append(f"<p class='muted'>{_e(k)}: <code>{_e(sens[k])}</code></p>")
    cal = f.get("calibration")
    if cal:
        name = "σ (standard deviation)" if cal["mechanism"] == "gaussian" else "b (Laplace scale)"
        title = f.get("calibration_title", "")
        std = "" if cal["mechanism"] == "gaussian" else f", standard deviation {_e(fmt(cal['std']))}"
        export = f.get("export_scale")
        export_txt = (f" The export itself draws with {_e(name.split(' ')[0])} = {_e(fmt(export))} (the smallest "
                      "value OpenDP's own accounting certifies for this ε and δ)."
                      if export is not None and abs(export - cal["scale"]) > 1e-9 * cal["scale"] else "")
        out.append(f"<p><b>Noise scale</b>{(' — ' + _e(title)) if title else ''}: {_e(cal['mechanism'])} "
                   f"({_e(cal['method'])}), {_e(name)} = <b>{_e(fmt(cal['scale']))}</b>{std}, for "
                   f"ε = {_e(fmt(cal['epsilon']))}, δ = {_e(fmt(cal['delta']))}, "
                   f"sensitivity {_e(fmt(cal['sensitivity']))}.{export_txt}</p>"
                   f"<p class='muted'>Formula: <code>{_e(cal['formula_tex'])}</code><br>Numbers: "
                   f"<code>{_e(cal['plugged_tex'])}</code></p>")
        if not cal.get("valid", True):
            out.append(f"<p class='bad'>This calibration does not give the stated guarantee. {_e(cal.get('note', ''))}</p>")
        elif cal.get("note"):
            out.append(f"<p class='muted'>{_e(cal['note'])}</p>")
    if not f:
        out.append("<p class='muted'>The view did not record its calibration with this entry (recorded before the "
                   "view was opened in this session, or by a view without one).</p>")
    if a.settings:
        shown = ", ".join(f"{k} = {v}" for k, v in sorted(a.settings.items()))
        out.append(f"<p class='muted'>Settings when released: <code>{_e(shown)}</code></p>")
    out.append("</div>")
    return "".join(out)


def _artefacts(inp: ReportInput) -> str:
    if not inp.artefacts:
        return "<p>No artefact has been released or recorded yet.</p>"
    return "".join(_artefact(i + 1, a) for i, a in enumerate(inp.artefacts))


def _composition(inp: ReportInput) -> str:
    table = person_table(inp.ledger, inp.epsilon_cap)
    if table.empty:
        return "<p>Nothing to compose yet.</p>"
    out = [_table(table.to_dict("records"), [(c, c) for c in table.columns])]
    out.append("<p><b>Correlation-aware estimate.</b></p><ul>")
    for a in inp.artefacts:
        r = a.release
        if r.unit in PARTICIPANT_UNITS:
            out.append(f"<li>{_e(r.label)}: the unit is the whole {_e(r.unit)}, so correlation inside one person's "
                       f"data is already covered: ε = {_e(fmt(r.epsilon_total))}. Assumption: people are "
                       "independent of each other.</li>")
        elif math.isfinite(r.epsilon):
            g_eps, g_delta = group_privacy(r.epsilon, r.delta, r.count)
            out.append(f"<li>{_e(r.label)}: ε = {_e(fmt(r.epsilon))} protects one {_e(r.unit)}; if all "
                       f"{r.count} {_e(r.unit)}s of a person are fully correlated (worst case, no assumption on the "
                       f"correlation), the person's loss is the group bound ε = {_e(fmt(g_eps))}, "
                       f"δ = {_e(fmt(g_delta))}.</li>")
        else:
            out.append(f"<li>{_e(r.label)}: no guarantee (ε = ∞).</li>")
    out.append("</ul>")
    for page, f in inp.view_facts.items():
        if f.get("correlation"):
            out.append(f"<p class='muted'><b>{_e(f.get('view', page))}</b>: {_e(f['correlation'])}</p>")
        if f.get("bounds"):
            out.append(_table(f["bounds"], [("scope", "Scope"), ("epsilon", "ε"), ("delta", "δ"), ("kind", "Kind")]))
    return "".join(out)


def _utility(inp: ReportInput) -> str:
    out = []
    for page, f in inp.view_facts.items():
        util = f.get("utility")
        if util:
            rows = [{"metric": k, "value": v} for k, v in util.items()]
            pv = " (seeded preview at the chosen settings)" if page in inp.preview_pages else ""
            out.append(f"<p><b>{_e(f.get('view', page))}</b>{_e(pv)}</p>"
                       + _table(rows, [("metric", "Utility metric"), ("value", "Value")]))
    if inp.attacks:
        out.append("<p><b>Attacks</b> (accuracy against chance)</p>" + _table(
            inp.attacks, [("task", "Task"), ("mechanism", "Mechanism"), ("epsilon", "ε"), ("scenario", "Scenario"),
                          ("accuracy", "Accuracy"), ("chance", "Chance")]))
    for caption, snippet in inp.figures.items():
        out.append(f'<div class="fig"><p class="muted">{_e(caption)}</p>{snippet}</div>')
    if not out:
        return "<p>No view has computed utility or attack figures in this session yet.</p>"
    return "".join(out)


def _reading(inp: ReportInput) -> str:
    eps, dlt = inp.ledger.total()
    parts = [f"<p>{_e(epsilon_reading(eps, dlt))}</p>"] if inp.ledger.releases else []
    parts.append("<p>Reference points: ε = 0.1 → factor 1.105; ε = 1 → 2.72; ε = 3 → 20.1; ε = 10 → 22,026. "
                 "Above ε ≈ 10 the bound says little about any one person.</p>")
    return "".join(parts)


def _caveats(inp: ReportInput) -> str:
    items = list(inp.ledger.warnings())
    for page, f in inp.view_facts.items():
        for what in f.get("data_derived", []):
            items.append(f"{f.get('view', page)}: {what} — read off the private data; the stated ε does not cover it.")
    if any(r.unit not in PARTICIPANT_UNITS for r in inp.ledger.releases) or "time_series" in inp.view_facts:
        items.append("Temporal correlation: consecutive windows and chunks of one recording are strongly correlated; "
                     "only participant-level totals protect the person whatever the correlation.")
    if inp.preview_pages:
        items.append("Preview mode: figures and utility numbers of " + ", ".join(inp.preview_pages) + " come from "
                     "seeded floating-point numpy noise, which is not a private release (its low bits and seed leak); "
                     "only exports drawn by OpenDP's samplers are releases.")
    items = list(dict.fromkeys(items))
    if not items:
        return "<p>No caveat applies to the releases in this ledger.</p>"
    return "".join(f'<p class="warn">{_e(w)}</p>' for w in items)


def _reproduce(inp: ReportInput) -> str:
    ver = ", ".join(f"{k} {v}" for k, v in inp.version.items())
    return (f"<p>Software: {_e(ver)}. Generated {_e(inp.generated)}.</p>"
            "<p>Load this configuration on any EyeDP page (<i>Share and reproduce → Load settings</i>) to reopen the "
            f"same views:</p><pre>{_e(inp.config_json)}</pre>")


def build_html(inp: ReportInput) -> str:
    """ReportInput in, the whole report as one HTML document (no external resources) out."""
    body = [_section("summary", _summary(inp)), _section("data", _data(inp)), _section("unit", _unit(inp)),
            _section("artefacts", _artefacts(inp)), _section("composition", _composition(inp)),
            _section("utility", _utility(inp)), _section("reading", _reading(inp)),
            _section("caveats", _caveats(inp)), _section("reproduce", _reproduce(inp))]
    return ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>EyeDP privacy report</title><style>{_CSS}</style></head><body>"
            "<h1>EyeDP privacy report</h1><p class='muted'>For a review board: what was released, under which "
            "guarantee, and what it costs in utility.</p>" + "".join(body) + "</body></html>")
