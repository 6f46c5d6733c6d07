"""Shared pytest fixtures: paths to the repository, the bundled data and the real recordings."""
from __future__ import annotations

import ast
import functools
import inspect
import os
import tempfile
import types
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
BROWSER_TESTS = TESTS / "browser"
# Bugs must reach AppTest and the browser tests as exceptions, not hide behind ui/errors.py's friendly
# message (set before any app process starts, so the browser tests' servers inherit it).
os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
# Attack results the tests compute are kept in a folder of this test session, never in the user's cache (the
# browser tests' servers inherit it too).
os.environ.setdefault("EYEDP_ATTACK_CACHE", tempfile.mkdtemp(prefix="eyedp_attack_results_"))
# ../shared sits beside the clone, both on developer machines and in CI.
REALDATA = ROOT.parent / "shared" / "realdata"


@pytest.fixture
def rng() -> np.random.Generator:
    """A fixed-seed generator: statistical tests must hold for any seed, this one keeps runs reproducible."""
    return np.random.default_rng(20261121)


class SpyGenerator(np.random.Generator):
    """A numpy Generator (so the mechanism objects accept it) that remembers its standard Laplace draws."""

    def __init__(self, seed: int) -> None:
        super().__init__(np.random.PCG64(seed))
        self.draws: list[np.ndarray] = []


@pytest.fixture
def recording_rng(monkeypatch) -> type[SpyGenerator]:
    """SpyGenerator class: every Lap(1) array eyedp_core.dp.noise draws from one is appended to its `draws`,
    so a loop reference can reuse exactly the mechanism's noise."""
    from eyedp_core.dp import noise

    original = noise.standard_laplace

    def spy(rng: np.random.Generator, shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
        z = original(rng, shape, dtype)
        if isinstance(rng, SpyGenerator):
            rng.draws.append(z.copy())  # a copy: the mechanism scales z in place afterwards
        return z

    monkeypatch.setattr(noise, "standard_laplace", spy)
    return SpyGenerator


@pytest.fixture(scope="session")
def realdata() -> Path:
    """Folder of real recordings; skips the test with a reason when shared/ is not beside the repo."""
    if not REALDATA.is_dir():
        pytest.skip(f"real recordings not found at {REALDATA} (shared/ must sit beside the repository)")
    return REALDATA


# Streamlit is imported only by tests that run it: a module that imports streamlit or tests.apptest (at its top
# or inside a function). Core unit tests never load it.
_STREAMLIT_MODULES = ("streamlit", "tests.apptest")
# A long page run: the whole app.py in AppTest (tests/apptest.py's open_app and open_link, AppTest.from_file).
_PAGE_RUNNERS = frozenset({"open_app", "open_link", "from_file"})


@functools.cache
def uses_streamlit(path: Path) -> bool:
    """Does the test module at `path` import Streamlit or the AppTest helpers anywhere?"""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(n == m or n.startswith(m + ".") for n in names for m in _STREAMLIT_MODULES):
            return True
    return False


@pytest.fixture(autouse=True)
def _own_ledger_file(tmp_path_factory, monkeypatch) -> Path:
    """Every test charges a stored ledger of its own (a fresh file), never the user's eyedp_data/ledger.sqlite nor
    another test's; two AppTest sessions in one test share it, as two sessions of one study do."""
    path = tmp_path_factory.mktemp("ledger") / "ledger.sqlite"
    monkeypatch.setenv("EYEDP_LEDGER", str(path))
    return path


@pytest.fixture(autouse=True)
def _streamlit_app_mode(request):
    """In modules that run Streamlit: AppTest behaves like a running server (tests.apptest.app_mode)."""
    if not uses_streamlit(Path(request.node.path)):
        yield
        return
    from tests.apptest import app_mode

    with app_mode():
        yield


def _names(code: types.CodeType) -> set[str]:
    """Global and attribute names a function's code (and the functions defined inside it) refers to."""
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _names(const)
    return out


def _ours(func) -> bool:
    """Is `func` defined in the tests (not in pytest, Streamlit or the code under test)?"""
    code = getattr(func, "__code__", None)
    return code is not None and Path(code.co_filename).resolve().is_relative_to(TESTS)


def _runs_pages(func, seen: set) -> bool:
    """Does `func`, or a test helper or fixture it calls, run app.py in AppTest?"""
    code = getattr(func, "__code__", None)
    if code is None or code in seen:
        return False
    seen.add(code)
    names = _names(code)
    if names & _PAGE_RUNNERS:
        return True
    scope = getattr(func, "__globals__", {})
    return any(_runs_pages(scope[n], seen) for n in names
               if inspect.isfunction(scope.get(n)) and _ours(scope[n]))


def pytest_collection_modifyitems(config, items) -> None:
    """Mark the long page runs `slow` (deselect them with `-m "not slow"`): every browser test, and every test
    that runs app.py in AppTest itself, through a helper of the tests or through a fixture."""
    for item in items:
        if item.get_closest_marker("slow") or not isinstance(item, pytest.Function):
            continue
        # Everything under tests/browser drives Chromium, whether or not its module remembered the marker.
        if item.get_closest_marker("browser") or BROWSER_TESTS in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
            continue
        # Scripts run in a Python that may first need a virtual environment and the README's install command.
        if "installed_python" in item.fixturenames:
            item.add_marker(pytest.mark.slow)
            continue
        if not uses_streamlit(Path(item.path)):
            continue
        seen: set = set()
        funcs = [item.function] + [d.func for defs in item._fixtureinfo.name2fixturedefs.values() for d in defs
                                    if _ours(d.func)]
        if any(_runs_pages(f, seen) for f in funcs):
            item.add_marker(pytest.mark.slow)
