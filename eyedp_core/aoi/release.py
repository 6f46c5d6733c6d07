"""The AOI release: ledger entries, the private table and its JSON manifest (docs/PRIVACY_MODEL.md §15, §11.2).

Noise comes from OpenDP through `ReleaseSource` (values rounded to the lattice, then noised; no seed). Each
query is one ledger entry at its share of ε on the observers of the stimulus; they add up to ε per observer.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np
import pandas as pd

from eyedp_core.aoi.metrics import (
    CONFIDENCE,
    AoiMetric,
    MetricResult,
    QueryNoise,
    check_supported,
    private_metrics,
    query_epsilons,
)
from eyedp_core.aoi.observers import ObserverTable
from eyedp_core.dp.accounting import Release
from eyedp_core.dp.release_source import ReleaseSource

__all__ = ["DRAWN_ON_DATA", "NEIGHBOURS", "VIEW", "AoiRelease", "AoiSource", "ledger_releases", "release_aois",
           "result_table"]

VIEW = "Areas of interest"
NEIGHBOURS = ("replace one observer's fixations on this stimulus (all of them) by any other observer's; "
              "the number of observers n and the AOIs are public")
INTERVALS = ("95 % intervals: sums over n have the exact Laplace half-width b·ln 20 / n (the hit ratio and its "
             "interval then clipped to [0, 1], low and high columns); the mean time to first "
             "fixation (a ratio of noisy sums S/H, clipped to [0, t]; none below one noisy looker) has the exact "
             "interval of the ratio: the ratios r in [0, t] with |S − r·H| within the 95 % quantile of "
             "|b_S·L1 + r·b_H·L2| (low and high columns; empty where no r fits)")


# What the ledger and the manifest say when the AOIs were drawn after looking at these data (docs/PRIVACY_MODEL.md §0.7).
DRAWN_ON_DATA = "AOIs drawn after looking at these data (e.g. their heatmap)"


class AoiSource(str, Enum):
    """Where a release's AOI definitions came from (the page's choice; its values are the page's setting)."""

    BUNDLED = "bundled"
    GRID = "grid"
    UPLOAD = "upload"
    TABLE = "table"

    @property
    def label(self) -> str:
        """The source in words."""
        return _SOURCE_LABELS[self]


_SOURCE_LABELS = {AoiSource.BUNDLED: "bundled (the simulator's regions of this stimulus)",
                  AoiSource.GRID: "a regular grid", AoiSource.UPLOAD: "an uploaded file",
                  AoiSource.TABLE: "a table edited on the page"}


def ledger_releases(table: ObserverTable, metrics: tuple[AoiMetric, ...] | list[AoiMetric], epsilon: float,
                    stimulus: str, *, aois_from_data: bool = False,
                    data_derived: tuple[str, ...] = ()) -> list[Release]:
    """Observer table, chosen metrics, ε per observer, stimulus name, whether the AOIs were drawn by looking at
    these data and any other parameter of theirs read off the data (a canvas sized by the fixations) in, one ledger
    Release per query out (unit observer, the stimulus's observers covered; their ε add up to ε; each parameter
    read off the data recorded as data-derived)."""
    check_supported(table, metrics)
    params = _data_derived(aois_from_data, data_derived)
    return [Release(view=VIEW, label=f"{stimulus}: {q.value} ({table.k} AOIs)", unit="observer",
                    mechanism="laplace (AOI sums)", sensitivity_type="public", epsilon=e,
                    participants=table.observers, tuned_on_private_data=aois_from_data,
                    data_derived_parameters=params)
            for q, e in query_epsilons(metrics, epsilon).items()]


def _data_derived(aois_from_data: bool, data_derived: tuple[str, ...]) -> tuple[str, ...]:
    """Whether the AOIs were drawn on the data and the other parameters read off it in, the flagged list out."""
    return ((DRAWN_ON_DATA,) if aois_from_data else ()) + tuple(data_derived)


