"""What a study plan holds and its JSON form: the outputs released from one dataset under one cap per person.

A plan file is JSON: {"study": ..., "cap": {"epsilon": 10[, "delta": 1e-5][, "accountant": "basic"]},
"outputs": [{"kind": "heatmap", "stimulus": ..., "width": 1280, "height": 800, "target": {"hot_spots_kept":
0.5}}, ...]}. Every output may carry "epsilon" (a pin: this ε per person, fixed), "priority" (> 0: its share of
what the pins and the met targets leave, and the order in which targets are met) and "name". Fields an output
does not give take the page's defaults. An unknown field, a wrong kind or a number out of range is a DataError
naming the field (e.g. `outputs[1].target.dwell_s`).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

from eyedp_core.aoi.metrics import AoiMetric
from eyedp_core.aoi.observers import AoiBounds
from eyedp_core.aoi.parse import aois_from_records
from eyedp_core.aoi.shapes import MAX_AOIS, Aoi, ShapeKind
from eyedp_core.dp.accountants import Accountant
from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps.maps import grid_shape
from eyedp_core.io.errors import DataError
from eyedp_core.timeseries.forms import Form

__all__ = ["ALL_STIMULI", "AOI_METRIC_NAMES", "AoiOutput", "Cap", "GazeSamplesOutput", "HeatmapOutput",
           "OutputKind", "PlanOutput", "SeriesFormOutput", "StudyPlan", "Target", "TargetMeasure", "shape_record",
           "slug"]

PLAN_VERSION = 1
ALL_STIMULI = "*"  # a heatmap output for every stimulus of the data (expanded with StudyPlan.expanded)
FILE = "plan"  # how messages name the plan when no file name is known

AOI_METRIC_NAMES = {"hit_ratio": AoiMetric.HIT_RATIO, "fixations": AoiMetric.FIXATIONS, "dwell": AoiMetric.DWELL,
                    "ttff": AoiMetric.TTFF, "revisits": AoiMetric.REVISITS, "transitions": AoiMetric.TRANSITIONS}
_AOI_METRIC_KEYS = {v: k for k, v in AOI_METRIC_NAMES.items()}


class OutputKind(StrEnum):
    """What an output of the plan releases."""

    HEATMAP = "heatmap"  # the private mean heatmap of one stimulus
    AOI = "aoi"  # AOI metrics (per-observer means over the AOIs of one stimulus)
    SERIES_FORM = "series_form"  # a time-series release form (per-recording summaries or group means)
    GAZE_SAMPLES = "gaze_samples"  # gaze-sample export (Kaleido); its ε is pinned or shared, no target


class TargetMeasure(StrEnum):
    """The measure a target is set on, in its users' terms."""

    HOT_SPOTS_KEPT = "hot_spots_kept"  # heatmap: share of the clean top-5 % cells kept, at expectation
    CC = "cc"  # heatmap: correlation with the clean map, at expectation
    DWELL_S = "dwell_s"  # AOI: ± seconds of mean dwell per observer, 95 % half-width
    HIT_RATIO_POINTS = "hit_ratio_points"  # AOI: ± percentage points of hit ratio, 95 % half-width
    FIXATIONS = "fixations"  # AOI: ± fixations per observer, 95 % half-width
    REVISITS = "revisits"  # AOI: ± revisits per observer, 95 % half-width
    DB = "db"  # series form: expected utility in dB (mean over features of 1/NMSE)

    @property
    def higher_is_better(self) -> bool:
        """Whether the target is a floor (met at or above) rather than a ceiling (a half-width)."""
        return self in (TargetMeasure.HOT_SPOTS_KEPT, TargetMeasure.CC, TargetMeasure.DB)

    @property
    def words(self) -> str:
        """Plain words for tables and sentences."""
        return _MEASURE_WORDS[self]


_MEASURE_WORDS = {TargetMeasure.HOT_SPOTS_KEPT: "hot spots kept", TargetMeasure.CC: "CC",
                  TargetMeasure.DWELL_S: "± s of dwell (95 %)", TargetMeasure.HIT_RATIO_POINTS:
                  "± points of hit ratio (95 %)", TargetMeasure.FIXATIONS: "± fixations (95 %)",
                  TargetMeasure.REVISITS: "± revisits (95 %)", TargetMeasure.DB: "dB"}
