"""Population uniqueness: the estimated share of a population that is unique, from a sample's class-size
histogram and the population size N (sampling fraction n/N), under Pitman (Hoshino 2001), Zayatz (1991) and SNB
(Chen & Keller-McNulty 1998), and Dankar et al.'s (2012) decision rule among them, each as ARX computes it
(``ModelPitman.java``, ``ModelZayatz.java``, ``ModelSNB.java``, ``RiskModelPopulationUniqueness.java``). Pitman's
equations are solved as ARX solves them: Newton-Raphson (``NewtonRaphson2D.java``, configured by
``ARXSolverConfiguration.java``) on the closed forms in digamma and trigamma, checked against the sums, with the
sums as the fallback (:func:`newton_2d`); SNB's by ``scipy.optimize.root`` with ARX's start values and its
residual tolerance. Each estimate is memoized per class-size histogram (:func:`estimated_uniques`).
``workbench.risk`` reports them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from workbench.risk.histogram import Histogram

ACCURACY = 1e-6
"""ARX's solver accuracy: a root is accepted when both equations are within 1e-6 of 0
(``ARXSolverConfiguration.getDefaultAccuracy``; the check is NewtonRaphson2D's)."""

ITERATIONS_PER_TRY = 1000
"""ARX's iterations per start value (``ARXSolverConfiguration``'s default): Newton steps for Pitman, the bound on
function evaluations per ``scipy.optimize.root`` call for SNB."""

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
             admissible: Callable[[np.ndarray], bool] = lambda x: True,
             iterations_per_try: int = ITERATIONS_PER_TRY) -> np.ndarray | None:
    """A root of two equations, as ARX's NewtonRaphson2D searches it: from ``first``, then from each of
    :data:`START_VALUES`; a root counts when both residuals are within :data:`ACCURACY` (ARX's test) and it is
    ``admissible`` (ARX's constraints). Each try is ``scipy.optimize.root`` (MINPACK hybrid Powell), at most
    ``iterations_per_try`` evaluations. None when no start value reaches a root."""
    from scipy import optimize  # imported here: the estimators are the only users (0.2 s to import)

    def safe(x: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = np.asarray(fun(x), dtype=float)
        return out if math.isfinite(out[0]) and math.isfinite(out[1]) else np.full(2, 1e300)

    for start in (first, *START_VALUES):
        x0 = np.asarray(start, dtype=float)
        if not np.all(np.isfinite(x0)):
            continue
        try:
            with np.errstate(all="ignore"):
                sol = optimize.root(safe, x0, jac=jac, method="hybr",
                                    options={"xtol": 1e-13, "maxfev": iterations_per_try})
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            continue
        x = np.asarray(sol.x, dtype=float)
        if not np.all(np.isfinite(x)):
            continue
        residual = safe(x)
        if np.all(np.abs(residual) <= ACCURACY) and admissible(x):
            return x
    return None


Master = Callable[[float, float], tuple[float, float, float, float, float, float]]
"""(x, y) -> (g1, g2, ∂g1/∂x, ∂g1/∂y, ∂g2/∂x, ∂g2/∂y): two equations and their Jacobian (ARX's master function)."""


def newton_2d(master: Master, first: tuple[float, float], iterations_per_try: int = ITERATIONS_PER_TRY,
              admissible: Callable[[float, float], bool] = lambda x, y: True) -> np.ndarray | None:
    """A root of two equations as ARX's NewtonRaphson2D finds it with prepared start values (``_solveValues``,
    ``_try``): from ``first``, then from each of :data:`START_VALUES`, Newton steps x ← x − J⁻¹ g(x) with
    ``master`` giving g and J; a try succeeds when both residuals are within :data:`ACCURACY`, and fails when a step
    leaves ``admissible`` (ARX's constraint) or is NaN, or after ``iterations_per_try`` steps; the tries stop once
    (start values + 1) · ``iterations_per_try`` iterations are spent. None when no try succeeds."""
    budget = (len(START_VALUES) + 1) * iterations_per_try
    spent = 0
    for start in (first, *START_VALUES):
        if spent > budget:
            break
        x0, x1 = float(start[0]), float(start[1])
        iterations = 0
        while True:
            g0, g1, j00, j01, j10, j11 = master(x0, x1)
            if abs(g0) <= ACCURACY and abs(g1) <= ACCURACY:
                return np.array([x0, x1])
            det = j00 * j11 - j01 * j10
            if det == 0.0 or not math.isfinite(det):
                break  # the step is infinite or NaN: the try fails (ARX: a NaN solution)
            x0, x1 = x0 - (j11 * g0 - j01 * g1) / det, x1 - (j00 * g1 - j10 * g0) / det
            if math.isnan(x0) or math.isnan(x1) or not admissible(x0, x1):
                break
            iterations += 1
            if iterations > iterations_per_try:
                break
        spent += iterations
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
    by_size = np.bincount(hist.sizes, weights=hist.counts, minlength=max_size + 1)
    larger = (hist.classes - np.cumsum(by_size))[1:max_size].astype(float)

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


_DIGAMMA_1 = -0.57721566490153286060651209008240243104215933593992  # ψ(1) = −γ
_TRIGAMMA_1 = math.pi * math.pi / 6.0  # ψ'(1) = ζ(2)
_TETRAGAMMA_1 = -2.0 * 1.202056903159594285399738161511449990764986292  # ψ''(1) = −2ζ(3)


def digamma(x: float) -> float:
    """ψ(x) as ARX approximates it (``risk/Gamma.digamma``, Minka's Lightspeed toolbox): reflection
    ψ(x) = ψ(1 − x) + π/tan(−πx) below 0; ψ(1) − 1/x + ψ'(1)·x for 0 < x <= 1e-6; else ψ(x) = ψ(x + 1) − 1/x up
    to x >= 12 and de Moivre's expansion ln x − 1/(2x) − r(1/12 − r(1/120 − r(1/252 − r(1/240 − r/132)))),
    r = 1/x² (within 1e-13 of the exact ψ). NaN for NaN or infinite x, −inf at 0."""
    if not math.isfinite(x):
        return math.nan
    if x == 0.0:
        return -math.inf
    if x < 0.0:
        return digamma(1.0 - x) + math.pi / math.tan(-math.pi * x)
    if x <= 1e-6:
        return (_DIGAMMA_1 - 1.0 / x) + _TRIGAMMA_1 * x
    result = 0.0
    while x < 12.0:
        result -= 1.0 / x
        x += 1.0
    r = 1.0 / x
    result += math.log(x) - 0.5 * r
    r *= r
    return result - r * (1 / 12 - r * (1 / 120 - r * (1 / 252 - r * (1 / 240 - r * (1 / 132)))))


def trigamma(x: float) -> float:
    """ψ'(x) as ARX approximates it (``risk/Gamma.trigamma``): reflection −ψ'(1 − x) + (π/sin(−πx))² below 0;
    1/x² + ψ'(1) + ψ''(1)·x for 0 < x <= 1e-4; else Σ 1/x² while x < 8, plus the asymptotic series
    1/(2x²) + (1 + r(1/6 + r(−1/30 + r(1/42 + r(−1/30 + r·5/66)))))/x, r = 1/x². ARX adds the series only when
    the reduced x is at least 12, which leaves ψ' without it between 8 and 12: that error in the Jacobian slows
    Newton's convergence but does not move a root (the equations use ψ alone), so the series is added from 8 on
    here, as Minka's code does (within 1e-12 of the exact ψ'). NaN for NaN or infinite x, −inf at 0."""
    if not math.isfinite(x):
        return math.nan
    if x == 0.0:
        return -math.inf
    if x < 0.0:
        r = math.pi / math.sin(-math.pi * x)
        return -trigamma(1.0 - x) + r * r
    if x <= 1e-4:
        return 1.0 / (x * x) + _TRIGAMMA_1 + _TETRAGAMMA_1 * x
    result = 0.0
    while x < 8.0:
        result += 1.0 / (x * x)
        x += 1.0
    r = 1.0 / (x * x)
    return result + 0.5 * r + (1.0 + r * (1 / 6 + r * (-1 / 30 + r * (1 / 42 + r * (-1 / 30 + r * (5 / 66)))))) / x


def pitman_closed(hist: Histogram) -> Master:
    """The Pitman equations and their Jacobian with digamma ψ and trigamma ψ' in place of the sums over the
    classes and records (ARX ``ModelPitman.getMasterFunctionClosed``): with v = u − 1,

    g1 = (ψ(v + θ/α + 1) − ψ(θ/α + 1))/α − (ψ(n + θ) − ψ(θ + 1))
    g2 = (α v − θ ψ(v + θ/α + 1) + θ ψ(θ/α + 1))/α² − Σ_{s > 1} c_s (ψ(s − α) − ψ(1 − α)),

    each term as ARX writes it, with ARX's approximations of ψ and ψ' (:func:`digamma`, :func:`trigamma`), and
    ψ(s − α) − ψ(1 − α) as its sum Σ_{j<s} 1/(j − α) (one pass over the class sizes, as ARX's iterative form).
    Its cost does not grow with the records."""
    u, n = float(hist.classes), float(hist.records)
    max_size = int(hist.sizes[-1]) if hist.sizes.size else 1
    by_size = np.bincount(hist.sizes, weights=hist.counts, minlength=max_size + 1)
    larger = (hist.classes - np.cumsum(by_size))[1:max_size].astype(float)  # classes larger than j, j < max
    j = np.arange(1, max_size, dtype=float)

    nan = (math.nan,) * 6

    def master(t: float, a: float) -> tuple[float, float, float, float, float, float]:
        try:
            v0 = u - 1.0
            v1, v4 = digamma(v0 + t / a + 1.0), digamma(t / a + 1.0)
            v2, v3 = trigamma((a + t + a * v0) / a), trigamma(t / a + 1.0)
            v5 = a * a
            d1 = (v3 - v2) / v5
            d5 = ((a * v1 + t * v2) - a * v4 - t * v3) / (v5 * a)
            d3 = ((((v5 * v0) - t * t * v2) + t * t * v3) - 2.0 * a * t * v1 + 2.0 * a * t * v4) / (v5 * v5)
            o1 = (v1 - v4) / a
            o3 = (-t * v1 + a * v0 + t * v4) / (a * a)
            o2, d2 = digamma(n + t) - digamma(t + 1.0), trigamma(t + 1.0) - trigamma(n + t)
        except (ZeroDivisionError, OverflowError, ValueError):
            return nan
        with np.errstate(all="ignore"):
            inverse = 1.0 / (j - a)
            o4, d4 = float(larger @ inverse), float(larger @ (inverse * inverse))
        return o1 - o2, o3 - o4, d2 - d1, -d5, -d5, -d3 - d4

    return master


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


def pitman_uniques(hist: Histogram, population_size: float, iterations_per_try: int = ITERATIONS_PER_TRY) -> float:
    """Estimated number of population uniques under the Pitman model (ARX ``ModelPitman``): solve the
    likelihood equations for (theta, alpha) with theta >= 0 (ARX's constraint) by :func:`newton_2d` on the closed
    forms (:func:`pitman_closed`); a root that does not solve the sums (:func:`pitman_equations`) within
    :data:`ACCURACY`, or none, is sought again on the sums; then Gamma(theta+1)/Gamma(theta+alpha) * N^alpha,
    admissible in [0, N] (ARX ``getResult``). NaN when not solved."""
    from scipy import special

    start, theta_positive = pitman_start(hist), (lambda t, a: t >= 0)
    fun, jac = pitman_equations(hist)
    root = newton_2d(pitman_closed(hist), start, iterations_per_try, theta_positive)
    if root is not None:
        with np.errstate(all="ignore"):
            check = fun(root)
        if not (np.all(np.isfinite(check)) and np.all(np.abs(check) <= ACCURACY)):
            root = None
    if root is None:
        def sums(t: float, a: float) -> tuple[float, float, float, float, float, float]:
            x = np.array([t, a])
            with np.errstate(all="ignore"):
                g, d = fun(x), jac(x)
            return float(g[0]), float(g[1]), float(d[0, 0]), float(d[0, 1]), float(d[1, 0]), float(d[1, 1])

        root = newton_2d(sums, start, iterations_per_try, theta_positive)
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
    pmf = drawn_once(big_n, hist.sizes, n)
    denominator = float(np.sum(weights * pmf))
    conditional = (c1 / u) * float(drawn_once(big_n, np.array([1]), n)[0]) / denominator
    return c1 * conditional / (n / population_size)


def drawn_once(population: int, sizes: np.ndarray, n: int) -> np.ndarray:
    """The hypergeometric pmf H(1; N, s, n): the chance that exactly one of a class of s records of a population
    of N is among n drawn, s·C(N − s, n − 1)/C(N, n) = (s·n/(N − s + 1)) · Π_{i=0}^{s−2} (N − n − i)/(N − i), for
    every class size s at once (the product's logarithms summed once up to the largest size, log1p keeping each
    factor's precision when N is large)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    largest = int(sizes.max()) if sizes.size else 1
    i = np.arange(max(largest - 1, 0), dtype=float)
    with np.errstate(all="ignore"):
        factors = np.where(population - n - i >= 0, np.log1p(-n / (population - i)), -np.inf)
        logs = np.concatenate([[0.0], np.cumsum(factors)])  # logs[k] = Σ_{i<k} log((N − n − i)/(N − i))
        return np.exp(np.log(sizes * float(n) / (population - sizes + 1.0)) + logs[sizes - 1])


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
    def power(x: float, y: float) -> float:  # Java's Math.pow: NaN (not complex) for a negative base
        try:
            return math.pow(x, y)
        except OverflowError:
            return math.inf
        except ValueError:
            return math.inf if x == 0 else math.nan

    def fun(x: np.ndarray) -> np.ndarray:
        a, b = float(x[0]), float(x[1])
        d = (1 - f) * (1 - b)
        try:
            g1 = k * f * power(b / (1 - d), a) * (a * d / (1 - d) + 1) - c1
            g2 = k * a * power(b, a) * (f * f) * (1 - b) / 2 * power(1 - d, a + 2) * (2 - (1 - a) * d) - c2
        except ZeroDivisionError:
            g1 = g2 = math.nan
        return np.array([g1, g2])

    return fun


def snb_uniques(hist: Histogram, population_size: float, iterations_per_try: int = ITERATIONS_PER_TRY) -> float:
    """Estimated number of population uniques under the SNB model (ARX ``ModelSNB``): K beta^alpha after solving
    :func:`snb_equations` from ARX's default start (1, 1). NaN when not solved. The Jacobian is MINPACK's
    finite-difference one (ARX's hand-derived derivatives belong to a variant of g2 divided by (1-d)^(alpha+2);
    the root is defined by the equations either way)."""
    f = hist.records / float(population_size)
    k = snb_classes(hist, f)
    fun = snb_equations(k, f, float(hist.classes_of_size(1)), float(hist.classes_of_size(2)))
    root = solve_2d(fun, (1.0, 1.0), iterations_per_try=iterations_per_try)
    if root is None:
        return math.nan
    with np.errstate(all="ignore"):
        return float(k * root[1] ** root[0])


# ---------------------------------------------------------------------------------------------- Dankar
MODELS = ("pitman", "zayatz", "snb", "dankar")
_ESTIMATORS: dict[str, Callable[[Histogram, float, int], float]] = {
    "pitman": pitman_uniques, "zayatz": lambda hist, size, _: zayatz_uniques(hist, size), "snb": snb_uniques}
_CACHED = 65_536  # estimates kept (one per model, histogram and population size)


@lru_cache(maxsize=_CACHED)
def _uniques(model: str, sizes: bytes, counts: bytes, population_size: float, iterations: int) -> float | None:
    """One model's estimated number of population uniques of a histogram (its sizes and counts as int64 bytes),
    or None when it is not valid (NaN or 0, ARX ``isValid``); memoized, as a histogram recurs across the
    suppression steps of a node and across nodes."""
    hist = Histogram(np.frombuffer(sizes, dtype=np.int64), np.frombuffer(counts, dtype=np.int64))
    value = _ESTIMATORS[model](hist, population_size, iterations)
    return None if (value is None or not np.isfinite(value) or value == 0) else float(value)


def estimated_uniques(hist: Histogram, population_size: float, model: str, zayatz_fallback: bool = True,
                      iterations_per_try: int = ITERATIONS_PER_TRY) -> tuple[float | None, str | None]:
    """Estimated population uniques of one model, computing only what it needs (ARX
    ``RiskModelPopulationUniqueness``: each estimator solved on demand): ``(number, model used)``, the number
    None when not valid. Without sample uniques: 0. Dankar's rule: for a sampling fraction <= 0.1 Pitman, else
    the smaller of Zayatz and SNB (Zayatz when SNB is not valid); when Pitman is not valid, Zayatz with
    ``zayatz_fallback`` (ARX's risk analysis), else no estimate (ARX's ``PopulationUniqueness`` criterion).
    ``iterations_per_try``: the solvers' (ARX's ``ARXSolverConfiguration.iterationsPerTry``)."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    n = hist.records
    if population_size < n or population_size <= 0:
        raise ValueError(f"population size {population_size:g} is smaller than the {n} records of the sample")
    if hist.classes_of_size(1) == 0:
        return 0.0, "none" if model == "dankar" else model
    key = (np.ascontiguousarray(hist.sizes, dtype=np.int64).tobytes(),
           np.ascontiguousarray(hist.counts, dtype=np.int64).tobytes(), float(population_size), int(iterations_per_try))

    def get(name: str) -> float | None:
        return _uniques(name, *key)

    if model != "dankar":
        return get(model), model
    if n / float(population_size) <= DANKAR_FRACTION:
        pitman = get("pitman")
        if pitman is not None or not zayatz_fallback:
            return pitman, "pitman" if pitman is not None else None
        zayatz = get("zayatz")
        return zayatz, "zayatz" if zayatz is not None else None
    snb, zayatz = get("snb"), get("zayatz")
    if snb is not None and (zayatz is None or snb <= zayatz):
        return snb, "snb"
    return zayatz, "zayatz" if zayatz is not None else None


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
    (pitman, _), (zayatz, _), (snb, _) = (estimated_uniques(hist, big_n, m) for m in ("pitman", "zayatz", "snb"))
    dankar, model = estimated_uniques(hist, big_n, "dankar")

    def share(v: float | None) -> float | None:
        return None if v is None else v / big_n

    return PopulationUniques(share(pitman), share(zayatz), share(snb), share(dankar), model,
                             int(population_size), fraction)
