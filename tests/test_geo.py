"""The geography engine (Croft, Shi, Sack & Corriveau 2015): balanced-density placement on hand-computed examples
(Eqs. 1–7), nearest-site aggregation, the GeoLeader-like baseline's stopping rule, the measures of §3.4 against
direct re-computations, and the releases re-verified k-anonymous."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from measures.geography import GEO_MEASURES, compactness, discernibility, geo_entropy
from workbench.data import Dataset
from workbench.errors import ConfigError, DataError
from workbench.geo import engine
from workbench.geo import scored as geography
from workbench.geo.aggregation import adjacency, geoleader_like, nearest_site, vbas
from workbench.geo.placement import balanced_density, cells_of_row, cells_per_row, round_half_up, walk
from workbench.geo.points import points_from_frame
from workbench.release.verify import SUPPRESSED
from workbench.samples import province


# ---------------------------------------------------------------------------------------------- placement
def test_rounding_is_half_up():
    assert [round_half_up(x) for x in (0.5, 1.5, 2.5, 2.49, 1.414)] == [1, 2, 3, 2, 1]


def test_walk_applies_eq3():
    # ideal 5: 3 + 1 = 4, then 5 would make 9; 9 - 5 = 4 > 5 - 4 = 1, so the 5 starts the next group
    groups = walk(np.array([3, 1, 5, 1]), 5)
    assert [g.tolist() for g in groups] == [[0, 1], [2], [3]]
    # 4 + 1 = 5 reaches the ideal exactly: 5 - 5 = 0 <= 1, the point stays
    assert [g.tolist() for g in walk(np.array([4, 1, 2]), 5)] == [[0, 1], [2]]
    # a point that alone passes the ideal stays in the group it opens (never an empty group)
    assert [g.tolist() for g in walk(np.array([20, 1]), 5)] == [[0], [1]]
    # max_groups: the last group takes the rest
    assert [g.tolist() for g in walk(np.array([3, 1, 5, 1]), 5, max_groups=2)] == [[0, 1], [2, 3]]


def test_cells_per_row_rounds_then_adjusts_to_s():
    # exact shares 4·30/80 = 1.5 -> 2, 4·40/80 = 2, 4·10/80 = 0.5 -> 1: five cells for four sites; rows 0 and 2
    # are over by 0.5 each, the lower row gives one up
    assert cells_per_row(np.array([30, 40, 10]), np.array([3, 2, 1]), 4) == [1, 2, 1]
    # 3·2/12 = 0.5 -> 1; 3·10/12 = 2.5 -> 3 but the row has one point: 1; the missing cell goes to row 0
    assert cells_per_row(np.array([2, 10]), np.array([2, 1]), 3) == [2, 1]


def test_cells_of_row_splits_the_largest_cell():
    # ideal R(12/3) = 4: [10] then [1, 1] (two cells); the 10 cannot be split, so [1, 1] is
    assert [c.tolist() for c in cells_of_row(np.array([10, 1, 1]), 3)] == [[0], [1], [2]]
    # ideal R(24/3) = 8: [1,1,1,1] (adding 20 would overshoot), then [20]; the 4-point cell splits at R(4/2) = 2
    assert [c.tolist() for c in cells_of_row(np.array([1, 1, 1, 1, 20]), 3)] == [[0, 1], [2, 3], [4]]


def test_balanced_density_hand_example():
    """p = 80, s = 4: r = R(√4) = 2, p' = R(80/2) = 40. Rows by y: A+B+C = 30 (adding D's 30 would make 60:
    60 − 40 = 20 > 40 − 30 = 10, so D starts the next row), D+E = 40, F = 10: three rows. Cells: R(1.5) = 2,
    R(2) = 2, R(0.5) = 1 sum to 5; rows 0 and 2 are both 0.5 over, row 0 gives one up: (1, 2, 1). Row 1's
    cells (ideal 20): D alone, then E. Sites at the cell means (Eqs. 6–7)."""
    xy = np.array([[0, 0], [5, 0], [10, 0], [0, 1], [0, 2], [10, 2]], dtype=float)
    pop = np.array([10, 10, 10, 30, 10, 10])
    placement = balanced_density(xy, pop, 4)
    assert placement.rows_initial == 2 and placement.ideal_row_population == 40
    assert placement.cells_per_row == (1, 2, 1)
    assert placement.row.tolist() == [0, 0, 0, 1, 1, 2]
    np.testing.assert_allclose(placement.sites, [[5, 0], [0, 1], [0, 2], [10, 2]])
    assert placement.cell.tolist() == [0, 0, 0, 1, 2, 3]


def test_balanced_density_square():
    xy = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=float)
    placement = balanced_density(xy, np.ones(4), 4)
    assert placement.cells_per_row == (2, 2)
    np.testing.assert_allclose(placement.sites, xy)  # every cell holds one point: the sites are the points


@pytest.mark.parametrize("seed", range(12))
def test_balanced_density_properties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    xy = rng.normal(0, 1000, (n, 2)).round(0)  # rounded: ties in x and y happen
    pop = rng.integers(1, 50, n)
    s = int(rng.integers(1, n + 1))
    placement = balanced_density(xy, pop, s)
    assert len(placement.sites) == s == sum(placement.cells_per_row)
    for c in range(s):  # every site is the mean of its cell's points (Eqs. 6-7)
        members = placement.cell == c
        assert members.any()
        np.testing.assert_allclose(placement.sites[c], xy[members].mean(axis=0))
    for j, rc in enumerate(placement.cells_per_row):  # rows with cells: every point in a cell
        in_row = placement.row == j
        assert (placement.cell[in_row] >= 0).all() == (rc > 0)
        assert rc <= in_row.sum()


def test_balanced_density_refuses_bad_site_counts():
    with pytest.raises(ValueError, match="from 1 to the 3 regions"):
        balanced_density(np.zeros((3, 2)), np.ones(3), 4)


# ---------------------------------------------------------------------------------------------- aggregation
def test_nearest_site_ties_go_to_the_lower_site():
    assert nearest_site(np.array([[1.0, 0.0]]), np.array([[0.0, 0.0], [2.0, 0.0]])).tolist() == [0]
    assert nearest_site(np.array([[1.0, 0.0]]), np.array([[2.0, 0.0], [0.0, 0.0]])).tolist() == [0]
    assert nearest_site(np.array([[1.9, 0.0]]), np.array([[0.0, 0.0], [2.0, 0.0]])).tolist() == [1]


def test_vbas_is_the_voronoi_cell_of_each_point():
    rng = np.random.default_rng(3)
    xy, pop = rng.uniform(0, 100, (80, 2)), rng.integers(400, 701, 80)
    agg = vbas(xy, pop, 9)
    sites = agg.sites
    brute = np.argmin(((xy[:, None, :] - sites[None, :, :]) ** 2).sum(axis=2), axis=1)
    _, expected = np.unique(brute, return_inverse=True)
    assert agg.groups.tolist() == expected.tolist()
    assert agg.regions <= 9


def test_adjacency_is_delaunay_with_fallbacks():
    square = adjacency(np.array([[0, 0], [1, 0], [0, 1], [1, 1.1]]))
    assert sum(len(a) for a in square) == 2 * 5  # four sides and one diagonal
    line = adjacency(np.array([[0, 0], [2, 0], [1, 0]]))
    assert [sorted(a) for a in line] == [[2], [2], [0, 1]]  # collinear: a chain in x order
    dup = adjacency(np.array([[0, 0], [1, 0], [0, 1], [0, 0]]))
    assert all(dup) and 3 in set().union(*dup[:3])  # the duplicate point joins its twin's triangle


def test_geoleader_like_hand_example():
    """Points on a line at x = 0, 1, 2, 10 with populations 2, 1, 1, 2 and cut-off 1.5: only region 1 (the
    smaller id of the two smallest) fails; merging it with 0 or with 2 adds 1 to Eq. 8 either way, so the less
    populous neighbour, 2, is chosen; then every region exceeds 1.5 and merging stops."""
    agg = geoleader_like(np.array([[0, 0], [1, 0], [2, 0], [10, 0]], dtype=float), np.array([2, 1, 1, 2]), 1.5)
    assert agg.groups.tolist() == [0, 1, 1, 2]
    assert agg.merges == ((1, 2),)


@pytest.mark.parametrize("seed", range(6))
def test_geoleader_like_stops_exactly_when_every_region_passes(seed):
    rng = np.random.default_rng(seed)
    n = 60
    xy, pop = rng.uniform(0, 1000, (n, 2)), rng.integers(400, 701, n).astype(float)
    cutoff = float(rng.uniform(500, 4000))
    agg = geoleader_like(xy, pop, cutoff)
    assert (agg.populations(pop) > cutoff).all()
    edges = adjacency(xy)
    # replay the merges: each merges the least populous region (which fails the cut-off) with an adjacent
    # region chosen by the smallest increase of Eq. 8
    members = {r: {r} for r in range(n)}
    for small, other in agg.merges:
        pops = {r: pop[list(m)].sum() for r, m in members.items()}
        assert pops[small] <= cutoff and pops[small] == min(pops.values())
        neighbours = {r for r in members if r != small and any(b in members[r] for a in members[small]
                                                                 for b in edges[a])}
        assert other in neighbours

        def increase(r, small=small):
            merged = list(members[small] | members[r])
            return (compactness(xy[merged], np.zeros(len(merged))) - compactness(xy[list(members[small])],
                    np.zeros(len(members[small]))) - compactness(xy[list(members[r])], np.zeros(len(members[r]))))

        assert increase(other) <= min(increase(r) for r in neighbours) + 1e-9
        keep, gone = min(small, other), max(small, other)
        members[keep] |= members.pop(gone)
    assert sorted(len(m) for m in members.values()) == sorted(np.bincount(agg.groups).tolist())
    assert agg.regions == len(members)


def test_geoleader_like_refuses_an_unreachable_cutoff():
    with pytest.raises(ValueError, match="not below the total population 6"):
        geoleader_like(np.array([[0, 0], [1, 0], [0, 1]], dtype=float), np.array([1, 2, 3]), 6)


# ---------------------------------------------------------------------------------------------- measures
def test_compactness_eq8_by_hand():
    xy = np.array([[0, 0], [2, 0], [5, 5], [0, 10], [3, 10], [0, 13]], dtype=float)
    groups = np.array([7, 7, 3, 1, 1, 1])
    # group 7: mean (1, 0), distances 1 + 1; group 3: one point, 0; group 1: mean (1, 11): √2 + √5 + √5
    assert compactness(xy, groups) == pytest.approx(2 + math.sqrt(2) + 2 * math.sqrt(5))


def test_discernibility_eq9_counts_classes_of_at_least_k():
    assert discernibility(np.array([1, 2, 5, 7, 3]), 3) == 25 + 49 + 9
    assert discernibility(np.array([], dtype=int), 3) == 0


def test_geo_entropy_eq11_per_record():
    regions = np.array(["a"] * 3 + ["b"] * 1 + ["c"] * 4)
    groups = {"a": 0, "b": 0, "c": 1}
    # Pr(a | 0) = 3/4, Pr(b | 0) = 1/4, Pr(c | 1) = 1
    expected = -(3 * math.log2(3 / 4) + math.log2(1 / 4))
    assert geo_entropy(np.array([3, 1, 4]), np.array([0, 0, 1])) == pytest.approx(expected)
    per_record = -sum(math.log2((regions == r).sum() / sum((regions == o).sum() for o in groups
                                                          if groups[o] == groups[r])) for r in regions)
    assert expected == pytest.approx(per_record)


def test_geo_measures_registry():
    assert set(GEO_MEASURES) == {"suppressed", "compactness", "dm", "geo_entropy", "seconds"}


# ---------------------------------------------------------------------------------------------- engine
@pytest.fixture(scope="module")
def problem() -> engine.GeoProblem:
    frame, points = province.generate(regions=40, seed=7)
    roles = {"region": "quasi", "sex": "quasi", "age": "quasi", "marital_status": "quasi"}
    hierarchies = province.hierarchies(points)
    dataset = Dataset.create(frame, roles, {q: hierarchies[q] for q in roles})
    return engine.prepare(dataset, "region", points_from_frame(points))


def _reference(problem: engine.GeoProblem, result: geography.GeoResult) -> pd.DataFrame:
    """The release recomputed with pandas from the region map: aggregated region and each class's size."""
    frame = problem.dataset.frame
    region_map = dict(zip(result.region_map()["region"], result.region_map()["aggregated"], strict=True))
    table = frame[problem.dataset.quasi_identifiers].assign(region=frame["region"].map(region_map))
    size = table.groupby(list(table.columns))["region"].transform("size")
    return table.assign(size=size.to_numpy())


