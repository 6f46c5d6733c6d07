"""Build the review-board report as one self-contained HTML page (works offline, prints to PDF).

Pure string building: figures arrive as ready HTML snippets (the UI renders them with plotly's JavaScript
inlined), every number is read from the ledger and the facts the views computed, never recomputed here.
Each section has a fixed id (SECTIONS) so a test can find it.
"""
from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.accounting import COMPOSITION_RULE, PARTICIPANT_UNITS, Ledger, Release, group_privacy
from eyedp_core.dp.registry import Family
from eyedp_core.report.aoi import ReleasedAois, aoi_clean_html, aoi_section_html
from eyedp_core.report.chain import LedgerStamp, seal, stamp_html, stamp_meta, stamp_of
from eyedp_core.report.formula import tex_to_html
from eyedp_core.report.markup import esc, fmt, table
from eyedp_core.report.tables import person_table

__all__ = ["SECTIONS", "Artefact", "ReportInput", "build_html", "epsilon_reading"]

SECTIONS = {
    "verdict": "Verdict in plain words",
    "summary": "Summary",
    "data": "Data used",
    "unit": "Unit of protection and threat models",
    "artefacts": "Released artefacts",
    "aois": "Areas of interest",
    "composition": "Total privacy loss per person",
    "reading": "What ε and δ mean",
    "caveats": "Caveats",
    "unprotected": "For the curator only: figures computed on the unprotected data",
    "reproduce": "Reproduce this report",
}
# Settings that name one person (the previewed participant or stream): never written into the report.
PERSON_SETTING = re.compile(r"participant|observer|_who\b|_person|_stream\b")
UNPROTECTED_LABEL = ("NOT PROTECTED — computed on the private data for the curator's eyes; these figures are not "
                     "covered by any ε and must not leave the curator's hands.")

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
.muted{color:#6b7785;font-size:0.9em}.math{font-style:italic}
.curator{border:3px dashed #c0392b;padding:4px 14px;margin:10px 0}.verdict li{margin:4px 0}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:0.85em}
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
    # True: the release-safe report, which leaves out every figure computed on the unprotected data.
    release_safe: bool = False
    setting_labels: Mapping[str, str] = field(default_factory=dict)  # setting key -> its name in words
    aoi_releases: Sequence[ReleasedAois] = ()  # each AOI export with the ledger entries it charged
    # Where the report stands in the stored ledger; None: read from `ledger` when it is a StoredLedger.
    chain: LedgerStamp | None = None
    # Every change of the study's cap, oldest first: {"time": UTC text, "cap": float, "previous": float | None,
    # "reason": text}.
    cap_history: Sequence[Mapping[str, Any]] = ()
    # Releases as the user made them (one AOI export with three noisy sums is one); None: one per ledger entry.
    releases_made: int | None = None




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


# Above this total per person the verdict says "no meaningful protection" (docs/PRIVACY_MODEL.md §0.6): e^10 ≈
# 22,000, so an attacker 50 % sure of a fact about a person can end up more than 99.99 % sure.
NO_MEANINGFUL_PROTECTION = 10.0


def protection_words(epsilon: float) -> str:
    """A total ε per person -> what it means in words: the 50 % attacker's best certainty after the releases, and
    "no meaningful protection" above NO_MEANINGFUL_PROTECTION."""
    if math.isinf(epsilon):
        return "There is no differential-privacy guarantee: no meaningful protection."
    post = 1.0 / (1.0 + math.exp(-epsilon)) if epsilon < 700 else 1.0  # 50 % prior, odds times e^ε
    sure = (f"can be at most {100 * post:.6g} % sure" if post < 0.999999
            else "can become all but certain (over 99.9999 % sure)")
    text = f"An attacker who thought a fact about a person 50 % likely {sure} after the releases"
    if epsilon > NO_MEANINGFUL_PROTECTION:
        return (f"{text}: above ε = {fmt(NO_MEANINGFUL_PROTECTION)} per person this is no meaningful protection.")
    return text + "."


def _section(key: str, body: str) -> str:
    return f'<section id="{key}"><h2>{esc(SECTIONS[key])}</h2>{body}</section>'


# What one observer's data is in each view that protects observers: the verdict names the views actually released.
_OBSERVER_DATA = {"Heatmaps": "whole gaze map on a stimulus", "Areas of interest": "fixations on a stimulus's AOIs"}

_WHO = {
    "observer": "each observer's whole gaze map on a stimulus (Heatmaps)",
    "participant": "each participant, everything they contributed (all features, chunks and recordings)",
    "w-event": "each gaze stream per window of samples (Kaleido); the person-level bound is charged",
}


def _who(unit: str, releases: Sequence[Release]) -> str:
    """A unit of protection and the ledger's releases -> who is protected in words, naming the views whose
    releases use that unit (an AOI export protects observers as Heatmaps does, with other data)."""
    if unit != "observer":
        # The ledger charges a sub-person unit's ε once per unit of the person: the person is protected by the sum.
        return _WHO.get(unit, f"each participant, by the sum of ε over all their {unit}s (ε per {unit} times their "
                              f"number of {unit}s is what is charged per person)")
    views = list(dict.fromkeys(r.view for r in releases if r.unit == unit))
    parts = [f"{_OBSERVER_DATA.get(v, 'data')} ({v})" for v in views]
    return "each observer's " + " and ".join(parts) if parts else _WHO[unit]


def _made(inp: ReportInput) -> str:
    """How many releases the ledger holds, as the user made them, with the entries when they differ."""
    entries = len(inp.ledger.releases)
    made = entries if inp.releases_made is None else int(inp.releases_made)
    return f"{made} release(s)" + (f" ({entries} ledger entries)" if made != entries else "")


def _raises(inp: ReportInput) -> list[Mapping[str, Any]]:
    """The cap changes that raised the cap (a study's first cap raises nothing)."""
    return [c for c in inp.cap_history if c.get("previous") is not None and float(c["cap"]) > float(c["previous"])]


def _cap_change(c: Mapping[str, Any]) -> str:
    """One cap change in words: when, from what to what, and the reason the user gave."""
    before = "none (a new study)" if c.get("previous") is None else f"ε ≤ {fmt(float(c['previous']))}"
    reason = str(c.get("reason") or "").strip() or "no reason given"
    return f"{c['time']}: {before} → ε ≤ {fmt(float(c['cap']))} ({reason})"


def _cap_history(inp: ReportInput) -> str:
    """The study's cap changes as a list (nothing when the report has none)."""
    if not inp.cap_history:
        return ""
    items = "".join(f"<li>{esc(_cap_change(c))}</li>" for c in inp.cap_history)
    return f'<p><b>Cap history</b> (every change of the study\'s cap, with the reason given):</p><ul id="cap-history">{items}</ul>'


def _series_epsilon(ledger: Ledger) -> float | None:
    """The worst-case ε per person of the ledger's time-series releases (what the attacks attack), None without."""
    series = [r for r in ledger.releases if r.view == "Time series"]
    return Ledger(series).total()[0] if series else None


def _at_released(rows: Sequence[Mapping[str, Any]], released: float | None) -> Mapping[str, Any] | None:
    """Attack rows on private releases and the released ε per person -> the row measured nearest that ε (on a log
    scale, the attack grid's ε being per person too); None without a release or a finite row."""
    if released is None or not math.isfinite(released) or released <= 0:
        return None
    usable = [a for a in rows if isinstance(a.get("epsilon"), (int, float)) and 0 < float(a["epsilon"]) < math.inf]
    if not usable:
        return None
    return min(usable, key=lambda a: (abs(math.log(float(a["epsilon"]) / released)), -float(a["accuracy"])))


def _counted(inp: ReportInput) -> str:
    """How the ledger's totals are counted, when not by basic composition: zCDP, with basic beside it."""
    t = inp.ledger.stated()
    return "" if t.accountant is Accountant.BASIC else f" ({t.words})"


def _loss_items(inp: ReportInput) -> list[str]:
    """Report input -> the verdict's items on who is protected and each person's worst-case loss (or none)."""
    t = inp.ledger.stated()
    eps, dlt = t.epsilon, t.delta
    rel = inp.ledger.releases
    if not rel:
        return ["<b>Nothing was released</b> in this session: the ledger is empty, so no person's data has left "
                "the curator's hands through EyeDP."]
    units = sorted({r.unit for r in rel})
    who = "; ".join(esc(_who(u, rel)) for u in units)
    factor = "∞" if math.isinf(eps) else fmt(math.exp(eps) if eps < 700 else math.inf)
    cap = (f" The session refused any release that would have pushed a person above ε = {fmt(inp.epsilon_cap)}."
           if inp.epsilon_cap is not None else "")
    raised = _raises(inp)
    if raised:
        cap += (f" The cap was raised {len(raised)} time{'s' if len(raised) > 1 else ''} during the study ("
                + "; ".join(_cap_change(c) for c in raised) + "): releases made under a raised cap count in full, "
                "whatever the cap is now.")
    return [f"<b>Who is protected:</b> {who}.",
            f"<b>Worst-case privacy loss of any one person:</b> ε = {esc(fmt(eps))}, δ = {esc(fmt(dlt))} "
            f"after composing all {_made(inp)}{esc(_counted(inp))}: whether a person took part changes the chance of "
            f"any conclusion by at most a factor {esc(factor)}. {esc(protection_words(eps))}{esc(cap)}"]


def _attack_line(task: str, rows: list[Mapping[str, Any]], released: float | None) -> str:
    """One attack task's grid rows -> its chance, clean, at-the-released-ε and best accuracies in words."""
    private = [a for a in rows if a["mechanism"] != "clean"]
    clean = [a for a in rows if a["mechanism"] == "clean"]
    best = max(private, key=lambda a: a["accuracy"]) if private else None
    txt = f"{esc(task)}: chance {fmt(rows[0]['chance'])}"
    if clean:
        txt += f", on clean data {fmt(max(a['accuracy'] for a in clean))}"
    at = _at_released(private, released)
    if at is not None:
        txt += (f", at the released ε = {esc(fmt(released))} per person {fmt(at['accuracy'])} "
                f"({esc(at['mechanism'])}, measured at ε = {esc(fmt(at['epsilon']))})")
    elif private:
        txt += ", not measured at a released ε (no time-series release in this ledger)"
    if best is not None:
        txt += (f"; the grid's best over every ε tried, not the released one: {fmt(best['accuracy'])} "
                f"(ε = {esc(fmt(best['epsilon']))})")
    return txt


def _attacks_item(inp: ReportInput) -> str:
    """Report input -> the verdict's item on what the attacks showed (left out of the release-safe report)."""
    if inp.release_safe:
        return ("<b>What the attacks showed:</b> attack accuracies are measured on the unprotected data; this "
                "release-safe report leaves them out (the curator's full report has them).")
    if not inp.attacks:
        return "<b>What the attacks showed:</b> no attack was run in this session."
    released = _series_epsilon(inp.ledger)
    parts = [_attack_line(task, [a for a in inp.attacks if a["task"] == task], released)
             for task in dict.fromkeys(a["task"] for a in inp.attacks)]
    return ("<b>What the attacks showed</b> (accuracy; measured on the unprotected data, for the curator "
            "only): " + "; ".join(parts) + ".")


def _caveats_item(inp: ReportInput) -> str:
    """Report input -> the verdict's item naming the first caveat and how many more there are."""
    caveats = _caveat_items(inp)
    if caveats:
        return (f"<b>Caveats ({len(caveats)}):</b> " + esc(caveats[0])
                + (f" (and {len(caveats) - 1} more in Caveats)." if len(caveats) > 1 else ""))
    return "<b>Caveats:</b> none applies to the releases in this ledger."


def _verdict(inp: ReportInput) -> str:
    """Report input -> the verdict at the top of the report: protection, loss, attacks, caveats, which report."""
    items = [*_loss_items(inp), _attacks_item(inp), _caveats_item(inp)]
    kind = ("This is the <b>release-safe report</b>: every number in it is either a public parameter or part of a "
            "release with the guarantee stated." if inp.release_safe else
            "This is the <b>curator's full report</b>: its last section holds figures computed on the unprotected "
            "data, clearly marked. Give a review board or the public the release-safe report instead.")
    return f'<ul class="verdict">{"".join(f"<li>{i}</li>" for i in items)}</ul><p>{kind}</p>'


def _summary(inp: ReportInput) -> str:
    t = inp.ledger.stated()
    eps, dlt = t.epsilon, t.delta
    n = len(inp.ledger.releases)
    cap = (f" The study's cap is ε ≤ {fmt(inp.epsilon_cap)} per person; releases that would exceed it are refused."
           if inp.epsilon_cap is not None else " No cap on ε per person was set.")
    if n == 0:
        head = ("Nothing has been released in this session yet: the ledger is empty. The sections below describe the "
                "views at their current settings (previews, not releases).")
    else:
        head = (f"Worst-case total privacy loss for any one person after composing all {_made(inp)}: "
                f"<b>ε = {esc(fmt(eps))}</b>, <b>δ = {esc(fmt(dlt))}</b>{esc(_counted(inp))}.")
    return f'<p class="headline">{head}{esc(cap)}</p><p>{esc(COMPOSITION_RULE)}</p>{_cap_history(inp)}'


# Counts a mechanism treats as public (n observers, the number of participants, tasks, stimuli); exact row counts
# are not public and go to the curator's section.
PUBLIC_COUNTS = ("participants", "observers", "tasks", "stimuli", "origin")


def _data(inp: ReportInput) -> str:
    if not inp.data:
        return "<p>No data was read.</p>"
    rows = [{"source": src, "what": ", ".join(f"{k}: {fmt(v)}" for k, v in counts.items() if k in PUBLIC_COUNTS)}
            for src, counts in inp.data.items()]
    return ("<p>Public counts only (the numbers of people, tasks and stimuli, which the mechanisms treat as public); "
            "no recorded value and no participant id appears in this report.</p>"
            + table(rows, [("source", "Data source"), ("what", "Public counts")]))


def _unit(inp: ReportInput) -> str:
    units = sorted({r.unit for r in inp.ledger.releases}) or ["participant"]
    lines = []
    for u in units:
        if u == "observer":
            views = ", ".join(dict.fromkeys(r.view for r in inp.ledger.releases if r.unit == u))
            lines.append(f"<li><b>observer</b> ({esc(views)}): neighbouring datasets differ by replacing one "
                         "observer's whole (capped) data on a stimulus.</li>")
        elif u == "participant":
            lines.append("<li><b>participant</b>: neighbouring datasets differ by replacing everything one person "
                         "contributed (all their recordings).</li>")
        else:
            lines.append(f"<li><b>{esc(u)}</b>: protects one {esc(u)} only, <i>not</i> the whole person; the person's "
                         "total is the bound charged to the ledger (see Total privacy loss).</li>")
    threats = "".join(f"<li><b>{esc(t)}</b>: {esc(d)}</li>" for t, d in THREAT_MODELS)
    return f"<p>Units of protection used:</p><ul>{''.join(lines)}</ul><p>Threat models considered:</p><ul>{threats}</ul>"


def _math(tex: str) -> str:
    return f'<span class="math">{tex_to_html(tex)}</span>'


def setting_name(key: str, labels: Mapping[str, str]) -> str:
    """A setting's key -> its name in words (the control's label; else the key's words without the page prefix)."""
    if labels.get(key):
        return labels[key]
    words = key.split("_", 1)[-1].replace("_", " ")
    return words[:1].upper() + words[1:]


def setting_words(value: Any) -> str:
    """A setting's value -> words: yes/no, "not set", an option's value (not its enum name), lists and pairs as
    text (never a Python repr)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "not set"
    if isinstance(value, enum.Enum):
        return setting_words(value.value)
    if isinstance(value, (int, float)):
        return fmt(value)
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {setting_words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(setting_words(v) for v in value) or "none"
    return str(value)


def shown_settings(settings: Mapping[str, Any], labels: Mapping[str, str]) -> list[tuple[str, str]]:
    """A page's settings -> (name in words, value in words) pairs, without any setting that names a person."""
    return sorted((setting_name(k, labels), setting_words(v)) for k, v in settings.items()
                  if not PERSON_SETTING.search(k))


# What each noise law's scale is called beside its number (a private selection's noise is not Laplace noise).
_SCALE_NAMES = {Family.GAUSSIAN: "σ (standard deviation)", Family.EXPONENTIAL: "β (selection noise scale)"}


def release_risk(r: Release) -> str:
    """A ledger entry -> what its guarantee allows any attacker, in words, from its ε, δ, count and the number of
    people it covers (docs/PRIVACY_MODEL.md §16): data-independent, so fit for the release-safe report."""
    if math.isinf(r.epsilon_total):
        return "nothing is bounded: the release has no differential-privacy guarantee."
    if r.sensitivity_type == "data-derived":
        return "nothing is bounded: the noise scale was read off the data, so the stated ε is not a guarantee."
    from eyedp_core.dp.risk import TradeOff, risk_of, risk_sentence  # here: scipy only when a report is built

    # Pure ε: the exact composition of its `count` invocations; with δ the (ε, δ) of the basic rule, a valid bound.
    t = (TradeOff.pure(r.epsilon, r.count) if r.delta == 0 else
         TradeOff.approx(r.epsilon_total, min(1.0, r.delta_total)))
    unit = r.unit if r.unit in PARTICIPANT_UNITS else "person"
    people = len(r.participants) if r.participants else 0
    if people < 2:  # the roster is not in the entry: the membership figures need no n
        from eyedp_core.dp.risk import max_advantage, tpr_at

        return (f"at this ε an attacker who knows everything else can tell whether a given {unit} was in the data "
                f"with up to {100 * tpr_at(t, 0.05):.3g} % true positives at 5 % false positives (largest advantage "
                f"TPR − FPR {100 * max_advantage(t):.3g} %).")
    return risk_sentence(risk_of(t, people), unit)


def _artefact(i: int, a: Artefact, inp: ReportInput) -> str:
    r = a.release
    rows = [{"k": "view", "v": r.view}, {"k": "mechanism", "v": r.mechanism},
            {"k": "unit of protection", "v": r.unit}, {"k": "ε per invocation", "v": r.epsilon},
            {"k": "δ per invocation", "v": r.delta}, {"k": "invocations on one person", "v": r.count},
            {"k": "ε charged per person (ε × invocations)", "v": r.epsilon_total},
            {"k": "δ charged per person", "v": r.delta_total},
            {"k": "sensitivity", "v": r.sensitivity_type},
            {"k": "people covered", "v": "everyone" if r.participants is None else f"{len(r.participants)} people"}]
    if r.meaning:
        rows.append({"k": "what the ε means", "v": r.meaning})
    out = [f'<div class="artefact"><h3>{i}. {esc(r.label)}</h3>',
           table(rows, [("k", "Item"), ("v", "Value")]),
           f"<p class='risk'><b>What it allows an attacker</b> (from ε, δ and the number of people only; no data): "
           f"{esc(release_risk(r))}</p>"]
    f = a.facts or {}
    sens = f.get("sensitivity")
    if sens:
        parts = [f"{k} = {fmt(v)}" for k, v in sens.items() if isinstance(v, (int, float))]
        out.append(f"<p><b>Sensitivity</b>: {esc('; '.join(parts))}. <b>How obtained</b>: {esc(sens.get('how', ''))}</p>")
        for k in ("L1 formula", "L2 formula"):
            if sens.get(k):
                out.append(f"<p class='muted'>{esc(k)}: {_math(sens[k])}</p>")
    cal = f.get("calibration")
    if cal:
        family = Family(cal["mechanism"])  # the facts are plain data: parse the name once
        gaussian = family is Family.GAUSSIAN
        name = _SCALE_NAMES.get(family, "b (Laplace scale)")
        title = f.get("calibration_title", "")
        std = "" if gaussian else f", standard deviation {esc(fmt(cal['std']))}"
        export = f.get("export_scale")
        export_txt = (f" The export itself draws with {esc(name.split(' ')[0])} = {esc(fmt(export))} (the smallest "
                      "value OpenDP's own accounting certifies for this ε and δ)."
                      if export is not None and abs(export - cal["scale"]) > 1e-9 * cal["scale"] else "")
        out.append(f"<p><b>Noise scale</b>{(' — ' + esc(title)) if title else ''}: {esc(cal['mechanism'])} "
                   f"({esc(cal['method'])}), {esc(name)} = <b>{esc(fmt(cal['scale']))}</b>{std}, for "
                   f"ε = {esc(fmt(cal['epsilon']))}, δ = {esc(fmt(cal['delta']))}, "
                   f"sensitivity {esc(fmt(cal['sensitivity']))}.{export_txt}</p>"
                   f"<p class='muted'>Formula: {_math(cal['formula_tex'])}<br>Numbers: "
                   f"{_math(cal['plugged_tex'])}</p>")
        if not cal.get("valid", True):
            out.append(f"<p class='bad'>This calibration does not give the stated guarantee. {esc(cal.get('note', ''))}</p>")
        elif cal.get("note"):
            out.append(f"<p class='muted'>{esc(cal['note'])}</p>")
    if not f:
        out.append("<p class='muted'>The view did not record its calibration with this entry (recorded before the "
                   "view was opened in this session, or by a view without one).</p>")
    if a.settings:
        shown = "; ".join(f"{k}: {v}" for k, v in shown_settings(a.settings, inp.setting_labels))
        out.append(f"<p class='muted'>Settings when released: {esc(shown)}</p>")
    out.append("</div>")
    return "".join(out)


def _artefacts(inp: ReportInput) -> str:
    if not inp.artefacts:
        return "<p>No artefact has been released or recorded yet.</p>"
    return ("<p>Only these artefacts were released; each carries the guarantee stated with it.</p>"
            + "".join(_artefact(i + 1, a, inp) for i, a in enumerate(inp.artefacts)))


def _composition(inp: ReportInput) -> str:
    people = person_table(inp.ledger, inp.epsilon_cap)
    if people.empty:
        return "<p>Nothing to compose yet.</p>"
    out = [table(people.to_dict("records"), [(c, c) for c in people.columns])]
    out.append("<p><b>Correlation-aware estimate.</b></p><ul>")
    for a in inp.artefacts:
        r = a.release
        if r.meaning:
            out.append(f"<li>{esc(r.label)}: {esc(r.meaning)}.</li>")
        elif r.unit in PARTICIPANT_UNITS:
            out.append(f"<li>{esc(r.label)}: the unit is the whole {esc(r.unit)}, so correlation inside one person's "
                       f"data is already covered: ε = {esc(fmt(r.epsilon_total))}. Assumption: people are "
                       "independent of each other.</li>")
        elif math.isfinite(r.epsilon):
            g_eps, g_delta = group_privacy(r.epsilon, r.delta, r.count)
            out.append(f"<li>{esc(r.label)}: ε = {esc(fmt(r.epsilon))} protects one {esc(r.unit)}; if all "
                       f"{r.count} {esc(r.unit)}s of a person are fully correlated (worst case, no assumption on the "
                       f"correlation), the person's loss is the group bound ε = {esc(fmt(g_eps))}, "
                       f"δ = {esc(fmt(g_delta))}.</li>")
        else:
            out.append(f"<li>{esc(r.label)}: no guarantee (ε = ∞).</li>")
    out.append("</ul>")
    for page, f in inp.view_facts.items():
        if f.get("correlation"):
            out.append(f"<p class='muted'><b>{esc(f.get('view', page))}</b>: {esc(f['correlation'])}</p>")
        if f.get("bounds"):
            out.append(table(f["bounds"], [("scope", "Scope"), ("epsilon", "ε"), ("delta", "δ"), ("kind", "Kind")]))
    return "".join(out)


def _unprotected(inp: ReportInput) -> str:
    if inp.release_safe:
        return ("<p>Left out of this release-safe report: utility against the clean data, attack accuracies, the "
                "preview's shifts, the clean AOI tables and exact row counts are computed on the unprotected data "
                "and carry no guarantee.</p>")
    out = [f'<p class="bad"><b>{esc(UNPROTECTED_LABEL)}</b></p>']
    rows = [{"source": src, "what": ", ".join(f"{k}: {fmt(v)}" for k, v in counts.items() if k not in PUBLIC_COUNTS)}
            for src, counts in inp.data.items()]
    rows = [r for r in rows if r["what"]]
    if rows:
        out.append("<p><b>Exact sizes of the data</b></p>"
                   + table(rows, [("source", "Data source"), ("what", "Exact counts")]))
    for page, f in inp.view_facts.items():
        util = f.get("utility")
        if util:
            rows = [{"metric": k, "value": v} for k, v in util.items()]
            pv = (" — seeded preview at the chosen settings, compared with the clean data" if page in inp.preview_pages
                  else " — compared with the clean data")
            out.append(f"<p><b>{esc(f.get('view', page))}</b>{esc(pv)}</p>"
                       + table(rows, [("metric", "Utility metric (unprotected)"), ("value", "Value")]))
    clean_aois = aoi_clean_html(inp.aoi_releases)
    if clean_aois:
        out.append(clean_aois)
    if inp.attacks:
        out.append("<p><b>Attacks</b> (accuracy against chance; clean rows attack the unprotected data itself)</p>"
                   + table(inp.attacks, [("task", "Task"), ("mechanism", "Mechanism"), ("epsilon", "ε"),
                                          ("scenario", "Scenario"), ("accuracy", "Accuracy"), ("chance", "Chance")]))
    if len(out) == 1:
        out.append("<p>No view has computed utility, AOI or attack figures in this session yet.</p>")
    return '<div class="curator">' + "".join(out) + "</div>"


def _reading(inp: ReportInput) -> str:
    t = inp.ledger.stated()
    eps, dlt = t.epsilon, t.delta
    parts = [f"<p>{esc(epsilon_reading(eps, dlt))}</p>"] if inp.ledger.releases else []
    parts.append("<p>Reference points: ε = 0.1 → factor 1.105; ε = 1 → 2.72; ε = 3 → 20.1; ε = 10 → 22,026. "
                 "Above ε ≈ 10 the bound says little about any one person.</p>")
    return "".join(parts)


def _caveat_items(inp: ReportInput) -> list[str]:
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
    return list(dict.fromkeys(items))


def _caveats(inp: ReportInput) -> str:
    items = _caveat_items(inp)
    if not items:
        return "<p>No caveat applies to the releases in this ledger.</p>"
    return "".join(f'<p class="warn">{esc(w)}</p>' for w in items)


def _reproduce(inp: ReportInput) -> str:
    ver = ", ".join(f"{k} {v}" for k, v in inp.version.items())
    return (f"<p>Software: {esc(ver)}. Generated {esc(inp.generated)}.</p>"
            "<p>The settings file below (EyeDP's own format, no data and no participant id) reopens the same views: "
            "load it on any EyeDP page under <i>Share and reproduce → Load settings</i>.</p>"
            f"<details><summary>Settings file</summary><pre>{esc(inp.config_json)}</pre></details>")


def _figures(inp: ReportInput) -> str:
    return "".join(f'<div class="fig"><p class="muted">{esc(caption)}</p>{snippet}</div>'
                   for caption, snippet in inp.figures.items())


def build_html(inp: ReportInput) -> str:
    """ReportInput in, the whole report as one HTML document (no external resources) out; `release_safe` leaves
    out every figure computed on the unprotected data."""
    body = [_section("verdict", _verdict(inp)), _section("summary", _summary(inp)), _section("data", _data(inp)),
            _section("unit", _unit(inp)), _section("artefacts", _artefacts(inp)),
            _section("aois", aoi_section_html(inp.aoi_releases, inp.ledger)),
            _section("composition", _composition(inp) + _figures(inp)), _section("reading", _reading(inp)),
            _section("caveats", _caveats(inp)), _section("unprotected", _unprotected(inp)),
            _section("reproduce", _reproduce(inp))]
    kind = "release-safe report" if inp.release_safe else "curator's full report"
    stamp = stamp_of(inp.ledger, inp.chain)  # the stored ledger's head, which `verify` compares with the store
    return seal("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>{stamp_meta(stamp)}"
            f"<title>EyeDP privacy report</title><style>{_CSS}</style></head><body>"
            f"<h1>EyeDP privacy report</h1><p class='muted'>{esc(kind.capitalize())} for a review board: what was "
            "released, under which guarantee, and to whom it applies.</p>" + stamp_html(stamp) + "".join(body)
            + "</body></html>")
