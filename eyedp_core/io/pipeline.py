"""The upload pipeline: one file from its bytes to validated tables, used by the Your data page and by
`read_recording` alike.

Steps, each recorded as a `StepReport` (rows in and out, what was dropped and why):
detect the format from the first bytes (a gzip file is unpacked only that far), preview the head, convert a
vendor export once (the whole file, read once), map the columns to roles and validate, then derive (fixations
from gaze: `Recording.detect_fixations`; feature windows: `Recording.features`).

    up = Upload(data, "rec.csv.gz", WEB_LIMITS)
    up.format(); up.preview()                     # head only
    frame, mapping = up.converted("tobii")        # the whole file, converted once
    rec = up.finish(frame, mapping, ReadOptions(kind="gaze"))
    up.reports                                    # what each step did
"""
from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

import pandas as pd

from eyedp_core.gaze.geometry import PRESETS, UNITS, Geometry
from eyedp_core.io.asc import looks_like_asc, parse_asc
from eyedp_core.io.errors import DataError, DataWarning, megabytes
from eyedp_core.io.gzipped import inflate, is_gzip, too_large, trailer_size, unpacked_head
from eyedp_core.io.limits import NO_LIMITS, Limits
from eyedp_core.io.lines import check_lines
from eyedp_core.io.person_column import PersonColumn, person_column_of, with_person_column
from eyedp_core.io.reader_base import DEFAULT_MIN_CONFIDENCE, key
from eyedp_core.io.readers import READERS, detect_reader
from eyedp_core.io.recording import FORMATS, Recording
from eyedp_core.io.roles import KINDS, UNITS_KEY, WHOLE_FILE, guess_mapping, guess_notes, stimulus_columns
from eyedp_core.io.sample_clock import timeless, with_rebuilt_clock
from eyedp_core.io.steps import Step, StepReport, counted
from eyedp_core.io.stream import Source, read_source
from eyedp_core.io.table import parse_table
from eyedp_core.io.text import _check_size, decode_text, is_blank, unpack
from eyedp_core.io.validate import canonical_table
from eyedp_core.io.vendor_tobii import tobii_fixations

# The first bytes a format is recognised from (an ASC header, an EDF signature).
PEEK_BYTES = 65536
PREVIEW_ROWS = 5000
# A feature table whose shortest recording is below this fraction of the longest gets a warning.
MIN_LENGTH_RATIO = 0.5
CHUNK_ROWS = 250_000
ASC = "eyelink_asc"
TABLE = "table"
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


@dataclass(frozen=True)
class ReadOptions:
    """How the map and validate steps read a table: its kind ('gaze', 'fixations', 'features'; None: guessed),
    the screen its positions are on, units of x and y (None: from the mapping), rows with an empty chosen cell
    dropped (counted) or refused, one participant name for the whole file, the minimum confidence of a
    Pupil Labs sample and the eye of an EyeLink ASC file."""

    kind: str | None = None
    geometry: Geometry | None = None
    units: str | None = None
    drop_missing: bool = True
    participant: str | None = None
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    eye: str = "mean"
    # Positions further off the screen than io.ON_SCREEN_TOLERANCE are set to missing (counted); positions in
    # other units than px are converted on the screen either way.
    check_off_screen: bool = True
    # Without a geometry, use the screen the file states in its header (or its reader's set-up).
    file_geometry: bool = True
    # The sampling rate (Hz) of gaze recordings whose time column is empty throughout: their time is rebuilt as
    # sample number / rate. None: their rows have no time and are dropped (counted) or refused.
    sampling_rate_hz: float | None = None


