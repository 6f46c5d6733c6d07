"""Per-page sharing tools: settings JSON, release-grade exports and the Python script of the view.

Every page ends with one call, `page_tools("<page>")`, so the page files stay the other views' business; a page
that keeps the switch out of its slider fragment calls its three parts (`remember`, `share_toggle`, `share_box`).
"""
from ui.share.tools import OPEN_KEY, page_tools, remember, share_box, share_toggle

__all__ = ["OPEN_KEY", "page_tools", "remember", "share_box", "share_toggle"]