@pytest.mark.parametrize(("method", "value"), [("vbas", 6), ("vbas", 40), ("geoleader", 3000)])
def test_release_is_verified_k_anonymous_and_matches_a_direct_recomputation(problem, method, value):
    k = 4
    agg = engine.aggregate(problem, method, **({"sites": value} if method == "vbas" else {"cutoff": value}))
    result = geography.anonymize(problem, agg, k)
    assert result.guarantee.holds and result.release.engine == "geo"
    ref = _reference(problem, result)
    assert result.release.suppressed.tolist() == (ref["size"] < k).tolist()  # exactly the classes below k
    table = result.release.table()
    kept = ~result.release.suppressed
    assert (table.loc[kept, "region"] == ref.loc[kept, "region"]).all()
    assert (table.loc[~kept, problem.dataset.quasi_identifiers] == SUPPRESSED).all().all()
    assert (table.loc[kept, ["sex", "age"]] == problem.dataset.frame.loc[kept, ["sex", "age"]]).all().all()
    # measures recomputed from the points and the released table
    groups = pd.factorize(result.region_map()["aggregated"])[0]
    assert result.measures["compactness"] == pytest.approx(_compactness_loop(problem.points.xy, groups))
    sizes = ref.loc[kept].groupby(list(ref.columns[:-1])).size().to_numpy()
    assert result.measures["dm"] == float((sizes.astype(np.int64) ** 2).sum())
    assert result.suppressed == int((ref["size"] < k).sum())


