"""Your data's upload form: what is uploaded, the messages of the last upload, images, EyeLink ASC files and
tables (preview, reader, mapping, options, then the read on 'Use this data')."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from eyedp_core import io
from eyedp_core.io.steps import StepReport
from ui import state
from ui.tables import preview_frame
from ui.text import md_text
from ui.yourdata import mapping, view
from ui.yourdata.view import Files

KIND_LABELS = {
    "gaze": "Raw gaze samples (CSV/TSV)",
    "fixations": "Fixations (CSV/TSV)",
    "features": "Feature windows (CSV/TSV)",
    "image": "Stimulus image (PNG/JPEG)",
}
MAX_BAD_SHOWN = 5


def show_messages() -> None:
    """Messages left by the previous run (after st.rerun)."""
    if msg := st.session_state.pop("upload_done", None):
        st.success(msg)
    for warning in st.session_state.pop("upload_warnings", []):
        st.warning(md_text(warning))
    if steps := st.session_state.pop("upload_steps", None):
        with st.expander("What each step did"):
            st.markdown("\n".join(f"- {md_text(step)}" for step in steps))


def upload_form() -> bool:
    """The upload kind, the file uploader and the form for what was uploaded; -> whether the page goes on to list
    what the session holds (not after images)."""
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
    st.caption(view.cap_text(kind))
    if upload is None:
        st.caption("Tip: the bundled samples show the expected shape — see the Home page's *Data loaded* "
                   "table.")
        return True
    if kind in ("gaze", "fixations") and (len(files) > 1 or upload.name.lower().endswith(".zip")):
        _many_files(kind, files)
        return True
    data = upload.getvalue()
    if kind == "image":
        if len(files) == 1 and not upload.name.lower().endswith(".zip"):
            _image(data, upload.name)
        else:
            _images(files)
        return False
    token = view.file_token(getattr(upload, "file_id", upload.name), upload.name, data)
    if view.is_asc(data, upload.name, token):
        if kind == "features":
            st.error(f"{md_text(upload.name)}: this is an EyeLink ASC recording; upload it as raw gaze samples or "
                     "fixations.")
            return False
        _asc(kind, data, upload.name, token)
    else:
        _table(kind, data, upload.name, token)
    return True


def _image(data: bytes, name: str) -> None:
    """Stimulus image: decode, show, offer it to the Heatmaps page."""
    img = view.load_image(data, name)
    st.image(img, caption=f"{md_text(name)}: {img.shape[1]} × {img.shape[0]} px")
    if st.button("Use this image", type="primary"):
        view.add_image(name, img)
        st.session_state["upload_done"] = f"{md_text(name)} is now offered as a stimulus on the Heatmaps page."
        st.rerun()


def _images(files: list[Any]) -> None:
    """Many stimulus images, or zips of them: decode each, say which were refused, offer all to the Heatmaps
    page; each is matched to the stimulus of its name whatever its extension."""
    good, bad, skipped = view.images(files)
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
            view.add_image(name, img)
        st.session_state["upload_done"] = f"{len(good):,} images are now offered as stimuli on the Heatmaps page."
        st.rerun()


def _many_files(kind: str, files: list[Any]) -> None:
    """Many gaze or fixation files, or zips of them: unpacked under the upload cap before anything is parsed,
    each file one recording; the columns are mapped on the first and every file is read the same way."""
    pairs, skipped, key = view.table_files_of(kind, files)
    for note in skipped:
        st.info(md_text(note))
    shown = ", ".join(n for n, _ in pairs[:12]) + (" …" if len(pairs) > 12 else "")
    st.markdown(f"**{len(pairs):,} recording{'s' * (len(pairs) != 1)}** (each file one recording): "
                f"{md_text(shown)}. The columns are mapped on the first file; every file is read the same way. "
                f"A file without {'an observer' if kind == 'fixations' else 'a participant'} column is one person "
                "named by its file name (by its folder when file names repeat across folders).")
    (name, data), others = pairs[0], pairs[1:]
    token = view.files_token(key, data)
    if view.is_asc(data, name, token):
        _asc(kind, data, name, token, others)
    else:
        _table(kind, data, name, token, others)


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
    rec = view.asc_recording(data, name, token, others)
    label = view.files_label(name, others)
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
        single = not others  # a script repeats the read of one file
        view.add(kind, label, table, rec.geometry,
                 view.asc_recipe(name, "samples" if kind == "gaze" else "fixations") if single else None)
        extra = ""
        if also:
            view.add("fixations", f"{label} (fixations)", fix, rec.geometry,
                     view.asc_recipe(name, "fixations") if single else None)
            extra = f" Its {len(fix):,} fixations were added as 'Upload: {md_text(label)} (fixations)'."
        _done(kind, label, table, extra, tuple(rec.reports))


@dataclass(frozen=True)
class _Source:
    """A table upload's first rows as the mapping sees them: read by a vendor reader or as given."""

    reader_name: str
    use_reader: bool
    min_confidence: float
    raw: pd.DataFrame
    guess: dict[str, Any]


def _show_preview(up: io.Upload, name: str, token: str) -> pd.DataFrame:
    """Draw the file's first rows (and what reading them noticed); -> them."""
    preview = view.preview(up, token)
    for w in preview.attrs.get("warnings", []):
        st.info(md_text(w))
    shown = f"first {len(preview):,} rows" if len(preview) >= io.pipeline.PREVIEW_ROWS else f"{len(preview):,} rows"
    st.markdown(f"**{md_text(name)}** — {shown}, {preview.shape[1]} columns. First rows:")
    st.dataframe(preview_frame(preview, 8), hide_index=True)
    return preview


