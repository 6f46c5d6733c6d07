"""AOI core: shapes, parsing, mapping against a slow reference, per-observer contributions, sensitivity of every
query with neighbouring observers, the noise law, interval coverage, the ledger and the target finder."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from eyedp_core.aoi import planning
from eyedp_core.aoi.bundled import bundled_aois
from eyedp_core.aoi.mapping import contains, membership, primary
from eyedp_core.aoi.metrics import (
    AoiMetric,
    Query,
    clean_metrics,
    laplace_half_width,
    linearised_half_width,
    metric_queries,
    private_metrics,
    query_epsilons,
    query_sensitivity,
)
from eyedp_core.aoi.observers import AoiBounds, observer_table
from eyedp_core.aoi.parse import aois_from_table, aois_to_table, read_aois
from eyedp_core.aoi.release import ledger_releases, release_aois
from eyedp_core.aoi.shapes import ELSEWHERE, Aoi, ShapeKind, grid, polygon, rectangle
from eyedp_core.data.simulator.stimuli import HEIGHT, WIDTH
from eyedp_core.dp.accounting import Ledger
from eyedp_core.dp.release_source import ReleaseSource
from eyedp_core.io.errors import DataError

# ------------------------------------------------------------------ shapes, mapping


def _ray_cast(px: float, py: float, pts: tuple[tuple[float, float], ...]) -> bool:
    """Slow reference: pure-Python even-odd ray casting, one point."""
    inside = False
    n = len(pts)
    for i in range(n):
        x0, y0 = pts[i]
        x1, y1 = pts[(i + 1) % n]
        if (y0 > py) != (y1 > py):
            xc = (x1 - x0) * (py - y0) / (y1 - y0) + x0
            if px < xc:
                inside = not inside
    return inside


def _random_polygon(rng: np.random.Generator, name: str) -> Aoi:
    """A random star-shaped (simple) polygon, sometimes with a concave notch."""
    m = int(rng.integers(3, 14))
    ang = np.sort(rng.uniform(0, 2 * np.pi, m))
    r = rng.uniform(20, 300, m)
    cx, cy = rng.uniform(0, WIDTH), rng.uniform(0, HEIGHT)
    return polygon(name, list(zip(cx + r * np.cos(ang), cy + r * np.sin(ang), strict=True)))


def test_mapping_matches_slow_ray_casting_on_random_shapes() -> None:
    rng = np.random.default_rng(1)
    aois = [_random_polygon(rng, f"p{i}") for i in range(25)]
    aois += [rectangle(f"r{i}", *rng.uniform(0, 1280, 2), *rng.uniform(0, 800, 2)) for i in range(5)]
    x, y = rng.uniform(-50, WIDTH + 50, 3000), rng.uniform(-50, HEIGHT + 50, 3000)
    fast = membership(tuple(aois), x, y)
    slow = np.array([[_ray_cast(px, py, a.vertices) for a in aois] for px, py in zip(x, y, strict=True)])
    assert fast.shape == (3000, 30)
    np.testing.assert_array_equal(fast, slow)
    assert fast.any() and not fast.all()  # the test exercises both answers


def test_rectangle_and_overlap_and_elsewhere() -> None:
    a, b = rectangle("a", 0, 0, 100, 100), rectangle("b", 50, 50, 150, 150)
    m = membership((a, b), np.array([10, 75, 140, 500, np.nan]), np.array([10, 75, 140, 500, 3]))
    assert m.tolist() == [[True, False], [True, True], [False, True], [False, False], [False, False]]
    assert primary(m).tolist() == [0, 0, 1, 2, 2]  # first listed AOI wins, K = elsewhere
    assert contains(a, np.array([99.9]), np.array([0.1])).tolist() == [True]


def test_grid_tiles_the_canvas_once() -> None:
    g = grid(1280, 800, 4, 3)
    assert [a.name for a in g[:5]] == ["r1c1", "r1c2", "r1c3", "r1c4", "r2c1"]
    rng = np.random.default_rng(2)
    m = membership(g, rng.uniform(0, 1280, 5000), rng.uniform(0, 800, 5000))
    assert (m.sum(axis=1) == 1).all()
    with pytest.raises(ValueError):
        grid(1280, 800, 20, 20)


def test_shape_validation() -> None:
    with pytest.raises(ValueError, match="no area"):
        rectangle("flat", 0, 0, 10, 0)
    with pytest.raises(ValueError, match="reserved"):
        rectangle(ELSEWHERE, 0, 0, 10, 10)
    assert Aoi("t", "polygon", ((0, 0), (1, 0), (0, 1))).kind is ShapeKind.POLYGON


def test_bundled_aois_come_from_the_simulator_regions() -> None:
    from eyedp_core.aoi.bundled import _regions

    for stim in ("webpage", "portrait", "comic"):
        aois = bundled_aois(stim)
        regions = _regions()[stim]
        assert [a.name for a in aois] == [r.name for r in regions]
        for a, r in zip(aois, regions, strict=True):
            x0, y0, x1, y1 = a.bounds
            assert 0 <= x0 < x1 <= WIDTH and 0 <= y0 < y1 <= HEIGHT
            assert contains(a, np.array([r.x]), np.array([r.y]))[0]
    assert bundled_aois("my upload") == ()


# ------------------------------------------------------------------ parsing


def test_csv_json_and_table_round_trip() -> None:
    aois = (rectangle("button", 990, 580, 1138, 620), polygon("tri", [(0, 0), (100, 0), (50, 80)]))
    table = aois_to_table(aois)
    assert aois_from_table(table) == aois
    assert read_aois(table.to_csv(index=False).encode(), "a.csv") == aois
    js = json.dumps({"aois": [{"name": "button", "kind": "rect", "x0": 990, "y0": 580, "x1": 1138, "y1": 620},
                              {"name": "tri", "kind": "polygon", "points": [[0, 0], [100, 0], [50, 80]]}]})
    assert read_aois(js.encode(), "a.json") == aois


@pytest.mark.parametrize(("data", "name", "where"), [
    (b"name,kind,x0,y0,x1,y1\nbutton,rect,1,2,abc,4\n", "a.csv", "a.csv, row 2, column 'x1'"),
    (b"name,kind,x0,y0,x1,y1\nok,rect,1,2,3,4\n,rect,1,2,3,4\n", "a.csv", "a.csv, row 3, column 'name'"),
    (b"name,kind,x0,y0,x1,y1\nok,circle,1,2,3,4\n", "a.csv", "a.csv, row 2, column 'kind'"),
    (b"name,kind,x0,y0,x1,y1\nok,rect,1,2,3,4\nok,rect,5,6,7,8\n", "a.csv", "a.csv, row 3, column 'name'"),
    (b'[{"name": "p", "kind": "polygon", "points": [[0, 0], [1, 1]]}]', "a.json", "a.json, row 1, column 'points'"),
    (b'[{"name": "p", "kind": "rect"', "a.json", "not valid JSON"),
    (b"foo,bar\n1,2\n", "a.csv", "no 'name' column"),
])
def test_bad_aoi_files_say_where(data: bytes, name: str, where: str) -> None:
    with pytest.raises(DataError) as err:
        read_aois(data, name)
    assert where in str(err.value)


def test_aoi_files_are_bounded() -> None:
    with pytest.raises(DataError, match="MB"):
        read_aois(b"x" * 1_000_001, "big.csv")
    rows = "\n".join(f"a{i},rect,0,0,1,1" for i in range(101))
    with pytest.raises(DataError, match="too many AOIs"):
        read_aois(("name,kind,x0,y0,x1,y1\n" + rows).encode(), "many.csv")


# ------------------------------------------------------------------ per-observer contributions


def _fix(rows: list[tuple[str, float, float, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["observer", "x", "y", "duration_ms", "start_s"])


A2 = (rectangle("a", 0, 0, 100, 100), rectangle("b", 200, 0, 300, 100))


def test_observer_table_counts_by_hand() -> None:
    # o1: elsewhere, a, a, b, a, elsewhere; o2: b only.
    f = _fix([("o1", 500, 500, 100, 1.0), ("o1", 10, 10, 200, 1.5), ("o1", 20, 20, 300, 2.0),
              ("o1", 250, 50, 400, 2.5), ("o1", 50, 50, 500, 3.0), ("o1", 600, 600, 100, 3.5),
              ("o2", 250, 50, 700, 0.2)])
    t = observer_table(f.sample(frac=1, random_state=3), A2, AoiBounds(max_total_dwell_s=None))
    assert t.observers == ("o1", "o2")
    np.testing.assert_allclose(t.hit, [[1, 1], [0, 1]])
    np.testing.assert_allclose(t.fixations, [[3, 1], [0, 1]])
    np.testing.assert_allclose(t.dwell_s, [[1.0, 0.4], [0, 0.7]])
    np.testing.assert_allclose(t.ttff_s, [[0.5, 1.5], [0, 0.0]])
    np.testing.assert_allclose(t.revisits, [[1, 0], [0, 0]])  # a entered twice
    tr = t.transitions[0]  # states a=0, b=1, elsewhere=2
    assert tr[2, 0] == 1 and tr[0, 1] == 1 and tr[1, 0] == 1 and tr[0, 2] == 1 and tr.sum() == 4
    assert t.transitions[1].sum() == 0


def test_clipping_to_public_bounds() -> None:
    b = AoiBounds(max_fixations=2, max_dwell_s=0.5, max_ttff_s=1.0, max_revisits=1, max_transitions=3,
                  max_total_fixations=3, max_total_dwell_s=0.6)
    rows = [("o", 500, 500, 100, 0.0)] + [("o", 10 if i % 2 else 250, 10, 400, 5.0 + i) for i in range(8)]
    t = observer_table(_fix(rows), A2, b)
    assert (t.fixations <= 2).all() and t.fixations.sum() <= 3 + 1e-12
    assert (t.dwell_s <= 0.5).all() and t.dwell_s.sum() <= 0.6 + 1e-12
    np.testing.assert_allclose(t.ttff_s, [[1.0, 1.0]])
    np.testing.assert_allclose(t.revisits, [[1, 1]])
    assert t.transitions.sum() == 3


# ------------------------------------------------------------------ sensitivity with neighbouring observers


K = 4
AOIS4 = grid(400, 100, K, 1)  # cells 100 px wide
BOUNDS = AoiBounds(max_fixations=3, max_dwell_s=0.8, max_ttff_s=2.0, max_revisits=2, max_transitions=6,
                   max_total_fixations=5, max_total_dwell_s=1.0)


def _random_observer(rng: np.random.Generator, name: str) -> list[tuple]:
    n = int(rng.integers(0, 30))
    xs = rng.uniform(-50, 450, n)
    return [(name, x, 50.0, float(rng.uniform(50, 900)), float(t))
            for x, t in zip(xs, np.sort(rng.uniform(0, 6, n)), strict=True)]


def _worst_observers() -> list[list[tuple]]:
    """Observers built to move every query's sums as far as its bound allows."""
    nothing = [("w", 1000.0, 1000.0, 200.0, 0.0)]  # one fixation, elsewhere
    late_everywhere = [("w", 1000.0, 1000.0, 200.0, 0.0)] + [
        ("w", 50.0 + 100 * (i % K), 50.0, 2000.0, 10.0 + i) for i in range(6 * K)]  # cycles through all AOIs
    ping_pong_01 = [("w", 50.0 + 100 * (i % 2), 50.0, 100.0, 0.0 + i) for i in range(20)]
    ping_pong_23 = [("w", 250.0 + 100 * (i % 2), 50.0, 100.0, 0.0 + i) for i in range(20)]
    return [nothing, late_everywhere, ping_pong_01, ping_pong_23]


