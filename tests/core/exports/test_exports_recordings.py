"""The time-series export on a table with several recordings per participant and no task column (the app-made
kind): every recording keeps its own key in the CSV, and the per-person ε composes over the counted recordings."""
from __future__ import annotations

import numpy as np

from eyedp_core.dp.registry import Mech
from eyedp_core.exports import release_feature_table
from eyedp_core.gaze.contributions import contributions
from eyedp_core.gaze.feature_specs import feature_bounds
from eyedp_core.timeseries.accounting import epsilon_plan
from eyedp_core.timeseries.setting import MechanismSetting
from eyedp_core.timeseries.signals import feature_tensor
from tests.core.timeseries.app_made import feature_windows


def test_each_recording_keeps_its_key_and_the_epsilon_counts_three_recordings() -> None:
    table = feature_windows(8, 3)
    names = ("fix_rate_hz", "fix_dur_mean_ms")
    x, recs = feature_tensor(table, names, length=7)
    lo, hi = feature_bounds(list(names))
    m = contributions(table).max_recordings
    plan = epsilon_plan("participant", 1.0, Mech.LPA, None, 7, len(names), m)
    assert m == 3 and plan.invocations == len(names) * 3
    rel = release_feature_table(x, recs, names, lo, hi,
                                setting=MechanismSetting(mech=Mech.LPA, chunk=None, k=1, epsilon=plan.per_invocation),
                                participant_epsilon=plan.participant_total,
                                invocations=plan.invocations)
    out = rel.table
    assert len(out) == 8 * 3 * 7 and {"recording", "stimulus"} <= set(out.columns)
    # One row per (participant, recording, window): no two recordings of a person share a key.
    assert not out.duplicated(["participant", "recording", "window"]).any()
    assert np.isclose(rel.manifest["epsilon_per_person"], 1.0)
