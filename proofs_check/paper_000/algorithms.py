"""Claims of Bai et al., Composition for Pufferfish Privacy, Appendix B, Algorithm 1 (Pufferfish
Laplace Mechanism), run as printed and in the reading of §6.4.1.

=================================  ==========================================================
``000.alg1.printed_private``       Algorithm 1 as printed — ε_DP the *minimum* over the curve's
                                   points of ε_DPℓ (``ε_puffer/|I|`` when ``aℓ >= ε_puffer``,
                                   else ``(ε_puffer − aℓ)/bℓ``), noise Lap(L/ε_DP) — is
                                   ε_puffer-Pufferfish
``000.alg1.best_point_private``    §6.4.1's reading ("maximum over all possible b values yields
                                   the best utility"): ε_DP the *maximum* of ``(ε_puffer − a)/b``
                                   over the points with ``a < ε_puffer`` — also ε_puffer-Pufferfish
=================================  ==========================================================

The pseudocode takes ``min(ε_DP, ε_DPℓ)`` over every point, so the point ``b = 0`` (``a = ∞``)
alone forces ``ε_DP <= ε_puffer/|I|``: as printed, the algorithm never adds less noise than group
DP over the whole dataset.  The toolkit's Top-K experiment (``topk/mechanisms.py``) uses the
reading of §6.4.1, the best point; both readings are registered.

Instances: the binary chains of Example 6.1 (positively and negatively correlated, independent),
``T = 3..5`` entries, the count query (``L = 1`` for per-entry neighbours), ``ε_puffer`` 1, 2, 5.
The curve is the exact ``a*(b)`` (:func:`pufferfish.verify.influence.chains.chain_influence_curve`);
``ε_DPℓ`` is transcendental, so the Laplace scale ``L/ε_DP`` is enclosed with interval arithmetic
and rounded *up* to a multiple of ``2^-30`` (more noise, never less); the release ``F(D) + Lap``
is audited with the certified Laplace level
(:func:`pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`); an undecided level
counts as a failure.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.models.numbers import INFINITY, fraction_str
from pufferfish.proofs_check.paper_000.figures import binary_chain_model
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, counterexample_dict, register
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.numerics.certified import compare_ratio, parse_budget
from pufferfish.verify.numerics.intervals import endpoints, interval_context, log_interval
from pufferfish.verify.transport.laplace_level import laplace_pufferfish_level

PAPER = paper("000").key
_GRID = 2 ** 30


def _round_up(value: Fraction) -> Fraction:
    return Fraction(math.ceil(value * _GRID), _GRID)


def point_scales(curve, epsilon: Fraction, entries: int) -> list[tuple[int, bool, Fraction]]:
    """For each curve point ``(a, b)``: ``(b, a >= ε_puffer, upper bound of L/ε_DPℓ)`` with L = 1.

    Lines 3–7 of Algorithm 1: ``ε_DPℓ = ε_puffer/|I|`` when ``aℓ >= ε_puffer`` (decided exactly),
    else ``(ε_puffer − aℓ)/bℓ``, whose reciprocal is enclosed at 80 bits.
    """
    budget = parse_budget(fraction_str(epsilon))
    context = interval_context(80)
    rows = []
    for point in curve.points:
        saturated = point.max_ratio == INFINITY or \
            compare_ratio(point.max_ratio, budget).relation != "below"
        if saturated:
            rows.append((point.b, True, Fraction(entries) / epsilon))
            continue
        scale = point.b / (context.mpf(epsilon.numerator) / epsilon.denominator
                           - log_interval(context, point.max_ratio))
        rows.append((point.b, False, endpoints(scale)[1]))
    return rows


def printed_scale(rows) -> Fraction:
    """Algorithm 1 as printed: ε_DP = min_ℓ ε_DPℓ, i.e. the largest scale L/ε_DPℓ."""
    return _round_up(max(scale for _, _, scale in rows))


def best_point_scale(rows) -> Fraction:
    """§6.4.1's reading: the best point with a < ε_puffer, i.e. the smallest such scale."""
    return _round_up(min(scale for _, saturated, scale in rows if not saturated))


