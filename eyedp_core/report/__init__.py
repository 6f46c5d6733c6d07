"""The review-board report: every section an ethics board needs, as one self-contained HTML page.

Names load on first use (PEP 562), so `eyedp_core.report.scripts` (the share box's script download, drawn on every
page) imports no pandas at app start."""
from __future__ import annotations

import importlib
from typing import Any

_FROM = {"SECTIONS": "html", "Artefact": "html", "ReportInput": "html", "build_html": "html",
         "epsilon_reading": "html", "person_table": "tables", "releases_table": "tables", "ReleasedAois": "aoi"}
__all__ = list(_FROM)


def __getattr__(name: str) -> Any:
    """A re-exported name -> the object from eyedp_core.report.html .tables or .aoi (imported on first use)."""
    if name in _FROM:
        return getattr(importlib.import_module(f"eyedp_core.report.{_FROM[name]}"), name)
    raise AttributeError(f"module 'eyedp_core.report' has no attribute {name!r}")
