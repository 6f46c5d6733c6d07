"""Helpers of the PIL charts: tick labels written exactly, and slanted names that need no more room than said."""
import numpy as np
import pytest

from ui import picture


@pytest.mark.parametrize(("lo", "hi", "n", "want"), [
    (-5.0, 5.0, 4, ["-5.0", "-2.5", "0", "2.5", "5.0"]),
    (0.0, 1.0, 5, ["0", "0.2", "0.4", "0.6", "0.8", "1.0"]),
    (0.0, 1.2, 5, ["0", "0.25", "0.50", "0.75", "1.00"]),
    (0.0, 5000.0, 5, ["0", "1,000", "2,000", "3,000", "4,000", "5,000"]),
])
def test_tick_labels_write_every_tick_exactly(lo, hi, n, want):
    """Each label reads back as its tick's value: a step of 2.5 or 0.25 keeps the decimals it needs."""
    ticks = picture.nice_ticks(lo, hi, n)
    step = float(ticks[1] - ticks[0])
    labels = [picture.tick_label(float(v), step) for v in ticks]
    assert labels == want
    assert [float(t.replace(",", "")) for t in labels] == pytest.approx(ticks.tolist(), abs=1e-12)


def test_slanted_text_keeps_the_text_and_its_end_at_the_top_right():
    """The rotated picture holds ink for the text; its top-right quarter holds the text's end."""
    f = picture.font(13)
    img = np.asarray(picture.slanted_text("panel 1 face 1", f, (0, 0, 0), 40))
    alpha = img[:, :, 3] > 0
    h, w = alpha.shape
    assert alpha.sum() > 50
    assert w > f.getlength("panel 1 face 1") * 0.7 and h > f.getlength("panel 1 face 1") * 0.6
    assert alpha[: h // 4, 3 * w // 4:].any() and not alpha[: h // 4, : w // 4].any()
