"""The attacks on real recordings (read by path from ../shared/realdata, never copied): SB-SAT and Uniss-FGD.

Run: python bench/attacks_realdata.py [--realdata PATH] [--classifiers knn,svm,tree,forest] [--quick]

* SB-SAT (95 readers × 4 passages): the EyeLink trial report is a feature table with one row per reading
  page (recycled trials: the last one of each page kept); participant = subject, task = passage, window =
  page, gender = sex from 18sat_labels.csv. Its feature names are not EyeDP's, so the script declares public
  bounds for them from the measures' definitions (below), not from the data. Pages do not overlap (no
  t_start_s), so the honest gap is one page.
* Uniss-FGD (20 viewers × 119 face images, 3 s each, one session per viewer): raw samples (screen pixels,
  mean of both pupils) are stitched per viewer in presentation order with the 2.7-s blank intervals between
  images removed, then `window_features` (30-s windows every 0.5 s, as Steil et al.) on an assumed 17"
  1280 × 1024 Tobii monitor (33.8 × 27.0 cm) viewed from 67.5 cm (2.5 monitor heights, as the README says).
  No task label: gender and re-identification only.

Reported: clean accuracies with the honest split and with the papers' overlapping split; the two protocol
traps; CFPA-32 and DCFPA-32 (and FPA, for the papers' comparison) at participant-level ε = 1, 10, 100,
trained on clean data and trained on an independent private release, in the papers' layout (k-NN|SVM|DT|RF,
majority vote). Runtime: a few minutes on two cores; --quick runs SVM only.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eyedp_core import attacks  # noqa: E402
from eyedp_core.gaze.features import window_features  # noqa: E402
from eyedp_core.gaze.geometry import Geometry  # noqa: E402

SBSAT_FEATURES = {  # column: (L, U) declared from the measure's definition and the EyeLink's limits
    "AVERAGE_BLINK_DURATION": (0.0, 500.0),  # ms; a blink lasts at most ~500 ms (longer = tracking loss)
    "AVERAGE_FIXATION_DURATION": (0.0, 2000.0),  # ms
    "SD_FIXATION_DURATION": (0.0, 1000.0),  # ms; at most half the range of durations
    "AVERAGE_SACCADE_AMPLITUDE": (0.0, 50.0),  # deg; the screen diagonal
    "SD_SACCADE_AMPLITUDE": (0.0, 25.0),  # deg
    "BLINK_COUNT": (0.0, 120.0),  # 60 blinks/min over a page read in at most 2 min
    "FIXATION_COUNT": (0.0, 600.0),  # 5 fixations/s over 2 min
    "SACCADE_COUNT": (0.0, 720.0),  # 6 saccades/s over 2 min
    "PUPIL_SIZE_MEAN": (0.0, 10000.0),  # EyeLink pupil area units (device range)
    "VISITED_INTEREST_AREA_COUNT": (0.0, 400.0),  # word interest areas on one page
    "RT": (0.0, 120000.0),  # ms; reading time of a page, clamped at 2 min
}
UNISS_GEOMETRY = Geometry.from_cm(1280, 1024, 33.8, 27.0, 67.5)
CACHE = Path("/tmp/eyedp_uniss_window_features.parquet")


def sbsat_table(root: Path) -> pd.DataFrame:
    """SB-SAT trial report -> wide feature table: participant, gender, task (passage), window (page), features."""
    t = pd.read_csv(root / "sbsat" / "18sat_trialfinal.csv")
    t = t[t["type"] == "reading"].sort_values("INDEX")
    t = t.drop_duplicates(["RECORDING_SESSION_LABEL", "book_name", "page"], keep="last")
    sex = pd.read_csv(root / "sbsat" / "18sat_labels.csv").groupby("subj")["sex"].first()
    out = pd.DataFrame({"participant": t["RECORDING_SESSION_LABEL"].astype(str),
                        "gender": t["RECORDING_SESSION_LABEL"].map(sex).astype(str),
                        "task": t["book_name"].astype(str), "window": t["page"].astype(int) - 1})
    for c in SBSAT_FEATURES:
        out[c] = pd.to_numeric(t[c], errors="coerce").to_numpy(float)
    return out.reset_index(drop=True)


def uniss_table(root: Path) -> pd.DataFrame:
    """Uniss-FGD raw samples -> 30-s window features per viewer (stitched session); cached in /tmp."""
    if CACHE.is_file():
        return pd.read_parquet(CACHE)
    cols = ["image_index", "ParticipantName", "ParticipantGender", "RecordingTimestamp", "GazePointX(ADCSpx)",
            "GazePointY(ADCSpx)", "PupilLeft", "PupilRight"]
    s = pd.read_csv(root / "uniss_fgd" / "fgd_samples.csv.gz", usecols=cols)
    s = s.sort_values(["ParticipantName", "RecordingTimestamp"], kind="stable")
    t = s["RecordingTimestamp"].to_numpy(float) / 1000.0
    key = [s["ParticipantName"].to_numpy(), s["image_index"].to_numpy()]
    g = pd.Series(t).groupby(key)
    start = g.transform("min").to_numpy()
    # Each image's own span (+ one sample step), laid end to end per viewer in presentation order.
    span = (g.max() - g.min() + 0.0033).rename("span").reset_index()
    span.columns = ["participant", "image", "span"]
    span["first"] = g.min().to_numpy()
    span = span.sort_values(["participant", "first"])
    span["offset"] = span.groupby("participant")["span"].cumsum() - span["span"]
    offset = span.set_index(["participant", "image"])["offset"]
    idx = pd.MultiIndex.from_arrays(key)
    samples = pd.DataFrame({"participant": s["ParticipantName"].map(lambda v: f"V{int(v):02d}").to_numpy(),
                            "t_s": t - start + offset.reindex(idx).to_numpy(),
                            "x": s["GazePointX(ADCSpx)"].to_numpy(float), "y": s["GazePointY(ADCSpx)"].to_numpy(float),
                            "pupil": s[["PupilLeft", "PupilRight"]].mean(axis=1).to_numpy()})
    samples = samples.sort_values(["participant", "t_s"], kind="stable").reset_index(drop=True)
    feats = window_features(samples, geometry=UNISS_GEOMETRY, group_cols=["participant"])
    sex = s.groupby("ParticipantName")["ParticipantGender"].first()
    sex.index = [f"V{int(v):02d}" for v in sex.index]
    feats.insert(1, "gender", feats["participant"].map(sex).astype(str))
    feats.to_parquet(CACHE)
    return feats


def _md(df: pd.DataFrame, index: bool = False) -> str:
    """DataFrame -> a Markdown table (no tabulate dependency)."""
    d = df.reset_index() if index else df
    head = "| " + " | ".join(map(str, d.columns)) + " |"
    rule = "|" + "|".join("---" for _ in d.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in d.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def clean_splits(at: attacks.AttackTable, classifiers: tuple[str, ...]) -> pd.DataFrame:
    """Clean accuracies (voted and per window) of every task: honest split and the papers' split."""
    rows = []
    for task in attacks.available_tasks(at):
        for gap in ("window", "paper") if task == "identity" else ("window",):
            for clf in classifiers:
                r = attacks.evaluate(at, task, classifier=clf, gap=gap)
                rows.append({"task": task, "split": "honest" if gap == "window" else "paper (overlapping)",
                             "classifier": clf, "voted": round(r.accuracy, 3),
                             "per window": round(r.window_accuracy, 3),
                             "chance": round(r.chance, 3), "gap windows": r.gap_windows})
    return pd.DataFrame(rows)


