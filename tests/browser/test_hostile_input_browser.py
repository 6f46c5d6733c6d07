"""Hostile input in the real browser: script, markup and link payloads in file names, column names, participant
and stimulus ids and URL values must show as text on every page that names them.

Asserted on each page: no dialog opens, no element from a payload is in the DOM (iframe, form posting elsewhere,
password field, meta refresh, page-wide style, link or image to the payload's host), no request leaves for a host
other than the app's, no exception box and no error id; and the payload's text is on the page (so the test saw
the place that names it).
"""
from __future__ import annotations

from urllib.parse import urlencode, urlparse

import numpy as np
import pandas as pd
import pytest

import harness

pytestmark = pytest.mark.browser

PAYLOADS = (
    '<iframe srcdoc="<script>parent.alert(11)</script>">',
    "<script>alert(1)</script>",
    "[Session expired – log in](https://evil.example/login)",
    "![x](https://evil.example/p.png)",
    '<form action="https://evil.example"><input type=password></form>',
    "<style>body{display:none}</style>",
    '<meta http-equiv="refresh" content="5;url=https://evil.example">',
    '<a href="https://evil.example">x</a>',
)
# Text each payload shows when it is rendered as text (fragments without ':' or '@': md_text puts an invisible
# word joiner after those, which text matching would trip over).
VISIBLE = ("parent.alert(11)", "<script>alert(1)</script>", "Session expired – log in", "![x]",
           "<input type=password>", "<style>body{display", '<meta http-equiv="refresh"', ">x</a>")

FOUND_IN_DOM = """() => {
    const bad = [];
    const all = (sel) => Array.from(document.querySelectorAll(sel));
    all('iframe').forEach(e => bad.push('iframe ' + (e.getAttribute('srcdoc') || e.src)));
    all('form[action], input[type=password]').forEach(e => bad.push(e.outerHTML.slice(0, 80)));
    all('meta[http-equiv]').forEach(e => bad.push('meta ' + e.outerHTML));
    all('[href*="evil.example"], [src*="evil.example"], [action*="evil.example"], [srcset*="evil.example"]')
        .forEach(e => bad.push(e.tagName + ' ' + e.outerHTML.slice(0, 80)));
    all('style').filter(s => s.textContent.includes('body{display:none}'))
        .forEach(s => bad.push('style ' + s.textContent.slice(0, 60)));
    all('script').filter(s => s.textContent.includes('alert('))
        .forEach(s => bad.push('script ' + s.textContent.slice(0, 60)));
    if (getComputedStyle(document.body).display === 'none') bad.push('body hidden');
    return bad;
}"""


class Watch:
    """Dialogs and requests of a page, from the moment it is watched."""

    def __init__(self, page) -> None:
        self.dialogs: list[str] = []
        self.foreign: list[str] = []
        page.on("dialog", self._dialog)
        page.on("request", self._request)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request) -> None:
        url = urlparse(request.url)
        if url.scheme in ("data", "blob", "about") or url.hostname in ("127.0.0.1", "localhost"):
            return
        self.foreign.append(request.url)


def _clean(page, watch: Watch, where: str, visible: tuple[str, ...] = ()) -> None:
    """The page `where` shows the payloads only as text."""
    for text in visible:  # wait for the place that names the payload (the page may still be drawing)
        page.wait_for_function(
            "t => document.querySelector('[data-testid=\"stAppViewContainer\"]').innerText.includes(t)",
            arg=text, timeout=120_000)
    harness.wait_idle(page, 300_000)
    assert page.locator('[data-testid="stException"]').count() == 0, where
    assert page.get_by_text("error id").count() == 0, where
    assert page.evaluate(FOUND_IN_DOM) == [], where
    assert watch.dialogs == [], where
    assert watch.foreign == [], where


def _nav(page, title: str) -> None:
    """Move within the session (a page.goto would start a new one and lose the uploads)."""
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    heading = "EyeDP" if title == "Home" else title  # each page's title (harness.PAGES)
    page.get_by_role("heading", name=heading).first.wait_for(timeout=120_000)
    harness.wait_idle(page, 300_000)


