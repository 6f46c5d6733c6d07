"""The side-by-side utility/privacy table of the Gaze-samples Protect view, as one markdown element.

A markdown table costs the browser almost nothing when its numbers change; an st.dataframe whose content
changes costs several times a whole slider move (bench/run.py), so the table is text.
"""
from __future__ import annotations

import math

import streamlit as st

from ui.text import html_text, md_text

COLUMNS = ("reid_accuracy", "displacement_deg", "heatmap_cc", "fixation_rate_change", "fixation_duration_change")
FORMATS = {"reid_accuracy": "{:.0f} %", "displacement_deg": "{:.2f}", "heatmap_cc": "{:.3f}",
           "fixation_rate_change": "{:+.0f} %", "fixation_duration_change": "{:+.0f} %"}
PERCENT = ("reid_accuracy", "fixation_rate_change", "fixation_duration_change")
MISSING = "–"


def headers(n_people: int) -> dict[str, str]:
    """Column -> its header (the chance level of the attack is in the re-identification header)."""
    chance = f"chance {1 / n_people:.0%}" if n_people else "chance –"
    return {"reid_accuracy": f"re-identified ({chance})", "displacement_deg": "displacement (°)",
            "heatmap_cc": "heatmap CC", "fixation_rate_change": "fixation rate",
            "fixation_duration_change": "fixation duration"}


def cell(column: str, value: object) -> str:
    """A figure -> its display text ("–" when not measured or nothing was published)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    v = float(value) * (100.0 if column in PERCENT else 1.0)  # type: ignore[arg-type]
    return FORMATS[column].format(v)


def markdown_table(rows: list[dict], n_people: int) -> str:
    """Rows of figures per method -> a markdown table (privacy first, then utility)."""
    names = headers(n_people)
    lines = ["| method | " + " | ".join(names[c] for c in COLUMNS) + " |",
             "|:--|" + "--:|" * len(COLUMNS)]
    for r in rows:
        lines.append(f"| {r['method']} | " + " | ".join(cell(c, r.get(c)) for c in COLUMNS) + " |")
    return "\n".join(lines)


def utility_table(rows: list[dict], n_people: int, heading: str = "", note: str = "") -> None:
    """Rows of figures per method -> (heading,) the side-by-side table, then each method's promise and notes as a
    list (long sentences in table cells were cut off at 1280 px), then the `note` in small type — one markdown
    element (it is re-sent on every slider move of the view)."""
    lines = []
    for r in rows:
        own = f" — *{md_text(r['note'])}*" if r.get("note") else ""  # the row's note, not the table's `note`
        lines.append(f"- **{r['method']}**: {r['guarantee']}{own}")
    st.markdown((heading + "\n\n" if heading else "") + markdown_table(rows, n_people)
                + "\n\n**What each one guarantees**\n" + "\n".join(lines)
                + (f'\n\n<div class="eyedp-note">{html_text(note)}</div>' if note else ""), unsafe_allow_html=True)
