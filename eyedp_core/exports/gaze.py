"""Release mode for gaze samples: Kaleido over every stream with its noise from OpenDP (ReleaseSource)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import pandas as pd

from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.exports.manifest import ManifestSpec, manifest
from eyedp_core.gazestream.kaleido import KaleidoPlan, kaleido_lattice, kaleido_run

__all__ = ["W_EVENT_NEIGHBOURS", "GazeRelease", "kaleido_calibration", "release_gaze_samples"]

# Columns a released stream keeps: who, when (public), and the protected position. Anything else (pupil size,
# raw events) would be an unprotected value and is left out.
KEPT = ("participant", "task", "stimulus", "t_s")


@dataclass(frozen=True)
class GazeRelease:
    """Released samples (participant, [task], t_s, x, y), the windows per person charged, and the manifest."""

    table: pd.DataFrame
    windows_per_person: int
    participants: tuple[str, ...]
    manifest: dict[str, Any]


W_EVENT_NEIGHBOURS = ("w-event with radius r: two streams that differ only inside one window of w consecutive "
                      "samples, each differing sample moved by at most r px; a move by d > r costs d/r times as much")


def kaleido_calibration(plan: KaleidoPlan, screen_px: tuple[int, int]) -> dict[str, Any]:
    """Kaleido plan and the public screen size in, the release's noise numbers out (docs/PRIVACY_MODEL.md §8.2,
    §11.2): the lattice, the radius r' = r + 3g the noise is calibrated to, the test noise scale r'/ε_test and
    the publication schedule ε_pub (ε' = ε_pub/r' per px)."""
    lat = kaleido_lattice(plan)
    schedule = plan.schedule()
    return {"sensitivity": f"distance, at most r = {plan.r:g} px per sample inside one window",
            "radius_px": plan.r, "lattice_k": lat.k, "lattice_step_px": lat.step,
            "rounding_slack_px": lat.radius - plan.r, "release_radius_px": lat.radius,
            "tests_per_window": plan.n_test, "epsilon_per_test": plan.eps_test,
            "test_noise": "Laplace", "test_noise_scale_px": lat.radius / plan.eps_test,
            "publication_noise": "planar Laplace",
            "publication_epsilon_schedule": schedule,
            "publication_epsilon_per_px": [e / lat.radius for e in schedule],
            "publication_mean_displacement_px": [2.0 * lat.radius / e for e in schedule],
            "screen_diagonal_px": math.hypot(*screen_px)}


def release_gaze_samples(frame: pd.DataFrame, *, epsilon: float, w: int, l_thresh: float, t_skip: int, r: float,
                         h: float, min_pub: float | None, bounds: tuple[int, int]) -> GazeRelease:
    """Checked gaze samples and Kaleido's settings in, the released samples out (OpenDP noise, no seed; every
    published coordinate a point of the lattice, docs/PRIVACY_MODEL.md §11.2).

    The guarantee is ε per window of w samples within radius r; a person with n samples is charged ⌈n/w⌉ windows
    (basic composition over their stream), and a person-level bound also needs the distance factor d_max/r."""
    t0 = time.perf_counter()
    src = ReleaseSource()
    run, table = kaleido_run(frame, epsilon=epsilon, w=w, l_thresh=l_thresh, t_skip=t_skip, r=r, h=h, rng=src,
                             min_pub=min_pub, bounds=bounds)
    keep = [c for c in KEPT if c in table.columns]
    out = table[keep + ["x", "y"]].dropna(subset=["x", "y"]).reset_index(drop=True)
    per_person = frame.groupby("participant", sort=False).size() if "participant" in frame.columns else pd.Series(
        [len(frame)])
    windows = int(math.ceil(int(per_person.max()) / int(w))) if len(per_person) else 0
    people = tuple(str(p) for p in per_person.index)
    cal = kaleido_calibration(run.plan, bounds)
    distance_factor = max(1.0, cal["screen_diagonal_px"] / float(r))
    person_bound = epsilon * windows * distance_factor
    man = manifest(ManifestSpec(
        artefact="protected gaze samples (CSV)", mechanism="Kaleido (planar Laplace)", unit="w-event",
        guarantee=(f"ε = {epsilon:g} per window of {w} samples within radius r = {r:g} px; over a whole stream of up "
                   f"to {int(per_person.max()) if len(per_person) else 0} samples ({windows} windows) and moves up to "
                   f"the screen diagonal ({cal['screen_diagonal_px']:.0f} px = {distance_factor:.3g} r) a person-level "
                   f"bound is ε·⌈n/w⌉·d_max/r = {person_bound:.6g}"),
        epsilon=float(epsilon), delta=0.0,
        neighbouring=W_EVENT_NEIGHBOURS, epsilon_per_person=float(person_bound),
        calibration={**cal, "epsilon_per_window": float(epsilon), "windows_per_person": windows,
                     "distance_factor_d_max_over_r": distance_factor,
                     "epsilon_per_person_bound": person_bound},
        parameters={"w": int(w), "t_skip": int(t_skip), "r_px": float(r), "l_thresh_px": float(l_thresh),
                    "h": float(h), "min_pub": min_pub, "screen_px": list(bounds), "streams": int(len(people))},
        values_drawn=src.values_drawn, seconds=time.perf_counter() - t0,
        files={"csv": ", ".join(keep + ["x", "y"]) + " (pupil and other raw columns are not released)"},
        caveats=["Planar Laplace is built from OpenDP draws (radius Gamma(2) as a sum of two |Laplace|, direction "
                 "from two Gaussians); see docs/PRIVACY_MODEL.md §11.1.",
                 f"Gaze positions are rounded to the lattice of step {cal['lattice_step_px']:.6g} px before they are "
                 "tested or published, and the test noise and displacements are lattice values: every published "
                 "coordinate is a lattice point. The noise is calibrated to r' = r + 3·step to cover the rounding "
                 "(docs/PRIVACY_MODEL.md §11.2).",
                 "Timestamps and stream lengths are treated as public."],
        construction="planar Laplace from OpenDP discrete Laplace and Gaussian draws, on the lattice"))
    return GazeRelease(out, windows, people, man)