_KIND_MEASURES = {
    OutputKind.HEATMAP: (TargetMeasure.HOT_SPOTS_KEPT, TargetMeasure.CC),
    OutputKind.AOI: (TargetMeasure.DWELL_S, TargetMeasure.HIT_RATIO_POINTS, TargetMeasure.FIXATIONS,
                     TargetMeasure.REVISITS),
    OutputKind.SERIES_FORM: (TargetMeasure.DB,),
    OutputKind.GAZE_SAMPLES: (),
}
AOI_TARGET_METRIC = {TargetMeasure.DWELL_S: AoiMetric.DWELL, TargetMeasure.HIT_RATIO_POINTS: AoiMetric.HIT_RATIO,
                     TargetMeasure.FIXATIONS: AoiMetric.FIXATIONS, TargetMeasure.REVISITS: AoiMetric.REVISITS}


@dataclass(frozen=True)
class Target:
    """A target in its users' terms: a floor for hot spots, CC and dB, a ceiling for ± half-widths."""

    measure: TargetMeasure
    value: float

    def met_by(self, value: float | None) -> bool:
        """An expected measure in, whether it meets the target out (None: never)."""
        if value is None or not math.isfinite(value):
            return False
        return value >= self.value - 1e-12 if self.measure.higher_is_better else value <= self.value + 1e-12

    def to_dict(self) -> dict[str, float]:
        """-> {"measure": value}."""
        return {self.measure.value: self.value}


@dataclass(frozen=True)
class Cap:
    """The per-person cap the plan is held to, and the accountant that counts against it."""

    epsilon: float
    delta: float = 1e-5
    accountant: Accountant = Accountant.BASIC

    def to_dict(self) -> dict[str, Any]:
        """-> the JSON form."""
        return {"epsilon": self.epsilon, "delta": self.delta, "accountant": self.accountant.value}


@dataclass(frozen=True, kw_only=True)
class PlanOutput:
    """Fields every output has: a target, a pinned ε, a priority and an optional name."""

    target: Target | None = None
    epsilon: float | None = None  # pinned ε per person (None: allocated)
    priority: float = 1.0
    name: str | None = None

    kind = OutputKind.GAZE_SAMPLES  # overridden by each kind

    @property
    def release_delta(self) -> float:
        """δ per person of this output's release (0 for pure-ε mechanisms)."""
        return 0.0

    @property
    def gaussian(self) -> bool:
        """Whether the noise is Gaussian (its release counts as zCDP under that accountant)."""
        return False

    @property
    def label(self) -> str:
        """Short label, also the stem of its files (without ε)."""
        return self.name or self.kind.value

    def unit_words(self) -> str:
        """What 'the people' of this output are (observers or participants)."""
        return "participants"

    def to_dict(self) -> dict[str, Any]:
        """-> the JSON form (defaults included, so a file says everything it fixes)."""
        out: dict[str, Any] = {"kind": self.kind.value}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "target":
                v = None if v is None else v.to_dict()
            elif f.name == "metrics":
                v = [_AOI_METRIC_KEYS[m] for m in v]
            elif f.name == "bounds":
                v = {b.name: getattr(v, b.name) for b in fields(v)}
            elif f.name == "shapes":
                v = [shape_record(a) for a in v]
            elif isinstance(v, tuple):
                v = list(v)
            elif isinstance(v, StrEnum):
                v = v.value
            if v is None and f.name in ("target", "epsilon", "name"):
                continue
            out[f.name] = v
        return out


