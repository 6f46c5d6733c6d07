"""Clean, clean-trained and release-trained attack accuracies across ε, on the bundled sample and on SB-SAT.

Run: python bench/attacks_epsilon_table.py [--realdata PATH] [--mechanisms FPA,CFPA-32] [--only sample|sbsat]

For every mechanism and ε = 1, 10, 100, 10³, 10⁴, 10⁵ per person (SVM, majority vote, honest split):
* clean: the attack on clean data (no release);
* clean-trained: the attacker trains on clean data and attacks the release;
* release-trained: the attacker trains on its own independent private release of its prior-knowledge data
  (same mechanism and ε, its own noise draw) and attacks the release — the default, strongest attacker.
Each accuracy is followed by the prediction share (largest share of test units predicted as one class) when
the classifier collapsed (share ≥ 0.9 while the test set is not that unbalanced), marked "†".
The sample runs document type, gender and re-identification; SB-SAT (95 readers, read by path from
../shared/realdata, never copied) runs re-identification with the bounds declared in attacks_realdata.py.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.attacks_realdata import SBSAT_FEATURES, _md, sbsat_table  # noqa: E402
from eyedp_core import attacks  # noqa: E402
from eyedp_core.data import bundled  # noqa: E402

EPSILONS = (1.0, 10.0, 100.0, 1e3, 1e4, 1e5)


def _cell(acc: float, share: float, chance: float) -> str:
    mark = "†" if attacks.collapsed(share, chance) else ""
    return f"{acc:.2f}{mark}"


def table(name: str, frame: pd.DataFrame, tasks: tuple[str, ...], mechanisms: tuple[str, ...],
          bounds: object) -> None:
    """Print one Markdown table per task: rows mechanism × scenario, columns ε."""
    t0 = time.perf_counter()
    at = attacks.prepare(frame)
    runner = attacks.Runner(at, bounds=bounds)
    clean = {r.task: r for r in runner.run_point(attacks.Point(), tasks=tasks)}
    print(f"\n## {name}: {at.n_participants} participants, {at.n_recordings} recordings, {len(at.frame):,} windows, "
          f"{len(at.features)} features (SVM, voted, honest split)\n")
    rows: dict[tuple[str, str, str], dict[str, str]] = {}
    for mech in mechanisms:
        for eps in EPSILONS:
            for scen in (attacks.TrainOn.CLEAN, attacks.TrainOn.PRIVATE):
                point = attacks.Point(mechanism=mech, epsilon=eps, train_on=scen)
                for r in runner.run_point(point, tasks=tasks):
                    label = "clean-trained" if scen is attacks.TrainOn.CLEAN else "release-trained"
                    rows.setdefault((r.task, mech, label), {})[f"ε = {eps:g}"] = _cell(
                        r.accuracy, r.prediction_share, r.chance)
    for task in tasks:
        c = clean[task]
        print(f"**{task}**: clean {c.accuracy:.2f}, chance {c.chance:.2f}\n")
        body = [{"mechanism": m, "attacker": lab, **cells} for (t, m, lab), cells in rows.items() if t == task]
        print(_md(pd.DataFrame(body)))
        print()
    print(f"† collapsed: the classifier answered one class for ≥ 90 % of the test units. "
          f"({name}: {time.perf_counter() - t0:.0f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--realdata", type=Path, default=ROOT.parent / "shared" / "realdata")
    ap.add_argument("--mechanisms", default="FPA,CFPA-32")
    ap.add_argument("--only", choices=["sample", "sbsat"])
    args = ap.parse_args()
    mechs = tuple(args.mechanisms.split(","))
    if args.only in (None, "sample"):
        table("Bundled sample (reading_features)", bundled.load_sample("reading_features"),
              ("task", "gender", "identity"), mechs, "auto")
    if args.only in (None, "sbsat"):
        table("SB-SAT (trial report, one row per page)", sbsat_table(args.realdata), ("identity",), mechs,
              SBSAT_FEATURES)


if __name__ == "__main__":
    main()
