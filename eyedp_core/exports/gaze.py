"""Release mode for gaze samples: Kaleido over every stream with its noise from OpenDP (ReleaseSource)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import pandas as pd

from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.exports.manifest import ManifestSpec, manifest
from eyedp_core.gazestream.kaleido import KaleidoPlan, kaleido_lattice, kaleido_run, person_bound_of, stream_windows
from eyedp_core.gazestream.streams import GROUP_COLUMNS

__all__ = ["PUBLIC_MISSINGNESS", "W_EVENT_NEIGHBOURS", "GazeRelease", "kaleido_calibration", "release_gaze_samples"]

# Columns a released stream keeps: who, when (public), and the protected position. Anything else (pupil size,
# raw events) would be an unprotected value and is left out.
KEPT = (*GROUP_COLUMNS, "t_s")


@dataclass(frozen=True)
class GazeRelease:
    """Released samples (participant, [task], t_s, x, y), the windows per person charged, and the manifest."""

    table: pd.DataFrame
    windows_per_person: int
    participants: tuple[str, ...]
    manifest: dict[str, Any]


# What the analysis takes as given rather than protects: which samples exist and which carry gaze. Kaleido neither
# tests nor publishes at a missing sample, so the pattern of missing samples steers its output.
PUBLIC_MISSINGNESS = ("Timestamps, stream lengths and which samples are missing are treated as public. Missing "
                      "means no gaze in the recording (blinks, tracking loss) or gaze farther than one screen size "
                      "off the screen, which the input check sets to missing as a unit or export error: that rule "
                      "reads the position, so whether a far-off glance happened is public, not protected. Gaze "
                      "off the screen by less is clamped to the screen edge before Kaleido reads it.")

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


def release_gaze_samples(frame: pd.DataFrame, plan: KaleidoPlan, bounds: tuple[int, int]) -> GazeRelease:
    """Checked gaze samples, Kaleido's plan and the screen (W, H) in, the released samples out (OpenDP noise, no
    seed; every published coordinate a point of the lattice, docs/PRIVACY_MODEL.md §11.2).

    The guarantee is ε per window of w samples within radius r; a person is charged Σ_s ⌈n_s/w⌉ windows over their
    streams s (each stream restarts the window; basic composition), and a person-level bound also needs the
    distance factor d_max/r, d_max the diagonal of the screen `bounds` the gaze is clamped to."""
    t0 = time.perf_counter()
    epsilon, w, r = plan.epsilon, plan.w, plan.r
    src = ReleaseSource()
    run, table = kaleido_run(frame, plan, src, bounds)
    keep = [c for c in KEPT if c in table.columns]
    out = table[keep + ["x", "y"]].dropna(subset=["x", "y"]).reset_index(drop=True)
    per = stream_windows(frame, w)
    bound = person_bound_of(frame, epsilon=epsilon, w=w, r=r, screen_px=bounds)
    windows = bound.windows
    people = tuple(str(p) for p in per.index) if "participant" in frame.columns else ("all",)
    cal = kaleido_calibration(run.plan, bounds)
    distance_factor = bound.distance_factor
    person_bound = bound.person_epsilon
    man = manifest(ManifestSpec(
        artefact="protected gaze samples (CSV)", mechanism="Kaleido (planar Laplace)", unit="w-event",
        guarantee=(f"ε = {epsilon:g} per window of {w} samples within radius r = {r:g} px; over every stream of a "
                   f"person ({len(bound.lengths)} stream(s), {bound.n_max} samples, {windows} windows: each stream "
                   f"restarts the window) and moves up to the diagonal of the screen the gaze is clamped to "
                   f"({cal['screen_diagonal_px']:.0f} px = {distance_factor:.3g} r) a person-level bound is "
                   f"ε·⌈n/w⌉·d_max/r summed over the streams, ε·Σ_s⌈n_s/w⌉·d_max/r = {person_bound:.6g}"),
        epsilon=float(epsilon), delta=0.0,
        neighbouring=W_EVENT_NEIGHBOURS, epsilon_per_person=float(person_bound),
        calibration={**cal, "epsilon_per_window": float(epsilon), "windows_per_person": windows,
                     "distance_factor_d_max_over_r": distance_factor,
                     "epsilon_per_person_bound": person_bound},
        parameters={"w": int(w), "t_skip": int(plan.t_skip), "r_px": float(r), "l_thresh_px": float(plan.l_thresh),
                    "h": float(plan.h), "min_pub": plan.min_pub, "screen_px": list(bounds), "streams": int(per["streams"].sum()),
                    "participants": int(len(people))},
        values_drawn=src.values_drawn, seconds=time.perf_counter() - t0,
        files={"csv": ", ".join(keep + ["x", "y"]) + " (pupil and other raw columns are not released)"},
        caveats=["Planar Laplace is built from OpenDP draws (radius Gamma(2) as a sum of two |Laplace|, direction "
                 "from two Gaussians); see docs/PRIVACY_MODEL.md §11.1.",
                 f"Gaze positions are rounded to the lattice of step {cal['lattice_step_px']:.6g} px before they are "
                 "tested or published, and the test noise and displacements are lattice values: every published "
                 "coordinate is a lattice point. The noise is calibrated to r' = r + 3·step to cover the rounding "
                 "(docs/PRIVACY_MODEL.md §11.2).",
                 PUBLIC_MISSINGNESS],
        construction="planar Laplace from OpenDP discrete Laplace and Gaussian draws, on the lattice"))
    return GazeRelease(out, windows, people, man)
