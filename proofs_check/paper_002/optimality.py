"""Claim of Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix A.3 (optimality
example for the Wasserstein mechanism), as printed.

=============================  ==============================================================
``002.A3.optimality``          with ``P(F|s_i) = δ_0`` and ``P(F|s_j) = (1−δ)δ_0 + δ δ_Δ``, the
                               ratio at ``w = Δ`` is ``(1−δ) + δ e^{Δ/α}``, so ``F + Lap(α)`` is
                               not ε-Pufferfish for ``α < Δ / log(1 + (e^ε − 1)/δ)``, while the
                               Wasserstein scale ``α = W/ε = Δ/ε`` is
=============================  ==============================================================

The example is built as a model: one attribute with values a, b, c; ``s_i = {a}``,
``s_j = {b, c}``; prior ``θ(a) = 1/2, θ(b) = (1−δ)/2, θ(c) = δ/2``; ``F(a) = F(b) = 0``,
``F(c) = Δ``.  The printed threshold is enclosed with interval arithmetic and α is taken as a
rational just below ``9/10`` of it; the release is audited with the certified Laplace level
(:func:`pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`), which knows nothing
of the printed ratio.  Instances: δ from 1/100 to 9/10 (δ = 1 would make s_j's F a point mass),
Δ from 1 to 20, ε from 1/2 to 3.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import fraction_str
from pufferfish.models.priors import TablePrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_002.quilt_instances import PAPER
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register, violation
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.numerics.intervals import endpoints, interval_context
from pufferfish.verify.transport.laplace_level import laplace_pufferfish_level


def optimality_model(delta: Fraction) -> PufferfishModel:
    """A.3's two conditionals of F realised by a three-dataset model."""
    universe = Universe.product(["x"], [["a", "b", "c"]])
    first = Secret.where("s_i", universe, {"x": ["a"]})
    second = Secret.where("s_j", universe, {"x": ["b", "c"]})
    prior = TablePrior("theta", Distribution({("a",): Fraction(1, 2), ("b",): (1 - delta) / 2,
                                              ("c",): delta / 2}))
    return PufferfishModel(universe, {"theta": prior}, {"s_i": first, "s_j": second},
                           [SecretPair(first, second)], {}, description="Appendix A.3 example")


def printed_threshold(delta: Fraction, gap: Fraction, epsilon: Fraction) -> Fraction:
    """A rational just below 9/10 of ``Δ / log(1 + (e^ε − 1)/δ)``: where the printed ratio
    ``(1−δ) + δ e^{Δ/α}`` equals ``e^ε``."""
    context = interval_context(80)
    e = context.exp(context.mpf(epsilon.numerator) / epsilon.denominator)
    value = context.mpf(gap.numerator) / gap.denominator / context.log(
        1 + (e - 1) * delta.denominator / delta.numerator)
    low = endpoints(value)[0] * Fraction(9, 10)
    return Fraction(math.floor(low * 2 ** 30), 2 ** 30)


WASSERSTEIN_FACTOR = 1
"""Theorem 3.2's scale α = W/ε with W = Δ here (the factor a mutant changes)."""


def optimality_instances() -> Iterator[Instance]:
    for delta in (Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), Fraction(9, 10)):
        for gap in (Fraction(1), Fraction(5), Fraction(20)):
            for epsilon in (Fraction(1, 2), Fraction(3)):
                yield Instance(f"δ={fraction_str(delta)}, Δ={gap}, ε={fraction_str(epsilon)}",
                               {"delta": delta, "gap": gap, "epsilon": epsilon})


def check_optimality(instance: Instance) -> ClaimOutcome:
    delta, gap, epsilon = (instance.params[k] for k in ("delta", "gap", "epsilon"))
    model = optimality_model(delta)
    values = {"a": Fraction(0), "b": Fraction(0), "c": gap}

    def query(dataset):
        return values[dataset[0]]

    budget = parse_budget(fraction_str(epsilon))
    small = printed_threshold(delta, gap, epsilon)
    below = laplace_pufferfish_level(model, query, small).holds_at(budget)
    scale = gap / epsilon * WASSERSTEIN_FACTOR
    enough = laplace_pufferfish_level(model, query, scale).holds_at(budget)
    detail = (f"α = {float(small):.6g} (9/10 of the printed threshold): ε-Pufferfish {below}; "
              f"α = Δ/ε = {float(scale):.6g}: ε-Pufferfish {enough}")
    if below is False and enough is True:
        return ClaimOutcome(True, detail)
    return violation("002.A3.optimality", PAPER, instance, detail, model)


_THIS = sys.modules[__name__]

register(Claim(
    "002.A3.optimality", PAPER, "Appendix A.3 (optimality example)",
    "For P(F|s_i) = δ_0 and P(F|s_j) = (1−δ)δ_0 + δ δ_Δ the ratio at w = Δ is (1−δ) + δe^{Δ/α}: "
    "F + Lap(α) is not ε-Pufferfish below α = Δ/log(1 + (e^ε−1)/δ) (checked at 9/10 of it), and "
    "the Wasserstein scale α = Δ/ε is.",
    optimality_instances, check_optimality,
    mutants=(patched("Wasserstein scale Δ/(2ε) instead of Δ/ε", check_optimality,
                     lambda: [i for i in optimality_instances()
                              if i.params["delta"] == Fraction(9, 10)][:2], _THIS,
                     WASSERSTEIN_FACTOR=Fraction(1, 2)),)))
