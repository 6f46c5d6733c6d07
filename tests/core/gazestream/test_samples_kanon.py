"""k-anonymity of demographics: every class >= k, the seed's Table 2 where it is consistent, the intersection
attack (docs/PRIVACY_MODEL.md §9.1; check vectors V-KANON-1, V-KANON-2)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from eyedp_core import gazestream
from eyedp_core.data import bundled
from eyedp_core.gazestream import kanon

SEED = kanon.SEED_DEMOGRAPHICS


def _groups(demo: pd.DataFrame, scheme: kanon.Scheme) -> set[frozenset[int]]:
    """Scheme -> the partition of row numbers it makes."""
    cls = scheme.assign(demo)
    return {frozenset(np.flatnonzero(cls == c)) for c in set(cls)}


def test_seed_table_1_is_built_in():
    assert len(SEED) == 31 and (SEED["gender"] == "female").sum() == 7
    assert sorted(SEED.loc[SEED["gender"] == "female", "age"]) == [23, 23, 23, 27, 28, 28, 31]


@pytest.mark.parametrize("k", range(2, 16))
def test_every_class_has_at_least_k_rows_and_every_age_is_covered(k):
    for demo in (SEED.sample(frac=1, random_state=k), bundled.load_sample("demographics")):
        if len(demo) < k:
            continue
        table, scheme = gazestream.k_anonymize(demo, k)
        assert (table["class_size"] >= k).all()
        assert (scheme.assign(demo) >= 0).all()
        ages = range(int(demo["age"].min()), int(demo["age"].max()) + 1)
        genders = ["female", "male"] if scheme.keeps_gender else ["any"]
        for g in genders:  # contiguous classes that cover the whole age span (the seed's leave gaps)
            covering = [c for c in scheme.classes if c.gender == g]
            assert sum(c.hi - c.lo + 1 for c in covering) == len(ages)
            assert {a for c in covering for a in range(c.lo, c.hi + 1)} == set(ages)


def test_seed_schemes_are_k_anonymous_on_its_rows():
    """V-KANON-1: class sizes of the published generalisations."""
    sizes = {k: sorted(np.bincount(s.assign(SEED))) for k, s in kanon.SEED_TABLE2.items()}
    assert sizes == {4: [4, 5, 6, 7, 9], 6: [6, 7, 9, 9], 8: [8, 10, 13], 15: [15, 16]}


def test_matches_the_seed_where_the_seed_is_consistent():
    """k = 6 and 15: the seed's grouping is maximal and ours is the same partition of rows; k = 8: maximal but
    one of several ties (same number of classes); k = 4: the seed's is not maximal (we find one more class)."""
    for k in (6, 15):
        _, ours = gazestream.k_anonymize(SEED, k)
        assert _groups(SEED, ours) == _groups(SEED, kanon.SEED_TABLE2[k])
        assert gazestream.compare_with_seed(k).verdict == "reproduced"
    _, ours8 = gazestream.k_anonymize(SEED, 8)
    assert len(ours8.classes) == len(kanon.SEED_TABLE2[8].classes) == 3 and not ours8.keeps_gender
    assert gazestream.compare_with_seed(8).verdict == "tie: other boundaries"
    _, ours4 = gazestream.k_anonymize(SEED, 4)
    assert len(ours4.classes) == 6 > len(kanon.SEED_TABLE2[4].classes)
    cmp4 = gazestream.compare_with_seed(4)
    assert cmp4.verdict == "seed not maximal" and "male 28, 34" in cmp4.explanation
    assert _groups(SEED, gazestream.k_anonymize(SEED, 15)[1]) == {frozenset(np.flatnonzero(SEED["age"] <= 28)),
                                                               frozenset(np.flatnonzero(SEED["age"] >= 29))}


def test_the_number_of_classes_is_the_maximum():
    """Brute force over every cut of the merged age axis and of each gender's: no scheme has more classes."""
    from itertools import combinations

    def best(ages: np.ndarray, k: int) -> int:
        vals, cnt = np.unique(ages, return_counts=True)
        top = 0
        for r in range(len(vals)):
            for cuts in combinations(range(1, len(vals)), r):
                b = [0, *cuts, len(vals)]
                if all(cnt[b[i]:b[i + 1]].sum() >= k for i in range(len(b) - 1)):
                    top = max(top, len(b) - 1)
        return top

    ages = SEED["age"].to_numpy()
    fem = SEED["gender"].to_numpy() == "female"
    for k in (4, 6, 8, 15):
        split = best(ages[fem], k) + best(ages[~fem], k) if min(fem.sum(), (~fem).sum()) >= k else 0
        assert len(gazestream.k_anonymize(SEED, k)[1].classes) == max(split, best(ages, k))


def test_intersection_of_releases_isolates_a_person():
    """V-KANON-2: k = 4 with k = 8 leaves a class of 3; adding k = 15 isolates the female aged 31."""
    t = kanon.SEED_TABLE2
    two = gazestream.intersection_attack(SEED, [t[4], t[8]])
    assert two["rows"].min() == 3 and two.iloc[0]["who"] == "F 28, F 28, F 31"
    three = gazestream.intersection_attack(SEED, [t[4], t[8], t[15]])
    assert three.iloc[0]["rows"] == 1 and three.iloc[0]["who"] == "F 31"
    assert three.iloc[1]["who"] == "F 28, F 28"


def test_bad_tables_give_clear_errors():
    with pytest.raises(ValueError, match="at least 40 rows"):
        gazestream.k_anonymize(SEED, 40)
    with pytest.raises(ValueError, match="age and gender"):
        gazestream.k_anonymize(SEED.drop(columns="age"), 2)
