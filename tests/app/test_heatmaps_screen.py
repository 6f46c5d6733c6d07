"""The Heatmaps page carries the screen a fixation upload was declared on (ui.heatmaps.settings.screen): the blank
canvas and the kernel's σ in pixels follow that Geometry, the screen fields only override it, and moving to
another fixation table starts again from that table's own screen (the bundled sample's)."""
from __future__ import annotations

import os
import re
from dataclasses import replace

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from eyedp_core.gaze.events import SAMPLE_SCREEN
from eyedp_core.gaze.geometry import PRESETS
from tests.apptest import upload_file, use_data

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")

LUND = PRESETS["lund2013"]  # 1024 × 768 px at 67 cm: 1.5° is 47.3 px (the sample's 60 cm screen: 42.3 px)
_SIGMA = re.compile(r"on a (\d+) × (\d+) px stimulus; kernel σ = ([\d.]+)° = ([\d.]+) px")


def _fixations() -> bytes:
    """Six observers, 15 fixations each inside 1000 × 750 px (no stimulus column: a blank-canvas stimulus)."""
    rng = np.random.default_rng(5)
    rows = [(f"s{o}", rng.uniform(0, 1000), rng.uniform(0, 750), rng.uniform(100, 400)) for o in range(6)
            for _ in range(15)]
    return pd.DataFrame(rows, columns=["subject", "x", "y", "duration"]).to_csv(index=False).encode()


def _canvas_and_sigma(at: AppTest) -> tuple[int, int, float, float]:
    """The stimulus size, σ in degrees and σ in px the page states under its previews."""
    text = " ".join(str(e.value) for e in [*at.markdown, *at.caption])
    hit = _SIGMA.search(text)
    assert hit, text[:2000]
    return int(hit[1]), int(hit[2]), float(hit[3]), float(hit[4])


def test_heatmaps_follow_the_upload_screen_and_the_sample_its_own() -> None:
    """Declared on Lund's 1024 × 768 screen at 67 cm: canvas 1024 × 768 and σ = Lund's span of 1.5°; a distance
    typed in overrides it; back on the bundled sample, σ is the sample screen's span again (not the upload's,
    kept from the last table)."""
    at = upload_file("fixations", "fix.csv", _fixations())
    preset = [s for s in at.selectbox if s.key and s.key.startswith("geo_preset_fixations_")][0]
    preset.set_value("lund2013").run()
    use_data(at)
    at.switch_page("pages/heatmaps.py").run()
    at.sidebar.selectbox(key="sel_fixations").set_value("Upload: fix.csv").run()
    assert not at.exception, at.exception
    w, h, deg, sigma = _canvas_and_sigma(at)
    assert (w, h) == (1024, 768)
    assert sigma == round(LUND.span_px(deg)[0], 1) == 47.3
    # A field overrides the carried screen: Lund's screen seen from 1 m.
    at.number_input(key="hm_dist").set_value(100.0).run()
    assert not at.exception, at.exception
    assert _canvas_and_sigma(at)[3] == round(replace(LUND, distance_mm=1000.0).span_px(deg)[0], 1) == 70.6
    sample = at.sidebar.selectbox(key="sel_fixations").options[0]
    at.sidebar.selectbox(key="sel_fixations").set_value(sample).run()
    assert not at.exception, at.exception
    w, h, deg, sigma = _canvas_and_sigma(at)
    assert sigma == round(SAMPLE_SCREEN.span_px(deg)[0], 1) == 42.3
