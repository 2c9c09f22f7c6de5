"""Claims of Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix A.2 (Theorem A.5,
Lemma A.6) and B.9 (Lemma B.12), as printed.

=============================  ==============================================================
``002.thmA5.group_dp``         the Global Sensitivity Mechanism F + Lap(Δ_𝒢/ε) is ε-group DP:
                               for x, y differing only in a group the Laplace density ratio
                               ``sup_w e^{ε(|w−F(y)| − |w−F(x)|)/Δ_𝒢} = e^{ε|F(x)−F(y)|/Δ_𝒢}``
                               is <= e^ε
``002.lemA6.mixture``          W∞(Σ c_i μ_i, Σ c_i ν_i) <= max_i W∞(μ_i, ν_i) for mixtures with
                               shared coefficients
``002.lemB12.binary_chain``    a binary chain with every P_ij > 0 is aperiodic, irreducible
                               and reversible
=============================  ==============================================================

Theorem A.5: ``|F(x) − F(y)|`` is maximised by brute force over every pair of datasets that
differ only inside one group, independently of the toolkit's ``group_sensitivity`` (which fixes
Δ_𝒢, hence the scale); the density ratio's supremum is attained for ``w`` beyond both values, so
the statement holds iff that maximum is <= Δ_𝒢 — one exact comparison.
Lemma A.6: the mixture's W∞ is computed by an exact max-flow
(:func:`pufferfish.verify.transport.w_infinity.w_infinity_by_max_flow`) and each component's by
the comonotone coupling (:func:`pufferfish.verify.transport.w_infinity.w_infinity`, certificates
verified) — two different algorithms; instances include zero coefficients, a single component,
identical components and the case where averaging the components' W∞ would be too small.
Lemma B.12: irreducibility by reachability, aperiodicity by the gcd of return times (breadth-first
levels), reversibility by detailed balance ``π_i P_ij = π_j P_ji`` with the stationary law solved
exactly (Gaussian elimination over the rationals); the chains cover p0 < p1, p0 > p1, p0 = p1 and
entries near 0 and 1.

>>> chain_properties(((Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 4), Fraction(3, 4))))
(True, True, True)
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Iterator, Sequence
from fractions import Fraction

from pufferfish.models.numbers import fraction_str
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_002.quilt_instances import PAPER
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register
from pufferfish.verify.transport.groups import group_sensitivity
from pufferfish.verify.transport.w_infinity import w_infinity, w_infinity_by_max_flow

# --------------------------------------------------------------------------------------------
# Theorem A.5
# --------------------------------------------------------------------------------------------


def largest_group_change(universe, query, groups) -> Fraction:
    """``max |F(x) − F(y)|`` over all pairs x, y that differ only inside one group (brute force,
    ``O(|𝒰|² · |groups|)``)."""
    datasets = list(universe.datasets())
    values = {d: Fraction(query(d)) for d in datasets}
    best = Fraction(0)
    for group in groups:
        outside = [i for i in range(universe.width) if i not in set(group)]
        for x in datasets:
            for y in datasets:
                if all(x[i] == y[i] for i in outside):
                    best = max(best, abs(values[x] - values[y]))
    return best


def check_group_dp(instance: Instance) -> ClaimOutcome:
    from pufferfish.proofs_check.paper_002 import wasserstein

    p = instance.params
    model = wasserstein._model(p["universe"], p["priors"])
    query = wasserstein.parse_query(p["query"], model.universe)
    groups = p.get("blocks") or wasserstein.dependence_groups(model)
    sensitivity, _ = group_sensitivity(model.universe, query, groups)
    change = largest_group_change(model.universe, query, groups)
    detail = (f"groups {groups}: Δ_𝒢 = {fraction_str(sensitivity)}; largest change inside a group "
              f"{fraction_str(change)}: density ratio <= e^(ε·{fraction_str(change)}/Δ_𝒢)")
    if sensitivity == 0:
        return ClaimOutcome(change == 0, detail + " (constant within groups: no noise needed)")
    return ClaimOutcome(change <= sensitivity, detail)


def _group_dp_instances() -> Iterator[Instance]:
    from pufferfish.proofs_check.paper_002.wasserstein import theorem33_instances

    return theorem33_instances()


def _singleton_sensitivity(universe, query, groups, *args):
    """Mutant of Definition A.3: the sensitivity to single entries, groups ignored."""
    return _ORIGINAL_GROUP_SENSITIVITY(universe, query, [[i] for i in range(universe.width)])


# --------------------------------------------------------------------------------------------
# Lemma A.6
# --------------------------------------------------------------------------------------------


def mixture(coefficients: Sequence[Fraction], parts: Sequence[dict]) -> dict:
    """``Σ c_i μ_i`` as an atom dict (atoms of weight 0 dropped)."""
    total: dict = {}
    for c, part in zip(coefficients, parts):
        for atom, p in part.items():
            total[atom] = total.get(atom, Fraction(0)) + c * p
    return {atom: p for atom, p in total.items() if p}


def mixture_bound(values: Sequence[Fraction], coefficients: Sequence[Fraction]) -> Fraction:
    """Lemma A.6's right-hand side: ``max_i W∞(μ_i, ν_i)`` (components of coefficient 0 included,
    as printed)."""
    return max(values)


def _random_measure(rng: random.Random, size: int) -> dict:
    atoms = rng.sample(range(-5, 6), size)
    weights = [rng.randint(1, 5) for _ in atoms]
    return {Fraction(a, 2): Fraction(w, sum(weights)) for a, w in zip(atoms, weights)}


def mixture_instances() -> Iterator[Instance]:
    """Hand-made boundary cases, then random mixtures of 1–3 components."""
    point = {Fraction(0): Fraction(1)}
    yield Instance("averaging fails: (δ0, δ0) and (δ0, δ1) with c = (1/2, 1/2)", {
        "c": (Fraction(1, 2), Fraction(1, 2)),
        "mu": (point, point), "nu": (point, {Fraction(1): Fraction(1)})})
    yield Instance("a zero coefficient on the far component", {
        "c": (Fraction(1), Fraction(0)), "mu": (point, point),
        "nu": ({Fraction(1, 2): Fraction(1)}, {Fraction(5): Fraction(1)})})
    yield Instance("identical components", {"c": (Fraction(1, 3), Fraction(2, 3)),
                                            "mu": (point, point), "nu": (point, point)})
    rng = random.Random(46)
    for n in (1, 2, 3):
        for _ in range(5):
            weights = [rng.randint(0, 4) for _ in range(n)]
            if not any(weights):
                weights[0] = 1
            c = tuple(Fraction(w, sum(weights)) for w in weights)
            mu = tuple(_random_measure(rng, rng.randint(1, 3)) for _ in range(n))
            nu = tuple(_random_measure(rng, rng.randint(1, 3)) for _ in range(n))
            yield Instance(f"{n} random components, c = {[fraction_str(x) for x in c]}",
                           {"c": c, "mu": mu, "nu": nu})


def check_mixture(instance: Instance) -> ClaimOutcome:
    c, mu, nu = (instance.params[k] for k in ("c", "mu", "nu"))
    parts = []
    for m, n in zip(mu, nu):
        result = w_infinity(m, n)
        if not result.verify():
            return ClaimOutcome(False, f"the comonotone certificate for {m} vs {n} does not verify")
        parts.append(result.value)
    whole = w_infinity_by_max_flow(mixture(c, mu), mixture(c, nu))
    bound = mixture_bound(parts, c)
    detail = (f"W∞ of the mixtures = {fraction_str(whole)} (max-flow); components "
              f"{[fraction_str(v) for v in parts]}; bound {fraction_str(bound)}")
    return ClaimOutcome(whole <= bound, detail)


# --------------------------------------------------------------------------------------------
# Lemma B.12
# --------------------------------------------------------------------------------------------

Matrix = Sequence[Sequence[Fraction]]


def stationary(matrix: Matrix) -> list[Fraction]:
    """The stationary law of an irreducible chain: ``π P = π``, ``Σ π = 1``, solved exactly."""
    k = len(matrix)
    rows = [[(matrix[j][i] - (1 if i == j else 0)) for j in range(k)] + [Fraction(0)]
            for i in range(k - 1)]
    rows.append([Fraction(1)] * k + [Fraction(1)])
    for col in range(k):
        pivot = next(r for r in range(col, k) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(k):
            if r != col and rows[r][col]:
                factor = rows[r][col] / rows[col][col]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col])]
    return [rows[i][k] / rows[i][i] for i in range(k)]


def chain_properties(matrix: Matrix) -> tuple[bool, bool, bool]:
    """(irreducible, aperiodic, reversible) of a finite chain, decided exactly.

    Irreducible: every state reaches every state.  Aperiodic: the gcd of ``level(u) + 1 −
    level(v)`` over edges ``u → v`` (breadth-first levels from state 0) is 1.  Reversible:
    ``π_i P_ij = π_j P_ji`` for the exact stationary π.  Cost: ``O(k³)``.
    """
    k = len(matrix)

    def reach(start: int) -> set[int]:
        seen, stack = {start}, [start]
        while stack:
            u = stack.pop()
            for v in range(k):
                if matrix[u][v] and v not in seen:
                    seen.add(v)
                    stack.append(v)
        return seen

    irreducible = all(len(reach(s)) == k for s in range(k))
    if not irreducible:
        return False, False, False
    level, frontier = {0: 0}, [0]
    while frontier:
        nxt = []
        for u in frontier:
            for v in range(k):
                if matrix[u][v] and v not in level:
                    level[v] = level[u] + 1
                    nxt.append(v)
        frontier = nxt
    period = 0
    for u in range(k):
        for v in range(k):
            if matrix[u][v]:
                period = math.gcd(period, level[u] + 1 - level[v])
    pi = stationary(matrix)
    reversible = all(pi[i] * matrix[i][j] == pi[j] * matrix[j][i]
                     for i in range(k) for j in range(k))
    return True, abs(period) == 1, reversible


LEMMA_B12_STATES = 2
"""Lemma B.12 is stated for binary chains."""


def binary_chain_instances() -> Iterator[Instance]:
    values = (Fraction(1, 100), Fraction(1, 3), Fraction(1, 2), Fraction(9, 10), Fraction(99, 100))
    for p0 in values:
        for p1 in values:
            yield Instance(f"p0={fraction_str(p0)}, p1={fraction_str(p1)}", {"p0": p0, "p1": p1})


def _matrix(instance: Instance) -> Matrix:
    p0, p1 = instance.params["p0"], instance.params["p1"]
    if LEMMA_B12_STATES == 2:
        return ((p0, 1 - p0), (1 - p1, p1))
    # three states with every entry positive: the hypothesis "binary" dropped
    return ((p0, (1 - p0) / 3, 2 * (1 - p0) / 3), ((1 - p1) / 2, p1, (1 - p1) / 2),
            (Fraction(1, 5), Fraction(3, 5), Fraction(1, 5)))


def check_binary_chain(instance: Instance) -> ClaimOutcome:
    matrix = _matrix(instance)
    if any(p <= 0 for row in matrix for p in row):
        return ClaimOutcome(True, "hypothesis not met (an entry is 0)")
    irreducible, aperiodic, reversible = chain_properties(matrix)
    detail = (f"irreducible {irreducible}, aperiodic {aperiodic}, reversible {reversible} "
              f"(π = {[fraction_str(x) for x in stationary(matrix)]})")
    return ClaimOutcome(irreducible and aperiodic and reversible, detail)


_THIS = sys.modules[__name__]
_ORIGINAL_GROUP_SENSITIVITY = group_sensitivity

register(Claim(
    "002.thmA5.group_dp", PAPER, "Appendix A.2, Theorem A.5",
    "The Global Sensitivity Mechanism F(x) + Lap(Δ_𝒢F/ε) guarantees ε-group DP: for every group "
    "G_k, all x, y differing only in G_k and every w, the output densities differ by at most e^ε.",
    _group_dp_instances, check_group_dp,
    mutants=(patched("Δ_𝒢 computed with singleton groups", check_group_dp,
                     lambda: [i for i in _group_dp_instances() if "blocks" in i.params][:1], _THIS,
                     group_sensitivity=_singleton_sensitivity),)))

register(Claim(
    "002.lemA6.mixture", PAPER, "Appendix A.2, Lemma A.6",
    "For mixtures μ = Σ c_i μ_i, ν = Σ c_i ν_i with shared coefficients c_i >= 0, Σ c_i = 1: "
    "W∞(μ, ν) <= max_i W∞(μ_i, ν_i).",
    mixture_instances, check_mixture,
    mutants=(patched("max replaced by the average Σ c_i W∞(μ_i, ν_i)", check_mixture,
                     lambda: list(mixture_instances())[:1], _THIS,
                     mixture_bound=lambda values, c: sum(x * w for x, w in zip(values, c))),)))
register(Claim(
    "002.lemB12.binary_chain", PAPER, "Appendix B.9, Lemma B.12",
    "Any binary Markov chain with transition matrix P such that P_ij > 0 for all i, j is "
    "aperiodic, irreducible and reversible.",
    binary_chain_instances, check_binary_chain,
    mutants=(patched("three states instead of two (hypothesis 'binary' dropped)",
                     check_binary_chain, lambda: list(binary_chain_instances())[:3], _THIS,
                     LEMMA_B12_STATES=3),)))
