"""Hierarchy builders: worked examples, structural properties (hypothesis) and every ConfigError."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests._examples import examples
from workbench.errors import ConfigError
from workbench.hierarchy.builders import build_hierarchy, dates, groupings, masking
from workbench.hierarchy.intervals import intervals
from workbench.hierarchy.missing import MISSING
from workbench.hierarchy.tree import Hierarchy
from workbench.hierarchy.values import NOT_A_NUMBER, natural_sorted, numeric_profile


def assert_sound(h: Hierarchy, values: list[str]) -> None:
    """Valid tree covering exactly the distinct values, root "*", and an ARX text round trip."""
    h.check(values)
    assert sorted(h.values) == sorted(set(values))
    assert h.level_labels(h.height) == ["*"]
    assert Hierarchy.parse_arx(h.to_arx()).rows == h.rows


def path(h: Hierarchy, value: str) -> tuple[str, ...]:
    return next(r for r in h.rows if r[0] == value)


# ---------------------------------------------------------------------------------------------- ordering
def test_natural_order_numbers_numerically_then_text_then_missing():
    assert natural_sorted(["10", "9", "", "b", "a10", "a9", "-1", "2.5", "9"]) == [
        "-1", "2.5", "9", "10", "a9", "a10", "b", "",
    ]  # fmt: skip


# ---------------------------------------------------------------------------------------------- intervals
def test_intervals_5_10_20_with_top_90():
    values = ["18", "13", "22", "89", "90", "97", "0", "44"]
    h = intervals(values, [5, 10, 20], top=90, name="age")
    assert_sound(h, values)
    assert h.height == 4
    assert h.values == ["0", "13", "18", "22", "44", "89", "90", "97"]
    assert path(h, "18") == ("18", "15-19", "10-19", "0-19", "*")
    assert path(h, "13") == ("13", "10-14", "10-19", "0-19", "*")
    assert path(h, "44") == ("44", "40-44", "40-49", "40-59", "*")
    assert path(h, "89") == ("89", "85-89", "80-89", "80-89", "*")  # the 80-99 band is cut at the top code
    assert path(h, "90") == ("90", "90+", "90+", "90+", "*")
    assert path(h, "97") == ("97", "90+", "90+", "90+", "*")


def test_intervals_top_not_aligned_cuts_the_band_label():
    h = intervals(["90", "91", "92"], [5], top=92)
    assert [r[1] for r in h.rows] == ["90-91", "90-91", "92+"]


def test_intervals_bottom_aligns_bands_and_labels_values_below():
    values = ["17", "18", "22", "23", "30"]
    h = intervals(values, [5, 10], bottom=18)
    assert_sound(h, values)
    assert path(h, "17") == ("17", "<18", "<18", "*")
    assert path(h, "18") == ("18", "18-22", "18-27", "*")
    assert path(h, "23") == ("23", "23-27", "18-27", "*")
    assert path(h, "30") == ("30", "28-32", "28-37", "*")


def test_intervals_negative_values_use_floor_alignment():
    h = intervals(["-3", "-5", "4"], [5])
    assert path(h, "-3") == ("-3", "-5--1", "*")
    assert path(h, "-5") == ("-5", "-5--1", "*")
    assert path(h, "4") == ("4", "0-4", "*")


def test_intervals_non_integer_data_get_half_open_labels():
    values = ["20.5", "24.99", "25", "1.25"]
    h = intervals(values, [5, 10])
    assert_sound(h, values)
    assert path(h, "20.5") == ("20.5", "[20.0, 25.0[", "[20.0, 30.0[", "*")
    assert path(h, "25") == ("25", "[25.0, 30.0[", "[20.0, 30.0[", "*")
    assert path(h, "1.25") == ("1.25", "[0.0, 5.0[", "[0.0, 10.0[", "*")


def test_intervals_non_integer_widths_give_half_open_labels():
    h = intervals(["1", "3"], [2.5, 5])
    assert path(h, "3") == ("3", "[2.5, 5.0[", "[0.0, 5.0[", "*")


def test_intervals_non_numeric_values_keep_their_label_when_asked():
    values = ["", "unknown", "30"]
    with pytest.raises(ConfigError, match=r"1 value\(s\) are not numbers: 'unknown' \(1\)"):  # by default
        intervals(values, [10, 20])
    h = intervals(values, [10, 20], non_numeric="keep")
    assert_sound(h, values)
    assert h.values == ["30", "unknown", ""]
    assert path(h, "") == ("", MISSING, MISSING, "*")  # the missing value: its own labelled branch
    assert path(h, "unknown") == ("unknown", "unknown", "unknown", "*")


def test_intervals_rejects_widths_that_do_not_nest():
    with pytest.raises(ConfigError, match=r"\[5, 7\].*multiple"):
        intervals(["1"], [5, 7])


@pytest.mark.parametrize(
    ("widths", "kwargs", "match"),
    [
        ([5, 0], {}, "positive"),
        ([-5], {}, "positive"),
        ([5, "10"], {}, "number"),
        ([float("nan")], {}, "finite"),
        ("5", {}, "list"),
        ([5], {"top": 10, "bottom": 20}, "greater than bottom"),
        ([5], {"top": "90"}, "top must be a number"),
        ([5], {"bottom": True}, "bottom must be a number"),
    ],
)
def test_intervals_config_errors(widths, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        intervals(["1", "2"], widths, **kwargs)


def test_intervals_label_collision_is_a_config_error():
    with pytest.raises(ConfigError, match="not a tree"):
        intervals(["20-24", "22"], [5, 10], non_numeric="keep")


def test_builders_reject_empty_value_sets():
    with pytest.raises(ConfigError, match="no values"):
        intervals([], [5])


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.integers(-200, 200), min_size=1, max_size=40),
    st.lists(st.integers(1, 4), min_size=1, max_size=4),
    st.integers(1, 7),
    st.one_of(st.none(), st.integers(-200, 200)),
)
def test_intervals_property_tree_roundtrip_and_containment(ints, factors, first, top):
    widths = [first]
    for f in factors[1:]:
        widths.append(widths[-1] * f)
    values = [str(i) for i in ints]
    h = intervals(values, widths, top=top)
    assert_sound(h, values)
    assert h.height == len(widths) + 1
    for row in h.rows:
        x = int(row[0])
        for label, w in zip(row[1:-1], widths, strict=True):
            if top is not None and x >= top:
                assert label == f"{top}+"
                continue
            lo, hi = (int(p) for p in label.rsplit("-", 1)) if not label.startswith("-") else _neg(label)
            assert lo <= x <= hi and lo % w == 0 and hi - lo < w


def _neg(label: str) -> tuple[int, int]:
    lo, hi = label[1:].split("-", 1)
    return -int(lo), int(hi)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.decimals(-1000, 1000, places=2, allow_nan=False), min_size=1, max_size=30))
def test_intervals_property_decimal_data(decimals):
    values = [str(d) for d in decimals]
    h = intervals(values, [0.5, 1, 10])
    assert_sound(h, values)


# ---------------------------------------------------------------------------------------------- masking
def test_masking_postal_code_chain():
    values = ["02139", "02138", "10001", ""]
    h = masking(values, name="zip")
    assert_sound(h, values)
    assert h.height == 5
    assert path(h, "02139") == ("02139", "0213*", "021**", "02***", "0****", "*")
    assert path(h, "10001") == ("10001", "1000*", "100**", "10***", "1****", "*")
    assert path(h, "") == ("", MISSING, MISSING, MISSING, MISSING, "*")
    assert h.values == ["02138", "02139", "10001", ""]


def test_masking_custom_char_keeps_root_star():
    h = masking(["ab", "ac"], char="#")
    assert path(h, "ab") == ("ab", "a#", "*")


def test_masking_single_character_values():
    h = masking(["a", "b"])
    assert h.rows == (("a", "*"), ("b", "*"))


def test_masking_unequal_lengths_names_an_example_of_each_length():
    with pytest.raises(ConfigError) as info:
        masking(["021", "02139", "02138", "9"])
    message = str(info.value)
    assert "'9' (length 1)" in message and "'021' (length 3)" in message and "(length 5)" in message


@pytest.mark.parametrize("char", ["", "ab", 1])
def test_masking_bad_char(char):
    with pytest.raises(ConfigError, match="single character"):
        masking(["12"], char=char)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.integers(1, 8).flatmap(lambda n: st.lists(st.text("0123456789ab", min_size=n, max_size=n), min_size=1))
)
def test_masking_property(values):
    h = masking(values + [""])
    assert_sound(h, values + [""])
    assert h.height == len(values[0])
    for row in h.rows[:-1]:
        for i, label in enumerate(row[1:-1], start=1):
            assert label == row[0][:-i] + "*" * i


# ---------------------------------------------------------------------------------------------- dates
def test_dates_default_chain():
    values = ["2008-01-15", "2007-12-31", "2019-06-01", ""]
    h = dates(values)
    assert_sound(h, values)
    assert h.height == 4
    assert path(h, "2008-01-15") == ("2008-01-15", "2008-01", "2008", "2000-2009", "*")
    assert path(h, "2019-06-01") == ("2019-06-01", "2019-06", "2019", "2010-2019", "*")
    assert path(h, "") == ("", MISSING, MISSING, MISSING, "*")
    assert h.values == ["2007-12-31", "2008-01-15", "2019-06-01", ""]


def test_dates_custom_format_is_sorted_chronologically():
    h = dates(["02/01/2008", "31/12/2007", "01/02/2008"], format="%d/%m/%Y", levels=["month", "year"])
    assert h.values == ["31/12/2007", "02/01/2008", "01/02/2008"]
    assert path(h, "02/01/2008") == ("02/01/2008", "2008-01", "2008", "*")


def test_dates_week_and_quarter_levels():
    h = dates(["2008-01-07", "2008-01-08", "2008-12-31"], levels=["week", "year"])
    assert [r[1] for r in h.rows] == ["2008-W01", "2008-W02", "2008-W53"]
    q = dates(["2008-03-31", "2008-04-01"], levels=("quarter", "decade"))
    assert [r[1] for r in q.rows] == ["2008-Q1", "2008-Q2"]


@pytest.mark.parametrize(
    ("levels", "match"),
    [
        (["year", "month"], "increasing coarseness"),
        (["month", "month"], "increasing coarseness"),
        (["fortnight"], "unknown level"),
        (["week", "month"], "weeks cross month"),
        (["week", "quarter"], "weeks cross quarter"),
        ("month", "list"),
    ],
)
def test_dates_bad_levels(levels, match):
    with pytest.raises(ConfigError, match=match):
        dates(["2008-01-01"], levels=levels)


def test_dates_unparseable_values_name_values_and_format():
    with pytest.raises(ConfigError) as info:
        dates(["2008-01-01", "01/01/2008", "soon", ""], format="%Y-%m-%d")
    message = str(info.value)
    assert "'01/01/2008'" in message and "'soon'" in message and "'%Y-%m-%d'" in message
    assert "2 value(s)" in message


@settings(max_examples=examples(50), deadline=None)
@given(
    st.lists(st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31)), min_size=1, max_size=40),
    st.sampled_from([["week", "year", "decade"], ["month", "quarter", "year"], ["quarter", "decade"], []]),
)
def test_dates_property(days, levels):
    values = [d.strftime("%d.%m.%Y") for d in days]
    h = dates(values, format="%d.%m.%Y", levels=levels)
    assert_sound(h, values)
    assert h.height == len(levels) + 1
    parsed = [dt.datetime.strptime(v, "%d.%m.%Y").date() for v in h.values]
    assert parsed == sorted(parsed)


# ---------------------------------------------------------------------------------------------- groupings
def test_groupings_two_levels():
    levels = [
        {"White": "Not visible", "Black": "Visible", "Asian": "Visible", "Unused": "Visible"},
        {"Not visible": "Any", "Visible": "Any"},
    ]
    values = ["Asian", "White", "Black", ""]
    h = groupings(values, levels, name="ethnicity")
    assert_sound(h, values)
    assert h.rows == (
        ("Asian", "Visible", "Any", "*"),
        ("Black", "Visible", "Any", "*"),
        ("White", "Not visible", "Any", "*"),
        ("", MISSING, MISSING, "*"),
    )


def test_groupings_without_levels_is_value_to_root():
    assert groupings(["M", "F"], []).rows == (("F", "*"), ("M", "*"))


def test_groupings_keys_and_groups_are_compared_as_text():
    h = groupings(["1", "2"], [{1: 10, 2: 10}])
    assert h.rows == (("1", "10", "*"), ("2", "10", "*"))


def test_groupings_missing_values_are_all_named():
    with pytest.raises(ConfigError) as info:
        groupings(["a", "b", "c", "d", "e", "f", "g"], [{"a": "A"}])
    assert "6 value(s): 'b', 'c', 'd', 'e', 'f', 'g'" in str(info.value)


def test_groupings_missing_groups_at_every_level_are_named():
    with pytest.raises(ConfigError) as info:
        groupings(["a", "b", "c"], [{"a": "A", "b": "B"}, {"A": "X"}])
    message = str(info.value)
    assert "level 1 has no group for 1 value(s): 'c'" in message
    assert "level 2 has no group for 1 level-1 group(s): 'B'" in message


@pytest.mark.parametrize("levels", [{"a": "A"}, "a", [["a", "A"]]])
def test_groupings_bad_levels(levels):
    with pytest.raises(ConfigError, match="level"):
        groupings(["a"], levels)


@settings(max_examples=examples(50), deadline=None)
@given(
    st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=6), min_size=1)
)
def test_groupings_property_any_text_roundtrips(values):
    level1 = {v: f"g{len(v) % 3}" for v in values}
    h = groupings(values, [level1, {"g0": "G", "g1": "G", "g2": "H"}])
    assert_sound(h, values)


# ---------------------------------------------------------------------------------------------- dispatch
def test_build_hierarchy_dispatches_every_kind():
    age = build_hierarchy({"kind": "intervals", "widths": [5, 10, 20], "top": 90}, ["18", "95"], "age")
    assert path(age, "95") == ("95", "90+", "90+", "90+", "*") and age.name == "age"
    zip_ = build_hierarchy({"kind": "masking"}, ["02139"], "zip")
    assert zip_.rows[0] == ("02139", "0213*", "021**", "02***", "0****", "*")
    day = build_hierarchy(
        {"kind": "dates", "format": "%d/%m/%Y", "levels": ["month", "year"]}, ["01/02/2008"], "d"
    )
    assert day.rows[0] == ("01/02/2008", "2008-02", "2008", "*")
    sex = build_hierarchy(
        {"kind": "groupings", "levels": [{"M": "Person", "F": "Person"}]}, ["M", "F"], "sex"
    )
    assert sex.rows == (("F", "Person", "*"), ("M", "Person", "*"))


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        (
            {"kind": "interval"},
            r"^hierarchy builder for 'age': unknown kind 'interval' \(known: dates, groupings",
        ),
        ({"widths": [5]}, r"^hierarchy builder for 'age': missing key 'kind'"),
        ({"kind": 3}, r"unknown kind 3"),
        ([("kind", "masking")], r"must be a table"),
        ({"kind": "intervals"}, r"^builder 'intervals' for 'age': missing parameter 'widths'"),
        (
            {"kind": "intervals", "widths": [5], "widht": 2},
            r"^builder 'intervals' for 'age': unknown parameter 'widht'",
        ),
        (
            {"kind": "intervals", "widths": 5},
            r"^builder 'intervals' for 'age': parameter 'widths' must be a list",
        ),
        ({"kind": "intervals", "widths": [5], "top": "90"}, r"parameter 'top' must be a number"),
        (
            {"kind": "intervals", "widths": [5, 7]},
            r"^builder 'intervals' for 'age': widths \[5, 7\] do not nest",
        ),
        ({"kind": "masking", "char": 1}, r"^builder 'masking' for 'age': parameter 'char'"),
        ({"kind": "masking", "width": 1}, r"unknown parameter 'width' \(known: char\)"),
        (
            {"kind": "dates", "levels": "month"},
            r"^builder 'dates' for 'age': parameter 'levels' must be a list",
        ),
        ({"kind": "dates", "format": 3}, r"parameter 'format' must be a strptime format"),
        ({"kind": "groupings"}, r"^builder 'groupings' for 'age': missing parameter 'levels'"),
        ({"kind": "groupings", "levels": {"a": "b"}}, r"parameter 'levels' must be a list of tables"),
    ],
)
def test_build_hierarchy_errors_are_one_line_naming_builder_and_key(spec, match):
    with pytest.raises(ConfigError, match=match) as info:
        build_hierarchy(spec, ["18"], "age")
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------------------------- interval shares
def test_intervals_carry_arx_interval_shares():
    """ARX's DomainShareInterval for integer bands: a band's share is its width over the domain's. Ages 17..95
    with widths 5, 10, 20 and top 90: the regular bands cover [0, 90) (the widest band holding 17 starts at 0),
    the top-coded 90+ holds the integers 90..95 (6), so D = 96; the missing value is ARX's null interval (1)."""
    h = intervals(["17", "18", "25", "39", "90", "95", ""], [5, 10, 20], top=90)
    s = h.interval_shares
    assert s is not None and s.domain == 90 + 6
    assert s.widths[1] == {"15-19": 5, "25-29": 5, "35-39": 5, "90+": 6, MISSING: 1}
    assert s.widths[3] == {"0-19": 20, "20-39": 20, "90+": 6, MISSING: 1}
    assert set(s.widths[0].values()) == {1} and s.widths[4] == {"*": 96}
    # bottom 15: 12 is bottom-coded (<15 holds 12..14: 3), bands run from 15 to the end of the band of 39 (45)
    b = intervals([17, 18, 25, 39, 12], [5, 10], bottom=15).interval_shares
    assert b is not None and b.domain == 3 + (45 - 15)
    assert b.widths[2] == {"<15": 3, "15-24": 10, "25-34": 10, "35-44": 10}