def _upload(page, kind_label: str, name: str, frame: pd.DataFrame) -> None:
    """On Your data: choose the kind, send the table through the real file input (guessed mapping), use it."""
    page.get_by_text(kind_label, exact=True).click()
    harness.wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": frame.to_csv(index=False).encode()}])
    page.get_by_role("button", name="Use this data").wait_for(timeout=60_000)
    harness.wait_idle(page)
    page.get_by_role("button", name="Use this data").click()
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="loaded (").wait_for(timeout=120_000)
    harness.wait_idle(page)


def _tables() -> dict[str, pd.DataFrame]:
    """Gaze samples, a feature table and a fixation table whose ids and column names are the payloads."""
    rng = np.random.default_rng(11)
    people = list(PAYLOADS)
    n = 400  # samples per person, 100 Hz
    gaze = pd.DataFrame({"participant": np.repeat(people, n), "t_s": np.tile(np.arange(n) / 100.0, len(people)),
                         "x": rng.uniform(100, 1800, n * len(people)), "y": rng.uniform(100, 1000, n * len(people))})
    t = 120  # windows per person
    feats = {"participant": np.repeat(people, t)}
    for i, name in enumerate(PAYLOADS):  # every feature column is named by a payload
        feats[name] = (np.cumsum(rng.normal(0, 0.02, (len(people), t)), axis=1) + i).ravel()
    features = pd.DataFrame(feats)
    m = 15  # fixations per observer and stimulus
    observers = [f"{p} #{i}" for i in range(2) for p in PAYLOADS]  # 16 observers, ids are payloads
    fix = pd.DataFrame({"observer": np.repeat(observers, m), "stimulus": PAYLOADS[2],
                        "x": rng.uniform(50, 600, m * len(observers)), "y": rng.uniform(50, 400, m * len(observers)),
                        "duration_ms": rng.uniform(100, 400, m * len(observers))})
    for name in PAYLOADS:  # extra columns named by the payloads (listed on Home and Your data)
        fix[name] = 1.0
    return {"gaze": gaze, "features": features, "fixations": fix}


