"""Release forms with a small sensitivity per person, besides the full series (docs/PRIVACY_MODEL.md §14).

Neighbouring relation: one PARTICIPANT changed completely (every feature of every recording), the same unit as
the full-series mechanisms. Every value is a mean of the clamped series, so one person moves it by at most the
feature's range R_f (a recording summary) or R_f/N (a mean over the N people of a group); a person has
`recordings_per_person` recordings at most, counted from the recordings table (gaze.contributions: distinct
participant × task / session / recording / stimulus / trial groups, not the number of tasks). Values are divided
by R_f, so the person's whole output vector has one L1 sensitivity Δ1 and one Laplace scale b = Δ1/ε in range
units (b_f = R_f·b per feature): ε-DP per person for the whole release.

* `Form.RECORDING` — per recording and feature, the mean over `blocks` equal coarse windows of the public length
  T (blocks = 1: one summary per recording). Δ1 = recordings_per_person · blocks · F.
* `Form.GROUP` — per task (document) and feature, the mean over the PEOPLE who did it of each person's average
  over their recordings of that task (blocks coarse windows). A person's average moves by at most R_f whatever
  their number of recordings, so Δ1 = blocks · F · Σ_task 1/N_task with N_task the task's participants (a mean
  over recordings would let a person with R of them move it by R·R_f/N_recordings).

Expected utility is analytic (the noise is independent of the data): NMSE_f = 2·b_f²/V_f with V_f the variance
across participants of the per-recording summaries, utility = mean_f 1/NMSE_f as the page's sweep (Bozkir et
al.'s averaging), in dB. It grows as ε² (and, for groups, as N²), so the ε and the number of people at which a
target is crossed have closed forms.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import pandas as pd

from eyedp_core.dp.noise import LaplaceMechanism
from eyedp_core.gaze.contributions import contributions

__all__ = ["Form", "FormComparison", "FormSetting", "FormCalibration", "FormRelease", "FormRow", "block_means", "group_table",
           "group_sizes", "form_values", "max_recordings", "calibrate", "release", "person_spread", "expected_db", "crossing_epsilon", "crossing_people",
           "usable_sentence", "compare_forms", "overall_sentence", "FORM_WORDS"]


class Form(StrEnum):
    """What is released: summaries per recording (coarse windows), or means over the participants of a task."""

    RECORDING = "recording"
    GROUP = "group"


FORM_WORDS = {Form.RECORDING: "per-recording summaries", Form.GROUP: "group means per task"}
# A table without a task column has one group: everyone.
ONE_GROUP_WORDS = "group mean over all participants"


@dataclass(frozen=True)
class FormSetting:
    """A release form: which form, coarse windows per recording, total ε per person, recordings per person."""

    form: Form
    epsilon: float
    blocks: int = 1
    recordings_per_person: int = 1
    by_task: bool = True  # GROUP: one group per task; False: one group of everyone (no task column)

    def words(self) -> str:
        """-> plain words, e.g. 'group means per task, 4 coarse windows'."""
        base = ONE_GROUP_WORDS if self.form is Form.GROUP and not self.by_task else FORM_WORDS[self.form]
        return base if self.blocks == 1 else f"{base}, {self.blocks} coarse windows per recording"


@dataclass(frozen=True)
class FormCalibration:
    """Δ1 of the person's output in range units, the Laplace scale b = Δ1/ε in range units, b_f per feature."""

    setting: FormSetting
    l1_sensitivity: float      # in units of R_f (values divided by their range)
    scale: float               # b in range units
    feature_scale: np.ndarray  # (F,) b_f = R_f · b, in feature units
    group_sizes: tuple[int, ...]  # N per task (GROUP), () for RECORDING
    formula: str               # the formula with the numbers plugged in, plain text

    @property
    def calibration(self):  # noqa: ANN201 - the dp Calibration of the range-unit mechanism
        """-> the eyedp_core.dp Calibration of the Laplace mechanism (range units)."""
        return LaplaceMechanism(epsilon=self.setting.epsilon, sensitivity=self.l1_sensitivity).calibration


@dataclass(frozen=True)
class FormRelease:
    """Clean and noisy values of a form: (units, F, blocks) with the unit labels (recordings or tasks)."""

    units: pd.DataFrame
    clean: np.ndarray
    noisy: np.ndarray
    calibration: FormCalibration


