"""A row of labelled numbers drawn as ONE element: what a row of `st.metric`s shows, for numbers that change on
every slider move.

Each element a fragment re-sends costs a websocket message and a React re-render (~1.5–2 ms on a slider move);
six metrics in a row are seven elements, this row is one. Labels, values and help go through `html_text`; the
help is the number's tooltip (the `title` of its box), as st.metric's help is."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ui.text import html_text

ROW_CLASS = "eyedp-numbers"
NUMBER_CLASS = "eyedp-number"


@dataclass(frozen=True)
class Number:
    """One shown number: its label, its value as shown, and the tooltip that explains it."""

    label: str
    value: str
    help: str | None = None


def numbers_html(numbers: Sequence[Number]) -> str:
    """Numbers -> one HTML block (for st.markdown with unsafe_allow_html), each a label over its value."""
    boxes = []
    for n in numbers:
        title = f' title="{html_text(n.help)}"' if n.help else ""
        boxes.append(f'<div class="{NUMBER_CLASS}"{title}><div class="eyedp-number-label">{html_text(n.label)}</div>'
                     f'<div class="eyedp-number-value">{html_text(n.value)}</div></div>')
    return f'<div class="{ROW_CLASS}">{"".join(boxes)}</div>'