def result_table(results: dict[AoiMetric, MetricResult], *, private: bool = True) -> pd.DataFrame:
    """Metric results in, the per-AOI table out: one row per AOI, one column per metric (and its half-width
    when private); transitions are not in it (a matrix of their own)."""
    cols: dict[str, Any] = {}
    names = None
    for m, r in results.items():
        if m is AoiMetric.TRANSITIONS:
            continue
        names = r.names
        cols[f"{m.value} ({m.unit})"] = r.private if private else r.clean
        if private and r.low is not None:  # an interval that is not symmetric: its two ends
            cols[f"{m.value} 95 % low"] = r.low
            cols[f"{m.value} 95 % high"] = r.high
        elif private:
            cols[f"{m.value} ± 95 %"] = r.half_width
        if m is AoiMetric.HIT_RATIO:
            cols["never looked (share of observers)"] = 1.0 - (r.private if private else r.clean)
            if private:
                cols["never looked 95 % low"] = 1.0 - r.upper
                cols["never looked 95 % high"] = 1.0 - r.lower
    return pd.DataFrame(cols, index=pd.Index(list(names or ()), name="AOI"))


@dataclass(frozen=True)
class AoiRelease:
    """What an AOI export hands out: the private table (CSV), the transition matrix and the manifest; and, for the
    curator's full report only (never in an exported file), the same tables computed on the clean data."""

    table: pd.DataFrame
    transitions: pd.DataFrame | None
    manifest: dict[str, Any]
    clean: pd.DataFrame | None = None
    clean_transitions: pd.DataFrame | None = None

    def manifest_json(self) -> str:
        """The manifest as JSON text."""
        return json.dumps(self.manifest, indent=2, default=float)


def release_aois(table: ObserverTable, metrics: tuple[AoiMetric, ...] | list[AoiMetric], epsilon: float,
                 stimulus: str, aoi_definitions: list[dict[str, Any]], *, aois_from_data: bool = False,
                 aoi_source: AoiSource | None = None, data_derived: tuple[str, ...] = ()) -> AoiRelease:
    """Observer table, metrics, ε per observer, stimulus, the AOI definitions, where they came from and their
    parameters read off the data (a canvas sized by the fixations) in, the released private table, transition
    matrix and manifest out; draws through OpenDP (charge the ledger BEFORE calling)."""
    metrics = tuple(AoiMetric(m) for m in metrics)
    source = ReleaseSource()
    results, noise = private_metrics(table, metrics, epsilon, source)
    trans = clean_trans = None
    if AoiMetric.TRANSITIONS in results:
        r = results[AoiMetric.TRANSITIONS]
        trans = pd.DataFrame(r.private, index=pd.Index(list(r.names), name="from"), columns=list(r.names))
        clean_trans = pd.DataFrame(r.clean, index=pd.Index(list(r.names), name="from"), columns=list(r.names))
    manifest = {
        "format": "eyedp-aoi-release/1",
        "view": VIEW,
        "stimulus": stimulus,
        "unit_of_privacy": "observer",
        "neighbouring_relation": NEIGHBOURS,
        "observers": table.n,
        "epsilon_per_observer": float(epsilon),
        "delta": 0.0,
        "composition": "sequential: the queries' ε add up to ε per observer",
        "metrics": [m.value for m in metrics],
        "bounds": {k: v for k, v in vars(table.bounds).items()},
        "aois": aoi_definitions,
        "aoi_source": None if aoi_source is None else AoiSource(aoi_source).value,
        "aois_drawn_on_these_data": aois_from_data,
        "data_derived_parameters": list(_data_derived(aois_from_data, data_derived)),
        "caveats": [f"{what}: read off the private data; the guarantee does not cover what it reveals"
                    for what in _data_derived(aois_from_data, data_derived)],
        "intervals": INTERVALS,
        "confidence": CONFIDENCE,
        "noise": "OpenDP discrete Laplace on a 2^k lattice (values rounded first), cryptographic RNG, no seed",
        "queries": [_query_facts(q) for q in noise.values()],
        "values_drawn": source.values_drawn,
    }
    if AoiMetric.TRANSITIONS in results:  # one half-width for every cell: one scale, divided by the public n
        manifest["transitions_half_width"] = float(results[AoiMetric.TRANSITIONS].half_width.flat[0])
    return AoiRelease(result_table(results), trans, manifest, result_table(results, private=False), clean_trans)


def _query_facts(q: QueryNoise) -> dict[str, Any]:
    """A released query in, its calibration facts for the manifest out."""
    return {"query": q.query.value, "epsilon": q.epsilon, "l1_sensitivity": q.sensitivity,
            "scale_formula": q.calibration.scale, "scale_released": q.scale, "lattice_k": q.lattice_k,
            "values": int(np.size(q.noisy))}
