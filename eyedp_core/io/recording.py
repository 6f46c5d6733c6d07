"""Whole recordings in one call: `read_recording(path_or_buffer, format=None, geometry=None)`.

Detects the format from the file's first bytes and header (EyeLink ASC, Tobii, EyeLink Data Viewer reports,
Pupil Labs, GazeBase, else the generic table), reads it with that reader, cleans it (signal loss and vendor
validity codes -> NaN, zero-timestamp padding dropped, low-confidence samples set aside, all counted),
converts positions to pixels with a `Geometry` when they come in other units, and validates it with the
same checks as an upload. Library reads have no size limit unless `max_bytes` is given.

    rec = read_recording("P01.asc")
    samples, fmt = rec                     # tidy samples (participant, t_s, x, y, ...) and the format name
    rec.events, rec.fixations(), rec.counts, rec.warnings, rec.geometry
"""
from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.io.asc import looks_like_asc, parse_asc
from eyedp_core.io.errors import DataError, DataWarning, megabytes
from eyedp_core.io.geometry import PRESETS, UNITS, Geometry
from eyedp_core.io.readers import DEFAULT_MIN_CONFIDENCE, READERS, detect_reader, key, tobii_fixations
from eyedp_core.io.roles import KINDS, UNITS_KEY, guess_mapping
from eyedp_core.io.stream import HEAD_BYTES, STREAM_MIN_BYTES, Source, decode_head, stream_table
from eyedp_core.io.gzipped import too_large
from eyedp_core.io.lines import check_lines
from eyedp_core.io.text import _check_size, decode_text, is_blank, parse_text, unpack
from eyedp_core.io.validate import canonical_table

FORMATS = ("eyelink_asc", *READERS)
# Columns a Tobii reader may use; anything else in a wide export is not parsed (less memory).
_TOBII_KEYS = {
    "participantname", "recordingtimestamp", "recordingtimestampms", "recordingtimestampus",
    "gazepointxmcspx",
    "gazepointymcspx", "gazepointx", "gazepointy", "gazepointxadcspx", "gazepointyadcspx", "gazepointxdacspx",
    "gazepointydacspx", "pupilleft", "pupilright", "pupildiameterleft", "pupildiameterright",
    "pupildiameterleftmm", "pupildiameterrightmm", "validityleft", "validityright", "medianame",
    "presentedstimulusname", "presentedmedianame", "stimulus", "imagefile", "image", "sensor", "event",
    "gazeeventtype", "eyemovementtype", "fixationindex", "eyemovementtypeindex", "gazeeventduration",
    "gazeeventdurationms", "fixationpointxmcspx", "fixationpointymcspx", "fixationpointx", "fixationpointy",
    "mappedfixationx", "mappedfixationy", "mappedfixationxmcspx", "mappedfixationymcspx",
    "fixationpointxadcspx",
    "fixationpointyadcspx", "fixationpointxdacspx", "fixationpointydacspx", "recordingname",
}
PREVIEW_ROWS = 2000
CHUNK_ROWS = 250_000