def _compactness_loop(xy: np.ndarray, groups: np.ndarray) -> float:
    total = 0.0
    for g in set(groups.tolist()):
        pts = xy[groups == g]
        cx, cy = pts[:, 0].mean(), pts[:, 1].mean()
        total += sum(math.dist((x, y), (cx, cy)) for x, y in pts)
    return total


def test_region_map_is_a_partition(problem):
    result = geography.anonymize(problem, engine.aggregate(problem, "vbas", sites=7), 3)
    region_map = result.region_map()
    assert sorted(region_map["region"]) == sorted(problem.points.names)
    assert region_map["region"].is_unique
    assert set(region_map["aggregated"]) == set(result.labels) and len(result.labels) == result.aggregation.regions


def test_geoleader_like_regions_exceed_the_cutoff(problem):
    result = geography.anonymize(problem, engine.aggregate(problem, "geoleader", cutoff=2500), 3)
    per_region = result.region_table().groupby("aggregated")["population"].sum()
    assert (per_region > 2500).all()
    assert result.summary()["smallest_region_population"] == per_region.min()


def test_compare_methods_matches_the_region_count(problem):
    leader, voronoi = geography.compare_methods(problem, 3000, 3)
    assert voronoi.aggregation.parameters["sites"] >= leader.aggregation.regions
    assert voronoi.aggregation.regions == leader.aggregation.regions


