"""Your data's computations: a session memo (memory only) and the upload pipeline's reads, conversions and
derivations, each run once per file and choice."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import pandas as pd
import streamlit as st

from eyedp_core import io
from eyedp_core.io import windows
from eyedp_core.io.image_files import image_files
from eyedp_core.io.pipeline import usecols
from eyedp_core.io.recordings import combine, read_alike, table_files
from eyedp_core.io.steps import Step, StepReport
from ui import state
from ui.text import md_text

PARTICIPANTS_KEY = "yd_participants"  # the participants table of this session (memory only), or absent
Files = Sequence[tuple[str, bytes]]  # (path, bytes) of the other files of a many-file gaze upload


def memo(slot: str, key: tuple, compute: Callable[[], Any]) -> Any:
    """Keep one computed value per slot in this session (memory only), recomputed when the key changes. A
    DataError is kept too, so a refused file (a gzip bomb counted to its cap) costs its work once."""
    store = st.session_state.setdefault("yd_memo", {})
    hit = store.get(slot)
    if hit is not None and hit[0] == key:
        if isinstance(hit[1], io.DataError):
            raise hit[1]
        return hit[1]
    try:
        value = compute()
    except io.DataError as err:
        store[slot] = (key, err.with_traceback(None))  # without its frames, which hold the upload's bytes
        raise
    store[slot] = (key, value)
    return value


def limits_text() -> str:
    """-> the upload limits of this site, as one sentence."""
    mb = io.MAX_UPLOAD_BYTES // 10**6
    return (f"Limits here: {mb} MB per upload ({io.MAX_UPLOAD_BYTES:,} bytes, the server's upload cap, "
            f"`server.maxUploadSize` in `.streamlit/config.toml`), {io.MAX_UNPACKED_BYTES // 10**6:,} MB once a gzip "
            f"file is unpacked, lines of up to {io.MAX_LINE_BYTES // 10**6} MB, {io.MAX_ROWS:,} rows and "
            f"{io.MAX_COLUMNS:,} columns per table, {io.MAX_IMAGE_PIXELS / 1e6:.0f} megapixels and "
            f"{io.MAX_IMAGE_SIDE:,} px per side per image. "
            "Reading a file in Python with `eyedp_core.io.read_recording` has no limit.")


def cap_text(kind: str) -> str:
    """Upload kind -> what happens to a file over the upload cap, for the line under the uploader."""
    mb = io.MAX_UPLOAD_BYTES // 10**6
    text = (f"Files up to {mb} MB ({io.MAX_UPLOAD_BYTES:,} bytes). A larger file is refused by your browser "
            "before anything is sent: the uploader marks it with a red icon and this page reads nothing.")
    if kind == "image":
        return text
    return text + (f" A larger table fits gzip-compressed (`.csv.gz`, up to {io.MAX_UNPACKED_BYTES // 10**6:,} MB "
                   "once unpacked); or leave out columns or participants, or read the file in Python with "
                   "`eyedp_core.io.read_recording`, which has no limit.")


def web_upload(data: bytes, name: str) -> io.Upload:
    """-> a file's upload pipeline under this site's limits."""
    return io.Upload(data, name, io.WEB_LIMITS)


def upload(data: bytes, name: str, token: str) -> io.Upload:
    """-> this file's upload pipeline (kept for the session: each step runs once)."""
    return memo("upload", (token,), lambda: web_upload(data, name))


def file_token(file_id: str, name: str, data: bytes) -> str:
    """One uploaded file -> its content token (computed once per file in this session)."""
    return memo("token", (file_id, name, len(data)), lambda: state.content_token(data))


def files_token(key: tuple, first: bytes) -> str:
    """A many-file upload (its (id, name, size) key and its first file) -> the upload's token."""
    return memo("token", ("files", key), lambda: state.content_token(first + repr(key).encode()))


def is_asc(data: bytes, name: str, token: str) -> bool:
    """-> whether the file is an EyeLink ASC recording (the pipeline's format sniff, once per file)."""
    return memo("format", (token,), upload(data, name, token).format) == io.pipeline.ASC


def files_label(name: str, others: Files) -> str:
    """The first file's name and the other files of the upload -> the name the upload is kept under."""
    return name if not others else f"{len(others) + 1:,} files ({name} …)"


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