@dataclass
class Recording:
    """A recording read by read_recording. Iterating gives (samples, format)."""

    samples: pd.DataFrame
    format: str
    kind: str = "gaze"
    events: pd.DataFrame | None = None
    geometry: Geometry | None = None
    screen_px: tuple[int, int] | None = None
    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[DataWarning] = field(default_factory=list)
    source: str = ""

    def __iter__(self):
        """-> samples, then format (so `table, fmt = read_recording(...)` works)."""
        yield self.samples
        yield self.format

    def fixations(self) -> pd.DataFrame | None:
        """-> one row per fixation (observer, stimulus, x, y, duration_ms, t_start_s, t_end_s), or None."""
        if self.kind == "fixations":
            return self.samples
        if self.events is None or self.events.empty or "type" not in self.events.columns:
            return None
        fix = self.events[self.events["type"] == "fixation"]
        fix = fix[np.isfinite(fix["x"].to_numpy(dtype=float)) & np.isfinite(fix["y"].to_numpy(dtype=float))]
        cols = [c for c in ("stimulus", "x", "y", "duration_ms", "t_start_s", "t_end_s") if c in fix.columns]
        out = fix[["participant", *cols]].rename(columns={"participant": "observer"}).reset_index(drop=True)
        if "stimulus" in out.columns and not out["stimulus"].astype("str").str.len().gt(0).any():
            out = out.drop(columns=["stimulus"])
        return out

    def features(self, window_s: float, step_s: float | None = None,
                 participants: pd.DataFrame | None = None) -> pd.DataFrame:
        """Window length and step in s [, participants table (read_participants)] -> the feature table that
        attacks.evaluate and the time-series functions take as it is (participant, recording, window, t_start_s,
        features, the participants' attributes as labels; window length in attrs), on this recording's
        geometry (a 24" 1920 × 1080 screen at 60 cm when it has none)."""
        # The feature windows live above io (they detect events in eyedp_core.gaze): found at call time.
        windows = importlib.import_module("eyedp_core.data.windows")
        return windows.features_from_recording(self, window_s, step_s, participants)

    def summary(self) -> str:
        """-> one line: format, rows, participants, what was dropped or blanked."""
        who = "observer" if self.kind == "fixations" else "participant"
        n_who = self.samples[who].nunique() if who in self.samples.columns else 0
        noun = {"fixations": "fixations", "features": "windows"}.get(self.kind, "samples")
        parts = [f"{self.format}: {len(self.samples):,} {noun}",
                 f"{n_who} {who}{'s' if n_who != 1 else ''}"]
        if self.events is not None and not self.events.empty:
            parts.append(f"{len(self.events):,} events")
        quiet = ("rows_read", "rows_kept", "sample_lines")
        shown = {k: v for k, v in self.counts.items() if k not in quiet and v}
        if shown:
            parts.append(", ".join(f"{k.replace('_', ' ')}: {v:,}" for k, v in shown.items()))
        return "; ".join(parts)


def _bytes_and_name(path_or_buffer: Any, filename: str | None, max_bytes: int | None) -> tuple[bytes, str]:
    """Path, bytes or binary file object -> (its bytes, a file name for messages)."""
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        return bytes(path_or_buffer), filename or "recording"
    if isinstance(path_or_buffer, (str, os.PathLike)):
        name = filename or PurePath(os.fspath(path_or_buffer)).name
        try:
            size = os.path.getsize(path_or_buffer)
            if max_bytes is not None and size > max_bytes:
                real, limit = megabytes(size, max_bytes)
                raise DataError(f"the file is {real}; the limit is {limit}.", file=name,
                                expected=f"at most {max_bytes} bytes")
            with open(path_or_buffer, "rb") as fh:
                return fh.read(), name
        except FileNotFoundError:
            raise DataError("the file does not exist.", file=name, expected="an existing file") from None
        except IsADirectoryError:
            raise DataError("this is a folder, not a file.", file=name, expected="a file") from None
        except PermissionError:
            raise DataError("the file cannot be read (permission denied).", file=name) from None
    read = getattr(path_or_buffer, "read", None)
    if callable(read):
        name = filename or PurePath(str(getattr(path_or_buffer, "name", "recording"))).name
        data = read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray)):
            raise DataError("the file object did not give bytes.", file=name, expected="a binary file")
        return bytes(data), name
    raise DataError("expected a path, bytes or a binary file object.", file=filename, expected="a file")


