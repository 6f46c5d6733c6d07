"""Heatmaps' targets on the bundled sample and on real recordings (OSIE: 15 observers, 800 × 600 px images): CC and
hot spots kept at ε = 1, 3, 10, 30 (mean and 10–90 % band over R seeded draws), the smallest ε and the observers
needed for a target, and the private choice of m next to the fixed m = 1, at the page's defaults (32 px cells,
kernel 1.5° = 42.3 px on the sample screen, m = 1, C = 30, Gaussian analytic, δ = 1/n², q = 5 %).

python bench/hm_targets_realdata.py [images]   (OSIE images averaged: default 10; ../shared/realdata/osie)"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from eyedp_core.data import bundled  # noqa: E402
from eyedp_core.heatmaps import cap, maps, preview, targets  # noqa: E402
from eyedp_core.heatmaps.calibration import HeatmapSetting, preset_delta  # noqa: E402

OSIE = ROOT.parent / "shared" / "realdata" / "osie" / "osie_fixations.csv.gz"
SIGMA_PX = maps.sigma_px_from_degrees(1.5, bundled.SAMPLE_SCREEN.width_px, bundled.SAMPLE_SCREEN.width_cm,
                                      bundled.SAMPLE_SCREEN.distance_cm)
EPS = (1.0, 3.0, 10.0, 30.0)
TARGET = 0.8
R = 100


def studies(n_images: int) -> dict[str, list[maps.GazeMaps]]:
    """Name -> gaze maps of each stimulus (sample: its first stimulus; OSIE: the first n_images images)."""
    fix = bundled.load_sample("fixations")
    name = bundled.stimulus_names()[0]
    h, w = bundled.stimulus_image(name).shape[:2]
    sub, _ = preview.fixations_for_stimulus(fix, "sample", name, w, h)
    out = {f"sample '{name}' (n = {sub['observer'].nunique()})": [maps.gaze_maps(sub, w, h, 32, "count")]}
    if OSIE.exists():
        o = pd.read_csv(OSIE).rename(columns={"subject": "observer"})
        imgs = sorted(o["image"].unique())[:n_images]
        out[f"OSIE, {len(imgs)} images (n = 15 each)"] = [maps.gaze_maps(o[o["image"] == i], 800, 600, 32, "count")
                                                          for i in imgs]
    return out


def figures(gms: list[maps.GazeMaps]) -> dict[str, str]:
    """Gaze maps of some stimuli -> the figures, averaged over the stimuli (bands: of the pooled draws)."""
    cc = {e: [] for e in EPS}
    kept = {e: [] for e in EPS}
    ans = {"eps_cc": [], "eps_kept": [], "n_cc": [], "n_kept": [], "sub_cc": [], "sub_kept": []}
    mcomp = []
    for gm in gms:
        n = gm.n_observers
        agg = maps.aggregate(gm, 1.0, 30.0)
        s = HeatmapSetting(10.0, preset_delta(n), cap_m=1.0, cap_total=30.0, cell_px=32, sigma_px=SIGMA_PX)
        d = targets.utility_at_stds(agg, [s.with_epsilon(e).std(n, gm.n_cells) for e in EPS],
                                    np.random.default_rng(0), s, targets.DrawSpec(R=R))
        for i, e in enumerate(EPS):
            cc[e].append(d.cc[i])
            kept[e].append(d.kept[i])
        kw = dict(basis=targets.Basis.PRIVATE, draws=targets.DrawSpec(R=R))
        for key, meas in (("cc", targets.Measure.CC), ("kept", targets.Measure.HOT_SPOTS)):
            a = targets.epsilon_for_target(agg, n, s, meas, TARGET, np.random.default_rng(0), **kw)
            b = targets.observers_for_target(agg, s, meas, TARGET, np.random.default_rng(0), **kw)
            ans[f"eps_{key}"].append((a.value, a.low, a.high))
            ans[f"n_{key}"].append((b.value, b.low, b.high))
            c = targets.observers_by_subsample(gm, s.with_epsilon(30.0), meas, TARGET, np.random.default_rng(0),
                                               basis=targets.Basis.PRIVATE, draws=targets.DrawSpec(R=R))
            ans[f"sub_{key}"].append((c.value, c.low, c.high))
        c = targets.cap_choice_utility(gm, fixed_m=1.0, candidates=cap.public_candidates("count", 10.0),
                                       selection=cap.SelectionSpec(10.0, 0.1, "exponential"), setting=s,
                                       rng=np.random.default_rng(0), basis=targets.Basis.PRIVATE,
                                       draws=targets.DrawSpec(R=50))
        mcomp.append((c.summary(targets.Measure.CC), c.summary(targets.Measure.HOT_SPOTS)))
    out = {}
    for e in EPS:
        a, k = np.concatenate(cc[e]), np.concatenate(kept[e])
        out[f"ε = {e:g}"] = (f"CC {a.mean():.2f} ({np.quantile(a, 0.1):.2f}–{np.quantile(a, 0.9):.2f}), hot spots "
                             f"kept {100 * k.mean():.0f} % ({100 * np.quantile(k, 0.1):.0f}–"
                             f"{100 * np.quantile(k, 0.9):.0f} %)")

    def med(rows):
        """(answer, 10 %, 90 %) per stimulus -> median answer, median band and the range over the stimuli."""
        v = np.array([[np.inf if x is None else x for x in r] for r in rows], dtype=float)
        return (f"{np.median(v[:, 0]):.3g} (band {np.median(v[:, 1]):.3g}–{np.median(v[:, 2]):.3g}; "
                f"stimuli {np.min(v[:, 0]):.3g}–{np.max(v[:, 0]):.3g})")

    out[f"smallest ε for CC ≥ {TARGET}"] = med(ans["eps_cc"])
    out[f"smallest ε for hot spots kept ≥ {TARGET}"] = med(ans["eps_kept"])
    out[f"observers needed at ε = 10 for CC ≥ {TARGET}"] = med(ans["n_cc"])
    out[f"observers needed at ε = 10 for hot spots kept ≥ {TARGET}"] = med(ans["n_kept"])
    out[f"N of these observers at ε = 30 for CC ≥ {TARGET} (subsamples; inf: not with all n)"] = med(ans["sub_cc"])
    out[f"N of these observers at ε = 30 for hot spots kept ≥ {TARGET} (subsamples)"] = med(ans["sub_kept"])
    f_cc = np.mean([m[0]["fixed"][0] for m in mcomp])
    p_cc = np.mean([m[0]["private"][0] for m in mcomp])
    f_k = np.mean([m[1]["fixed"][0] for m in mcomp])
    p_k = np.mean([m[1]["private"][0] for m in mcomp])
    out["ε = 10: fixed m = 1 vs private choice (ε_sel = 0.1)"] = (
        f"CC {f_cc:.2f} vs {p_cc:.2f} (Δ {p_cc - f_cc:+.2f}); hot spots {100 * f_k:.0f} % vs {100 * p_k:.0f} % "
        "(against the uncapped map)")
    return out


def main() -> None:
    """Print the figures for each study."""
    n_images = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    for name, gms in studies(n_images).items():
        print(f"## {name}")
        for k, v in figures(gms).items():
            print(f"- {k}: {v}")


if __name__ == "__main__":
    main()
