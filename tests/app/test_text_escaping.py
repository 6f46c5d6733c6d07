"""Data is text, never markup: ui.text's escaping functions, and every call in pages/ and ui/ that renders markdown
or HTML formats only escaped or app-made values.

The escaping is checked by rendering: markdown-it (CommonMark, raw HTML on, GFM tables and strikethrough: the
parser family Streamlit's react-markdown belongs to) and the standard library's HTML parser must find no element
and exactly the payload's text. The patterns Streamlit and GFM rewrite after parsing (bare links, e-mail links,
`:material/...:` icons, `:emoji:` shortcodes) are checked on that text with the same regular expressions.
"""
from __future__ import annotations

import ast
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from ui.text import html_text, md_cells, md_text

ROOT = Path(__file__).resolve().parents[2]

PAYLOADS = (
    '<iframe srcdoc="<script>parent.alert(11)</script>">',
    "<script>alert(1)</script>",
    "[Session expired – log in](https://evil.example/login)",
    "![x](https://evil.example/p.png)",
    '<form action="https://evil.example"><input type=password></form>',
    "<style>body{display:none}</style>",
    '<meta http-equiv="refresh" content="5;url=https://evil.example">',
    '<a href="https://evil.example">x</a>',
    # markdown and Streamlit specials: emphasis, math, headings, lists, tables, icons, colours, autolinks
    "# heading *em* __strong__ ~~gone~~ `code` $x^2$ $$y$$",
    "- item | a | b |",
    "1. first",
    "> quoted",
    ":material/home: :smile: :red[red text] :small[x]{.y}",
    "https://evil.example/bare www.evil.example mail@evil.example <https://evil.example/auto>",
    "&lt;b&gt;not bold&lt;/b&gt; &#60;i&#62;",
    "line one\n\n# line two\r\n<b>three</b>",
    "trailing backslash \\",
    "===", "---", "- - -", "+ plus", "1) one", "## two", "   # indented",
)

# What Streamlit and GFM turn into links or icons in text nodes (after markdown escapes are resolved): the GFM
# autolink literal (mdast-util-gfm-autolink-literal), e-mail links, and Streamlit's icon and emoji patterns.
REWRITTEN = {
    "autolink": re.compile(r"(https?://|www(?=\.))", re.IGNORECASE),
    "email": re.compile(r"[-.\w+]+@[-\w]+(\.[-\w]+)+"),
    "material icon": re.compile(r":material[/_]\w+:"),
    "emoji or icon shortcode": re.compile(r":(?!streamlit:)[\w+-][\w_+-]*:"),
    "directive": re.compile(r":\w+\["),
}


