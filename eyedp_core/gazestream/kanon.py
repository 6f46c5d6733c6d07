"""k-anonymity of demographics (gender, age), as in David-John et al.'s Table 2 (docs/PRIVACY_MODEL.md §9.1).

NOT differential privacy: the generalisation is a deterministic function of the table, so changing one
person's row can change a class count, and that change is visible with certainty; several
generalisations of the same rows can be intersected (`intersection_attack`). Allow one per dataset.

The search. Gender is kept (female / male classes with their own age ranges) or generalised to "any";
ages are cut into contiguous ranges that cover the whole age domain (so any age, also one nobody in the
table has, falls in exactly one class). Among all schemes whose every class holds >= k rows we take the
one with **the most classes** (the seed's criterion); ties go to keeping gender, then to the least
information loss (sum over rows of the width of their age range, a normalised-certainty-penalty style
measure), then to the most even class sizes. A dynamic programme over the distinct ages finds it exactly.

The seed's own data (Table 1, 31 rows: its text says 24 individuals, and its "Age"/"Gender" headers are
swapped) and Table 2 are built in (`SEED_DEMOGRAPHICS`, `SEED_TABLE2`); `compare_with_seed` explains, per k,
where our result differs from the seed's and why.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["AgeClass", "Scheme", "SEED_DEMOGRAPHICS", "SEED_TABLE2", "compare_with_seed", "generalise",
           "intersection_attack", "k_anonymize", "normalise_gender"]

ANY = "any"
_GENDER_WORDS = {"f": "female", "female": "female", "w": "female", "woman": "female",
                 "m": "male", "male": "male", "man": "male"}


def normalise_gender(values: Sequence[object]) -> np.ndarray:
    """Gender labels (F/M/female/male/…) -> "female" / "male", other labels lower-cased as they are."""
    return np.array([_GENDER_WORDS.get(str(v).strip().lower(), str(v).strip().lower()) for v in values],
                    dtype=object)


@dataclass(frozen=True)
class AgeClass:
    """One generalised value: gender ("female", "male", … or "any") and an inclusive age range."""

    gender: str
    lo: int
    hi: int

    def label(self) -> str:
        g = {"female": "Female", "male": "Male", ANY: "Male/Female"}.get(self.gender, self.gender.capitalize())
        return f"({g}, {self.lo}–{self.hi})"


@dataclass(frozen=True)
class Scheme:
    """A generalisation: its classes, the k it was built for, and whether it keeps gender."""

    k: int
    classes: tuple[AgeClass, ...]
    keeps_gender: bool
    source: str = "EyeDP"

    def assign(self, demographics: pd.DataFrame) -> np.ndarray:
        """Table with age and gender -> class number of each row (-1 where no class covers it)."""
        age = demographics["age"].to_numpy(float)
        gender = normalise_gender(demographics["gender"])
        out = np.full(len(demographics), -1, np.intp)
        for i, c in enumerate(self.classes):
            hit = (age >= c.lo) & (age <= c.hi) & ((gender == c.gender) | (c.gender == ANY)) & (out < 0)
            out[hit] = i
        return out

    def labels(self) -> list[str]:
        """Class labels, as in the seed's Table 2."""
        return [c.label() for c in self.classes]

    def text(self) -> str:
        """All classes on one line, as in Table 2."""
        return ", ".join(self.labels())


def _partition_cost(ages: np.ndarray, counts: np.ndarray, k: int, lo_dom: int, hi_dom: int
                    ) -> tuple[int, float, float, list[tuple[int, int]]] | None:
    """Distinct ages (sorted) with row counts -> best covering partition (groups, loss, evenness, ranges) or None.

    Ranges are [first age of the class, first age of the next class − 1], the first starting at lo_dom and
    the last ending at hi_dom. Objective, lexicographic: most classes, least Σ rows·width, least Σ size²."""
    m = ages.size
    total = int(counts.sum())
    if total < k or m == 0:
        return None
    cs = np.r_[0, np.cumsum(counts)]
    # best[i] = best solution for the first i distinct ages, as (groups, -loss, -ssq) maximised; cuts kept.
    best: list[tuple[int, float, float] | None] = [None] * (m + 1)
    prev = [-1] * (m + 1)
    best[0] = (0, 0.0, 0.0)
    for i in range(1, m + 1):
        for j in range(i):
            if best[j] is None:
                continue
            size = int(cs[i] - cs[j])
            if size < k:
                continue
            start = lo_dom if j == 0 else int(ages[j])
            end = hi_dom if i == m else int(ages[i]) - 1
            width = end - start
            g, nl, nq = best[j]
            cand = (g + 1, nl - size * width, nq - size * size)
            if best[i] is None or cand > best[i]:
                best[i] = cand
                prev[i] = j
    if best[m] is None:
        return None
    ranges, i = [], m
    while i > 0:
        j = prev[i]
        ranges.append((lo_dom if j == 0 else int(ages[j]), hi_dom if i == m else int(ages[i]) - 1))
        i = j
    g, nl, nq = best[m]
    return g, -nl, -nq, ranges[::-1]


