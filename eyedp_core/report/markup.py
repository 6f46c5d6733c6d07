"""The report's HTML pieces shared by its sections: escaping, the number format and plain tables."""
from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any


def esc(x: Any) -> str:
    """Any value -> its text, escaped for HTML (every value from data passes through here)."""
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


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]]) -> str:
    """Rows (key -> value) and (key, header) columns -> an escaped HTML table, numbers right-aligned."""
    head = "".join(f"<th>{esc(label)}</th>" for _, label in columns)
    body = []
    for r in rows:
        cells = []
        for key, _ in columns:
            v = r.get(key, "")
            cls = ' class="num"' if isinstance(v, (int, float)) and not isinstance(v, bool) else ""
            cells.append(f"<td{cls}>{esc(fmt('' if v is None else v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