class _Collect(HTMLParser):
    """Every start tag (with its attributes) and the text of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(html_fragment: str) -> _Collect:
    c = _Collect()
    c.feed(html_fragment)
    c.close()
    return c


def _markdown(source: str) -> str:
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    return md.render(source)


def _plain(s: str) -> str:
    """The text a reader sees: one line, spaces collapsed, no word joiners."""
    s = re.sub(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]", " ", s).replace("\u2060", "")
    return re.sub(r"[ \t]+", " ", s).strip()


@pytest.mark.parametrize("payload", PAYLOADS)
@pytest.mark.parametrize("where", ["alone", "in a sentence", "bold", "list item", "table cell", "with raw HTML"])
def test_md_text_renders_the_payload_as_its_own_text(payload: str, where: str) -> None:
    """Escaped, the payload is one paragraph of exactly its own characters, wherever it is put in markdown."""
    e = md_text(payload)
    source, wrapper = {
        "alone": (e, {"p"}),
        "in a sentence": (f"The file {e} could not be read.", {"p"}),
        "bold": (f"**{e}**: a name", {"p", "strong"}),
        "list item": (f"- {e}", {"ul", "li"}),
        "table cell": (f"| name |\n|---|\n| {e} |", {"table", "thead", "tbody", "tr", "th", "td"}),
        "with raw HTML": (f"<b>{e}</b>", {"p", "b"}),
    }[where]
    out = _parse(_markdown(source))
    assert {t for t, _ in out.tags} <= wrapper, (source, out.tags)
    text = _plain("".join(out.text))
    assert _plain(payload) in text
    for name, pattern in REWRITTEN.items():
        assert not pattern.search("".join(out.text)), (name, "".join(out.text))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_html_text_renders_the_payload_as_its_own_text(payload: str) -> None:
    """Escaped for HTML, the payload adds no element and no attribute, inside an element and inside an attribute;
    no line break survives to end an HTML block of st.markdown."""
    out = _parse(f"<div>{html_text(payload)}</div>")
    assert [t for t, _ in out.tags] == ["div"]
    assert "".join(out.text) == payload
    attr = _parse(f'<span title="{html_text(payload)}">x</span>')
    assert attr.tags == [("span", [("title", payload)])]
    assert "\n" not in html_text(payload) and "\r" not in html_text(payload)


def test_ordinary_names_stay_as_they_are() -> None:
    """Names without markup characters are not changed: what the page shows is what the file holds."""
    for name in ("reading_features.csv", "fix_count", "P01 (pilot)", "Upload: gaze, study 2.tsv", "ε-test", "1001.jpg",
                 "-0.5", "#1", "x > 3"):
        assert md_text(name) == name
    assert html_text("P01 (pilot)") == "P01 (pilot)"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF, blacklist_categories=("Cs",)),
               max_size=40))
def test_md_text_property_any_text_is_one_plain_paragraph(text: str) -> None:
    """Any printable text, escaped, renders as at most one paragraph holding exactly that text."""
    out = _parse(_markdown(f"x {md_text(text)} x"))
    assert {t for t, _ in out.tags} <= {"p"}
    assert _plain("".join(out.text)) == _plain(f"x {text} x")


def test_md_cells_escapes_text_cells_headers_and_index() -> None:
    """st.table renders markdown in cells, headers and the index: text is escaped, numbers stay numbers."""
    import pandas as pd

    frame = pd.DataFrame({"[who](https://evil.example)": ["<b>p1</b>", "p_2"], "n": [1.5, 2.0]},
                         index=["![i](https://evil.example/i.png)", "task"])
    out = md_cells(frame)
    assert list(out.columns) == [md_text("[who](https://evil.example)"), "n"]
    assert out.iloc[:, 0].tolist() == [md_text("<b>p1</b>"), "p_2"]
    assert list(out.index) == [md_text("![i](https://evil.example/i.png)"), "task"]
    assert out["n"].tolist() == [1.5, 2.0]


# ---- every call site ---------------------------------------------------------------------------------------------

# Streamlit calls whose text renders markdown (Streamlit 1.67): the body of text elements, every widget label and
# `help=`, expander/popover/tab labels, st.progress/st.image `text`/`caption`, st.metric value and delta.
MARKDOWN_CALLS = {
    "markdown", "caption", "info", "warning", "error", "success", "write", "title", "header", "subheader", "toast",
    "expander", "popover", "tabs", "button", "download_button", "link_button", "page_link", "form_submit_button",
    "checkbox", "toggle", "radio", "selectbox", "multiselect", "slider", "select_slider", "number_input",
    "text_input", "text_area", "date_input", "time_input", "color_picker", "file_uploader", "segmented_control",
    "pills", "metric", "status", "html", "table", "progress", "image",
}
TEXT_KEYWORDS = {"body", "label", "help", "text", "caption", "placeholder"}
# Options of these widgets render markdown too; selectbox and multiselect options are plain text.
MARKDOWN_OPTIONS = {"radio", "segmented_control", "pills", "select_slider"}
# Only these keywords of these calls are text (the first positional argument is not).
KEYWORD_ONLY = {"progress": {"text"}, "image": {"caption"}}
ESCAPERS = {"md_text", "html_text", "md_cells"}
# Functions that turn numbers into text (their result holds no markup).
NUMBER_FORMATTERS = {"fmt_num", "fe", "sci", "plain", "bounded_percent", "len", "int", "float", "round", "eps_text"}
# Names the app gives to counts, sizes and settings numbers (the last identifier of a name or attribute chain).
NUMERIC_NAME = re.compile(r"^(n_\w+|k_max|seed|size|length|min_length|data_length|runs|invocations|"
                          r"windows|released|tested|smallest|single|needed|max_tries|cell_px|cell|width|height|"
                          r"ext_w|ext_h|n_feat|n_rec|values_drawn|shape|screen_px|grid_shape|counts|prefill)$")
NUMERIC_SPEC = re.compile(r"^[<>=^]?[+\- ]?#?0?\d*[,_]?(\.\d+)?[deEfFgGn%]$")

# Values that reach a markdown or HTML call without an escaper, each read and judged not data-derived (or
# escaped where it is built). Keyed by file, then the expression's source text.
ALLOWED: dict[str, dict[str, str]] = {
    "*": {
        # app-made markup builders: constant text and numbers only (their data parts go through ui.text)
        "badge": "ui.widgets.badge: md_text on its text, html_text on its kind",
        "numbers_html": "ui.numbers.numbers_html: html_text on every label, value and help",
        "headline.legend_html": "mechanism labels (registry) and colours",
        "context.accounting_line": "numbers and mechanism labels",
        "accounting_words": "numbers and mechanism labels",
        "noise.guarantee_markdown": "numbers; the stimulus name goes through md_text inside",
        "settings.level_markdown": "numbers and level names",
        "noise_sentence": "numbers and mechanism labels",
        "epsilon_reading": "numbers",
        "export_limit_text": "numbers",
        "geometry.describe": "a preset's name or 'my screen' and numbers",
        "odds_words": "numbers in words",
        "belief_table": "percentages (numbers) only",
        "_bullet_lines": "ui.attacks.panels: md_text on every sentence",
        "_sections": "ui.attacks.panels: constant headings, sentences through _bullet_lines",
        "markdown_table": "method names (constants) and formatted numbers",
        "headline.mech_name": "mechanism names (registry)",
        "context.twice_note": "the setting's ε per person (numbers) and constant words",
        "controls.finer_kaleido_words": "Kaleido's slider values (numbers) and constant words",
        "risk_line.calibrated_words": "ui.risk_line: the calibrated ε (a number), the target's constant words",
        "risk.risk_markdown": "ui.heatmaps.risk, ui.aoi.risk: risk figures (numbers) and constant words",
        "risk_words": "eyedp_core.dp.risk_words: risk figures (numbers) and constant words",
        "state.releases_made()": "a count",
    },
    "ui/risk_line.py": {
        "t.value": "a risk target's enum value (constant)",
        "_kind_label()": "a constant control label",
    },
    "ui/share/report.py": {
        'json.dumps(msg).encode()': "a pipe's write() to Chromium, not Streamlit",
    },
    "ui/heatmaps/targets.py": {
        'mechs': 'the noise families\' enum values (constants)',
        '_pct(v)': 'a percentage',
        '_pct(q)': 'a percentage',
        '_pct(q_value())': 'a percentage',
        'words': 'Measure words (constants)',
        'lines': 'numbers, measure and basis words (constants)',
        'ctx.preview_seed': 'the preview seed (an int)',
        'verdict': 'numbers and constant words',
        'rows': 'a table of numbers and constant row names',
        'u': 'unit names',
        'ctx.short_unit': 'unit names',
        'cands': 'the public candidate caps (numbers)',
        'f.value': 'mechanism families (registry)',
        'targets.difference_sentence(a, b)': 'numbers and guarantee words',
        'name': "'A' or 'B'",
    },
    "pages/gaze_samples.py": {
        'sel.capitalize()': "'stimulus' or 'task' (eyedp_core.gazestream.streams.SELECTION_COLUMNS)",
    },
    "pages/heatmaps.py": {
        'weights': "radio options: 'count' and 'duration'",
        'w': 'privacy_warnings(): numbers only',
        'previews.numbers_markdown(ctx)': 'constant notice, colour bar numbers, html_text on the grid caption, numbers_html',
        'noise.noise_markdown(ctx)': 'numbers and mechanism labels (noise_sentence), numbers_html',
        'release.accounting_markdown(ctx)': 'numbers; md_text on the stimulus name, html_text on the ledger note',
    },
    "pages/home.py": {
        "label.lower()": "a data kind's constant label (state.KINDS)",
        "f'| {p * 100:.0f} % | {bounded_percent(float(b))} |'.replace(' %', '\\xa0%')": 'numbers',
        'lines': 'the Data loaded table: md_text on every dataset and column name',
        'path': 'page paths (constants)',
        'title': 'page titles (constants)',
        'text': 'page descriptions (constants)',
    },
    "pages/report.py": {
        "made": "a count of releases",
        "entries": "a count of ledger entries",
        'text': 'report.cap_status(): the cap and the totals (numbers)',
        'people': 'people = md_cells(people) just above',
        'shown': 'shown = md_cells(shown) just above',
    },
    "pages/time_series.py": {
        'n': 'the transform length (an int)',
        'secs': 'a number of seconds',
        'sentence': 'headline.verdict: numbers and mechanism names',
        'msg': 'ts_recorded_msg: mechanism label and numbers',
        'label': 'mechanism label (registry) and chunk size',
        'nmse_kind': "'var' or 'range'",
        'paper_note': 'a constant sentence',
        'title_md': 'built with md_text for feature, participant and task',
        'badges': 'badge() of constants',
        'sym': "'b' or 'λ'",
        'unit': "'chunk' or 'series'",
        'note': 'context.calibration_note: numbers',
        'hi_s': 'fmt_num()',
        'lo_s': 'fmt_num()',
    },
    "pages/your_data.py": {
        'view.limits_text()': 'the upload limits (numbers)',
    },
    "ui/yourdata/held.py": {
        "source": "one of two constant sentences on where the canvas size comes from",
        'what.capitalize()': 'a count of stimuli in words',
        'people': 'a count of people',
        "state.KINDS[kind]['label']": 'state.KINDS labels (constants)',
    },
    "ui/yourdata/mapping.py": {
        'label': 'constant words and the units name (io.UNITS)',
        'choices': 'radio options: io.UNITS (constants)',
        'derive.THRESHOLD_LABELS[name].capitalize()': 'constants',
        'role.description': 'role descriptions (eyedp_core.io.roles, constants)',
        'role.name': 'role names (constants)',
    },
    "ui/yourdata/panels.py": {
        "'s' * (len(pairs) != 1)": "a plural ending (constant)",
        'view.cap_text(kind)': 'the upload limits (numbers)',
        'msg': 'upload_done: built with md_text for every name (_image, _done, view.derive_fixations)',
        'label': 'the uploader label: constant words per upload kind',
        'shown': 'a row count in words',
        'reader.label': 'reader names (constants)',
        'text': 'a progress text: constant words and md_text on the file name',
    },
    "ui/plan/finder.py": {
        "plan_text(fix, kind, label, finder_epsilon, target)": "numbers, constant kind words and the accountant's "
                                                                "words; the target, the plan's reading error and "
                                                                "a DataError go through md_text inside",
    },
    "ui/plan/add.py": {
        "finder.gaze_text(state.current('fixations'))": "numbers and constant words; the plan's output labels, its "
                                                         "reading error and a DataError go through md_text inside",
    },
    "ui/aoi/panels.py": {
        "list(labels)": "the canvas choices (constants); their labels hold numbers only",
        "labels[0]": "a canvas label: constant words and pixel sizes",
        "caveats[0]": "state.DATA_CANVAS: constant words and pixel sizes",
        "_split_words(eps, len(eq))": "ε and a count",
        "_interval_words(ctx.metrics)": "the metrics' enum values (constants)",
        "expected_error_words(ctx, eps)": "numbers and the metrics' short names (constants)",
        "_count(len(entries), 'ledger entry', 'ledger entries')": "a count and constant words",
        "m.value.capitalize()": "a metric's enum value (constant)",
        "why": "the core's constant reason a metric is not offered",
        "exponent": "a whole number",
        'ctx.table.n': 'the number of observers (an int)',
        'ctx.table.k': 'the number of AOIs (an int)',
        'n': 'observers needed (planning.observers_for_half_width, an int)',
        'tables.metric_table': 'markdown table: metric names (constants), numbers, AOI names through md_text',
        'NEIGHBOURS.capitalize()': 'the neighbouring relation (eyedp_core.aoi.release constant)',
        "st.session_state.get(state.REFUSED_KEY, 'Refused: the ε cap would be exceeded.')":
            'escaped when stored (ui.state.charge), else a constant',
    },
    "ui/attacks/panels.py": {
        'labels': 'md_text on every label column name just above',
        'tr.overlap_sentence': 'numbers',
        'tr.same_draw_sentence': 'numbers',
        'missing': 'constant words for the empty choices',
        'done': 'a count',
        'total': 'a count',
        'step': 'a count',
        'what': 'mechanism label and ε',
        'k_one': 'mechanism labels forced to k = 1',
        "attacks.CLASSIFIERS[c].split(' (')[0]": 'classifier names (constants)',
        'settings.scenarios': "radio options: 'clean' and 'private' (constants)",
        'items[:6]': 'phrases whose task and mechanism names went through md_text where they were made',
        'groups': 'phrases whose task and mechanism names went through md_text where they were made',
        "SCENARIO_LABELS[x].split(' (')[0]": 'scenario labels (constants)',
        "SCENARIO_LABELS.get(scen, scen).split(' (')[0]": 'scenario labels (constants)',
    },
    "ui/errors.py": {
        'eid': 'the error id (hex digits)',
    },
    "ui/heatmaps/noise.py": {
        'lead': 'previews.metrics_html: a ui.numbers row (html_text on every label, value and help)',
        'label': 'metric labels (constants and numbers)',
        'sens.binding': 'constant words',
        'cal.method': 'calibration method names',
        'liu.note': 'numbers',
        "liu.note.removeprefix('WARNING: ')": 'numbers',
    },
    "ui/heatmaps/panels.py": {
        'r': 'a number of cells (an int)',
        'ctx.method': 'calibration method names',
        'note': 'numbers',
        'ctx.short_unit': 'unit names',
        'total': 'numbers',
        'curve.note': 'numbers',
        'choice.note': 'numbers',
        'ctx.mechanism': 'mechanism names',
        'caps': 'numbers',
        'how': 'mechanism label and method name',
        'mech': 'mechanism label',
        "PLANNING_LABEL.split(':')[0]": 'a constant',
        "PLANNING_LABEL.split(':', 1)[1]": 'a constant',
    },
    "ui/heatmaps/previews.py": {
        'images.colour_bar_html(clean.vmax, view.BAR_UNITS[ctx.weight])': 'numbers and unit names',
        'ctx.unit': 'unit names',
        'title': 'mechanism names and numbers',
        'ctx.short_unit': 'unit names',
    },
    "ui/heatmaps/release.py": {
        'what': "state.DATA_CANVAS: 'blank canvas size W × H px …' (numbers)",
        'k': 'a count of releases',
        'r': 'a number of cells (an int)',
        'noise': 'constant sentences',
        'lib': 'numbers',
        'used': 'numbers',
    },
    "ui/heatmaps/settings.py": {
        'k.capitalize()': 'preset names (constants)',
        'list(presets)': 'segmented options: preset keys (constants)',
        'v.label': 'preset labels (constants)',
        'help_c': 'constant words and numbers',
    },
    "ui/runlog.py": {
        'part': "a file's write(), not Streamlit",
    },
    "ui/gazestream/panels.py": {
        'sources[0]': 'the two demographics sources (constants)',
        'n': 'a row count',
        'k': "the slider's k (an int)",
        'label': 'display.summary(): constant labels',
        'value': 'display.summary(): formatted numbers',
        'g.headline': 'eyedp_core.gazestream.explain: constants and numbers',
        'title': 'method names (constants)',
        'g.words': 'eyedp_core.gazestream.explain: constants and numbers',
        'f': "the method's formulas (TeX from eyedp_core.gazestream.explain)",
        'shown': "the method's formulas (TeX from eyedp_core.gazestream.explain)",
        'words': "eyedp_core.gazestream.explain's words (constants, numbers and emphasis) in small type",
        'head': 'the raw trace heading: constant words and md_text of the participant',
        'stimulus_note': 'built with md_text for the stimulus name (ui.gazestream.protect._stimulus)',
        'list(sources)': "radio options: 'seed' and 'bundled'",
        'table2': "the seed's Table 2 (constants)",
        'why': 'the seed comparison (constants and numbers)',
        'scheme_text': 'the generalisation scheme: genders and age ranges',
        'rows_md': 'md_table: md_text on every cell and header',
        'classes_md': 'md_table: md_text on every cell and header',
        'min((s.k for s in schemes))': 'a number',
        'which': 'constant words',
    },
    "ui/gazestream/protect.py": {
        'res.notes': 'k-same-synth notes: numbers',
        '_pd_words(other, s_pd).words': 'constant words and numbers',
        'method': 'method names (constants)',
    },
    "ui/gazestream/table.py": {
        'heading': 'a constant heading',
        'lines': 'method names, guarantees (constants) and notes through md_text',
    },
    "ui/settings.py": {
        'refused': 'escaped when stored (ui.state.charge)',
    },
    "ui/share/exports.py": {
        'bound.words()': 'the Kaleido person bound (numbers)',
        "man['neighbouring_relation']": 'the manifest\'s neighbouring relation (constant words)',
        "man['artefact']": 'export names (constants)',
        "man['guarantee']": 'guarantee words',
        "man['mechanism']": 'mechanism names',
        "man['noise']['values_drawn']": 'a count',
    },
    "ui/share/tools.py": {
        'target': 'a page name checked against PAGE_TITLES',
    },
    "ui/sidebar.py": {
        "spec['label']": 'state.KINDS labels (constants)',
    },
    "ui/theme.py": {
        'css': "the app's own stylesheet (assets/style.css)",
    },
    "ui/timeseries/headline.py": {
        'unit': "'chunk' or 'series'",
        'chunks_txt': 'numbers',
        'sym': "'b' or 'λ'",
    },
    "ui/timeseries/panels.py": {
        "private": "ui.widgets.badge of a constant note",
        "blocks": "a whole number (slider value)",
        'words[c.setting.mode]': 'constant words',
        'line': 'crossing sentences: mechanism labels and numbers',
        'per_person': 'a count of recordings',
        'forms.overall_sentence(rows, target, EPS_RANGE)': 'form names and numbers',
        'frame': 'release-form table: form names, numbers, and the feature name through md_text',
        'r.sentence': 'form names and numbers',
        'difference_sentence(a, b)': 'numbers and guarantee words',
        'name': "'A' or 'B'",
        'summ.label': 'mechanism label and k',
        'summ.unit': "'chunk' or 'series'",
        'sym': "'b' or 'λ'",
        'summ.guarantee': 'guarantee words (constants)',
        'e': 'an exponent of 10 (the select-slider over -3 … 5)',
        'str(10 ** e)': 'a power of 10',
        't': 'the series length (an int)',
        'c.setting.k': 'the number of kept coefficients',
        'n': 'the transform length (an int)',
        'list(range(-3, 6))': 'numbers',
        'c.setting.nmse_kind': "'var' or 'range'",
        'flags': 'badge() of constants',
        'c.setting.label': 'mechanism label and chunk size',
        'source_note': 'built with md_text for the feature name',
        'scale_note': 'constant words',
        'sens_note': 'constant words',
    },
    "ui/timeseries/steil.py": {
        'verdict': 'constant words',
        'same': 'a count',
    },
    "ui/timeseries/view.py": {
        'i': 'a loop index',
        'label': 'mechanism labels',
    },
    "ui/widgets.py": {
        'head': 'calibration title: mechanism and method names',
        'cal.note': 'numbers',
        'help': "log_slider's help: constants from its callers",
        'label': "log_slider's label: constants from its callers",
        'vals': 'numbers',
    },
}
def _name(func: ast.expr) -> str | None:
    """The called name: `st.markdown` -> markdown, `grid[j].caption` -> caption, `(a if c else b)(...)` -> a's."""
    if isinstance(func, ast.IfExp):
        return _name(func.body)
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def _text_args(call: ast.Call, name: str) -> list[ast.expr]:
    """The arguments of a call whose text is rendered."""
    if name in KEYWORD_ONLY:
        return [k.value for k in call.keywords if k.arg in KEYWORD_ONLY[name]]
    args = list(call.args[:1])
    if name == "metric":  # the value and the delta render markdown too
        args += call.args[1:3] + [k.value for k in call.keywords if k.arg in ("value", "delta")]
    if name in MARKDOWN_OPTIONS:  # the options, and what format_func makes of them, render markdown
        args += call.args[1:2] + [k.value for k in call.keywords if k.arg == "options"]
        args += [_format_func_result(k.value) for k in call.keywords if k.arg == "format_func"]
    return args + [k.value for k in call.keywords if k.arg in TEXT_KEYWORDS]


