"""EyeLink ASC (EDF converted to text by SR Research's edf2asc) -> gaze samples, events and display size.

Written by hand against the ASC layout in the EyeLink 1000 Plus user manual (section "ASC files"):

* sample lines start with the time in ms: ``time xp yp ps [flags]`` for one eye and
  ``time xpl ypl psl xpr ypr psr [flags]`` for two (velocity and resolution fields may follow the positions;
  they are not read). A missing position is ``.``, a missing pupil ``0.0`` or ``.``;
* ``SAMPLES GAZE LEFT RIGHT RATE 500.00 ...`` says which eyes the following sample lines hold;
* events: ``EFIX eye start end dur x y pupil``, ``ESACC eye start end dur sx sy ex ey ampl pv``,
  ``EBLINK eye start end dur``;
* messages: ``MSG time text``; ``TRIALID id`` starts a trial, ``!V IMGLOAD ... file`` names its image,
  ``DISPLAY_COORDS left top right bottom`` (or ``GAZE_COORDS``) gives the screen size in pixels.

Binocular samples are averaged over the eyes that have data. Times become seconds. ``HREF`` or ``RAW``
samples are refused: only gaze in screen pixels is read. An EDF file itself (binary) is not read here: see
the README of eyedp_core.io for why.
"""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.errors import DataError, DataWarning

_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_EVENT_KINDS = {"EFIX": "fixation", "ESACC": "saccade", "EBLINK": "blink"}
# Priority when events overlap on a sample: a blink hides everything, a saccade hides a fixation.
_LABEL_ORDER = ("fixation", "saccade", "blink")
_SAMPLE_FIELDS = 7  # time plus two eyes of x, y, pupil


def looks_like_asc(head: str) -> bool:
    """Beginning of a text file -> whether it is an EyeLink ASC file."""
    start = head.lstrip()[:4000]
    if start.startswith("**") and ("CONVERTED FROM" in start or "EYELINK" in start.upper()):
        return True
    return bool(re.search(r"^(MSG|SFIX|EFIX|SSACC|ESACC|SBLINK|EBLINK)\s", start, flags=re.MULTILINE)
                and re.search(r"^(START|SAMPLES|EVENTS)\s", start, flags=re.MULTILINE))


@dataclass
class AscRecording:
    """What an ASC file holds: samples (participant, t_s, x, y, pupil, trial, stimulus, event), events."""

    samples: pd.DataFrame
    events: pd.DataFrame
    info: dict[str, Any] = field(default_factory=dict)
    warnings: list[DataWarning] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def _float(text: str) -> float:
    """An ASC field -> float ('.' and anything unreadable -> NaN)."""
    try:
        return float(text)
    except ValueError:
        return float("nan")


def _display_size(fields: list[str]) -> tuple[int, int] | None:
    """'left top right bottom' -> (width, height) px; right/bottom are the last pixel (1919) or the size."""
    try:
        left, top, right, bottom = (float(f) for f in fields[:4])
    except (ValueError, TypeError):
        return None
    w, h = right - left, bottom - top
    # EyeLink writes the last pixel (0 0 1919 1079); older files write the size itself (0 0 640 480).
    w = w + 1 if int(round(w)) % 2 else w
    h = h + 1 if int(round(h)) % 2 else h
    if not (0 < w < 100_000 and 0 < h < 100_000):
        return None
    return int(round(w)), int(round(h))


def _eyes(words: list[str]) -> str:
    """Words of a SAMPLES/START line -> 'L', 'R' or 'LR'."""
    upper = {w.upper() for w in words}
    both = {"LEFT", "RIGHT"} <= upper
    return "LR" if both else "L" if "LEFT" in upper else "R"


