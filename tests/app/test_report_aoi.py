"""The review-board report's Areas of interest section: each charged AOI release with the source of its AOIs, its
guarantee, the ε share, sensitivity and noise scale of every noisy sum and the released table with its 95 %
half-widths, all equal to the manifest's and the ledger's numbers; the clean tables only in the curator's full
report; AOI and stimulus names from uploads shown as text."""
from __future__ import annotations

import math
import os
import re
from html.parser import HTMLParser

import pytest

from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.aoi.observers import AoiBounds, observer_table
from eyedp_core.aoi.parse import aois_to_table
from eyedp_core.aoi.release import DRAWN_ON_DATA, AoiSource, ledger_releases, release_aois
from eyedp_core.aoi.shapes import polygon, rectangle
from eyedp_core.data.bundled import load_sample
from eyedp_core.dp.accounting import Ledger
from eyedp_core.report import SECTIONS, ReleasedAois, ReportInput, build_html
from eyedp_core.report.html import fmt
from tests.app.test_text_escaping import PAYLOADS

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
METRICS = (AoiMetric.HIT_RATIO, AoiMetric.DWELL, AoiMetric.TTFF, AoiMetric.TRANSITIONS)
N_OBSERVERS = 40  # the bundled fixation sample's observers of 'webpage'