def _format_func_result(func: ast.expr) -> ast.expr:
    """What a format_func returns, as an expression to judge: `TABLE.get` -> a constant table's value, a lambda ->
    its body, a function -> a call of it."""
    if isinstance(func, ast.Lambda):
        return func.body
    if isinstance(func, ast.Attribute) and func.attr == "get":
        return ast.Subscript(value=func.value, slice=ast.Constant(0))
    return ast.Call(func=func, args=[], keywords=[])


def _is_upper(node: ast.expr) -> bool:
    """A module constant (UPPER_CASE name, possibly dotted) or a table looked up in one."""
    if isinstance(node, ast.Name):
        return node.id.isupper() or node.id.upper() == node.id
    if isinstance(node, ast.Attribute):
        return node.attr.isupper()
    return False


def _numeric(node: ast.expr) -> bool:
    """A count or size by the app's naming (n_observers, x.shape[0], counts[1], rows.size) or arithmetic on them."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float))
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv)):
        return _numeric(node.left) and _numeric(node.right)
    if isinstance(node, ast.Subscript):
        return _numeric(node.value)
    if isinstance(node, ast.Call):
        return _name(node.func) in NUMBER_FORMATTERS
    last = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    return bool(NUMERIC_NAME.match(last))


def _unsafe(node: ast.expr, allowed: dict[str, str]) -> list[str]:
    """The parts of a rendered expression that are neither escaped, nor numbers, nor constants, nor allowed."""
    src = ast.unparse(node)
    if src in allowed:
        return []
    if isinstance(node, ast.Constant) or _numeric(node):
        return []
    if isinstance(node, ast.BoolOp):
        return [bad for v in node.values for bad in _unsafe(v, allowed)]
    if isinstance(node, ast.JoinedStr):
        return [bad for v in node.values for bad in _unsafe(v, allowed)]
    if isinstance(node, ast.FormattedValue):
        spec = node.format_spec
        if isinstance(spec, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in spec.values):
            if NUMERIC_SPEC.match("".join(v.value for v in spec.values)):
                return []  # a number format: a string would raise
        return _unsafe(node.value, allowed)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _unsafe(node.left, allowed) + _unsafe(node.right, allowed)
    if isinstance(node, ast.IfExp):
        return _unsafe(node.body, allowed) + _unsafe(node.orelse, allowed)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [bad for e in node.elts for bad in _unsafe(e, allowed)]
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return _unsafe(node.elt, allowed)
    if isinstance(node, (ast.Name, ast.Attribute)) and _is_upper(node):
        return []
    if isinstance(node, ast.Subscript) and _is_upper(node.value):
        return []  # a value of a constant table
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
        return [bad for v in node.value.values for bad in _unsafe(v, allowed)]  # a value of a literal table
    if isinstance(node, ast.Call):
        fname = _name(node.func)
        if fname in ESCAPERS or fname in NUMBER_FORMATTERS:
            return []
        if fname in allowed or (isinstance(node.func, ast.Attribute) and ast.unparse(node.func) in allowed):
            return []
        if fname == "str" and node.args and isinstance(node.args[0], ast.Call) and _name(node.args[0].func) in (
                NUMBER_FORMATTERS):
            return []
        if (isinstance(node.func, ast.Attribute) and node.func.attr == "format"
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "style"):
            return _unsafe(node.func.value.value, allowed)  # frame.style.format(...): the frame is what shows
        if isinstance(node.func, ast.Attribute) and node.func.attr == "join":  # "sep".join(parts)
            return _unsafe(node.func.value, allowed) + [bad for a in node.args for bad in _join_parts(a, allowed)]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "format" and isinstance(
                node.func.value, ast.Constant):
            return [bad for a in [*node.args, *(k.value for k in node.keywords)] for bad in _unsafe(a, allowed)]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and _is_upper(node.func.value):
            return [bad for a in node.args[1:] for bad in _unsafe(a, allowed)]  # the default, if any
        if fname == "list" and node.args and _is_upper(node.args[0]):
            return []  # the keys of a constant table
    return [src]


def _join_parts(arg: ast.expr, allowed: dict[str, str]) -> list[str]:
    """The parts joined by `"sep".join(arg)`: a comprehension's element, or `map(escaper, ...)`."""
    if isinstance(arg, (ast.GeneratorExp, ast.ListComp)):
        return _unsafe(arg.elt, allowed)
    if isinstance(arg, ast.Call) and _name(arg.func) == "map" and arg.args:
        f = arg.args[0]
        return [] if isinstance(f, ast.Name) and (f.id in ESCAPERS or f.id in NUMBER_FORMATTERS or f.id == "str"
                                                  and _all_numbers(arg.args[1:])) else [ast.unparse(arg)]
    return _unsafe(arg, allowed)


