"""What each privacy guarantee of a release means, in the app's and the provenance's words, and when a release's
share of suppressed records deserves a warning. Plain data: the UI shows it, the provenance records it."""

from __future__ import annotations

from dataclasses import dataclass

DOCS = "docs/releases.md, section \"Guarantees of a release\""  # where the guarantees are explained at length
SUPPRESSION_WARN_SHARE = 0.10  # above this share of records suppressed, a release is mostly stars: say so
SUPPRESSION_DEFAULT_MAX_PERCENT = 20.0  # the app's suppression range without the analyst's deliberate override


@dataclass(frozen=True)
class GuaranteeText:
    """How a guarantee kind is named and explained. ``k_anonymous``: it is k-anonymity itself (every group of
    identical released quasi-identifier rows has at least k records); otherwise it is weaker than that."""

    kind: str
    adjective: str
    k_anonymous: bool
    meaning: str


GUARANTEES: dict[str, GuaranteeText] = {
    "k-anonymity": GuaranteeText(
        "k-anonymity", "k-anonymous", True,
        "every group of identical released quasi-identifier rows holds at least k records"),
    "k-ambiguity": GuaranteeText(
        "k-ambiguity", "k-ambiguous", False,
        "each released row is consistent with at least k original records (Katirai 2006), but groups of "
        "identical released rows can be smaller than k: this is weaker than k-anonymity, and a record can be "
        "singled out by its released row"),
}


def guarantee_text(kind: str) -> GuaranteeText:
    """The text of a guarantee kind; an unknown kind is named as it is and treated as not k-anonymity."""
    return GUARANTEES.get(kind, GuaranteeText(kind, kind, False, f"{kind}: not k-anonymity"))


def suppressed_share(suppressed: int, records: int) -> float:
    """The share of records suppressed (0 for an empty table)."""
    return suppressed / records if records else 0.0


def suppression_note(suppressed: int, records: int) -> str:
    """``"12 of 1,000 records (1.2 %)"``: the suppressed count with its share, for every release shown."""
    return f"{suppressed:,} of {records:,} records ({100 * suppressed_share(suppressed, records):.1f} %)"


def suppression_warning(suppressed: int, records: int) -> str | None:
    """A warning when more than ``SUPPRESSION_WARN_SHARE`` of the records are suppressed (None otherwise)."""
    share = suppressed_share(suppressed, records)
    if share <= SUPPRESSION_WARN_SHARE:
        return None
    return (f"{suppression_note(suppressed, records)} are suppressed (more than "
            f"{SUPPRESSION_WARN_SHARE:.0%}): they are released with * in every quasi-identifier, so the release "
            "says little about them, and a measure computed on the rest can look better than the data it describes. "
            "Lower the suppression limit or choose a larger generalization.")