def images(files: list[Any]) -> tuple[list[tuple[str, Any]], list[str], list[str]]:
    """Uploaded images or zips -> (decoded (name, image) pairs, refusals, skipped-file sentences), once per set."""
    key = tuple((f.name, f.size) for f in files)
    return memo("images", key, lambda: _decode_all([(f.name, f.getvalue()) for f in files]))


def load_image(data: bytes, name: str) -> Any:
    """One stimulus image's bytes -> its pixels (DataError when it is not a usable PNG or JPEG)."""
    return io.load_image(data, name)


def table_files_of(kind: str, files: list[Any]) -> tuple[list[tuple[str, bytes]], list[str], tuple]:
    """Many gaze or fixation files, or zips of them -> ((path, bytes) of each table, skipped-file sentences, the
    upload's key), unpacked under the upload cap before anything is parsed."""
    key = tuple((getattr(f, "file_id", f.name), f.name, f.size) for f in files)
    what = "fixation tables (CSV/TSV/TXT/ASC)" if kind == "fixations" else "gaze recordings (CSV/TSV/TXT/ASC)"
    pairs, skipped = memo("many_files", (kind, key), lambda: table_files(
        [(f.name, f.getvalue()) for f in files], io.MAX_UNPACKED_BYTES, what))
    return pairs, skipped, key


def asc_recording(data: bytes, name: str, token: str, others: Files = ()) -> io.Recording:
    """EyeLink ASC upload (and the other files of a many-file gaze upload) -> one recording, read once."""
    up = upload(data, name, token)
    options = io.ReadOptions(kind="gaze")
    return memo("asc", (token,), lambda: combine(
        [up.recording(options), *read_alike(others, lambda p, d: web_upload(d, p).recording(options), io.MAX_ROWS)],
        [name, *(p for p, _ in others)]))


def preview(up: io.Upload, token: str) -> pd.DataFrame:
    """-> the file's first rows (read once)."""
    return memo("preview", (token,), up.preview)


def converted(up: io.Upload, token: str, reader_name: str, kept: list[str],
              min_confidence: float) -> tuple[pd.DataFrame, dict[str, Any]]:
    """-> the whole file converted by a vendor reader, and its guessed mapping (once per choice)."""
    return memo("convert", (token, reader_name, tuple(kept), float(min_confidence)),
                lambda: up.converted(reader_name, kept, min_confidence))


def guessed(up: io.Upload, token: str, kind: str, kept: list[str]) -> tuple[dict[str, Any], list[str]]:
    """-> the guessed mapping of a generic table (stimulus chosen over the whole file) and notes about it."""
    return memo("guess", (token, kind, tuple(kept)), lambda: up.guess(kind, kept))


@dataclass(frozen=True)
class TableRead:
    """How the user chose to read a table upload: reader, columns, mapping and the read options."""

    kind: str
    reader_name: str
    use_reader: bool
    min_confidence: float
    kept: list[str]
    mapping: dict[str, Any]
    options: io.ReadOptions


def read_recipe(choice: TableRead, name: str) -> dict[str, Any]:
    """The user's choices for one table upload -> how a script repeats the page's read: the file, the reader the
    page used ('generic': mapped by hand), the columns kept, the mapping and the read options (plain values;
    eyedp_core.report.scripts writes the code)."""
    opts = choice.options
    return {"file": name, "reader": choice.reader_name if choice.use_reader else "generic", "kind": choice.kind,
            "kept": list(choice.kept), "min_confidence": float(choice.min_confidence), "mapping": dict(choice.mapping),
            "options": {f.name: getattr(opts, f.name) for f in fields(opts) if f.name != "geometry"},
            "geometry": None if opts.geometry is None else asdict(opts.geometry)}


def asc_recipe(name: str, table: str) -> dict[str, Any]:
    """An EyeLink ASC upload and the table kept of it ('samples' or 'fixations') -> how a script repeats the read."""
    return {"file": name, "reader": io.pipeline.ASC, "table": table}


