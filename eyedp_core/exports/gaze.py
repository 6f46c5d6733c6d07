"""Release mode for gaze samples: Kaleido over every stream with its noise from OpenDP (ReleaseSource)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.exports.manifest import manifest
from eyedp_core.samples.kaleido import kaleido_run

__all__ = ["GazeRelease", "release_gaze_samples"]

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


def release_gaze_samples(frame: pd.DataFrame, *, epsilon: float, w: int, l_thresh: float, t_skip: int, r: float,
                         h: float, min_pub: float | None, bounds: tuple[int, int]) -> GazeRelease:
    """Checked gaze samples and Kaleido's settings in, the released samples out (OpenDP noise, no seed).

    The guarantee is ε per window of w samples; a person with n samples is charged ⌈n/w⌉ windows (the
    worst case over their whole stream, basic composition)."""
    t0 = time.perf_counter()
    src = ReleaseSource()
    _, table = kaleido_run(frame, epsilon=epsilon, w=w, l_thresh=l_thresh, t_skip=t_skip, r=r, h=h, rng=src,
                           min_pub=min_pub, bounds=bounds)
    keep = [c for c in KEPT if c in table.columns]
    out = table[keep + ["x", "y"]].dropna(subset=["x", "y"]).reset_index(drop=True)
    per_person = frame.groupby("participant", sort=False).size() if "participant" in frame.columns else pd.Series(
        [len(frame)])
    windows = int(math.ceil(int(per_person.max()) / int(w))) if len(per_person) else 0
    people = tuple(str(p) for p in per_person.index)
    man = manifest(
        artefact="protected gaze samples (CSV)", mechanism="Kaleido (planar Laplace)", unit="w-event",
        guarantee=(f"ε = {epsilon:g} per window of {w} samples at radius r = {r:g} px; a whole stream of up to "
                   f"{int(per_person.max()) if len(per_person) else 0} samples: ε = {epsilon * windows:.6g} per person"),
        epsilon=float(epsilon), delta=0.0,
        parameters={"w": int(w), "t_skip": int(t_skip), "r_px": float(r), "l_thresh_px": float(l_thresh),
                    "h": float(h), "min_pub": min_pub, "screen_px": list(bounds), "streams": int(len(people))},
        values_drawn=src.values_drawn, seconds=time.perf_counter() - t0,
        files={"csv": ", ".join(keep + ["x", "y"]) + " (pupil and other raw columns are not released)"},
        caveats=["Planar Laplace is built from OpenDP draws (radius Gamma(2) as a sum of two |Laplace|, direction "
                 "from two Gaussians) and added in floating point; see docs/PRIVACY_MODEL.md §11.",
                 "Timestamps and stream lengths are treated as public."],
        construction="planar Laplace from OpenDP discrete Laplace and Gaussian draws")
    return GazeRelease(out, windows, people, man)
