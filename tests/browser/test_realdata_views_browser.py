"""Every real gaze-sample file in ../shared/realdata, uploaded whole through the real upload widget on Your data, made
into feature windows there, and opened on Heatmaps, Time series, Attacks and Gaze samples in the same session.

Per file: "Use this data" (fixations detected on upload where the page offers it), "Make feature windows" on the raw
gaze (non-overlapping windows of the suggested length: the cheapest honest setting), then each view must draw its
figure (the element itself is waited for) with no exception box, no error message and no error id. Views a file
cannot feed say why in words (one reader has no heatmap of a mean over observers, no attack) and that sentence is
asserted instead. One recording gets a participants table (participant -> gender) beside it: the gender attack
runs on Attacks from it. Each step's time is printed (`-s` shows them) for the table in the closing note.

OSIE's fixation walk (10,497 recordings, 1-4 min) runs with EYEDP_REALDATA_ALL=1; the Uniss-FGD sample export
(25 MB, 2.16 million samples, ~2.5 min) always runs, whole.

The Lund 2013 .mat files hold the same samples as lund2013_samples.csv.gz in MATLAB's format, which the app does
not read (the uploader refuses the extension); osie and sbsat hold no gaze samples.
"""
from __future__ import annotations

import gzip
import os
import time
from pathlib import Path

import pytest

import harness

pytestmark = pytest.mark.browser
REALDATA = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"
needs_realdata = pytest.mark.skipif(not REALDATA.is_dir(), reason=f"real recordings not found at {REALDATA}")
MAIN = '[data-testid="stMain"]'
ERROR_BOX = f'{MAIN} [data-testid="stAlertContentError"]'


def _mime(name: str) -> str:
    return "application/gzip" if name.endswith(".gz") else ("text/csv" if name.endswith(".csv") else "text/plain")


class Steps:
    """Times each step of one file's walk and keeps (step, seconds) for the printed table."""

    def __init__(self, name: str) -> None:
        self.name, self.rows, self.t = name, [], time.perf_counter()

    def done(self, step: str, outcome: str = "ok") -> None:
        now = time.perf_counter()
        self.rows.append((step, outcome, now - self.t))
        print(f"REALDATA | {self.name} | {step} | {outcome} | {now - self.t:.1f} s", flush=True)
        self.t = now


def _clean(page, where: str) -> None:
    """No exception box, no error message, no error id on the page."""
    harness.no_crash(page, f"on {where}")
    errors = page.locator(ERROR_BOX).all_text_contents()
    assert not errors, f"error on {where}: {errors}"


def _wait(page, selector: str, where: str, timeout_ms: float = 60_000) -> None:
    """Wait for `selector`; on a timeout fail with what the page says instead (its errors or notes)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_selector(selector, timeout=timeout_ms)
    except PlaywrightTimeout:
        text = page.locator(MAIN).inner_text()[:3000]
        raise AssertionError(f"{where}: nothing matched {selector} within {timeout_ms / 1000:g} s; the page says:\n"
                             f"{text}") from None


def _nav(page, title: str, timeout_ms: float = 300_000) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    harness.wait_idle(page, timeout_ms)


def _upload(page, app_url: str, name: str, data: bytes, kind: str = "Raw gaze samples (CSV/TSV)") -> None:
    """Fresh session on Your data: the kind chosen, the whole file sent, 'Use this data' pressed."""
    harness.goto(page, f"{app_url}/your_data")
    page.get_by_text(kind, exact=True).click()
    harness.wait_idle(page)
    page.locator('[data-testid="stFileUploader"] input[type="file"]').first.set_input_files(
        files=[{"name": name, "mimeType": _mime(name), "buffer": data}])
    harness.wait_idle(page, 300_000)
    button = page.get_by_role("button", name="Use this data")
    button.wait_for(timeout=300_000)
    _clean(page, "Your data (preview)")
    button.click()
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text=name).wait_for(timeout=600_000)
    harness.wait_idle(page, 300_000)
    _clean(page, "Your data (loaded)")


def _participants(page, name: str, csv: bytes) -> None:
    """Upload a participants table beside the recording; its labels are announced."""
    page.locator('[data-testid="stFileUploader"]').filter(has_text="Participants table").locator(
        'input[type="file"]').set_input_files(files=[{"name": name, "mimeType": "text/csv", "buffer": csv}])
    harness.wait_idle(page)
    page.get_by_text("labels: gender", exact=False).first.wait_for(timeout=60_000)
    _clean(page, "Your data (participants)")


def _gaze_panel(page, name: str, kind: str = "Gaze streams"):
    """The upload's panel on Your data (raw gaze by default), opened (a re-run may draw it closed again)."""
    panel = page.locator('[data-testid="stExpander"]').filter(has_text=f"{kind}: {name}").first
    button = panel.get_by_role("button", name="Make feature windows")
    if not button.is_visible():
        panel.locator("summary").first.click()
        harness.wait_idle(page)
    button.wait_for(timeout=30_000)
    return panel