def k_anonymize(demographics: pd.DataFrame, k: int, *, domain: tuple[int, int] | None = None
                ) -> tuple[pd.DataFrame, Scheme]:
    """Table with age and gender (any other columns kept) and k -> (generalised table, scheme).

    The generalised table replaces age and gender by `age_range`, `gender` (female / male / any) and adds
    `class` (the Table-2 label) and `class_size`. `domain` is the public age range the classes must cover
    (default: the youngest to the oldest age in the table, which is itself read off the data). ValueError
    when fewer than k rows exist or an age is missing."""
    if int(k) != k or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    k = int(k)
    for col in ("age", "gender"):
        if col not in demographics.columns:
            raise ValueError(f"the demographics table needs columns age and gender; it has {list(demographics.columns)}")
    age = pd.to_numeric(demographics["age"], errors="coerce")
    if age.isna().any():
        raise ValueError(f"age is missing or not a number in {int(age.isna().sum())} row(s); every row needs an age")
    if len(demographics) < k:
        raise ValueError(f"k = {k} needs at least {k} rows; the table has {len(demographics)}")
    ages = age.round().astype(int).to_numpy()
    dom = (int(ages.min()), int(ages.max())) if domain is None else (int(domain[0]), int(domain[1]))
    if ages.min() < dom[0] or ages.max() > dom[1]:
        raise ValueError(f"ages {ages.min()}–{ages.max()} fall outside the declared domain {dom[0]}–{dom[1]}")
    gender = normalise_gender(demographics["gender"])
    split_total: tuple[int, float, float] | None = (0, 0.0, 0.0)
    split_classes: list[AgeClass] = []
    for gname in sorted(set(gender)):
        vals, counts = np.unique(ages[gender == gname], return_counts=True)
        res = _partition_cost(vals, counts, k, *dom)
        if res is None:
            split_total = None
            break
        split_total = (split_total[0] + res[0], split_total[1] + res[1], split_total[2] + res[2])
        split_classes += [AgeClass(str(gname), lo, hi) for lo, hi in res[3]]
    vals, counts = np.unique(ages, return_counts=True)
    merged = _partition_cost(vals, counts, k, *dom)
    use_split = split_total is not None and (merged is None or split_total[0] >= merged[0])
    if use_split:
        scheme = Scheme(k, tuple(split_classes), True)
    else:
        assert merged is not None
        scheme = Scheme(k, tuple(AgeClass(ANY, lo, hi) for lo, hi in merged[3]), False)
    return generalise(demographics, scheme), scheme


def generalise(demographics: pd.DataFrame, scheme: Scheme) -> pd.DataFrame:
    """Table and scheme -> the generalised table (age and gender replaced by the class; -1 = not covered)."""
    cls = scheme.assign(demographics)
    labels = np.array(scheme.labels() + ["(not covered)"], dtype=object)
    out = demographics.drop(columns=["age", "gender"]).copy()
    out["gender"] = [scheme.classes[c].gender if c >= 0 else "?" for c in cls]
    out["age_range"] = [f"{scheme.classes[c].lo}–{scheme.classes[c].hi}" if c >= 0 else "?" for c in cls]
    out["class"] = labels[cls]
    sizes = pd.Series(cls).map(pd.Series(cls).value_counts()).to_numpy()
    out["class_size"] = np.where(cls >= 0, sizes, 0)
    return out


