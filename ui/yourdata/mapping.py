"""Your data's mapping form: which column is which, the units and screen of the positions, the sampling rate of
recordings without timestamps, and the fixation detection of raw gaze."""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from eyedp_core import io
from eyedp_core.io import derive
from eyedp_core.io.sample_clock import MAX_SAMPLING_RATE_HZ
from ui.text import md_text

NONE = "— not in my file —"
NO_CLOCK = "— none: rebuild from the sampling rate —"
TIME_UNITS = ["s", "ms", "us", "ns"]
CUSTOM = "custom"


def looks_bare(raw: pd.DataFrame, guess: dict[str, Any]) -> bool:
    """A gaze table's first rows and the guessed mapping -> whether they are bare samples: x and y found, no time
    column, and no other column of numbers that could be one."""
    if guess.get("t_s") or not (guess.get("x") and guess.get("y")):
        return False
    used = {c for c in guess.values() if isinstance(c, str)}
    return not any(pd.api.types.is_numeric_dtype(raw[c].dtype) for c in raw.columns if str(c) not in used)


def role_form(kind: str, raw: pd.DataFrame, guess: dict[str, Any]) -> dict[str, Any]:
    """The table's columns and the guessed mapping -> the user's mapping of each role (and the time unit)."""
    cols = list(map(str, raw.columns))
    mapping: dict[str, Any] = {}
    grid = st.columns(3)
    bare = kind == "gaze" and looks_bare(raw, guess)
    for i, role in enumerate(io.ROLES[kind]):
        whole = [io.WHOLE_FILE] if role.name in ("participant", "observer") else []
        # Bare samples have no time column: their clock is rebuilt from the sampling rate asked below.
        whole += [NO_CLOCK] if kind == "gaze" and role.name == "t_s" else []
        choices = [*cols, *whole] if role.required else [NONE, *cols]
        default = NO_CLOCK if bare and role.name == "t_s" else guess.get(role.name)
        # A required role we could not guess starts empty, so nobody maps 'x' to an ID column by accident.
        index = choices.index(default) if default in choices else (None if role.required else 0)
        with grid[i % 3]:
            pick = st.selectbox(f"{role.name}{' *' if role.required else ''}", choices, index=index,
                                help=role.description, key=f"map_{kind}_{role.name}",
                                placeholder="choose a column")
        mapping[role.name] = None if pick in (NONE, NO_CLOCK) else pick
    if kind in ("gaze", "fixations"):
        unit = guess.get("time_unit", "s" if kind == "gaze" else "ms")
        label = "Time column unit" if kind == "gaze" else "Unit of the start/end time columns"
        mapping["time_unit"] = st.radio(label, TIME_UNITS,
                                        index=TIME_UNITS.index(unit) if unit in TIME_UNITS else 0,
                                        horizontal=True, key=f"map_{kind}_time_unit")
    return mapping


def label_columns(raw: pd.DataFrame, mapping: dict[str, Any], token: str) -> list[str]:
    """A feature table and its mapping -> the label columns chosen (text-only columns start chosen)."""
    cols = list(map(str, raw.columns))
    leftover = [c for c in cols if c not in mapping.values()]
    text = [c for c in leftover if not pd.api.types.is_numeric_dtype(raw[c].dtype)
            and not pd.api.types.is_bool_dtype(raw[c].dtype)
            and pd.to_numeric(raw[c], errors="coerce").isna().all()]
    label_key = f"map_features_labels_{token[:8]}"
    if label_key in st.session_state:  # a column since chosen for a role is no longer offered
        st.session_state[label_key] = [c for c in st.session_state[label_key] if c in leftover]
    chosen = st.multiselect(
        "Label columns (kept as text: each is a task on the Attacks page, besides gender and task)",
        leftover, default=None if label_key in st.session_state else text, key=label_key,
        help="E.g. a passage, condition or group name. Columns holding only text are chosen for you.")
    n_feat = len(set(leftover) - set(chosen))
    st.caption(f"Features: every other column holding numbers (up to {n_feat} columns). Leave "
               "columns out below to exclude them.")
    return chosen


def geometry_form(kind: str, tok: str, units: str, y_up: bool,
                  preset: str | None) -> tuple[str, bool, io.Geometry, bool]:
    """Units of x/y and the screen geometry -> (units, y_up, Geometry, whether positions off it are checked)."""
    label = "Positions and screen geometry" + ("" if units == "px" else f" (this file: {units})")
    with st.expander(label, expanded=units != "px"):
        choices = list(io.UNITS)
        units = st.radio("Units of x and y", choices, index=choices.index(units) if units in choices else 0,
                         format_func=io.UNIT_LABELS.get,
                         horizontal=True, key=f"geo_units_{kind}_{tok}")
        y_up = st.checkbox("y grows upwards (origin at the bottom)", value=y_up, key=f"geo_yup_{kind}_{tok}",
                           help="Pupil Labs normalised and GazeBase degree coordinates grow upwards.")
        check = st.checkbox(f"Set positions more than {io.ON_SCREEN_TOLERANCE:.0%} off the screen to missing (counted)",
                            value=units != "px" or preset is not None, key=f"geo_check_{kind}_{tok}")
        geometry = _screen_inputs(kind, tok, preset)
        st.caption(geometry.describe())
    return units, y_up, geometry, bool(check or units != "px")


