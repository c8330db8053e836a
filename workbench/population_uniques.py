"""Population uniqueness: the estimated share of a population that is unique, from a sample's class-size
histogram and the population size N (sampling fraction n/N), under Pitman (Hoshino 2001), Zayatz (1991) and SNB
(Chen & Keller-McNulty 1998), and Dankar et al.'s (2012) decision rule among them, each as ARX computes it
(``ModelPitman.java``, ``ModelZayatz.java``, ``ModelSNB.java``, ``RiskModelPopulationUniqueness.java``). ARX's
Newton-Raphson solver (``NewtonRaphson2D.java``, configured by ``ARXSolverConfiguration.java``) is replaced by
``scipy.optimize.root`` with ARX's start values and its residual tolerance. ``workbench.risk`` reports them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from workbench.risk import Histogram

ACCURACY = 1e-6
"""ARX's solver accuracy: a root is accepted when both equations are within 1e-6 of 0
(``ARXSolverConfiguration.getDefaultAccuracy``; the check is NewtonRaphson2D's)."""

ITERATIONS_PER_TRY = 1000
"""ARX's iterations per start value (``ARXSolverConfiguration.getDefaultIterationsPerTry``); here the bound on
function evaluations per ``scipy.optimize.root`` call."""

START_VALUES: tuple[tuple[float, float], ...] = tuple(
    (0.33 * i, 0.33 * j) for i in range(4) for j in range(4))
"""ARX's deterministic start values tried after the model's own one: (d1, d2) for d1, d2 in 0, 0.33, 0.66, 0.99
(``ARXSolverConfiguration.getDefaultStartValues``)."""

DANKAR_FRACTION = 0.1
"""Dankar et al.'s rule: Pitman for sampling fractions <= 0.1, else the smaller of Zayatz and SNB."""


@dataclass(frozen=True)
class PopulationUniques:
    """Estimated share of the population that is unique, per model (None: not computable)."""

    pitman: float | None
    zayatz: float | None
    snb: float | None
    dankar: float | None
    dankar_model: str | None  # which model Dankar's rule used: pitman | zayatz | snb | none (no sample uniques)
    population_size: int
    sampling_fraction: float

    def to_dict(self) -> dict[str, object]:
        return {"pitman": self.pitman, "zayatz": self.zayatz, "snb": self.snb, "dankar": self.dankar,
                "dankar_model": self.dankar_model, "population_size": self.population_size,
                "sampling_fraction": self.sampling_fraction}


# ---------------------------------------------------------------------------------------------- solver
Equations = Callable[[np.ndarray], np.ndarray]


def solve_2d(fun: Equations, first: tuple[float, float], jac: Callable[[np.ndarray], np.ndarray] | None = None,
             admissible: Callable[[np.ndarray], bool] = lambda x: True) -> np.ndarray | None:
    """A root of two equations, as ARX's NewtonRaphson2D searches it: from ``first``, then from each of
    :data:`START_VALUES`; a root counts when both residuals are within :data:`ACCURACY` (ARX's test) and it is
    ``admissible`` (ARX's constraints). Each try is ``scipy.optimize.root`` (MINPACK hybrid Powell), at most
    :data:`ITERATIONS_PER_TRY` evaluations. None when no start value reaches a root."""
    from scipy import optimize  # imported here: the estimators are the only users (0.2 s to import)

    def safe(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.asarray(fun(x), dtype=float)
        return out if np.all(np.isfinite(out)) else np.full(2, 1e300)

    for start in (first, *START_VALUES):
        x0 = np.asarray(start, dtype=float)
        if not np.all(np.isfinite(x0)):
            continue
        try:
            with np.errstate(all="ignore"):
                sol = optimize.root(safe, x0, jac=jac, method="hybr",
                                    options={"xtol": 1e-13, "maxfev": ITERATIONS_PER_TRY})
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            continue
        x = np.asarray(sol.x, dtype=float)
        if not np.all(np.isfinite(x)):
            continue
        residual = safe(x)
        if np.all(np.abs(residual) <= ACCURACY) and admissible(x):
            return x
    return None


# ---------------------------------------------------------------------------------------------- Pitman
def pitman_equations(hist: Histogram) -> tuple[Equations, Callable[[np.ndarray], np.ndarray]]:
    """Hoshino's (2001) maximum-likelihood equations of the Pitman model in (theta, alpha) and their Jacobian,
    as the sums of ARX ``ModelPitman.getMasterFunctionIterative`` (u classes, n records):

    g1 = sum_{i=1}^{u-1} 1/(theta + i alpha) - sum_{i=1}^{n-1} 1/(theta + i)
    g2 = sum_{i=1}^{u-1} i/(theta + i alpha) - sum_{classes of size s > 1} sum_{j=1}^{s-1} 1/(j - alpha)
    """
    u, n = hist.classes, hist.records
    i_u = np.arange(1, u, dtype=float)
    i_n = np.arange(1, n, dtype=float)
    max_size = int(hist.sizes[-1]) if hist.sizes.size else 1
    j = np.arange(1, max_size, dtype=float)
    # classes with size > j, for j = 1 .. max_size-1: each such class contributes 1/(j - alpha)
    larger = np.array([int(hist.counts[hist.sizes > jj].sum()) for jj in range(1, max_size)], dtype=float)

    def fun(x: np.ndarray) -> np.ndarray:
        t, a = float(x[0]), float(x[1])
        v = t + i_u * a
        return np.array([np.sum(1.0 / v) - np.sum(1.0 / (t + i_n)),
                         np.sum(i_u / v) - np.sum(larger / (j - a))])

    def jac(x: np.ndarray) -> np.ndarray:
        t, a = float(x[0]), float(x[1])
        v2 = (t + i_u * a) ** 2
        d1, d5, d3 = np.sum(1.0 / v2), np.sum(i_u / v2), np.sum(i_u * i_u / v2)
        d2 = np.sum(1.0 / (t + i_n) ** 2)
        d4 = np.sum(larger / (j - a) ** 2)
        return np.array([[d2 - d1, -d5], [-d5, -d3 - d4]])

    return fun, jac


def pitman_start(hist: Histogram) -> tuple[float, float]:
    """ARX ``ModelPitman``'s initial guess (moment estimates; a missing c2 counts as 1)."""
    c1, c2 = float(hist.classes_of_size(1)), float(hist.classes_of_size(2) or 1)
    u, n = float(hist.classes), float(hist.records)
    c = c1 * (c1 - 1) / c2
    with np.errstate(all="ignore"):
        denominator = (2 * c1 * u) + (c1 * c) - (n * c)
        t = ((n * u * c) - (c1 * (n - 1) * ((2 * u) + c))) / denominator if denominator else math.nan
        a = ((t * (c1 - n)) + ((n - 1) * c1)) / (n * u)
    return t, a


def pitman_uniques(hist: Histogram, population_size: float) -> float:
    """Estimated number of population uniques under the Pitman model (ARX ``ModelPitman``): solve the
    likelihood equations for (theta, alpha) with theta >= 0 (ARX's constraint), then
    Gamma(theta+1)/Gamma(theta+alpha) * N^alpha, admissible in [0, N] (ARX ``getResult``). NaN when not solved."""
    from scipy import special

    fun, jac = pitman_equations(hist)
    root = solve_2d(fun, pitman_start(hist), jac, admissible=lambda x: x[0] >= 0)
    if root is None:
        return math.nan
    t, a = float(root[0]), float(root[1])
    if a == 0:
        return math.nan
    p = float(population_size)
    values = []
    with np.errstate(all="ignore"):
        scale = np.power(np.float64(p), np.float64(a))
        if t + 1 > 0 and t + a > 0:  # log form (Commons Math logGamma is NaN for arguments <= 0)
            values.append(float(np.exp(special.gammaln(t + 1) - special.gammaln(t + a)) * scale))
        values.append(float(special.gamma(t + 1) / special.gamma(t + a) * scale))
    ok = [v for v in values if np.isfinite(v) and 0.0 <= v <= p]
    return max(ok) if ok else math.nan


# ---------------------------------------------------------------------------------------------- Zayatz
def zayatz_uniques(hist: Histogram, population_size: float) -> float:
    """Estimated number of population uniques under Zayatz's (1991) model (ARX ``ModelZayatz``):
    c1 * P(unique in population | unique in sample) / f, where the conditional probability is
    (c1/u) H(1; N, 1, n) / sum_s (c_s/u) H(1; N, s, n) with the hypergeometric pmf H(1; N, s, n) of drawing
    exactly one of a class of size s when n of N records are sampled."""
    n, u, c1 = hist.records, hist.classes, hist.classes_of_size(1)
    big_n = int(round(population_size))
    weights = hist.counts / u
    from scipy.stats import hypergeom  # scipy.stats takes 0.7 s to import: only for the Zayatz estimate

    pmf = hypergeom.pmf(1, big_n, hist.sizes, n)
    denominator = float(np.sum(weights * pmf))
    conditional = (c1 / u) * float(hypergeom.pmf(1, big_n, 1, n)) / denominator
    return c1 * conditional / (n / population_size)


# ---------------------------------------------------------------------------------------------- SNB
def snb_classes(hist: Histogram, f: float) -> float:
    """ARX ``ModelSNB.estimateNonEmptyEquivalenceClasses``: Shlosser's estimate (Haas et al. 1998) of the number
    K of non-empty population classes, with ARX's expression (its ``- 1`` is subtracted once per distinct class
    size, as in ARX)."""
    s, c = hist.sizes.astype(float), hist.counts.astype(float)
    var1 = float(np.sum(s * f * f * (1 - f * f) ** (s - 1) * c))
    var2 = float(np.sum((1 - f) ** s * c * (1 + f) ** s - 1))
    var3 = float(np.sum((1 - f) ** s * c))
    var4 = float(np.sum(s * f * (1 - f) ** (s - 1) * c))
    return hist.classes + hist.classes_of_size(1) * (var1 / var2) * (var3 / var4) ** 2


def snb_equations(k: float, f: float, c1: float, c2: float) -> Equations:
    """The SNB model's equations in (alpha, beta) exactly as ARX ``ModelSNB.getObjectFunction`` writes them
    (Chen & Keller-McNulty 1998), with d = (1-f)(1-beta):

    g1 = K f (beta/(1-d))^alpha (alpha d/(1-d) + 1) - c1
    g2 = K alpha beta^alpha f^2 (1-beta)/2 * (1-d)^(alpha+2) * (2 - (1-alpha) d) - c2
    """
    def fun(x: np.ndarray) -> np.ndarray:
        a, b = np.float64(x[0]), np.float64(x[1])  # numpy powers: NaN (like Java) where Python gives complex
        d = (1 - f) * (1 - b)
        g1 = k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1) - c1
        g2 = k * a * b**a * (f * f) * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d) - c2
        return np.array([g1, g2], dtype=float)

    return fun


