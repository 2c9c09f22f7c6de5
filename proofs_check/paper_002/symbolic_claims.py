"""Claims of Wang et al., Privacy-Preserving Analysis of Correlated Data checked as functions of a
two-state chain's parameters.

``002.lemB4.symbolic``   Lemma B.4 (§4.2 and Appendix B.7.1): for a two-state chain
                         ``P = [[p0, 1−p0], [1−p1, p1]]`` started in its stationary law and a
                         Markov quilt ``X_Q`` of ``X_i`` at distances ``a`` (left) and ``b``
                         (right), the max-influence (Definition 4.1) is at most
                         ``log((π + e^{−g b})/(π − e^{−g b})) + 2 log((π + e^{−g a})/(π − e^{−g a}))``
                         (one term for a one-sided quilt), where ``π`` is the least stationary
                         probability and ``g = 1 − |p0 + p1 − 1|`` the eigengap, whenever
                         ``min(a, b) >= log(1/π)/g``.

The exact max-influence is the toolkit's closed form: the chain is a parametric model
(``p0`` and/or ``p1`` free), the quilt's release a mechanism and the pair ``X_i = 0`` / ``X_i = 1``
the secrets, so ``P(X_Q = x|X_i = u)/P(X_Q = x|X_i = v)`` are the Pufferfish candidate ratios of
:class:`pufferfish.verify.symbolic.evaluate.SymbolicModel` — rational functions of the parameters,
and with one parameter the piecewise closed form of
:func:`pufferfish.verify.symbolic.levels.symbolic_level`.  The paper's bound is transcendental
(``e^{−g t}``), so the two are compared as functions over the whole parameter range with certified
interval arithmetic and bisection (:mod:`pufferfish.verify.symbolic.certified_map`): every box is
proved *outside* the lemma's hypothesis, proved to *hold*, proved *violated* (with a certified
counterexample at a rational point), or left below the width as *boundary* (the hypothesis not
decided: the box straddles ``min(a, b)·g = log(1/π)``, where the bound has its pole
``π = e^{−g t}``, so no width decides it) or *undecided* (the hypothesis holds, the sign not
decided).  The claim holds on an instance when no box is violated or undecided.

Cost: one symbolic audit of a chain of ``a + b + 1`` nodes, then one interval evaluation of every
candidate ratio per box.

>>> outcome = _check_lemma_b4(Instance("p0 in [1/10, 9/10], p1 = 1/2, b = 1",
...                           {"bounds": {"p0": ("1/10", "9/10"), "p1": "1/2"}, "a": None, "b": 1}))
>>> outcome.holds, outcome.detail[:39]
(True, 'no violation: holds on [11/32, 101/160]')
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import cite
from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.parametric import parse_parametric_model
from pufferfish.models.polynomials import BoundedPolynomial, polynomial_terms
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_002.quilt_instances import PAPER, chain_model, claim, fail
from pufferfish.proofs_check.registry import ClaimOutcome, Instance
from pufferfish.verify.numerics.intervals import rational_interval
from pufferfish.verify.symbolic.certified_map import box_interval, certified_sign_map
from pufferfish.verify.symbolic.evaluate import SymbolicModel

__all__ = ["two_state_quilt_file", "exact_influence_ratios", "lemma_b4_interval", "stationary_and_gap",
           "lemma_b4_hypothesis", "lemma_b4_map", "MAP_WIDTH"]

MAP_WIDTH = Fraction(1, 128)
"""Width below which a box is left undecided."""

PARAMETERS = ("p0", "p1")


def two_state_quilt_file(bounds: dict, a: int | None, b: int | None) -> dict:
    """The two-state chain ``X_1 … X_T`` (``T = a + b + 1``) from its stationary law, secrets
    ``X_i = 0`` and ``X_i = 1`` for ``i = a + 1``, and the mechanism ``quilt`` releasing
    ``X_{i−a}`` and/or ``X_{i+b}``; ``bounds`` gives ``p0``, ``p1`` as a number or a range."""
    left, right = a or 0, b or 0
    length, node = left + right + 1, left + 1
    names = [f"x{t}" for t in range(1, length + 1)]
    value = {n: n if isinstance(v, tuple) else v for n, v in bounds.items()}
    p0, p1 = value["p0"], value["p1"]
    stationary = f"(1 - ({p1}))/(2 - ({p0}) - ({p1}))"
    quilt = ([f"x{node - left}"] if a else []) + ([f"x{node + right}"] if b else [])
    mechanisms: dict = {f"see {n}": {"query": {"attribute": n}} for n in quilt}
    mechanisms["quilt"] = {"compose": [f"see {n}" for n in quilt]}
    return {"pufferfish_model": 1,
            "parameters": {n: list(v) for n, v in bounds.items() if isinstance(v, tuple)},
            "description": f"{cite(PAPER)}, §4.2: two-state chain, quilt of x{node} at a={a}, "
                           f"b={b}",
            "attributes": names, "domain": [0, 1], "datasets": "all",
            "priors": {"chain": {"markov": {
                "initial": {"0": stationary, "1": f"1 - {stationary}"},
                "transition": {"0": {"0": p0, "1": f"1 - ({p0})"},
                               "1": {"0": f"1 - ({p1})", "1": p1}}}}},
            "secrets": {"zero": {"where": {f"x{node}": 0}}, "one": {"where": {f"x{node}": 1}}},
            "pairs": [["zero", "one"]], "mechanisms": mechanisms}


def exact_influence_ratios(bounds: dict, a: int | None, b: int | None):
    """The symbolic model and the candidate ratios ``P(X_Q = x|X_i = u)/P(X_Q = x|X_i = v)`` as
    (numerator, denominator) :class:`BoundedPolynomial` s over ``(p0, p1)`` order of the box."""
    symbolic = SymbolicModel(parse_parametric_model(two_state_quilt_file(bounds, a, b)))
    ratios = []
    for c in symbolic.pufferfish_candidates("quilt"):
        ratio = c.numerator / c.denominator
        ratios.append((BoundedPolynomial.of(polynomial_terms(ratio.numer)),
                       BoundedPolynomial.of(polynomial_terms(ratio.denom))))
    return symbolic, ratios


def _sides(ctx, bounds: dict, names: tuple[str, ...], box) -> dict:
    """``p0`` and ``p1`` as intervals on the box (a fixed value as a point interval)."""
    out = {}
    for n in PARAMETERS:
        side = box[names.index(n)] if n in names else (Fraction(bounds[n]), Fraction(bounds[n]))
        out[n] = (side, box_interval(ctx, side))
    return out


def stationary_and_gap(ctx, sides: dict):
    """Intervals of the least stationary probability π and the eigengap g = 1 − |p0 + p1 − 1|."""
    (s0, p0), (s1, p1) = sides["p0"], sides["p1"]
    total = 2 - p0 - p1
    pi0, pi1 = (1 - p1) / total, (1 - p0) / total
    pi = ctx.mpf([min(pi0.a, pi1.a), min(pi0.b, pi1.b)])
    low, high = s0[0] + s1[0] - 1, s0[1] + s1[1] - 1
    absolute = (low, high) if low >= 0 else (-high, -low) if high <= 0 else (
        Fraction(0), max(-low, high))
    gap = box_interval(ctx, (1 - absolute[1], 1 - absolute[0]))
    return pi, gap


def _decay(ctx, gap, t: int):
    """``e^{−g t}``, the decay of Lemma B.6's Δ_t (times π)."""
    return ctx.exp(-gap * t)


