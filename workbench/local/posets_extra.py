"""Three more poset kinds for the local engine (Katirai 2006, §4.3.3, §4.3.5, §4.3.6): bit vectors, dates of
birth and sets of codes.

They follow the protocol of ``workbench.local.posets``. States are int64 and every operation broadcasts. Each
class offers ``leaves`` (the state of each data value, in the order of ``values``), ``lub``, ``group_lub``,
``cost`` (in [0, 1]: 0 at an original value, 1 at the top), ``label``, ``height``/``max_height``,
``label_covers`` (does a released label generalize the original value beside it, read from the text),
``leaf_count`` (how many of the poset's data values each released state's label covers) and ``describe``
(the column as the measures read it, from the labels: ``workbench.local.posets.describe_by_labels``).

- ``PowerPoset`` (kind ``"power"``): flags such as ``"011"``. The LUB is per bit (``"0*1"``) or, as in the
  thesis, bitwise AND.
- ``DateOfBirthPoset`` (kind ``"date_of_birth"``): day, then month, then year, then an age band at a base
  date, then ``*``.
- ``MultiValuePoset`` (kind ``"multivalue"``): a cell holds a set of codes (``"I21;I10"``), and each code is
  generalized through a ``FinitePoset``. The thesis leaves this LUB undefined, so the one here is a
  documented reconstruction.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

import numpy as np

from workbench.errors import HierarchyError
from workbench.local.posets import ROOT, ColumnCells, FinitePoset, describe_by_labels

__all__ = ["DateOfBirthPoset", "MultiValuePoset", "PowerPoset"]


def _i64(x: np.ndarray | int) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)


def _chunked_counts(states: np.ndarray, n_values: int, count) -> np.ndarray:
    """``count(block)`` over blocks of states, so a states × values comparison stays small."""
    flat = _i64(states).ravel()
    step = max(1, 4_000_000 // max(n_values, 1))
    parts = [count(flat[i:i + step]) for i in range(0, flat.size, step)]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)


# ====================================================================================== PowerPoset
@dataclass(frozen=True, eq=False)
class PowerPoset:
    """Bit vectors (Katirai's PowerPoset, §4.3.3).

    **Text format.** A value is a string of ``0``/``1`` characters, all of the same length (``bits``): for
    example ``"011"``, where position 1 is the leftmost character. The thesis' Boolean tuples such as
    ``(F,T,T)`` are written ``"011"``. A value may have up to 31 bits.

    **State.** Every bit is in one of three states: 0, 1, or *lost*. A bit is lost when the generalized group
    disagrees on it. The state is packed as ``value | lost << bits``, where ``value`` is the bit pattern (0 at
    lost bits) and ``lost`` is the mask of lost bits. An original value has no lost bits. The LUB of two
    states is ``lost = lost_a | lost_b | (value_a ^ value_b)`` and ``value = value_a & ~lost``. This join is
    the product of the flat lattices {0, 1} -> lost, one per bit. It is a lattice join, so it is
    commutative, associative and idempotent, and ``group_lub`` equals any fold of ``lub``.

    The two modes share these states and differ only in what is released:

    - ``mode="per_bit"`` (the default; the digest's recommended modern semantics). Each bit is a 2-level
      poset {0, 1} -> ``*``: the LUB keeps equal bits and turns differing bits into ``*``. The label prints
      lost bits as ``*``: LUB("011", "001") = ``"0*1"``. A label covers a value when every non-``*``
      character equals the value's bit.
    - ``mode="and"`` (the thesis). The LUB is bitwise AND, "keep traits common to both", and a lost bit is
      released as 0. The thesis' errata are fixed: LUB("011", "001") = ``"001"`` (the thesis prints
      ``"011"``), and in Example 10 LUB((F,T,T), (F,F,T)) = (F,F,T). A released 0 means "absent or unknown",
      so a label covers a value when every 1 of the label is also a 1 of the value.

    **Cost** (both modes): the fraction of bits lost, ``popcount(lost) / bits``. It is 0 at every original
    value (including ``"000"``, which the pure AND poset would put at its top) and 1 when every bit is
    lost. It is strictly monotone, because a strictly more general state has strictly more lost bits. In
    AND mode this is "the 1-bits cleared relative to the originals": the state keeps the lost mask, so the
    cost stays well defined. Two AND releases with the same label but different lost masks are different
    states, and therefore different codes.

    ``height`` is the number of lost bits. ``max_height`` is ``bits``.
    """

    bits: int
    values: tuple[str, ...]
    leaves: tuple[int, ...]
    mode: str = "per_bit"
    kind: str = "power"

    MODES = ("per_bit", "and")

    @classmethod
    def from_values(cls, values: Sequence[str], mode: str = "per_bit", bits: int | None = None) -> PowerPoset:
        if mode not in cls.MODES:
            raise HierarchyError(f"power poset mode must be one of {', '.join(cls.MODES)}, got {mode!r}")
        texts = [str(v).strip() for v in values]
        bad = [v for v in texts if not v or set(v) - {"0", "1"}]
        if bad:
            raise HierarchyError(f"a power poset needs flag strings of 0/1 such as '011'; not flags: "
                                 f"{', '.join(map(repr, bad[:5]))}")
        lengths = {len(v) for v in texts}
        if bits is not None:
            lengths.add(int(bits))
        if len(lengths) > 1:
            raise HierarchyError(f"power poset values must all have the same number of bits; found "
                                 f"{', '.join(map(str, sorted(lengths)))}")
        n = lengths.pop() if lengths else int(bits or 1)
        if not 1 <= n <= 31:
            raise HierarchyError(f"a power poset holds 1 to 31 bits, got {n}")
        return cls(n, tuple(values), tuple(int(v, 2) for v in texts), mode)

    # ------------------------------------------------------------------ packing
    @property
    def _mask(self) -> int:
        return (1 << self.bits) - 1

    def split(self, states: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
        """(value bits, lost mask) of each state."""
        s = _i64(states)
        return s & self._mask, s >> self.bits

    def pack(self, value: np.ndarray, lost: np.ndarray) -> np.ndarray:
        return (value & ~lost & self._mask) | (lost << self.bits)

    # ------------------------------------------------------------------ protocol
    def lub(self, a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
        va, la = self.split(a)
        vb, lb = self.split(b)
        lost = la | lb | (va ^ vb)
        return self.pack(va, lost)

    def group_lub(self, states: np.ndarray) -> int:
        v, lost = self.split(np.ravel(states))
        lost = np.bitwise_or.reduce(lost) | (np.bitwise_or.reduce(v) ^ np.bitwise_and.reduce(v))
        return int(self.pack(np.bitwise_and.reduce(v), lost))

    def height(self, states: np.ndarray | int) -> np.ndarray:
        return np.bitwise_count(self.split(states)[1]).astype(np.int64)

    @property
    def max_height(self) -> int:
        return self.bits

    def cost(self, states: np.ndarray | int) -> np.ndarray:
        return self.height(states) / self.bits

    def label(self, states: np.ndarray | int) -> np.ndarray:
        v, lost = self.split(states)
        shape = v.shape
        out = np.empty(v.size, dtype=object)
        for i, (bits, lost_bits) in enumerate(zip(v.ravel().tolist(), lost.ravel().tolist(), strict=True)):
            chars = format(bits, f"0{self.bits}b")
            if self.mode == "per_bit":
                flags = format(lost_bits, f"0{self.bits}b")
                chars = "".join("*" if f == "1" else c for c, f in zip(chars, flags, strict=True))
            out[i] = chars
        return out.reshape(shape)

    def _label_ok(self, label: str, value: str) -> bool:
        if len(label) != self.bits or len(value) != self.bits or set(value) - {"0", "1"}:
            return False
        if self.mode == "per_bit":
            return all(c == "*" or c == v for c, v in zip(label, value, strict=True))
        return not set(label) - {"0", "1"} and all(c == "0" or v == "1" for c, v in zip(label, value, strict=True))

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released label generalize the original value beside it? Per bit: every non-``*``
        character equals the value's bit. AND: every 1 of the label is a 1 of the value."""
        return np.array([self._label_ok(str(lab).strip(), str(v).strip())
                         for lab, v in zip(labels, values, strict=True)], dtype=bool)

    def describe(self, states: np.ndarray) -> ColumnCells:
        return describe_by_labels(self, states)

    def leaf_count(self, states: np.ndarray) -> np.ndarray:
        """How many of the poset's data values each state's label covers (label semantics of the mode)."""
        data = _i64(self.leaves)[None, :]

        def count(block: np.ndarray) -> np.ndarray:
            v, lost = self.split(block)
            if self.mode == "per_bit":
                return ((data & (~lost[:, None] & self._mask)) == v[:, None]).sum(axis=1)
            return ((data & v[:, None]) == v[:, None]).sum(axis=1)

        return _chunked_counts(states, len(self.leaves), count)


# ====================================================================================== DateOfBirthPoset
_DAY, _MONTH, _YEAR, _BAND, _SUPPRESSED = range(5)
_D_BITS, _MI_BITS, _BAND_BITS = 5, 17, 16
_MI_SHIFT = _D_BITS
_BAND_SHIFT = _D_BITS + _MI_BITS
_G_SHIFT = _BAND_SHIFT + _BAND_BITS
_ISO = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})$")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})$")
_US = re.compile(r"^(\d{1,2})/(\d{1,2})/(\d{4})$")
_LABEL_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_LABEL_YEAR = re.compile(r"^(\d{4})$")
_LABEL_BAND = re.compile(r"^age (\d+)-(\d+) at (\d{4}-\d{2}-\d{2})$")