def algorithm1_instances() -> Iterator[Instance]:
    for p, q in ((Fraction(4, 5), Fraction(9, 10)), (Fraction(1, 5), Fraction(3, 10)),
                 (Fraction(1, 2), Fraction(1, 2)), (Fraction(2, 3), Fraction(1, 3))):
        for length in (3, 5):
            for epsilon in (Fraction(1), Fraction(2), Fraction(5)):
                yield Instance(f"binary chain p={p}, q={q}, T={length}, ε_puffer={epsilon}",
                               {"p": p, "q": q, "T": length, "epsilon": epsilon})


NOISE_FACTOR = 1
"""Line 10 of Algorithm 1: η ~ Lap(1 · L/ε_DP) (the factor a mutant changes)."""


def _check(claim_id: str, reading):
    def check(instance: Instance) -> ClaimOutcome:
        p, q, length, epsilon = (instance.params[k] for k in ("p", "q", "T", "epsilon"))
        model = binary_chain_model(p, q, length)
        curve = chain_influence_curve(model, max_b=length)
        rows = point_scales(curve, epsilon, length)
        scale = reading(rows) * NOISE_FACTOR
        level = laplace_pufferfish_level(model, lambda d: Fraction(sum(d)), scale)
        verdict = level.holds_at(parse_budget(fraction_str(epsilon)))
        detail = (f"Laplace scale {float(scale):.8g} (group-DP scale |I|/ε = "
                  f"{float(length / epsilon):.8g}); released count has Pufferfish level in "
                  f"[{level.epsilon_lower:.8g}, {level.epsilon_upper:.8g}] vs ε_puffer = {epsilon}")
        if verdict is True:
            return ClaimOutcome(True, detail)
        detail += "" if verdict is False else " (undecided)"
        return ClaimOutcome(False, detail, counterexample_dict(
            model, f"counterexample to {claim_id} ({cite(PAPER)}): {instance.label}: {detail}"))
    return check


_THIS = sys.modules[__name__]


def _halved(claim_id: str, reading):
    return (patched("noise Lap(L/(2ε_DP)) instead of Lap(L/ε_DP)", _check(claim_id, reading),
                    lambda: [i for i in algorithm1_instances()
                             if i.params["p"] == Fraction(4, 5) and i.params["T"] == 3][:2],
                    _THIS, NOISE_FACTOR=Fraction(1, 2)),)


register(Claim(
    "000.alg1.printed_private", PAPER, "Appendix B, Algorithm 1 (as printed)",
    "Algorithm 1 as printed — ε_DP = min over every (a_ℓ, b_ℓ) point of ε_puffer/|I| if "
    "a_ℓ >= ε_puffer else (ε_puffer − a_ℓ)/b_ℓ; release F(D) + Lap(L/ε_DP) — is ε_puffer-Pufferfish "
    "(count query, L = 1; scale rounded up to 2^-30).",
    algorithm1_instances, _check("000.alg1.printed_private", printed_scale),
    mutants=_halved("000.alg1.printed_private", printed_scale)))
register(Claim(
    "000.alg1.best_point_private", PAPER, "§6.4.1 with Theorem 6 (the reading the toolkit uses)",
    "With ε_DP the largest (ε_puffer − a)/b over the curve points with a < ε_puffer (§6.4.1: the "
    "maximum over b yields the best utility), F(D) + Lap(L/ε_DP) is ε_puffer-Pufferfish (count "
    "query, L = 1; scale rounded up to 2^-30).",
    algorithm1_instances, _check("000.alg1.best_point_private", best_point_scale),
    mutants=_halved("000.alg1.best_point_private", best_point_scale)))