def read_table(up: io.Upload, raw: pd.DataFrame, choice: TableRead, name: str, others: Files,
               progress: Callable[[float, str], None]) -> io.Recording:
    """A table upload and the user's choices -> the recording (map and validate steps on the whole file; for a
    many-file upload on every file, with the choices made on the first)."""
    reader = choice.reader_name if choice.use_reader else "generic"
    if choice.use_reader:
        frame = raw
    else:
        frame = up.full_table(usecols(choice.kept, None, choice.mapping, choice.kind) or choice.kept,
                              lambda f: progress(min(f, 1.0) * 0.8, f"Reading {md_text(name)} …"))
    progress(0.9, "Checking …")
    rec = up.finish(frame, choice.mapping, choice.options, reader=reader)
    if not others:
        return rec
    progress(0.9, f"Reading the other {len(others):,} files …")

    def read_one(path: str, blob: bytes) -> io.Recording:
        """One more file, read with the choices made on the first."""
        other = web_upload(blob, path)
        if choice.use_reader:
            more, _ = other.converted(choice.reader_name, choice.kept, choice.min_confidence)
        else:
            more = other.full_table(usecols(choice.kept, None, choice.mapping, choice.kind) or choice.kept)
        return other.finish(more, choice.mapping, choice.options, reader=reader)
    return combine([rec, *read_alike(others, read_one, io.MAX_ROWS)], [name, *(p for p, _ in others)])


def add(kind: str, name: str, table: pd.DataFrame, geometry: Any = None, read: dict[str, Any] | None = None) -> str:
    """Keep a canonical table as an uploaded dataset of `kind` (with the screen its positions are on and how it was
    read: read_recipe); -> its name in the sidebar."""
    label = f"Upload: {name}"
    state.add_upload(state.Dataset(kind, label, "upload", state.content_token(table), frame=table, read=read))
    if kind in ("gaze", "fixations"):
        state.set_upload_geometry(label, geometry)
    return label


def add_image(name: str, img: Any) -> None:
    """Keep a decoded stimulus image as an upload the Heatmaps page offers."""
    state.add_upload(state.Dataset("image", name, "upload", state.content_token(img), image=img))


def derive_fixations(rec: io.Recording, label_of: str, detect: tuple[str, dict[str, float]]) -> str:
    """Gaze recording -> its detected fixations (the pipeline's derive step) added as a fixation upload; -> a
    sentence for the message, naming the source file and the step."""
    method, thresholds = detect
    fix, how = rec.detect_fixations(method, **thresholds)
    step = how.report()
    if fix.empty:
        return " " + md_text(step.message("no fixations were detected."))
    label = f"Upload: {label_of} (fixations, {method.upper()})"
    short = step.message(f"{how.fixations:,} fixations from {how.samples:,} samples.") + (
        f" {how.fitted}" if how.fitted else "")
    state.add_upload(state.Dataset("fixations", label, "upload", state.content_token(fix), frame=fix,
                                   notes=(short, how.describe())))
    state.set_upload_geometry(label, rec.geometry)
    return f" {md_text(short)} Added as '{md_text(label)}'."


def vendor_fixations(up: io.Upload, reader_name: str, kept: list[str]) -> pd.DataFrame | None:
    """-> the fixations a vendor export lists (one row per fixation index), or None."""
    return up.vendor_fixations(reader_name, kept)


def suggested_window_s(frame: pd.DataFrame) -> float:
    """Gaze or fixation table -> the window length the form starts at."""
    return windows.suggested_window_s(frame)


def feature_windows(ds: Any, geometry: io.Geometry, window_s: float, step_s: float,
                    people: pd.DataFrame | None, labels: str) -> tuple[str, str]:
    """Gaze or fixation upload -> its feature windows added as a feature upload; -> (its label, the sentence saying
    what was made). DataError when no window can be made."""
    source = ds.name.removeprefix("Upload: ")
    table = windows.features_from_table(ds.frame, geometry, window_s, step_s, source=source, participants=people)
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
    return label, short


def participants(name: str, data: bytes) -> pd.DataFrame:
    """A participants table upload -> the table (participant + labels), read once per file."""
    return memo("participants", (name, len(data), state.content_token(data)),
                lambda: io.read_participants(data, name))


def add_labels(ds: Any, people: pd.DataFrame, cols: list[str]) -> str:
    """A feature upload and the participants table -> a copy with their labels added as an upload; -> its label."""
    table = windows.add_participants(ds.frame, people, ds.name)
    label = f"{ds.name} (+ {', '.join(cols)})"
    state.add_upload(state.Dataset("features", label, "upload", state.content_token(table), frame=table,
                                   notes=(f"{ds.name} with the labels {', '.join(cols)} of "
                                          f"{people.attrs.get('source', 'the participants table')}.",)))
    return label
