"""What the session holds on Your data: the participants table, each upload with its notes and preview, the
canvas size of image-less stimuli and the feature-window form."""
from __future__ import annotations

from typing import Any

import streamlit as st

from eyedp_core import io
from eyedp_core.data import derived
from ui import state
from ui.tables import preview_frame
from ui.text import md_text
from ui.yourdata import view
from ui.yourdata.view import PARTICIPANTS_KEY


def uploads_panel() -> None:
    """What this session holds: each upload, what was derived from what (with counts) and a preview."""
    _participants_section()
    held = [(kind, ds) for kind in state.KINDS for ds in state.uploaded(kind).values()]
    if not held:
        return
    st.divider()
    st.subheader("Your data in this session")
    for kind, ds in held:
        frame = ds.frame
        who = next((c for c in ("participant", "observer") if c in frame.columns), None)
        people = f", {frame[who].nunique():,} people" if who else ""
        with st.expander(f"{state.KINDS[kind]['label']}: {md_text(ds.name.removeprefix('Upload: '))} — "
                         f"{len(frame):,} rows{people}", expanded=kind == "fixations"):
            for note in ds.notes[1:] or ds.notes:
                st.markdown(md_text(note))
            st.dataframe(preview_frame(frame, 5), hide_index=True)
            if kind == "fixations":
                canvas_form(ds)
            if kind == "fixations" and "duration_ms" not in frame.columns:
                # Windows are timed by the fixations' durations (the validator derives them from start and end
                # times when both are mapped): without them there is no time to cut windows from.
                st.caption("No feature windows from this table: they are timed by the fixations' durations (or "
                           "their start and end times), which it does not have.")
            elif kind in ("gaze", "fixations"):
                features_form(ds)


def canvas_form(ds: Any) -> None:
    """Fixation upload -> the stimulus size its image-less stimuli are drawn at on the Heatmaps page."""
    frame = ds.frame
    missing = derived.stimuli_without_images(frame, [n for n, s in state.stimuli().items()
                                                     if not s.token.startswith("blank:")])
    if "stimulus" in frame.columns and not missing:
        st.caption("Every stimulus of this table has an image.")
        return
    ext_w, ext_h = derived.data_extent(frame)
    w0, h0 = state.canvas_size(ds)
    what = (f"{len(missing):,} of its stimuli have no uploaded image" if "stimulus" in frame.columns
            else "it has no stimulus column")
    source = ("until you enter the stimulus size here it is read off the data, and the ledger and the report flag "
              "every release drawn on it" if state.canvas_from_data(ds) else
              "it starts as the screen declared with this upload; enter the stimulus size here if the positions are "
              "in stimulus pixels of another size")
    st.caption(f"{what.capitalize()}: the Heatmaps and Areas-of-interest pages draw them on a blank canvas of this "
               f"size (the data reach {ext_w} × {ext_h} px). The size is a public parameter (it sets the grid and "
               f"the sensitivity): {source}. Upload the images above to see the heatmap on them instead.")
    key = state.content_token(ds.name.encode())[:8]
    c = st.columns([1, 1, 2])
    w = c[0].number_input("Stimulus width (px)", 1, derived.MAX_CANVAS_SIDE, int(w0), key=f"yd_canvas_w_{key}")
    h = c[1].number_input("Stimulus height (px)", 1, derived.MAX_CANVAS_SIDE, int(h0), key=f"yd_canvas_h_{key}")
    if (int(w), int(h)) != (w0, h0):
        state.set_canvas_size(ds.name, int(w), int(h))


def features_form(ds: Any) -> None:
    """Gaze or fixation upload -> its feature windows (window length, step, its screen, the participants'
    labels) added as a feature table, which the Time series and Attacks pages use."""
    key = state.content_token(ds.name.encode())[:8]
    geometry = state.upload_geometry(ds.name) or io.PRESETS["desktop_24"]
    people = st.session_state.get(PARTICIPANTS_KEY)
    st.markdown("**Feature windows** for the Time series and Attacks pages: the fixation, saccade, blink and "
                "pupil features of every window of each recording (one participant on one stimulus or trial).")
    c = st.columns([1, 1, 2])
    window_s = float(c[0].number_input("Window length (s)", 0.5, 600.0, view.suggested_window_s(ds.frame), 0.5,
                                       key=f"yd_win_{key}"))
    step_s = float(c[1].number_input("Step (s)", 0.1, 600.0, max(0.5, window_s / 2), 0.5, key=f"yd_step_{key}",
                                     help="Windows overlap when the step is shorter than the window."))
    labels = (f"; labels from {people.attrs.get('source', 'the participants table')}: "
              + ", ".join(c for c in people.columns if c != "participant")) if people is not None else ""
    c[2].caption(md_text(f"Screen: {geometry.describe()}{labels}."))
    if not c[2].button("Make feature windows", key=f"yd_feat_{key}", icon=":material/table_chart:"):
        return
    source = ds.name.removeprefix("Upload: ")
    try:
        with st.spinner(f"Making feature windows of {md_text(source)} …"):
            label, short = view.feature_windows(ds, geometry, window_s, step_s, people, labels)
    except io.DataError as err:
        st.error(md_text(err), icon=":material/error:")
        return
    st.session_state["upload_done"] = (f"{md_text(short)} Added as '{md_text(label)}' and selected as "
                                       f"'{state.KINDS['features']['label']}' in the sidebar: the Time series "
                                       "and Attacks pages use it.")
    st.rerun()


def _participants_section() -> None:
    """A participants table (participant -> gender, age, group, ...) whose columns become attack labels."""
    st.divider()
    st.subheader("Participants (optional)")
    st.caption("One row per participant: a participant column, then anything known about them (gender, age, "
               "group, …). Each column becomes a label an attack predicts on the Attacks page: it is added to "
               "the feature windows you make below, and can be added to a feature table you uploaded.")
    up = st.file_uploader("Participants table (CSV/TSV)", type=["csv", "tsv", "txt", "gz"],
                          key="uploader_participants")
    if up is not None:
        try:
            people = view.participants(up.name, up.getvalue())
        except io.DataError as err:
            st.error(md_text(err), icon=":material/error:")
            return
        st.session_state[PARTICIPANTS_KEY] = people
    people = st.session_state.get(PARTICIPANTS_KEY)
    if people is None:
        return
    cols = [c for c in people.columns if c != "participant"]
    st.markdown(f"**{md_text(people.attrs.get('source', 'Participants'))}**: {len(people):,} participants; "
                "labels: " + md_text(", ".join(cols)) + ".")
    st.dataframe(preview_frame(people, 5), hide_index=True)
    for ds in state.uploaded("features").values():
        if any(c in ds.frame.columns for c in cols):
            continue
        key = state.content_token(ds.name.encode())[:8]
        if st.button(f"Add these labels to {md_text(ds.name.removeprefix('Upload: '))}", key=f"yd_people_{key}"):
            try:
                label = view.add_labels(ds, people, cols)
            except io.DataError as err:
                st.error(md_text(err), icon=":material/error:")
                return
            st.session_state["upload_done"] = (f"Added as '{md_text(label)}': the Attacks page offers "
                                               f"{md_text(', '.join(cols))}.")
            st.rerun()
