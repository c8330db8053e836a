"""PowerPoset, DateOfBirthPoset, MultiValuePoset: the thesis' reference checks (Katirai 2006 §4.3.3, §4.3.5,
§4.3.7; errata fixed), the reconstructions' rules, lattice properties (hypothesis), and the local engine
running on them."""

from __future__ import annotations

import datetime as dt
import itertools
from functools import reduce

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests._examples import examples
from workbench.errors import HierarchyError
from workbench.local import greedy, greedy_overlapping, partition
from workbench.local.lub import LocalColumn, LocalProblem
from workbench.local.poset_date_of_birth import DateOfBirthPoset, parse_date
from workbench.local.poset_multivalue import MultiValuePoset
from workbench.local.poset_power import PowerPoset
from workbench.local.poset_range import RangePoset
from workbench.local.posets import FinitePoset

FIG8_BANDS = tuple(range(5, 55, 5))  # Figure 8: int[] rgAge = {5,10,...,50}
ZIP_EDGES = [("021", "*"), ("0213", "021"), ("0214", "021"), ("02138", "0213"), ("02139", "0213"),
             ("02140", "0214"), ("02141", "0214")]  # Example 3 (MatrixPoset), child -> parent
ICD_EDGES = [("I", "*"), ("E", "*"), ("I2", "I"), ("I1", "I"), ("I21", "I2"), ("I22", "I2"), ("I10", "I1"),
             ("I11", "I1"), ("E1", "E"), ("E10", "E1"), ("E11", "E1"), ("E66", "E"),
             ("M", "I"), ("M", "E"), ("M1", "M")]  # a DAG: M has two parents
ICD_CODES = ["I21", "I22", "I10", "I11", "E10", "E11", "E66", "M1"]
PROPS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def text(poset, state) -> str:
    return str(poset.label(np.array([state]))[0])


def fold(poset, states):
    return reduce(lambda x, y: int(poset.lub(x, y)), states)


# ====================================================================================== reference checks
def test_power_and_mode_fixes_the_thesis_example():
    p = PowerPoset.from_values(["011", "001"], mode="and")
    a, b = p.leaves
    assert p.label(p.lub(a, b)) == "001"  # Appendix A: expected_by_definition "001" (thesis prints "011")
    assert p.label_covers(np.array(["001", "001"]), np.array(["011", "001"])).all()
    assert not p.label_covers(np.array(["011"]), np.array(["001"]))[0]
    assert p.cost(p.lub(a, b)) == pytest.approx(1 / 3)  # one 1-bit cleared of three
    assert p.cost(np.array(p.leaves)).tolist() == [0.0, 0.0]


def test_power_per_bit_mode_stars_differing_bits():
    p = PowerPoset.from_values(["011", "001", "110"])
    a, b, c = p.leaves
    assert p.label(p.lub(a, b)) == "0*1"
    assert p.label(p.lub(a, c)) == "*1*"
    assert p.label(p.group_lub(np.array(p.leaves))) == "***"
    assert p.cost(p.group_lub(np.array(p.leaves))) == 1.0
    assert p.height(p.lub(a, b)) == 1 and p.max_height == 3
    assert p.label_covers(np.array(["0*1", "0*1", "0*1"]), np.array(["011", "001", "110"])).tolist() == [
        True, True, False]
    assert p.leaf_count(np.array([p.lub(a, b), a])).tolist() == [2, 1]


def test_power_all_zero_value_is_a_leaf_not_the_top():
    p = PowerPoset.from_values(["000", "111"], mode="and")
    zero, ones = p.leaves
    assert p.cost(zero) == 0.0
    top = p.lub(zero, ones)
    assert p.label(top) == "000" and p.cost(top) == 1.0


def test_multiposet_example_10_row():
    """⟨[10,30], 0213*, (F,T,T)⟩ LUB ⟨[20,35], 0214*, (F,F,T)⟩ = ⟨[10,35], 021**, (F,F,T)⟩ (thesis: (F,T,T))."""
    age = RangePoset.from_values(["10", "30", "20", "35"])
    zipp = FinitePoset.from_edges(ZIP_EDGES, ["0213", "0214"])
    hiv = PowerPoset.from_values(["011", "001"], mode="and")
    cols = [LocalColumn("age", age), LocalColumn("zip", zipp), LocalColumn("flags", hiv)]
    first = np.array([int(age.lub(age.leaves[0], age.leaves[1])), zipp.leaves[0], hiv.leaves[0]])
    second = np.array([int(age.lub(age.leaves[2], age.leaves[3])), zipp.leaves[1], hiv.leaves[1]])
    problem = LocalProblem.build(cols, np.stack([first, second]))
    row = problem.lub_rows(first, second[None, :])[0]
    assert [str(c.poset.label(np.array([s]))[0]) for c, s in zip(cols, row, strict=True)] == [
        "[10, 35]", "021", "001"]


