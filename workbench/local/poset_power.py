"""Bit vectors as a poset of the local engine (Katirai 2006, §4.3.3; kind ``power``): flags such as ``"011"``.
The LUB is per bit (``"0*1"``) or, as in the thesis, bitwise AND. States are int64 and every operation broadcasts;
the protocol is ``workbench.local.poset_base``'s, with ``label_covers`` read from the released text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import HierarchyError
from workbench.local.poset_base import ColumnCells, chunked_counts, describe_by_labels, i64


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
        s = i64(states)
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
        data = i64(self.leaves)[None, :]

        def count(block: np.ndarray) -> np.ndarray:
            v, lost = self.split(block)
            if self.mode == "per_bit":
                return ((data & (~lost[:, None] & self._mask)) == v[:, None]).sum(axis=1)
            return ((data & v[:, None]) == v[:, None]).sum(axis=1)

        return chunked_counts(states, len(self.leaves), count)