def report(name: str, table: pd.DataFrame, classifiers: tuple[str, ...], bounds: object) -> None:
    """Print every figure for one data set."""
    t0 = time.perf_counter()
    at = attacks.prepare(table)
    print(f"\n## {name}: {at.n_participants} participants, {at.n_recordings} recordings, {len(at.frame):,} windows, "
          f"{len(at.features)} features, gap {at.gap_windows} window(s); tasks {attacks.available_tasks(at)}")
    print("\n### Clean accuracies: honest split vs the papers' split\n")
    print(_md(clean_splits(at, classifiers)))
    tr = attacks.measure_traps(at, bounds=bounds)
    print(f"\n- {tr.overlap_sentence}\n- {tr.same_draw_sentence}")
    rows = list(attacks.sweep(at, mechanisms=("FPA", "CFPA-32", "DCFPA-32"), epsilons=(1.0, 10.0, 100.0),
                              classifiers=classifiers, train_on=("clean", "private"), bounds=bounds))
    s = attacks.summarise(rows)
    for scen in ("clean", "private"):
        print(f"\n### Under DP, ε per participant; {attacks.TRAIN_ON[scen]} ({'|'.join(classifiers)}, voted)\n")
        for task in attacks.available_tasks(at):
            tbl = attacks.paper_table(s, task, train_on=scen, classifiers=classifiers)
            chance = s[s["task"] == task]["chance"].mean()
            print(f"{task} (chance {chance:.2f})\n")
            print(_md(tbl, index=True))
            print()
    plans = s[s["mechanism"] != "clean"].drop_duplicates(["mechanism", "epsilon"])["plan"]
    print("Budget per setting:\n" + "\n".join(f"- {p}" for p in plans))
    print(f"\n({name}: {time.perf_counter() - t0:.0f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    ap.add_argument("--classifiers", default="knn,svm,tree,forest")
    ap.add_argument("--quick", action="store_true", help="SVM only")
    ap.add_argument("--only", choices=["sbsat", "uniss"])
    args = ap.parse_args()
    classifiers = ("svm",) if args.quick else tuple(args.classifiers.split(","))
    if args.only in (None, "sbsat"):
        report("SB-SAT (trial report, one row per page)", sbsat_table(args.realdata), classifiers, SBSAT_FEATURES)
    if args.only in (None, "uniss"):
        t0 = time.perf_counter()
        table = uniss_table(args.realdata)
        print(f"\n(Uniss-FGD window features: {time.perf_counter() - t0:.0f} s)")
        report("Uniss-FGD (30-s windows every 0.5 s)", table, classifiers, "public")


if __name__ == "__main__":
    main()