def class_sizes(demographics: pd.DataFrame, scheme: Scheme) -> pd.DataFrame:
    """Table and scheme -> one row per class: label, rows, and whether it meets k."""
    cls = scheme.assign(demographics)
    n = np.bincount(cls[cls >= 0], minlength=len(scheme.classes))
    return pd.DataFrame({"class": scheme.labels(), "rows": n, "meets k": n >= scheme.k})


def intersection_attack(demographics: pd.DataFrame, schemes: Sequence[Scheme]) -> pd.DataFrame:
    """Table and several generalisations of the same rows -> the joint classes an attacker can form.

    One row per non-empty intersection: the class of each release, the rows in it, and the true ages and
    genders inside (what the attacker narrows each person down to). Sorted by size, smallest first."""
    if not schemes:
        raise ValueError("give at least one generalisation")
    codes = np.stack([s.assign(demographics) for s in schemes], axis=1)
    frame = pd.DataFrame({f"k = {s.k}": [s.labels()[c] if c >= 0 else "(not covered)" for c in codes[:, i]]
                          for i, s in enumerate(schemes)})
    frame["age"] = demographics["age"].to_numpy()
    frame["gender"] = normalise_gender(demographics["gender"])
    keys = [f"k = {s.k}" for s in schemes]
    out = (frame.groupby(keys, sort=False)
           .agg(rows=("age", "size"),
                who=("age", lambda a: ", ".join(f"{g[0].upper()} {int(v)}" for v, g in
                                                 sorted(zip(a, frame.loc[a.index, "gender"]))))))
    return out.reset_index().sort_values(["rows", *keys]).reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# the seed's example (David-John et al., supplement Table 1 and Table 2)

_SEED_ROWS = [
    ("ET-DK2", 2, "M", 43), ("ET-DK2", 3, "F", 27), ("ET-DK2", 4, "M", 29), ("ET-DK2", 5, "M", 32),
    ("ET-DK2", 6, "F", 28), ("ET-DK2", 8, "M", 26), ("ET-DK2", 9, "F", 23), ("ET-DK2", 10, "M", 30),
    ("ET-DK2", 11, "F", 28), ("ET-DK2", 12, "M", 26), ("ET-DK2", 13, "M", 52), ("ET-DK2", 14, "M", 26),
    ("ET-DK2", 15, "M", 35), ("ET-DK2", 16, "M", 50), ("ET-DK2", 17, "M", 33), ("ET-DK2", 18, "M", 31),
    ("ET-DK2", 19, "M", 32), ("ET-DK2", 20, "M", 36), ("360_em", 2, "M", 38), ("360_em", 3, "M", 29),
    ("360_em", 4, "F", 23), ("360_em", 5, "F", 31), ("360_em", 6, "M", 27), ("360_em", 7, "M", 31),
    ("360_em", 8, "F", 23), ("360_em", 9, "M", 24), ("360_em", 10, "M", 23), ("360_em", 11, "M", 27),
    ("360_em", 12, "M", 23), ("360_em", 13, "M", 23), ("360_em", 14, "M", 32),
]
SEED_DEMOGRAPHICS = pd.DataFrame(
    [(f"{d} {s:02d}", d, s, g, a) for d, s, g, a in _SEED_ROWS],
    columns=["participant", "dataset", "subject", "gender", "age"])
SEED_DEMOGRAPHICS["gender"] = normalise_gender(SEED_DEMOGRAPHICS["gender"])


def _seed(k: int, rows: list[tuple[str, int, int]]) -> Scheme:
    return Scheme(k, tuple(AgeClass(g, lo, hi) for g, lo, hi in rows), all(g != ANY for g, _, _ in rows),
                  source="David-John et al., Table 2")


SEED_TABLE2: dict[int, Scheme] = {
    4: _seed(4, [("female", 23, 31), ("male", 23, 27), ("male", 29, 31), ("male", 32, 33), ("male", 35, 52)]),
    6: _seed(6, [("female", 23, 31), ("male", 23, 27), ("male", 29, 33), ("male", 35, 52)]),
    8: _seed(8, [(ANY, 23, 27), (ANY, 28, 31), (ANY, 32, 52)]),
    15: _seed(15, [(ANY, 23, 28), (ANY, 29, 52)]),
}


