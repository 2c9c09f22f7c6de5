"""Claim of Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix B.10: the
spectral-norm condition of [11].

=============================  ==============================================================
``002.B10.spectral_norm``      if the multiplicative influence matrix Γ has spectral norm < 1,
                               an ε-DP mechanism gives 2ε Σ_j φ_ij inferential privacy for every
                               X_i, Φ = (I − Γ)^{-1}
``002.B10.gamma_structure``    for a binary chain Γ is zero off the sub/super-diagonals and every
                               entry with |i − j| = 1 is the same γ (as printed)
=============================  ==============================================================

``002.B10.gamma_structure`` computes every γ_ij (i ≠ j) by brute force from the joint law of a
chain of 5 nodes started in its stationary law; the ends, whose conditional depends on one
neighbour only, are where equal entries can fail (a smaller end entry keeps [11]'s bound valid,
since Φ grows with Γ).

Everything is computed from the definitions, on binary chains of 3–4 nodes with every entry a
secret: each γ_ij (``|i − j| = 1``, both orders, end nodes included) by brute force over the
joint law (``P(X_i ∈ S | x_{−i})`` as ratios of joint probabilities); the condition
``‖Γ‖₂ < 1`` through the certified bound ``‖Γ‖₂ <= sqrt(‖Γ‖₁ ‖Γ‖∞)`` (instances where that bound
is not below 1 do not meet the hypothesis as certified and are reported so); the row sums of Φ by
interval Gaussian elimination; the mechanism is per-entry randomized response with rational keep
(so ``e^ε`` is rational) and its inferential-privacy level — the Pufferfish level for the pairs
``X_i = 0`` vs ``X_i = 1`` under the chain — is exact
(:func:`pufferfish.verify.privacy.pufferfish.pufferfish_level`).  A comparison the intervals cannot
decide counts as a failure.  Cost: ``O(4^T)`` for Γ, ``O(T³)`` interval operations.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from fractions import Fraction
from itertools import product

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.mechanisms import RandomizedResponse
from pufferfish.models.numbers import epsilon_str, fraction_str
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_002.quilt_instances import PAPER, chain_model
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register, violation
from pufferfish.verify.numerics.intervals import interval_context, log_interval, rational_interval
from pufferfish.verify.privacy.pufferfish import pufferfish_level

_BITS = 120


def chain_joint(p0: Fraction, p1: Fraction, initial: tuple[Fraction, Fraction]):
    """The joint law ``x -> π(x_1) Π P(x_t, x_{t+1})`` of a binary chain."""
    P = ((p0, 1 - p0), (1 - p1, p1))

    def joint(x: tuple) -> Fraction:
        value = initial[x[0]]
        for a, b in zip(x, x[1:]):
            value *= P[a][b]
        return value
    return joint


def influence_ratios(p0: Fraction, p1: Fraction, initial: tuple[Fraction, Fraction],
                     length: int, joint=None, distances: tuple[int, ...] = (1,)
                     ) -> dict[tuple[int, int], Fraction]:
    """``(i, j) -> e^{2γ_ij}`` for ``|i − j|`` in ``distances`` (0-based), by brute force over the
    joint law (the chain's unless ``joint`` is given)."""
    joint = joint or chain_joint(p0, p1, initial)
    ratios = {}
    for i in range(length):
        for j in range(length):
            if abs(i - j) not in distances:
                continue
            best = Fraction(1)
            for rest in product((0, 1), repeat=length):
                if rest[i] != 0:
                    continue
                other = list(rest)
                other[j] = 1 - other[j]
                for s in (0, 1):
                    values = []
                    for context in (rest, tuple(other)):
                        weights = [joint(context[:i] + (v,) + context[i + 1:]) for v in (0, 1)]
                        total = weights[0] + weights[1]
                        values.append(weights[s] / total if total else None)
                    if values[0] and values[1]:
                        best = max(best, values[0] / values[1])
            ratios[(i, j)] = best
    return ratios


PRIVACY_FACTOR = 2
"""[11]: ε-DP gives 2ε Σ_j φ_ij inferential privacy (the factor a mutant changes)."""


def _row_sums(context, gamma: list[list]) -> list:
    """Row sums of (I − Γ)^{-1}: solve (I − Γ) r = 1 by Gaussian elimination on intervals."""
    n = len(gamma)
    rows = [[(1 if i == j else 0) - gamma[i][j] for j in range(n)] + [context.mpf(1)]
            for i in range(n)]
    for col in range(n):
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col])]
    solution = [context.mpf(0)] * n
    for i in reversed(range(n)):
        value = rows[i][n] - sum((rows[i][j] * solution[j] for j in range(i + 1, n)),
                                 context.mpf(0))
        solution[i] = value / rows[i][i]
    return solution


