"""Privacy models besides k-anonymity and the admissibility rule they plug into (``base.Admissibility``).

One module per model family: ``l_diversity`` (distinct, entropy, recursive (c, ℓ)), ``t_closeness`` (equal,
hierarchical, ordered distance), ``delta_presence`` (δ-presence of a research subset in its population),
``risk_thresholds`` (average risk, sample and population uniqueness);
``build`` makes them from a study's ``[privacy.*]`` tables.
"""

from workbench.privacy.base import Admissibility, ClassView, Extra, Outcome, PrivacyModel, limit_of

__all__ = ["Admissibility", "ClassView", "Extra", "Outcome", "PrivacyModel", "limit_of"]