def _term(ctx, pi, gap, t: int):
    """``log((π + d)/(π − d))``, ``d = e^{−g t}``: increasing in d, decreasing in π, so its range
    on the box is spanned by the corners (π high, d low) and (π low, d high)."""
    decay = _decay(ctx, gap, t)
    high_pi, low_pi = ctx.mpf(pi.b), ctx.mpf(pi.a)
    low_d, high_d = ctx.mpf(decay.a), ctx.mpf(decay.b)
    lowest = ctx.log((high_pi + low_d) / (high_pi - low_d)).a if (high_pi - low_d).a > 0 else ctx.inf
    if (low_pi - high_d).a > 0:
        highest = ctx.log((low_pi + high_d) / (low_pi - high_d)).b
    else:
        highest = ctx.inf
    return ctx.mpf([lowest, highest])


LEMMA_B4_WEIGHTS = (1, 2)
"""Lemma B.4: the right distance ``b`` weighs 1, the left distance ``a`` weighs 2."""


def lemma_b4_interval(ctx, pi, gap, a: int | None, b: int | None):
    """Lemma B.4's bound on the box, as printed."""
    total = ctx.mpf(0)
    for t, weight in zip((b, a), LEMMA_B4_WEIGHTS):
        if t:
            total = total + rational_interval(ctx, Fraction(weight)) * _term(ctx, pi, gap, t)
    return total


def lemma_b4_hypothesis(ctx, pi, gap, a: int | None, b: int | None):
    """``min(a, b)·g − log(1/π)``: the lemma applies where this is ``>= 0``."""
    t = min(x for x in (a, b) if x)
    return gap * t - ctx.log(1 / pi)


