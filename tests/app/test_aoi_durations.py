"""AppTest: on a fixation upload without durations (nor start times) the Areas of interest page offers neither dwell
time nor time to first fixation, says why, and an export charges only the hit ratio's sum (in the singular)."""
from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd

from eyedp_core.aoi.metrics import NO_DURATIONS, NO_TIMES, AoiMetric
from tests.apptest import page_text, upload_file, use_data

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")


def _no_durations() -> bytes:
    """Six observers, 12 fixations each, with positions only."""
    rng = np.random.default_rng(5)
    rows = [(f"s{o}", rng.uniform(0, 1000), rng.uniform(0, 700)) for o in range(6) for _ in range(12)]
    return pd.DataFrame(rows, columns=["subject", "x", "y"]).to_csv(index=False).encode()


def test_metrics_without_durations_are_not_offered_nor_charged() -> None:
    at = upload_file("fixations", "positions.csv", _no_durations())
    use_data(at)
    at.switch_page("pages/areas_of_interest.py").run()
    assert not at.exception, at.exception
    box = at.multiselect(key="aoi_metrics")
    assert AoiMetric.DWELL.value not in box.options and AoiMetric.TTFF.value not in box.options
    assert box.value == [AoiMetric.HIT_RATIO.value]
    said = " ".join(c.value for c in at.caption)
    assert NO_DURATIONS in said and NO_TIMES in said
    # One metric, one sum: the words count it in the singular.
    assert "all on 1 noisy sum." in page_text(at) and "(1 ledger entry, one per noisy sum)" in said
    from ui.state import LEDGER_KEY  # noqa: PLC0415 - the session's ledger object

    before = len(at.session_state[LEDGER_KEY].releases)  # a stored ledger may hold earlier sessions' entries
    at.button(key="aoi_export").click().run()
    assert not at.exception, at.exception
    added = at.session_state[LEDGER_KEY].releases[before:]
    assert [(r.view, r.label.split(": ")[1]) for r in added] == [("Areas of interest", "observers who looked (9 AOIs)")]
    assert json.loads(at.session_state["aoi_release_result"][1])["metrics"] == [AoiMetric.HIT_RATIO.value]
