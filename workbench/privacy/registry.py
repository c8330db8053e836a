"""The privacy-model registry: one ``PrivacyModelKind`` (``workbench.privacy.kind``) per ``[privacy.MODEL]``
table, in the order a study lists its models (the rule's text, the release's file names). The config validates the
tables from it, ``workbench.privacy.build`` builds the models from it, and the front ends (the app's pickers, the
Lattice page's colours, a release's file names) read their labels, forms and descriptions from it, so none of them
names a model. Each entry lives beside its model, in the model's own module.

``register`` adds a model of one's own (a toy model in a test, a plug-in), ``unregister`` removes it."""

from __future__ import annotations

from workbench.privacy import (
    alpha_k,
    beta_likeness,
    delta_disclosure,
    delta_presence,
    k_map,
    l_diversity,
    risk_thresholds,
    t_closeness,
)
from workbench.privacy.kind import PrivacyModelKind

PRIVACY_MODELS: dict[str, PrivacyModelKind] = {
    entry.id: entry for entry in (l_diversity.KIND, t_closeness.KIND, beta_likeness.KIND, delta_disclosure.KIND,
                                  alpha_k.KIND, delta_presence.KIND, k_map.KIND, risk_thresholds.KIND)}
"""Every privacy model by the name of its ``[privacy.MODEL]`` table."""


def register(entry: PrivacyModelKind) -> PrivacyModelKind:
    """Add a privacy model (its table is then valid in a config, its form offered by the app). Its id and its form's
    key must be new."""
    if entry.id in PRIVACY_MODELS:
        raise ValueError(f"a privacy model {entry.id!r} is already registered")
    if entry.id in ("k", "max_suppression"):
        raise ValueError(f"{entry.id!r} is a key of [privacy] itself, not a model's table")
    if any(e.form.key == entry.form.key for e in PRIVACY_MODELS.values()):
        raise ValueError(f"a privacy model's form already uses the key {entry.form.key!r}")
    PRIVACY_MODELS[entry.id] = entry
    return entry


def unregister(model_id: str) -> None:
    """Remove a privacy model added with ``register`` (nothing when it is absent)."""
    PRIVACY_MODELS.pop(model_id, None)


def sensitive_models() -> tuple[str, ...]:
    """The models on sensitive attributes (their ``sensitive_key`` names one, or a list of them each checked)."""
    return tuple(m.id for m in PRIVACY_MODELS.values() if m.sensitive_key is not None)