def snb_uniques(hist: Histogram, population_size: float) -> float:
    """Estimated number of population uniques under the SNB model (ARX ``ModelSNB``): K beta^alpha after solving
    :func:`snb_equations` from ARX's default start (1, 1). NaN when not solved. The Jacobian is MINPACK's
    finite-difference one (ARX's hand-derived derivatives belong to a variant of g2 divided by (1-d)^(alpha+2);
    the root is defined by the equations either way)."""
    f = hist.records / float(population_size)
    k = snb_classes(hist, f)
    fun = snb_equations(k, f, float(hist.classes_of_size(1)), float(hist.classes_of_size(2)))
    root = solve_2d(fun, (1.0, 1.0))
    if root is None:
        return math.nan
    with np.errstate(all="ignore"):
        return float(k * root[1] ** root[0])


# ---------------------------------------------------------------------------------------------- Dankar
def population_uniques(hist: Histogram, population_size: float) -> PopulationUniques:
    """Every population model and Dankar et al.'s (2012) decision rule, as ARX
    ``RiskModelPopulationUniqueness`` applies them: without sample uniques every estimate is 0; otherwise, for a
    sampling fraction <= 0.1 Pitman (Zayatz when Pitman has no valid estimate), above it the smaller of Zayatz
    and SNB (Zayatz when SNB has none). An estimate is valid when it is a number other than 0 (ARX ``isValid``);
    invalid ones are None here. Shares of the population: estimated uniques / N."""
    n = hist.records
    if population_size < n or population_size <= 0:
        raise ValueError(f"population size {population_size:g} is smaller than the {n} records of the sample")
    big_n = float(population_size)
    fraction = n / big_n if big_n else 0.0
    if hist.classes_of_size(1) == 0:
        return PopulationUniques(0.0, 0.0, 0.0, 0.0, "none", int(population_size), fraction)

    def valid(v: float) -> float | None:
        return None if (v is None or not np.isfinite(v) or v == 0) else float(v)

    pitman = valid(pitman_uniques(hist, big_n))
    zayatz = valid(zayatz_uniques(hist, big_n))
    snb = valid(snb_uniques(hist, big_n))
    if fraction <= DANKAR_FRACTION:
        dankar, model = (pitman, "pitman") if pitman is not None else (zayatz, "zayatz")
    elif snb is not None and zayatz is not None and snb <= zayatz:
        dankar, model = snb, "snb"
    elif snb is not None and zayatz is None:
        dankar, model = snb, "snb"
    else:
        dankar, model = zayatz, "zayatz"

    def share(v: float | None) -> float | None:
        return None if v is None else v / big_n

    return PopulationUniques(share(pitman), share(zayatz), share(snb), share(dankar),
                             model if dankar is not None else None, int(population_size), fraction)
