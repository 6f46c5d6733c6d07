"""EyeDP gaze simulator: regenerates every file in sample_data/ and assets/stimuli/.

    python -m eyedp_core.data.simulator            # everything (about a minute)

All randomness flows from MASTER_SEED through numpy Generators keyed by what they generate
(`default_rng([MASTER_SEED, stream, person, task])`), so any single recording can be regenerated on its
own and re-running gives identical files. The model (see sample_data/README.md):
* sim_people: personal trait signatures from population distributions, weak gender/age shifts,
  per-recording situational offsets, slow latent states (OU) and session fatigue;
* sim_tasks: textbook / newspaper / comic reading on a character axis and panel sequence;
* sim_samples: 120 Hz raw gaze with main-sequence saccades, noise, blinks and pupil dynamics;
* sim_freeview: free viewing of the pillow-drawn stimuli (sim_stimuli) with personal habits.
Features come from the same pipeline users run: events.detect_events + features.window_features.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from eyedp_core.data.bundled import SAMPLE_DIR, STIMULUS_DIR, write_summary
from eyedp_core.data.simulator.freeview import freeview_fixations
from eyedp_core.data.simulator.people import Modulation, draw_people, ou_paths, situational
from eyedp_core.data.simulator.samples import Viewing, synthesize
from eyedp_core.data.simulator.stimuli import STIMULI, comic_layout, render_stimuli
from eyedp_core.data.simulator.tasks import DOCUMENTS, TASK_EFFECTS, TASKS, comic_fixations, text_fixations
from eyedp_core.gaze.events import SAMPLE_SCREEN
from eyedp_core.gaze.feature_specs import FEATURE_NAMES
from eyedp_core.gaze.features import window_features

MASTER_SEED = 20190625          # the one seed behind every bundled file (Steil et al., ETRA 2019)
N_READERS, N_OBSERVERS = 20, 40
MIN_RECORDING_S, EXTRA_RECORDING_S = 300.0, 60.0
BREAK_S = 120.0                 # pause between two documents (questionnaire), counts for fatigue
STREAM_READERS, STREAM_S = 10, 120.0
# Stream keys: what a generator is for, so that adding one stream never changes the others.
_PEOPLE, _RECORDING, _OBSERVERS, _STIMULI = 1, 2, 3, 7


def readers(seed: int = MASTER_SEED) -> pd.DataFrame:
    """[Seed] -> the 20 simulated readers: id, gender (10 female), age and every trait (sim_people.TRAITS)."""
    rng = np.random.default_rng([seed, _PEOPLE])
    genders = list(rng.permutation(["female"] * (N_READERS // 2) + ["male"] * (N_READERS - N_READERS // 2)))
    ages = np.clip(np.round(19 + rng.gamma(2.2, 4.0, N_READERS)), 19, 55).astype(int)
    ids = [f"P{i + 1:02d}" for i in range(N_READERS)]
    return draw_people(rng, ids, genders, ages)


def observers(seed: int = MASTER_SEED) -> pd.DataFrame:
    """[Seed] -> the 40 simulated free-viewing observers (ids O01..O40) with traits."""
    rng = np.random.default_rng([seed, _OBSERVERS])
    genders = list(rng.choice(["female", "male"], N_OBSERVERS))
    ages = np.clip(np.round(19 + rng.gamma(2.2, 4.0, N_OBSERVERS)), 19, 60).astype(int)
    return draw_people(rng, [f"O{i + 1:02d}" for i in range(N_OBSERVERS)], genders, ages)


def session_plan(reader: int, seed: int = MASTER_SEED) -> list[tuple[str, float, float]]:
    """Reader index [, seed] -> [(task, duration s, session start s)] in the order the documents were read."""
    rng = np.random.default_rng([seed, _RECORDING, reader, 99])
    order = rng.permutation(len(TASKS))
    durations = MIN_RECORDING_S + rng.uniform(0, EXTRA_RECORDING_S, len(TASKS))
    plan, t = [], 0.0
    for k in order:
        plan.append((TASKS[k], float(durations[k]), t))
        t += durations[k] + BREAK_S
    return plan


def simulate_recording(reader: int, task: str, people: pd.DataFrame | None = None,
                       seed: int = MASTER_SEED) -> pd.DataFrame:
    """Reader (0-based), task [, readers, seed] -> 120 Hz samples (participant, task, t_s, x, y, pupil)."""
    people = readers(seed) if people is None else people
    person = people.iloc[reader]
    plan = {p[0]: p for p in session_plan(reader, seed)}
    _, duration, t0 = plan[task]
    rng = np.random.default_rng([seed, _RECORDING, reader, TASKS.index(task)])
    traits = situational(rng, person)
    mod = Modulation(ou_paths(rng, duration, traits["state_gain"]), 1.0, t0, traits["fatigue_per_10min"])
    if task == "comic":
        panels = comic_layout(np.random.default_rng([seed, _STIMULI, STIMULI.index("comic")]))
        fix = comic_fixations(rng, traits, mod, duration, panels)
    else:
        fix = text_fixations(rng, traits, mod, task, duration, *DOCUMENTS[task])
    eff = TASK_EFFECTS[task]
    deg_per_px = SAMPLE_SCREEN.deg_per_px()[0]
    screen = (SAMPLE_SCREEN.width_px, SAMPLE_SCREEN.height_px)
    s = synthesize(rng, fix, traits, mod, Viewing(duration, deg_per_px, screen, eff["blink"], eff["pupil"]))
    out = pd.DataFrame(s)
    out.insert(0, "task", task)
    out.insert(0, "participant", person["id"])
    return out


def reader_features(reader: int, people: pd.DataFrame | None = None, seed: int = MASTER_SEED) -> pd.DataFrame:
    """Reader index [, readers, seed] -> that reader's reading_features rows (three documents, as stored)."""
    people = readers(seed) if people is None else people
    frames = []
    for task in TASKS:
        samples = simulate_recording(reader, task, people, seed)
        frames.append(window_features(samples, 30.0, 0.5, SAMPLE_SCREEN, group_cols=["participant", "task"]))
    out = pd.concat(frames, ignore_index=True)
    out.insert(1, "gender", people.iloc[reader]["gender"])
    return _to_storage(out)