def _geometry_from_preamble(lines: list[str]) -> Geometry | None:
    """'gaze W H' and 'geometry distance D width W height H' (metres) lines -> Geometry, else None."""
    size = geo = None
    for ln in lines:
        m = re.fullmatch(r"\s*gaze\s+(\d+)\s+(\d+)\s*", ln)
        if m:
            size = int(m.group(1)), int(m.group(2))
        words = ln.split()
        if words[:1] == ["geometry"]:
            vals = dict(zip(words[1::2], words[2::2]))
            try:
                geo = float(vals["distance"]), float(vals["width"]), float(vals["height"])
            except (KeyError, ValueError):
                geo = None
    if size is None or geo is None:
        return None
    try:
        return Geometry(size[0], size[1], geo[1] * 1000, geo[2] * 1000, geo[0] * 1000,
                        "from the file's header")
    except ValueError:
        return None


def columns_needed(header: list[str], reader: str | None, mapping: dict[str, Any],
                   kind: str) -> list[str] | None:
    """Header, reader name (None: no reader), mapping and kind -> the columns a full read must parse
    (None: all of them). Reading only these keeps a wide export's memory down."""
    if kind == "features" and mapping.get("features") is None:
        return None
    mapped = [v for v in mapping.values() if isinstance(v, str) and v in header]
    if reader in (None, "generic"):
        return list(dict.fromkeys(mapped)) or None
    if reader in ("tobii", "tobii_fixations"):
        return list(dict.fromkeys([c for c in header if key(c) in _TOBII_KEYS] + mapped)) or None
    return None


def _usecols(header: list[str], fmt: str, mapping: dict[str, Any] | None) -> list[str] | None:
    """Header, format and an explicit mapping -> the columns worth parsing (None: all)."""
    if mapping is not None:
        cols = [v for k, v in mapping.items() if isinstance(v, str) and v in header]
        extra = mapping.get("features")
        if isinstance(extra, list):
            cols += [c for c in extra if c in header]
        return list(dict.fromkeys(cols)) or None
    if fmt in ("tobii", "tobii_fixations"):
        cols = [c for c in header if key(c) in _TOBII_KEYS]
        return cols or None
    return None


def read_recording(path_or_buffer: Any, format: str | None = None, geometry: Geometry | str | None = None, *,
                   units: str | None = None, mapping: dict[str, Any] | None = None, kind: str | None = None,
                   min_confidence: float = DEFAULT_MIN_CONFIDENCE, participant: str | None = None,
                   eye: str = "mean", drop_missing: bool = True, filename: str | None = None,
                   max_bytes: int | None = None, max_line: int | None = None,
                   progress: Callable[[float], None] | None = None) -> Recording:
    """A recording (path, bytes or binary file; gzip allowed) -> Recording (tidy samples and the format).

    format: one of FORMATS, or None to detect it. geometry: a Geometry or a PRESETS name; needed when the
    positions are not pixels (units 'norm', 'mm', 'deg'; GazeBase brings its own). mapping: your own role ->
    column mapping (for the generic reader); kind: 'gaze' or 'fixations' when the file does not say.
    max_bytes / max_line: limits on the size (as given and unpacked) and on the bytes of one line (None: none).
    Raises DataError for anything that cannot be read, naming file, row and column.
    """
    if isinstance(geometry, str):
        if geometry not in PRESETS:
            raise DataError(f"unknown geometry preset {geometry!r}; choose one of {', '.join(PRESETS)}.",
                            expected="a Geometry or a preset name")
        geometry = PRESETS[geometry]
    if geometry is not None and not isinstance(geometry, Geometry):
        raise DataError("geometry must be an io.Geometry or a preset name.", expected="a Geometry")
    if format is not None and format not in FORMATS:
        raise DataError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}.",
                        expected="a format name")
    if units is not None and units not in UNITS:
        raise DataError(f"units must be one of {', '.join(UNITS)}, got {units!r}.",
                        expected="px, norm, mm or deg")
    if kind is not None and kind not in KINDS:
        raise DataError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}.",
                        expected="gaze, fixations or features")
    streamed = _stream(path_or_buffer, filename, max_bytes, max_line, format, progress)
    if streamed is not None:
        head, parse_full, name = streamed
        return _read_table(head, parse_full, name, format, geometry, units, mapping, kind, min_confidence,
                           drop_missing, participant, progress)
    data, name = _bytes_and_name(path_or_buffer, filename, max_bytes)
    data = unpack(data, name, max_bytes, max_bytes)
    if is_blank(data):
        raise DataError("the file is empty.", file=name, expected="a recording")
    check_lines(data, name, max_line)
    if data.startswith(b"SR_RESEARCH"):
        raise DataError("this is an EyeLink EDF file (binary), which EyeDP does not read: convert it with SR "
                        "Research's edf2asc (samples and events) and read the .asc file.", file=name,
                        expected="an EyeLink ASC text file")
    text = decode_text(data, name)
    del data
    if format == "eyelink_asc" or (format is None and looks_like_asc(text[:65536].lstrip()[:65536])):
        return _read_asc(text, name, geometry, participant, eye, drop_missing, progress)
    head = parse_text(text, name, nrows=PREVIEW_ROWS)

    def parse_full(usecols: list[str] | None, report: Callable[[float], None] | None) -> pd.DataFrame:
        return parse_text(text, name, usecols=usecols, chunk_rows=CHUNK_ROWS, progress=report)

    return _read_table(head, parse_full, name, format, geometry, units, mapping, kind, min_confidence,
                       drop_missing, participant, progress)


