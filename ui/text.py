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
from typing import TYPE_CHECKING
import re

if TYPE_CHECKING:
    import pandas as pd

# Every ASCII punctuation character may be backslash-escaped in CommonMark and then renders as itself; escaping
# all of them neutralises emphasis, links, images, code, HTML tags, tables, headings, lists, block quotes,
# directives (`:red[...]`) and `$` math in one rule, wherever the string lands in a line.
_MD_PUNCT = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
# Streamlit (and GFM) also rewrite parts of text *after* escapes are resolved: `:material/icon:` icons and
# `:emoji:` shortcodes, bare `https://...` and `www.` autolinks, and `name@host` e-mail links. A word joiner
# (U+2060, invisible, no line break) after the `:` and `@` and inside `www.` breaks each of those patterns.
_JOINER = "\u2060"
_WWW = re.compile(r"(?i)(www)(\\\.)")  # after escaping, "www." reads "www\."
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")


def md_text(value: object) -> str:
    """`value` as literal text inside Streamlit markdown: shown exactly, never a link, image, tag or format."""
    s = _LINE_BREAKS.sub(" ", str(value))  # a data string is one line: no new block can start inside it
    s = _MD_PUNCT.sub(r"\\\1", s)
    s = s.replace(":", ":" + _JOINER).replace("@", "@" + _JOINER)
    return _WWW.sub(r"\1" + _JOINER + r"\2", s)


def html_text(value: object) -> str:
    """`value` as literal text inside HTML (element content or a quoted attribute), and inside Plotly text."""
    s = html.escape(str(value), quote=True)
    # A line break inside an HTML block of st.markdown would end the block (and the rest would be markdown).
    return s.replace("\r", "&#13;").replace("\n", "&#10;")


def md_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """A table for `st.table` (whose cells and headers render markdown) -> the same table, text cells escaped."""
    out = frame.rename(columns=lambda c: md_text(c) if isinstance(c, str) else c)
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("str", "string"):
            out[col] = out[col].map(lambda v: v if v is None or (isinstance(v, float) and v != v) else md_text(v))
    return out
