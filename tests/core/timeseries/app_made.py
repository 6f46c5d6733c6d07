"""Feature tables the app itself makes from fixations (io.windows), with several recordings per participant and
no task column: the shape on which a count of tasks undercounts what one person contributes."""
from __future__ import annotations

import numpy as np
import pandas as pd

from eyedp_core.io.windows import features_from_table


def fixations(people: int = 40, recordings: int = 3, seconds: float = 40.0, session: bool = False,
              seed: int = 3) -> pd.DataFrame:
    """A fixation table: `people` × `recordings` stimuli (or sessions), each about `seconds` long, fixed seed."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(people):
        for r in range(recordings):
            t, k = 0.0, 0
            while t < seconds:
                dur = float(rng.uniform(120, 420))
                rows.append({"participant": f"P{p:02d}", ("session" if session else "stimulus"): f"s{r}",
                             "x": float(rng.uniform(50, 1850)), "y": float(rng.uniform(50, 1030)),
                             "duration_ms": dur, "t_start_s": t, "t_end_s": t + dur / 1000.0})
                t += dur / 1000.0 + float(rng.uniform(0.02, 0.06))
                k += 1
    return pd.DataFrame(rows)


def feature_windows(people: int = 40, recordings: int = 3, session: bool = False,
                    window_s: float = 10.0, step_s: float = 5.0) -> pd.DataFrame:
    """The app-made feature table: windows of 10 s every 5 s (7 per 40-s recording), no task column."""
    return features_from_table(fixations(people, recordings, session=session), None, window_s, step_s,
                               source="fixations.csv")