def lemma_b4_map(bounds: dict, a: int | None, b: int | None, width: Fraction = MAP_WIDTH):
    """The certified map of ``exact max-influence − Lemma B.4's bound`` over the free parameters."""
    symbolic, ratios = exact_influence_ratios(bounds, a, b)
    names = symbolic.box.names

    def gap(ctx, box):
        sides = _sides(ctx, bounds, names, box)
        pi, g = stationary_and_gap(ctx, sides)
        values = []
        for numerator, denominator in ratios:
            low, high = denominator.bounds(box)
            n_low, n_high = numerator.bounds(box)
            if high < 0:        # the reduced denominator may be negative on the box
                low, high, n_low, n_high = -high, -low, -n_high, -n_low
            if low <= 0:
                return ctx.mpf([-ctx.inf, ctx.inf])
            values.append(box_interval(ctx, (n_low / high if n_low >= 0 else n_low / low,
                                             n_high / low if n_high >= 0 else n_high / high)))
        best = ctx.mpf([max([1] + [v.a for v in values]), max([1] + [v.b for v in values])])
        return ctx.log(best) - lemma_b4_interval(ctx, pi, g, a, b)

    def hypothesis(ctx, box):
        pi, g = stationary_and_gap(ctx, _sides(ctx, bounds, names, box))
        return lemma_b4_hypothesis(ctx, pi, g, a, b)

    return symbolic, certified_sign_map(gap, names, symbolic.box.bounds, width, hypothesis)


def _quilt_text(a, b) -> str:
    return (f"{{X_(i-{a}), X_(i+{b})}}" if a and b else f"{{X_(i-{a})}}" if a else
            f"{{X_(i+{b})}}")


def _check_lemma_b4(instance: Instance) -> ClaimOutcome:
    bounds, a, b = instance.params["bounds"], instance.params["a"], instance.params["b"]
    symbolic, found = lemma_b4_map(bounds, a, b)
    if found.boxes["violated"]:
        point = found.counterexample
        if point is None:
            return ClaimOutcome.undecided_at(f"boxes proved violated but no rational point "
                                             f"certified: {found.text()}")
        values = dict(bounds)
        values.update(dict(zip(symbolic.box.names, point)))
        chain = MarkovChain.binary(values["p0"], values["p1"], (a or 0) + (b or 0) + 1)
        stationary = chain.stationary()
        model = chain_model((MarkovChain.binary(values["p0"], values["p1"], chain.length,
                                                list(stationary)),))
        where = ", ".join(f"{n} = {x}" for n, x in zip(symbolic.box.names, point))
        return fail("002.lemB4.symbolic", instance,
                    f"quilt {_quilt_text(a, b)}: the exact max-influence exceeds Lemma B.4's bound "
                    f"(certified) at {where}; map: {found.text()}", model)
    if found.boxes["undecided"]:
        return ClaimOutcome.undecided_at(f"quilt {_quilt_text(a, b)}: the sign is not decided on "
                                         f"boxes where the hypothesis holds: {found.text()}")
    return ClaimOutcome(True, f"no violation: {found.text()} (quilt {_quilt_text(a, b)}; the "
                              f"boundary boxes, width {MAP_WIDTH}, straddle min(a, b)·g = "
                              f"log(1/π), where the bound has its pole π = e^(-g t))")


QUILTS = ((None, 1), (1, None), (None, 2), (2, None), (1, 1), (2, 1), (1, 2))
"""Quilts ``(a, b)`` of the small chains: one- and two-sided, distances 1 and 2."""

SLICES = ({"p0": ("1/10", "9/10"), "p1": "1/2"}, {"p0": ("1/20", "19/20"), "p1": "1/5"},
          {"p0": ("1/10", "9/10"), "p1": ("1/10", "9/10")})
"""Parameter ranges: ``p0`` free with ``p1`` fixed, and both free (a certified map)."""


def _instances() -> Iterator[Instance]:
    for bounds in SLICES:
        for a, b in QUILTS if len([v for v in bounds.values() if isinstance(v, tuple)]) == 1 \
                else QUILTS[:1] + QUILTS[4:5]:
            label = ", ".join(f"{n} in [{v[0]}, {v[1]}]" if isinstance(v, tuple) else f"{n} = {v}"
                              for n, v in bounds.items())
            yield Instance(f"{label}, quilt {_quilt_text(a, b)}", {"bounds": bounds, "a": a, "b": b})


claim("002.lemB4.symbolic", "§4.2; Appendix B, Lemma B.4 (as a function of p0, p1)",
      "For a two-state chain started in its stationary law, the exact max-influence of every small "
      "Markov quilt (distances 1 and 2) is at most Lemma B.4's bound wherever min(a, b) >= "
      "log(1/π)/g, as functions of the transition probabilities (certified map over the range).",
      _instances, _check_lemma_b4,
      mutants=(patched("the bound's terms weighted 1/8 instead of 1 and 2", _check_lemma_b4,
                       lambda: [i for i in _instances()][2:3], sys.modules[__name__],
                       LEMMA_B4_WEIGHTS=(Fraction(1, 8), Fraction(1, 8))),))

