"""Shared pytest fixtures: paths to the repository, the bundled data and the real recordings."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
# Bugs must reach AppTest and the browser tests as exceptions, not hide behind ui/errors.py's friendly
# message (set before any app process starts, so the browser tests' servers inherit it).
os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
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


@pytest.fixture(autouse=True)
def _navigation_mode(monkeypatch):
    """Make AppTest runs behave like a server after app.py's first st.navigation call.

    AppTest resets Streamlit's legacy pages/-folder flag before every run, so each run would start
    in legacy mode and ui.shell.ensure_shell would spend a rerun (dropping button clicks) to leave it.
    """
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture(autouse=True)
def _full_error_details():
    """Show the real exception text in AppTest failures (the app itself hides tracebacks from users)."""
    from streamlit import config

    old = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    yield
    config.set_option("client.showErrorDetails", old)