def _sums(rows: list[tuple]) -> dict[Query, np.ndarray]:
    t = observer_table(_fix(rows), AOIS4, BOUNDS)
    return {Query.HITS: t.hit.sum(0), Query.FIXATIONS: t.fixations.sum(0), Query.DWELL: t.dwell_s.sum(0),
            Query.TTFF: t.ttff_s.sum(0), Query.REVISITS: t.revisits.sum(0),
            Query.TRANSITIONS: t.transitions.sum(0).ravel()}


def test_each_query_sensitivity_holds_and_is_attained() -> None:
    rng = np.random.default_rng(5)
    base = [r for i in range(8) for r in _random_observer(rng, f"o{i}")]
    table = observer_table(_fix(base + _random_observer(rng, "w")), AOIS4, BOUNDS)
    stated = {q: query_sensitivity(q, table) for q in Query}
    assert stated == {Query.HITS: 4.0, Query.FIXATIONS: 10.0, Query.DWELL: 2.0, Query.TTFF: 8.0,
                      Query.REVISITS: 8.0, Query.TRANSITIONS: 12.0}
    candidates = _worst_observers() + [_random_observer(rng, "w") for _ in range(40)]
    worst = {q: 0.0 for q in Query}
    for i, a in enumerate(candidates):
        sa = _sums(base + a)
        for b in candidates[i + 1:]:
            sb = _sums(base + b)
            for q in Query:
                worst[q] = max(worst[q], float(np.abs(sa[q] - sb[q]).sum()))
    for q in Query:
        assert worst[q] <= stated[q] + 1e-9, q
        assert worst[q] == pytest.approx(stated[q]), q  # the bound is tight: a neighbour reaches it


