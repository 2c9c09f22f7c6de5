"""Condition (20) of Lemma 2 decided exactly at the θ of (21) (``001_3a97785a86d61e37.txt``
§4.4.1, equations (20), (21), (23)).

Definition.  For the Kantorovich plan ``π*`` of two conditionals and a scale θ, (20) asks, for
every column ``x'``, ``Σ_x (e^{|x − x'|/θ} − e^ε) π*(x, x') <= 0``.  Lemma 2 takes
``θ = 1/log z`` with ``z = e^ε + (e^ε − 1) ψ`` (equation (21) at the least ψ), which is
transcendental: evaluating (20) at a rational end of an enclosure of θ decides a *different*
inequality, and where (20) holds with equality it reports a violation that is not there.

Exact decision.  With ``L`` the common denominator of the distances ``|x − x'| = k/L`` and
``v = z^{1/L}``, ``e^{|x − x'|/θ} = v^k`` and ``e^ε = (v^L + ψ)/(1 + ψ)``, so ``(1 + ψ)`` times
the column sum is the polynomial with rational coefficients

    ``p(v) = Σ_x π*(x, x') ((1 + ψ) v^k − v^L − ψ)``.

``v`` is transcendental (``e^ε`` is, for rational ``ε ≠ 0``, by Lindemann–Weierstrass, and
``v^L = (1 + ψ) e^ε − ψ``), so ``p(v) = 0`` iff ``p`` is the zero polynomial — an exact test —
and otherwise ``p(v) ≠ 0`` and its sign is found by interval evaluation at doubling precision
(:func:`pufferfish.verify.numerics.intervals.certified_sign`).  Should the precision cap be reached,
the column is *undecided* (``None``), never rounded.

Cost: the plan ``O(m + n)``; per column one polynomial of degree ``<= L · max distance`` and
``O(terms)`` interval operations per precision step.

>>> from pufferfish.verify.numerics.certified import parse_budget
>>> # one unit of mass moved by 1 with ψ = 0: p(v) = v − v = 0, (20) holds with equality
>>> condition20_columns({0: 1}, {1: 1}, Fraction(0), Fraction(1))
((Fraction(1, 1), 0),)
>>> condition20_columns({0: 1}, {2: 1}, Fraction(0), Fraction(1))   # e^{2ε} − e^ε > 0
((Fraction(2, 1), 1),)
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import reduce
from math import lcm

from pufferfish.verify.numerics.intervals import certified_sign, exp_interval, rational_interval
from pufferfish.verify.transport.kantorovich import transport_plan

MAX_BITS = 1 << 13
"""Precision cap (bits) of the sign refinement; past it a column is reported undecided."""


def column_polynomials(first: Mapping, second: Mapping, psi: Fraction
                       ) -> tuple[int, dict[Fraction, dict[int, Fraction]]]:
    """``(L, {x': {power: coefficient}})``: the polynomial ``p`` in ``v = z^{1/L}`` of each column
    of ``π*(first, second)`` (module docstring), with zero coefficients dropped."""
    plan = transport_plan(first, second)
    scale = reduce(lcm, (abs(x - x2).denominator for x, x2, _ in plan.coupling), 1)
    columns: dict[Fraction, dict[int, Fraction]] = {}
    for x, x2, mass in plan.coupling:
        poly = columns.setdefault(x2, {})
        for power, coefficient in ((int(abs(x - x2) * scale), (1 + psi) * mass),
                                   (scale, -mass), (0, -psi * mass)):
            poly[power] = poly.get(power, Fraction(0)) + coefficient
    return scale, {x2: {k: c for k, c in poly.items() if c} for x2, poly in columns.items()}


def polynomial_sign(poly: Mapping[int, Fraction], scale: int, psi: Fraction, epsilon: Fraction,
                    max_bits: int = MAX_BITS) -> int | None:
    """The sign of ``p(v)`` at ``v = ((1 + ψ) e^ε − ψ)^{1/L}``: 0 exactly when ``p`` is the zero
    polynomial, else −1/+1 by certified refinement, ``None`` past ``max_bits``."""
    if not poly:
        return 0

    def enclosure(context):
        z = rational_interval(context, 1 + psi) * exp_interval(context, epsilon) \
            - rational_interval(context, psi)
        v = context.exp(context.log(z) / scale)
        return sum((rational_interval(context, c) * v ** k for k, c in poly.items()),
                   context.mpf(0))

    try:
        return certified_sign(enclosure, 64, max_bits)
    except ArithmeticError:
        return None


def condition20_columns(first: Mapping, second: Mapping, psi: Fraction, epsilon: Fraction
                        ) -> tuple[tuple[Fraction, int | None], ...]:
    """Per column ``x'`` of ``π*(first, second)``, the exact sign of the left side of (20) at
    ``θ = 1/log(e^ε + (e^ε − 1) ψ)`` (−1, 0, +1, or ``None`` when undecided)."""
    if epsilon <= 0:
        raise ValueError("ε must be > 0")
    scale, columns = column_polynomials(first, second, Fraction(psi))
    return tuple((x2, polynomial_sign(poly, scale, Fraction(psi), Fraction(epsilon)))
                 for x2, poly in sorted(columns.items()))
