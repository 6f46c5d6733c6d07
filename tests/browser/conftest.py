"""Fixtures for real-browser tests: skip with a reason without Chromium, unless EYEDP_REQUIRE_BROWSER=1."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402


def _missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not Path(harness.CHROMIUM).exists():
        return f"Chromium not found at {harness.CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -r requirements-dev.txt)"
    return None


@pytest.fixture(scope="session")
def run_log(tmp_path_factory) -> Path:
    """The file the shared app logs its page and fragment runs to (ui/runlog.py); tests empty it before a move."""
    return tmp_path_factory.mktemp("runlog") / "runs.txt"


@pytest.fixture(scope="session")
def app_server(run_log):
    """Start the app once for the browser tests; yields (its process, its base URL)."""
    reason = _missing_reason()
    if reason:
        if os.environ.get("EYEDP_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required but cannot run: {reason}")
        pytest.skip(reason)
    proc, url = harness.start_app(run_log=run_log)
    yield proc, url
    harness.stop_app(proc)


@pytest.fixture(scope="session")
def app_url(app_server) -> str:
    """The shared app's base URL."""
    return app_server[1]


@pytest.fixture(scope="session")
def browser(app_url):
    """A headless Chromium shared by the browser tests."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = harness.launch_browser(p)
        yield b
        b.close()


@pytest.fixture
def page(browser, app_server):
    """A fresh page (new context: own session state) at a desktop size, on a study started afresh."""
    harness.fresh_study(app_server[0])
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000})
    pg = ctx.new_page()
    yield pg
    ctx.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    """Folder for screenshots (EYEDP_SCREENSHOTS overrides, to keep them after the run)."""
    d = os.environ.get("EYEDP_SCREENSHOTS")
    if d:
        Path(d).mkdir(parents=True, exist_ok=True)
        return Path(d)
    return tmp_path_factory.mktemp("screenshots")
