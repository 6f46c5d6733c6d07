"""Eye-movement window features: names, units, meaning and public clamp bounds for DP, with their sources.

Bounds come from published physiological ranges of the eye movements the features summarise, never from
data, so they can be published and used as clamp bounds (sensitivity = upper - lower) by the DP mechanisms.
Every feature carries a `Source`: the reference, the range that reference supports for a 30-s window, and how
the window statistic follows from it (a mean lies inside the range of its events; a variance of values in
[a, b] is at most (b - a)²/4, Popoviciu's inequality; a count is at most rate x window). The public bound must
lie inside its source range (tests/core/gaze/test_features.py checks it, and that docs/PRIVACY_MODEL.md §13 lists the
same table). The bounds are clamp bounds: a value outside them is clipped, which costs accuracy, never privacy;
bench/bounds_realdata.py measures how often that happens on real recordings.
Count-type bounds scale with the window length: use `feature_bounds(names, window_s)`.
Statistics over an empty set of events (e.g. blink duration in a window without blinks) are 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_FIX_RATE_HZ = 6.0
MAX_SACC_RATE_HZ = 6.0
MAX_FIX_MS = 2000.0
SCREEN_DIAG_DEG = 50.0
HALF_WIDTH_DEG, HALF_HEIGHT_DEG = 22.0, 14.0
LARGE_SACCADE_DEG = 4.0           # "large" saccade threshold: beyond a reading saccade (~2-3 deg)
WORDBOOK_LETTERS = 8              # 4 directions (R, L, U, D) x small/large
WORDBOOK_N = (1, 2, 3, 4)
DEFAULT_WINDOW_S = 30.0

# The references behind the bounds (full citations in docs/PRIVACY_MODEL.md §13).
REFERENCES: dict[str, str] = {
    "Holmqvist 2011": "Holmqvist, Nyström, Andersson, Dewhurst, Jarodzka & van de Weijer (2011). Eye Tracking: "
                      "A comprehensive guide to methods and measures. Oxford University Press (Table 2.1).",
    "Rayner 1998": "Rayner (1998). Eye movements in reading and information processing: 20 years of research. "
                   "Psychological Bulletin 124(3), 372-422.",
    "Bahill 1975": "Bahill, Clark & Stark (1975). The main sequence, a tool for studying human eye movements. "
                   "Mathematical Biosciences 24, 191-204.",
    "Bahill Adler Stark 1975": "Bahill, Adler & Stark (1975). Most naturally occurring human saccades have "
                               "magnitudes of 15 degrees or less. Investigative Ophthalmology 14(6), 468-469.",
    "Carpenter 1988": "Carpenter (1988). Movements of the Eyes, 2nd ed. Pion (saccade duration ≈ 2.2 ms/deg + 21 ms).",
    "Martinez-Conde 2004": "Martinez-Conde, Macknik & Hubel (2004). The role of fixational eye movements in visual "
                           "perception. Nature Reviews Neuroscience 5, 229-240.",
    "Tatler 2007": "Tatler (2007). The central fixation bias in scene viewing. Journal of Vision 7(14):4.",
    "Bentivoglio 1997": "Bentivoglio, Bressman, Cassetta, Carretta, Tonali & Albanese (1997). Analysis of blink rate "
                        "patterns in normal subjects. Movement Disorders 12(6), 1028-1034.",
    "Caffier 2003": "Caffier, Erdmann & Ullsperger (2003). Experimental evaluation of eye-blink parameters as a "
                    "drowsiness measure. European Journal of Applied Physiology 89, 319-325.",
    "Mathôt 2018": "Mathôt (2018). Pupillometry: psychology, physiology, and function. Journal of Cognition 1(1):16.",
}


@dataclass(frozen=True)
class Source:
    """Where a bound comes from: reference(s), the range they support for a 30-s window, and the derivation."""

    reference: str
    low: float
    high: float
    derivation: str


@dataclass(frozen=True)
class FeatureSpec:
    """One feature: name, group, unit, description, public clamp bounds [lower, upper] and their source."""

    name: str
    group: str
    unit: str
    description: str
    lower: float
    upper: float
    source: Source
    counts: bool = False  # True: a count whose bound scales with the window length


def _spec(name: str, group: str, unit: str, description: str, lower: float, upper: float, source: Source,
          counts: bool = False) -> tuple[str, FeatureSpec]:
    return name, FeatureSpec(name, group, unit, description, float(lower), float(upper), source, counts)


def _same(reference: str, lower: float, upper: float, derivation: str) -> Source:
    return Source(reference, float(lower), float(upper), derivation)


_NGRAMS = MAX_SACC_RATE_HZ * DEFAULT_WINDOW_S   # 180 saccade n-grams at most in a 30-s window
_FIX = "Rayner 1998; Holmqvist 2011"
_SAC = "Holmqvist 2011; Bahill Adler Stark 1975"
_RATIO = _same("definition (a share)", 0, 1, "a share of events lies in [0, 1]")
# The wordbook bounds come from a public model of the most repetitive eye movement, reading: 180 saccades
# (the rate bound x 30 s), each the reader's forward saccade with probability 0.8 (Rayner 1998: 10-15 %
# regressions plus return sweeps), the rest spread over the other 7 letters; the bound is the model's
# 99.9th percentile (reproduced by tests/core/gaze/test_features.py), rounded up.
_WB = ("Rayner 1998 reading model (180 saccades, forward share 0.8, 99.9th percentile)")
WORDBOOK_MODEL_FORWARD_SHARE = 0.8
WORDBOOK_MODEL_QUANTILE = 0.999
_WB_BOUNDS: dict[str, float] = {   # 30-s window; rounded up from the model's 99.9th percentile
    "wb1_max_count": 160, "wb1_mean_count": 45, "wb1_var_count": 8100,
    "wb2_max_count": 145, "wb2_mean_count": 13, "wb2_var_count": 1200,
    "wb3_max_count": 125, "wb3_mean_count": 8, "wb3_var_count": 600,
    "wb4_max_count": 110, "wb4_mean_count": 6, "wb4_var_count": 350,
}

FEATURE_SPECS: dict[str, FeatureSpec] = dict([
    _spec("fix_rate_hz", "fixation", "1/s", "fixations starting in the window per second", 0, MAX_FIX_RATE_HZ,
          _same(_FIX, 0, 6, "mean fixation durations are >= ~180 ms in every task (Rayner 1998), so at most "
                            "~6 fixations per second")),
    _spec("fix_dur_mean_ms", "fixation", "ms", "mean fixation duration", 0, 1000,
          _same(_FIX, 0, 1000, "task means 180-330 ms (Rayner 1998), typical fixations 200-300 ms (Holmqvist "
                               "2011); a 30-s mean above 1 s needs pursuit or tracker artefacts")),
    _spec("fix_dur_var_ms2", "fixation", "ms^2", "variance of fixation durations", 0, MAX_FIX_MS**2 / 4,
          _same(_FIX, 0, MAX_FIX_MS**2 / 4, "Popoviciu: durations in [0, 2000] ms give variance <= 2000²/4")),
    _spec("fix_dur_max_ms", "fixation", "ms", "longest fixation", 0, 3000,
          _same("Holmqvist 2011", 0, 3000, "fixations last from tens of ms to several seconds; 3 s covers "
                                           "long fixations, longer ones are tracking artefacts")),
    _spec("fix_dur_min_ms", "fixation", "ms", "shortest fixation", 0, 250,
          _same(_FIX, 0, 250, "fixation durations range from ~50-100 ms (Rayner 1998); the shortest of the "
                              ">= 60 fixations of a 30-s window lies in that lower tail, below 250 ms")),
    _spec("fix_time_ratio", "fixation", "1", "share of the window spent fixating", 0.4, 1,
          _same("Holmqvist 2011", 0.4, 1, "about 90 % of viewing time is spent in fixations; blinks and "
                                          "tracking loss lower it, rarely below 40 %")),
    _spec("fix_disp_x_deg", "fixation", "deg", "sd of horizontal fixation positions", 0, 0.75 * HALF_WIDTH_DEG,
          _same("Tatler 2007", 0, 0.75 * HALF_WIDTH_DEG,
                "Popoviciu: at most half the 44-deg screen width; fixations concentrate towards the centre "
                "(central bias), so 3/4 of that")),
    _spec("fix_disp_y_deg", "fixation", "deg", "sd of vertical fixation positions", 0, 0.75 * HALF_HEIGHT_DEG,
          _same("Tatler 2007", 0, 0.75 * HALF_HEIGHT_DEG, "as horizontal, for the 28-deg screen height")),
    _spec("sacc_rate_hz", "saccade", "1/s", "saccades starting in the window per second", 0, MAX_SACC_RATE_HZ,
          _same(_FIX, 0, 6, "one saccade per fixation (3-4 per second, Rayner 1998) plus detector "
                            "artefacts at blink edges")),
    _spec("sacc_amp_mean_deg", "saccade", "deg", "mean saccade amplitude", 0, 15,
          _same(_SAC, 0, 15, "reading saccades ~2 deg, scene viewing 4-5 deg (Rayner 1998); most natural "
                             "saccades are 15 deg or less (Bahill, Adler & Stark 1975)")),
    _spec("sacc_amp_var_deg2", "saccade", "deg^2", "variance of saccade amplitudes", 0, 100,
          _same(_SAC, 0, 100, "Popoviciu: amplitudes mostly in [0, 20] deg (Holmqvist 2011: 4-20 deg) give "
                              "variance <= 20²/4")),
    _spec("sacc_amp_max_deg", "saccade", "deg", "largest saccade amplitude", 0, SCREEN_DIAG_DEG,
          _same("geometry", 0, SCREEN_DIAG_DEG, "no on-screen saccade exceeds the 50-deg screen diagonal")),
    _spec("sacc_amp_min_deg", "saccade", "deg", "smallest saccade amplitude", 0, 2,
          _same("Martinez-Conde 2004", 0, 2, "small saccades and microsaccades (< 1-2 deg) occur in every "
                                             "30 s of viewing, so the window's smallest is below 2 deg")),
    _spec("sacc_dur_mean_ms", "saccade", "ms", "mean saccade duration", 0, 100,
          _same("Holmqvist 2011; Carpenter 1988", 0, 100, "saccades last 30-80 ms; 2.2 ms/deg + 21 ms "
                                                          "gives 54 ms at a 15-deg mean")),
    _spec("sacc_peak_vel_mean_deg_s", "saccade", "deg/s", "mean saccade peak velocity", 0, 600,
          _same("Holmqvist 2011; Bahill 1975", 0, 600, "peak velocities 30-500 deg/s; the main sequence "
                                                        "saturates at 500-700 deg/s")),
    _spec("sacc_peak_vel_max_deg_s", "saccade", "deg/s", "highest saccade peak velocity", 0, 1000,
          _same("Bahill 1975", 0, 1000, "the main sequence saturates below 1000 deg/s even for the largest "
                                        "saccades; faster 'saccades' are noise")),
    _spec("sacc_peak_vel_var", "saccade", "(deg/s)^2", "variance of saccade peak velocities", 0, 250000,
          _same("Bahill 1975", 0, 250000, "Popoviciu: peak velocities in [0, 1000] deg/s")),
    _spec("sacc_vel_per_deg_hz", "saccade", "1/s", "summed peak velocity / summed amplitude (main-sequence "
          "steepness)", 0, 150,
          _same("Bahill 1975; Holmqvist 2011", 0, 150, "main-sequence slopes for small saccades are "
                                                        "30-100 deg/s per deg; larger saccades are flatter")),
    _spec("sacc_large_ratio", "saccade", "1", f"share of saccades >= {LARGE_SACCADE_DEG:g} deg", 0, 1, _RATIO),
    _spec("sacc_right_ratio", "saccade", "1", "share of mainly rightward saccades", 0, 1, _RATIO),
    _spec("sacc_left_ratio", "saccade", "1", "share of mainly leftward saccades", 0, 1, _RATIO),
    _spec("sacc_up_ratio", "saccade", "1", "share of mainly upward saccades", 0, 1, _RATIO),
    _spec("sacc_down_ratio", "saccade", "1", "share of mainly downward saccades", 0, 1, _RATIO),
    _spec("blink_rate_per_min", "blink", "1/min", "blinks starting in the window per minute", 0, 60,
          _same("Bentivoglio 1997", 0, 60, "17/min at rest, 26/min in conversation, 4.5/min reading; "
                                           "60/min is far above every condition")),
    _spec("blink_dur_mean_ms", "blink", "ms", "mean blink duration", 0, 500,
          _same("Caffier 2003", 0, 500, "blinks last 100-400 ms (longer when drowsy); longer closures are "
                                        "not blinks")),
    _spec("blink_dur_var_ms2", "blink", "ms^2", "variance of blink durations", 0, 62500,
          _same("Caffier 2003", 0, 62500, "Popoviciu: durations in [0, 500] ms")),
    _spec("blink_dur_max_ms", "blink", "ms", "longest blink", 0, 500,
          _same("Caffier 2003", 0, 500, "as the mean")),
    _spec("pupil_mean_mm", "pupil", "mm", "mean pupil diameter over fixations", 2, 8,
          _same("Mathôt 2018", 2, 8, "the pupil ranges from about 2 to 8 mm")),
    _spec("pupil_var_mm2", "pupil", "mm^2", "variance of per-fixation pupil diameters", 0, 1,
          _same("Mathôt 2018", 0, 1, "within 30 s on a screen the pupil moves by at most ~2 mm (light "
                                     "reflex; cognitive effects <= 0.5 mm); Popoviciu: 2²/4")),
    _spec("pupil_min_mm", "pupil", "mm", "smallest per-fixation pupil diameter", 2, 8,
          _same("Mathôt 2018", 2, 8, "as the mean")),
    _spec("pupil_max_mm", "pupil", "mm", "largest per-fixation pupil diameter", 2, 8,
          _same("Mathôt 2018", 2, 8, "as the mean")),
    _spec("pupil_slope_mm_min", "pupil", "mm/min", "least-squares trend of pupil diameter in the window", -6, 6,
          _same("Mathôt 2018", -6, 6, "a 2-mm change across a 0.5-min window has a least-squares slope of "
                                      "at most 1.5·2/0.5 = 6 mm/min")),
] + [
    item for n in WORDBOOK_N for item in (
        _spec(f"wb{n}_distinct", "wordbook", "count", f"distinct saccade {n}-grams in the window",
              0, min(WORDBOOK_LETTERS**n, _NGRAMS),
              _same("definition; Rayner 1998", 0, min(WORDBOOK_LETTERS**n, _NGRAMS),
                    f"at most 8^{n} letters' words and at most one per saccade (6/s x 30 s)"),
              counts=WORDBOOK_LETTERS**n > _NGRAMS),
        _spec(f"wb{n}_max_count", "wordbook", "count", f"occurrences of the most frequent {n}-gram",
              0, _WB_BOUNDS[f"wb{n}_max_count"], _same(_WB, 0, _WB_BOUNDS[f"wb{n}_max_count"],
                                                       "the reading model's 99.9th percentile"), counts=True),
        _spec(f"wb{n}_mean_count", "wordbook", "count", f"mean occurrences per distinct {n}-gram",
              0, _WB_BOUNDS[f"wb{n}_mean_count"],
              _same(_WB, 0, _WB_BOUNDS[f"wb{n}_mean_count"],
                    "180 saccades over >= 4 distinct letters" if n == 1 else "the reading model's 99.9th "
                                                                            "percentile"), counts=True),
        _spec(f"wb{n}_var_count", "wordbook", "count^2", f"variance of occurrences over distinct {n}-grams",
              0, _WB_BOUNDS[f"wb{n}_var_count"],
              _same(_WB if n > 1 else "definition; Rayner 1998", 0, _WB_BOUNDS[f"wb{n}_var_count"],
                    "Popoviciu: counts in [0, 180]" if n == 1 else "the reading model's 99.9th percentile"),
              counts=True),
    )
])

FEATURE_NAMES: list[str] = list(FEATURE_SPECS)
FEATURE_GROUPS: tuple[str, ...] = ("fixation", "saccade", "blink", "pupil", "wordbook")


def feature_bounds(names: list[str] | tuple[str, ...],
                   window_s: float = DEFAULT_WINDOW_S) -> tuple[np.ndarray, np.ndarray]:
    """Feature names [, window length s] -> (lower bounds, upper bounds) float arrays; KeyError if unknown."""
    lo = np.empty(len(names))
    hi = np.empty(len(names))
    scale = window_s / DEFAULT_WINDOW_S
    for i, name in enumerate(names):
        spec = FEATURE_SPECS[name]
        lo[i] = spec.lower
        # Counts grow linearly with the window, their variances quadratically.
        hi[i] = spec.upper * (scale ** (2 if spec.unit == "count^2" else 1) if spec.counts else 1.0)
        if name.endswith("_distinct"):
            hi[i] = min(WORDBOOK_LETTERS ** int(name[2]), _NGRAMS * scale)
    return lo, hi


def sources_markdown() -> str:
    """-> the Markdown table of every feature's public bound and its source (docs/PRIVACY_MODEL.md §13)."""
    rows = ["| feature | unit | public [L, U] (30-s window) | source | source range | why |",
            "|---|---|---|---|---|---|"]
    for s in FEATURE_SPECS.values():
        rows.append(f"| `{s.name}` | {s.unit} | [{s.lower:g}, {s.upper:g}] | {s.source.reference} | "
                    f"[{s.source.low:g}, {s.source.high:g}] | {s.source.derivation} |")
    return "\n".join(rows)


