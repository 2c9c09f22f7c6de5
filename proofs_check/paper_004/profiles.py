"""Claims of Zhang et al., Differential Confounding Privacy and Inverse Composition, App. K (Lemmas
2 and 3): a mechanism, and the k-fold composition, is ``(ε, δ(ε))``-DCP with ``δ(ε) = 1 + f*(−e^ε)``
for its optimal symmetric trade-off function ``f`` (Definition 7) and
``f*(y) = sup_{0 <= α <= 1} yα − f(α)``.

==================  ===========================================================================
``004.lemma2``      Lemma 2: for each mechanism, δ(ε) = 1 + f*(−e^ε) is a valid δ at ε, and the
                    least one: it equals the worst event of Definition 1
``004.lemma3``      Lemma 3: the same for the k-fold composition with f_[k]
==================  ===========================================================================

Computation.  For finite outputs the trade-off function ``T(ψ(·|s), ψ(·|s'))`` is piecewise
linear with the vertices of :func:`pufferfish.verify.dcp.levels.tradeoff_curve`; the symmetric
``f`` of the mechanism is the convex hull of the minimum over the ordered adjacent pairs, whose
conjugate is the maximum of the pairs' conjugates, and a conjugate of a piecewise-linear convex
function attains its supremum at a vertex: ``1 + f*(−r) = max_{pairs, vertices} (1 − β − rα)``.
This is compared with the worst event of Definition 1 enumerated over every output set
(:func:`pufferfish.proofs_check.paper_004.composition.worst_event_excess`), at
``e^ε ∈ {1, 3/2, 2, 4}``.  Cost: ``O(|pairs| · n log n)`` for the curves and
``O(|pairs| · 2^n · n)`` for the enumeration (n outputs, at most 8 here).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import paper
from pufferfish.models.files.dcp_file import dcp_model_to_dict
from pufferfish.models.numbers import fraction_str
from pufferfish.proofs_check.paper_004.composition import model_instances, worst_event_excess
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register, violation
from pufferfish.verify.dcp.composition import true_joint
from pufferfish.verify.dcp.levels import effective_mechanism, tradeoff_curve

PAPER = paper("004").key
RATIOS = (Fraction(1), Fraction(3, 2), Fraction(2), Fraction(4))


def conjugate_delta(rows, directions, ratio: Fraction, offset: Fraction = Fraction(1)) -> Fraction:
    """``offset + f*(−ratio)`` for the symmetric trade-off function of ``rows`` (``offset`` 1 in
    the paper's formula)."""
    best = None
    for s, t in directions:
        for alpha, beta in tradeoff_curve(rows[s], rows[t]):
            value = offset - beta - ratio * alpha
            best = value if best is None or value > best else best
    return Fraction(0) if best is None else best


def profile_check(claim_id: str, composed: bool, offset: Fraction = Fraction(1)):
    """δ(ε) = offset + f*(−e^ε) equals the worst event of Definition 1 at every e^ε of RATIOS,
    on each mechanism (``composed`` False) or on the composition (``composed`` True)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        kernels = list(model.mechanisms.values())
        targets = ([("composition", true_joint(model, kernels))] if composed else
                   [(k.name, effective_mechanism(model, k)) for k in kernels])
        for name, rows in targets:
            for ratio in RATIOS:
                via_conjugate = conjugate_delta(rows, model.directions(), ratio, offset)
                literal = worst_event_excess(rows, model.directions(), ratio)
                if via_conjugate != literal:
                    return violation(claim_id, PAPER, instance,
                                     f"{name}, e^ε = {fraction_str(ratio)}: 1 + f*(−e^ε) = "
                                     f"{fraction_str(via_conjugate)}, worst event δ = "
                                     f"{fraction_str(literal)}", model, dcp_model_to_dict)
        return ClaimOutcome(True, f"δ(ε) = 1 + f*(−e^ε) equals the worst event at e^ε in "
                                  f"{{1, 3/2, 2, 4}} ({len(targets)} mechanism(s))")
    return check


def _single() -> Iterator[Instance]:
    return model_instances(1)


def _composed() -> Iterator[Instance]:
    return model_instances(2)


def _few(generate, count: int = 6):
    return lambda: (i for k, i in zip(range(count), generate()))


register(Claim("004.lemma2", PAPER, "App. K, Lemma 2",
               "each mechanism is (ε, δ(ε))-DCP with δ(ε) = 1 + f*(−e^ε) for its symmetric "
               "trade-off function f (checked: δ(ε) equals the worst event of Definition 1)",
               _single, profile_check("004.lemma2", False), False,
               (Mutant.checking("δ(ε) = f*(−e^ε) (the 1 dropped)",
                                profile_check("004.lemma2", False, Fraction(0)), _few(_single)),)))
register(Claim("004.lemma3", PAPER, "App. K, Lemma 3",
               "the k-fold composition is (ε', δ(ε'))-DCP with δ from its trade-off function "
               "f_[k] (checked: equal to the worst event of Definition 1)",
               _composed, profile_check("004.lemma3", True), False,
               (Mutant.checking("δ(ε) = f*(−e^ε) (the 1 dropped)",
                                profile_check("004.lemma3", True, Fraction(0)),
                                _few(_composed)),)))