def test_sweep_trades_suppression_for_compactness(problem):
    table = geography.sweep(problem, [2, 8, 32], 5)
    assert table["sites"].tolist() == [2, 8, 32]
    assert table["compactness"].is_monotonic_decreasing  # more sites: smaller, more compact regions
    assert table["suppressed"].iloc[-1] >= table["suppressed"].iloc[0]


def test_bad_parameters_name_the_value(problem):
    with pytest.raises(ConfigError, match="geo.sites must be from 1 to the 40 regions.*got 41"):
        engine.aggregate(problem, "vbas", sites=41)
    total = problem.population.sum()
    with pytest.raises(ConfigError, match="below the total population"):
        engine.aggregate(problem, "geoleader", cutoff=float(total))


# ---------------------------------------------------------------------------------------------- bad points
def _points(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["region", "x", "y"]).astype(str)


def test_points_errors_name_the_row_and_value(problem):
    with pytest.raises(DataError, match=r"row 2 \(region 'b'\): x 'north' is not a finite number"):
        points_from_frame(_points([("a", 1, 2), ("b", "north", 3)]), "regions.csv")
    with pytest.raises(DataError, match="missing column\\(s\\) 'y'"):
        points_from_frame(pd.DataFrame({"region": ["a"], "x": ["1"]}), "regions.csv")
    with pytest.raises(DataError, match="row 2: region 'a' is listed again"):
        points_from_frame(_points([("a", 1, 2), ("a", 1, 3)]), "regions.csv")
    with pytest.raises(DataError, match="population '-3' must be positive"):
        points_from_frame(_points([("a", 1, 2)]).assign(population="-3"), "regions.csv")
    names = list(problem.points.names)
    xy = problem.points.xy
    fewer = _points([(n, x, y) for n, (x, y) in zip(names[1:], xy[1:], strict=True)])
    with pytest.raises(DataError, match=f"no point for region '{names[0]}' of data column 'region'"):
        engine.prepare(problem.dataset, "region", points_from_frame(fewer, "regions.csv"))
    more = _points([*((n, x, y) for n, (x, y) in zip(names, xy, strict=True)), ("ZZ9", 0, 0)])
    with pytest.raises(DataError, match=f"row {len(names) + 1}: region 'ZZ9' does not occur in data column"):
        engine.prepare(problem.dataset, "region", points_from_frame(more, "regions.csv"))


