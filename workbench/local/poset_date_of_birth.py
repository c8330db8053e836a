"""Dates of birth as a poset of the local engine (Katirai 2006, §4.3.5; kind ``date_of_birth``): day, then
month, then year, then an age band at a base date, then ``*``. States are int64 and every operation broadcasts;
the protocol is ``workbench.local.poset_base``'s, with ``label_covers`` read from the released text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce

import numpy as np

from workbench.errors import HierarchyError
from workbench.local.poset_base import ROOT, ColumnCells, chunked_counts, describe_by_labels, i64

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
        return (i64(g) << _G_SHIFT) | (i64(band) << _BAND_SHIFT) | (i64(mi) << _MI_SHIFT) | i64(day)

    @staticmethod
    def unpack(states: np.ndarray | int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(granularity, band, 12·year + month − 1, day) of each state."""
        s = i64(states)
        return (s >> _G_SHIFT, (s >> _BAND_SHIFT) & ((1 << _BAND_BITS) - 1),
                (s >> _MI_SHIFT) & ((1 << _MI_BITS) - 1), s & ((1 << _D_BITS) - 1))

    def _leaf_state(self, d: dt.date) -> int:
        return int(self.pack(_DAY, self.band_of(d), d.year * 12 + d.month - 1, d.day))

    @property
    def _value_fields(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(band, month index, day) of each data value, from its leaf."""
        _, band, mi, day = self.unpack(i64(self.leaves))
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
        uniq = np.unique(i64(states))
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

        return chunked_counts(states, len(self.leaves), count)