def usecols(header: list[str], reader: str | None, mapping: dict[str, Any] | None = None,
            kind: str = "gaze") -> list[str] | None:
    """Header, reader name (None or 'generic': columns mapped by hand) and mapping -> the columns a full read
    must parse (None: all). Reading only these keeps a wide export's memory down."""
    if kind == "features" and (mapping is None or mapping.get("features") is None):
        return None
    cols: list[str] = []
    names = set(header)
    if mapping is not None:
        cols = [v for v in mapping.values() if isinstance(v, str) and v in names]
        extra = mapping.get("features")
        if isinstance(extra, list):
            cols += [c for c in extra if c in names]
    if reader in ("tobii", "tobii_fixations"):
        cols = [c for c in header if key(c) in _TOBII_KEYS] + cols
    elif reader not in (None, "generic"):
        return None
    return list(dict.fromkeys(cols)) or None


def _load(path_or_buffer: Any, filename: str | None, limits: Limits) -> tuple[bytes | None, str | None, str]:
    """Path, bytes or binary file object -> (bytes or None, path or None, a file name for messages)."""
    if isinstance(path_or_buffer, (bytes, bytearray, memoryview)):
        return bytes(path_or_buffer), None, filename or "recording"
    if isinstance(path_or_buffer, (str, os.PathLike)):
        path = os.fspath(path_or_buffer)
        name = filename or PurePath(path).name
        if not os.path.exists(path):
            raise DataError("the file does not exist.", file=name, expected="an existing file")
        if os.path.isdir(path):
            raise DataError("this is a folder, not a file.", file=name, expected="a file")
        if not os.access(path, os.R_OK):
            raise DataError("the file cannot be read (permission denied).", file=name)
        size = os.path.getsize(path)
        if limits.max_bytes is not None and size > limits.max_bytes:
            real, limit = megabytes(size, limits.max_bytes)
            raise DataError(f"the file is {real}; the limit is {limit}.", file=name,
                            expected=f"at most {limits.max_bytes} bytes")
        return None, path, name
    read = getattr(path_or_buffer, "read", None)
    if callable(read):
        name = filename or PurePath(str(getattr(path_or_buffer, "name", "recording"))).name
        data = read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray)):
            raise DataError("the file object did not give bytes.", file=name, expected="a binary file")
        return bytes(data), None, name
    raise DataError("expected a path, bytes or a binary file object.", file=filename, expected="a file")


def head_bytes(data: bytes | bytearray | memoryview, filename: str, n: int = PEEK_BYTES,
               max_unpacked: int | None = None) -> bytes:
    """A file's bytes -> its first n unpacked bytes. A gzip file is unpacked only that far (never to its end); one
    whose trailer states more than max_unpacked is refused here (an understated one is refused by the full
    read, which counts as it unpacks)."""
    if is_gzip(data):
        if max_unpacked is not None and trailer_size(data) > max_unpacked:
            raise too_large(filename, max_unpacked, len(data), trailer_size(data))
        return unpacked_head(data, filename, n)
    return bytes(data[:n])


def format_of(head: bytes, filename: str) -> str:
    """A file's first unpacked bytes -> ASC ('eyelink_asc') or TABLE ('table'); DataError for an EDF file."""
    if head.startswith(b"SR_RESEARCH"):
        raise DataError("this is an EyeLink EDF file (binary), which EyeDP does not read: convert it with SR "
                        "Research's edf2asc (samples and events) and read the .asc file.", file=filename,
                        expected="an EyeLink ASC text file")
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    return ASC if looks_like_asc(text.lstrip()) else TABLE