def test_payloads_in_names_and_ids_show_as_text_on_every_page(page, app_url, shots):
    """Uploads whose file names, column names and participant/observer/stimulus ids are the payloads."""
    watch = Watch(page)
    tables = _tables()
    harness.goto(page, f"{app_url}/your_data")
    names = {"gaze": "".join(PAYLOADS[:4]) + ".csv", "features": "".join(PAYLOADS[4:]) + ".csv",
             "fixations": PAYLOADS[1] + PAYLOADS[7] + ".csv"}
    _upload(page, "Raw gaze samples (CSV/TSV)", names["gaze"], tables["gaze"])
    _clean(page, watch, "Your data after the gaze upload", ("Session expired – log in", "parent.alert(11)"))
    _upload(page, "Feature windows (CSV/TSV)", names["features"], tables["features"])
    _clean(page, watch, "Your data after the feature upload", ("<input type=password>",))
    _upload(page, "Fixations (CSV/TSV)", names["fixations"], tables["fixations"])
    _clean(page, watch, "Your data after the fixation upload", ("<script>alert(1)</script>",))

    _nav(page, "Home")  # the Data loaded table: dataset (file) names and every column name
    _clean(page, watch, "Home", VISIBLE)

    _nav(page, "Time series")  # feature names: bounds grid, labels, captions; participant ids: titles
    harness.figure_drawn(page, 120_000, picture_only=True)
    _clean(page, watch, "Time series", VISIBLE)
    page.get_by_text("Interactive chart (hover, zoom; slower)").click()  # Plotly title with the names
    harness.wait_idle(page, 120_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=120_000)
    _clean(page, watch, "Time series, interactive chart", ("parent.alert(11)",))
    title = page.locator(".js-plotly-plot .gtitle").first.text_content()
    assert title.startswith(PAYLOADS[0] + " — "), title  # Plotly shows the name as it is, quotes included
    harness.screenshot(page, str(shots / "hostile_time_series.png"))
    page.locator('[data-testid="stMain"] [data-testid="stButtonGroup"]').get_by_text(
        "Correlation", exact=True).click()  # its figure's title names the feature
    harness.wait_idle(page, 300_000)
    page.wait_for_selector(".js-plotly-plot .gtitle >> text=CC with the 5th sample", timeout=120_000)
    _clean(page, watch, "Time series, correlation panel", ("parent.alert(11)",))
    page.get_by_role("button", name="Record in the privacy ledger").click()  # for the Report below
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="Recorded").wait_for(timeout=120_000)
    harness.wait_idle(page, 300_000)

    _nav(page, "Attacks")  # the feature table's name and columns
    _clean(page, watch, "Attacks", ("<input type=password>",))

    _nav(page, "Heatmaps")  # stimulus and table names in the caption, observer ids in the data
    harness.figure_drawn(page, 120_000)
    _clean(page, watch, "Heatmaps", ("Session expired – log in", "<script>alert(1)</script>"))

    _nav(page, "Gaze samples")  # participant ids: the raw view's title, data notes
    harness.figure_drawn(page, 120_000)
    _clean(page, watch, "Gaze samples", ("Raw gaze of ![x](https",))  # the first participant in order
    page.locator('[data-testid="stMain"] [data-testid="stRadio"] label').filter(
        has_text="Protect the stream").first.click()  # the protected scanpaths and their table name the person
    harness.wait_idle(page, 300_000)
    harness.figure_drawn(page, 300_000)
    _clean(page, watch, "Gaze samples, protect view", ("![x](https",))

    _nav(page, "Report")
    page.get_by_text("Releases", exact=True).first.wait_for(timeout=120_000)
    _clean(page, watch, "Report")
    _nav(page, "Your data")  # "Your data in this session": every upload's name
    _clean(page, watch, "Your data, the session's uploads", ("Session expired – log in", "<input type=password>"))
    page.wait_for_timeout(5_500)  # a meta refresh would have fired by now
    _clean(page, watch, "after 5 s")


def test_payloads_in_a_shared_link_show_as_text(page, app_url, shots):
    """Unknown keys and bad values of known keys, all payloads, are quoted as text in the warning."""
    watch = Watch(page)
    query = {PAYLOADS[0]: "1", PAYLOADS[1]: "1", PAYLOADS[2]: "1", PAYLOADS[7]: "1",  # unknown keys
             "hm_eps": PAYLOADS[3], "ts_eps": PAYLOADS[4], "ts_length": PAYLOADS[5], "ts_seed": PAYLOADS[6],
             # Streamlit's own markdown: icons, colours, math, bare and e-mail links, a heading
             "# :material/home: :red[red] $x^2$": "1", "www.evil.example mail@evil.example": "1",
             "https://evil.example/x": "1"}
    # ui.settings quotes at most 40 characters of a value: what is left of each payload must show as text.
    shown = ("<iframe srcdoc=", "<script>alert(1)</script>", "Session expired – log in", "![x](https",
             "<form action=", "<style>body{display", '<meta http-equiv="refresh"', ">x</a>")
    harness.goto(page, f"{app_url}/time_series?{urlencode(query)}", 300_000)
    warning = page.locator('[data-testid="stAlertContentWarning"]').filter(has_text="could not be restored")
    warning.first.wait_for(timeout=120_000)
    _clean(page, watch, "Time series from a hostile link", shown)
    text = warning.first.inner_text()
    assert all(v in text for v in shown), text  # every payload quoted, as text, in EyeDP's own box
    assert "$x^2$" in text and ":red[red]" in text.replace("\u2060", "")
    box = warning.first
    assert box.locator(".katex, h1, span[style*='color']").count() == 0
    assert box.locator('[data-testid="stMarkdownContainer"] span[role="img"]').count() == 0  # no :material: icon
    harness.screenshot(page, str(shots / "hostile_link.png"))
    page.wait_for_timeout(5_500)  # a meta refresh would have fired by now
    _clean(page, watch, "after 5 s")