def test_decimal_intervals_and_read_back_files_use_hierarchy_rows():
    """Interval shares need integer bands; decimal bands and a hierarchy read back from an ARX file (which
    keeps only the rows) use ARX's materialized shares (hierarchy rows)."""
    assert intervals(["0.25", "1.5"], [0.5, 1]).interval_shares is None
    h = intervals(["17", "25"], [5, 10])
    back = Hierarchy.parse_arx(h.to_arx())
    assert back.rows == h.rows and back.interval_shares is None
    shares, rows = back.domain_shares([["17", "25"], ["15-19", "25-29"], ["10-19", "20-29"], ["*"]])
    assert rows == 2 and [list(a) for a in shares] == [[1, 1], [1, 1], [1, 1], [2]]


@given(
    st.lists(st.integers(-60, 60), min_size=1, max_size=30),
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.integers(1, 5),
    st.one_of(st.none(), st.integers(-60, 60)),
    st.one_of(st.none(), st.integers(-60, 60)),
)
def test_interval_shares_are_widths_of_the_labels(ints, factors, first, top, bottom):
    """Every label's width is the number of integers it names (``lo-hi``: hi − lo + 1; ``top+``: top..max;
    ``<bottom``: min..bottom−1), widths grow up each row, and the root is the domain, at least every width."""
    if top is not None and bottom is not None and top <= bottom:
        top = None
    widths = [first]
    for f in factors[1:]:
        widths.append(widths[-1] * f)
    h = intervals([str(i) for i in ints], widths, top=top, bottom=bottom)
    s = h.interval_shares
    assert s is not None
    for row in h.rows:
        named = [1]
        for label in row[1:-1]:
            if label.endswith("+"):
                named.append(max(ints) - int(label[:-1]) + 1)
            elif label.startswith("<"):
                named.append(int(label[1:]) - min(ints))
            else:
                lo, hi = (int(p) for p in label.rsplit("-", 1)) if not label.startswith("-") else _neg(label)
                named.append(hi - lo + 1)
        named.append(s.domain)
        assert [s.widths[level][label] for level, label in enumerate(row)] == named
        assert named == sorted(named)


