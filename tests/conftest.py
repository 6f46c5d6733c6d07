"""Shared pytest fixtures: paths to the repository, the bundled data and the real recordings."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
# ../shared sits beside the clone, both on developer machines and in CI.
REALDATA = ROOT.parent / "shared" / "realdata"


@pytest.fixture
def rng() -> np.random.Generator:
    """A fixed-seed generator: statistical tests must hold for any seed, this one keeps runs reproducible."""
    return np.random.default_rng(20261121)


@pytest.fixture(scope="session")
def realdata() -> Path:
    """Folder of real recordings; skips the test with a reason when shared/ is not beside the repo."""
    if not REALDATA.is_dir():
        pytest.skip(f"real recordings not found at {REALDATA} (shared/ must sit beside the repository)")
    return REALDATA