def test_dob_thesis_checks():
    values = ["2/13/1978", "19780213", "19780201", "19781113", "19791013"]
    p = DateOfBirthPoset.from_values(values, base_date="2006-01-01", age_bands=FIG8_BANDS)
    A, B, C, D, E = p.leaves
    assert A == B and p.representative(p.lub(A, B)) == "1978-02-13" and p.label(p.lub(A, B)) == "1978-02-13"
    assert p.representative(p.lub(C, A)) == "1978-02-15" and p.label(p.lub(C, A)) == "1978-02"
    # D is 27 and E is 26 on 2006-01-01: both in [26,30] (the thesis says "[25,30]"); midpoint 28
    de = p.lub(D, E)
    assert p.label(de) == "age 26-30 at 2006-01-01"
    assert p.representative(de) == "1978-01-01"
    assert p.cost(np.array([A, p.lub(C, A), p.lub(A, D), de])).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert p.label_covers(np.array([p.label(de)] * 5), np.array(values)).all()


def test_dob_example_7_bands_and_rules():
    p = DateOfBirthPoset.from_values(["2000-03-01", "2003-05-05", "1910-01-01", "1911-01-01", "1980-01-01",
                                      "2007-01-01", "2008-01-01", "1975-03-01", "1975-11-30"])
    assert [p.band_bounds(b) for b in range(5)] == [(0, 5), (6, 30), (31, 50), (51, 70), (71, 90)]
    kid, toddler, old1, old2, adult, unborn1, unborn2, y1, y2 = p.leaves
    assert p.label(p.lub(kid, toddler)) == "age 0-5 at 2006-01-01"
    assert p.representative(p.lub(kid, toddler)) == "2003-07-01"  # age 2.5: base moved back 30 months
    assert p.representative(p.lub(y1, y2)) == "1975-06-15" and p.label(p.lub(y1, y2)) == "1975"
    assert p.label(p.lub(old1, old2)) == "*"  # 96 and 95: above the last bound
    assert p.label(p.lub(unborn1, unborn2)) == "*"  # born after the base date: no band
    assert p.label(p.lub(kid, adult)) == "*"
    assert p.label(p.lub(p.lub(kid, toddler), adult)) == "*"
    assert p.leaf_count(np.array([p.lub(kid, toddler), p.lub(y1, y2), p.lub(kid, adult)])).tolist() == [2, 2, 9]


def test_dob_year_straddling_a_band_keeps_the_persons_bands():
    """Born 2000-01-01 (6 on 2006-01-01) and 2000-12-31 (5): same year, two bands. Merging that year with
    another year of either band must suppress, although one representative date would fit a band."""
    p = DateOfBirthPoset.from_values(["2000-01-01", "2000-12-31", "2001-06-01", "1999-06-01"])
    six, five, four, six2 = p.leaves
    year = p.lub(six, five)
    assert p.label(year) == "2000"
    assert p.label(p.lub(year, four)) == "*" and p.label(p.lub(year, six2)) == "*"
    assert p.label(p.lub(five, four)) == "age 0-5 at 2006-01-01"
    assert p.label(p.lub(six, six2)) == "age 6-30 at 2006-01-01"


def test_dob_label_covers_reads_text():
    p = DateOfBirthPoset.from_values(["1978-02-13"])
    labels = np.array(["1978-02-13", "1978-02", "1978", "age 26-30 at 2006-01-01", "*", "1978-03", "1977",
                       "age 0-5 at 2006-01-01", "19780213", "garbage", "*"])
    values = np.array(["2/13/1978"] * 10 + ["not a date"])
    assert p.label_covers(labels, values).tolist() == [True] * 5 + [False] * 6