def inferential_instances() -> Iterator[Instance]:
    for p0, p1 in ((Fraction(1, 2), Fraction(1, 2)), (Fraction(3, 5), Fraction(3, 5)),
                   (Fraction(2, 5), Fraction(2, 5)), (Fraction(11, 20), Fraction(9, 20)),
                   (Fraction(3, 5), Fraction(1, 2))):
        for length in (3, 4):
            for keep in (Fraction(3, 5), Fraction(3, 4)):
                yield Instance(f"p0={p0}, p1={p1}, T={length}, randomized response keep {keep}",
                               {"p0": p0, "p1": p1, "T": length, "keep": keep})


def check_spectral(instance: Instance) -> ClaimOutcome:
    p0, p1, length, keep = (instance.params[k] for k in ("p0", "p1", "T", "keep"))
    initial = (Fraction(1, 2), Fraction(1, 2))
    context = interval_context(_BITS)
    ratios = influence_ratios(p0, p1, initial, length)
    gamma = [[log_interval(context, ratios[(i, j)]) / 2 if (i, j) in ratios else context.mpf(0)
              for j in range(length)] for i in range(length)]
    one = max(sum((gamma[i][j] for i in range(length)), context.mpf(0)).b for j in range(length))
    inf = max(sum((gamma[i][j] for j in range(length)), context.mpf(0)).b for i in range(length))
    norm_bound = context.sqrt(context.mpf(one) * context.mpf(inf))
    if not norm_bound.b < 1:
        return ClaimOutcome(False, f"‖Γ‖₂ <= {float(norm_bound.b):.6g} is not certified below 1: "
                                   f"the instance does not meet the hypothesis")
    chain = MarkovChain.binary(p0, p1, length, [str(x) for x in initial])
    model = chain_model((chain,))
    mechanism = RandomizedResponse("rr", model.universe, keep)
    level = pufferfish_level(model, mechanism).level_ratio
    epsilon = log_interval(context, keep / (1 - keep))
    sums = _row_sums(context, gamma)
    factor = rational_interval(context, Fraction(PRIVACY_FACTOR)) * epsilon
    bound = factor * max((s.b for s in sums))
    bound_low = factor * max((s.a for s in sums))
    measured = log_interval(context, level)
    detail = (f"‖Γ‖₂ <= {float(norm_bound.b):.6g}; e^(2γ) = "
              f"{sorted({fraction_str(r) for r in ratios.values()})}; inferential level "
              f"{epsilon_str(level)} ≈ {float(measured.b):.6g} vs 2ε max_i Σ_j φ_ij ≈ "
              f"{float(bound.b):.6g} (ε = log({fraction_str(keep / (1 - keep))}))")
    if measured.b <= bound_low.a:
        return ClaimOutcome(True, detail)
    undecided = "" if measured.a > bound.b else " (undecided)"
    return violation("002.B10.spectral_norm", PAPER, instance, detail + undecided, model)


