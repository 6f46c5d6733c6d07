"""Simulated people: stable personal eye-movement signatures, situational offsets and slow drifts.

A person is a set of traits drawn from population distributions (`TRAITS`). Each trait is stored as a
person-level z-score; gender and age shift a few of them weakly, so the population distributions of
women and men overlap heavily (as in the literature: gender is only weakly visible in eye movements).
On top of the stable signature, every recording gets a situational offset (tiredness that day, headset
fit, lighting) and two slow latent states that wander during the recording (Ornstein-Uhlenbeck
processes: "engagement" and "arousal"), plus fatigue that grows over the session. These make a
person's windows vary realistically, so that identification is strong but not trivial.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.signal import lfilter


@dataclass(frozen=True)
class Trait:
    """Population distribution of one trait: centre, between-person sd, scale, gender and age effects.

    scale "log": value = centre * exp(sd * z); "lin": value = centre + sd * z. `female_shift` is in
    person-sd units (women +shift/2, men -shift/2); `age_per_year` in sd units per year from age 28.
    """

    centre: float
    sd: float
    scale: str = "lin"
    female_shift: float = 0.0
    age_per_year: float = 0.0


# Centres and spreads follow reading research (Rayner 1998; Holmqvist et al. 2011) and the pupil /
# blink literature. Gender moves four traits by about one person-sd (women: longer fixations,
# shorter saccades, more blinks, larger pupils) and three more by 0.3 sd: the two groups overlap
# heavily, so gender is only guessed moderately well from 19 other people (Steil et al.: ~0.7).
TRAITS: dict[str, Trait] = {
    "fix_median_ms": Trait(225.0, 0.13, "log", female_shift=0.9, age_per_year=0.03),
    "fix_log_sd": Trait(0.40, 0.05),
    "sacc_len_chars": Trait(7.8, 0.15, "log", female_shift=-0.9),
    "regress_p": Trait(0.12, 0.35, "log"),
    "skim_p": Trait(0.06, 0.5, "log"),
    "picture_interest": Trait(1.0, 0.35, "log", female_shift=-0.3),
    "zoom": Trait(1.0, 0.06, "log"),            # document zoom the reader chose (personal habit)
    "vertical_bias": Trait(0.0, 0.18),          # line heights; habitual landing above/below the line
    "sacc_speed": Trait(1.0, 0.12, "log", female_shift=-0.3, age_per_year=-0.02),
    "sacc_dur0_ms": Trait(22.0, 3.0),
    "blink_per_min": Trait(13.5, 0.25, "log", female_shift=1.2),
    "blink_ms": Trait(150.0, 0.18, "log", female_shift=0.3),
    "pupil_mm": Trait(4.0, 0.5, female_shift=1.0, age_per_year=-0.05),
    "pupil_hippus_mm": Trait(0.07, 0.3, "log"),
    "noise_deg": Trait(0.06, 0.35, "log"),
    "fatigue_per_10min": Trait(0.025, 0.015),
    "state_gain": Trait(1.0, 0.25, "log"),
    "center_bias": Trait(0.55, 0.25, "log"),
    "idio_p": Trait(0.22, 0.25, "log"),
}

# Situational (per recording) sd of each trait, in the trait's own scale (log units for "log" traits).
SITUATIONAL_SD = {"fix_median_ms": 0.05, "sacc_len_chars": 0.05, "blink_per_min": 0.15, "pupil_mm": 0.22,
                  "regress_p": 0.15, "skim_p": 0.2, "picture_interest": 0.2, "zoom": 0.04, "noise_deg": 0.15,
                  "sacc_speed": 0.03, "blink_ms": 0.06, "vertical_bias": 0.08}

# Latent-state time constants (s) and how strongly each state moves the traits (per unit of state).
STATE_TAU_S = {"engagement": 70.0, "arousal": 110.0}
STATE_EFFECTS = {"fix_median_ms": ("engagement", 0.09), "sacc_len_chars": ("engagement", -0.07),
                 "regress_p": ("engagement", -0.25), "pupil_mm": ("arousal", 0.22),
                 "blink_per_min": ("arousal", 0.20)}


def _value(trait: Trait, z: np.ndarray | float) -> np.ndarray:
    """Trait + z-score(s) -> trait value(s) on the natural scale."""
    z = np.asarray(z, dtype=float)
    return trait.centre * np.exp(trait.sd * z) if trait.scale == "log" else trait.centre + trait.sd * z


def draw_people(rng: np.random.Generator, ids: list[str], genders: list[str],
                ages: np.ndarray) -> pd.DataFrame:
    """Ids, genders ("female"/"male"), ages -> one row per person: id, gender, age, every trait value."""
    n = len(ids)
    female = np.array([g == "female" for g in genders], dtype=float)
    out = {"id": ids, "gender": genders, "age": np.asarray(ages, dtype=int)}
    for name, tr in TRAITS.items():
        # Tails cut at 2.2 sd: the simulated panel stays within normal physiology (no clinical outliers).
        z = (np.clip(rng.standard_normal(n), -2.2, 2.2) + tr.female_shift * (female - 0.5)
             + tr.age_per_year * (np.asarray(ages) - 28))
        out[name] = _value(tr, z)
    return pd.DataFrame(out)


def situational(rng: np.random.Generator, person: pd.Series) -> dict[str, float]:
    """Person row -> trait values for one recording (stable signature + that day's situational offset)."""
    vals = {}
    for name, tr in TRAITS.items():
        base = float(person[name])
        sd = SITUATIONAL_SD.get(name, 0.0)
        eps = float(rng.standard_normal()) * sd if sd else 0.0
        vals[name] = base * np.exp(eps) if tr.scale == "log" else base + eps
    return vals


def ou_paths(rng: np.random.Generator, duration_s: float, gain: float,
             dt: float = 1.0) -> dict[str, np.ndarray]:
    """Duration, person's state gain -> {state: values on a dt grid}, unit-variance OU paths times gain."""
    n = int(np.ceil(duration_s / dt)) + 2
    paths = {}
    for name, tau in STATE_TAU_S.items():
        phi = np.exp(-dt / tau)
        eps = rng.standard_normal(n) * np.sqrt(1 - phi**2)
        # lfilter runs the AR(1) recursion in C; the first value starts in the stationary distribution.
        eps[0] = rng.standard_normal()
        paths[name] = gain * lfilter([1.0], [1.0, -phi], eps)
    return paths


class Modulation:
    """Time-varying trait multipliers/offsets of one recording (latent states + fatigue)."""

    def __init__(self, paths: dict[str, np.ndarray], dt: float, session_start_s: float,
                 fatigue: float) -> None:
        self.paths, self.dt, self.t0, self.fatigue = paths, dt, session_start_s, fatigue

    def state(self, name: str, t_s: np.ndarray) -> np.ndarray:
        """State name, times in the recording -> state values (linear interpolation on the grid)."""
        p = self.paths[name]
        return np.interp(np.asarray(t_s, float) / self.dt, np.arange(p.size), p)

    def fatigue_units(self, t_s: np.ndarray) -> np.ndarray:
        """Times in the recording -> fatigue in units of 10 minutes of session time times the slope."""
        return self.fatigue * (self.t0 + np.asarray(t_s, float)) / 600.0

    def log_factor(self, trait: str, t_s: np.ndarray) -> np.ndarray:
        """Trait name, times -> additive log-factor (or mm for pupil) from states and fatigue."""
        t_s = np.asarray(t_s, float)
        out = np.zeros_like(t_s)
        if trait in STATE_EFFECTS:
            state, k = STATE_EFFECTS[trait]
            out = out + k * self.state(state, t_s)
        if trait == "fix_median_ms":
            out = out + self.fatigue_units(t_s)
        elif trait == "blink_per_min":
            out = out + 2.0 * self.fatigue_units(t_s)
        elif trait == "pupil_mm":
            out = out - 4.0 * self.fatigue_units(t_s)
        return out
