"""Your data: upload recordings, fixation or feature tables and stimulus images, map their columns."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import pandas as pd
import streamlit as st

from eyedp_core import io
from eyedp_core.data import derived
from eyedp_core.io import derive, windows
from eyedp_core.io.image_files import image_files
from eyedp_core.io.pipeline import usecols
from eyedp_core.io.recordings import combine, read_alike, table_files
from eyedp_core.io.sample_clock import MAX_SAMPLING_RATE_HZ
from eyedp_core.io.steps import Step, StepReport
from ui import runlog, state
from ui.errors import guarded
from ui.shell import ensure_shell
from ui.tables import preview_frame
from ui.text import md_text

ensure_shell()
runlog.note("page")

KIND_LABELS = {
    "gaze": "Raw gaze samples (CSV/TSV)",
    "fixations": "Fixations (CSV/TSV)",
    "features": "Feature windows (CSV/TSV)",
    "image": "Stimulus image (PNG/JPEG)",
}
NONE = "— not in my file —"
NO_CLOCK = "— none: rebuild from the sampling rate —"
TIME_UNITS = ["s", "ms", "us", "ns"]
CUSTOM = "custom"
PARTICIPANTS_KEY = "yd_participants"  # the participants table of this session (memory only), or absent


def _memo(slot: str, key: tuple, compute: Callable[[], Any]) -> Any:
    """Keep one computed value per slot in this session (memory only), recomputed when the key changes. A
    DataError is kept too, so a refused file (a gzip bomb counted to its cap) costs its work once."""
    memo = st.session_state.setdefault("yd_memo", {})
    hit = memo.get(slot)
    if hit is not None and hit[0] == key:
        if isinstance(hit[1], io.DataError):
            raise hit[1]
        return hit[1]
    try:
        value = compute()
    except io.DataError as err:
        memo[slot] = (key, err.with_traceback(None))  # without its frames, which hold the upload's bytes
        raise
    memo[slot] = (key, value)
    return value


def _limits_text() -> str:
    """-> the upload limits of this site, as one sentence."""
    mb = io.MAX_UPLOAD_BYTES // 10**6
    return (f"Limits here: {mb} MB per upload ({io.MAX_UPLOAD_BYTES:,} bytes, the server's upload cap, "
            f"`server.maxUploadSize` in `.streamlit/config.toml`), {io.MAX_UNPACKED_BYTES // 10**6:,} MB once a gzip "
            f"file is unpacked, lines of up to {io.MAX_LINE_BYTES // 10**6} MB, {io.MAX_ROWS:,} rows and "
            f"{io.MAX_COLUMNS:,} columns per table, {io.MAX_IMAGE_PIXELS / 1e6:.0f} megapixels and "
            f"{io.MAX_IMAGE_SIDE:,} px per side per image. "
            "Reading a file in Python with `eyedp_core.io.read_recording` has no limit.")


def _cap_text(kind: str) -> str:
    """Upload kind -> what happens to a file over the upload cap, for the line under the uploader."""
    mb = io.MAX_UPLOAD_BYTES // 10**6
    text = (f"Files up to {mb} MB ({io.MAX_UPLOAD_BYTES:,} bytes). A larger file is refused by your browser "
            "before anything is sent: the uploader marks it with a red icon and this page reads nothing.")
    if kind == "image":
        return text
    return text + (f" A larger table fits gzip-compressed (`.csv.gz`, up to {io.MAX_UNPACKED_BYTES // 10**6:,} MB "
                   "once unpacked); or leave out columns or participants, or read the file in Python with "
                   "`eyedp_core.io.read_recording`, which has no limit.")


def _show_messages() -> None:
    """Messages left by the previous run (after st.rerun)."""
    if msg := st.session_state.pop("upload_done", None):
        st.success(msg)
    for warning in st.session_state.pop("upload_warnings", []):
        st.warning(md_text(warning))
    if steps := st.session_state.pop("upload_steps", None):
        with st.expander("What each step did"):
            st.markdown("\n".join(f"- {md_text(step)}" for step in steps))


def _image(data: bytes, name: str) -> None:
    """Stimulus image: decode, show, offer it to the Heatmaps page."""
    img = io.load_image(data, name)
    st.image(img, caption=f"{md_text(name)}: {img.shape[1]} × {img.shape[0]} px")
    if st.button("Use this image", type="primary"):
        state.add_upload(state.Dataset("image", name, "upload", state.content_token(img), image=img))
        st.session_state["upload_done"] = f"{md_text(name)} is now offered as a stimulus on the Heatmaps page."
        st.rerun()


MAX_BAD_SHOWN = 5
Files = Sequence[tuple[str, bytes]]  # (path, bytes) of the other files of a many-file gaze upload


def _decode_all(files: list[tuple[str, bytes]]) -> tuple[list[tuple[str, Any]], list[str], list[str]]:
    """(name, bytes) files, images or zips -> (decoded (name, image) pairs, refusals, skipped-file sentences)."""
    pairs, skipped = image_files(files, io.MAX_UNPACKED_BYTES)
    good, bad = [], []
    for name, data in pairs:
        try:
            good.append((name, io.load_image(data, name)))
        except io.DataError as err:
            bad.append(str(err))
    return good, bad, skipped


def _images(files: list[Any]) -> None:
    """Many stimulus images, or zips of them: decode each, say which were refused, offer all to the Heatmaps
    page; each is matched to the stimulus of its name whatever its extension."""
    key = tuple((f.name, f.size) for f in files)
    good, bad, skipped = _memo("images", key, lambda: _decode_all([(f.name, f.getvalue()) for f in files]))
    for note in skipped:
        st.info(md_text(note))
    for err in bad[:MAX_BAD_SHOWN]:
        st.warning(md_text(err))
    more = len(bad) - MAX_BAD_SHOWN
    if more > 0:
        st.warning(f"… and {more:,d} more files were refused.")
    if not good:
        st.error("None of the files is a usable PNG or JPEG image.", icon=":material/error:")
        return
    shown = ", ".join(n for n, _ in good[:12]) + (" …" if len(good) > 12 else "")
    st.markdown(f"**{len(good):,} images**: {md_text(shown)}")
    first_name, first = good[0]
    st.image(first, caption=f"{md_text(first_name)}: {first.shape[1]} × {first.shape[0]} px")
    if st.button("Use these images", type="primary"):
        for name, img in good:
            state.add_upload(state.Dataset("image", name, "upload", state.content_token(img), image=img))
        st.session_state["upload_done"] = f"{len(good):,} images are now offered as stimuli on the Heatmaps page."
        st.rerun()


def _geometry_form(kind: str, tok: str, units: str, y_up: bool,
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
        geometry = (io.Geometry(int(w), int(h), float(wmm), float(hmm), float(dist), "my screen")
                    if custom else base)
        st.caption(geometry.describe())
    return units, y_up, geometry, bool(check or units != "px")


def _detect_form(default_on: bool) -> tuple[str, dict[str, float]] | None:
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


def _derive(rec: io.Recording, label_of: str, detect: tuple[str, dict[str, float]]) -> str:
    """Gaze recording -> its detected fixations (the pipeline's derive step) added as a fixation upload; -> a
    sentence for the message, naming the source file and the step."""
    method, thresholds = detect
    fix, how = rec.detect_fixations(method, **thresholds)
    step = how.report()
    if fix.empty:
        return " " + step.message("no fixations were detected.")
    label = f"Upload: {label_of} (fixations, {method.upper()})"
    short = step.message(f"{how.fixations:,} fixations from {how.samples:,} samples.") + (
        f" {how.fitted}" if how.fitted else "")
    state.add_upload(state.Dataset("fixations", label, "upload", state.content_token(fix), frame=fix,
                                   notes=(short, how.describe())))
    state.set_upload_geometry(label, rec.geometry)
    return f" {md_text(short)} Added as '{md_text(label)}'."


def _add(kind: str, name: str, table: pd.DataFrame, geometry: Any = None) -> str:
    """Keep a canonical table as an uploaded dataset of `kind` (with the screen its positions are on); -> its name
    in the sidebar."""
    label = f"Upload: {name}"
    state.add_upload(state.Dataset(kind, label, "upload", state.content_token(table), frame=table))
    if kind in ("gaze", "fixations"):
        state.set_upload_geometry(label, geometry)
    return label


def _done(kind: str, name: str, table: pd.DataFrame, extra: str = "",
          reports: tuple[StepReport, ...] = ()) -> None:
    """Remember the success message, warnings and the pipeline's step reports for the next run, then rerun."""
    counts = table.attrs.get("counts", {})
    what = {k: v for k, v in counts.items() if k not in ("rows_read", "rows_kept", "sample_lines") and v}
    details = ("; " + ", ".join(f"{k.replace('_', ' ')}: {v:,}" for k, v in what.items())) if what else ""
    st.session_state["upload_done"] = (f"{md_text(name)} loaded ({len(table):,} rows{details}) and selected as "
                                       f"'{state.KINDS[kind]['label']}' in the sidebar.{extra}")
    st.session_state["upload_warnings"] = [str(w) for w in table.attrs.get("warnings", [])]
    st.session_state["upload_steps"] = [r.sentence() for r in reports]
    st.rerun()


def _asc(kind: str, data: bytes, name: str, token: str, others: Files = ()) -> None:
    """EyeLink ASC upload: read it (and the other files of a many-file gaze upload) with the EyeLink reader, show
    what it holds, use samples or fixations."""
    up = _upload(data, name, token)
    options = io.ReadOptions(kind="gaze")
    rec = _memo("asc", (token,), lambda: combine(
        [up.recording(options), *read_alike(others, lambda p, d: _web_upload(d, p).recording(options), io.MAX_ROWS)],
        [name, *(p for p, _ in others)]))
    label = _files_label(name, others)
    st.markdown(f"**{md_text(label)}** — EyeLink ASC file{'s' if others else ''}. {md_text(rec.summary())}.")
    if rec.screen_px:
        st.caption(f"Display size from the file: {rec.screen_px[0]} × {rec.screen_px[1]} px.")
    fix = rec.fixations()
    table = rec.samples if kind == "gaze" else fix
    if table is None or table.empty:
        st.error(f"{md_text(name)}: this file holds no fixation events (EFIX lines) to use as fixations.")
        st.stop()
    st.dataframe(preview_frame(table, 8), hide_index=True)
    also = False
    if kind == "gaze" and fix is not None and not fix.empty:
        also = st.checkbox(f"Also add its {len(fix):,} fixations (EFIX events) as a fixation table",
                           value=True, key="asc_add_fixations")
    if st.button("Use this data", type="primary"):
        table = table.copy()
        table.attrs = {"counts": rec.counts, "warnings": rec.warnings}
        _add(kind, label, table, rec.geometry)
        extra = ""
        if also:
            _add("fixations", f"{label} (fixations)", fix, rec.geometry)
            extra = f" Its {len(fix):,} fixations were added as 'Upload: {md_text(label)} (fixations)'."
        _done(kind, label, table, extra, tuple(rec.reports))


def _rate_form(up: io.Upload, frame: pd.DataFrame, mapping: dict[str, Any], token: str,
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


def _files_label(name: str, others: Files) -> str:
    """The first file's name and the other files of the upload -> the name the upload is kept under."""
    return name if not others else f"{len(others) + 1:,} files ({name} …)"


def _looks_bare(raw: pd.DataFrame, guess: dict[str, Any]) -> bool:
    """A gaze table's first rows and the guessed mapping -> whether they are bare samples: x and y found, no time
    column, and no other column of numbers that could be one."""
    if guess.get("t_s") or not (guess.get("x") and guess.get("y")):
        return False
    used = {c for c in guess.values() if isinstance(c, str)}
    return not any(pd.api.types.is_numeric_dtype(raw[c].dtype) for c in raw.columns if str(c) not in used)


def _web_upload(data: bytes, name: str) -> io.Upload:
    """-> a file's upload pipeline under this site's limits."""
    return io.Upload(data, name, io.Limits(**io.WEB_LIMITS))


def _upload(data: bytes, name: str, token: str) -> io.Upload:
    """-> this file's upload pipeline (kept for the session: each step runs once)."""
    return _memo("upload", (token,), lambda: _web_upload(data, name))


def _table(kind: str, data: bytes, name: str, token: str, others: Files = ()) -> None:
    """CSV/TSV upload: preview (head only), reader (the whole file converted once) or guessed mapping, options,
    then the map and validate steps on 'Use this data' (for a many-file gaze upload: on every file, with the
    choices made on the first)."""
    up = _upload(data, name, token)
    preview = _memo("preview", (token,), up.preview)
    for w in preview.attrs.get("warnings", []):
        st.info(md_text(w))
    shown = f"first {len(preview):,} rows" if len(preview) >= io.pipeline.PREVIEW_ROWS else f"{len(preview):,} rows"
    st.markdown(f"**{md_text(name)}** — {shown}, {preview.shape[1]} columns. First rows:")
    st.dataframe(preview_frame(preview, 8), hide_index=True)
    all_cols = [str(c) for c in preview.columns]
    # The "leave out" box is drawn below the mapping; its value from the last run is read here.
    leave_key = f"leave_out_{kind}_{token[:8]}"
    left_out = set(st.session_state.get(leave_key, [])) & set(all_cols)
    kept = [c for c in all_cols if c not in left_out]
    if len(kept) < 2:
        st.error(f"{md_text(name)}: keep at least two columns.")
        st.stop()
    reader_name = up.reader(kind, kept) if kind in ("gaze", "fixations") else "generic"
    reader = io.READERS[reader_name]
    use_reader = False
    min_confidence = io.DEFAULT_MIN_CONFIDENCE
    notes: list[str] = []
    if reader_name != "generic":
        use_reader = st.toggle(f"Recognised as a {reader.label} — use its reader", value=True,
                               key="use_reader")
    if use_reader:
        if reader_name.startswith("pupil_labs"):
            min_confidence = st.slider(
                "Minimum confidence", 0.0, 1.0, io.DEFAULT_MIN_CONFIDENCE, 0.05, key="min_confidence",
                help="Pupil Labs recommend 0.6; samples below it are set aside.")
        with st.spinner(f"Reading and converting {md_text(name)} …"):
            raw, guess = _memo("convert", (token, reader_name, tuple(kept), float(min_confidence)),
                               lambda: up.converted(reader_name, kept, min_confidence))
        st.caption(f"The {reader.label} reader prepared the file; check the mapping below.")
        seen = {str(w) for w in preview.attrs.get("warnings", [])}
        for w in raw.attrs.get("warnings", []):
            if str(w) not in seen:
                st.caption(md_text(w))
    else:
        raw = preview[kept]
        # pandas copies attrs into every column it hands out, and the parser's grow with the columns (renamed
        # ones): the page's column-by-column looks would cost the square of a wide table's width.
        raw.attrs = {}
        # The names come from the preview; the stimulus column is chosen from its candidates read over the whole
        # file, as the library chooses it (an index can name other images far below the preview).
        with st.spinner(f"Reading the columns that could name the stimulus in {md_text(name)} …"):
            guess, notes = _memo("guess", (token, kind, tuple(kept)), lambda: up.guess(kind, kept))
    for note in notes:
        st.info(md_text(note))

    st.subheader("Which column is which?")
    cols = list(map(str, raw.columns))
    mapping: dict[str, Any] = {}
    grid = st.columns(3)
    bare = kind == "gaze" and _looks_bare(raw, guess)
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
    if kind == "features":
        leftover = [c for c in cols if c not in mapping.values()]
        text = [c for c in leftover if not pd.api.types.is_numeric_dtype(raw[c].dtype)
                and not pd.api.types.is_bool_dtype(raw[c].dtype)
                and pd.to_numeric(raw[c], errors="coerce").isna().all()]
        label_key = f"map_features_labels_{token[:8]}"
        if label_key in st.session_state:  # a column since chosen for a role is no longer offered
            st.session_state[label_key] = [c for c in st.session_state[label_key] if c in leftover]
        mapping[io.LABELS_KEY] = st.multiselect(
            "Label columns (kept as text: each is a task on the Attacks page, besides gender and task)",
            leftover, default=None if label_key in st.session_state else text, key=label_key,
            help="E.g. a passage, condition or group name. Columns holding only text are chosen for you.")
        n_feat = len(set(leftover) - set(mapping[io.LABELS_KEY]))
        st.caption(f"Features: every other column holding numbers (up to {n_feat} columns). Leave "
                   "columns out below to exclude them.")
    geometry, check_screen = None, False
    if kind in ("gaze", "fixations"):
        units, y_up, geometry, check_screen = _geometry_form(kind, token[:8], guess.get("units", "px"),
                                               bool(guess.get("y_up")),
                                               reader.geometry_preset if use_reader else None)
        mapping["units"], mapping["y_up"] = units, y_up
    st.multiselect("Leave these columns out", all_cols, key=leave_key,
                   help="They are not read at all, e.g. a mostly empty column you do not need.")
    add_fix = False
    if kind == "gaze" and use_reader and reader_name == "tobii" and not others:
        add_fix = st.checkbox("Also add the export's fixations (one row per fixation index) as a "
                              "fixation table", value=True, key="tobii_add_fixations")
    detect = _detect_form(default_on=not add_fix) if kind == "gaze" else None
    rate = _rate_form(up, raw, mapping, token, whole=use_reader) if kind == "gaze" else None
    drop = st.checkbox("Drop rows with an empty cell in a chosen column (they are counted)", value=True,
                       key=f"drop_missing_{kind}")
    st.caption("\\* required. Columns you do not map are ignored (for feature tables: every other column "
               "is a feature).")

    if st.button("Use this data", type="primary"):
        bar = st.progress(0.0, text=f"Reading {md_text(name)} …")
        if use_reader:
            frame = raw
        else:
            frame = up.full_table(usecols(kept, None, mapping, kind) or kept,
                             lambda f: bar.progress(min(f, 1.0) * 0.8, text=f"Reading {md_text(name)} …"))
        bar.progress(0.9, text="Checking …")
        options = io.ReadOptions(kind=kind, geometry=geometry, drop_missing=drop, file_geometry=False,
                                 check_off_screen=check_screen, sampling_rate_hz=rate)
        rec = up.finish(frame, mapping, options, reader=reader_name if use_reader else "generic")
        label = _files_label(name, others)
        if others:
            bar.progress(0.9, text=f"Reading the other {len(others):,} files …")

            def read_one(path: str, blob: bytes) -> io.Recording:
                """One more file, read with the choices made on the first."""
                other = _web_upload(blob, path)
                if use_reader:
                    more, _ = other.converted(reader_name, kept, min_confidence)
                else:
                    more = other.full_table(usecols(kept, None, mapping, kind) or kept)
                return other.finish(more, mapping, options, reader=reader_name if use_reader else "generic")
            rec = combine([rec, *read_alike(others, read_one, io.MAX_ROWS)], [name, *(p for p, _ in others)])
        if any(w.details.get("no_time_recordings") for w in rec.warnings):
            # Found only in the whole file (past the preview): offer the rate on the next run.
            st.session_state[f"yd_no_time_{token[:8]}"] = True
        table = rec.samples
        extra = ""
        if detect is not None:
            bar.progress(0.95, text="Detecting fixations …")
            extra = _derive(rec, label, detect)
        bar.empty()
        _add(kind, label, table, rec.geometry)
        if add_fix:
            fix = up.vendor_fixations(reader_name, kept)
            if fix is not None:
                _add("fixations", f"{label} (fixations)", fix, rec.geometry)
                extra += f" Its {len(fix):,} fixations were added as 'Upload: {md_text(label)} (fixations)'."
        _done(kind, label, table, extra, tuple(rec.reports))


def _many_files(kind: str, files: list[Any]) -> None:
    """Many gaze or fixation files, or zips of them: unpacked under the upload cap before anything is parsed,
    each file one recording; the columns are mapped on the first and every file is read the same way."""
    key = tuple((getattr(f, "file_id", f.name), f.name, f.size) for f in files)
    what = "fixation tables (CSV/TSV/TXT/ASC)" if kind == "fixations" else "gaze recordings (CSV/TSV/TXT/ASC)"
    pairs, skipped = _memo("many_files", (kind, key), lambda: table_files(
        [(f.name, f.getvalue()) for f in files], io.MAX_UNPACKED_BYTES, what))
    for note in skipped:
        st.info(md_text(note))
    shown = ", ".join(n for n, _ in pairs[:12]) + (" …" if len(pairs) > 12 else "")
    st.markdown(f"**{len(pairs):,} recording{'s' * (len(pairs) != 1)}** (each file one recording): "
                f"{md_text(shown)}. The columns are mapped on the first file; every file is read the same way. "
                f"A file without {'an observer' if kind == 'fixations' else 'a participant'} column is one person "
                "named by its file name (by its folder when file names repeat across folders).")
    (name, data), others = pairs[0], pairs[1:]
    token = _memo("token", ("files", key), lambda: state.content_token(data + repr(key).encode()))
    if _memo("format", (token,), _upload(data, name, token).format) == io.pipeline.ASC:
        _asc(kind, data, name, token, others)
    else:
        _table(kind, data, name, token, others)


def _canvas_form(ds: Any) -> None:
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


def _features_form(ds: Any) -> None:
    """Gaze or fixation upload -> its feature windows (window length, step, its screen, the participants'
    labels) added as a feature table, which the Time series and Attacks pages use."""
    key = state.content_token(ds.name.encode())[:8]
    geometry = state.upload_geometry(ds.name) or io.PRESETS["desktop_24"]
    people = st.session_state.get(PARTICIPANTS_KEY)
    st.markdown("**Feature windows** for the Time series and Attacks pages: the fixation, saccade, blink and "
                "pupil features of every window of each recording (one participant on one stimulus or trial).")
    c = st.columns([1, 1, 2])
    window_s = float(c[0].number_input("Window length (s)", 0.5, 600.0, windows.suggested_window_s(ds.frame), 0.5,
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
            table = windows.features_from_table(ds.frame, geometry, window_s, step_s, source=source,
                                                participants=people)
    except io.DataError as err:
        st.error(md_text(err), icon=":material/error:")
        return
    label = f"{ds.name} (feature windows, {window_s:g} s)"
    n_rec, n_people = table.groupby(["participant", "recording"]).ngroups, table["participant"].nunique()
    step = StepReport(Step.WINDOWS, source, what="feature windows")
    short = step.message(f"{len(table):,} window{'s' * (len(table) != 1)} of {window_s:g} s every {step_s:g} s "
                         f"({n_rec:,} recording{'s' * (n_rec != 1)} of {n_people:,} "
                         f"participant{'s' * (n_people != 1)}).")
    if table.attrs.get("recordings_too_short"):
        left = int(table.attrs["recordings_too_short"])
        short += (f" {left:,} recording{'s' * (left != 1)} shorter than one window of {window_s:g} s "
                  f"{'were' if left != 1 else 'was'} left out (a shorter window keeps them).")
    state.add_upload(state.Dataset("features", label, "upload", state.content_token(table), frame=table,
                                   notes=(short, short + f" Screen: {geometry.describe()}" + labels + ".")))
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
        data = up.getvalue()
        try:
            people = _memo("participants", (up.name, len(data), state.content_token(data)),
                           lambda: io.read_participants(data, up.name))
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
                table = windows.add_participants(ds.frame, people, ds.name)
            except io.DataError as err:
                st.error(md_text(err), icon=":material/error:")
                return
            label = f"{ds.name} (+ {', '.join(cols)})"
            state.add_upload(state.Dataset("features", label, "upload", state.content_token(table), frame=table,
                                           notes=(f"{ds.name} with the labels {', '.join(cols)} of "
                                                  f"{people.attrs.get('source', 'the participants table')}.",)))
            st.session_state["upload_done"] = (f"Added as '{md_text(label)}': the Attacks page offers "
                                               f"{md_text(', '.join(cols))}.")
            st.rerun()


def _uploads_panel() -> None:
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
                _canvas_form(ds)
            if kind == "fixations" and "duration_ms" not in frame.columns:
                # Windows are timed by the fixations' durations (the validator derives them from start and end
                # times when both are mapped): without them there is no time to cut windows from.
                st.caption("No feature windows from this table: they are timed by the fixations' durations (or "
                           "their start and end times), which it does not have.")
            elif kind in ("gaze", "fixations"):
                _features_form(ds)


def render() -> None:
    """The page body (run inside the error guard)."""
    st.title("Your data")
    st.markdown(
        "Upload your own recordings or stimuli. Files are parsed **in memory for this session only**: "
        "nothing you upload is written to disk or logged, and it is gone when you close the tab.")
    st.caption("Tobii Studio / Pro Lab exports, EyeLink ASC files and Data Viewer reports, Pupil Labs "
               "exports and GazeBase recordings are recognised; any other CSV/TSV table is mapped by hand. "
               "Gzip files (`.csv.gz`) are fine; EyeLink EDF files must be converted to ASC first (SR "
               "Research's edf2asc). " + _limits_text())
    _show_messages()
    kind = st.radio("What are you uploading?", list(KIND_LABELS), format_func=KIND_LABELS.get,
                    horizontal=True, key="upload_kind")
    types = ["png", "jpg", "jpeg"] if kind == "image" else ["csv", "tsv", "txt", "asc", "gz", "edf"]
    # Stimulus images, gaze recordings and fixation tables come many at once (a dataset has hundreds), or zipped.
    many = kind in ("image", "gaze", "fixations")
    label = {"image": "Files: one or many images, or a zip of them",
             "gaze": "Files: one recording, or many (each file one recording), or a zip of them",
             "fixations": "Files: one table, or many (each file one recording), or a zip of them"}.get(kind, "File")
    upload = st.file_uploader(label, type=[*types, "zip"] if many else types, key=f"uploader_{kind}",
                              accept_multiple_files=many)
    files = list(upload or []) if many else []
    if many:
        upload = files[0] if files else None
    st.caption(_cap_text(kind))
    if upload is None:
        st.caption("Tip: the bundled samples show the expected shape — see the Home page's *Data loaded* "
                   "table.")
        _uploads_panel()
        return
    if kind in ("gaze", "fixations") and (len(files) > 1 or upload.name.lower().endswith(".zip")):
        _many_files(kind, files)
        _uploads_panel()
        return
    data = upload.getvalue()
    if kind == "image":
        if len(files) == 1 and not upload.name.lower().endswith(".zip"):
            _image(data, upload.name)
        else:
            _images(files)
        return
    token = _memo("token", (getattr(upload, "file_id", upload.name), upload.name, len(data)),
                  lambda: state.content_token(data))
    fmt = _memo("format", (token,), _upload(data, upload.name, token).format)
    if fmt == io.pipeline.ASC:
        if kind == "features":
            st.error(f"{md_text(upload.name)}: this is an EyeLink ASC recording; upload it as raw gaze samples or "
                     "fixations.")
            return
        _asc(kind, data, upload.name, token)
    else:
        _table(kind, data, upload.name, token)
    _uploads_panel()


guarded(render, page="your_data")

import ui.share  # noqa: E402 - the share box (settings, exports, script) closes every page

ui.share.page_tools("your_data")