def _make_windows(page, name: str, kind: str = "Gaze streams") -> str:
    """Set the raw-gaze upload's step to its window length (windows side by side: the cheapest honest setting),
    press Make feature windows; -> the sentence naming the file and the feature-window step."""
    panel = _gaze_panel(page, name, kind)
    window = panel.get_by_label("Window length (s)", exact=True).input_value()
    step = panel.get_by_label("Step (s)", exact=True)
    if float(step.input_value()) != float(window):
        step.fill(window)
        step.press("Enter")
        harness.wait_idle(page)
        panel = _gaze_panel(page, name, kind)
        assert float(panel.get_by_label("Step (s)", exact=True).input_value()) == float(window)
    panel.get_by_role("button", name="Make feature windows").click()
    done = page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="(feature-window step): ")
    done.wait_for(timeout=600_000)
    harness.wait_idle(page, 300_000)
    _clean(page, "Your data (feature windows)")
    return done.first.inner_text()


def _windows_said(sentence: str) -> str:
    """The feature-window sentence -> what it says was made ("42 windows of 10 s every 5 s (6 recordings of 6
    participants)"), without the file and step it names first."""
    return sentence.split("(feature-window step): ", 1)[1].split(").", 1)[0] + ")"


def _heatmaps(page, single: bool) -> str:
    _nav(page, "Heatmaps")
    if single:  # one reader: the page says, as information, that a heatmap of a mean needs two observers
        page.locator(f'{MAIN} [data-testid="stAlertContentInfo"]').filter(
            has_text="needs at least 2 observers").first.wait_for(timeout=60_000)
        _clean(page, "Heatmaps")
        return "one observer: explained, no heatmap"
    _wait(page, f'{MAIN} [data-testid="stImage"] img', "Heatmaps")
    _clean(page, "Heatmaps")
    return "heatmap drawn"


def _areas_of_interest(page, observers: int) -> str:
    """Areas of interest on the uploaded fixations: the AOIs drawn, and the clean and private tables for every
    observer (a stimulus without bundled AOIs gets a 3 × 3 grid)."""
    _nav(page, "Areas of interest")
    _wait(page, f'{MAIN} [data-testid="stImage"] img', "Areas of interest")
    page.get_by_text(f"{observers} observers,").first.wait_for(timeout=60_000)
    page.get_by_text("Private", exact=True).first.wait_for(timeout=60_000)
    _clean(page, "Areas of interest")
    return f"{observers} observers: AOIs and both tables drawn"


def _time_series(page, series: bool) -> str:
    _nav(page, "Time series")
    if not series:  # too short for two windows: the page says so and how to change the windows
        page.get_by_text("make feature windows with a shorter window or step", exact=False).first.wait_for(
            timeout=60_000)
        assert page.locator('[data-testid="stException"]').count() == 0
        return "recording shorter than two windows: explained, no series"
    _wait(page, f'{MAIN} [data-testid="stImage"] img', "Time series")
    _clean(page, "Time series")
    return "preview drawn"


def _attacks(page, single: bool) -> str:
    _nav(page, "Attacks")
    if single:
        page.get_by_text("no attack applies", exact=False).first.wait_for(timeout=120_000)
        _clean(page, "Attacks")
        return "one participant: explained, no attack"
    _wait(page, f"{MAIN} .js-plotly-plot .main-svg", "Attacks")
    _clean(page, "Attacks")
    return "clean baseline drawn"


def _gaze_samples(page) -> str:
    _nav(page, "Gaze samples")
    _wait(page, f'{MAIN} .js-plotly-plot .main-svg, {MAIN} [data-testid="stImage"] img', "Gaze samples")
    _clean(page, "Gaze samples")
    return "stream drawn"


LUND = "lund2013/lund2013_samples.csv.gz"
# (folder/file, one participant only, recordings long enough for two windows of the shortest length, 0.5 s)
FILES = [pytest.param(rel, single, series, id=rel, marks=marks) for rel, single, series, marks in (
    ("gazebase_sample/S_1001_S1_TEX.csv", True, True, ()),
    (LUND, False, True, ()),
    ("saccades_testdata/example.csv", True, False, ()),  # 147 samples: 0.59 s
    ("saccades_testdata/example_eyelink_events.txt", True, True, ()),
    ("saccades_testdata/s1_actioncliptest00001.txt", True, True, ()),
    ("uniss_fgd/fgd_samples.csv.gz", False, True, (pytest.mark.slow,)),  # 25 MB, 2.16 million samples: ~2.5 min
)]
# What the upload page says on the way, per file (the Tobii reader recognised; fixations detected and named).
SAYS = {"uniss_fgd/fgd_samples.csv.gz": "Recognised as a Tobii", LUND: "(I-VT step)"}
# Observers Heatmaps draws on the file's first stimulus.
OBSERVERS = {LUND: 6, "uniss_fgd/fgd_samples.csv.gz": 20}


