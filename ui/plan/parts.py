"""The session's inputs of a plan's series forms and gaze samples: the feature-window table and the gaze samples
selected in the sidebar (the Time series and Gaze samples pages' own), built once per data and plan
(exports.plan_parts.part_inputs, cached)."""
from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from eyedp_core.exports.plan_parts import PartInputs, PartTables, part_inputs, series_bases
from eyedp_core.gaze.events import SAMPLE_SCREEN
from eyedp_core.plan.models import SeriesBasis
from eyedp_core.plan.schema import GazeSamplesOutput, SeriesFormOutput, StudyPlan
from ui import settings, state

__all__ = ["gaze_screen", "series_models", "session_parts"]

GAZE_PAGE = "gaze_samples"


def gaze_screen(ds: state.Dataset) -> tuple[int, int]:
    """-> the screen (width, height) px of the session's gaze samples: the Gaze samples page's fields when set,
    else the upload's screen, else the bundled sample's."""
    kept = st.session_state.get(settings.SNAPSHOTS, {}).get(GAZE_PAGE, {})
    w = st.session_state.get("gs_wpx", kept.get("gs_wpx"))
    h = st.session_state.get("gs_hpx", kept.get("gs_hpx"))
    if w and h:
        return int(w), int(h)
    given = state.upload_geometry(ds.name) if ds.source == "upload" else None
    g = given or SAMPLE_SCREEN
    return int(g.width_px), int(g.height_px)


@st.cache_resource(show_spinner="Reading the feature windows and gaze samples of the plan…", max_entries=4)
def _parts(features_token: str, gaze_token: str, outputs_json: str, screen: tuple[int, int], names: tuple[str, str],
           _outputs: tuple, _features: pd.DataFrame | None, _gaze: pd.DataFrame | None) -> PartInputs:
    return part_inputs(_outputs, PartTables(_features, _gaze, names[0], names[1], screen))


def session_parts(plan: StudyPlan) -> PartInputs:
    """The plan in, the inputs of its series forms and gaze samples from the session's tables out (per output
    without one, why)."""
    outs = tuple(o for o in plan.outputs if isinstance(o, (SeriesFormOutput, GazeSamplesOutput)))
    if not outs:
        return PartInputs({}, {}, {})
    feats = state.current("features") if any(isinstance(o, SeriesFormOutput) for o in outs) else None
    gaze = state.current("gaze") if any(isinstance(o, GazeSamplesOutput) for o in outs) else None
    screen = gaze_screen(gaze) if gaze is not None else (int(SAMPLE_SCREEN.width_px), int(SAMPLE_SCREEN.height_px))
    text = "[" + ",".join(StudyPlan(plan.study, plan.cap, (o,)).to_json() for o in outs) + "]"
    return _parts(feats.token if feats else "", gaze.token if gaze else "", text, screen,
                  (feats.name if feats else "features", gaze.name if gaze else "gaze"), outs,
                  feats.frame if feats else None, gaze.frame if gaze else None)


@st.cache_resource(show_spinner=False, max_entries=4)
def _bases(key: str, _outputs: tuple, _parts: PartInputs) -> dict[str, SeriesBasis]:
    return series_bases(_outputs, _parts)


def series_models(plan: StudyPlan) -> tuple[str, dict[str, SeriesBasis]]:
    """The plan in, (a key naming the session's feature table and the plan's series forms, their models' inputs)
    out: what view.allocation adds so that the page's allocation is the release's."""
    outs = tuple(o for o in plan.outputs if isinstance(o, SeriesFormOutput))
    if not outs:
        return "", {}
    key = state.current("features").token + "|" + "|".join(json.dumps(o.to_dict(), sort_keys=True) for o in outs)
    return key, _bases(key, outs, session_parts(plan))