def test_multivalue_zip_sets():
    values = ["02138;02141", "02139;02140", "02138", "02139;02140;02141", ""]
    p = MultiValuePoset.from_values(values, edges=ZIP_EDGES)
    a, b, c, d, empty = p.leaves
    assert p.label(p.lub(a, b)) == "0213;0214"  # 02138~02139 -> 0213, 02141~02140 -> 0214
    assert sorted(text(p, p.lub(c, b)).split(";")) == ["*", "0213"]
    assert p.label(p.lub(empty, c)) == "*" and p.cost(p.lub(empty, c)) == 1.0
    assert p.label(p.lub(empty, empty)) == "" and p.cost(empty) == 0.0
    abd = p.group_lub(np.array([a, b, d]))
    assert p.label_covers(np.array([p.label(abd)] * 3), np.array(values[:2] + values[3:4])).all()
    # costs: 0213 and 0214 are at height 1 of M = 3
    assert p.cost(p.lub(a, b)) == pytest.approx(1 / 3)
    assert p.cost(p.lub(c, b)) == pytest.approx((1 / 3 + 1) / 2)
    assert p.height(np.array([p.lub(a, b), p.lub(c, b), c])).tolist() == [1, 2, 0] and p.max_height == 3
    assert p.label_covers(np.array(["0213;*", "0213;*", "0213;*", "0213", "0213;0213"]),
                          np.array(["02138", "", "02138;02139;02140", "02138;02139", "02138;02139"])).tolist() == [
        True, False, False, False, True]
    assert p.leaf_count(np.array([p.lub(c, b), a])).tolist() == [3, 1]  # 02138 ; 02138;02141 ; 02139;02140


def test_multivalue_parsing_and_errors():
    p = MultiValuePoset.from_values([" I21 ; I10;I21 ;", "E11"], edges=ICD_EDGES, separator=";")
    assert text(p, p.leaves[0]) in ("I21;I10", "I10;I21") and p.cost(np.array(p.leaves)).tolist() == [0, 0]
    with pytest.raises(HierarchyError, match="no node"):
        MultiValuePoset.from_values(["I21;X99"], code_poset=FinitePoset.from_edges(ICD_EDGES, ["I21"]))
    with pytest.raises(HierarchyError, match="exactly one"):
        MultiValuePoset.from_values(["I21"])
    q = MultiValuePoset.from_values(["I21|E11"], edges=ICD_EDGES, separator="|")
    assert sorted(text(q, q.leaves[0]).split("|")) == ["E11", "I21"]


def test_bad_inputs():
    with pytest.raises(HierarchyError):
        PowerPoset.from_values(["011", "01"])
    with pytest.raises(HierarchyError):
        PowerPoset.from_values(["0a1"])
    with pytest.raises(HierarchyError):
        PowerPoset.from_values(["01"], mode="or")
    with pytest.raises(HierarchyError):
        DateOfBirthPoset.from_values(["1978-02-30"])
    with pytest.raises(HierarchyError):
        DateOfBirthPoset.from_values(["1978-02-03"], age_bands=(10, 5))
    with pytest.raises(HierarchyError):
        DateOfBirthPoset.from_values(["1978-02-03"], base_date="01/01/2006x")
    assert parse_date("2/13/1978") == parse_date("19780213") == dt.date(1978, 2, 13)


# ====================================================================================== properties
def _groups(n_values: int):
    idx = st.integers(0, n_values - 1)
    return st.tuples(st.lists(idx, min_size=1, max_size=4), st.lists(idx, min_size=1, max_size=4))


def check_lattice_properties(poset, values, ga, gb, exact_fold: bool, perm_seed: int = 0):
    leaves = np.asarray(poset.leaves, dtype=np.int64)
    assert leaves.dtype == np.int64
    a, b = fold(poset, leaves[ga].tolist()), fold(poset, leaves[gb].tolist())
    c = int(poset.lub(a, b))
    # commutative, idempotent
    assert c == int(poset.lub(b, a))
    assert int(poset.lub(a, a)) == a and int(poset.lub(c, c)) == c
    # upper bound: the released label covers every original value of both groups
    originals = np.array([values[i] for i in ga + gb], dtype=object)
    assert poset.label_covers(np.array([poset.label(np.array([c]))[0]] * len(originals)), originals).all()
    # cost monotone, in [0, 1]; leaves cost 0 and cover their own values
    ca, cb, cc = (float(poset.cost(np.array(x))) for x in (a, b, c))
    assert cc >= max(ca, cb) - 1e-12 and 0 <= cc <= 1
    assert np.all(poset.cost(leaves) == 0)
    assert poset.label_covers(poset.label(leaves), np.array(values, dtype=object)).all()
    assert 0 <= int(poset.height(np.array(c))) <= poset.max_height
    # group LUB
    group = leaves[ga + gb]
    g = poset.group_lub(group)
    assert isinstance(g, int)
    if exact_fold:
        order = np.random.default_rng(perm_seed).permutation(len(group))
        assert g == fold(poset, group[order].tolist()) == fold(poset, group.tolist())
        assert g == c  # associativity: LUB of the two folds is the LUB of the whole group
    assert poset.label_covers(np.array([poset.label(np.array([g]))[0]] * len(originals)), originals).all()
    # int64 states and broadcasting
    sa = np.array([a, b, c], dtype=np.int64)
    table = poset.lub(sa[:, None], leaves[None, :])
    assert table.dtype == np.int64 and table.shape == (3, len(leaves))
    assert all(table[i, j] == int(poset.lub(int(sa[i]), int(leaves[j])))
               for i, j in itertools.product(range(3), range(len(leaves))))
    assert poset.cost(table).shape == table.shape
    assert np.all(poset.leaf_count(np.array([c])) >= 1)
    check_describe(poset, np.array([a, b, c, g, *leaves.tolist()], dtype=np.int64))