def _lund_people() -> bytes:
    """Lund 2013 ships no demographics: a made-up participant -> gender table over its 30 participants (the
    attack's accuracy means nothing here; the path from an uploaded table to the gender task is what is tested)."""
    with gzip.open(REALDATA / LUND, "rt") as fh:
        header = fh.readline().rstrip("\n").split(",")
        col = header.index("participant")
        ids = sorted({line.split(",")[col] for line in fh})
    return ("participant,gender\n" + "".join(f"{p},{'F' if i % 2 else 'M'}\n" for i, p in enumerate(ids))).encode()


def _gender_run(page) -> str:
    """On Attacks: only the gender task, one mechanism (CFPA-32), one ε, no extension -> its accuracy panel."""
    main = page.locator(MAIN)
    form = page.locator('[data-testid="stForm"]')
    for chip in ("FPA", "DCFPA-32", "1000", "1e+04", "1e+05", "re-identification"):
        remove = form.get_by_role("button", name=f"Remove {chip}", exact=True)
        if remove.count():
            remove.click()
    harness.at_least(form.get_by_text("gender", exact=True), 1, "the gender task from the participants table")
    form.get_by_text("Extend ε until the transition shows").click()
    main.get_by_role("button", name="Run attacks").click()
    harness.wait_idle(page, 600_000)
    _clean(page, "Attacks (gender run)")
    # The accuracy-against-ε chart has a panel for the gender task, and only for it.
    titles = page.locator(f"{MAIN} .js-plotly-plot .annotation-text")
    titles.filter(has_text="Gender (no prior knowledge)").first.wait_for(timeout=120_000)
    assert titles.filter(has_text="Re-identification").count() == 0
    return "gender task run from the participants table"


@needs_realdata
@pytest.mark.parametrize("rel, single, series", FILES)
def test_real_gaze_file_reaches_every_view(page, app_url, shots, rel, single, series):
    """Upload, feature windows, then Heatmaps, Time series, Attacks and Gaze samples, each drawn without an error;
    where the data cannot feed a view (one observer, a recording shorter than two windows) the view says why.
    Lund 2013 also gets a participants table beside it, and Attacks runs the gender task from it."""
    name = Path(rel).name
    steps = Steps(rel)
    _upload(page, app_url, name, (REALDATA / rel).read_bytes())
    if rel in SAYS:
        harness.at_least(page.get_by_text(SAYS[rel], exact=False), 1, SAYS[rel])
    if rel == LUND:  # the detected fixations are offered in the sidebar, marked as derived
        harness.at_least(page.locator('[data-testid="stSidebar"]').get_by_text("derived from"), 1, "the derived fixations")
    steps.done("Your data: upload")
    if rel == LUND:
        _participants(page, "participants.csv", _lund_people())
        steps.done("Your data: participants table", "labels: gender")
    derived = _make_windows(page, name)
    assert "window" in derived, derived
    if rel == LUND:  # without a sampling rate the 24 untimed recordings (3 padded with one zero stamp) stay out
        assert "(39 recordings of 22 participants)" in derived and "left out" not in derived, derived
    steps.done("Your data: feature windows", _windows_said(derived))
    steps.done("Heatmaps", _heatmaps(page, single))
    if rel in OBSERVERS:
        page.get_by_text(f"{OBSERVERS[rel]} observers").first.wait_for(timeout=60_000)
    steps.done("Time series", _time_series(page, series))
    steps.done("Attacks", _attacks(page, single))
    if rel == LUND:
        steps.done("Attacks: gender", _gender_run(page))
        harness.screenshot(page, str(shots / "realdata_attacks_gender_lund.png"))
    steps.done("Gaze samples", _gaze_samples(page))


# OSIE's 10,497 recordings take 1-4 min on Time series and Attacks: run with EYEDP_REALDATA_ALL=1 (the closing note's
# table was made so).
ALL = os.environ.get("EYEDP_REALDATA_ALL") == "1"


@needs_realdata
@pytest.mark.parametrize("rel, observers", [
    pytest.param("osie/osie_fixations.csv.gz", 15, id="osie", marks=pytest.mark.skipif(
        not ALL, reason="OSIE's 10,497 recordings take 1-4 min: set EYEDP_REALDATA_ALL=1")),
    pytest.param("uniss_fgd/fgd_fixations.csv.gz", 20, id="uniss_fgd")])
def test_real_fixation_file_reaches_heatmaps_time_series_and_attacks(page, app_url, rel, observers):
    """The fixation tables (no gaze samples, so no Gaze samples view of their own): upload, feature windows made
    from the fixations, then Heatmaps, Areas of interest, Time series and Attacks drawn without an error."""
    name = Path(rel).name
    steps = Steps(rel)
    _upload(page, app_url, name, (REALDATA / rel).read_bytes(), kind="Fixations (CSV/TSV)")
    steps.done("Your data: upload")
    derived = _make_windows(page, name, kind="Fixations")
    assert f"of {observers} participants" in derived, derived
    steps.done("Your data: feature windows", _windows_said(derived))
    steps.done("Heatmaps", _heatmaps(page, False))
    page.get_by_text(f"{observers} observers").first.wait_for(timeout=60_000)
    steps.done("Areas of interest", _areas_of_interest(page, observers))
    steps.done("Time series", _time_series(page, True))
    steps.done("Attacks", _attacks(page, False))