class _Tables(HTMLParser):
    """Every table as rows of cell texts, every start tag with its attributes, and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _parse(fragment: str) -> _Tables:
    p = _Tables()
    p.feed(fragment)
    return p


def _section(doc: str, key: str) -> str:
    m = re.search(rf'<section id="{key}">(.*?)</section>', doc, flags=re.S)
    assert m, key
    return m.group(1)


def _frame_rows(frame, index_label: str) -> list[list[str]]:
    """A DataFrame as the rows of cell texts the report must show (the report's own number format)."""
    head = [index_label, *map(str, frame.columns)]
    return [head] + [[str(name), *(fmt(float(v)) for v in row)]
                     for name, row in zip(frame.index, frame.itertuples(index=False), strict=True)]


def _release(aois, stimulus: str, epsilon: float, *, on_data: bool, source: AoiSource):
    """The core's AOI release of the bundled webpage fixations, as the page does it: ledger entries, then OpenDP."""
    f = load_sample("fixations")
    table = observer_table(f[f["stimulus"] == "webpage"], aois, AoiBounds())
    entries = ledger_releases(table, METRICS, epsilon, stimulus, aois_from_data=on_data)
    defs = aois_to_table(aois).astype(object).where(aois_to_table(aois).notna(), None).to_dict("records")
    rel = release_aois(table, METRICS, epsilon, stimulus, defs, aois_from_data=on_data, aoi_source=source)
    return entries, rel


def _input(ledger: Ledger, released: list[ReleasedAois], release_safe: bool) -> ReportInput:
    return ReportInput(ledger=ledger, artefacts=[], data={}, config_json="{}", version={"eyedp": "test"},
                       release_safe=release_safe, aoi_releases=released)


AOIS = (rectangle("call to action", 990, 580, 1138, 620), rectangle("header", 0, 0, 1280, 120),
        polygon("left half", [(0, 0), (640, 0), (640, 800), (0, 800)]))


@pytest.fixture(scope="module")
def session():
    """A ledger holding a Heatmaps-free session with two AOI releases (the second drawn on the data)."""
    e1, r1 = _release(AOIS, "webpage", 2.0, on_data=False, source=AoiSource.TABLE)
    e2, r2 = _release(AOIS[:2], "webpage", 5.0, on_data=True, source=AoiSource.BUNDLED)
    ledger = Ledger([*e1, *e2])
    released = [ReleasedAois(r1, tuple(range(1, len(e1) + 1))),
                ReleasedAois(r2, tuple(range(len(e1) + 1, len(e1) + len(e2) + 1)))]
    return ledger, released


def test_the_section_states_the_manifest_and_ledger_numbers(session) -> None:
    ledger, released = session
    doc = build_html(_input(ledger, released, True))
    assert list(re.findall(r'<section id="(\w+)">', doc)) == list(SECTIONS)
    sec = _section(doc, "aois")
    blocks = sec.split('<div class="artefact">')[1:]
    assert len(blocks) == 2
    for r, block in zip(released, blocks, strict=True):
        man = r.release.manifest
        text = "".join(_parse(block).text)
        # The guarantee and its composition: the manifest's ε per observer, equal to the ledger entries' sum.
        charged = sum(ledger.releases[i - 1].epsilon_total for i in r.entries)
        assert charged == pytest.approx(man["epsilon_per_observer"])
        assert f"ε = {fmt(man['epsilon_per_observer'])}, δ = 0" in text
        assert f"the {len(r.entries)} ledger entries charged ε = {fmt(charged)} per observer in all." in text
        assert f"ledger entries {r.entries[0]}–{r.entries[-1]}" in text
        assert man["neighbouring_relation"] in text and man["composition"] in text
        assert f"{N_OBSERVERS} observers of 'webpage'" in text
        assert ("dwell per AOI (s) = 5; time to first fixation (s) = 10; revisits per AOI = 5; transitions in total "
                "= 40; fixations over all AOIs = 40; dwell over all AOIs (s) = 10") in text  # AoiBounds()'s
        tables = _parse(block).tables
        # Every noisy sum: ε share, L1 sensitivity, Laplace b, the lattice b drawn: the manifest's, row by row.
        queries = next(t for t in tables if t[0][0] == "Noisy sum")
        assert queries[1:] == [[q["query"], fmt(q["epsilon"]), fmt(q["l1_sensitivity"]), fmt(q["scale_formula"]),
                                fmt(q["scale_released"]), fmt(q["lattice_k"]), fmt(q["values"])]
                               for q in man["queries"]]
        k = len(man["aois"])
        for q in man["queries"]:  # an independent check of the calibration the section repeats
            assert q["epsilon"] == pytest.approx(man["epsilon_per_observer"] / 4)  # 4 sums for these 4 metrics
            want = {"observers who looked": k, "dwell time sum": min(k * 5.0, 2 * 10.0),
                    "time to first fixation sum": k * 10.0, "transition counts": 2 * 40.0}[q["query"]]
            assert q["l1_sensitivity"] == want
            assert q["scale_formula"] == pytest.approx(want / q["epsilon"])
            assert q["scale_formula"] <= q["scale_released"] <= 1.01 * q["scale_formula"]
        # The released table, every value and half-width, exactly as exported.
        assert _frame_rows(r.release.table, "AOI") in tables
        assert _frame_rows(r.release.transitions, "from") in tables
        dwell = next(q for q in man["queries"] if q["query"] == "dwell time sum")
        hw = r.release.table["dwell time ± 95 %"]
        assert hw.to_numpy() == pytest.approx(dwell["scale_released"] * math.log(20) / N_OBSERVERS)
        assert f"± {fmt(man['transitions_half_width'])}" in text
    first, second = ("".join(_parse(b).text) for b in blocks)
    assert "from a table edited on the page" in first and "Not flagged" in first and DRAWN_ON_DATA not in first
    assert "bundled (the simulator's regions" in second and f"Flagged: {DRAWN_ON_DATA}." in second


def test_clean_values_only_in_the_curators_full_report(session) -> None:
    ledger, released = session
    safe = build_html(_input(ledger, released, True))
    full = build_html(_input(ledger, released, False))
    safe_tables = _parse(safe).tables
    full_tables = _parse(full).tables
    for r in released:
        clean, clean_tr = _frame_rows(r.release.clean, "AOI"), _frame_rows(r.release.clean_transitions, "from")
        assert clean[1:] and clean != _frame_rows(r.release.table, "AOI")
        # No row of a clean table anywhere in the release-safe report ...
        safe_rows = [row for t in safe_tables for row in t]
        assert not any(row in safe_rows for row in clean[1:] + clean_tr[1:])
        # ... and in the full report, only inside the curator's marked section.
        unprotected = _parse(_section(full, "unprotected")).tables
        assert clean in unprotected and clean_tr in unprotected and clean in full_tables
        for key in SECTIONS:
            if key != "unprotected":
                assert clean not in _parse(_section(full, key)).tables, key
        # The private table is the same in both (a release).
        assert _frame_rows(r.release.table, "AOI") in _parse(_section(safe, "aois")).tables
    assert "NOT PROTECTED" in _section(full, "unprotected")
    assert "clean AOI tables" in _section(safe, "unprotected")


def test_an_empty_session_says_no_aoi_table_was_released() -> None:
    doc = build_html(_input(Ledger(), [], True))
    assert "No areas-of-interest table was released" in _section(doc, "aois")


def _hostile_report(name: str) -> str:
    aois = (rectangle(name, 990, 580, 1138, 620), rectangle("header", 0, 0, 1280, 120))
    entries, rel = _release(aois, name, 1.0, on_data=True, source=AoiSource.UPLOAD)
    return build_html(_input(Ledger(entries), [ReleasedAois(rel, (1, 2, 3, 4))], False))


@pytest.mark.parametrize("payload", PAYLOADS[:8])
def test_hostile_aoi_and_stimulus_names_render_as_text(payload: str) -> None:
    """An AOI and a stimulus named with markup: the same elements and attributes as with a plain name, the name
    on the page as its own text (in the definitions, the private table and the curator's clean table)."""
    hostile, plain = _parse(_hostile_report(payload)), _parse(_hostile_report("plain_name"))
    assert hostile.tags == plain.tags
    assert not any("evil" in str(attrs) for _, attrs in hostile.tags)
    cells = [row[0] for t in hostile.tables for row in t if row]
    assert cells.count(payload) >= 4  # definitions, private table, transitions (from), clean table, ...
    assert f"AOI table of '{payload}'" in "".join(hostile.text)


def test_the_report_page_shows_the_aoi_page_export() -> None:
    """AppTest: export on the Areas of interest page, then build the report on the Report page: its AOI section
    holds the exported manifest's numbers and the exported CSV's values."""
    import io
    import json

    import pandas as pd

    from tests.apptest import open_app

    at = open_app("pages/areas_of_interest.py", timeout=240)
    at.selectbox(key="aoi_stimulus").set_value("webpage").run()
    at.radio(key="aoi_source").set_value("grid").run()
    at.number_input(key="aoi_grid_cols").set_value(2).run()
    at.number_input(key="aoi_grid_rows").set_value(2).run()
    at.select_slider(key="aoi_epsilon").set_value(2.0).run()
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    csv, manifest, _ = at.session_state["aoi_release_result"]
    man = json.loads(manifest)
    assert man["aoi_source"] == "grid" and man["epsilon_per_observer"] == 2.0
    at.switch_page("pages/report.py").run()
    at.button(key="rp_build").click().run()
    assert not at.exception, at.exception
    doc = at.session_state["rp_report_html"].decode()  # the release-safe report (the page's default)
    sec = _parse(_section(doc, "aois"))
    text = "".join(sec.text)
    assert "from a regular grid" in text and "ledger entries 1–3" in text
    assert f"ε = {fmt(2.0)}, δ = 0" in text and "charged ε = 2 per observer in all." in text
    queries = next(t for t in sec.tables if t[0][0] == "Noisy sum")
    assert queries[1:] == [[q["query"], fmt(q["epsilon"]), fmt(q["l1_sensitivity"]), fmt(q["scale_formula"]),
                            fmt(q["scale_released"]), fmt(q["lattice_k"]), fmt(q["values"])]
                           for q in man["queries"]]
    exported = pd.read_csv(io.StringIO(csv), index_col=0)
    shown = next(t for t in sec.tables if t[0][0] == "AOI" and t[0][1:] == list(exported.columns))
    assert len(shown) == 5  # header and the four grid cells
    for row, (name, values) in zip(shown[1:], exported.iterrows(), strict=True):
        assert row[0] == name
        # The CSV holds the values to 17 digits: the report shows the same numbers in its 4-digit format.
        assert row[1:] == [fmt(float(v)) for v in values]
    assert "clean table of" not in doc
