"""The Heatmaps page's "Run this release at scale": its command carries the page's current settings (after an ε move
too), and the batch command line reads it back to the same HeatmapSettings."""
from __future__ import annotations

import shlex

from eyedp_core.batch.cli import parser, settings_from_args
from tests.apptest import open_app

PAGE = "pages/heatmaps.py"


def _command(at) -> str:
    hits = [c.value for c in at.code if "eyedp_core.batch heatmap" in str(c.value)]
    assert len(hits) == 1, [c.value for c in at.code]
    return hits[0]


def test_scale_out_command_follows_the_page_settings():
    at = open_app(PAGE, timeout=240)
    at.session_state["hm_scale_open"] = True  # the expander draws its content only while open
    at.select_slider(key="hm_eps").set_value(0.5).run()
    assert not at.exception, at.exception
    s = settings_from_args(parser().parse_args(shlex.split(_command(at))[3:]))
    assert s.epsilon == 0.5
    assert s.delta == float(at.select_slider(key="hm_delta").value)
    assert s.cell_px == int(at.select_slider(key="hm_cell").value)
    assert s.stimulus == at.selectbox(key="hm_stimulus").value
    assert s.cap_m == float(at.slider(key="hm_m_count").value)
    labels = [b.label for b in at.get("download_button")]
    assert {"Job settings (JSON)", "Commands (shell)", "PipelineDP script (Python)"} <= set(labels)