# ---------------------------------------------------------------------------------------------- study
def test_study_comparison_and_ratios(problem):
    from workbench.experiments import croft_2015 as study

    frame = problem.dataset.frame
    cutoff = study.dynamic_cutoff(frame, ["sex", "age"], 4)
    q = frame.groupby(["sex", "age"]).size().to_numpy() / len(frame)
    from scipy.stats import binom
    assert (q * binom.cdf(2, cutoff - 1, q)).sum() <= 0.01 < (q * binom.cdf(2, cutoff - 2, q)).sum()
    table = study.comparison(problem.dataset, "region", problem.points, [(("sex", "age"), 2000)], 4)
    assert table["method"].tolist() == ["geoleader", "vbas"] and list(table.columns) == study.COLUMNS
    shares = study.ratios(table)
    assert shares["compactness"].iloc[0] == pytest.approx(table.compactness.iloc[1] / table.compactness.iloc[0])


# ---------------------------------------------------------------------------------------------- voronoi (display)
@pytest.mark.parametrize("n", [1, 2, 3, 25])
def test_voronoi_cells_tile_the_box(n):
    from workbench.geo.voronoi import cell_polygons

    rng = np.random.default_rng(n)
    sites = rng.uniform(0, 10, (n, 2))
    cells = cell_polygons(sites, (-1, -1, 11, 11))
    area = 0.0
    for site, poly in cells.groupby("site"):
        x, y = poly.sort_values("order")[["x", "y"]].to_numpy().T
        area += 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        inside = np.array([[x.mean(), y.mean()]])  # a convex polygon holds its vertices' mean
        assert nearest_site(inside, sites).tolist() == [site]
    assert area == pytest.approx(144.0)
