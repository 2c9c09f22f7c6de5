"""Claims of Bai et al., Composition for Pufferfish Privacy, Appendix B, Algorithm 2 (Pufferfish
Exponential Mechanism) and §6.4.2 (the exponential mechanism of differential privacy), decided with
certified intervals.

===================================  ==========================================================
``000.alg2.printed_private``         Algorithm 2 as printed — lines 1–9 (Algorithm 1's
                                     calibration: ε_DP the *minimum* over the curve's points of
                                     ``ε_puffer/|I|`` if ``aℓ >= ε_puffer`` else
                                     ``(ε_puffer − aℓ)/bℓ``), line 10 ``Pr[Z = r] ∝
                                     exp(u(D, r)·ε_DP/2L)`` — is ε_puffer-Pufferfish
``000.alg2.best_point_private``      §6.4.2's reading ("the maximum should be selected over the
                                     entire a(b)-influence curve for the tightest translation"):
                                     ε_DP the *largest* ``(ε_puffer − a)/b`` over the points with
                                     ``a < ε_puffer`` — also ε_puffer-Pufferfish
``000.sec642.exponential_dp``        §6.4.2: sampling ``r`` with probability ∝
                                     ``exp(ε_DP u(D, r)/2Δ_u)`` "achieves ε_DP-differential
                                     privacy" (neighbours differing in one entry)
===================================  ==========================================================

As for Algorithm 1 (:mod:`pufferfish.proofs_check.paper_000.algorithms`), the printed minimum runs
over every point, so the point ``b = 0`` (``a = ∞``) forces ``ε_DP <= ε_puffer/|I|``; the
toolkit's Top-K experiment uses the best-point reading (``topk/mechanisms.py``).  Both are
registered.

**Instances.**  The binary chains of Example 6.1 (strong ``p = 19/20, q = 9/10``, weak
``3/5, 7/10``, independent ``1/2, 1/2`` and anti-correlated ``1/5, 3/10``), ``T = 3, 4`` entries,
``ε_puffer ∈ {1/10, 1, 5}``, and three utilities of the count ``c = Σ x_t`` over the outputs
``r ∈ {0..T}``: ``−|c − r|`` (L = 1), ``−⌊|c − r|/2⌋`` (L = 1, ties: two outputs share the top
score) and ``−(c − r)²`` (``L = 2T − 1 > 1``).  ``L`` is computed from the utility table as the
largest change of ``u(·, r)`` between neighbouring counts (one entry changed).

**Decision.**  The curve is the exact ``a*(b)`` (:func:`~pufferfish.verify.influence.chains.
chain_influence_curve`); ``ε_DP`` is transcendental (``(ε − log r)/b``) and so are the output
probabilities.  ``Pr[Z = r | s, θ] = Σ_c Pr[c | s, θ] · e^{u(c,r)ε_DP/2L} / Σ_{r'} e^{u(c,r')ε_DP/2L}``
(the conditional laws of ``c`` are exact rationals, :func:`~pufferfish.verify.transport.
laplace_level.conditional_query_distributions`) is enclosed by interval arithmetic together with
``ε_puffer − log(Pr[r|s_i, θ]/Pr[r|s_j, θ])`` for every ordered secret pair and output, at doubling
precision: the claim holds when every enclosure is positive, is violated (certified) when one is
negative, and is undecided when an enclosure still contains 0 at :data:`MAX_BITS`.  Cost per
instance: ``O(|pairs| · |R| · (T + 1))`` interval exponentials and logarithms per precision.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, fraction_str
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_000.figures import binary_chain_model
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, counterexample_dict, register
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.numerics.certified import compare_ratio, parse_budget
from pufferfish.verify.numerics.intervals import endpoints, interval_context, log_interval, rational_interval
from pufferfish.verify.transport.laplace_level import conditional_query_distributions

PAPER = paper("000").key
START_BITS = 64
MAX_BITS = 1024
EXPONENT_FACTOR = Fraction(1, 2)
"""The ``1/2`` of ``exp(u·ε_DP/2L)`` (line 10 of Algorithm 2; §6.4.2), the constant a mutant changes."""

CHAINS = ((Fraction(19, 20), Fraction(9, 10), "strong"), (Fraction(3, 5), Fraction(7, 10), "weak"),
          (Fraction(1, 2), Fraction(1, 2), "independent"),
          (Fraction(1, 5), Fraction(3, 10), "anti-correlated"))
EPSILONS = (Fraction(1, 10), Fraction(1), Fraction(5))


def distance(c: int, r: int, length: int) -> int:
    """``−|c − r|``: the closer the output to the count, the better."""
    return -abs(c - r)


def coarse_distance(c: int, r: int, length: int) -> int:
    """``−⌊|c − r|/2⌋``: outputs at distance 0 and 1 tie."""
    return -(abs(c - r) // 2)


def squared_distance(c: int, r: int, length: int) -> int:
    """``−(c − r)²``: Lipschitz constant ``2T − 1``."""
    return -(c - r) ** 2


UTILITIES: dict[str, Callable[[int, int, int], int]] = {
    "−|c − r|": distance, "−⌊|c − r|/2⌋": coarse_distance, "−(c − r)²": squared_distance}


def lipschitz(utility: Callable[[int, int, int], int], length: int) -> int:
    """``L = max_{c, r} |u(c + 1, r) − u(c, r)|``: changing one entry moves the count by at most 1.

    >>> lipschitz(squared_distance, 4)
    7
    """
    return max(abs(utility(c + 1, r, length) - utility(c, r, length))
               for c in range(length) for r in range(length + 1))


# ------------------------------------------------------------------------------------------------
# lines 1–9: the calibration, enclosed
# ------------------------------------------------------------------------------------------------

def point_epsilons(curve, epsilon: Fraction, entries: int, context) -> list[tuple[bool, object]]:
    """For each curve point: ``(aℓ >= ε_puffer, enclosure of ε_DPℓ)`` (lines 3–7).

    ``aℓ >= ε_puffer`` is decided exactly (:func:`~pufferfish.verify.numerics.certified.
    compare_ratio`); then ``ε_DPℓ = ε_puffer/|I|``, else ``(ε_puffer − log rℓ)/bℓ`` enclosed.
    """
    budget = parse_budget(fraction_str(epsilon))
    rows = []
    for point in curve.points:
        saturated = point.max_ratio == INFINITY or \
            compare_ratio(point.max_ratio, budget).relation != "below"
        if saturated:
            rows.append((True, rational_interval(context, epsilon / entries)))
        else:
            rows.append((False, (rational_interval(context, epsilon)
                                 - log_interval(context, point.max_ratio)) / point.b))
    return rows


def _hull(context, intervals, pick) -> object:
    lows, highs = zip(*(endpoints(i) for i in intervals))
    low, high = pick(lows), pick(highs)
    return context.mpf([rational_interval(context, low).a, rational_interval(context, high).b])


def printed_epsilon(rows, context):
    """Line 8 as printed: ``ε_DP = min_ℓ ε_DPℓ`` over every point."""
    return _hull(context, [i for _, i in rows], min)


def best_point_epsilon(rows, context):
    """§6.4.2's reading: the largest ``(ε_puffer − a)/b`` over the points with ``a < ε_puffer``
    (there is one: the point ``b = |I|`` has ``a = 0``)."""
    usable = [i for saturated, i in rows if not saturated]
    if not usable:
        raise ModelError("no curve point has a < ε_puffer", "epsilon")
    return _hull(context, usable, max)


# ------------------------------------------------------------------------------------------------
# line 10: the exponential mechanism, and the certified decision
# ------------------------------------------------------------------------------------------------

def output_law(utility, length: int, lipschitz_constant: int, epsilon_dp, context, count: int):
    """Enclosures of ``Pr[Z = r | c]`` for ``r = 0..T`` (line 10; normalised)."""
    scale = epsilon_dp * rational_interval(context, EXPONENT_FACTOR / lipschitz_constant)
    weights = [context.exp(utility(count, r, length) * scale) for r in range(length + 1)]
    total = sum(weights[1:], weights[0])
    return [w / total for w in weights]


def _decide(margins: Callable[[object], list[tuple[str, object]]]) -> tuple[str, str, object]:
    """Refine the precision until every margin is certified positive or one is negative.

    ``margins(context)`` lists ``(label, enclosure of ε − log ratio)``.  Returns ``(verdict,
    label of the worst margin, its enclosure)``.
    """
    bits = START_BITS
    while True:
        context = interval_context(bits)
        listed = [(label, endpoints(m)) for label, m in margins(context)]
        worst = min(listed, key=lambda item: item[1][0])
        negative = [item for item in listed if item[1][1] < 0]
        if negative:
            return "violated", negative[0][0], negative[0][1]
        if worst[1][0] > 0:
            return "holds", worst[0], worst[1]
        if bits >= MAX_BITS:
            return "undecided", worst[0], worst[1]
        bits *= 2


def _outcome(claim_id: str, instance: Instance, model, verdict: str, label: str, margin,
             what: str) -> ClaimOutcome:
    low, high = margin
    detail = (f"{what}; smallest ε − level margin at {label}: in [{float(low):.6g}, "
              f"{float(high):.6g}]")
    if verdict == "holds":
        return ClaimOutcome(True, detail)
    if verdict == "undecided":
        return ClaimOutcome.undecided_at(detail + f" (not decided at {MAX_BITS} bits)")
    detail += " (certified negative: the level exceeds the budget)"
    return ClaimOutcome(False, detail, counterexample_dict(
        model, f"counterexample to {claim_id} ({cite(PAPER)}): {instance.label}: {detail}"))


def algorithm2_instances() -> Iterator[Instance]:
    for p, q, kind in CHAINS:
        for length in (3, 4):
            for epsilon in EPSILONS:
                for name in UTILITIES:
                    yield Instance(f"{kind} chain p={p}, q={q}, T={length}, ε_puffer={epsilon}, "
                                   f"u = {name}", {"p": p, "q": q, "T": length,
                                                   "epsilon": epsilon, "utility": name})


def pufferfish_check(claim_id: str, reading):
    def check(instance: Instance) -> ClaimOutcome:
        p, q, length, epsilon = (instance.params[k] for k in ("p", "q", "T", "epsilon"))
        utility = UTILITIES[instance.params["utility"]]
        model = binary_chain_model(p, q, length)
        curve = chain_influence_curve(model, max_b=length)
        big_l = lipschitz(utility, length)
        laws = [(f"{first} vs {second}", law_i, law_j) for _, first, second, _, law_i, law_j
                in conditional_query_distributions(model, lambda d: sum(d))
                if law_i is not None and law_j is not None]

        def margins(context):
            epsilon_dp = reading(point_epsilons(curve, epsilon, length, context), context)
            given = {c: output_law(utility, length, big_l, epsilon_dp, context, c)
                     for c in range(length + 1)}
            budget = rational_interval(context, epsilon)
            out = []
            for label, law_i, law_j in laws:
                for r in range(length + 1):
                    pr_i = sum((rational_interval(context, w) * given[int(c)][r]
                                for c, w in law_i.items()), context.mpf(0))
                    pr_j = sum((rational_interval(context, w) * given[int(c)][r]
                                for c, w in law_j.items()), context.mpf(0))
                    out.append((f"{label}, output r = {r}",
                                budget - context.log(pr_i) + context.log(pr_j)))
            return out

        verdict, label, margin = _decide(margins)
        return _outcome(claim_id, instance, model, verdict, label, margin,
                        f"L = {big_l}, {len(curve.points)} curve points")
    return check


def exponential_dp_instances() -> Iterator[Instance]:
    for length in (2, 3, 5):
        for epsilon_dp in EPSILONS:
            for name in UTILITIES:
                yield Instance(f"T={length}, ε_DP={epsilon_dp}, u = {name}",
                               {"T": length, "epsilon_dp": epsilon_dp, "utility": name})


def check_exponential_dp(instance: Instance) -> ClaimOutcome:
    """§6.4.2: for every count ``c`` and its neighbour ``c + 1`` (one entry changed) and every
    output, ``|log Pr[r | c] − log Pr[r | c + 1]| <= ε_DP`` with ``Δ_u`` the utility's L."""
    length, epsilon_dp = instance.params["T"], instance.params["epsilon_dp"]
    utility = UTILITIES[instance.params["utility"]]
    big_l = lipschitz(utility, length)

    def margins(context):
        eps = rational_interval(context, epsilon_dp)
        laws = [output_law(utility, length, big_l, eps, context, c) for c in range(length + 1)]
        out = []
        for c in range(length):
            for r in range(length + 1):
                ratio = context.log(laws[c][r]) - context.log(laws[c + 1][r])
                out.append((f"counts {c} vs {c + 1}, output r = {r}", eps - ratio))
                out.append((f"counts {c + 1} vs {c}, output r = {r}", eps + ratio))
        return out

    verdict, label, margin = _decide(margins)
    low, high = margin
    detail = (f"Δ_u = {big_l}; smallest ε_DP − level margin at {label}: in [{float(low):.6g}, "
              f"{float(high):.6g}]")
    if verdict == "holds":
        return ClaimOutcome(True, detail)
    if verdict == "undecided":
        return ClaimOutcome.undecided_at(detail + f" (not decided at {MAX_BITS} bits)")
    return ClaimOutcome(False, detail + " (certified negative)")


