"""Start the real app on a free port and drive it in Debian's headless Chromium (tests and bench share this)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-quic"]
PAGES = {  # url path -> a heading the page must show
    "": "EyeDP",
    "heatmaps": "Heatmaps",
    "time_series": "Time series",
    "attacks": "Attacks",
    "gaze_samples": "Gaze samples",
    "report": "Report",
    "your_data": "Your data",
}


def free_port() -> int:
    """Ask the OS for a free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(script: str = "app.py", port: int | None = None, timeout: float = 60.0,
              run_log: Path | None = None, extra_args: tuple[str, ...] = (),
              ledger: Path | None = None) -> tuple[subprocess.Popen, str]:
    """Script path -> (running streamlit process, base URL), once its health endpoint answers; with `run_log`,
    the app logs its page and fragment runs there (ui/runlog.py); `extra_args` are more `streamlit run` options.
    The server charges the stored ledger file `ledger` (default: a fresh one of its own, removed by stop_app),
    never the user's."""
    own = None if ledger is not None else Path(tempfile.mkdtemp(prefix="eyedp_ledger_"))
    ledger = ledger if ledger is not None else own / "ledger.sqlite"
    port = port or free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false", *extra_args]
    # The server's warnings go to an unnamed temporary file, not a pipe: nobody reads a pipe while the tests run,
    # and a full one would stall the server; server_log reads the file's tail when a test needs to say why.
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", "EYEDP_LEDGER": str(ledger),
                                 **({"EYEDP_RUN_LOG": str(run_log)} if run_log else {})})
    proc.server_log = err  # type: ignore[attr-defined] - read by server_log
    proc.ledger_dir = own  # type: ignore[attr-defined] - removed by stop_app
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early: {server_log(proc)}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"streamlit did not answer on {url} within {timeout} s")


def fresh_study(proc: subprocess.Popen) -> None:
    """Before a test on a shared server: its default study starts afresh (an archive entry) with the default cap,
    as a new session of the app had before the ledger was stored; a server on a caller's ledger is left alone."""
    from eyedp_core.dp.store import DEFAULT_STUDY, open_ledger
    from ui.state import DEFAULT_EPSILON_CAP

    own = getattr(proc, "ledger_dir", None)
    if own is None or not (own / "ledger.sqlite").exists():
        return
    ledger = open_ledger(own / "ledger.sqlite", DEFAULT_STUDY)
    if ledger.releases:
        ledger.archive("the next browser test starts afresh")
    if ledger.cap() not in (None, DEFAULT_EPSILON_CAP):
        ledger.set_cap(DEFAULT_EPSILON_CAP, "the next browser test starts from the default cap")


def server_log(proc: subprocess.Popen, chars: int = 2000) -> str:
    """The last `chars` characters a server started by start_app wrote to its stderr."""
    log = proc.server_log  # type: ignore[attr-defined]
    log.seek(0)
    return log.read().decode(errors="replace")[-chars:]


def stop_app(proc: subprocess.Popen) -> None:
    """Stop a process started by start_app."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    proc.server_log.close()  # type: ignore[attr-defined]
    if getattr(proc, "ledger_dir", None) is not None:
        shutil.rmtree(proc.ledger_dir, ignore_errors=True)


def launch_browser(playwright):
    """Playwright instance -> a headless Debian Chromium browser with the workplace's flags."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)


def wait_idle(page, timeout_ms: float = 60_000) -> None:
    """Wait until the Streamlit script run has finished and the page is drawn."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    # The script may finish a moment before the last element paints.
    page.wait_for_timeout(150)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)


def goto(page, url: str, timeout_ms: float = 60_000) -> None:
    """Load `url` and wait until its first script run has drawn the page and ended. A fresh document reads as
    idle before that run has started, so first wait for the page's title, which the run draws."""
    page.goto(url)
    page.locator('[data-testid="stMain"] h1').first.wait_for(timeout=timeout_ms)
    wait_idle(page, timeout_ms)


def open_view(page, url: str, path: str, timeout_ms: float = 300_000) -> None:
    """Open `path` of the app at `url` and wait until drawn; "page#Label" then clicks the main-area radio option
    named Label (a view of the page, e.g. "gaze_samples#Protect the stream") and waits again."""
    goto(page, f"{url}/{path.split('#')[0]}", 120_000)
    if "#" in path:
        page.locator('[data-testid="stMain"] [data-testid="stRadio"] label').filter(
            has_text=path.split("#", 1)[1]).first.click()
        wait_idle(page, timeout_ms)


def runs(run_log: Path) -> list[str]:
    """The parts (page, fragment names) the app logged in `run_log` since it was last emptied, in order."""
    from ui.runlog import parts

    return parts(run_log.read_text())