def declare_tighter(text: str, names: list[str] | tuple[str, ...],
                    window_s: float = DEFAULT_WINDOW_S) -> tuple[dict[str, tuple[float, float]], list[str]]:
    """Lines 'feature L U' (commas or colons allowed) and the released feature names in, the declared tighter
    bounds and one message per line that was refused out. A declared bound may only narrow the public one: a
    wider one would be a bound nobody published, and a bound read from the data would not be public at all."""
    out: dict[str, tuple[float, float]] = {}
    problems: list[str] = []
    for i, raw in enumerate(text.splitlines(), start=1):
        line = raw.replace(",", " ").replace(":", " ").replace(";", " ").strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 3:
            problems.append(f"line {i} ('{raw.strip()}'): expected 'feature L U', e.g. 'sacc_large_ratio 0 0.6'.")
            continue
        name = parts[0]
        if name not in FEATURE_SPECS or name not in names:
            problems.append(f"line {i}: '{name}' is not a feature released here (with public bounds), left out.")
            continue
        try:
            low, high = float(parts[1]), float(parts[2])
        except ValueError:
            problems.append(f"line {i} ('{name}'): L and U must be numbers, got '{parts[1]}' and '{parts[2]}'.")
            continue
        (pl,), (pu,) = feature_bounds([name], window_s)
        if not (np.isfinite(low) and np.isfinite(high)) or not low < high:
            problems.append(f"line {i} ('{name}'): needs L < U, got [{low:g}, {high:g}].")
        elif low < pl or high > pu:
            problems.append(f"line {i} ('{name}'): [{low:g}, {high:g}] is wider than its public bound "
                            f"[{pl:g}, {pu:g}]; declare a narrower range or leave the public one.")
        else:
            out[name] = (low, high)
    return out, problems