@dataclass(frozen=True, kw_only=True)
class HeatmapOutput(PlanOutput):
    """The private mean heatmap of one stimulus (stimulus '*': one per stimulus of the data)."""

    stimulus: str
    width: int
    height: int
    cell_px: int = 32
    delta: float = 1e-6
    mechanism: Family = Family.GAUSSIAN
    method: GaussianMethod = GaussianMethod.ANALYTIC
    cap_m: float = 1.0
    cap_total: float | None = 30.0
    sigma_px: float = 0.0
    q: float = 0.05  # the share of cells that are "hot spots"

    kind = OutputKind.HEATMAP

    @property
    def release_delta(self) -> float:
        """δ per person of this heatmap (0 with Laplace noise)."""
        return self.delta if self.gaussian else 0.0

    @property
    def gaussian(self) -> bool:
        """Gaussian noise ((ε, δ)-DP); otherwise Laplace."""
        return self.mechanism is Family.GAUSSIAN

    @property
    def grid_shape(self) -> tuple[int, int]:
        """(rows, cols) of cells on the canvas."""
        return grid_shape(self.width, self.height, self.cell_px)

    @property
    def label(self) -> str:
        """'heatmap_<stimulus>' (or its name)."""
        return self.name or f"heatmap_{slug(self.stimulus)}"

    def unit_words(self) -> str:
        """Heatmaps protect observers."""
        return "observers"


@dataclass(frozen=True, kw_only=True)
class AoiOutput(PlanOutput):
    """AOI metrics of one stimulus: which metrics, over how many AOIs (or which, by name)."""

    stimulus: str | None = None
    aois: tuple[str, ...] = ()
    n_aois: int | None = None
    shapes: tuple[Aoi, ...] = ()  # the AOIs' outlines (public); needed to release them, not to plan them
    metrics: tuple[AoiMetric, ...] = (AoiMetric.HIT_RATIO, AoiMetric.DWELL)
    bounds: AoiBounds = field(default_factory=AoiBounds)

    kind = OutputKind.AOI

    @property
    def k(self) -> int:
        """The number of AOIs (public)."""
        return self.n_aois if self.n_aois is not None else len(self.shapes) or len(self.aois)

    @property
    def label(self) -> str:
        """'aoi_<metrics>[_<stimulus>]' (or its name)."""
        what = "-".join(slug(_AOI_METRIC_KEYS[m]) for m in self.metrics)
        return self.name or f"aoi_{what}" + (f"_{slug(self.stimulus)}" if self.stimulus else "")

    def unit_words(self) -> str:
        """AOI metrics protect observers."""
        return "observers"


@dataclass(frozen=True, kw_only=True)
class SeriesFormOutput(PlanOutput):
    """A time-series release form (Laplace, pure ε per participant)."""

    form: Form = Form.GROUP
    blocks: int = 1
    recordings_per_person: int = 1
    by_task: bool = True
    features: tuple[str, ...] = ()  # released feature columns (empty: every column with public bounds)
    length: int = 600  # public length T (windows) every recording is cut or padded to, as on the Time series page

    kind = OutputKind.SERIES_FORM

    @property
    def label(self) -> str:
        """'series_<form>_<blocks>w' (or its name)."""
        return self.name or f"series_{self.form.value}_{self.blocks}w"


@dataclass(frozen=True, kw_only=True)
class GazeSamplesOutput(PlanOutput):
    """Gaze-sample export (Kaleido, pure ε per participant over their windows); no utility model in the plan.

    The allotted ε is the person-level bound: the ε per window is that ε / (windows of the person with the most ×
    d_max/r). The Kaleido settings default to the Gaze samples page's; the screen (px) defaults to the data's."""

    w: int = 60  # samples per window
    r: float = 50.0  # px radius of a protected move inside one window
    t_skip: int = 12
    l_thresh: float = 60.0
    h: float = 2.0  # 1/h of the window's ε goes to the tests
    min_pub_share: float = 1 / 16  # the smallest publication, as a share of ε − ε/h
    width_px: int | None = None  # the screen the gaze is clamped to (None: the session's or the sample's screen)
    height_px: int | None = None

    kind = OutputKind.GAZE_SAMPLES

    @property
    def label(self) -> str:
        """'gaze_samples' (or its name)."""
        return self.name or "gaze_samples"


_CLASSES = {OutputKind.HEATMAP: HeatmapOutput, OutputKind.AOI: AoiOutput, OutputKind.SERIES_FORM: SeriesFormOutput,
            OutputKind.GAZE_SAMPLES: GazeSamplesOutput}


