"""Your data: upload gaze, fixation or feature tables and stimulus images, map their columns, use them."""
from __future__ import annotations

import streamlit as st

from eyedp_core.io import uploads as io
from ui import state
from ui.shell import ensure_shell

ensure_shell()

KIND_LABELS = {
    "gaze": "Raw gaze samples (CSV/TSV)",
    "fixations": "Fixations (CSV/TSV)",
    "features": "Feature windows (CSV/TSV)",
    "image": "Stimulus image (PNG/JPEG)",
}
NONE = "— not in my file —"

st.title("Your data")
st.markdown(
    "Upload your own recordings or stimuli. Files are parsed **in memory for this session only**: "
    "nothing you upload is written to disk or logged, and it is gone when you close the tab. "
    f"Limits: {io.MAX_UPLOAD_BYTES // 2**20} MB per file, {io.MAX_ROWS:,} rows per table, "
    f"{io.MAX_IMAGE_PIXELS / 1e6:.0f} megapixels per image."
)

if msg := st.session_state.pop("upload_done", None):
    st.success(msg)
for warning in st.session_state.pop("upload_warnings", []):
    st.warning(warning)

kind = st.radio("What are you uploading?", list(KIND_LABELS), format_func=KIND_LABELS.get, horizontal=True,
                key="upload_kind")
types = ["png", "jpg", "jpeg"] if kind == "image" else ["csv", "tsv", "txt"]
upload = st.file_uploader("File", type=types, key=f"uploader_{kind}")

if upload is None:
    st.caption("Tip: the bundled samples show the expected shape — see the Home page's *Data loaded* table.")
    st.stop()

data = upload.getvalue()
try:
    if kind == "image":
        img = io.load_image(data, upload.name)
        st.image(img, caption=f"{upload.name}: {img.shape[1]} × {img.shape[0]} px")
        if st.button("Use this image", type="primary"):
            state.add_upload(state.Dataset("image", upload.name, "upload", state.content_token(img), image=img))
            st.session_state["upload_done"] = f"{upload.name} is now offered as a stimulus on the Heatmaps page."
            st.rerun()
        st.stop()

    raw = io.read_table(data, upload.name)
except io.DataError as err:
    st.error(str(err), icon=":material/error:")
    st.stop()

st.markdown(f"**{upload.name}** — {len(raw):,} rows, {raw.shape[1]} columns. First rows:")
st.dataframe(raw.head(8), hide_index=True)

reader = io.READERS[io.detect_reader(raw)] if kind == "gaze" else None
if reader is not None and reader.name != "generic":
    if st.toggle(f"Recognised as a {reader.label} export — use its reader", value=True, key="use_reader"):
        try:
            raw, guess = reader.to_canonical(raw)
        except io.DataError as err:
            st.error(str(err), icon=":material/error:")
            st.stop()
        st.caption(f"The {reader.label} reader converted the file; check the mapping below.")

st.subheader("Which column is which?")
if reader is None or reader.name == "generic" or not st.session_state.get("use_reader"):
    guess = io.guess_mapping(raw, kind)
cols = list(map(str, raw.columns))
mapping: dict[str, object] = {}
grid = st.columns(3)
for i, role in enumerate(io.ROLES[kind]):
    whole = [io.WHOLE_FILE] if role.name in ("participant", "observer") else []
    choices = [*cols, *whole] if role.required else [NONE, *cols]
    default = guess.get(role.name)
    # A required role we could not guess starts empty, so nobody maps 'x' to an ID column by accident.
    index = choices.index(default) if default in choices else (None if role.required else 0)
    with grid[i % 3]:
        pick = st.selectbox(f"{role.name}{' *' if role.required else ''}", choices, index=index,
                            help=role.description, key=f"map_{kind}_{role.name}",
                            placeholder="choose a column")
    mapping[role.name] = None if pick == NONE else pick
if kind == "gaze":
    units = ["s", "ms", "us"]
    unit = guess.get("time_unit", "s")
    mapping["time_unit"] = st.radio("Time column unit", units, index=units.index(unit) if unit in units else 0,
                                    horizontal=True, key="map_gaze_time_unit")
st.caption("* required. Columns you do not map are ignored (for feature tables: every other column is a feature).")

if st.button("Use this data", type="primary"):
    try:
        table = io.apply_mapping(raw, mapping, kind, upload.name)
    except io.DataError as err:
        st.error(str(err), icon=":material/error:")
        st.stop()
    name = f"Upload: {upload.name}"
    state.add_upload(state.Dataset(kind, name, "upload", state.content_token(table), frame=table))
    st.session_state["upload_done"] = (f"{upload.name} loaded ({len(table):,} rows) and selected as "
                                       f"'{state.KINDS[kind]['label']}' in the sidebar.")
    st.session_state["upload_warnings"] = [str(w) for w in table.attrs.get("warnings", [])]
    st.rerun()