def test_intervals_read_decimal_commas_when_asked():
    values = ["29,0", "31,5", "45"]
    assert numeric_profile(values).comma_decimals == 2
    with pytest.raises(ConfigError, match=r"2 value\(s\) are not numbers: '29,0' \(1\)"):  # named, not kept
        intervals(values, [10, 20])
    assert path(intervals(values, [10, 20], non_numeric="keep"), "29,0") == ("29,0", "29,0", "29,0", "*")
    h = intervals(values, [10, 20], decimal_comma=True)
    assert_sound(h, values)
    assert path(h, "29,0") == ("29,0", "[20.0, 30.0[", "[20.0, 40.0[", "*")
    assert path(h, "31,5") == ("31,5", "[30.0, 40.0[", "[20.0, 40.0[", "*")


def test_intervals_name_text_values_with_counts_and_place_them_as_chosen():
    values = ["30", "unknown", "n/a", "unknown", "?", "about 30", "", "41"]
    profile = numeric_profile(values)
    assert profile.not_numbers[0] == ("unknown", 2) and len(profile.not_numbers) == 4 and profile.missing == 1
    with pytest.raises(ConfigError, match=r"4 value\(s\) are not numbers: 'unknown' \(2\)"):
        intervals(values, [10, 20], non_numeric="error")
    grouped = intervals(values, [10, 20], non_numeric="group")
    assert_sound(grouped, values)
    assert path(grouped, "n/a") == ("n/a", NOT_A_NUMBER, NOT_A_NUMBER, "*") and path(grouped, "")[1] == MISSING
    missing = intervals(values, [10, 20], non_numeric="missing")
    assert path(missing, "?") == ("?", MISSING, MISSING, "*") and path(missing, "")[1] == MISSING
    with pytest.raises(ConfigError, match="non_numeric"):
        build_hierarchy({"kind": "intervals", "widths": [10], "non_numeric": "drop"}, values, name="age")


def test_every_builder_labels_the_missing_value_and_says_where_it_goes():
    """Issue 18, item 10: an empty cell is "(missing)" above its leaf in every builder (never a blank label in a
    tree or table), and ``missing_placement`` says where it goes; a group the analyst picks is kept."""
    from workbench.hierarchy.missing import missing_placement

    built = [intervals(["30", "41", ""], [10, 20]), masking(["02139", "02138", ""]),
             dates(["2008-01-15", ""], levels=["year"]), groupings(["F", "M", ""], [{"F": "*", "M": "*"}])]
    for h in built:
        assert all(label == MISSING for label in path(h, "")[1:-1]) and path(h, "")[-1] == "*"
        assert "own group '(missing)'" in missing_placement(h)
    chosen = groupings(["F", "M", ""], [{"F": "known", "M": "known", "": "unknown"}])
    assert path(chosen, "") == ("", "unknown", "*") and "unknown → *" in missing_placement(chosen)
    assert missing_placement(intervals(["30", "41"], [10])) is None