def _kept_columns(name: str, all_cols: list[str], leave_key: str) -> list[str]:
    """-> the columns not left out (the "leave out" box is drawn below the mapping; its last value is read here)."""
    left_out = set(st.session_state.get(leave_key, [])) & set(all_cols)
    kept = [c for c in all_cols if c not in left_out]
    if len(kept) < 2:
        st.error(f"{md_text(name)}: keep at least two columns.")
        st.stop()
    return kept


def _source(kind: str, up: io.Upload, name: str, token: str, preview: pd.DataFrame, kept: list[str]) -> _Source:
    """A recognised vendor export is read by its reader (when the user keeps it on), else the preview's columns
    are guessed; -> the rows to map and the guessed mapping."""
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
            raw, guess = view.converted(up, token, reader_name, kept, min_confidence)
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
            guess, notes = view.guessed(up, token, kind, kept)
    for note in notes:
        st.info(md_text(note))
    return _Source(reader_name, use_reader, float(min_confidence), raw, guess)


def _table(kind: str, data: bytes, name: str, token: str, others: Files = ()) -> None:
    """CSV/TSV upload: preview (head only), reader (the whole file converted once) or guessed mapping, options,
    then the map and validate steps on 'Use this data' (for a many-file gaze upload: on every file, with the
    choices made on the first)."""
    up = view.upload(data, name, token)
    preview = _show_preview(up, name, token)
    all_cols = [str(c) for c in preview.columns]
    leave_key = f"leave_out_{kind}_{token[:8]}"
    kept = _kept_columns(name, all_cols, leave_key)
    src = _source(kind, up, name, token, preview, kept)

    st.subheader("Which column is which?")
    roles = mapping.role_form(kind, src.raw, src.guess)
    if kind == "features":
        roles[io.LABELS_KEY] = mapping.label_columns(src.raw, roles, token)
    geometry, check_screen = None, False
    if kind in ("gaze", "fixations"):
        preset = io.READERS[src.reader_name].geometry_preset if src.use_reader else None
        units, y_up, geometry, check_screen = mapping.geometry_form(kind, token[:8], src.guess.get("units", "px"),
                                                                    bool(src.guess.get("y_up")), preset)
        roles["units"], roles["y_up"] = units, y_up
    st.multiselect("Leave these columns out", all_cols, key=leave_key,
                   help="They are not read at all, e.g. a mostly empty column you do not need.")
    add_fix = False
    if kind == "gaze" and src.use_reader and src.reader_name == "tobii" and not others:
        add_fix = st.checkbox("Also add the export's fixations (one row per fixation index) as a "
                              "fixation table", value=True, key="tobii_add_fixations")
    detect = mapping.detect_form(default_on=not add_fix) if kind == "gaze" else None
    rate = mapping.rate_form(up, src.raw, roles, token, whole=src.use_reader) if kind == "gaze" else None
    drop = st.checkbox("Drop rows with an empty cell in a chosen column (they are counted)", value=True,
                       key=f"drop_missing_{kind}")
    st.caption("\\* required. Columns you do not map are ignored (for feature tables: every other column "
               "is a feature).")
    if st.button("Use this data", type="primary"):
        options = io.ReadOptions(kind=kind, geometry=geometry, drop_missing=drop, file_geometry=False,
                                 check_off_screen=check_screen, sampling_rate_hz=rate)
        choice = view.TableRead(kind, src.reader_name, src.use_reader, src.min_confidence, kept, roles, options)
        _use(up, src.raw, choice, name, token, others, detect, add_fix)


def _use(up: io.Upload, raw: pd.DataFrame, choice: view.TableRead, name: str, token: str, others: Files,
         detect: tuple[str, dict[str, float]] | None, add_fix: bool) -> None:
    """'Use this data': read the whole upload with the choices, keep it (and its fixations), then rerun."""
    bar = st.progress(0.0, text=f"Reading {md_text(name)} …")
    rec = view.read_table(up, raw, choice, name, others, lambda f, text: bar.progress(f, text=text))
    label = view.files_label(name, others)
    if any(w.details.get("no_time_recordings") for w in rec.warnings):
        # Found only in the whole file (past the preview): offer the rate on the next run.
        st.session_state[f"yd_no_time_{token[:8]}"] = True
    table = rec.samples
    extra = ""
    if detect is not None:
        bar.progress(0.95, text="Detecting fixations …")
        extra = view.derive_fixations(rec, label, detect)
    bar.empty()
    recipe = view.read_recipe(choice, name) if not others else None  # a script repeats the read of one file
    view.add(choice.kind, label, table, rec.geometry, recipe)
    if add_fix:
        fix = view.vendor_fixations(up, choice.reader_name, choice.kept)
        if fix is not None:
            view.add("fixations", f"{label} (fixations)", fix, rec.geometry,
                     None if recipe is None else {**recipe, "table": "vendor_fixations"})
            extra += f" Its {len(fix):,} fixations were added as 'Upload: {md_text(label)} (fixations)'."
    _done(choice.kind, label, table, extra, tuple(rec.reports))