def parse_date(text: str) -> dt.date | None:
    """A date from ``YYYY-MM-DD``, ``YYYYMMDD`` or ``M/D/YYYY`` (the thesis' "2/13/1978"), else None."""
    t = str(text).strip()
    try:
        if m := _ISO.match(t) or _COMPACT.match(t):
            return dt.date(int(m[1]), int(m[2]), int(m[3]))
        if m := _US.match(t):
            return dt.date(int(m[3]), int(m[1]), int(m[2]))
    except ValueError:
        return None
    return None


def age_at(born: dt.date, base: dt.date) -> int:
    """Completed years at the base date (negative when born after it)."""
    return base.year - born.year - ((base.month, base.day) < (born.month, born.day))


def _months_back(base: dt.date, months: int) -> dt.date:
    total = base.year * 12 + base.month - 1 - months
    y, m = divmod(total, 12)
    m += 1
    last = (dt.date(y + (m == 12), m % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(y, m, min(base.day, last))


@dataclass(frozen=True, eq=False)
class DateOfBirthPoset:
    """Dates of birth (Katirai's DateOfBirthPoset, §4.3.5). Each state carries its granularity.

    **Input text**: ``YYYY-MM-DD``, ``YYYYMMDD`` or ``M/D/YYYY`` (the thesis' Figure 8 accepts the last two).

    **Parameters**: ``base_date`` (``YYYY-MM-DD``, default ``"2006-01-01"``, the Example 7 XML) and
    ``age_bands``, the inclusive upper bounds of contiguous integer bands starting at 0. The default
    ``(5, 30, 50, 70, 90)`` gives [0,5], [6,30], [31,50], [51,70], [71,90]. Ages are completed years at the
    base date. A person older than the last bound, or born after the base date, is in no band.

    **LUB** of a group of dates (the thesis' rule, applied to the persons behind both states):

    1. All dates are equal: that date.
    2. Same month and year: that month (the thesis' representative date is day 15).
    3. Same year: that year (representative date June 15).
    4. The years differ, and every person's age at the base date lies in the same band [lo, hi]: that band.
       The representative date is the birth date of a person aged exactly (lo + hi) / 2 at the base date.
       The midpoint is always a whole number of half-years, so there is no rounding: the base date is
       moved back 6·(lo + hi) months, and the day is clamped to the month's length. For example [0, 5]
       gives age 2½, which is 2003-07-01 at base 2006-01-01.
    5. Otherwise: suppressed (``*``).

    **State packing**: ``g << 38 | band << 22 | (12·year + month − 1) << 5 | day``. The granularity ``g``
    runs from 0 (day) through 1 (month), 2 (year) and 3 (band) to 4 (suppressed). Step 4 depends on the
    persons' bands, not on a representative date: a year can straddle a band boundary. So every state also
    keeps the band shared by *all* its persons, or ``len(bands)`` ("mixed") when they are not all in one
    band. States are canonical: month and year states hold their representative day 15 and June 15, band
    states hold no date, and suppressed states hold only ``g`` and "mixed". A state is thus an exact
    summary of its set of persons, the LUB is the summary of the union, and the LUB is a semilattice join:
    commutative, associative and idempotent, with ``group_lub`` equal to every fold. Two states with the
    same label can differ in the band they keep (for example "1978" with all persons in one band, or in
    two). They are different codes for the same released text.

    **Cost**: ``g / 4`` (day 0, month 0.25, year 0.5, band 0.75, suppressed 1). ``height`` = g and
    ``max_height`` = 4. The cost is monotone in the LUB. The band bookkeeping is not charged, because it
    changes nothing in what is released.

    **Labels**: ``1978-02-13``, ``1978-02``, ``1978``, ``age 26-30 at 2006-01-01``, ``*``. A band label
    names its base date, so ``label_covers`` can read it from the text alone. ``representative`` gives the
    thesis' released dates instead: ``1978-02-13``, ``1978-02-15``, ``1978-06-15``, the midpoint birth date,
    and ``*``.
    """

    values: tuple[str, ...]
    leaves: tuple[int, ...]
    base_date: dt.date
    age_bands: tuple[int, ...]
    kind: str = "date_of_birth"

    @classmethod
    def from_values(cls, values: Sequence[str], base_date: str | dt.date = "2006-01-01",
                    age_bands: Sequence[int] = (5, 30, 50, 70, 90)) -> DateOfBirthPoset:
        base = base_date if isinstance(base_date, dt.date) else parse_date(base_date)
        if base is None:
            raise HierarchyError(f"date_of_birth base_date must be YYYY-MM-DD, got {base_date!r}")
        bands = tuple(int(b) for b in age_bands)
        if not bands or bands[0] < 0 or any(b <= a for a, b in zip(bands, bands[1:], strict=False)):
            raise HierarchyError(f"date_of_birth age_bands must be increasing upper bounds >= 0, got {bands}")
        if len(bands) >= (1 << _BAND_BITS) - 1:
            raise HierarchyError(f"date_of_birth allows at most {(1 << _BAND_BITS) - 2} age bands")
        dates = [parse_date(v) for v in values]
        bad = [v for v, d in zip(values, dates, strict=True) if d is None]
        if bad:
            raise HierarchyError(f"a date_of_birth poset needs dates (YYYY-MM-DD, YYYYMMDD or M/D/YYYY); not "
                                 f"dates: {', '.join(map(repr, bad[:5]))}")
        poset = cls(tuple(values), (), base, bands)
        leaves = tuple(poset._leaf_state(d) for d in dates)  # type: ignore[arg-type]
        object.__setattr__(poset, "leaves", leaves)
        return poset

    # ------------------------------------------------------------------ bands and packing
    @property
    def mixed(self) -> int:
        """The band code of a state whose persons are not all in one band."""
        return len(self.age_bands)

    def band_bounds(self, band: int) -> tuple[int, int]:
        lo = 0 if band == 0 else self.age_bands[band - 1] + 1
        return lo, self.age_bands[band]

    def band_of(self, born: dt.date) -> int:
        age = age_at(born, self.base_date)
        if age < 0 or age > self.age_bands[-1]:
            return self.mixed
        return int(np.searchsorted(np.asarray(self.age_bands), age))  # first upper bound >= age

    def midpoint_date(self, band: int) -> dt.date:
        lo, hi = self.band_bounds(band)
        return _months_back(self.base_date, 6 * (lo + hi))

    @staticmethod
    def pack(g: np.ndarray, band: np.ndarray, mi: np.ndarray, day: np.ndarray) -> np.ndarray:
        return (_i64(g) << _G_SHIFT) | (_i64(band) << _BAND_SHIFT) | (_i64(mi) << _MI_SHIFT) | _i64(day)

    @staticmethod
    def unpack(states: np.ndarray | int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(granularity, band, 12·year + month − 1, day) of each state."""
        s = _i64(states)
        return (s >> _G_SHIFT, (s >> _BAND_SHIFT) & ((1 << _BAND_BITS) - 1),
                (s >> _MI_SHIFT) & ((1 << _MI_BITS) - 1), s & ((1 << _D_BITS) - 1))

    def _leaf_state(self, d: dt.date) -> int:
        return int(self.pack(_DAY, self.band_of(d), d.year * 12 + d.month - 1, d.day))

    @property
    def _value_fields(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(band, month index, day) of each data value, from its leaf."""
        _, band, mi, day = self.unpack(_i64(self.leaves))
        return band, mi, day

    # ------------------------------------------------------------------ protocol
    def lub(self, a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
        ga, ba, ma, da = self.unpack(a)
        gb, bb, mb, db = self.unpack(b)
        band = np.where(ba == bb, ba, self.mixed)
        same_day = (ga == _DAY) & (gb == _DAY) & (ma == mb) & (da == db)
        same_month = (ga <= _MONTH) & (gb <= _MONTH) & (ma == mb)
        same_year = (ga <= _YEAR) & (gb <= _YEAR) & (ma // 12 == mb // 12)
        one_band = (ga < _SUPPRESSED) & (gb < _SUPPRESSED) & (band < self.mixed)
        g = np.select([same_day, same_month, same_year, one_band], [_DAY, _MONTH, _YEAR, _BAND], _SUPPRESSED)
        mi = np.select([g <= _MONTH, g == _YEAR], [ma, (ma // 12) * 12 + 5], 0)
        day = np.select([g == _DAY, g <= _YEAR], [da, 15], 0)
        band = np.where(g == _SUPPRESSED, self.mixed, band)
        return self.pack(g, band, mi, day)

    def group_lub(self, states: np.ndarray) -> int:
        """The LUB of the whole group: a semilattice join, so the fold in any order gives it."""
        uniq = np.unique(_i64(states))
        return int(reduce(self.lub, uniq[1:], uniq[0]))

    def height(self, states: np.ndarray | int) -> np.ndarray:
        return self.unpack(states)[0]

    @property
    def max_height(self) -> int:
        return _SUPPRESSED

    def cost(self, states: np.ndarray | int) -> np.ndarray:
        return self.height(states) / _SUPPRESSED

    def label(self, states: np.ndarray | int) -> np.ndarray:
        return self._texts(states, representative=False)

    def representative(self, states: np.ndarray | int) -> np.ndarray:
        """The thesis' released date of each state (day 15, June 15, midpoint birth date) or ``*``."""
        return self._texts(states, representative=True)

    def _texts(self, states: np.ndarray | int, representative: bool) -> np.ndarray:
        g, band, mi, day = self.unpack(states)
        out = np.empty(g.size, dtype=object)
        base = self.base_date.isoformat()
        for i, (gi, bi, mii, di) in enumerate(zip(*(x.ravel().tolist() for x in (g, band, mi, day)),
                                                  strict=True)):
            y, m = divmod(mii, 12)
            m += 1
            if gi == _SUPPRESSED:
                out[i] = ROOT
            elif gi == _BAND:
                lo, hi = self.band_bounds(bi)
                out[i] = self.midpoint_date(bi).isoformat() if representative else f"age {lo}-{hi} at {base}"
            elif representative or gi == _DAY:
                out[i] = f"{y:04d}-{m:02d}-{di:02d}"
            else:
                out[i] = f"{y:04d}-{m:02d}" if gi == _MONTH else f"{y:04d}"
        return out.reshape(g.shape)

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released label (``YYYY-MM-DD``, ``YYYY-MM``, ``YYYY``, ``age a-b at YYYY-MM-DD`` or
        ``*``) generalize the original date beside it?"""
        out = np.zeros(len(labels), dtype=bool)
        for i, (lab, v) in enumerate(zip(labels, values, strict=True)):
            born, text = parse_date(v), str(lab).strip()
            if born is None:
                continue
            if text == ROOT:
                out[i] = True
            elif m := _LABEL_BAND.match(text):
                base = parse_date(m[3])
                out[i] = base is not None and int(m[1]) <= age_at(born, base) <= int(m[2])
            elif m := _LABEL_MONTH.match(text):
                out[i] = (born.year, born.month) == (int(m[1]), int(m[2]))
            elif m := _LABEL_YEAR.match(text):
                out[i] = born.year == int(m[1])
            else:
                out[i] = parse_date(text) == born and _ISO.match(text) is not None
        return out

    def describe(self, states: np.ndarray) -> ColumnCells:
        return describe_by_labels(self, states)

    def leaf_count(self, states: np.ndarray) -> np.ndarray:
        """How many of the poset's data values each state's label covers."""
        vband, vmi, vday = (x[None, :] for x in self._value_fields)

        def count(block: np.ndarray) -> np.ndarray:
            g, band, mi, day = (x[:, None] for x in self.unpack(block))
            hit = np.select([g == _DAY, g == _MONTH, g == _YEAR, g == _BAND],
                            [(vmi == mi) & (vday == day), vmi == mi, vmi // 12 == mi // 12, vband == band], True)
            return hit.sum(axis=1)

        return _chunked_counts(states, len(self.leaves), count)


# ====================================================================================== MultiValuePoset
class MultiValuePoset:
    """Sets of codes in one cell, such as diagnoses (a reconstruction of Katirai's SparseMatrixPoset, §4.3.6).

    **Text format.** A cell is a list of codes joined by ``separator`` (default ``;``), such as
    ``"I21;I10;E11"``. Spaces around codes are stripped, empty pieces are ignored, and duplicates collapse,
    so an original cell is a *set*. The empty string is the empty set. Every code is a data value of
    ``code_poset``, a ``FinitePoset`` (tree or matrix) whose top is the suppression value. Released cells
    are *multisets* of code-poset nodes, written the same way (``"I2x;I2x;*"``), in node-id order.

    **LUB (reconstruction: the thesis leaves it undefined).** Let A be the smaller multiset (order by size,
    then by the sorted node ids, so the rule is commutative). Each code of A is matched to a distinct code
    of B by a minimum-cost assignment (``scipy.optimize.linear_sum_assignment``) over the code poset's
    integer heights of the pairwise least-cost LUBs. The result is the multiset of those LUBs, plus the top
    ``*`` once for every unmatched code of B. The result therefore has ``max(|A|, |B|)`` elements. A ``*``
    that comes from padding reads as "one unknown code, or none".

    **Order, cover.** A released multiset R covers a set S when there is an injection f from S into R with
    ``s <= f(s)`` in the code poset, and every element of R outside the image is the top. The LUB covers
    both operands in this sense. ``label_covers`` checks this from the text with a bipartite matching.
    ``leaf_count`` counts the data values (cells) that a state covers.

    **Cost**: the mean Vinterbo cost ``h / M`` of the elements, and 0 for the empty set. It is monotone:
    ``cost(lub(A, B)) >= max(cost(A), cost(B))``, because every matched LUB costs at least its two codes and
    every padded ``*`` costs 1. ``height`` is the mean element height (in [0, M]), ``max_height`` the code
    poset's M, so that ``height / max_height`` is the cost the engine minimizes and the measures read.

    **Idempotent and commutative.** The LUB is exact in both properties. Idempotence holds because the
    identity matching is the unique cheapest one up to swapping equal codes, since the code heights are
    strictly monotone. The LUB is *not* associative in general: set matching is not a lattice. So
    ``group_lub`` is a fold in a fixed order (largest multisets first, then by node ids). It is an upper
    bound of the whole group, but not necessarily the least-cost one, which is a multi-dimensional
    assignment problem.

    **States** are indices into a registry of canonical multisets (sorted tuples of node ids). The
    registry lives on the poset object and grows as LUBs create new multisets. The data values are
    registered first, in the order of ``values``.
    """

    kind = "multivalue"

    def __init__(self, values: Sequence[str], code_poset: FinitePoset, separator: str = ";") -> None:
        if not separator:
            raise HierarchyError("multivalue separator must not be empty")
        clash = [n for n in code_poset.names if separator in n]
        if clash:
            raise HierarchyError(f"multivalue code names must not contain the separator {separator!r}: "
                                 f"{', '.join(map(repr, clash[:5]))}")
        self.code_poset = code_poset
        self.separator = separator
        self.values = tuple(values)
        self._code_leaf = {v: int(leaf) for v, leaf in zip(code_poset.values, code_poset.leaves, strict=True)}
        self._name_ids: dict[str, list[int]] = {}
        for node, name in enumerate(code_poset.names):
            self._name_ids.setdefault(name, []).append(node)
        self.top = int(np.flatnonzero([not p for p in code_poset.parents])[0])
        self._heights = code_poset.heights.astype(np.int64)
        self._M = code_poset.max_height
        self._code_lub: dict[tuple[int, int], int] = {}
        self._sets: list[tuple[int, ...]] = []
        self._ids: dict[tuple[int, ...], int] = {}
        self._costs: list[float] = []
        self._cost_array = np.zeros(0)
        self._pair_lub: dict[tuple[int, int], int] = {}
        leaves = []
        for v in self.values:
            codes = self.parse(v)
            missing = [c for c in codes if c not in self._code_leaf]
            if missing:
                raise HierarchyError(f"multivalue code poset has no node for code(s) "
                                     f"{', '.join(map(repr, missing[:5]))} (in {v!r})")
            leaves.append(self._register(tuple(sorted({self._code_leaf[c] for c in codes}))))
        self.leaves = tuple(leaves)

    @classmethod
    def from_values(cls, values: Sequence[str], edges: Sequence[tuple[str, str]] | None = None,
                    code_poset: FinitePoset | None = None, separator: str = ";") -> MultiValuePoset:
        """From (child, parent) code edges (a matrix poset file's edges) or a ready ``code_poset`` whose
        ``values`` include every code in the data."""
        if (edges is None) == (code_poset is None):
            raise HierarchyError("a multivalue poset needs exactly one of edges or code_poset")
        if code_poset is None:
            codes = sorted({c for v in values for c in cls._split(v, separator)})
            code_poset = FinitePoset.from_edges(edges, codes)  # type: ignore[arg-type]
        return cls(values, code_poset, separator)

    # ------------------------------------------------------------------ text and registry
    @staticmethod
    def _split(text: str, separator: str) -> list[str]:
        return [c.strip() for c in str(text).split(separator) if c.strip()]

    def parse(self, text: str) -> list[str]:
        """The distinct codes of a cell, in order of appearance."""
        return list(dict.fromkeys(self._split(text, self.separator)))

    def _register(self, nodes: tuple[int, ...]) -> int:
        state = self._ids.get(nodes)
        if state is None:
            state = len(self._sets)
            self._ids[nodes] = state
            self._sets.append(nodes)
            total = int(self._heights[list(nodes)].sum()) if nodes else 0
            self._costs.append(total / (len(nodes) * self._M) if nodes and self._M else 0.0)
        return state

    def members(self, state: int) -> tuple[int, ...]:
        """The canonical multiset (sorted code-poset node ids) of a state."""
        return self._sets[int(state)]

    @property
    def size(self) -> int:
        return len(self._sets)

    # ------------------------------------------------------------------ LUB
    def code_lub(self, v: int, w: int) -> int:
        key = (v, w) if v <= w else (w, v)
        out = self._code_lub.get(key)
        if out is None:
            out = self._code_lub[key] = self.code_poset.group_lub(np.array(key))
        return out

    def _lub_sets(self, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        if (len(a), a) > (len(b), b):
            a, b = b, a
        if not a:
            return (self.top,) * len(b)
        pairs = [[self.code_lub(x, y) for y in b] for x in a]
        cost = self._heights[np.asarray(pairs)]
        from scipy.optimize import linear_sum_assignment  # on first use: scipy.optimize holds about 50 MB

        rows, cols = linear_sum_assignment(cost)
        out = [pairs[i][j] for i, j in zip(rows.tolist(), cols.tolist(), strict=True)]
        out += [self.top] * (len(b) - len(a))
        return tuple(sorted(out))

    def _lub_state(self, a: int, b: int) -> int:
        key = (a, b) if a <= b else (b, a)
        out = self._pair_lub.get(key)
        if out is None:
            out = self._pair_lub[key] = self._register(self._lub_sets(self._sets[a], self._sets[b]))
        return out

    def lub(self, a: np.ndarray | int, b: np.ndarray | int) -> np.ndarray:
        a, b = np.broadcast_arrays(_i64(a), _i64(b))
        if a.size == 0:
            return np.zeros(a.shape, dtype=np.int64)
        lo, hi = np.minimum(a, b).ravel(), np.maximum(a, b).ravel()
        pairs, inverse = np.unique(np.stack([lo, hi]), axis=1, return_inverse=True)
        found = np.array([self._lub_state(x, y) for x, y in zip(pairs[0].tolist(), pairs[1].tolist(),
                                                                 strict=True)], dtype=np.int64)
        return found[inverse.reshape(-1)].reshape(a.shape)

    def group_lub(self, states: np.ndarray) -> int:
        """A fold of ``lub`` over the distinct states, largest multisets first (then by node ids). It is an
        upper bound of the group; this LUB is not associative, so it is not guaranteed least-cost."""
        order = sorted({int(s) for s in np.ravel(states)}, key=lambda s: (-len(self._sets[s]), self._sets[s]))
        return reduce(self._lub_state, order[1:], order[0])

    # ------------------------------------------------------------------ measures and labels
    def cost(self, states: np.ndarray | int) -> np.ndarray:
        if len(self._cost_array) != len(self._costs):
            self._cost_array = np.asarray(self._costs, dtype=float)
        return self._cost_array[_i64(states)]

    def height(self, states: np.ndarray | int) -> np.ndarray:
        """The mean height of the elements (0 for the empty set), so ``height / max_height`` is the cost."""
        s = _i64(states)
        out = np.empty(s.size, dtype=float)
        for i, state in enumerate(s.ravel().tolist()):
            nodes = self._sets[state]
            out[i] = float(self._heights[list(nodes)].mean()) if nodes else 0.0
        return out.reshape(s.shape)

    @property
    def max_height(self) -> int:
        return self._M

    def label(self, states: np.ndarray | int) -> np.ndarray:
        s = _i64(states)
        names = self.code_poset.names
        out = np.empty(s.size, dtype=object)
        for i, state in enumerate(s.ravel().tolist()):
            out[i] = self.separator.join(names[n] for n in self._sets[state])
        return out.reshape(s.shape)

    def _covers(self, released: Sequence[list[int]], original: Sequence[int]) -> bool:
        """Is there an injection of the original codes (leaf ids) into the released elements (each a list
        of candidate node ids: several nodes may share a name) with every unused element the top?"""
        if len(released) < len(original):
            return False
        anc = self.code_poset.ancestors
        top_name = self.code_poset.names[self.top]
        proper = [ids for ids in released if not any(self.code_poset.names[n] == top_name for n in ids)]
        if len(proper) > len(original):
            return False
        if not proper:
            return True
        fits = np.array([[any(anc[leaf, n] for n in ids) for leaf in original] for ids in proper], dtype=bool)
        from scipy.sparse import csr_matrix  # on first use, as scipy.optimize above
        from scipy.sparse.csgraph import maximum_bipartite_matching

        matched = maximum_bipartite_matching(csr_matrix(fits), perm_type="column")  # per element: its original
        return bool((matched >= 0).all())

    def label_covers(self, labels: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Does each released label (codes joined by the separator) cover the original cell beside it?"""
        out = np.zeros(len(labels), dtype=bool)
        known: dict[tuple[str, str], bool] = {}  # each distinct (label, value) pair is matched once
        for i, (label, value) in enumerate(zip(labels, values, strict=True)):
            pair = (str(label), str(value))  # as parsed: cells are read as text
            if pair not in known:
                known[pair] = self._label_covers(*pair)
            out[i] = known[pair]
        return out

    def _label_covers(self, label: str, value: str) -> bool:
        codes = self.parse(value)
        if any(c not in self._code_leaf for c in codes):
            return False
        names = self._split(label, self.separator)
        if any(n not in self._name_ids for n in names):
            return False
        return self._covers([self._name_ids[n] for n in names], [self._code_leaf[c] for c in codes])

    def describe(self, states: np.ndarray) -> ColumnCells:
        return describe_by_labels(self, states)

    def leaf_count(self, states: np.ndarray) -> np.ndarray:
        """How many of the poset's data values (cells) each state covers."""
        leaf_sets = [self._sets[s] for s in self.leaves]
        out = np.empty(np.size(states), dtype=np.int64)
        for i, state in enumerate(np.ravel(states).tolist()):
            released = [[n] for n in self._sets[state]]
            out[i] = sum(self._covers(released, list(original)) for original in leaf_sets)
        return out
