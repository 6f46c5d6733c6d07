"""The exports' float path: released values are lattice points; a path that adds lattice noise to unrounded
floats keeps residues that tell neighbours apart."""
from __future__ import annotations

import numpy as np
import pytest

from eyedp_core.audit.residue import export_residue_check, off_lattice
from eyedp_core.dp.registry import Family


@pytest.mark.parametrize("family", [Family.LAPLACE, Family.GAUSSIAN])
def test_the_release_path_puts_every_value_on_its_lattice_and_the_naive_one_does_not(family: Family) -> None:
    for seed in range(3):
        chk = export_residue_check(family, seed=seed)
        assert chk.passed and chk.off_lattice == 0
        assert chk.naive_off_lattice > chk.values // 2 and chk.naive_separates


def test_off_lattice_counts_exactly() -> None:
    k = -10
    on = np.arange(5) * 2.0**k
    assert off_lattice(on, k) == 0
    assert off_lattice(on + 2.0**(k - 3), k) == 5
    assert off_lattice(np.array([0.5 * 2.0**k + 2.0**(k - 1)]), k) == 0