def until(page, check, what: str, timeout_ms: float = 60_000) -> None:
    """Poll `check()` every 100 ms until it is true; fail with `what` if it never is. Assert what the page shows
    only once it has had the time to show it: a script run ends before the browser has drawn its output."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} (waited {timeout_ms / 1000:.0f} s)")
        page.wait_for_timeout(100)


def at_least(locator, n: int = 1, what: str = "", timeout_ms: float = 60_000) -> None:
    """Wait until `locator` matches at least n elements; fail naming `what` (or the locator) if it never does."""
    until(locator.page, lambda: locator.count() >= n,
          f"{what or locator}: fewer than {n} shown (now {locator.count()})", timeout_ms)


def settled_runs(page, run_log: Path, timeout_ms: float = 60_000) -> list[str]:
    """The parts logged in `run_log` since it was emptied, once one was logged and the page is idle again (the page
    can look idle before the run a move asked for has started), after 300 ms more in which a second, unwanted run
    would have logged."""
    until(page, lambda: runs(run_log), "no run was logged", timeout_ms)
    wait_idle(page, timeout_ms)
    page.wait_for_timeout(300)
    return runs(run_log)


def choose_option(page, label: str, option: str, attempts: int = 4) -> None:
    """Pick `option` in the selectbox labelled `label`: type to filter (a long list is drawn only in part), click
    the option, and repeat (bounded) when a run already under way closed the list before the click, or redrew the
    box with its old value after it (the idle state can be read before that run started): the choice must hold for
    half a second."""
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    for _ in range(attempts):
        # Scrolled first: a box that the click itself scrolls into view can have its list closed by that scroll.
        box.scroll_into_view_if_needed()
        wait_idle(page)
        box.click()
        page.keyboard.type(option)
        try:
            page.get_by_role("option", name=option, exact=True).click(timeout=10_000)
        except Exception:  # the list closed under a rerun: open it again
            page.keyboard.press("Escape")
            continue
        wait_idle(page)
        if box.locator("input").input_value() == option:  # this selectbox is a combobox: its value is the input's
            page.wait_for_timeout(500)
            wait_idle(page)
            if box.locator("input").input_value() == option:
                return
    raise AssertionError(f"could not choose {option!r} in {label!r} after {attempts} attempts; the box shows "
                         f"{box.locator('input').input_value()!r}")


def figure_drawn(page, timeout_ms: float = 60_000, picture_only: bool = False) -> None:
    """No exception box, and a figure drawn: a Plotly chart or a figure's picture, or with
    `picture_only` a picture (the Time-series preview, whose Plotly chart is a toggle)."""
    assert page.locator('[data-testid="stException"]').count() == 0
    picture = '[data-testid="stMain"] [data-testid="stImage"] img'
    page.wait_for_selector(picture if picture_only else f".js-plotly-plot .main-svg, {picture}", timeout=timeout_ms)


EXCEPTION_BOX = '[data-testid="stException"]'  # Streamlit's own box for an error no guard caught
ERROR_ID = "error id"  # in the app's guarded message ("Something went wrong (error id …)", ui/errors.py)


def crashed(page) -> bool:
    """Whether the page shows an exception box or an error id (to wait for "drawn or crashed")."""
    return page.locator(EXCEPTION_BOX).count() > 0 or page.get_by_text(ERROR_ID).count() > 0


def no_crash(page, where: str = "") -> None:
    """No Streamlit exception box and no error id (the app's guarded "Something went wrong") on the page."""
    assert page.locator(EXCEPTION_BOX).count() == 0, f"exception box {where}"
    errors = page.get_by_text(ERROR_ID)
    assert errors.count() == 0, f"error id {where}: {errors.all_inner_texts()}"


SLIDER = '[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]'


def slider_text(page, index: int = 0) -> str:
    """The value a slider shows (its aria-valuetext, e.g. '0.1' for a select-slider)."""
    return page.locator(SLIDER).nth(index).get_attribute("aria-valuetext") or ""


def move_slider(page, index: int = 0, key: str = "ArrowRight", presses: int = 1) -> None:
    """Focus the index-th slider of the main area and press a key on it, then wait for the re-run."""
    s = page.locator(SLIDER).nth(index)
    s.focus()
    for _ in range(presses):
        page.keyboard.press(key)
    wait_idle(page)


def screenshot(page, path: str, width: int = 1440) -> None:
    """Screenshot the whole main area: Streamlit scrolls inside stMain, so grow the viewport to fit it."""
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": width, "height": min(max(int(height), 800), 8000)})
    page.wait_for_timeout(400)  # let Plotly re-layout to the new size
    page.screenshot(path=path)
    page.set_viewport_size({"width": width, "height": 1000})