def _stream(path_or_buffer: Any, filename: str | None, max_bytes: int | None, max_line: int | None,
            format: str | None, progress: Callable[[float], None] | None) -> tuple[pd.DataFrame, Callable, str] | None:
    """A large table given by path or bytes -> (preview, a function parsing it in chunks from a stream, name);
    None for small files, ASC and EDF recordings and anything the stream reads differently (read in memory)."""
    if format == "eyelink_asc" or not isinstance(path_or_buffer, (str, os.PathLike, bytes, bytearray)):
        return None
    if isinstance(path_or_buffer, (str, os.PathLike)):
        if not os.path.isfile(path_or_buffer):
            return None  # the in-memory path names the problem
        name = filename or PurePath(os.fspath(path_or_buffer)).name
    else:
        name = filename or "recording"
    try:
        source = Source(path_or_buffer, name)
    except OSError:
        return None
    _check_size(source.size, name, max_bytes)
    if source.gzip and max_bytes is not None and source.trailer > max_bytes:
        raise too_large(name, max_bytes, source.size, source.trailer)
    # A gzip file always goes through the head: its packed size says nothing about its unpacked size.
    if source.unpacked_size() < STREAM_MIN_BYTES and not source.gzip:
        return None
    head_bytes = source.head(HEAD_BYTES + 1)
    check_lines(head_bytes, name, max_line)
    if len(head_bytes) <= HEAD_BYTES or head_bytes.startswith(b"SR_RESEARCH"):
        return None
    decoded = decode_head(head_bytes)
    if decoded is None or looks_like_asc(decoded[0][:65536].lstrip()[:65536]):
        return None
    head = parse_text(decoded[0], name, nrows=PREVIEW_ROWS)
    del head_bytes, decoded

    def parse_full(usecols: list[str] | None, report: Callable[[float], None] | None) -> pd.DataFrame:
        table = stream_table(source, max_unpacked=max_bytes, max_line=max_line, usecols=usecols, chunk_rows=CHUNK_ROWS,
                             progress=report)
        if table is None:  # e.g. a byte that is neither UTF-8 nor Windows-1252 far into the file
            data = unpack(source.read_all(), name, max_bytes, max_bytes)
            check_lines(data, name, max_line)
            table = parse_text(decode_text(data, name), name, usecols=usecols, chunk_rows=CHUNK_ROWS,
                               progress=report)
        return table

    return head, parse_full, name


