"""The choices the front ends offer, read from the registries (the app's pickers and the CLI's help list
them from here, never from the engines' modules): the lattice searches, the local algorithms, the poset kinds
and the model degradation classifiers."""

from measures.degradation import CLASSIFIERS
from workbench.lattice.search import ALGORITHMS
from workbench.local import LOCAL_ALGORITHMS, POSETS, PosetParameter

__all__ = ["ALGORITHMS", "CLASSIFIERS", "LOCAL_ALGORITHMS", "POSETS", "PosetParameter", "posets_from_values"]


def posets_from_values() -> list[str]:
    """The poset kinds built from a column's values, its hierarchy and parameters alone (``PosetKind.from_values``:
    no file), in the registry's order: the ones the app offers."""
    return [kind.id for kind in POSETS.values() if kind.from_values]
