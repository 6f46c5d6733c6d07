"""The JSON manifest that travels with every export: what was released, how, with which guarantee."""
from __future__ import annotations

import datetime as dt
import importlib.metadata
from dataclasses import dataclass
from typing import Any

__all__ = ["ManifestSpec", "manifest"]


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "source tree"


@dataclass(frozen=True, kw_only=True)
class ManifestSpec:
    """What an export did: the artefact, the guarantee with its neighbouring relation and ε per person, the
    calibration (sensitivity, noise scale, lattice step), parameters, files and caveats."""

    artefact: str
    mechanism: str  # the label the reader sees, e.g. "CFPA-32"
    guarantee: str
    unit: str
    epsilon: float
    delta: float
    neighbouring: str
    epsilon_per_person: float | None
    calibration: list[dict[str, Any]] | dict[str, Any]
    parameters: dict[str, Any]
    values_drawn: int
    seconds: float
    files: dict[str, str]
    caveats: list[str] | None = None
    construction: str | None = None


def manifest(spec: ManifestSpec) -> dict[str, Any]:
    """What an export did, as a JSON-ready dict (no data values): the guarantee with its neighbouring relation
    and ε per person, and the calibration (sensitivity, noise scale, lattice step) the noise was drawn at."""
    from eyedp_core.dp.release import SAMPLER  # imported here: OpenDP's prelude costs ~1 s of app start

    return {
        "artefact": spec.artefact,
        "mode": "release",
        "mechanism": spec.mechanism,
        "guarantee": spec.guarantee,
        "unit_of_privacy": spec.unit,
        "neighbouring_relation": spec.neighbouring,
        "epsilon": spec.epsilon,
        "delta": spec.delta,
        "epsilon_per_person": spec.epsilon_per_person,
        "calibration": spec.calibration,
        "parameters": spec.parameters,
        "noise": {"sampler": SAMPLER, "library": "opendp", "opendp_version": _version("opendp"), "seeded": False,
                  "values_drawn": int(spec.values_drawn),
                  "construction": spec.construction or "OpenDP sampler directly"},
        "files": spec.files,
        "caveats": spec.caveats or [],
        "software": {"eyedp": _version("eyedp"), "numpy": _version("numpy")},
        "created_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(float(spec.seconds), 3),
    }