_THIS = sys.modules[__name__]


def _strong_instances() -> list[Instance]:
    return [i for i in algorithm2_instances() if i.params["p"] == Fraction(19, 20)
            and i.params["T"] == 3 and i.params["epsilon"] == 1]


def _mutants(claim_id: str, reading, factor: Fraction):
    return (patched(f"line 10 with exp({factor}·u·ε_DP/L) instead of exp(u·ε_DP/2L)",
                    pufferfish_check(claim_id, reading), _strong_instances, _THIS,
                    EXPONENT_FACTOR=factor),)


register(Claim(
    "000.alg2.printed_private", PAPER, "Appendix B, Algorithm 2 (as printed)",
    "Algorithm 2 as printed — ε_DP = min over every (a_ℓ, b_ℓ) point of ε_puffer/|I| if "
    "a_ℓ >= ε_puffer else (ε_puffer − a_ℓ)/b_ℓ; output r with probability ∝ exp(u(D, r)·ε_DP/2L) — "
    "is ε_puffer-Pufferfish (utilities of the count on binary chains; levels enclosed by "
    "certified interval arithmetic).",
    algorithm2_instances, pufferfish_check("000.alg2.printed_private", printed_epsilon),
    mutants=_mutants("000.alg2.printed_private", printed_epsilon, Fraction(4))))