def _second_order_joint(x: tuple) -> Fraction:
    """A binary sequence where x_{t+2} copies x_t with probability 4/5 (not a Markov chain)."""
    value = Fraction(1, 4)
    for a, b in zip(x, x[2:]):
        value *= Fraction(4, 5) if a == b else Fraction(1, 5)
    return value


def structure_instances() -> Iterator[Instance]:
    for p0, p1 in ((Fraction(1, 2), Fraction(1, 2)), (Fraction(2, 5), Fraction(3, 5)),
                   (Fraction(3, 5), Fraction(3, 5)), (Fraction(1, 10), Fraction(1, 10)),
                   (Fraction(9, 10), Fraction(4, 5)), (Fraction(1, 5), Fraction(9, 10))):
        yield Instance(f"p0={p0}, p1={p1}, T=5, stationary start", {"p0": p0, "p1": p1})


STRUCTURE_LENGTH = 5


def check_structure(instance: Instance) -> ClaimOutcome:
    p0, p1 = instance.params["p0"], instance.params["p1"]
    stationary = ((1 - p1) / (2 - p0 - p1), (1 - p0) / (2 - p0 - p1))
    joint = instance.params.get("joint")
    ratios = influence_ratios(p0, p1, stationary, STRUCTURE_LENGTH, joint,
                              distances=tuple(range(1, STRUCTURE_LENGTH)))
    far = {k: r for k, r in ratios.items() if abs(k[0] - k[1]) > 1 and r != 1}
    near = {k: r for k, r in ratios.items() if abs(k[0] - k[1]) == 1}
    if far:
        (i, j), r = next(iter(far.items()))
        return ClaimOutcome(False, f"γ_{i + 1},{j + 1} = ½ log({fraction_str(r)}) ≠ 0 with "
                                   f"|i − j| = {abs(i - j)}")
    values = sorted(set(near.values()))
    detail = "neighbour entries e^(2γ_ij): " + ", ".join(
        f"({i + 1},{j + 1}): {fraction_str(r)}" for (i, j), r in sorted(near.items()))
    if len(values) > 1:
        return violation("002.B10.gamma_structure", PAPER, instance,
                         detail + " — not all equal", chain_model((MarkovChain.binary(
                             p0, p1, STRUCTURE_LENGTH, [str(x) for x in stationary]),)))
    return ClaimOutcome(True, detail + " — all equal, zero beyond")


_THIS = sys.modules[__name__]

register(Claim(
    "002.B10.gamma_structure", PAPER, "Appendix B.10 (structure of Γ for a binary chain)",
    "In the binary Markov chain setting Γ is zero except for the sub- and super-diagonal, and "
    "γ_ij = γ, the same value, for all |i − j| = 1 (chain of 5 nodes started stationary, every "
    "γ_ij by brute force).",
    structure_instances, check_structure,
    mutants=(patched("a second-order sequence instead of a Markov chain (hypothesis dropped)",
                     check_structure, [Instance("x_{t+2} copies x_t w.p. 4/5", {
                         "p0": Fraction(1, 2), "p1": Fraction(1, 2),
                         "joint": _second_order_joint})], _THIS),)))

register(Claim(
    "002.B10.spectral_norm", PAPER, "Appendix B.10 ([11]'s guarantee as cited)",
    "If the multiplicative influence matrix Γ has spectral norm < 1, an ε-differentially private "
    "algorithm provides 2ε Σ_j φ_ij inferential privacy for every X_i, Φ = (I − Γ)^{-1} "
    "(binary chains, per-entry randomized response, γ_ij from the definition).",
    inferential_instances, check_spectral,
    mutants=(patched("2ε Σ_j φ_ij replaced by ε Σ_j φ_ij / 2", check_spectral,
                     lambda: [i for i in inferential_instances()
                              if i.params["p0"] == Fraction(3, 5)][:2], _THIS,
                     PRIVACY_FACTOR=Fraction(1, 2)),)))
