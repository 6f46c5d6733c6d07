"""The settings of a heatmap release, shared by the Heatmaps page (which downloads them as the job's settings
file) and the batch command line, so that a release chosen in the app runs unchanged at scale."""
from __future__ import annotations

import json
import math
import shlex
from dataclasses import asdict, dataclass, fields
from enum import Enum
from typing import Any

from eyedp_core.dp.registry import Family, GaussianMethod
from eyedp_core.heatmaps.calibration import noise_family
from eyedp_core.heatmaps.maps import grid_shape

__all__ = ["Engine", "HeatmapSettings", "SETTINGS_VERSION"]

SETTINGS_VERSION = 1


def _num(v: float) -> str:
    """A number in, its shortest exact text out (a whole number without '.0')."""
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


class Engine(str, Enum):
    """Where a batch release runs."""

    NUMPY = "numpy"  # embedded: streams shards in bounded memory, capping of eyedp_core.heatmaps, OpenDP noise
    PIPELINEDP = "pipelinedp"  # PipelineDP on its LocalBackend
    SPARK = "spark"  # PipelineDP on Spark's SparkRDDBackend


def _gaussian_method(name: GaussianMethod | str) -> GaussianMethod:
    """A Gaussian method or its name in, the GaussianMethod out (a clear error for unknown names)."""
    try:
        return GaussianMethod(name)
    except ValueError:
        raise ValueError(f"unknown Gaussian method {name!r}; use one of "
                         f"{', '.join(m.value for m in GaussianMethod)}") from None


@dataclass(frozen=True, kw_only=True)
class HeatmapSettings:
    """Everything public that fixes a heatmap release: stimulus and canvas (public), grid, caps, privacy and noise."""

    stimulus: str
    width: int
    height: int
    cell_px: int = 32
    epsilon: float = 1.0
    delta: float = 1e-6
    mechanism: Family = Family.GAUSSIAN
    method: GaussianMethod = GaussianMethod.ANALYTIC
    cap_m: float = 1.0
    cap_total: float | None = 30.0
    sigma_px: float = 0.0  # smoothing of the PNG only (post-processing)
    weight: str = "count"

    def __post_init__(self) -> None:
        # A settings file or command line hands in names: parse them once, refusing unknown ones.
        object.__setattr__(self, "mechanism", noise_family(self.mechanism))
        object.__setattr__(self, "method", _gaussian_method(self.method))
        if self.width < 1 or self.height < 1 or self.cell_px < 1:
            raise ValueError(f"need a positive canvas and cell size, got {self.width}×{self.height}, "
                             f"cell {self.cell_px}")
        if not (math.isfinite(self.epsilon) and self.epsilon > 0):
            raise ValueError(f"ε must be a finite number > 0, got {self.epsilon!r}")
        if self.gaussian and not 0 < self.delta < 1:
            raise ValueError(f"δ must lie strictly between 0 and 1 for Gaussian noise, got {self.delta!r}")
        if not (math.isfinite(self.cap_m) and self.cap_m > 0):
            raise ValueError(f"the per-cell cap m must be > 0, got {self.cap_m!r}")
        if self.cap_total is not None and not self.cap_total >= self.cap_m:
            raise ValueError(f"the total cap C must be >= m = {self.cap_m:g}, got {self.cap_total!r}")
        if self.weight != "count":
            raise ValueError("batch releases count fixations (weight 'count'); dwell-time maps are app-only")

    @property
    def gaussian(self) -> bool:
        """Gaussian noise ((ε, δ)-DP); otherwise Laplace (pure ε-DP)."""
        return self.mechanism is Family.GAUSSIAN

    @property
    def grid_shape(self) -> tuple[int, int]:
        """(rows, cols) of cells on the public canvas."""
        return grid_shape(self.width, self.height, self.cell_px)

    @property
    def n_cells(self) -> int:
        """Number of cells r (the public partitions)."""
        rows, cols = self.grid_shape
        return rows * cols

    @property
    def cells_per_observer(self) -> int:
        """k = ⌊C/m⌋ (at most r): the cells PipelineDP keeps per observer; r without a total cap."""
        if self.cap_total is None:
            return self.n_cells
        return max(1, min(self.n_cells, int(math.floor(self.cap_total / self.cap_m + 1e-9))))

    def to_dict(self) -> dict[str, Any]:
        """Settings in, a JSON-ready dict (with the format version) out."""
        return {"eyedp_settings": "heatmap", "version": SETTINGS_VERSION, **asdict(self)}

    def to_json(self) -> str:
        """Settings in, the settings file's text out."""
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HeatmapSettings":
        """A settings dict (from `to_dict`) in, the settings out; ValueError for unknown keys or a wrong kind."""
        if data.get("eyedp_settings", "heatmap") != "heatmap":
            raise ValueError(f"not heatmap settings: {data.get('eyedp_settings')!r}")
        known = {f.name for f in fields(cls)}
        extra = set(data) - known - {"eyedp_settings", "version"}
        if extra:
            raise ValueError(f"unknown settings: {sorted(extra)}")
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def from_json(cls, text: str) -> "HeatmapSettings":
        """The settings file's text in, the settings out."""
        return cls.from_dict(json.loads(text))

    def command(self, input_glob: str = "fixations/*.parquet", engine: Engine = Engine.NUMPY,
                out: str = "release/") -> str:
        """Input glob, engine and output folder in, the batch command line for these settings out."""
        args = ["python", "-m", "eyedp_core.batch", "heatmap", "--input", input_glob, "--engine", engine.value,
                "--stimulus", self.stimulus, "--epsilon", _num(self.epsilon), "--delta", _num(self.delta),
                "--cell-px", str(self.cell_px), "--cap-m", _num(self.cap_m),
                "--cap-total", "none" if self.cap_total is None else _num(self.cap_total),
                "--width", str(self.width), "--height", str(self.height), "--mechanism", self.mechanism,
                "--method", self.method, "--sigma-px", _num(self.sigma_px), "--out", out]
        return " ".join(shlex.quote(a) for a in args)
