"""The review-board report's Areas of interest section: each charged AOI release with its public parameters,
its calibration and the released table; the clean tables only for the curator's unprotected section.

Every number is read from the release's manifest and tables (what the export handed out), never recomputed.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eyedp_core.dp.accounting import Ledger
from eyedp_core.report.markup import esc, fmt, table

if TYPE_CHECKING:  # the report module imports no AOI code until a report has an AOI release
    import pandas as pd

    from eyedp_core.aoi.release import AoiRelease

__all__ = ["ReleasedAois", "aoi_clean_html", "aoi_section_html"]

# The public per-observer limits (AoiBounds fields) by the names the page's inputs give them.
BOUND_NAMES = {"max_fixations": "fixations per AOI", "max_dwell_s": "dwell per AOI (s)",
               "max_ttff_s": "time to first fixation (s)", "max_revisits": "revisits per AOI",
               "max_transitions": "transitions in total", "max_total_fixations": "fixations over all AOIs",
               "max_total_dwell_s": "dwell over all AOIs (s)"}


@dataclass(frozen=True)
class ReleasedAois:
    """One AOI export and the 1-based positions of the ledger entries it charged."""

    release: AoiRelease
    entries: tuple[int, ...]


def _num(v: Any) -> str:
    """A number as the report writes it (floats, so counts read as the manifest's numbers do)."""
    return fmt(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def _frame(frame: pd.DataFrame, index_label: str) -> str:
    """A DataFrame (index: the AOI or 'from' state) as an escaped HTML table, numbers in the report's format."""
    head = f"<th>{esc(index_label)}</th>" + "".join(f"<th>{esc(c)}</th>" for c in frame.columns)
    rows = []
    for name, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        cells = "".join(f'<td class="num">{esc(_num(v))}</td>' for v in row)
        rows.append(f"<tr><td>{esc(name)}</td>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _title(i: int, r: ReleasedAois) -> str:
    m = r.release.manifest
    where = (f"ledger entries {r.entries[0]}–{r.entries[-1]}" if len(r.entries) > 1
             else f"ledger entry {r.entries[0]}" if r.entries else "ledger entries unknown")
    return f"<h3>{i}. AOI table of '{esc(m['stimulus'])}' ({esc(where)})</h3>"


def _source(m: dict[str, Any]) -> str:
    from eyedp_core.aoi.release import DRAWN_ON_DATA, AoiSource  # AOI code only once a release has one

    src = m.get("aoi_source")
    words = AoiSource(src).label if src else "not recorded"
    out = [f"<p><b>AOI definitions</b> ({len(m['aois'])}, public parameters): from {esc(words)}. "]
    if m.get("aois_drawn_on_these_data"):
        out.append(f"</p><p class='bad'><b>Flagged: {esc(DRAWN_ON_DATA)}.</b> What the AOIs reveal about where these "
                   "observers looked is published as is: the stated ε does not cover it.</p>")
    else:
        out.append("Not flagged as drawn after looking at these data.</p>")
    for what in m.get("data_derived_parameters", []):
        if what != DRAWN_ON_DATA:
            out.append(f"<p class='bad'><b>Flagged: the {esc(what)} was read off the private data.</b> The AOIs "
                       "depend on it, so what it reveals about these observers is published as is: the stated ε does "
                       "not cover it.</p>")
    cols = [("name", "AOI"), ("kind", "Shape"), ("x0", "x0"), ("y0", "y0"), ("x1", "x1"), ("y1", "y1"),
            ("points", "Points (x y; …)")]
    out.append("<details><summary>The AOI definitions (stimulus pixels)</summary>"
               + table(m["aois"], cols) + "</details>")
    return "".join(out)


def _guarantee(r: ReleasedAois, ledger: Ledger) -> str:
    m = r.release.manifest
    eps = float(m["epsilon_per_observer"])
    charged = [ledger.releases[i - 1] for i in r.entries if 0 < i <= len(ledger.releases)]
    total = sum(x.epsilon_total for x in charged)
    bounds = "; ".join(f"{BOUND_NAMES.get(k, k.replace('_', ' '))} = {_num(v)}"
                       for k, v in m["bounds"].items() if v is not None)
    text = (f"<p><b>Guarantee per observer</b>: ε = <b>{esc(_num(eps))}</b>, δ = {esc(_num(m['delta']))} for each of "
            f"the {esc(_num(m['observers']))} observers of '{esc(m['stimulus'])}' (unit of privacy: "
            f"{esc(m['unit_of_privacy'])}; neighbouring datasets: {esc(m['neighbouring_relation'])}). "
            f"Composition: {esc(m['composition'])}")
    if charged:
        text += (f"; the {len(charged)} ledger entries charged ε = {esc(_num(total))} per observer in all"
                 + ("." if math.isclose(total, eps, rel_tol=1e-9) else
                    f", which is NOT the manifest's ε = {esc(_num(eps))}."))
    else:
        text += "."
    return text + (f"</p><p class='muted'>Public per-observer limits (each observer's values are clipped to these "
                   f"before any sum; a total left out is not limited): {esc(bounds)}.</p>")


def _queries(m: dict[str, Any]) -> str:
    rows = [{"query": q["query"], "epsilon": q["epsilon"], "l1": q["l1_sensitivity"], "b": q["scale_formula"],
             "drawn": q["scale_released"], "k": q["lattice_k"], "n": q["values"]} for q in m["queries"]]
    return ("<p><b>Metrics released</b>: " + esc(", ".join(m["metrics"])) + ". Each needs the noisy sums below "
            "(Laplace mechanism, b = Δ1 / ε of the sum; the export draws on a 2^k lattice with the slightly "
            "larger b in the next column).</p>"
            + table(rows, [("query", "Noisy sum"), ("epsilon", "ε share"), ("l1", "L1 sensitivity Δ1"),
                           ("b", "Laplace b = Δ1/ε"), ("drawn", "b drawn (lattice)"), ("k", "Lattice 2^k: k"),
                           ("n", "Values")])
            + f"<p class='muted'>{esc(m['noise'])}. {esc(m['intervals'])}.</p>")


def _private(rel: AoiRelease) -> str:
    out = ["<p><b>The released (private) table</b>, each value with the half-width of its "
           f"{esc(_num(100 * float(rel.manifest['confidence'])))} % interval, in the metric's units:</p>",
           _frame(rel.table, "AOI")]
    if rel.transitions is not None:
        hw = rel.manifest.get("transitions_half_width")
        out.append(f"<p><b>Released transitions per observer</b> (rows: from, columns: to; each cell "
                   f"± {esc(_num(hw))}):</p>" + _frame(rel.transitions, "from"))
    return "".join(out)


def aoi_section_html(released: Sequence[ReleasedAois], ledger: Ledger) -> str:
    """The AOI releases in, the section's HTML out: source of the AOIs, guarantee, calibration, private tables."""
    if not released:
        return "<p>No areas-of-interest table was released in this session.</p>"
    out = []
    for i, r in enumerate(released, start=1):
        m = r.release.manifest
        out.append('<div class="artefact">' + _title(i, r) + _source(m) + _guarantee(r, ledger) + _queries(m)
                   + _private(r.release) + "</div>")
    return "".join(out)


def aoi_clean_html(released: Sequence[ReleasedAois]) -> str:
    """The AOI releases in, their clean tables (the curator's unprotected section only) out."""
    out = []
    for i, r in enumerate(released, start=1):
        rel = r.release
        if rel.clean is None:
            continue
        out.append(f"<p><b>Areas of interest {i}: clean table of '{esc(rel.manifest['stimulus'])}'</b> (clipped to the "
                   "public limits, no noise)</p>" + _frame(rel.clean, "AOI"))
        if rel.clean_transitions is not None:
            out.append("<p>Clean transitions per observer</p>" + _frame(rel.clean_transitions, "from"))
    return "".join(out)