def check_describe(poset, states: np.ndarray) -> None:
    """``describe`` (what the measures read) agrees with what the engine minimizes and releases: height /
    max_height is the cost, cells share a code exactly when they share a state, and a code covers exactly the
    values its label covers (read back from the text)."""
    cells = poset.describe(states)
    if cells.max_height > 0:
        assert cells.height / cells.max_height == pytest.approx(poset.cost(states))
    else:
        assert np.all(poset.cost(states) == 0)
    assert np.array_equal(cells.codes[:, None] == cells.codes[None, :], states[:, None] == states[None, :])
    values = np.asarray(poset.values, dtype=object)
    for code, state in zip(cells.codes.tolist(), states.tolist(), strict=True):
        from_text = poset.label_covers(np.repeat(poset.label(np.array([state])), len(values)), values)
        assert cells.covers[code].tolist() == from_text.tolist()
        assert cells.leaf_count[code] == from_text.sum()
    if cells.share is not None:  # ARX's domain share: at least a leaf's 1/D, at most the whole domain
        assert cells.share_domain is not None
        share = np.asarray(cells.share, dtype=float)[cells.codes] / cells.share_domain
        assert np.all((1 / cells.share_domain - 1e-12 <= share) & (share <= 1 + 1e-12))


@pytest.mark.parametrize("kind", ["tree", "matrix", "range", "range_max_diff"])
@given(seed=st.integers(0, 10_000))
@settings(max_examples=examples(25), deadline=None)
def test_describe_of_finite_and_range_posets(kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "matrix":
        poset = FinitePoset.from_edges(ICD_EDGES, ICD_CODES)
    elif kind == "tree":
        poset = FinitePoset.from_edges(ZIP_EDGES, ["02138", "02139", "02140", "02141"], kind="tree")
    else:
        numbers = sorted({str(int(x)) for x in rng.choice([0, 1, 2, 5, 9, 30, 31, 80], size=5)})
        poset = RangePoset.from_values(numbers, max_diff=10.0 if kind == "range_max_diff" else None)
    leaves = np.asarray(poset.leaves, dtype=np.int64)
    pairs = rng.choice(leaves, size=(6, 2))
    states = np.concatenate([leaves, [int(poset.group_lub(p)) for p in pairs]]).astype(np.int64)
    check_describe(poset, states)


@PROPS
@given(bits=st.integers(1, 6), data=st.data(), mode=st.sampled_from(["per_bit", "and"]), seed=st.integers(0, 99))
def test_power_properties(bits, data, mode, seed):
    flags = st.text(alphabet="01", min_size=bits, max_size=bits)
    values = data.draw(st.lists(flags, min_size=1, max_size=8, unique=True))
    ga, gb = data.draw(_groups(len(values)))
    check_lattice_properties(PowerPoset.from_values(values, mode=mode), values, ga, gb, True, seed)


_DATES = st.builds(lambda y, m, d: f"{y:04d}-{m:02d}-{d:02d}", st.sampled_from([1910, 1950, 1978, 1979, 2000,
                                                                              2003, 2004, 2008]),
                   st.sampled_from([1, 2, 6, 12]), st.sampled_from([1, 13, 28]))


@PROPS
@given(data=st.data(), bands=st.sampled_from([(5, 30, 50, 70, 90), FIG8_BANDS, (0, 3, 60)]),
       base=st.sampled_from(["2006-01-01", "2004-06-15"]), seed=st.integers(0, 99))
def test_dob_properties(data, bands, base, seed):
    values = data.draw(st.lists(_DATES, min_size=1, max_size=10, unique=True))
    ga, gb = data.draw(_groups(len(values)))
    check_lattice_properties(DateOfBirthPoset.from_values(values, base_date=base, age_bands=bands), values,
                             ga, gb, True, seed)


_CELLS = st.lists(st.sampled_from(ICD_CODES), max_size=3).map(";".join)


@PROPS
@given(data=st.data())
def test_multivalue_properties(data):
    values = data.draw(st.lists(_CELLS, min_size=1, max_size=8, unique=True))
    ga, gb = data.draw(_groups(len(values)))
    p = MultiValuePoset.from_values(values, edges=ICD_EDGES)
    check_lattice_properties(p, values, ga, gb, False)
    # group_lub is the fold in its documented order: largest multisets first, then by node ids
    group = sorted(set(np.asarray(p.leaves)[ga + gb].tolist()), key=lambda s: (-len(p.members(s)), p.members(s)))
    assert p.group_lub(np.asarray(p.leaves)[ga + gb]) == fold(p, group)
    # result size is the largest operand's
    a, b = fold(p, np.asarray(p.leaves)[ga].tolist()), fold(p, np.asarray(p.leaves)[gb].tolist())
    assert len(p.members(int(p.lub(a, b)))) == max(len(p.members(a)), len(p.members(b)))


# ====================================================================================== the local engine
def _engine_problem():
    rng = np.random.default_rng(7)
    n = 40
    flags = [("".join(rng.choice(list("01"), 3))) for _ in range(n)]
    dates = [f"{rng.choice([1950, 1978, 1979, 2001])}-{rng.integers(1, 13):02d}-{rng.integers(1, 29):02d}"
             for _ in range(n)]
    cells = [";".join(rng.choice(ICD_CODES, rng.integers(0, 3), replace=False)) for _ in range(n)]
    columns, states, raw = [], [], {}
    for name, data, make in [("flags", flags, lambda v: PowerPoset.from_values(v, mode="and")),
                             ("dob", dates, lambda v: DateOfBirthPoset.from_values(v)),
                             ("dx", cells, lambda v: MultiValuePoset.from_values(v, edges=ICD_EDGES))]:
        values, index = np.unique(np.array(data, dtype=str), return_inverse=True)
        poset = make(values.tolist())
        columns.append(LocalColumn(name, poset))
        states.append(np.asarray(poset.leaves, dtype=np.int64)[index])
        raw[name] = np.array(data, dtype=object)
    return LocalProblem.build(columns, np.stack(states, axis=1)), raw


@pytest.mark.parametrize("algorithm", [greedy, partition, greedy_overlapping])
def test_local_engine_runs_on_the_new_posets(algorithm):
    problem, raw = _engine_problem()
    k = 3
    result = algorithm.search(problem, k)
    for j, col in enumerate(problem.columns):
        labels = col.poset.label(result.released[:, j])
        assert col.poset.label_covers(labels, raw[col.name]).all(), col.name
    if result.guarantee == "k-anonymity":
        _, counts = np.unique(result.released, axis=0, return_counts=True)
        assert counts.min() >= k


def _covers_by_brute_force(p: MultiValuePoset, released: list[list[int]], original: list[int]) -> bool:
    """Some injection of the original codes into the released elements covers each one, every unused element
    being the top (every assignment tried)."""
    names, anc = p.code_poset.names, p.code_poset.ancestors
    top = names[p.top]
    if len(released) < len(original):
        return False
    for slots in itertools.permutations(range(len(released)), len(original)):
        used = set(slots)
        if all(any(anc[leaf, n] for n in released[s]) for leaf, s in zip(original, slots, strict=True)) and all(
                any(names[n] == top for n in released[r]) for r in range(len(released)) if r not in used):
            return True
    return False


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data())
def test_multivalue_cover_matching_equals_brute_force(data):
    """``MultiValuePoset._covers`` (a maximum bipartite matching) decides what trying every injection does."""
    p = MultiValuePoset.from_values(["02138;02139", "02140;02141"], edges=ZIP_EDGES)
    nodes = list(range(p.code_poset.size))
    leaves = [p.code_poset.leaves[i] for i in range(len(p.code_poset.leaves))]
    released = data.draw(st.lists(st.lists(st.sampled_from(nodes), min_size=1, max_size=2), max_size=4))
    original = data.draw(st.lists(st.sampled_from(leaves), max_size=4))
    assert p._covers(released, original) == _covers_by_brute_force(p, released, original)


def test_topological_order_puts_children_first_and_finds_cycles():
    p = FinitePoset.from_edges(ZIP_EDGES, ["02138", "02139", "02140", "02141"])
    position = {v: i for i, v in enumerate(p._topological())}
    assert all(position[v] < position[q] for v in range(p.size) for q in p.parents[v])
    with pytest.raises(HierarchyError, match="cycle through"):
        FinitePoset.from_edges([("a", "b"), ("b", "c"), ("c", "b"), ("c", "*")], ["a"])