def block_means(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, blocks: int = 1) -> np.ndarray:
    """Series (recordings, F, T), public bounds (F,), blocks in, means of the clamped series over `blocks` equal
    parts of T (the last part takes the remainder) out: (recordings, F, blocks)."""
    t = x.shape[-1]
    if not 1 <= blocks <= t:
        raise ValueError(f"blocks must lie in 1 … T = {t}, got {blocks}")
    c = np.clip(x, np.asarray(lo, float)[None, :, None], np.asarray(hi, float)[None, :, None])
    edges = np.linspace(0, t, blocks + 1).round().astype(int)
    sums = np.add.reduceat(c, edges[:-1], axis=-1)
    return sums / np.diff(edges)[None, None, :]


def group_table(recs: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """Recordings table (participant[, task]) in, (group index per recording, group names) out: one group per
    task, or one group 'all' when there is no task column."""
    if "task" not in recs.columns:
        return np.zeros(len(recs), dtype=int), ["all"]
    codes, names = pd.factorize(recs["task"].astype(str), sort=True)
    return codes.astype(int), [str(n) for n in names]


def calibrate(setting: FormSetting, lo: np.ndarray, hi: np.ndarray,
              group_sizes: tuple[int, ...] = ()) -> FormCalibration:
    """Form setting, public bounds (F,), N per group (GROUP) in, the calibration of the whole release out."""
    if not setting.epsilon > 0 or not math.isfinite(setting.epsilon):
        raise ValueError("epsilon must be finite and > 0")
    if setting.blocks < 1 or setting.recordings_per_person < 1:
        raise ValueError("blocks and recordings per person must be >= 1")
    r = np.asarray(hi, float) - np.asarray(lo, float)
    f = r.size
    if setting.form is Form.RECORDING:
        d1 = float(setting.recordings_per_person * setting.blocks * f)
        formula = (f"Δ1 = recordings per person × coarse windows × features = {setting.recordings_per_person} × "
                   f"{setting.blocks} × {f} = {d1:g} (each value a mean of clamped values, moved by at most R_f)")
    else:
        if not group_sizes or min(group_sizes) < 1:
            raise ValueError("group means need at least one participant per group")
        inv = float(sum(1.0 / n for n in group_sizes))
        d1 = setting.blocks * f * inv
        sizes = ", ".join(map(str, group_sizes))
        formula = (f"Δ1 = coarse windows × features × Σ_groups 1/N = {setting.blocks} × {f} × Σ 1/N (N = {sizes}) "
                   f"= {d1:.4g} (one person moves a mean over N people by at most R_f/N)")
    b = d1 / setting.epsilon
    formula += f"; b = Δ1/ε = {d1:.4g}/{setting.epsilon:g} = {b:.4g} ranges, b_f = R_f·b"
    return FormCalibration(setting, d1, b, r * b, tuple(int(n) for n in group_sizes), formula)


def max_recordings(recs: pd.DataFrame) -> int:
    """Recordings table (one row per recording: participant[, task, session, …]) -> the most recordings of any
    one participant (gaze.contributions on the table's own structure)."""
    return contributions(recs.drop(columns=["length"], errors="ignore")).max_recordings


def _check_count(setting: FormSetting, recs: pd.DataFrame) -> None:
    """ValueError when the setting counts fewer recordings per person than the recordings table holds."""
    have = max_recordings(recs)
    if setting.form is Form.RECORDING and setting.recordings_per_person < have:
        raise ValueError(f"a participant has {have} recordings here, but the setting counts "
                         f"{setting.recordings_per_person}: Δ1 would understate what one person moves")


def _person_means(means: np.ndarray, gid: np.ndarray, who: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-recording summaries, group and participant codes per recording -> (group means over the people of each
    group, each person's recordings of the group averaged first; participants per group)."""
    pair, pair_of = np.unique(np.stack([gid, who]), axis=1, return_inverse=True)
    pair_of = np.asarray(pair_of).reshape(-1)
    per_pair = np.zeros((pair.shape[1],) + means.shape[1:])
    np.add.at(per_pair, pair_of, means)
    per_pair /= np.bincount(pair_of, minlength=pair.shape[1])[:, None, None]
    sums = np.zeros((n_groups,) + means.shape[1:])
    np.add.at(sums, pair[0], per_pair)
    sizes = np.bincount(pair[0], minlength=n_groups)
    return sums / sizes[:, None, None], sizes


def group_sizes(recs: pd.DataFrame) -> tuple[int, ...]:
    """Recordings table -> participants (not recordings) per group, in group_table's order."""
    gid, names = group_table(recs)
    who = pd.factorize(recs["participant"].astype(str))[0]
    pairs = pd.DataFrame({"g": gid, "p": who}).drop_duplicates()
    return tuple(np.bincount(pairs["g"].to_numpy(), minlength=len(names)).astype(int).tolist())


def form_values(setting: FormSetting, x: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                recs: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, tuple[int, ...]]:
    """Form setting, series (recordings, F, T), bounds and recordings table in, (unit labels, clean values (units,
    F, blocks), participants per group) out: what a form releases before its noise (preview and release alike)."""
    _check_count(setting, recs)
    means = block_means(x, lo, hi, setting.blocks)
    if setting.form is Form.RECORDING:
        return recs.reset_index(drop=True), means, ()
    gid, names = group_table(recs)
    who = pd.factorize(recs["participant"].astype(str))[0]
    values, sizes = _person_means(means, gid, who, len(names))
    return pd.DataFrame({"task": names, "participants": sizes}), values, tuple(int(n) for n in sizes)


def release(setting: FormSetting, x: np.ndarray, lo: np.ndarray, hi: np.ndarray, recs: pd.DataFrame,
            rng: np.random.Generator) -> FormRelease:
    """Form setting, series (recordings, F, T), bounds, recordings table, preview Generator in, the release out.

    The noise is drawn through eyedp_core.dp.noise (one Laplace mechanism in range units, scaled per feature)."""
    units, clean, sizes = form_values(setting, x, lo, hi, recs)
    cal = calibrate(setting, lo, hi, sizes)
    mech = LaplaceMechanism(epsilon=setting.epsilon, sensitivity=cal.l1_sensitivity)
    scale = np.broadcast_to(cal.feature_scale[None, :, None], clean.shape)
    noisy = clean + mech.sample(rng, clean.shape, scale=scale)
    return FormRelease(units, clean, noisy, cal)


def person_spread(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, blocks: int = 1) -> np.ndarray:
    """Series, bounds in, V_f: the variance across recordings of the per-recording summaries (F,) out (private
    data: the utility it gives is for the curator's eyes)."""
    return block_means(x, lo, hi, blocks).var(axis=(0, 2))


def expected_db(cal: FormCalibration, spread: np.ndarray) -> float:
    """Calibration and V_f in, expected utility in dB: 10·log10(mean_f V_f / (2 b_f²)) (0 dB: noise = spread)."""
    v = np.asarray(spread, float)
    ok = v > 0
    if not ok.any():
        return float("-inf")
    util = np.mean(v[ok] / (2.0 * cal.feature_scale[ok] ** 2))
    return float(10.0 * np.log10(util))


def crossing_epsilon(cal: FormCalibration, spread: np.ndarray, target_db: float = 0.0) -> float:
    """-> the ε per person at which the expected utility reaches target_db (utility ∝ ε², so closed form)."""
    db = expected_db(cal, spread)
    if not math.isfinite(db):
        return float("inf")
    return float(cal.setting.epsilon * 10.0 ** ((target_db - db) / 20.0))


def crossing_people(cal: FormCalibration, spread: np.ndarray, target_db: float = 0.0) -> float:
    """GROUP form -> the number of participants per group at which the target is reached at this ε (equal groups:
    b ∝ 1/N, utility ∝ N²); inf for a form whose noise does not shrink with N."""
    if cal.setting.form is not Form.GROUP:
        return float("inf")
    db = expected_db(cal, spread)
    if not math.isfinite(db):
        return float("inf")
    n_now = len(cal.group_sizes) / sum(1.0 / n for n in cal.group_sizes)  # harmonic mean of the group sizes
    return float(n_now * 10.0 ** ((target_db - db) / 20.0))


def usable_sentence(cal: FormCalibration, spread: np.ndarray, target_db: float = 0.0,
                    eps_range: tuple[float, float] = (0.001, 10000.0)) -> str:
    """-> one sentence: what would make this setting reach the target (ε, or the number of participants)."""
    db = expected_db(cal, spread)
    eps_star = crossing_epsilon(cal, spread, target_db)
    what = cal.setting.words()
    if not math.isfinite(db):
        return (f"{what.capitalize()}: the recordings' summaries do not differ here (one recording, or values "
                "constant after clamping), so there is no spread to measure its utility against.")
    now = f"{db:+.1f} dB at ε = {cal.setting.epsilon:g} per person"
    if db >= target_db:
        head = f"{what.capitalize()}: usable now ({now}); it stays above {target_db:g} dB down to ε = {eps_star:.3g}."
    elif eps_star <= eps_range[1]:
        head = f"{what.capitalize()}: {now}; reaches {target_db:g} dB from ε = {eps_star:.3g} per person."
    else:
        head = (f"{what.capitalize()}: {now}; it would need ε = {eps_star:.3g} per person, beyond the "
                f"{eps_range[1]:g} shown.")
    n_star = crossing_people(cal, spread, target_db)
    if cal.setting.form is Form.GROUP and db < target_db and math.isfinite(n_star):
        per = " per task" if cal.setting.by_task else ""
        head += f" At ε = {cal.setting.epsilon:g} per person it needs about {math.ceil(n_star)} participants{per}."
    return head


@dataclass(frozen=True)
class FormRow:
    """One row of the release-form comparison: what is released, its noise, expected utility, crossing."""

    label: str
    setting: FormSetting
    features: int
    values_per_person: int
    l1_sensitivity: float
    shown_scale: float     # b_f of the shown feature (feature units)
    utility_db: float
    crossing_epsilon: float
    crossing_people: float
    sentence: str


@dataclass(frozen=True)
class FormComparison:
    """What the release-form comparison asks: the total ε per person, the coarse windows of the coarse form, the
    recordings per person (at least what the recordings table holds), the shown feature, the target utility (dB)
    and the ε range its crossings are sought in."""

    epsilon: float
    blocks: int
    recordings_per_person: int
    feature_index: int
    target_db: float = 0.0
    eps_range: tuple[float, float] = (0.001, 10000.0)


def compare_forms(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, recs: pd.DataFrame,
                  question: FormComparison) -> list[FormRow]:
    """Series, bounds, recordings and the question (ε per person, coarse windows, the shown feature, target) in, one
    FormRow per form (per-recording summary, coarse windows, group means) for all features and for the shown
    feature alone."""
    q = question
    sizes = group_sizes(recs)
    counted = max_recordings(recs)
    if int(q.recordings_per_person) < counted:
        raise ValueError(f"a participant has {counted} recordings here, but {q.recordings_per_person} were given: "
                         "Δ1 would understate what one person moves")
    rows = []
    subsets = [("all released features", slice(None)), ("shown feature only", [q.feature_index])]
    forms_ = [(Form.RECORDING, 1), (Form.RECORDING, q.blocks), (Form.GROUP, 1)]
    for words, sel in subsets:
        xs, los, his = x[:, sel], np.asarray(lo)[sel], np.asarray(hi)[sel]
        shown = 0 if isinstance(sel, list) else q.feature_index
        for form, b in dict.fromkeys(forms_):
            setting = FormSetting(form, float(q.epsilon), int(b), int(q.recordings_per_person), "task" in recs.columns)
            cal = calibrate(setting, los, his, sizes if form is Form.GROUP else ())
            spread = person_spread(xs, los, his, int(b))
            per_person = (q.recordings_per_person if form is Form.RECORDING else len(sizes)) * b * los.size
            rows.append(FormRow(
                label=f"{setting.words()} — {words}", setting=setting, features=int(los.size),
                values_per_person=int(per_person), l1_sensitivity=cal.l1_sensitivity,
                shown_scale=float(cal.feature_scale[shown]), utility_db=expected_db(cal, spread),
                crossing_epsilon=crossing_epsilon(cal, spread, q.target_db),
                crossing_people=crossing_people(cal, spread, q.target_db),
                sentence=usable_sentence(cal, spread, q.target_db, q.eps_range)))
    return rows


def overall_sentence(rows: list[FormRow], target_db: float, eps_range: tuple[float, float]) -> str:
    """-> one sentence: the form that reaches the target at the smallest ε, or why none does in the range."""
    best = min(rows, key=lambda r: r.crossing_epsilon)
    if best.crossing_epsilon <= eps_range[1]:
        return (f"Smallest ε per person reaching {target_db:g} dB: {best.crossing_epsilon:.3g}, with "
                f"{best.label}.")
    return (f"No release form reaches {target_db:g} dB below ε = {eps_range[1]:g} per person: even {best.label} "
            f"needs ε = {best.crossing_epsilon:.3g}, because the public ranges are wide compared with how much people "
            "differ; fewer features, fewer coarse windows or more participants per group lower it.")
