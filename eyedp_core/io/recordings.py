"""Many raw gaze recordings at once: files, zip archives of them or a folder, each file one recording, read into
one table.

    rec = read_recordings(["P01.csv", "P02.csv"], options=ReadOptions(sampling_rate_hz=500))   # or "session.zip", or a folder
    rec.samples          # every file's samples; participant (and stimulus) name each file's recordings

Each file is read by the upload pipeline as it would be alone. A file without a participant column is one
participant named by its file name (as a single file is); when such names repeat in different folders of an
archive (P01/trial1.csv, P02/trial1.csv) each folder names a participant and each file name a recording
(stimulus). A file whose participants also appear in another file gets its file name as the stimulus, so that
each file stays its own recording; a recording found in two files whatever the naming is refused. The web page
caps the unpacked total before anything is parsed (`table_files`); the library reads any size.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from eyedp_core.gaze.geometry import Geometry
from eyedp_core.io.checks import _file_label
from eyedp_core.io.errors import DataError, DataWarning
from eyedp_core.io.image_files import _hidden, is_zip_name, unpack_files
from eyedp_core.io.person_column import PersonColumn, with_person_column
from eyedp_core.io.recording import Recording
from eyedp_core.io.roles import WHOLE_FILE
from eyedp_core.io.steps import Step, StepReport

__all__ = ["MAX_RECORDING_FILES", "TABLE_SUFFIXES", "combine", "read_recordings", "table_files"]

# What a raw gaze file may be called (gzip allowed); anything else in an archive or folder is skipped, counted.
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".asc", ".dat")
# Per upload: a public dataset has a few hundred recordings (GazeBase: 12,334 in all, by round and task).
MAX_RECORDING_FILES = 2000
_WHAT = "gaze recordings (CSV/TSV/TXT/ASC)"


def is_table_name(name: str) -> bool:
    """A file name -> whether it can hold a gaze recording (.csv, .tsv, .txt, .asc, .dat, each maybe .gz)."""
    stem = name[:-3] if name.lower().endswith(".gz") else name
    return PurePosixPath(stem).suffix.lower() in TABLE_SUFFIXES and not _hidden(name)


def table_files(files: list[tuple[str, bytes]], max_bytes: int | None,
                what: str = _WHAT) -> tuple[list[tuple[str, bytes]], list[str]]:
    """Uploaded (name, bytes) files, recordings or zip archives of them, a cap on the total unpacked from the
    archives and given as files (None: none) [, what they are, for messages] -> ((path, bytes) per recording,
    sentences on what was skipped); DataError for a damaged zip, a cap, or no recording at all. Gzip files are
    counted as given: each is capped when it is read."""
    out, skipped = unpack_files(files, is_table_name, max_bytes, MAX_RECORDING_FILES, what)
    if not out:
        raise DataError(f"no file here is one of the {what}.", file=files[0][0] if files else None,
                        expected="CSV/TSV/TXT/ASC files, gzip-compressed or not, or a zip of them")
    return out, skipped


@dataclass(frozen=True)
class _Named:
    """How one file's recordings are named in the combined table."""

    participant: str | None  # the participant of every row (None: the file's own column, kept)
    stimulus: str | None  # the stimulus of every row (None: the file's own, if any)
    why: str  # the sentence part that says so ('' when nothing changed)


def _whole_file(rec: Recording) -> bool:
    """-> whether the file had no participant column (its name names the one participant)."""
    return not rec.mapping or rec.mapping.get("participant") in (WHOLE_FILE, None)


def _has_stimulus(rec: Recording) -> bool:
    return "stimulus" in rec.samples.columns and rec.samples["stimulus"].astype("str").str.len().gt(0).any()


def _names(recs: list[Recording], paths: list[str]) -> list[_Named]:
    """The recordings of each file and its path -> how each file's rows are named (the module's rules)."""
    stems = [_file_label(p) for p in paths]
    whole = [_whole_file(r) for r in recs]
    folders = [PurePosixPath(p.replace("\\", "/")).parent.name for p in paths]
    named_alone = [s for s, w in zip(stems, whole) if w]
    # File names that repeat in different folders name recordings, and the folders their participants.
    by_folder = len(set(named_alone)) < len(named_alone)
    named: list[_Named] = []
    for rec, stem, folder, w in zip(recs, stems, folders, whole):
        if w and by_folder and folder:
            stim = None if _has_stimulus(rec) else stem
            named.append(_Named(folder, stim, f"participant '{folder}' from its folder"
                                + (f", recording '{stem}' from its file name" if stim else "")))
        elif w:
            named.append(_Named(stem, None, ""))
        else:
            named.append(_Named(None, None, ""))
    people = [set(map(str, r.samples["participant"].unique())) if n.participant is None else {n.participant}
              for r, n in zip(recs, named)]
    any_stimulus = any(_has_stimulus(r) or n.stimulus for r, n in zip(recs, named))
    for i, (rec, n) in enumerate(zip(recs, named)):
        if n.stimulus is not None or _has_stimulus(rec):
            continue
        shared = any(people[i] & people[j] for j in range(len(recs)) if j != i)
        if shared or any_stimulus:
            why = "its participant is in another file too" if shared else "other files name their stimuli"
            named[i] = _Named(n.participant, stems[i], (n.why + ", " if n.why else "")
                              + f"recording '{stems[i]}' from its file name ({why})")
    return named


