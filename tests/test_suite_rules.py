"""The test suite's own rules (tests/conftest.py): Streamlit loads only for tests that run it, and the long page
runs carry the `slow` marker, so `pytest -m "not slow"` is a quick run of the core."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def _pytest(*args: str, code: str = "") -> subprocess.CompletedProcess:
    """Run pytest with `args` in a fresh interpreter at the repository root, then the Python `code`."""
    script = f"import sys, pytest\nrc = pytest.main({list(args)!r})\n{code}\nsys.exit(rc)"
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_markers_are_declared():
    """`slow` and `browser` are declared in pyproject.toml (unknown markers would only warn)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = {m.split(":")[0] for m in config["tool"]["pytest"]["ini_options"]["markers"]}
    assert {"slow", "browser"} <= names


def test_a_test_without_streamlit_never_imports_it():
    """This module uses no Streamlit: run with the shared conftest in a fresh process, Streamlit stays unloaded."""
    done = _pytest(f"{__file__}::test_markers_are_declared", "-q", "-p", "no:cacheprovider",
                   code="print('streamlit loaded:', 'streamlit' in sys.modules)")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "streamlit loaded: False" in done.stdout, done.stdout[-2000:]


def test_page_runs_are_marked_slow_and_core_tests_are_not():
    """Every test of the Heatmaps page module runs app.py in AppTest (through helpers): all are `slow`; none of
    the calibration tests are."""
    page = next(TESTS.rglob("test_heatmaps_page.py"))
    core = next(TESTS.rglob("test_mechanisms.py"))
    every = _pytest(str(page), str(core), "--collect-only", "-q", "-p", "no:cacheprovider")
    slow = _pytest(str(page), str(core), "--collect-only", "-q", "-p", "no:cacheprovider", "-m", "slow")
    ids = lambda out: {line for line in out.stdout.splitlines() if "::" in line}  # noqa: E731
    assert every.returncode == 0 and slow.returncode == 0, every.stderr[-2000:] + slow.stderr[-2000:]
    page_ids = {i for i in ids(every) if i.split("::")[0].endswith(page.name)}
    assert page_ids and ids(slow) == page_ids, sorted(ids(slow) ^ page_ids)[:10]


def test_the_quick_selection_runs_no_browser_and_no_install():
    """`-m "not slow"` collects no test under tests/browser (marked or not) and none that may build a virtual
    environment to run the README's install command (the downloadable scripts' tests)."""
    quick = _pytest(str(TESTS / "browser"), str(TESTS / "app" / "test_scripts.py"), "--collect-only", "-q",
                    "-p", "no:cacheprovider", "-m", "not slow")
    every = _pytest(str(TESTS / "browser" / "test_settings_travel_browser.py"), "--collect-only", "-q",
                    "-p", "no:cacheprovider", "-m", "browser")
    ids = [line for line in quick.stdout.splitlines() if "::" in line]
    assert not ids, ids[:10]
    assert any("::" in line for line in every.stdout.splitlines()), every.stdout[-2000:]
