"""The JSON manifest that travels with every export: what was released, how, with which guarantee."""
from __future__ import annotations

import datetime as dt
import importlib.metadata
from typing import Any


__all__ = ["manifest"]


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "source tree"


def manifest(*, artefact: str, mechanism: str, guarantee: str, unit: str, epsilon: float, delta: float,
             neighbouring: str, epsilon_per_person: float | None, calibration: list[dict[str, Any]] | dict[str, Any],
             parameters: dict[str, Any], values_drawn: int, seconds: float, files: dict[str, str],
             caveats: list[str] | None = None, construction: str | None = None) -> dict[str, Any]:
    """What an export did, as a JSON-ready dict (no data values): the guarantee with its neighbouring relation
    and ε per person, and the calibration (sensitivity, noise scale, lattice step) the noise was drawn at."""
    from eyedp_core.dp.release import SAMPLER  # imported here: OpenDP's prelude costs ~1 s of app start

    return {
        "artefact": artefact,
        "mode": "release",
        "mechanism": mechanism,
        "guarantee": guarantee,
        "unit_of_privacy": unit,
        "neighbouring_relation": neighbouring,
        "epsilon": epsilon,
        "delta": delta,
        "epsilon_per_person": epsilon_per_person,
        "calibration": calibration,
        "parameters": parameters,
        "noise": {"sampler": SAMPLER, "library": "opendp", "opendp_version": _version("opendp"), "seeded": False,
                  "values_drawn": int(values_drawn), "construction": construction or "OpenDP sampler directly"},
        "files": files,
        "caveats": caveats or [],
        "software": {"eyedp": _version("eyedp"), "numpy": _version("numpy")},
        "created_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "seconds": round(float(seconds), 3),
    }