# ------------------------------------------------------------------ noise, intervals, release, ledger


def _sim_table(n: int, seed: int):
    rng = np.random.default_rng(seed)
    rows = [r for i in range(n) for r in _random_observer(rng, f"o{i:04d}")]
    return observer_table(_fix(rows), AOIS4, BOUNDS)


def test_preview_noise_is_laplace_at_the_formula_scale() -> None:
    t = _sim_table(50, 7)
    rng = np.random.default_rng(11)
    eps = 2.0
    z = []
    for _ in range(300):
        _, noise = private_metrics(t, [AoiMetric.DWELL], eps, rng)
        q = noise[Query.DWELL]
        assert q.scale == pytest.approx(BOUNDS.max_total_dwell_s * 2 / eps)  # b = Δ1/ε, Δ1 = min(K·d, 2·C)
        z.append((q.noisy - t.dwell_s.sum(0)) / q.scale)
    p = stats.kstest(np.concatenate(z), "laplace").pvalue
    assert p > 1e-3  # fixed seed; a wrong scale (×1.1) gives p < 1e-6 at 1200 draws


def test_release_noise_is_laplace_and_on_the_lattice() -> None:
    t = _sim_table(50, 8)
    src = ReleaseSource()
    z = []
    for _ in range(3):
        _, noise = private_metrics(t, [AoiMetric.TRANSITIONS], 1.0, src)
        q = noise[Query.TRANSITIONS]
        assert q.lattice_k is not None and q.scale > q.calibration.scale  # inflated for the rounding (§11.2)
        assert np.all(np.ldexp(q.noisy, -q.lattice_k) == np.round(np.ldexp(q.noisy, -q.lattice_k)))
        z.append((q.noisy - t.transitions.sum(0).ravel()) / q.scale)
    # OpenDP draws are not seeded: threshold chosen so a correct sampler fails once in a million runs.
    assert stats.kstest(np.concatenate(z), "laplace").pvalue > 1e-6