@dataclass
class _Scan:
    """What one pass over the lines of an ASC file collects (sample lines are kept as text for one bulk parse)."""

    sample_lines: list[str] = field(default_factory=list)
    sample_rows: list[int] = field(default_factory=list)  # 1-based line number of each sample line
    sample_trial: list[int] = field(default_factory=list)
    sample_layout: list[int] = field(default_factory=list)
    trials: list[tuple[str, str | None]] = field(default_factory=lambda: [("", None)])  # (id, image); 0 = before any
    layouts: list[str] = field(default_factory=lambda: ["R"])
    events: list[tuple[str, str, float, float, float, float, float, int]] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=lambda: {"rate_hz": None, "display_px": None, "eyes": None,
                                                          "sample_type": "GAZE"})
    trial: int = 0
    layout: int = 0
    unreadable: int = 0

    def message(self, words: list[str]) -> None:
        """A MSG line: trial start, the trial's image, or the display size."""
        msg = words[2:]
        # An optional numeric offset may precede the text.
        if msg and re.fullmatch(r"-?\d+", msg[0]) and len(msg) > 1 and not msg[1][:1].isdigit():
            msg = msg[1:]
        if "TRIALID" in msg:
            k = msg.index("TRIALID")
            self.trials.append((" ".join(msg[k + 1:k + 2]) or str(len(self.trials)), None))
            self.trial = len(self.trials) - 1
        elif len(msg) >= 3 and msg[0] == "!V" and msg[1] == "IMGLOAD":
            path = next((m for m in msg[3:] if re.search(r"\.\w{2,4}$", m)), msg[-1])
            image = PurePath(path.replace("\\", "/")).name
            if self.trial == 0:
                self.trials.append((str(len(self.trials)), image))
                self.trial = len(self.trials) - 1
            else:
                self.trials[self.trial] = (self.trials[self.trial][0], image)
        elif msg and msg[0] in ("DISPLAY_COORDS", "GAZE_COORDS") and self.info["display_px"] is None:
            self.info["display_px"] = _display_size(msg[1:5])

    def event(self, key: str, words: list[str]) -> None:
        """An EFIX / ESACC / EBLINK line (one with an unreadable time is counted, not kept)."""
        st, et = _float(words[2]), _float(words[3])
        x = y = float("nan")
        if key == "EFIX" and len(words) >= 7:
            x, y = _float(words[5]), _float(words[6])
        elif key == "ESACC" and len(words) >= 9:
            x, y = _float(words[7]), _float(words[8])  # where the saccade landed
        if np.isfinite(st) and np.isfinite(et):
            self.events.append((_EVENT_KINDS[key], words[1].upper()[:1], st, et, _float(words[4]), x, y,
                                self.trial))
        else:
            self.unreadable += 1

    def block_start(self, key: str, words: list[str]) -> None:
        """A SAMPLES or START line: the eyes of the following samples, and (SAMPLES) their type and rate."""
        if key == "SAMPLES":
            upper = [w.upper() for w in words]
            if "HREF" in upper or "RAW" in upper:
                self.info["sample_type"] = "HREF" if "HREF" in upper else "RAW"
            if "RATE" in upper:
                k = upper.index("RATE")
                rate = _float(words[k + 1]) if k + 1 < len(words) else float("nan")
                self.info["rate_hz"] = rate if np.isfinite(rate) and rate > 0 else self.info["rate_hz"]
        eyes = _eyes(words)
        if eyes not in self.layouts:
            self.layouts.append(eyes)
        self.layout = self.layouts.index(eyes)
        self.info["eyes"] = eyes if self.info["eyes"] in (None, eyes) else "LR"


def _scan(text: str) -> _Scan:
    """ASC text -> its sample lines (with line number, trial and eye layout), trials, events and header facts."""
    scan = _Scan()
    for number, line in enumerate(_LINE_SPLIT.split(text), start=1):
        if not line:
            continue
        c = line[0]
        if "0" <= c <= "9":
            scan.sample_lines.append(line)
            scan.sample_rows.append(number)
            scan.sample_trial.append(scan.trial)
            scan.sample_layout.append(scan.layout)
            continue
        words = line.split()
        if not words:
            continue
        key = words[0]
        if key == "MSG":
            scan.message(words)
        elif key in _EVENT_KINDS and len(words) >= 5:
            scan.event(key, words)
        elif key in ("SAMPLES", "START"):
            scan.block_start(key, words)
    return scan


def _sample_matrix(sample_lines: list[str]) -> np.ndarray:
    """Sample lines -> (lines, 7) floats: time and two eyes of x, y, pupil (NaN where unreadable or absent)."""
    try:
        with warnings.catch_warnings():
            # Flags and velocity fields beyond the seventh are dropped on purpose.
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            joined = BytesIO("\n".join(sample_lines).encode("utf-8", errors="replace"))
            raw = pd.read_csv(joined, sep=r"\s+", header=None, index_col=False,
                              names=list(range(_SAMPLE_FIELDS)), dtype=str, engine="c", on_bad_lines="skip",
                              skip_blank_lines=False, na_filter=False, quoting=3)
    except (pd.errors.ParserError, ValueError, OverflowError):
        raw = pd.DataFrame()
    if len(raw) != len(sample_lines):
        # The C parser skipped lines it could not split: fall back to the safe line-by-line reading.
        rows = [(ln.split() + [""] * _SAMPLE_FIELDS)[:_SAMPLE_FIELDS] for ln in sample_lines]
        raw = pd.DataFrame(rows, columns=list(range(_SAMPLE_FIELDS)))
    num = raw.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    return np.array(num, copy=True)