class Upload:
    """One file through the pipeline. Each step runs at most once per argument (kept on the object); `reports`
    lists what each step did, `convert_calls` counts the vendor conversions (one per file and choice)."""

    def __init__(self, source: Any, filename: str | None = None, limits: Limits = NO_LIMITS) -> None:
        """Path, bytes or binary file object [, a file name for messages, size limits]; DataError when the file
        cannot be opened or is over the size limit. A path is read piece by piece, never held whole."""
        self.limits = limits
        self._data, self._path, self.name = _load(source, filename, limits)
        self.reports: list[StepReport] = []
        self.convert_calls = 0
        self._memo: dict[tuple, Any] = {}
        if self._data is not None:
            _check_size(len(self._data), self.name, limits.max_bytes)

    def _once(self, slot: tuple, compute: Callable[[], Any]) -> Any:
        if slot not in self._memo:
            self._memo[slot] = compute()
        return self._memo[slot]

    def _report(self, report: StepReport) -> None:
        self.reports = [r for r in self.reports if r.step is not report.step] + [report]

    def head(self, n: int = PEEK_BYTES) -> bytes:
        """-> the first n unpacked bytes of the file (a gzip file is unpacked only that far)."""
        if self._data is not None:
            return head_bytes(self._data, self.name, n, self.limits.max_unpacked)
        source = Source(self._path, self.name)
        if source.gzip and self.limits.max_unpacked is not None and source.trailer > self.limits.max_unpacked:
            raise too_large(self.name, self.limits.max_unpacked, source.size, source.trailer)
        return source.head(n)

    def format(self) -> str:
        """Detect step -> ASC or TABLE, from the first PEEK_BYTES only; DataError for an EDF file."""
        def detect() -> str:
            fmt = format_of(self.head(), self.name)
            what = "an EyeLink ASC file" if fmt == ASC else "a table"
            self._report(StepReport(Step.DETECT, self.name, notes=(f"read as {what} from its first bytes",)))
            return fmt
        return self._once(("format",), detect)

    def _count_through(self) -> None:
        """A gzip file read whole under an unpacked-size cap -> unpacked once piece by piece and counted, not kept,
        so that one whose trailer understates its size (a forged bomb) is refused in bounded memory before any
        parser holds its rows. Only the full read pays this; the peek and the preview read the head alone."""
        if self.limits.max_unpacked is None or self._memo.get(("counted",)):
            return
        if self._data is not None:
            if is_gzip(self._data):
                for _ in inflate(self._data, self.name, self.limits.max_unpacked):
                    pass
        else:
            source = Source(self._path, self.name)
            if source.gzip:
                stream, raw = source.open()
                try:
                    total = 0
                    while piece := stream.read(2**20):
                        total += len(piece)
                        if total > self.limits.max_unpacked:
                            raise too_large(self.name, self.limits.max_unpacked, source.size, source.trailer)
                except (OSError, EOFError, zlib.error):
                    raise DataError("the file looks gzip-compressed but is damaged or truncated.", file=self.name,
                                    expected="a complete gzip file") from None
                finally:
                    raw.close()
        self._memo[("counted",)] = True

    def _parse(self, *, cols: list[str] | None = None, nrows: int | None = None,
               progress: Callable[[float], None] | None = None) -> pd.DataFrame:
        """The table, parsed (all rows, or the first nrows) with this upload's limits."""
        lim = self.limits
        if nrows is None:
            self._count_through()
        kw = dict(usecols=cols, nrows=nrows, chunk_rows=None if nrows is not None else CHUNK_ROWS, progress=progress)
        if self._data is not None:
            return parse_table(self._data, self.name, lim, **kw)
        _, table = read_source(self._path, self.name, lim, **kw)
        if table is not None:
            return table
        with open(self._path, "rb") as fh:
            return parse_table(fh.read(), self.name, lim, **kw)

    def preview(self, rows: int = PREVIEW_ROWS) -> pd.DataFrame:
        """Preview step -> the first rows of the table (only the head of the file is read)."""
        def read() -> pd.DataFrame:
            head = self._parse(nrows=rows)
            said = ("no header row: its first line was read as data",) if head.attrs.get("has_header") is False else ()
            self._report(StepReport(Step.PREVIEW, self.name, rows_out=len(head), notes=said))
            return head
        return self._once(("preview", rows), read)

    def reader(self, kind: str | None = None, columns: list[str] | None = None) -> str:
        """-> the name of the reader that recognises the table (of `kind`, if given), else 'generic'."""
        head = self.preview()
        return detect_reader(head if columns is None else head[columns], kind)

    def kind(self) -> str:
        """-> the kind of the table: its reader's, else guessed from the preview's columns."""
        fmt = self.reader()
        return READERS[fmt].kind if fmt != "generic" else guess_kind(self.preview())

    def guess(self, kind: str, kept: list[str] | None = None) -> tuple[dict[str, Any], list[str]]:
        """Guess step for a table mapped by hand (of `kind`, only the columns `kept`; None: all) -> (role -> column
        mapping, notes), as guess_mapping and guess_notes give them for the whole file: the names come from the
        preview, and when the preview is only the file's head, the columns that can name the stimulus are read
        over the whole file before one is chosen (an index that names other images further down is not taken)."""
        def compute() -> tuple[dict[str, Any], list[str]]:
            head = self.preview() if kept is None else self.preview()[kept]
            values, said = None, []
            if len(self.preview()) >= PREVIEW_ROWS and guess_mapping(head, kind).get("stimulus"):
                cols = stimulus_columns(head)
                try:
                    values = self.full_table(cols) if len(cols) > 1 else None
                except DataError as err:
                    # The mapping form must still be drawn (a column can be left out there); the full read on
                    # 'Use this data' names the problem again if it remains.
                    said = [f"The stimulus column was guessed from the first {len(self.preview()):,} rows only: the "
                            f"whole file could not be read ({err})."]
            return guess_mapping(head, kind, values=values), said + guess_notes(head, kind, values=values)
        return self._once(("guess", kind, tuple(kept) if kept is not None else None), compute)

    def full_table(self, cols: list[str] | None = None,
                   progress: Callable[[float], None] | None = None) -> pd.DataFrame:
        """The whole table (only the columns `cols`; None: all), read once per choice of columns."""
        return self._once(("table", tuple(cols) if cols else None),
                          lambda: self._parse(cols=cols, progress=progress))

    def converted(self, reader: str, kept: list[str] | None = None, min_confidence: float = DEFAULT_MIN_CONFIDENCE,
                  progress: Callable[[float], None] | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
        """Convert step -> (the whole file cleaned by the vendor reader, its mapping), converted once per reader,
        columns kept and minimum confidence. `kept`: the columns not left out (None: all)."""
        def convert() -> tuple[pd.DataFrame, dict[str, Any]]:
            cols = self._vendor_cols(reader, kept)
            raw = self.full_table(cols, progress)
            # The raw table is kept only where it is used again: a Tobii export's own fixations, and a Pupil Labs
            # export converted anew at another minimum confidence.
            if reader != "tobii" and not reader.startswith("pupil_labs"):
                self._memo.pop(("table", tuple(cols) if cols else None), None)
            self.convert_calls += 1
            frame, mapping = READERS[reader].convert(raw, min_confidence=min_confidence)
            frame.attrs.setdefault("preamble", raw.attrs.get("preamble", []))
            self._report(StepReport(Step.CONVERT, self.name, len(raw), len(frame),
                                    counted(frame.attrs.get("counts", {}), raw.attrs.get("counts", {})),
                                    notes=(READERS[reader].label,)))
            return frame, mapping
        return self._once(("convert", reader, tuple(kept) if kept is not None else None, float(min_confidence)),
                          convert)

    def vendor_fixations(self, reader: str, kept: list[str] | None = None) -> pd.DataFrame | None:
        """-> the fixations a Tobii sample export lists (one row per fixation index), or None; from the table the
        convert step read (not read again)."""
        if reader != "tobii":
            return None
        fix = tobii_fixations(self.full_table(self._vendor_cols(reader, kept)))
        return None if fix is None or fix.empty else fix

    def _vendor_cols(self, reader: str, kept: list[str] | None) -> list[str] | None:
        """-> the columns the convert step reads for this reader and these kept columns (None: all)."""
        header = kept if kept is not None else [str(c) for c in self.preview().columns]
        cols = usecols(header, reader)
        if cols is None and kept is not None and len(kept) < self.preview().shape[1]:
            cols = list(kept)
        return cols

    def geometry(self, frame: pd.DataFrame, reader: str) -> tuple[Geometry | None, list[DataWarning]]:
        """-> the screen the file states in its header, else its reader's set-up (with a warning), else None."""
        geo = geometry_from_preamble(frame.attrs.get("preamble", []))
        if geo is None and READERS[reader].geometry_preset:
            geo = PRESETS[READERS[reader].geometry_preset]
            return geo, [DataWarning(f"no geometry was given; the {geo.name} set-up was used.", file=self.name)]
        return geo, []

    @staticmethod
    def recordings_without_time(frame: pd.DataFrame, mapping: dict[str, Any]) -> int:
        """A gaze table (or its preview) and its role -> column mapping -> how many of its recordings have no time
        at all (empty or zero in every row): the ones a sampling rate would keep."""
        cols = {role: mapping[role] for role in ("t_s", "participant", "stimulus")
                if isinstance(mapping.get(role), str) and (mapping[role] in frame.columns or mapping[role] == WHOLE_FILE)}
        if "t_s" not in cols or frame.empty:
            return 0
        clock = timeless(frame, cols)
        return 0 if clock is None else clock.recordings

    def finish(self, frame: pd.DataFrame, mapping: dict[str, Any], options: ReadOptions, *, reader: str = "generic",
               events: pd.DataFrame | None = None) -> Recording:
        """Map and validate steps -> Recording (canonical table, counts, warnings, reports)."""
        kind = options.kind or (READERS[reader].kind if reader != "generic" else guess_kind(frame))
        used = dict(mapping)
        if options.units is not None:
            used[UNITS_KEY] = options.units
        if options.participant is not None:
            who = person_column_of(kind).value
            frame = frame.assign(_participant=options.participant)
            used[who] = "_participant"
        geometry, notes = options.geometry, []
        if geometry is None and options.file_geometry:
            geometry, notes = self.geometry(frame, reader)
        # A gaze table without a time column (bare x, y samples) gets its clock from the stated rate.
        frame, used, clock_notes = with_rebuilt_clock(frame, used, kind, options.sampling_rate_hz, self.name)
        notes = notes + clock_notes
        units = used.get(UNITS_KEY) or "px"
        checked = geometry if options.check_off_screen or units != "px" else None
        out = map_and_validate(frame, used, kind, self.name, drop_missing=options.drop_missing, geometry=checked,
                               notes=notes, sampling_rate_hz=options.sampling_rate_hz)
        roles = [f"{role} ← {col}" for role, col in used.items() if isinstance(col, str) and col in frame.columns]
        self._report(StepReport(Step.MAP, self.name, notes=(f"{len(roles)} of {frame.shape[1]} columns mapped: "
                                                            + ", ".join(roles),)))
        self._report(StepReport(Step.VALIDATE, self.name, len(frame), len(out),
                                counted(out.attrs["counts"], frame.attrs.get("counts", {})),
                                notes=tuple(out.attrs.get("notes", ()))))
        counts, warnings = out.attrs["counts"], out.attrs["warnings"]
        return Recording(out, reader, kind, events, geometry, None, counts, warnings, self.name,
                         reports=list(self.reports), mapping=used)

    def recording(self, options: ReadOptions = ReadOptions(), *, format: str | None = None,
                  mapping: dict[str, Any] | None = None,
                  progress: Callable[[float], None] | None = None) -> Recording:
        """Every reading step in order (the library's read_recording) -> Recording."""
        if format == ASC or (format is None and self.format() == ASC):
            return self._asc(options, progress)
        fmt = format or detect_reader(self.preview(), options.kind)
        kind = options.kind or (READERS[fmt].kind if fmt != "generic"
                                else guess_kind(self.preview(), options.sampling_rate_hz is not None))
        part = (lambda f: progress(0.7 * f)) if progress else None
        header = [str(c) for c in self.preview().columns]
        if mapping is not None or fmt == "generic":
            raw = self.full_table(usecols(header, None, mapping, kind) if mapping is not None else None, part)
            used = dict(mapping) if mapping is not None else guess_mapping(raw, kind)
            frame = raw
        else:
            frame, used = self.converted(fmt, None, options.min_confidence, part)
        events = None
        if fmt == "tobii" and kind == "gaze":
            fix = self.vendor_fixations(fmt)
            if fix is not None:
                events = with_person_column(fix, PersonColumn.PARTICIPANT).assign(type="fixation")
                events = events.reset_index(drop=True)
        rec = self.finish(frame, used, ReadOptions(**{**options.__dict__, "kind": kind}), reader=fmt, events=events)
        if progress is not None:
            progress(1.0)
        return rec

    def _asc(self, options: ReadOptions, progress: Callable[[float], None] | None) -> Recording:
        """An EyeLink ASC file, read whole -> validated Recording (samples and its events)."""
        data = self._data
        if data is None:
            with open(self._path, "rb") as fh:
                data = fh.read()
        data = unpack(data, self.name, self.limits.max_unpacked, self.limits.max_unpacked)
        if is_blank(data):
            raise DataError("the file is empty.", file=self.name, expected="a recording")
        check_lines(data, self.name, self.limits.max_line)
        asc = parse_asc(decode_text(data, self.name), self.name, participant=options.participant, eye=options.eye)
        del data
        if progress is not None:
            progress(0.8)
        samples = asc.samples
        mapping = {"participant": "participant", "t_s": "t_s", "x": "x", "y": "y", "pupil": "pupil",
                   "stimulus": "stimulus" if "stimulus" in samples.columns else None, "time_unit": "s",
                   UNITS_KEY: "px"}
        self._report(StepReport(Step.CONVERT, self.name, rows_out=len(samples), dropped=counted(asc.counts),
                                notes=("EyeLink ASC",)))
        self.convert_calls += 1
        out = canonical_table(samples, mapping, "gaze", self.name, drop_missing=options.drop_missing,
                              geometry=options.geometry, sampling_rate_hz=options.sampling_rate_hz)
        for c in [c for c in ("trial", "event") if c in samples.columns]:
            out[c] = samples.loc[out.index, c].to_numpy()
        self._report(StepReport(Step.VALIDATE, self.name, len(samples), len(out), counted(out.attrs["counts"]),
                                notes=tuple(out.attrs.get("notes", ()))))
        counts = {**asc.counts, **out.attrs["counts"]}
        warnings = asc.warnings + out.attrs["warnings"]
        if progress is not None:
            progress(1.0)
        return Recording(out, ASC, "gaze", asc.events, options.geometry, asc.info.get("display_px"), counts,
                         warnings, self.name, reports=list(self.reports))


def map_and_validate(frame: pd.DataFrame, mapping: dict[str, Any], kind: str, filename: str, *,
                     drop_missing: bool = False, geometry: Geometry | None = None,
                     notes: list[DataWarning] | None = None, sampling_rate_hz: float | None = None) -> pd.DataFrame:
    """The map and validate steps: raw or converted table, role -> column mapping, kind, file name -> the
    canonical table (io.apply_mapping), its attrs holding the warnings and counts of the steps before (the
    reader's, the parser's) followed by its own; the frame given is not changed."""
    out = canonical_table(frame, mapping, kind, filename, min_length_ratio=MIN_LENGTH_RATIO,
                          drop_missing=drop_missing, geometry=geometry, sampling_rate_hz=sampling_rate_hz)
    attrs = getattr(frame, "attrs", {}) or {}
    before = [w for w in attrs.get("warnings", []) if isinstance(w, DataWarning)] + list(notes or [])
    counts = {k: v for k, v in attrs.get("counts", {}).items() if isinstance(v, int)}
    counts.update(out.attrs["counts"])
    out.attrs = {**out.attrs, "warnings": before + out.attrs["warnings"], "counts": counts}
    return out


def geometry_from_preamble(lines: list[str]) -> Geometry | None:
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
        return Geometry(size[0], size[1], geo[1] * 1000, geo[2] * 1000, geo[0] * 1000, "from the file's header")
    except ValueError:
        return None


def guess_kind(head: pd.DataFrame, rate_given: bool = False) -> str:
    """Preview of a generic table [, whether a sampling rate was stated] -> 'fixations' with fixation durations
    and no timestamps, else 'gaze' (bare x, y samples are gaze when a rate is stated for them)."""
    gaze = guess_mapping(head, "gaze")
    fix = guess_mapping(head, "fixations")
    if fix.get("duration_ms") and not re.search(r"time|stamp|^t$|^n$", str(gaze.get("t_s") or ""), re.I):
        return "fixations"
    return "gaze" if gaze.get("t_s") or (rate_given and gaze.get("x") and gaze.get("y")) else "fixations"


def read_recording(path_or_buffer: Any, format: str | None = None, geometry: Geometry | str | None = None, *,
                   options: ReadOptions = ReadOptions(), mapping: dict[str, Any] | None = None,
                   filename: str | None = None, limits: Limits = NO_LIMITS,
                   progress: Callable[[float], None] | None = None) -> Recording:
    """A recording (path, bytes or binary file; gzip allowed) -> Recording (tidy samples, the format, and a
    report of every pipeline step): the upload pipeline (Upload.recording) in one call.

    format: one of FORMATS, or None to detect it. geometry: a Geometry or a PRESETS name; needed when the
    positions are not pixels (units 'norm', 'mm', 'deg'; GazeBase brings its own). options: how to read it
    (ReadOptions: kind 'gaze' or 'fixations' when the file does not say, units, minimum confidence, eye, one
    participant name, rows with empty cells dropped or refused, sampling_rate_hz: the rate of recordings whose
    time column is empty throughout, rebuilt as sample number / rate); its geometry or this one, not both.
    mapping: your own role -> column mapping (for the generic reader). limits: size as given and unpacked (the
    unpacked cap is max_bytes unless max_unpacked is set), rows, bytes of one line (Limits(): none).
    Raises DataError for anything that cannot be read, naming file, row and column.
    """
    if isinstance(geometry, str):
        if geometry not in PRESETS:
            raise DataError(f"unknown geometry preset {geometry!r}; choose one of {', '.join(PRESETS)}.",
                            expected="a Geometry or a preset name")
        geometry = PRESETS[geometry]
    if geometry is not None and not isinstance(geometry, Geometry):
        raise DataError("geometry must be an io.Geometry or a preset name.", expected="a Geometry")
    if geometry is not None and options.geometry is not None and geometry != options.geometry:
        raise DataError("two geometries were given (geometry= and options.geometry); give one.",
                        expected="one geometry")
    if format is not None and format not in FORMATS:
        raise DataError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}.",
                        expected="a format name")
    if options.units is not None and options.units not in UNITS:
        raise DataError(f"units must be one of {', '.join(UNITS)}, got {options.units!r}.",
                        expected="px, norm, mm or deg")
    if options.kind is not None and options.kind not in KINDS:
        raise DataError(f"kind must be one of {', '.join(KINDS)}, got {options.kind!r}.",
                        expected="gaze, fixations or features")
    upload = Upload(path_or_buffer, filename, replace(limits, max_unpacked=limits.unpacked()))
    if geometry is not None:
        options = replace(options, geometry=geometry)
    return upload.recording(options, format=format, mapping=mapping, progress=progress)
