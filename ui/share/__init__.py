"""Per-page sharing tools: settings JSON, release-grade exports and the Python script of the view.

Every page ends with one call, `page_tools("<page>")`, so the page files stay the other views' business.
"""
from ui.share.tools import page_tools

__all__ = ["page_tools"]
