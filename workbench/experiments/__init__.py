"""Reproductions of published experiments, as library functions returning tidy tables."""
