"""Claims of Ding et al., Multi-user Pufferfish Privacy checked as functions of a Bernoulli user's
parameter and of the budget.

``001.eq15.symbolic``   §4.3.2, equation (15) with Theorem 3: for the system of Table 2 plus a
                        user ``i`` reporting ``D_i ~ Bernoulli(p)`` (the system of Figures 7–8),
                        Laplace noise of scale ``θ15(p) = 1/log((e^ε − (1 − p))/p)`` makes the sum
                        ε-Pufferfish on the pair (``s_P``: user i present with ``P``, ``s_⊥``: user
                        i absent), for every ``p`` of the range (and every ε of a range).

**The level as a function.**  Given the secret, ``X = S + D_i`` or ``X = S`` (Remark 1), ``S`` the
other users' sum with exact law ``w``.  The density ratio of ``X + Lap(θ)`` at ``y`` is
``N(y)/M(y)`` with ``N(y) = Σ_s w_s((1 − p) u^{|y−s|} + p u^{|y−s−1|})``, ``M(y) = Σ_s w_s u^{|y−s|}``
and ``u = e^{−1/θ}``.  Between two consecutive integers every ``|y − x|`` is linear, so the ratio
is a Möbius function of ``e^{2y/θ}``, monotone there, and constant beyond the support: its
supremum over all real ``y`` (both directions) is the maximum over the integers ``y`` from
``min S`` to ``max S + 1``.  With θ = θ15(p), ``u = p/(e^ε − 1 + p)``, so every candidate
``N(y) − e^ε M(y) <= 0`` (and ``M(y) − e^ε N(y) <= 0``), multiplied by ``(e^ε − 1 + p)^D > 0``, is a
polynomial inequality ``P_k(p, c) <= 0`` in ``p`` and ``c = e^ε``.

* A candidate that vanishes identically is *tight*: the level equals ε there (the upper tail
  ``y = max S + 1``, where ``N/M = 1 − p + p/u = e^ε`` — the paper's equation (13) itself).
* ε = log r (r rational): ``c = r`` is exact and each ``P_k`` is a polynomial in ``p``; the set of
  ``p`` where the budget fails is computed exactly (a union of intervals with algebraic endpoints,
  :mod:`pufferfish.verify.symbolic.univariate`).
* ε in a range: ``c`` is transcendental; the map over ``(p, ε)`` is certified
  (:mod:`pufferfish.verify.symbolic.certified_map`): each candidate is rewritten in ``p`` and
  ``u`` (``e^ε`` eliminated with (15)), factored, and its sign proved on a box of ``(p, u)``
  containing the image of the ``(p, ε)`` box (``e^ε`` enclosed by interval arithmetic), factor by
  factor with exact rational bounds (the expanded ``P_k`` cancel too much for interval bounds);
  *holds*, *violated* (certified counterexample) or *undecided* boxes.

The claim holds when the failing set is empty (exact) or every box is proved to hold (map).

Cost: ``O(|supp S|²)`` polynomial candidates of degree ``O(|supp S|)``; one root isolation each
(exact) or one exact bound each per box (map).

>>> outcome = _check_eq15(Instance("ε = log 2", {"ratio": "2", "p": ("1/20", "19/20")}))
>>> outcome.holds, outcome.detail[:58]
(True, 'level <= ε for every p in [1/20, 19/20] (exact: the failin')
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from fractions import Fraction

import sympy

from pufferfish.bibliography import paper
from pufferfish.models.multiuser import others_sum
from pufferfish.models.polynomials import (BoundedPolynomial, fraction_text, polynomial_terms,
                                           sign_at, to_fraction)
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_001.instances import paper_bernoulli_model
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register, violation
from pufferfish.verify.numerics.intervals import endpoints, exp_interval
from pufferfish.verify.symbolic.certified_map import box_interval, certified_sign_map
from pufferfish.verify.symbolic.compare import DifferingInterval, DifferingSet, merge_pieces
from pufferfish.verify.symbolic.univariate import as_poly, decompose

__all__ = ["eq15_constraints", "eq15_failing_set", "eq15_map", "MAP_WIDTH"]

PAPER = paper("001").key

MAP_WIDTH = Fraction(1, 32)
"""Width below which a box of the (p, ε) map is left undecided."""

P, C = sympy.symbols("p c", positive=True)


def _laplace_decay(p, c):
    """``u = e^{−1/θ}`` at θ = θ15 of equation (15): ``p/(e^ε − (1 − p))``."""
    return p / (c - (1 - p))


def _others() -> dict[int, Fraction]:
    """The law of the other users' sum in the system of Figures 7–8 (Table 2's users)."""
    return {int(s): w for s, w in others_sum(paper_bernoulli_model(), "u4").items()}


def eq15_constraints() -> tuple[list[sympy.Poly], list[str]]:
    """The polynomials ``P_k(p, c)`` (``<= 0`` required) that are not identically 0, and the
    descriptions of the tight candidates (identically 0); cached per decay formula."""
    if _laplace_decay not in _CONSTRAINTS:
        _CONSTRAINTS[_laplace_decay] = _constraints()
    return _CONSTRAINTS[_laplace_decay]


_CONSTRAINTS: dict = {}


def _constraints() -> tuple[list[sympy.Poly], list[str]]:
    weights = _others()
    u = sympy.Symbol("u", positive=True)
    low, high = min(weights), max(weights)
    constraints, tight = [], []
    decay = sympy.cancel(_laplace_decay(P, C))
    top, bottom = sympy.fraction(decay)
    for y in range(low, high + 2):
        n = sum(sympy.Rational(w.numerator, w.denominator)
                * ((1 - P) * u ** abs(y - s) + P * u ** abs(y - s - 1)) for s, w in weights.items())
        m = sum(sympy.Rational(w.numerator, w.denominator) * u ** abs(y - s)
                for s, w in weights.items())
        for label, gap in ((f"s_P -> s_⊥ at y = {y}", n - C * m), (f"s_⊥ -> s_P at y = {y}", m - C * n)):
            polynomial = sympy.Poly(gap, u)
            degree = polynomial.degree()
            cleared = sum(coefficient * top ** k * bottom ** (degree - k)
                          for (k,), coefficient in polynomial.terms())
            cleared = sympy.Poly(sympy.expand(cleared), P, C)
            if cleared.is_zero:
                tight.append(label)
            else:
                constraints.append(cleared)
    return constraints, tight


def eq15_failing_set(ratio: Fraction, low: Fraction, high: Fraction) -> DifferingSet:
    """ε = log ``ratio``: the exact set of ``p`` in ``[low, high]`` where some ``P_k(p, ratio) > 0``."""
    constraints, _ = eq15_constraints()
    polys = [as_poly(c.as_expr().subs(C, sympy.Rational(ratio.numerator, ratio.denominator)), P)
             for c in constraints]
    polys = [q for q in polys if not q.is_zero]
    cells = decompose(polys, low, high)
    pieces = []
    for i, point in enumerate(cells.points):
        if any(sign_at(q, point) > 0 for q in polys):
            sample = point.value if point.is_rational else point.refined(Fraction(1, 2**20)).low
            pieces.append(DifferingInterval(point, point, True, True, sample, None, None))
        if i < len(cells.samples):
            t = cells.samples[i]
            if any(s > 0 for q in polys for s in cells.cell_signs(q)[i:i + 1]):
                pieces.append(DifferingInterval(point, cells.points[i + 1], False, False, t,
                                                None, None))
    return DifferingSet(tuple(merge_pieces(pieces)), cells.points, cells.samples)


def eq15_factors() -> list[tuple[str, list]]:
    """Each non-tight candidate as ``(label, factors)``: ``N(y) − e^ε M(y)`` (or ``M − e^ε N``)
    written in ``p`` and ``u = e^{−1/θ}`` (e^ε eliminated with equation (15)), a rational function
    whose sign is the product of the signs of the irreducible factors of its numerator and
    denominator (as :class:`BoundedPolynomial` s over ``(p, u)``); cached per decay formula."""
    key = ("factors", _laplace_decay)
    if key not in _CONSTRAINTS:
        u = sympy.Symbol("u", positive=True)
        (exp_epsilon,) = sympy.solve(sympy.Eq(u, _laplace_decay(P, C)), C)
        weights = _others()
        out = []
        for y in range(min(weights), max(weights) + 2):
            n = sum(sympy.Rational(w.numerator, w.denominator)
                    * ((1 - P) * u ** abs(y - s) + P * u ** abs(y - s - 1)) for s, w in weights.items())
            m = sum(sympy.Rational(w.numerator, w.denominator) * u ** abs(y - s)
                    for s, w in weights.items())
            for label, gap in ((f"s_P -> s_⊥ at y = {y}", n - exp_epsilon * m),
                               (f"s_⊥ -> s_P at y = {y}", m - exp_epsilon * n)):
                numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(gap)))
                if numerator == 0:
                    continue
                factors = []
                for part in (numerator, denominator):
                    constant, pieces = sympy.Poly(part, P, u).factor_list()
                    factors.append(BoundedPolynomial.of({(0, 0): to_fraction(constant)}))
                    factors += [BoundedPolynomial.of(polynomial_terms(f)) for f, power in pieces
                                for _ in range(power)]
                out.append((label, factors))
        _CONSTRAINTS[key] = out
    return _CONSTRAINTS[key]


def eq15_map(p_range: tuple[Fraction, Fraction], epsilon_range: tuple[Fraction, Fraction],
             width: Fraction = MAP_WIDTH):
    """The certified map over ``p`` and ε of the sign of the worst non-tight candidate.  On a
    box, ``u`` ranges over ``[p_lo/(e^{ε_hi} − 1 + p_lo), p_hi/(e^{ε_lo} − 1 + p_hi)]`` (rational
    enclosures), and each candidate's sign is proved on the (larger) box of ``(p, u)`` by exact
    bounds on its factors; the function handed to the map is that sign (−1, 1, or [−1, 1] when
    some factor's sign is not proved)."""
    factors = eq15_factors()

    def gap(ctx, box):
        (p_low, p_high), (e_low, e_high) = box
        c_low = endpoints(exp_interval(ctx, e_low))[0]
        c_high = endpoints(exp_interval(ctx, e_high))[1]
        u_box = ((p_low, p_high), _decay_range(p_low, p_high, c_low, c_high))
        undecided = False
        for _, parts in factors:
            sign = 1
            for part in parts:
                low, high = part.bounds(u_box)
                if low > 0:
                    continue
                if high < 0:
                    sign = -sign
                elif low == high == 0:
                    sign = 0
                else:
                    sign = None
                    break
            if sign == 1:
                return ctx.mpf(1)
            undecided = undecided or sign is None
        return ctx.mpf([-1, 1]) if undecided else ctx.mpf(-1)

    return certified_sign_map(gap, ("p", "epsilon"), (p_range, epsilon_range), width)


def _decay_range(p_low, p_high, c_low, c_high) -> tuple[Fraction, Fraction]:
    """Rational bounds of ``u = _laplace_decay(p, c)`` over the box (it is monotone in each of
    ``p`` and ``c`` on the box, so its corners bound it)."""
    values = [to_fraction(_laplace_decay(sympy.Rational(p.numerator, p.denominator),
                                         sympy.Rational(c.numerator, c.denominator)))
              for p in (p_low, p_high) for c in (c_low, c_high)]
    return min(values), max(values)


def _model_at(p: Fraction):
    return paper_bernoulli_model(p, Fraction(9, 10))


def _check_eq15(instance: Instance) -> ClaimOutcome:
    low, high = (Fraction(x) for x in instance.params["p"])
    _, tight = eq15_constraints()
    equal = f"; the level equals ε exactly ({', '.join(tight)})" if tight else ""
    if "ratio" in instance.params:
        ratio = Fraction(instance.params["ratio"])
        failing = eq15_failing_set(ratio, low, high)
        if failing.empty:
            return ClaimOutcome(True, f"level <= ε for every p in [{fraction_text(low)}, "
                                      f"{fraction_text(high)}] (exact: the failing set is "
                                      f"empty){equal}")
        point = failing.intervals[0].sample
        return violation("001.eq15.symbolic", PAPER, instance,
                         f"level > ε = log {fraction_text(ratio)} exactly for p in "
                         f"{failing.text()}; e.g. p = {fraction_text(point)}")
    epsilons = tuple(Fraction(x) for x in instance.params["epsilon"])
    found = eq15_map((low, high), epsilons)
    if found.boxes["violated"]:
        where = found.counterexample
        detail = (f"certified map: {found.text()}; level > ε at "
                  f"{'p = %s, ε = %s' % tuple(fraction_text(x) for x in where) if where else 'a box'}")
        return violation("001.eq15.symbolic", PAPER, instance, detail)
    if found.boxes["undecided"]:
        return ClaimOutcome.undecided_at(f"certified map: {found.text()}")
    return ClaimOutcome(True, f"level <= ε on the whole box (certified map: {found.text()})"
                              f"{equal}")


INSTANCES = ({"ratio": "2", "p": ("1/20", "19/20")}, {"ratio": "3", "p": ("1/100", "99/100")},
             {"ratio": "11/10", "p": ("1/10", "9/10")},
             {"p": ("1/20", "19/20"), "epsilon": ("1/4", "2")})
"""ε = log 2, log 3, log(11/10) with ``p`` free (exact), and ``(p, ε)`` free (certified map)."""


def _instances() -> Iterator[Instance]:
    for params in INSTANCES:
        label = (f"ε = log {params['ratio']}" if "ratio" in params else
                 f"ε in [{params['epsilon'][0]}, {params['epsilon'][1]}]")
        yield Instance(f"{label}, p in [{params['p'][0]}, {params['p'][1]}]", params)


def _decay_misprinted(p, c):
    """Mutant: (15) with ``e^ε − p`` in place of ``e^ε − (1 − p)``."""
    return p / (c - p)


register(Claim(
    "001.eq15.symbolic", PAPER, "§4.3.2, equation (15) with Theorem 3 (as a function of p and ε)",
    "For Table 2's users plus a Bernoulli(p) user, Laplace noise of scale θ15(p) = "
    "1/log((e^ε − (1 − p))/p) makes the aggregate ε-Pufferfish on (s_P, s_⊥) for every p of the "
    "range (ε = log r: exact failing set; ε in a range: certified map over (p, ε)).",
    _instances, _check_eq15,
    mutants=(patched("(15) with e^ε − p in place of e^ε − (1 − p)", _check_eq15,
                     lambda: list(_instances())[:1], sys.modules[__name__],
                     _laplace_decay=_decay_misprinted),)))