def _renamed(frame: pd.DataFrame | None, n: _Named) -> pd.DataFrame | None:
    """A file's samples or events and how they are named -> them renamed (a copy), or None for None."""
    if frame is None:
        return None
    out = frame.copy()
    if n.participant is not None and "participant" in out.columns:
        out["participant"] = pd.Series(n.participant, index=out.index, dtype="str")
    if n.stimulus is not None:
        out["stimulus"] = pd.Series(n.stimulus, index=out.index, dtype="str")
    return out


def _check_distinct(frames: list[pd.DataFrame], paths: list[str]) -> None:
    """Each file's renamed samples -> None, or DataError naming a recording found in two files."""
    owner: dict[tuple[str, str], int] = {}
    for i, f in enumerate(frames):
        keys = f[["participant"]].assign(stimulus=f["stimulus"] if "stimulus" in f.columns else "")
        for key in keys.drop_duplicates().itertuples(index=False, name=None):
            k = (str(key[0]), "" if pd.isna(key[1]) else str(key[1]))
            j = owner.setdefault(k, i)
            if j != i:
                what = f"participant '{k[0]}'" + (f", stimulus '{k[1]}'" if k[1] else "")
                raise DataError(f"the same recording ({what}) is in {paths[j]} and in {paths[i]}: each file must "
                                "hold its own recordings. Give the files different names, or a stimulus or "
                                "trial column that tells their recordings apart.", file=paths[i],
                                expected="recordings found in one file only")


def _geometry(recs: list[Recording], paths: list[str]) -> Geometry | None:
    """-> the one screen the files' positions are on (None: none stated); DataError when they state two."""
    stated = [(r.geometry, p) for r, p in zip(recs, paths) if r.geometry is not None]
    for geo, p in stated[1:]:
        if geo != stated[0][0]:
            raise DataError(f"the files state different screens ({stated[0][1]}: {stated[0][0].describe()}; "
                            f"{p}: {geo.describe()}); read them separately or give one screen geometry.",
                            file=p, expected="the same screen as the other files")
    return stated[0][0] if stated else None


def combine(recs: list[Recording], paths: list[str] | None = None) -> Recording:
    """Recordings read from several files [, the files' paths; default: each one's source] -> one Recording:
    the samples of all, each file's recordings named by the module's rules, counts summed, warnings and step
    reports of every file, and a combine step saying how the files were named. One recording is returned as
    it is. Gaze and fixation files (their person is the observer); DataError for feature tables, files of
    different kinds or screens, or a recording in two files."""
    if not recs:
        raise DataError("no recording to combine.", expected="at least one file")
    if len(recs) == 1:
        return recs[0]
    paths = list(paths) if paths is not None else [r.source for r in recs]
    kinds = sorted({r.kind for r in recs})
    if len(kinds) > 1:
        raise DataError(f"the files hold different kinds of data ({', '.join(kinds)}); upload each kind "
                        "separately.", expected="files of one kind")
    if kinds[0] == "features":
        raise DataError("feature tables are not combined file by file: each already names its participants and "
                        "recordings; concatenate them with pandas and read the result.",
                        expected="gaze or fixation files")
    if kinds[0] == "fixations":
        # A fixation table names its person 'observer': the same rules, under the gaze name, and back.
        out = _combine([_renamed_person(r, PersonColumn.PARTICIPANT) for r in recs], paths)
        return _renamed_person(out, PersonColumn.OBSERVER)
    return _combine(recs, paths)


