"""The power, date-of-birth and multivalue posets (Katirai 2006, §4.3.3, §4.3.5, §4.3.6), importable from
one place; each kind is in its own module (``poset_power``, ``poset_date_of_birth``, ``poset_multivalue``)."""

from workbench.local.poset_date_of_birth import DateOfBirthPoset, age_at, parse_date
from workbench.local.poset_multivalue import MultiValuePoset
from workbench.local.poset_power import PowerPoset

__all__ = ["DateOfBirthPoset", "MultiValuePoset", "PowerPoset", "age_at", "parse_date"]