@dataclass(frozen=True)
class SeedComparison:
    """Our scheme next to the seed's for one k, with the verdict and the explanation in plain words."""

    k: int
    ours: Scheme
    seed: Scheme
    seed_valid: bool
    seed_uncovered: tuple[str, ...]
    same_rows: bool
    verdict: str
    explanation: str


def _runs_text(values: Sequence[int]) -> str:
    """Sorted integers -> "28, 32–52" (consecutive runs joined by a dash)."""
    parts, run = [], []
    for v in values:
        if run and v != run[-1] + 1:
            parts.append(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]))
            run = []
        run.append(v)
    if run:
        parts.append(f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]))
    return ", ".join(parts)


def _uncovered(scheme: Scheme, lo: int, hi: int, genders: Sequence[str]) -> tuple[str, ...]:
    """Ages in [lo, hi] of each gender that no class of the scheme covers, as "male 28, 34"."""
    out = []
    for g in genders:
        missing = [a for a in range(lo, hi + 1)
                   if not any((c.gender in (g, ANY)) and c.lo <= a <= c.hi for c in scheme.classes)]
        if missing:
            out.append(f"{g} {_runs_text(missing)}")
    return tuple(out)


def compare_with_seed(k: int, demographics: pd.DataFrame = SEED_DEMOGRAPHICS) -> SeedComparison:
    """k in SEED_TABLE2 -> our k-anonymisation of the seed's rows next to the seed's Table 2, explained."""
    if k not in SEED_TABLE2:
        raise ValueError(f"the seed's Table 2 has k = {sorted(SEED_TABLE2)}, not {k}")
    seed = SEED_TABLE2[k]
    _, ours = k_anonymize(demographics, k)
    sc = seed.assign(demographics)
    oc = ours.assign(demographics)
    seed_sizes = np.bincount(sc[sc >= 0], minlength=len(seed.classes))
    seed_valid = bool((sc >= 0).all() and (seed_sizes[seed_sizes > 0] >= k).all())
    genders = sorted(set(normalise_gender(demographics["gender"])))
    ages = demographics["age"].to_numpy(int)
    uncovered = _uncovered(seed, int(ages.min()), int(ages.max()), genders if seed.keeps_gender else [ANY])
    # Same grouping = the two schemes put the rows into the same sets (labels may differ in uncovered ages).
    same = pd.crosstab(sc, oc).astype(bool).sum(axis=1).eq(1).all() and len(set(sc)) == len(set(oc))
    n_seed, n_ours = len(seed.classes), len(ours.classes)
    gaps = f" The seed's ranges leave ages uncovered ({'; '.join(uncovered)}): nobody in the table has them, " \
           "but a new person of that age would fit no class; our ranges cover the whole age span." if uncovered else ""
    if not seed_valid:
        verdict, text = "seed inconsistent", "The seed's scheme does not give every row a class of >= k rows."
    elif same:
        verdict = "reproduced"
        text = f"Same {n_ours} groups of rows as the seed."
    elif n_ours > n_seed:
        verdict = "seed not maximal"
        text = (f"The seed's scheme is k-anonymous, but it has {n_seed} classes where {n_ours} are possible, so "
                "it does not follow its own rule (most classes). ")
        splits = []
        for i, c in enumerate(seed.classes):
            inside = oc[sc == i]
            parts = sorted(set(inside))
            if len(parts) > 1:
                pieces = " and ".join(f"{ours.classes[p].label()} ({int((inside == p).sum())} of them)" for p in parts)
                splits.append(f"the seed's {c.label()} ({inside.size} rows) goes to {pieces}")
        if splits:
            text += "Where they differ: " + "; ".join(splits) + f". Every class of ours has >= {k} rows."
    elif n_ours == n_seed:
        verdict = "tie: other boundaries"
        sizes_o = np.bincount(oc[oc >= 0], minlength=n_ours)
        text = (f"Both have the maximal {n_ours} classes, and several boundary choices reach it; the seed does not "
                "say how it chose. We take the one with the least information loss (narrowest age ranges per row): "
                f"class sizes {', '.join(map(str, sizes_o))} here, {', '.join(map(str, seed_sizes))} in the seed.")
    else:
        verdict = "seed has more classes"
        text = "The seed has more classes than our search found — this would be a bug in EyeDP."
    return SeedComparison(k, ours, seed, seed_valid, uncovered, bool(same), verdict, text + gaps)