def _all_numbers(args: list[ast.expr]) -> bool:
    """`map(str, sorted(chosen))` and the like over values known to be numbers (k values, per-chunk k)."""
    return all(ast.unparse(a) in ("sorted(chosen)", "opt.per_chunk_k.tolist()") for a in args)


def rendered_unescaped(files: list[Path]) -> list[str]:
    """Every value that reaches a markdown- or HTML-rendering call unescaped and not allowed, as 'file:line: expr'."""
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        allowed = {**ALLOWED["*"], **ALLOWED.get(rel, {})}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            html = any(k.arg == "unsafe_allow_html" and isinstance(k.value, ast.Constant) and k.value.value
                       for k in node.keywords)
            if name not in MARKDOWN_CALLS and not html:
                continue
            for arg in _text_args(node, name or ""):
                found += [f"{rel}:{node.lineno}: {bad}" for bad in _unsafe(arg, allowed)]
    return found


def _app_files() -> list[Path]:
    return sorted([*ROOT.glob("pages/*.py"), *ROOT.glob("ui/**/*.py"), ROOT / "app.py"])


def test_every_rendered_value_is_escaped_or_allowed() -> None:
    """Every value formatted into markdown or HTML on a page goes through ui.text, or is a listed app-made value."""
    bad = rendered_unescaped(_app_files())
    assert not bad, "unescaped data-derived text in markdown/HTML:\n" + "\n".join(bad)