def _screen_inputs(kind: str, tok: str, preset: str | None) -> io.Geometry:
    """A screen preset, or the user's own five numbers -> the Geometry the positions are on."""
    presets = [*io.PRESETS, CUSTOM]
    start = preset if preset in io.PRESETS else "desktop_24"
    pick = st.selectbox("Screen", presets, index=presets.index(start), key=f"geo_preset_{kind}_{tok}",
                        format_func=lambda p: io.PRESETS[p].name if p in io.PRESETS else "my own numbers")
    base = io.PRESETS.get(pick, io.PRESETS["desktop_24"])
    cols = st.columns(5)
    custom = pick == CUSTOM
    w = cols[0].number_input("Width (px)", 1, 100_000, int(base.width_px), disabled=not custom,
                             key=f"geo_w_{kind}_{tok}_{pick}")
    h = cols[1].number_input("Height (px)", 1, 100_000, int(base.height_px), disabled=not custom,
                             key=f"geo_h_{kind}_{tok}_{pick}")
    wmm = cols[2].number_input("Width (mm)", 1.0, 100_000.0, float(round(base.width_mm, 1)),
                               disabled=not custom, key=f"geo_wmm_{kind}_{tok}_{pick}")
    hmm = cols[3].number_input("Height (mm)", 1.0, 100_000.0, float(round(base.height_mm, 1)),
                               disabled=not custom, key=f"geo_hmm_{kind}_{tok}_{pick}")
    dist = cols[4].number_input("Distance (mm)", 1.0, 100_000.0, float(round(base.distance_mm)),
                                disabled=not custom, key=f"geo_d_{kind}_{tok}_{pick}")
    return io.Geometry(int(w), int(h), float(wmm), float(hmm), float(dist), "my screen") if custom else base


def detect_form(default_on: bool) -> tuple[str, dict[str, float]] | None:
    """Gaze upload -> (method, thresholds) to detect fixations with for the Heatmaps page, or None."""
    on = st.checkbox("Also detect fixations in these samples (for the Heatmaps page)", value=default_on,
                     key="yd_detect", help="Raw gaze becomes a fixation table offered in the sidebar's "
                                           "Fixations selector; the derivation is shown below.")
    if not on:
        return None
    cols = st.columns([1.4, 1, 1])
    method = cols[0].radio("Detection", list(derive.METHODS), format_func=derive.METHODS.get,
                           horizontal=True, key="yd_detect_method")
    thresholds = {}
    for col, (name, value) in zip(cols[1:], derive.DEFAULT_THRESHOLDS[method].items()):
        thresholds[name] = float(col.number_input(derive.THRESHOLD_LABELS[name].capitalize(), 0.01, 10_000.0,
                                                  float(value), key=f"yd_detect_{name}"))
    return method, thresholds


def rate_form(up: io.Upload, frame: pd.DataFrame, mapping: dict[str, Any], token: str,
              whole: bool) -> float | None:
    """The sampling rate of gaze recordings without timestamps (None: leave them out), asked only when the table
    (`whole`: the whole file; else its first rows) or an earlier read of it has such recordings."""
    seen = up.recordings_without_time(frame, mapping)
    no_column = not mapping.get("t_s")
    if not seen and not no_column and not st.session_state.get(f"yd_no_time_{token[:8]}"):
        return None
    where = "the file" if whole else "the first rows"
    what = (f"{seen:,} recording{'s' if seen != 1 else ''} in {where} {'have' if seen != 1 else 'has'} no "
            "timestamps." if seen else "Some recordings in the file have no timestamps.")
    if no_column:
        what = "No time column is chosen: every recording's time is rebuilt from the sampling rate."
    hz = st.number_input("Sampling rate for recordings without timestamps (Hz)", 0.0, MAX_SAMPLING_RATE_HZ, 0.0, 50.0,
                         key=f"yd_rate_{token[:8]}",
                         help=f"{md_text(what)} Their time is rebuilt as sample number ÷ rate (the tracker's rate, e.g. 500 "
                              "for an SMI Hi-Speed). 0: leave their rows out (counted).")
    if not hz and no_column:
        st.warning(f"{md_text(what)} Give the sampling rate (Hz) stated for the recordings (in the dataset's "
                   "paper or readme), or choose the time column.")
    elif not hz:
        st.caption(f"{md_text(what)} Give their sampling rate to keep them; without it their rows are left out.")
    return float(hz) or None