def _gaze(num: np.ndarray, layout_names: np.ndarray, eye: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sample matrix, eye layout per sample ('L', 'R', 'LR'), eye choice -> x, y, pupil per sample."""
    binocular = layout_names == "LR"
    left_only = layout_names == "L"
    # Monocular: fields 1-3 are the one eye. Binocular: 1-3 left, 4-6 right.
    xl, yl, pl = num[:, 1], num[:, 2], num[:, 3]
    xr = np.where(binocular, num[:, 4], np.nan)
    yr = np.where(binocular, num[:, 5], np.nan)
    pr = np.where(binocular, num[:, 6], np.nan)
    for xs, ys, ps in ((xl, yl, pl), (xr, yr, pr)):
        lost = (xs == 0) & (ys == 0)
        xs[lost] = np.nan
        ys[lost] = np.nan
        ps[~(ps > 0)] = np.nan
    # In monocular blocks the single eye sits in the 'left' slots whichever eye it was.
    if eye == "right":
        use_l = ~binocular & ~left_only
        return (np.where(binocular, xr, np.where(use_l, xl, np.nan)),
                np.where(binocular, yr, np.where(use_l, yl, np.nan)),
                np.where(binocular, pr, np.where(use_l, pl, np.nan)))
    if eye == "left":
        use_l = ~binocular & left_only
        return (np.where(binocular | use_l, xl, np.nan), np.where(binocular | use_l, yl, np.nan),
                np.where(binocular | use_l, pl, np.nan))
    with np.errstate(invalid="ignore"):
        both_x = np.column_stack([xl, xr])
        both_y = np.column_stack([yl, yr])
        ok = np.isfinite(both_x) & np.isfinite(both_y)
        n = ok.sum(axis=1)
        x = np.divide(np.where(ok, both_x, 0).sum(axis=1), n, out=np.full(len(n), np.nan), where=n > 0)
        y = np.divide(np.where(ok, both_y, 0).sum(axis=1), n, out=np.full(len(n), np.nan), where=n > 0)
        pp = np.column_stack([pl, pr])
        okp = np.isfinite(pp)
        npp = okp.sum(axis=1)
        pupil = np.divide(np.where(okp, pp, 0).sum(axis=1), npp, out=np.full(len(npp), np.nan), where=npp > 0)
    return x, y, pupil


def parse_asc(text: str, filename: str, participant: str | None = None, eye: str = "mean") -> AscRecording:
    """ASC text -> AscRecording; DataError when it holds no gaze samples or only HREF/RAW ones."""
    if eye not in ("mean", "left", "right"):
        raise ValueError(f"eye must be 'mean', 'left' or 'right', got {eye!r}")
    who = participant or (PurePath(str(filename or "recording")).name.split(".")[0] or "recording")
    scan = _scan(text)
    info, trials, sample_lines = scan.info, scan.trials, scan.sample_lines
    if info["sample_type"] != "GAZE":
        raise DataError(f"this ASC file holds {info['sample_type']} samples; only GAZE samples (screen "
                        "pixels) can be read. Convert the EDF again with edf2asc's default (gaze) output.",
                        file=filename, expected="GAZE samples")
    if not sample_lines:
        raise DataError("this EyeLink ASC file holds no sample lines (was it converted with events only, "
                        "edf2asc -e?). Convert it again with samples.", file=filename,
                        expected="sample lines 'time x y pupil'")
    num = _sample_matrix(sample_lines)
    t_ms = num[:, 0]
    layout_names = np.asarray(scan.layouts, dtype=object)[np.asarray(scan.sample_layout, dtype=np.int64)]
    x, y, pupil = _gaze(num, layout_names, eye)
    bad_time = ~np.isfinite(t_ms)
    counts = {"sample_lines": len(sample_lines), "unreadable_sample_lines": int(bad_time.sum()),
              "unreadable_event_lines": scan.unreadable}
    trial_arr = np.asarray(scan.sample_trial)
    keep = ~bad_time
    rows = np.asarray(scan.sample_rows)[keep]
    trial_kept = trial_arr[keep]
    trial_ids = np.array([t[0] for t in trials], dtype=object)
    images = np.array([t[1] for t in trials], dtype=object)
    has_trials = len(trials) > 1
    stim = (np.where(pd.isna(images[trial_kept]), trial_ids[trial_kept], images[trial_kept])
            if has_trials else None)
    samples = pd.DataFrame({"participant": pd.Series(who, index=range(len(rows)), dtype="str"),
                            "t_s": t_ms[keep] / 1000.0, "x": x[keep], "y": y[keep], "pupil": pupil[keep]})
    if has_trials:
        samples["trial"] = pd.Series(trial_ids[trial_kept], dtype="str").to_numpy()
        samples["stimulus"] = pd.Series(stim, dtype="str").to_numpy()
    ev = pd.DataFrame(scan.events, columns=["type", "eye", "t_start_ms", "t_end_ms", "duration_ms", "x", "y",
                                            "trial"])
    samples["event"] = _label_samples(samples["t_s"].to_numpy() * 1000.0, ev, eye, info["eyes"])
    samples.index = pd.Index(rows, name="row")
    if samples.empty:
        raise DataError("no sample line of this EyeLink ASC file has a readable time.", file=filename,
                        expected="sample lines 'time x y pupil'")
    ev_out = _events_table(ev, who, trials, eye)
    notes: list[DataWarning] = []
    if counts["unreadable_sample_lines"]:
        notes.append(DataWarning(f"{counts['unreadable_sample_lines']:,} sample lines had no readable time "
                                    "and were left out.", file=filename))
    notes.append(DataWarning("EyeLink pupil size is in the tracker's arbitrary units (area or diameter), "
                             "not millimetres.", file=filename))
    return AscRecording(samples, ev_out, info, notes, counts)


def _chosen_eye(ev: pd.DataFrame, eye: str, eyes: str | None) -> str | None:
    """Events and the eye choice -> the one eye whose events are used ('L'/'R'), or None for all."""
    present = set(ev["eye"]) if not ev.empty else set()
    if len(present) <= 1:
        return None
    if eye == "left":
        return "L"
    if eye == "right":
        return "R"
    # Mean gaze of two eyes: take the right eye's events (EyeLink's usual dominant-eye default).
    return "R"


def _label_samples(t_ms: np.ndarray, ev: pd.DataFrame, eye: str, eyes: str | None) -> np.ndarray:
    """Sample times (ms) and events -> per-sample label ('fixation', 'saccade', 'blink' or '')."""
    labels = np.full(len(t_ms), "", dtype=object)
    if ev.empty or len(t_ms) == 0:
        return labels
    pick = _chosen_eye(ev, eye, eyes)
    use = ev if pick is None else ev[ev["eye"] == pick]
    order = np.argsort(t_ms, kind="stable")
    ts = t_ms[order]
    for kind in _LABEL_ORDER:
        sub = use[use["type"] == kind]
        if sub.empty:
            continue
        lo = np.searchsorted(ts, sub["t_start_ms"].to_numpy(), side="left")
        hi = np.searchsorted(ts, sub["t_end_ms"].to_numpy(), side="right")
        mark = np.zeros(len(ts) + 1, dtype=np.int64)
        np.add.at(mark, lo, 1)
        np.add.at(mark, hi, -1)
        inside = np.cumsum(mark[:-1]) > 0
        labels[order[inside]] = kind
    return labels


def _events_table(ev: pd.DataFrame, who: str, trials: list[tuple[str, str | None]], eye: str) -> pd.DataFrame:
    """Parsed events -> tidy events (participant, stimulus, trial, type, eye, start, end, duration, x, y)."""
    cols = ["participant", "stimulus", "trial", "type", "eye", "t_start_s", "t_end_s", "duration_ms", "x",
            "y"]
    if ev.empty:
        return pd.DataFrame(columns=cols)
    pick = _chosen_eye(ev, eye, None)
    if pick is not None:
        ev = ev[ev["eye"] == pick]
    k = ev["trial"].to_numpy()
    trial_ids = [t[0] for t in trials]
    images = [t[1] for t in trials]
    has_trials = len(trials) > 1
    out = pd.DataFrame({
        "participant": who,
        "stimulus": [(images[i] or trial_ids[i]) if has_trials else "" for i in k],
        "trial": [trial_ids[i] for i in k],
        "type": ev["type"].to_numpy(), "eye": ev["eye"].to_numpy(),
        "t_start_s": ev["t_start_ms"].to_numpy() / 1000.0, "t_end_s": ev["t_end_ms"].to_numpy() / 1000.0,
        "duration_ms": ev["duration_ms"].to_numpy(), "x": ev["x"].to_numpy(), "y": ev["y"].to_numpy(),
    })
    lost = (out["x"] == 0) & (out["y"] == 0)
    out.loc[lost, ["x", "y"]] = np.nan
    return out.reset_index(drop=True)
