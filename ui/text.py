"""Data is text, never markup: the one place that escapes data-derived strings for the screen.

Every string that comes from a file, a column, a cell, a URL or a settings file (file names, feature and column
names, participant ids, stimulus names, messages that quote them) goes through one of these before it reaches
a context that renders markup:

* `md_text(s)` for Streamlit markdown: `st.markdown`/`caption`/`info`/`warning`/`error`/`success`/`write`,
  widget labels, `help=` tooltips, expander and tab labels, and the options of `radio`, `segmented_control`,
  `pills` and `select_slider`, and cells of `st.table` (all render markdown in Streamlit 1.67).
* `html_text(s)` for HTML: an HTML block built for `unsafe_allow_html=True`, the report's HTML template, and
  Plotly text (titles, axis titles, hover labels: Plotly renders `<a href>`, `<b>`, `<br>` and decodes entities
  only after it has split the tags, so an escaped name stays text).

`selectbox` and `multiselect` options and `st.dataframe` cells are plain text: they need no escaping (and an
escaped string would show its backslashes there).
"""
from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

# Characters that start markup wherever they stand: emphasis and strikethrough, code, links and images (`[`),
# HTML tags and autolinks (`<`), entities (`&`), tables (`|`), `$` math, and the escape itself. Escaped with a
# backslash, CommonMark shows each as itself. Other punctuation is left alone, so ordinary names (`data.csv`,
# `reading_features`, `P01 (pilot)`) read and search exactly as they are.
_MD_ALWAYS = re.compile(r"([\\`*\[\]<&|$~])")
# `_` opens emphasis only at a word edge; inside a word (`fix_count`) it is plain text.
_MD_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
# At the start of a line: a heading ("# "), a block quote (">"), a list item ("- ", "+ ", "1. ", "1) "), and a
# line of only "=" or "-" (a setext heading underline). "#1", "-0.5" or "1001.jpg" start nothing and stay as they are.
_MD_LINE_START = re.compile(r"^(\s*)(#{1,6}(?=\s|$)|>|[+\-](?=\s|$)|[=\-](?=[=\-\s]*$))")
_MD_ORDERED = re.compile(r"^(\s*\d{1,9})([.)])(?=\s|$)")
# Streamlit and GFM also rewrite text *after* escapes are resolved: `:material/icon:` icons, `:emoji:` shortcodes
# and `:color[...]` directives, bare `https://...` and `www.` links, `name@host` e-mail links. A word joiner
# (U+2060: invisible, no line break) after such a `:` or `@` and inside `www.` breaks each of those patterns.
_JOINER = "\u2060"
_COLON = re.compile(r":(?=\S)")
_WWW = re.compile(r"(?i)(?<=www)(?=\.)")
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")


def md_text(value: object) -> str:
    """`value` as literal text inside Streamlit markdown: shown as it is, never a link, image, tag or format."""
    s = _LINE_BREAKS.sub(" ", str(value))  # a data string is one line: no new block can start inside it
    s = _MD_ALWAYS.sub(r"\\\1", s)
    s = _MD_EDGE_UNDERSCORE.sub(r"\\_", s)
    s = _MD_LINE_START.sub(r"\1\\\2", s)
    s = _MD_ORDERED.sub(r"\1\\\2", s)
    s = _COLON.sub(":" + _JOINER, s).replace("@", "@" + _JOINER)
    return _WWW.sub(_JOINER, s)


def html_text(value: object) -> str:
    """`value` as literal text inside HTML (element content or a quoted attribute), and inside Plotly text."""
    s = html.escape(str(value), quote=False)
    # Quotes as decimal references: HTML decodes them in attributes, and Plotly (which knows no `&quot;`) in text.
    s = s.replace('"', "&#34;").replace("'", "&#39;")
    # A line break inside an HTML block of st.markdown would end the block (and the rest would be markdown).
    return s.replace("\r", "&#13;").replace("\n", "&#10;")


def md_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """A table for `st.table` (whose cells, headers and index render markdown) -> the same table, its text escaped."""
    out = frame.rename(columns=lambda c: md_text(c) if isinstance(c, str) else c,
                       index=lambda i: md_text(i) if isinstance(i, str) else i)
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("str", "string"):
            out[col] = out[col].map(lambda v: v if v is None or (isinstance(v, float) and v != v) else md_text(v))
    return out
