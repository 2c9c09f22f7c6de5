"""Interval arithmetic without global state, and certified logarithms of exact rationals.

This is the one place where the toolkit turns exact rationals into certified enclosures of
transcendental quantities (the exactness policy, :doc:`/design`).  Every function takes the
working precision as an argument and evaluates in a private mpmath interval context of that
precision (:func:`interval_context`); nothing reads or sets mpmath's global ``iv.prec``, so a
caller can never leak a precision into another computation.

* :func:`interval_context` — a private mpmath interval context at ``bits`` of precision;
* :func:`rational_interval` — an interval enclosing an exact rational;
* :func:`log_interval`, :func:`exp_interval` — enclosures of ``log q`` and ``exp q``;
* :func:`log_enclosure` — outward-rounded double bounds ``lo <= log q <= hi``;
* :func:`endpoints` — an interval's endpoints as exact :class:`~fractions.Fraction` s;
* :func:`float_down`, :func:`float_up`, :func:`round_out` — doubles rounded outward;
* :func:`certified_sign` — the sign of a quantity by refining the precision until its
  enclosure excludes 0;
* :func:`dot_error_factor` — ``γ_k``, the rounding-error factor of a floating-point dot product.

>>> lo, hi = log_enclosure(Fraction(9, 2))
>>> lo <= 1.5040773967762742 <= hi and hi - lo < 1e-15
True
>>> certified_sign(lambda ctx: exp_interval(ctx, Fraction(1)) - rational_interval(ctx, Fraction(271, 100)))
1
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache

from mpmath.ctx_iv import MPIntervalContext
from mpmath.libmp import to_rational

from pufferfish.models.numbers import INFINITY, Ratio

DEFAULT_BITS = 64
"""Starting precision (bits) of an enclosure or a sign decision."""
MAX_BITS = 1 << 16
"""The precision (bits) at which :func:`certified_sign` stops refining and reports undecided."""
UNIT_ROUNDOFF = 2.0 ** -53
"""The unit roundoff ``u`` of IEEE double precision, in the rounding-error bounds."""


@lru_cache(maxsize=None)
def interval_context(bits: int) -> MPIntervalContext:
    """A private mpmath interval context at ``bits`` bits of precision (cached per precision).

    The context is never given another precision after it is made, so sharing it is safe.
    """
    if bits < 2:
        raise ValueError(f"precision must be at least 2 bits, got {bits}")
    context = MPIntervalContext()
    context.prec = bits
    return context


def rational_interval(context: MPIntervalContext, value: Fraction | int):
    """An interval of ``context`` enclosing the exact rational ``value``."""
    value = Fraction(value)
    return context.mpf(value.numerator) / value.denominator


def log_interval(context: MPIntervalContext, value: Fraction | int):
    """An interval enclosing ``log(value)`` for a rational ``value > 0``."""
    return context.log(rational_interval(context, value))


def exp_interval(context: MPIntervalContext, value: Fraction | int):
    """An interval enclosing ``exp(value)`` for a rational ``value``."""
    return context.exp(rational_interval(context, value))


def endpoints(interval) -> tuple[Fraction, Fraction]:
    """The endpoints of an mpmath interval as exact fractions (binary floats are rationals).

    The parts are made plain ``int`` s: with gmpy2 installed mpmath computes with ``gmpy2.mpz``,
    and a ``Fraction`` of ``mpz`` parts is not accepted everywhere (sympy refuses it).
    """
    low, high = interval._mpi_
    return _fraction(*to_rational(low)), _fraction(*to_rational(high))


def _fraction(numerator, denominator) -> Fraction:
    return Fraction(int(numerator), int(denominator))


def float_down(value: Fraction) -> float:
    """The largest double ``<= value``."""
    result = float(value)
    if Fraction(result) > value:
        result = math.nextafter(result, -math.inf)
    return result


def float_up(value: Fraction) -> float:
    """The smallest double ``>= value``."""
    result = float(value)
    if Fraction(result) < value:
        result = math.nextafter(result, math.inf)
    return result


def round_out(interval) -> tuple[float, float]:
    """Doubles ``lo <= interval <= hi`` (each endpoint rounded outward)."""
    low, high = endpoints(interval)
    return float_down(low), float_up(high)


def log_enclosure(value: Ratio, bits: int = DEFAULT_BITS) -> tuple[float, float]:
    """Doubles ``lo <= log(value) <= hi``; ``(-inf, -inf)`` for 0 and ``(inf, inf)`` for ∞.

    Cost: one mpmath interval logarithm at ``bits`` (+10 guard bits) of precision.

    >>> log_enclosure(1)
    (0.0, 0.0)
    >>> log_enclosure(0)
    (-inf, -inf)
    """
    if value == INFINITY:
        return (math.inf, math.inf)
    value = Fraction(value)
    if value < 0:
        raise ValueError(f"log of a negative number: {value}")
    if value == 0:
        return (-math.inf, -math.inf)
    if value == 1:
        return (0.0, 0.0)
    return round_out(log_interval(interval_context(bits + 10), value))


def certified_sign(evaluate: Callable[[MPIntervalContext], object], bits: int = DEFAULT_BITS,
                   max_bits: int = MAX_BITS) -> int:
    """The sign (-1 or 1) of a quantity that is known not to be 0, by refinement.

    ``evaluate(context)`` returns an interval of ``context`` enclosing the quantity; the
    precision doubles from ``bits`` until the enclosure excludes 0.  Raises ``ArithmeticError``
    past ``max_bits`` (the quantity may be 0: decide that case exactly before calling).
    """
    while bits <= max_bits:
        enclosure = evaluate(interval_context(bits))
        low, high = endpoints(enclosure)
        if low > 0:
            return 1
        if high < 0:
            return -1
        bits *= 2
    raise ArithmeticError(f"could not decide a sign within {max_bits} bits of precision")


def dot_error_factor(length: int) -> float:
    """``2·γ_{k+1}`` with ``γ_k = k·u/(1 − k·u)``, ``u = 2^-53``: ``|fl(xᵀy) − xᵀy| <=
    dot_error_factor(k)·|x|ᵀ|y|`` for a dot product of length ``k`` in any summation order
    (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1); the factor 2 and the
    ``k+1`` also cover the rounding of the margin's own computation."""
    k = length + 1
    return 2 * k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)

