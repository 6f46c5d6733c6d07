"""The Areas of interest bar chart picture: exact display size, bars at the heights of the values, error bars."""
import numpy as np

from eyedp_core.aoi.metrics import AoiMetric, MetricResult
from ui import picture, theme
from ui.aoi.figs import bar_picture


def _column_top(img: np.ndarray, x: int, colour: tuple[int, int, int]) -> int:
    """First row (from the top) where column x has `colour`."""
    rows = np.flatnonzero((img[:, x] == colour).all(axis=1))
    return int(rows[0])


def test_bar_picture_size_and_bar_heights():
    """Private bars of 2 and 4 units with the axis from 0: the second bar is twice as tall (±1 px)."""
    res = MetricResult(metric=AoiMetric.HIT_RATIO, names=("a", "b"), clean=np.array([1.0, 1.0]),
                       private=np.array([2.0, 4.0]), half_width=np.array([0.0, 0.0]))
    im = bar_picture(res, "ratio", width=600, height=300)
    assert im.size == (600, 300)
    a = np.asarray(im)
    prim = picture.rgb(theme.PRIMARY)
    cols = np.flatnonzero((a[:, :, :] == prim).all(axis=2).any(axis=0))
    # two private bars (plus the legend swatch at the top right): take the bars' columns below the legend
    body = (a[40:] == prim).all(axis=2)
    xs = np.flatnonzero(body.any(axis=0))
    first, second = xs[0], xs[-1]
    base = 300 - 60  # the plot's bottom edge (bottom margin 60 px)
    h1, h2 = base - _column_top(a, first, prim), base - _column_top(a, second, prim)
    assert cols.size and abs(h2 - 2 * h1) <= 2


def test_bar_picture_draws_error_bars():
    """A half-width > 0 draws ink above the private bar's top; none when it is 0."""
    def ink_above(hw: float) -> int:
        res = MetricResult(metric=AoiMetric.HIT_RATIO, names=("a",), clean=np.array([1.0]),
                           private=np.array([2.0]), half_width=np.array([hw]))
        a = np.asarray(bar_picture(res, "ratio", width=600, height=300))
        return int((a[40:200] == picture.rgb(theme.INK)).all(axis=2).sum())
    assert ink_above(1.0) > ink_above(0.0) + 20


def test_bar_png_is_the_picture_and_follows_the_values():
    """The cached PNG decodes to the drawn picture; other values give another picture."""
    import io

    from PIL import Image

    from ui.aoi.figs import bar_png
    res = MetricResult(metric=AoiMetric.DWELL, names=("a", "b"), clean=np.array([1.0, 2.0]),
                       private=np.array([1.5, 2.5]), half_width=np.array([0.3, 0.3]))
    got = np.asarray(Image.open(io.BytesIO(bar_png(res, "s"))).convert("RGB"))
    assert np.array_equal(got, np.asarray(bar_picture(res, "s")))
    other = MetricResult(metric=AoiMetric.DWELL, names=("a", "b"), clean=np.array([1.0, 2.0]),
                         private=np.array([0.5, 2.5]), half_width=np.array([0.3, 0.3]))
    assert bar_png(other, "s") != bar_png(res, "s")