def test_the_check_finds_what_it_must(tmp_path: Path) -> None:
    """The enumeration catches names, messages and ids formatted raw into markdown, labels and HTML, and passes
    their escaped forms."""
    code = '''
import streamlit as st
st.markdown(f"<b>{feature}</b>", unsafe_allow_html=True)
st.error(f"{ds.name}: {err}")
st.caption("Participant " + who + ".")
st.number_input(f"L ({f})", value=1.0)
st.info(note)
grid[j].markdown("; ".join(f"'{col}' {why}" for col, why in excluded.items()))
st.table(joint)
st.progress(0.1, text=f"Reading {name}")
st.markdown(f"**{md_text(feature)}** at ε = {eps:.3g}, {fmt_num(x)} of {len(xs)}")
st.error(f"{md_text(ds.name)}: {md_text(err)}")
st.markdown("; ".join(map(md_text, names)))
st.radio("Mechanism", list(MECHS), format_func=MECHS.get)
st.radio("Who", people, format_func=lambda p: p.name)
'''
    f = tmp_path / "page.py"
    f.write_text(code)
    global ROOT
    old, ROOT = ROOT, tmp_path
    try:
        bad = rendered_unescaped([f])
    finally:
        ROOT = old
    assert sorted(b.split(": ", 1)[1] for b in bad) == sorted(["feature", "ds.name", "err", "who", "f", "note", "col",
                                                               "why", "joint", "name", "people", "p.name"])