def _read_asc(text: str, name: str, geometry: Geometry | None, participant: str | None, eye: str,
              drop_missing: bool, progress: Callable[[float], None] | None) -> Recording:
    """ASC text -> validated Recording."""
    asc = parse_asc(text, name, participant=participant, eye=eye)
    if progress is not None:
        progress(0.8)
    samples = asc.samples
    has_stim = "stimulus" in samples.columns
    mapping = {"participant": "participant", "t_s": "t_s", "x": "x", "y": "y", "pupil": "pupil",
               "stimulus": "stimulus" if has_stim else None, "time_unit": "s", UNITS_KEY: "px"}
    out = canonical_table(samples, mapping, "gaze", name, drop_missing=drop_missing, geometry=geometry)
    extra = [c for c in ("trial", "event") if c in samples.columns]
    for c in extra:
        out[c] = samples.loc[out.index, c].to_numpy()
    counts = {**asc.counts, **out.attrs["counts"]}
    warnings = asc.warnings + out.attrs["warnings"]
    if progress is not None:
        progress(1.0)
    return Recording(out, "eyelink_asc", "gaze", asc.events, geometry, asc.info.get("display_px"), counts,
                     warnings, name)


def _read_table(head: pd.DataFrame, parse_full: Callable, name: str, format: str | None, geometry: Geometry | None,
                units: str | None, mapping: dict[str, Any] | None, kind: str | None, min_confidence: float,
                drop_missing: bool, participant: str | None,
                progress: Callable[[float], None] | None) -> Recording:
    """Preview of a table and a function parsing it whole -> validated Recording via the detected reader."""
    fmt = format or detect_reader(head, kind)
    reader = READERS[fmt]
    if kind is None:
        kind = reader.kind if fmt != "generic" else _guess_kind(head)
    usecols = _usecols([str(c) for c in head.columns], fmt, mapping)
    raw = parse_full(usecols, (lambda f: progress(0.7 * f)) if progress else None)
    if geometry is None:
        geometry = _geometry_from_preamble(raw.attrs.get("preamble", []))
        if geometry is None and reader.geometry_preset:
            geometry = PRESETS[reader.geometry_preset]
            raw.attrs.setdefault("warnings", []).append(DataWarning(
                f"no geometry was given; the {geometry.name} set-up was used.", file=name))
    if mapping is not None:
        frame, used = raw, dict(mapping)
    elif fmt == "generic":
        frame, used = raw, guess_mapping(raw, kind)
    else:
        frame, used = reader.convert(raw, min_confidence=min_confidence)
    if units is not None:
        used[UNITS_KEY] = units
    if participant is not None:
        who = "observer" if kind == "fixations" else "participant"
        frame = frame.assign(**{"_participant": participant})
        used[who] = "_participant"
    out = canonical_table(frame, used, kind, name, drop_missing=drop_missing, geometry=geometry)
    events = None
    if fmt == "tobii" and kind == "gaze":
        fix = tobii_fixations(raw)
        if fix is not None and not fix.empty:
            events = fix.rename(columns={"observer": "participant"}).assign(type="fixation")
            events = events.reset_index(drop=True)
    warnings = [w for w in frame.attrs.get("warnings", []) if isinstance(w, DataWarning)]
    warnings += out.attrs["warnings"]
    counts = {**frame.attrs.get("counts", {}), **out.attrs["counts"]}
    if progress is not None:
        progress(1.0)
    return Recording(out, fmt, kind, events, geometry, None, counts, warnings, name)


def _guess_kind(head: pd.DataFrame) -> str:
    """Preview of a generic table -> 'fixations' with fixation durations and no timestamps, else 'gaze'."""
    gaze = guess_mapping(head, "gaze")
    fix = guess_mapping(head, "fixations")
    if fix.get("duration_ms") and not re.search(r"time|stamp|^t$|^n$", str(gaze.get("t_s") or ""), re.I):
        return "fixations"
    return "gaze" if gaze.get("t_s") else "fixations"