register(Claim(
    "000.alg2.best_point_private", PAPER, "§6.4.2 with Theorem 6 (the reading the toolkit uses)",
    "With ε_DP the largest (ε_puffer − a)/b over the curve points with a < ε_puffer (§6.4.2: the "
    "maximum over the curve gives the tightest translation), output r with probability ∝ "
    "exp(u(D, r)·ε_DP/2L) is ε_puffer-Pufferfish (utilities of the count on binary chains; levels "
    "enclosed by certified interval arithmetic).",
    algorithm2_instances, pufferfish_check("000.alg2.best_point_private", best_point_epsilon),
    mutants=_mutants("000.alg2.best_point_private", best_point_epsilon, Fraction(2))))
register(Claim(
    "000.sec642.exponential_dp", PAPER, "§6.4.2",
    "Sampling r with probability ∝ exp(ε_DP·u(D, r)/2Δ_u) achieves ε_DP-differential privacy "
    "(per-entry neighbours; Δ_u the largest change of u between neighbours; log ratios enclosed "
    "by certified interval arithmetic).",
    exponential_dp_instances, check_exponential_dp,
    mutants=(patched("exp(ε_DP·u/Δ_u): the 2 in the denominator dropped", check_exponential_dp,
                     lambda: list(exponential_dp_instances())[:6], _THIS, EXPONENT_FACTOR=Fraction(1)),)))