def _combine(recs: list[Recording], paths: list[str]) -> Recording:
    """combine's work on recordings of one kind whose person column is 'participant'."""
    geometry = _geometry(recs, paths)
    named = _names(recs, paths)
    frames = [_renamed(r.samples, n) for r, n in zip(recs, named)]
    _check_distinct(frames, paths)
    samples = pd.concat(frames, ignore_index=True)
    if "stimulus" in samples.columns:
        samples["stimulus"] = samples["stimulus"].fillna("").astype("str")
    events = [_renamed(r.events, n) for r, n in zip(recs, named) if r.events is not None and not r.events.empty]
    counts: dict[str, int] = {}
    for r in recs:
        for k, v in r.counts.items():
            counts[k] = counts.get(k, 0) + int(v)
    formats = list(dict.fromkeys(r.format for r in recs))
    said = [f"{p}: {n.why}" for p, n in zip(paths, named) if n.why]
    notes = [f"{len(recs):,} files read as one table of {samples.groupby(_keys(samples)).ngroups:,} recordings "
             f"of {samples['participant'].nunique():,} participants"]
    warnings = [w for r in recs for w in r.warnings]
    if said:
        shown = "; ".join(said[:5]) + (f"; and {len(said) - 5:,} more" if len(said) > 5 else "")
        notes.append(f"named: {shown}")
        warnings.append(DataWarning(f"each file is one recording; {len(said):,} were named by their path: "
                                    f"{shown}.", details={"named_by_path": len(said)}))
    by_name = sum(1 for r, n in zip(recs, named) if _whole_file(r) and not n.why.startswith("participant"))
    if by_name > 1:
        warnings.append(DataWarning(
            f"{by_name:,} files have no participant column: each is taken as a different participant, named by its "
            "file. If one person recorded several of them, every guarantee per participant holds per file, not "
            "per person: give the files a participant column, or put each person's files in a folder of their "
            "own under the same file names (P01/free.csv, P02/free.csv).", details={"participants_by_file": by_name}))
    reports = [rep for r in recs for rep in r.reports]
    reports.append(StepReport(Step.COMBINE, f"{len(recs):,} files", sum(len(r.samples) for r in recs),
                              len(samples), notes=tuple(notes)))
    return Recording(samples, formats[0] if len(formats) == 1 else " + ".join(formats), recs[0].kind,
                     pd.concat(events, ignore_index=True) if events else None, geometry,
                     next((r.screen_px for r in recs if r.screen_px), None), counts, warnings,
                     f"{len(recs):,} files", reports, {})


def _renamed_person(rec: Recording, to: PersonColumn) -> Recording:
    """A Recording -> the same with its person column (with_person_column) and its mapping's person role named
    `to`."""
    roles = set(PersonColumn) - {to}
    mapping = {(to.value if k in roles else k): v for k, v in rec.mapping.items()}
    return replace(rec, samples=with_person_column(rec.samples, to), mapping=mapping)


def _keys(samples: pd.DataFrame) -> list[str]:
    return ["participant", "stimulus"] if "stimulus" in samples.columns else ["participant"]


def _sources(sources: Any) -> list[tuple[str, Any]]:
    """A folder, a zip, a path, bytes with a name, or a list of these -> (path for names and messages, path or
    bytes to read) per recording, in order (a folder's files sorted by path)."""
    one = isinstance(sources, (str, os.PathLike)) or (isinstance(sources, tuple) and len(sources) == 2
                                                       and isinstance(sources[1], (bytes, bytearray)))
    items = [sources] if one else list(sources)
    out: list[tuple[str, Any]] = []
    for item in items:
        if isinstance(item, tuple):
            name, data = item
            if is_zip_name(str(name)):
                out += table_files([(str(name), bytes(data))], None)[0]
            else:
                out.append((str(name), data))
            continue
        if not isinstance(item, (str, os.PathLike)):
            raise DataError("expected paths, a folder, a zip, or (name, bytes) pairs.",
                            expected="paths or (name, bytes) pairs")
        path = Path(item)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and is_table_name(p.relative_to(path).as_posix()))
            if not found:
                raise DataError(f"the folder holds none of the {_WHAT}.", file=str(path), expected=_WHAT)
            out += [(p.relative_to(path).as_posix(), p) for p in found]
        elif is_zip_name(path.name) and path.is_file():
            out += table_files([(path.name, path.read_bytes())], None)[0]
        else:
            out.append((path.name, path))
    if len(out) > MAX_RECORDING_FILES:
        raise DataError(f"more than {MAX_RECORDING_FILES:,} recordings in one read.",
                        expected=f"at most {MAX_RECORDING_FILES:,} files")
    return out


def read_recordings(sources: Any, *, progress: Callable[[float], None] | None = None,
                    **options: Any) -> Recording:
    """Several gaze recordings -> one Recording: `sources` is a folder, a zip archive, paths, or (name, bytes)
    pairs (zips among them unpacked), each file one recording; `options` are read_recording's keywords (format,
    geometry, options=ReadOptions(...), mapping, limits), used for every file. No size limit unless limits are
    given (per file). Raises DataError naming the file for anything that cannot be read."""
    from eyedp_core.io.pipeline import read_recording

    files = _sources(sources)
    recs = []
    for i, (path, src) in enumerate(files):
        recs.append(read_recording(src, filename=path, **options))
        if progress is not None:
            progress((i + 1) / len(files))
    return combine(recs, [p for p, _ in files])


def read_alike(files: Iterable[tuple[str, bytes]], read_one: Callable[[str, bytes], Recording],
               max_rows: int | None = None) -> list[Recording]:
    """(path, bytes) files and how to read one (the choices made on the first file) -> their Recordings; DataError
    once their rows together pass max_rows (None: no limit)."""
    recs, rows = [], 0
    for path, data in files:
        rec = read_one(path, data)
        rows += len(rec.samples)
        if max_rows is not None and rows > max_rows:
            raise DataError(f"the files hold more than {max_rows:,} rows together; the limit is {max_rows:,}.",
                            file=path, expected=f"at most {max_rows:,} rows in all")
        recs.append(rec)
    return recs