def shape_record(a: Aoi) -> dict[str, Any]:
    """An AOI in, its record in the plan file out (a rectangle by its corners, a polygon by its points)."""
    if a.kind is ShapeKind.RECTANGLE:
        x0, y0, x1, y1 = a.bounds
        return {"name": a.name, "kind": a.kind.value, "x0": x0, "y0": y0, "x1": x1, "y1": y1}
    return {"name": a.name, "kind": a.kind.value, "points": [list(p) for p in a.vertices]}


def slug(text: str) -> str:
    """Any text in, a file-name-safe stem out ('1001.jpg' -> '1001-jpg')."""
    s = re.sub(r"[^A-Za-z0-9]+", "-", str(text)).strip("-")
    return s or "x"


# --------------------------------------------------------------------------------------------
# reading: every field checked, every problem named by its place in the file


def _fail(where: str, message: str, expected: str | None = None) -> DataError:
    return DataError(f"{where}: {message}", file=FILE, expected=expected)


def _number(v: Any, where: str, *, low: float | None = None, low_open: bool = False, high: float | None = None,
            high_open: bool = False, integer: bool = False) -> float:
    """A JSON value in, a finite number in range out; DataError naming `where` otherwise."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise _fail(where, f"expected a number, found {v!r}")
    x = float(v)
    if not math.isfinite(x):
        raise _fail(where, f"expected a finite number, found {v!r}")
    if integer and not x.is_integer():
        raise _fail(where, f"expected a whole number, found {v!r}")
    if low is not None and (x <= low if low_open else x < low):
        raise _fail(where, f"must be {'>' if low_open else '>='} {low:g}, found {v!r}")
    if high is not None and (x >= high if high_open else x > high):
        raise _fail(where, f"must be {'<' if high_open else '<='} {high:g}, found {v!r}")
    return int(x) if integer else x


def _text(v: Any, where: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise _fail(where, f"expected a non-empty text, found {v!r}")
    return v


def _choice(v: Any, where: str, enum: type[StrEnum], names: Mapping[str, Any] | None = None) -> Any:
    options = names or {e.value: e for e in enum}
    if not isinstance(v, str) or v not in options:
        raise _fail(where, f"unknown value {v!r}", expected="one of " + ", ".join(repr(k) for k in options))
    return options[v]


def _check_keys(d: Any, where: str, allowed: set[str], required: set[str] = frozenset()) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise _fail(where, f"expected an object {{...}}, found {type(d).__name__}")
    for k in d:
        if k not in allowed:
            raise _fail(f"{where}.{k}" if where else k, "unknown field",
                        expected="one of " + ", ".join(sorted(allowed)))
    for k in sorted(required):
        if k not in d:
            raise _fail(f"{where}.{k}" if where else k, "missing field")
    return d


def _target(d: Any, where: str, kind: OutputKind) -> Target | None:
    if d is None:
        return None
    allowed = {m.value for m in _KIND_MEASURES[kind]}
    if not allowed:
        raise _fail(where, f"a {kind.value} output takes no target: the plan has no utility model for it; pin its "
                           "epsilon or give it a priority")
    _check_keys(d, where, allowed)
    if len(d) != 1:
        raise _fail(where, "give exactly one target measure", expected="one of " + ", ".join(sorted(allowed)))
    (key, v), = d.items()
    m = TargetMeasure(key)
    at = f"{where}.{key}"
    if m is TargetMeasure.HOT_SPOTS_KEPT:
        x = _number(v, at, low=0, low_open=True, high=1)
    elif m is TargetMeasure.CC:
        x = _number(v, at, low=-1, low_open=True, high=1, high_open=True)
    elif m is TargetMeasure.DB:
        x = _number(v, at, low=-100, high=100)
    elif m is TargetMeasure.HIT_RATIO_POINTS:
        x = _number(v, at, low=0, low_open=True, high=100)
    else:
        x = _number(v, at, low=0, low_open=True)
    return Target(m, x)


_COMMON = {"kind", "target", "epsilon", "priority", "name"}


def _common(d: dict[str, Any], where: str, kind: OutputKind) -> dict[str, Any]:
    out: dict[str, Any] = {"target": _target(d.get("target"), f"{where}.target", kind)}
    if d.get("epsilon") is not None:
        out["epsilon"] = _number(d["epsilon"], f"{where}.epsilon", low=0, low_open=True)
    if "priority" in d:
        out["priority"] = _number(d["priority"], f"{where}.priority", low=0, low_open=True)
    if d.get("name") is not None:
        out["name"] = _text(d["name"], f"{where}.name")
    return out


def _heatmap(d: dict[str, Any], where: str) -> HeatmapOutput:
    allowed = _COMMON | {"stimulus", "width", "height", "cell_px", "delta", "mechanism", "method", "cap_m",
                         "cap_total", "sigma_px", "q"}
    _check_keys(d, where, allowed, {"stimulus", "width", "height"})
    kw = _common(d, where, OutputKind.HEATMAP)
    kw["stimulus"] = _text(d["stimulus"], f"{where}.stimulus")
    for key in ("width", "height", "cell_px"):
        if key in d:
            kw[key] = _number(d[key], f"{where}.{key}", low=1, high=100_000, integer=True)
    if "delta" in d:
        kw["delta"] = _number(d["delta"], f"{where}.delta", low=0, low_open=True, high=1, high_open=True)
    if "mechanism" in d:
        kw["mechanism"] = _choice(d["mechanism"], f"{where}.mechanism", Family,
                                  {f.value: f for f in (Family.GAUSSIAN, Family.LAPLACE)})
    if "method" in d:
        # Liu et al.'s Thm 3.4 is not valid for every grid; a plan takes the calibrations that always hold.
        kw["method"] = _choice(d["method"], f"{where}.method", GaussianMethod,
                               {m.value: m for m in (GaussianMethod.ANALYTIC, GaussianMethod.CLASSICAL)})
    if "cap_m" in d:
        kw["cap_m"] = _number(d["cap_m"], f"{where}.cap_m", low=0, low_open=True)
    if "cap_total" in d:
        kw["cap_total"] = None if d["cap_total"] is None else _number(d["cap_total"], f"{where}.cap_total",
                                                                       low=kw.get("cap_m", 1.0))
    if "sigma_px" in d:
        kw["sigma_px"] = _number(d["sigma_px"], f"{where}.sigma_px", low=0, high=10_000)
    if "q" in d:
        kw["q"] = _number(d["q"], f"{where}.q", low=0, low_open=True, high=1)
    return HeatmapOutput(**kw)


def _aoi(d: dict[str, Any], where: str) -> AoiOutput:
    allowed = _COMMON | {"stimulus", "aois", "n_aois", "metrics", "bounds", "shapes"}
    _check_keys(d, where, allowed)
    kw = _common(d, where, OutputKind.AOI)
    if d.get("shapes"):
        kw["shapes"] = _shapes(d["shapes"], f"{where}.shapes")
        if d.get("aois") is None:
            kw["aois"] = tuple(a.name for a in kw["shapes"])
    if d.get("stimulus") is not None:
        kw["stimulus"] = _text(d["stimulus"], f"{where}.stimulus")
    if "aois" in d:
        if not isinstance(d["aois"], list):
            raise _fail(f"{where}.aois", f"expected a list of AOI names, found {d['aois']!r}")
        kw["aois"] = tuple(_text(a, f"{where}.aois[{i}]") for i, a in enumerate(d["aois"]))
    if kw.get("shapes") and tuple(a.name for a in kw["shapes"]) != kw.get("aois"):
        raise _fail(f"{where}.aois", "names AOIs other than 'shapes' (give one of them, or the same names in order)")
    if d.get("n_aois") is not None:
        kw["n_aois"] = _number(d["n_aois"], f"{where}.n_aois", low=1, high=10_000, integer=True)
        if kw.get("aois") and kw["n_aois"] != len(kw["aois"]):
            raise _fail(f"{where}.n_aois", f"says {kw['n_aois']} AOIs but 'aois' names {len(kw['aois'])}")
    if not kw.get("aois") and kw.get("n_aois") is None:
        raise _fail(where, "an AOI output needs 'aois' (their names) or 'n_aois' (their number)")
    if "metrics" in d:
        if not isinstance(d["metrics"], list) or not d["metrics"]:
            raise _fail(f"{where}.metrics", "expected a non-empty list of metric names",
                        expected=", ".join(AOI_METRIC_NAMES))
        kw["metrics"] = tuple(dict.fromkeys(_choice(m, f"{where}.metrics[{i}]", AoiMetric, AOI_METRIC_NAMES)
                                            for i, m in enumerate(d["metrics"])))
    if "bounds" in d:
        names = {f.name for f in fields(AoiBounds)}
        _check_keys(d["bounds"], f"{where}.bounds", names)
        b = {k: (None if v is None and k.startswith("max_total") else
                 _number(v, f"{where}.bounds.{k}", low=0, low_open=True)) for k, v in d["bounds"].items()}
        b = {k: int(v) if v is not None and isinstance(getattr(AoiBounds(), k), int) and float(v).is_integer()
             else v for k, v in b.items()}
        kw["bounds"] = AoiBounds(**b)
    out = AoiOutput(**kw)
    if out.target is not None and AOI_TARGET_METRIC[out.target.measure] not in out.metrics:
        raise _fail(f"{where}.target", f"targets {out.target.measure.value} but 'metrics' does not release "
                                       f"{_AOI_METRIC_KEYS[AOI_TARGET_METRIC[out.target.measure]]}")
    return out


def _shapes(v: Any, where: str) -> tuple[Aoi, ...]:
    """The 'shapes' list in (records as in an AOI file), the AOIs out; DataError naming the record."""
    if not isinstance(v, list) or len(v) > MAX_AOIS:
        raise _fail(where, f"expected a list of at most {MAX_AOIS} AOI records")
    out: list[Aoi] = []
    for j, rec in enumerate(v):
        at = f"{where}[{j}]"
        if not isinstance(rec, dict):
            raise _fail(at, "expected an object {\"name\": ..., \"kind\": \"rect\", \"x0\": ...}")
        _check_keys(rec, at, {"name", "kind", "x0", "y0", "x1", "y1", "points"})
        try:
            (a,) = aois_from_records([rec], file=FILE)
        except DataError as err:
            raise _fail(at + (f".{err.column}" if err.column else ""), err.message, err.expected) from None
        if any(b.name == a.name for b in out):
            raise _fail(f"{at}.name", f"the name {a.name!r} is used twice")
        out.append(a)
    return tuple(out)


def _series(d: dict[str, Any], where: str) -> SeriesFormOutput:
    _check_keys(d, where, _COMMON | {"form", "blocks", "recordings_per_person", "by_task", "features", "length"})
    kw = _common(d, where, OutputKind.SERIES_FORM)
    if "form" in d:
        kw["form"] = _choice(d["form"], f"{where}.form", Form)
    for key in ("blocks", "recordings_per_person", "length"):
        if key in d:
            kw[key] = _number(d[key], f"{where}.{key}", low=1, high=100_000, integer=True)
    if d.get("features"):
        if not isinstance(d["features"], list):
            raise _fail(f"{where}.features", f"expected a list of feature column names, found {d['features']!r}")
        kw["features"] = tuple(dict.fromkeys(_text(f, f"{where}.features[{i}]") for i, f in enumerate(d["features"])))
    if kw.get("blocks", 1) > kw.get("length", 600):
        raise _fail(f"{where}.blocks", f"more coarse windows ({kw['blocks']}) than the public length T allows")
    if "by_task" in d:
        if not isinstance(d["by_task"], bool):
            raise _fail(f"{where}.by_task", f"expected true or false, found {d['by_task']!r}")
        kw["by_task"] = d["by_task"]
    return SeriesFormOutput(**kw)


_KALEIDO_LIMITS = {"w": (1, 100_000, True), "r": (0.5, 10_000, False), "t_skip": (0, 100_000, True),
                   "l_thresh": (0, 100_000, False), "h": (1.0, 1_000, False), "min_pub_share": (0, 1, False),
                   "width_px": (1, 100_000, True), "height_px": (1, 100_000, True)}


def _gaze(d: dict[str, Any], where: str) -> GazeSamplesOutput:
    _check_keys(d, where, _COMMON | set(_KALEIDO_LIMITS))
    kw = _common(d, where, OutputKind.GAZE_SAMPLES)
    for key, (low, high, integer) in _KALEIDO_LIMITS.items():
        if d.get(key) is not None:
            kw[key] = _number(d[key], f"{where}.{key}", low=low, low_open=key == "h", high=high, integer=integer)
    if (kw.get("width_px") is None) != (kw.get("height_px") is None):
        raise _fail(where, "give the screen as both 'width_px' and 'height_px', or neither")
    return GazeSamplesOutput(**kw)


_READERS = {OutputKind.HEATMAP: _heatmap, OutputKind.AOI: _aoi, OutputKind.SERIES_FORM: _series,
            OutputKind.GAZE_SAMPLES: _gaze}


def _output(d: Any, where: str) -> PlanOutput:
    if not isinstance(d, dict):
        raise _fail(where, f"expected an object {{...}}, found {type(d).__name__}")
    if "kind" not in d:
        raise _fail(f"{where}.kind", "missing field", expected=", ".join(k.value for k in OutputKind))
    kind = _choice(d["kind"], f"{where}.kind", OutputKind)
    return _READERS[kind](d, where)


@dataclass(frozen=True)
class StudyPlan:
    """The outputs to release from one dataset, under one cap per person."""

    study: str
    cap: Cap
    outputs: tuple[PlanOutput, ...]

    def to_dict(self) -> dict[str, Any]:
        """-> the plan file's JSON form."""
        return {"eyedp_plan": PLAN_VERSION, "study": self.study, "cap": self.cap.to_dict(),
                "outputs": [o.to_dict() for o in self.outputs]}

    def to_json(self) -> str:
        """-> the plan file's text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: Any) -> StudyPlan:
        """A parsed plan file in, the plan out; DataError naming the field for anything unknown or out of range."""
        _check_keys(d, "", {"eyedp_plan", "study", "cap", "outputs"}, {"cap", "outputs"})
        if "eyedp_plan" in d and d["eyedp_plan"] != PLAN_VERSION:
            raise _fail("eyedp_plan", f"unknown plan version {d['eyedp_plan']!r}", expected=str(PLAN_VERSION))
        study = _text(d.get("study", "study"), "study")
        c = _check_keys(d["cap"], "cap", {"epsilon", "delta", "accountant"}, {"epsilon"})
        cap = Cap(_number(c["epsilon"], "cap.epsilon", low=0, low_open=True),
                  _number(c.get("delta", 1e-5), "cap.delta", low=0, high=1, high_open=True),
                  _choice(c.get("accountant", "basic"), "cap.accountant", Accountant))
        if not isinstance(d["outputs"], list) or not d["outputs"]:
            raise _fail("outputs", "expected a non-empty list of outputs")
        outs = tuple(_output(o, f"outputs[{i}]") for i, o in enumerate(d["outputs"]))
        return cls(study, cap, outs)

    @classmethod
    def from_json(cls, text: str) -> StudyPlan:
        """The plan file's text in, the plan out; DataError for text that is not JSON or not a plan."""
        try:
            d = json.loads(text)
        except (json.JSONDecodeError, TypeError) as err:
            line = getattr(err, "lineno", None)
            raise DataError(f"not JSON: {getattr(err, 'msg', err)}", file=FILE, row=line,
                            expected="a JSON object with 'cap' and 'outputs'") from None
        return cls.from_dict(d)

    def expanded(self, stimuli: list[str] | tuple[str, ...]) -> StudyPlan:
        """The stimuli of the data in, the plan with each heatmap output on stimulus '*' replaced by one per
        stimulus (same fields) out."""
        outs: list[PlanOutput] = []
        for o in self.outputs:
            if isinstance(o, HeatmapOutput) and o.stimulus == ALL_STIMULI:
                outs.extend(replace(o, stimulus=s, name=None if o.name is None else f"{o.name}_{slug(s)}")
                            for s in stimuli)
            else:
                outs.append(o)
        return replace(self, outputs=tuple(outs))

    def with_output(self, output: PlanOutput) -> StudyPlan:
        """-> the plan with one more output (a page's settings added with one click)."""
        return replace(self, outputs=(*self.outputs, output))