def test_half_widths() -> None:
    assert laplace_half_width(2.0) == pytest.approx(2.0 * math.log(20))
    assert linearised_half_width(1.0, 0.0) == pytest.approx(math.log(20))
    # Sum of two Lap(1): tail e^-t (1 + t/2) = 0.05 at the returned t; simulation agrees.
    t = linearised_half_width(1.0, 1.0)
    assert math.exp(-t) * (1 + t / 2) == pytest.approx(0.05, rel=1e-9)
    s = np.random.default_rng(3).laplace(size=(2, 400_000))
    assert np.mean(np.abs(s[0] + 0.4 * s[1]) <= linearised_half_width(1.0, 0.4)) == pytest.approx(0.95, abs=0.002)


def test_intervals_cover_the_clean_values_at_the_nominal_rate() -> None:
    t = _sim_table(400, 9)
    rng = np.random.default_rng(12)
    reps = 1000
    hits = {m: 0 for m in AoiMetric}
    total = {m: 0 for m in AoiMetric}
    for _ in range(reps):
        res, _ = private_metrics(t, list(AoiMetric), 3.0, rng)
        for m, r in res.items():
            ok = (r.lower <= r.clean + 1e-12) & (r.clean - 1e-12 <= r.upper)
            hits[m] += int(ok.sum())
            total[m] += ok.size
    for m in AoiMetric:
        cov = hits[m] / total[m]
        tol = 4 * math.sqrt(0.95 * 0.05 / total[m])  # binomial, 4 standard errors
        assert abs(cov - 0.95) <= tol, (m, cov, tol)


def test_budget_split_and_ledger_total() -> None:
    chosen = [AoiMetric.TTFF, AoiMetric.DWELL, AoiMetric.HIT_RATIO]
    assert metric_queries(chosen) == (Query.HITS, Query.DWELL, Query.TTFF)  # TTFF reuses the looker counts
    eps = query_epsilons(chosen, 1.5)
    assert math.fsum(eps.values()) == pytest.approx(1.5) and set(eps.values()) == {0.5}
    t = _sim_table(20, 10)
    ledger = Ledger()
    for r in ledger_releases(t, chosen, 1.5, "s") + ledger_releases(t, [AoiMetric.TRANSITIONS], 2.0, "s"):
        ledger.add(r)
    per = ledger.per_participant(list(t.observers))
    assert len(ledger) == 4
    assert per["epsilon"].tolist() == pytest.approx([3.5] * t.n)