def _to_storage(df: pd.DataFrame) -> pd.DataFrame:
    """Feature table -> the stored form: float32 features, categorical-free string id columns."""
    df = df.copy()
    for c in FEATURE_NAMES + ["t_start_s"]:
        if c in df.columns:
            df[c] = df[c].astype(np.float32)
    return df


def reading_features(people: pd.DataFrame | None = None, seed: int = MASTER_SEED) -> pd.DataFrame:
    """[Readers, seed] -> the full reading_features table (20 readers x 3 documents), as stored."""
    people = readers(seed) if people is None else people
    return pd.concat([reader_features(r, people, seed) for r in range(N_READERS)], ignore_index=True)


def gaze_streams(people: pd.DataFrame | None = None) -> pd.DataFrame:
    """() -> raw samples of the first STREAM_READERS readers' first STREAM_S seconds of textbook reading."""
    people = readers() if people is None else people
    frames = []
    for r in range(STREAM_READERS):
        s = simulate_recording(r, "textbook", people)
        frames.append(s[s["t_s"] < STREAM_S])
    out = pd.concat(frames, ignore_index=True)
    for c in ("x", "y", "pupil"):
        out[c] = out[c].astype(np.float32)
    return out


def demographics(people: pd.DataFrame | None = None) -> pd.DataFrame:
    """() -> participant, age, gender of the 20 readers."""
    people = readers() if people is None else people
    return people[["id", "age", "gender"]].rename(columns={"id": "participant"}).reset_index(drop=True)


def generate_all(sample_dir: Path = SAMPLE_DIR, stimulus_dir: Path = STIMULUS_DIR,
                 verbose: bool = True) -> dict[str, float]:
    """Output folders -> writes every sample table and stimulus; returns seconds spent per part."""
    timings = {}
    sample_dir.mkdir(parents=True, exist_ok=True)
    stimulus_dir.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    stimuli = render_stimuli(MASTER_SEED)
    for name, (img, _) in stimuli.items():
        img.save(stimulus_dir / f"{name}.png", optimize=True)
    timings["stimuli"] = time.perf_counter() - t
    people = readers()
    parts = {
        "demographics": lambda: demographics(people),
        "fixations": lambda: freeview_fixations(MASTER_SEED, observers(),
                                                {k: v[1] for k, v in stimuli.items()}, SAMPLE_SCREEN),
        "gaze_streams": lambda: gaze_streams(people),
        "reading_features": lambda: reading_features(people),
    }
    for name, make in parts.items():
        t = time.perf_counter()
        make().to_parquet(sample_dir / f"{name}.parquet", index=False, compression="zstd")
        timings[name] = time.perf_counter() - t
        if verbose:
            print(f"{name}: {timings[name]:.1f} s", flush=True)
    write_summary(sample_dir)
    return timings


def main(argv: list[str] | None = None) -> int:
    """Command line -> 0 on success (writes sample_data/ and assets/stimuli/)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample-dir", type=Path, default=SAMPLE_DIR)
    ap.add_argument("--stimulus-dir", type=Path, default=STIMULUS_DIR)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    generate_all(args.sample_dir, args.stimulus_dir)
    print(f"total: {time.perf_counter() - t:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
