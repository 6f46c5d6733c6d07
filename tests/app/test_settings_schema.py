"""Every prefixed widget a page draws at its defaults is in ui/share/schema.json, so it travels in the URL.
When this fails after adding a widget: run `python -m ui.share.build_schema` and commit the schema."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.apptest import ROOT
from ui import settings
from ui.share.build_schema import PAGES, _collect


def test_every_page_widget_is_in_the_settings_schema() -> None:
    known = set(settings.schema().keys())
    found: dict = {}
    unset: set = set()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    at.run()
    for page in PAGES:
        at.switch_page(page).run()
        assert not at.exception, at.exception
        _collect(at, found, {}, unset)
    drawn = {k for k in found.keys() | unset if k.startswith(settings.ALL_PREFIXES)}
    assert len(drawn) > 40
    missing = sorted(drawn - known)
    assert not missing, f"not in ui/share/schema.json (run python -m ui.share.build_schema): {missing}"
