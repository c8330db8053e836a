"""Privacy models besides k-anonymity and the admissibility rule they plug into (``base.Admissibility``).

One module per model family: ``l_diversity`` (distinct, entropy, recursive (c, ℓ)), ``t_closeness`` (equal,
hierarchical, ordered distance), ``beta_likeness`` (basic, enhanced), ``delta_disclosure`` (δ-disclosure
privacy), ``alpha_k`` ((α, k)-anonymity), ``delta_presence`` (δ-presence of a research subset in its population),
``k_map`` (k-map against a population table or a Poisson estimate), ``risk_thresholds`` (average risk, sample and
population uniqueness); ``sensitive`` holds what the models on sensitive attributes share (one model on several
attributes). Each module holds its model's registry entry (``kind.PrivacyModelKind``: config keys and check,
builder, the app's form), listed in ``registry.PRIVACY_MODELS``; ``build`` makes the models of a study's
``[privacy.*]`` tables from it.
"""

from workbench.privacy.base import Admissibility, ClassView, Extra, Outcome, PrivacyModel, limit_of

__all__ = ["Admissibility", "ClassView", "Extra", "Outcome", "PrivacyModel", "limit_of"]
