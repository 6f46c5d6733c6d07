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


def _names_ink(names: tuple[str, ...], blank: int | None = None) -> np.ndarray:
    """The bar chart of 20 AOIs (name `blank` left empty); ink of any colour below the plot."""
    k = len(names)
    shown = tuple("" if i == blank else n for i, n in enumerate(names))
    res = MetricResult(metric=AoiMetric.HIT_RATIO, names=shown, clean=np.full(k, 0.5), private=np.full(k, 0.6),
                       half_width=np.full(k, 0.1))
    a = np.asarray(bar_picture(res, "ratio"))
    return (a != 255).any(axis=2)


def test_long_names_are_slanted_below_the_plot_without_touching():
    """20 AOIs named like the comic's ('panel 1 face 1', 110 px at 13 px) on a 1,004 px plot: horizontal names
    would overlap, so they are slanted. The picture grows to hold them, no name reaches its lower edge, and the
    ink of neighbouring names (each found as what disappears when only it is left out) does not touch."""
    names = tuple(f"panel {p} {k}" for p in range(1, 6) for k in ("face 1", "face 2", "bubble", "scene"))
    assert picture.font(13).getlength(names[0]) > (1100 - 96) / len(names)  # horizontal names would collide
    full = _names_ink(names)
    assert full.shape[0] > 380  # grown below the plot
    assert not full[-3:].any()  # the names end inside the picture
    own = [full & ~_names_ink(names, blank=i) for i in range(len(names))]
    assert all(m.sum() > 50 for m in own)
    grown = [np.pad(m, 1)[:-2, 1:-1] | np.pad(m, 1)[2:, 1:-1] | np.pad(m, 1)[1:-1, :-2] | np.pad(m, 1)[1:-1, 2:] | m
             for m in own]  # one pixel more on every side: touching counts as overlap
    assert not any((grown[i] & own[i + 1]).any() for i in range(len(names) - 1))


def test_the_hit_ratio_chart_is_in_percent_as_the_tables():
    """The hit ratio is drawn as percent of observers (the tables write '35 %'); other metrics as they are."""
    import io

    from PIL import Image

    from ui.aoi.figs import bar_png
    share = MetricResult(metric=AoiMetric.HIT_RATIO, names=("a", "b"), clean=np.array([0.2, 0.4]),
                         private=np.array([0.25, 0.5]), half_width=np.array([0.1, 0.1]))
    percent = MetricResult(metric=AoiMetric.HIT_RATIO, names=("a", "b"), clean=np.array([20.0, 40.0]),
                           private=np.array([25.0, 50.0]), half_width=np.array([10.0, 10.0]))
    got = np.asarray(Image.open(io.BytesIO(bar_png(share, "share of observers"))).convert("RGB"))
    assert np.array_equal(got, np.asarray(bar_picture(percent, "% of observers")))
    dwell = MetricResult(metric=AoiMetric.DWELL, names=("a",), clean=np.array([0.4]), private=np.array([0.5]),
                         half_width=np.array([0.1]))
    got = np.asarray(Image.open(io.BytesIO(bar_png(dwell, "s per observer"))).convert("RGB"))
    assert np.array_equal(got, np.asarray(bar_picture(dwell, "s per observer")))
