"""The Areas of interest pictures draw any AOI name: names Pillow's text layout cannot shape (line breaks, control
characters, lone surrogates) are drawn with '?' in their place instead of raising raqm's RuntimeError."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from eyedp_core.aoi.metrics import AoiMetric, MetricResult
from eyedp_core.aoi.shapes import rectangle
from ui import picture
from ui.aoi.figs import aoi_picture, bar_picture, label, matrix_picture

CANVAS = np.full((200, 300, 3), 238, dtype=np.uint8)
# Names seen to fail in Pillow's raqm layout ("raqm_layout() failed") before they were cleaned.
HOSTILE = ["x\t\ny", "a\rb", "\ud813\udfb3\x1d", "\udb19\x1e\ud86b\U0005f9f2", "\u244e\U000b400c\u0332\u1a5b\r"]


def _raqm_fails(text: str) -> bool:
    """Whether Pillow's own text drawing raises on this text (so the test shows the case is a real one)."""
    d = ImageDraw.Draw(Image.new("RGB", (50, 50)))
    try:
        d.text((0, 0), text, font=picture.font(12))
    except (RuntimeError, SystemError):
        return True
    return False


def _pictures(names: list[str]) -> list[Image.Image]:
    """The three AOI pictures for AOIs with these names."""
    aois = tuple(rectangle(n, 10 * i, 10, 10 * i + 40, 60) for i, n in enumerate(names))
    k = len(names)
    res = MetricResult(AoiMetric.DWELL, tuple(names), np.ones(k), np.ones(k), np.full(k, 0.2))
    return [aoi_picture(CANVAS, aois), bar_picture(res, "s"), matrix_picture(np.ones((k + 1, k + 1)),
                                                                              (*names, "elsewhere"))]


@pytest.mark.skipif(not _raqm_fails("a\rb"), reason="this Pillow build lays out control characters")
def test_names_that_break_pillow_are_drawn() -> None:
    """Each name that makes Pillow raise is drawn in all three pictures (each the expected size)."""
    assert sum(_raqm_fails(n) for n in HOSTILE) >= 3
    pics = _pictures(HOSTILE)
    assert pics[0].size == (300, 200) and pics[1].width == 1100 and pics[2].size[0] > 150


def test_label_keeps_drawable_names_and_marks_the_rest() -> None:
    """Ordinary names (accents, CJK, emoji) pass unchanged; breaks and controls become '?'; never empty."""
    assert label("Gesicht é 顔 😀", 28) == "Gesicht é 顔 😀"
    assert label("a\rb\x00c", 28) == "a?b?c"
    assert label("x" * 40, 28) == "x" * 28
    assert label("   ", 28) == "?"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.text(min_size=1, max_size=24).filter(lambda s: s.strip() and s.strip() != "elsewhere"),
                      min_size=1, max_size=4, unique_by=lambda s: s.strip()))
def test_any_names_draw(names: list[str]) -> None:
    """Any unicode names (surrogates and controls included) give three pictures, never an exception."""
    for img in _pictures(names):
        assert img.width > 0 and img.height > 0
