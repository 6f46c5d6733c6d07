"""The Plan and release page in headless Chromium at 1280 px: a link brings a plan of two heatmaps, the
allocation table and a preview per heatmap show without a horizontal scroll, one click releases the plan and the
downloaded bundle's manifest hashes every file in it."""
from __future__ import annotations

import hashlib
import json
import re
import zipfile
from urllib.parse import urlencode

import pytest

import harness
from eyedp_core.plan import Cap, HeatmapOutput, StudyPlan

pytestmark = pytest.mark.browser

PLAN = StudyPlan("browser study", Cap(4.0), tuple(HeatmapOutput(stimulus=s, width=1280, height=800)
                                                  for s in ("comic", "webpage")))


def test_plan_page_releases_a_bundle_at_1280(page, app_server, shots, tmp_path):
    app_url = app_server[1]
    page.set_viewport_size({"width": 1280, "height": 1000})
    text = json.dumps(PLAN.to_dict(), separators=(",", ":"))
    harness.goto(page, f"{app_url}/plan?{urlencode({'plan_json': text})}")
    page.get_by_text("Each observer is protected with ε = 4").wait_for(timeout=120_000)
    harness.wait_idle(page)
    page.get_by_text(re.compile("PREVIEW heatmap_webpage at")).wait_for(timeout=60_000)  # a preview's caption
    harness.at_least(page.locator('[data-testid="stImage"]'), 2, "a preview per heatmap")
    wide = page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
                         " return m.scrollWidth - m.clientWidth; }")
    assert wide <= 1, f"the page scrolls sideways by {wide} px at 1280 px"
    page.get_by_role("button", name=re.compile("Release the whole plan")).click()
    harness.wait_idle(page)
    button = page.get_by_role("button", name=re.compile("Download the bundle"))
    button.wait_for(timeout=120_000)
    harness.screenshot(page, str(shots / "plan_page_1280.png"), width=1280)
    with page.expect_download(timeout=60_000) as dl:
        button.click()
    path = tmp_path / "bundle.zip"
    dl.value.save_as(str(path))
    with zipfile.ZipFile(path) as z:
        files = {n: z.read(n) for n in z.namelist()}
    manifest = json.loads(files["manifest.json"])
    listed = {f["name"]: f["sha256"] for f in manifest["files"]}
    for o in manifest["outputs"]:
        listed.update({f["name"]: f["sha256"] for f in o["files"]})
    assert set(listed) == set(files) - {"manifest.json"}
    assert all(hashlib.sha256(files[n]).hexdigest() == h for n, h in listed.items())
    assert {"heatmap_comic_eps2.png", "heatmap_webpage_eps2.png", "plan.json", "settings.json",
            "review_board_report.html"} <= set(files)
    assert manifest["total_per_person"]["epsilon"] == pytest.approx(4.0)
