"""Each measure in one line of plain words, for a reader who is not an engineer (the ethics-board report shows
them next to the values). ``Measure.plain`` reads this table; ``tests/test_report.py`` checks that every
registered measure has a line."""

from __future__ import annotations

PLAIN: dict[str, str] = {
    "height": "How many generalization steps were taken in total, summed over the quasi-identifiers "
              "(0 = every value released as it was).",
    "precision": "How far up its hierarchy each quasi-identifier was moved, on average, as a share of the way to "
                 "the top (0 = original values, 1 = everything reduced to one value); suppression is not counted.",
    "precision_nm": "Like precision, but a suppressed record counts as fully generalized.",
    "dm": "Each record is charged the size of its group of look-alikes, and a suppressed record the size of the "
          "whole table: large groups and suppression both cost.",
    "dm_star": "The same charge for group size, ignoring suppression: the sum of the squared group sizes.",
    "aecs": "The average number of records per group of identical released rows (larger means coarser).",
    "entropy": "The information removed by generalization, in bits: how uncertain a reader becomes about each "
               "original value given the released one.",
    "entropy_nm": "Like non-uniform entropy, but the information removed by suppressing records is charged too.",
    "loss": "The share of each attribute's range that a released value covers, combined over the attributes "
            "(0 = nothing lost, 1 = everything lost).",
    "vinterbo": "The released cells' generalization heights, each relative to its attribute's tallest hierarchy, "
                "summed over every cell.",
    "col_mi": "Like Vinterbo's cost, but each attribute weighted by how much it tells about the target column.",
    "pmi": "How strongly the released values still point to the rarer target class (more negative = more of "
           "that signal kept).",
    "nmi": "The share of the information about the target column that the released quasi-identifiers keep "
           "(1 = all of it); higher is better.",
    "cm": "The share of records a vote by each group's most common target value would get wrong, suppressed "
          "records counted as wrong (0 = every group agrees on the target).",
}
