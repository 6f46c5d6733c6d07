"""AppTest: AOIs uploaded as a file on the Areas of interest page outlive a page switch (the uploader starts empty
on every visit; the file read earlier is kept for the session) until the user forgets it."""
from __future__ import annotations

import os

from tests.apptest import open_app, page_text

os.environ.setdefault("EYEDP_RAISE_ERRORS", "1")
PAGE = "pages/areas_of_interest.py"
CSV = b"name,kind,x0,y0,x1,y1,points\nleft half,rect,0,0,640,800,\nright half,rect,640,0,1280,800,\n"


def test_uploaded_aois_survive_a_page_switch() -> None:
    at = open_app(PAGE)
    at.selectbox(key="aoi_stimulus").set_value("webpage").run()
    at.radio(key="aoi_source").set_value("upload").run()
    at.file_uploader(key="aoi_upload").set_value(("halves.csv", CSV, "text/csv")).run()
    assert not at.exception, at.exception
    assert "| left half |" in page_text(at) and "2 AOIs" in page_text(at)
    at.switch_page("pages/heatmaps.py").run()
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "Define at least one AOI" not in text
    assert "| left half |" in text and "| right half |" in text and "uploaded earlier in this session" in text
    at.button(key="aoi_forget_upload").click().run()
    assert not at.exception, at.exception
    assert "Define at least one AOI" in page_text(at)