def test_release_table_and_manifest() -> None:
    t = _sim_table(30, 13)
    defs = aois_to_table(AOIS4).to_dict("records")
    rel = release_aois(t, [AoiMetric.HIT_RATIO, AoiMetric.DWELL, AoiMetric.TRANSITIONS], 2.0, "s", defs)
    assert list(rel.table.index) == [a.name for a in AOIS4]
    assert rel.transitions.shape == (K + 1, K + 1)
    man = json.loads(rel.manifest_json())
    assert man["epsilon_per_observer"] == 2.0 and man["unit_of_privacy"] == "observer"
    assert [q["epsilon"] for q in man["queries"]] == pytest.approx([2 / 3] * 3)
    sens = {q["query"]: q["l1_sensitivity"] for q in man["queries"]}
    assert sens == {"observers who looked": 4.0, "dwell time sum": 2.0, "transition counts": 12.0}
    for q in man["queries"]:
        assert q["scale_released"] >= q["scale_formula"] == pytest.approx(q["l1_sensitivity"] / q["epsilon"])
    hw = rel.table["dwell time ± 95 %"].to_numpy()
    dwell_q = next(q for q in man["queries"] if q["query"] == "dwell time sum")
    np.testing.assert_allclose(hw, dwell_q["scale_released"] * math.log(20) / t.n)


def test_clean_metrics_by_hand() -> None:
    t = observer_table(_fix([("o1", 10, 10, 500, 0.0), ("o1", 250, 10, 500, 1.0), ("o2", 500, 500, 100, 0.0),
                             ("o2", 20, 20, 1000, 3.0)]), A2, AoiBounds())
    c = clean_metrics(t, list(AoiMetric))
    np.testing.assert_allclose(c[AoiMetric.HIT_RATIO], [1.0, 0.5])
    np.testing.assert_allclose(c[AoiMetric.DWELL], [0.75, 0.25])
    np.testing.assert_allclose(c[AoiMetric.TTFF], [1.5, 1.0])  # o1 at 0 s, o2 at 3 s; b: o1 at 1 s


def test_target_finder_inverts_the_half_width() -> None:
    b, metrics = AoiBounds(), [AoiMetric.DWELL, AoiMetric.HIT_RATIO]
    eps = planning.epsilon_for_half_width(AoiMetric.DWELL, 0.5, n=40, k=16, bounds=b, metrics=metrics)
    # At that ε the page's interval for dwell on a 16-AOI, 40-observer table is ± 0.5 s.
    t16 = observer_table(_fix([(f"o{i}", 10, 10, 100, 0.0) for i in range(40)]), grid(1280, 800, 4, 4), b)
    res, _ = private_metrics(t16, metrics, eps, np.random.default_rng(0))
    assert res[AoiMetric.DWELL].half_width[0] == pytest.approx(0.5)
    n = planning.observers_for_half_width(AoiMetric.HIT_RATIO, 0.05, epsilon=1.0, k=16, bounds=b, metrics=metrics)
    assert 16 * math.log(20) / (0.5 * n) <= 0.05 < 16 * math.log(20) / (0.5 * (n - 1))


def test_uploaded_column_names_and_missing_optional_columns() -> None:
    f = _fix([("o1", 10, 10, 500, 0.0), ("o1", 250, 10, 500, 1.0), ("o2", 20, 20, 1000, 3.0)])
    a = observer_table(f.rename(columns={"start_s": "t_start_s"}), A2, AoiBounds())
    b = observer_table(f, A2, AoiBounds())
    np.testing.assert_array_equal(a.ttff_s, b.ttff_s)
    c = observer_table(f[["observer", "x", "y", "duration_ms"]], A2, AoiBounds())  # row order, durations chain
    np.testing.assert_allclose(c.ttff_s, [[0.0, 0.5], [0.0, 0.0]])
    d = observer_table(f[["observer", "x", "y"]], A2, AoiBounds())
    assert d.dwell_s.sum() == 0 and d.fixations.sum() == 3
    with pytest.raises(ValueError, match="missing y"):
        observer_table(f[["observer", "x"]], A2, AoiBounds())


def test_aois_drawn_on_the_data_are_flagged() -> None:
    t = _sim_table(10, 15)
    plain = ledger_releases(t, [AoiMetric.DWELL], 1.0, "s")
    flagged = ledger_releases(t, [AoiMetric.DWELL], 1.0, "s", aois_from_data=True)
    assert not plain[0].tuned_on_private_data and plain[0].data_derived_parameters == ()
    assert flagged[0].tuned_on_private_data and "looking at these data" in flagged[0].data_derived_parameters[0]
    man = release_aois(t, [AoiMetric.DWELL], 1.0, "s", [], aois_from_data=True).manifest
    assert man["aois_drawn_on_these_data"] is True and man["caveats"]
