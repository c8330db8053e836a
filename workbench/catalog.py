"""The choices the front ends offer, read from the registries (the app's pickers and the CLI's help list
them from here, never from the engines' modules): the lattice searches, the local algorithms and the model
degradation classifiers."""

from measures.degradation import CLASSIFIERS
from workbench.lattice.search import ALGORITHMS
from workbench.local import LOCAL_ALGORITHMS

__all__ = ["ALGORITHMS", "CLASSIFIERS", "LOCAL_ALGORITHMS"]
