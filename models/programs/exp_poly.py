"""Piecewise exponential polynomials on the integers: the exact algebra of geometric noise.

A mechanism that adds two-sided geometric noise ``Pr[Z = z] = (1−α)/(1+α)·α^|z|`` (or one-sided,
``(1−α)·α^z`` for ``z ≥ 0``) and then only compares noisy values with each other and with
constants has output probabilities that are infinite sums such as
``Σ_y Pr[ρ = y] · Π_i Pr[ν_i ≥ y + c_i]``.  Every factor is, on each of finitely many integer
intervals, a finite sum of terms ``c · x^p · β^x`` (``c``, ``β`` rational, ``p`` a natural
number); products, shifts, restrictions and partial sums of such functions stay in the class,
and their infinite sums have closed forms (``Σ_{x≥a} x^p β^x`` for ``β < 1``).  So those
probabilities are exact rationals: no truncation, no window.

:class:`ExpPoly` is one such function, stored as sorted pieces ``[low, high]`` (``None`` for an
infinite end) each holding a term map ``{(p, β): c}``; outside its pieces it is 0.  Cost: the
number of pieces grows with the breakpoints of the factors (at most the sum of theirs for a
product, plus one for a partial sum) and the terms of a piece with the product of the factors'
term counts; an antidifference of ``x^p β^x`` solves a triangular system of size ``p + 2``.

>>> g = ExpPoly.two_sided_geometric(Fraction(1, 2))          # Pr[Z = z] = (1/3)·2^-|z|
>>> g(0), g(-2), g.total()
(Fraction(1, 3), Fraction(1, 12), Fraction(1, 1))
>>> tail = g.restrict(3, None).total()                        # Pr[Z ≥ 3] = α^3/(1+α)
>>> tail
Fraction(1, 12)
>>> both = g.times(g.shift(1))                                 # Σ_z Pr[Z=z]·Pr[Z=z+1]
>>> both.total() == sum(g(z) * g(z + 1) for z in range(-60, 60)) + both.restrict(60, None).total() + both.restrict(None, -61).total()
True
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache
from math import comb

from flint import fmpq

__all__ = ["ExpPoly", "Terms"]

Terms = dict[tuple[int, int], fmpq]
"""``{(p, k): c}``: the function ``x ↦ Σ c · x^p · β_k^x`` where ``β_k`` is the ``k``-th base
(bases are interned: a term key hashes as two integers).  Coefficients are python-flint's exact
rationals, about nine times faster here than :class:`~fractions.Fraction`; results leave as
Fractions."""

_ONE = fmpq(1)
_ZERO = fmpq(0)
_BASES: list[fmpq] = []
_BASE_INDEX: dict[tuple[int, int], int] = {}
_BASE_PRODUCTS: dict[tuple[int, int], int] = {}


def _base(value: fmpq) -> int:
    """The index of the base ``value`` (interned)."""
    key = (int(value.p), int(value.q))
    index = _BASE_INDEX.get(key)
    if index is None:
        index = _BASE_INDEX[key] = len(_BASES)
        _BASES.append(value)
    return index


def _base_product(i: int, j: int) -> int:
    key = (i, j) if i <= j else (j, i)
    index = _BASE_PRODUCTS.get(key)
    if index is None:
        index = _BASE_PRODUCTS[key] = _base(_BASES[i] * _BASES[j])
    return index


_UNIT = _base(_ONE)  # the base 1: constants and polynomials


def _q(value) -> fmpq:
    """An exact rational as fmpq."""
    if isinstance(value, fmpq):
        return value
    value = Fraction(value)
    return fmpq(value.numerator, value.denominator)


def _fraction(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _add_term(terms: Terms, key: tuple[int, int], coefficient: fmpq) -> None:
    value = terms.get(key, 0) + coefficient
    if value:
        terms[key] = value
    else:
        terms.pop(key, None)


def _evaluate(terms: Terms, x: int) -> fmpq:
    total = _ZERO
    for (p, b), c in terms.items():
        total += c * x ** p * _BASES[b] ** x
    return total


def _multiply(first: Terms, second: Terms) -> Terms:
    product: Terms = {}
    for (p, b), c in first.items():
        for (q, d), e in second.items():
            _add_term(product, (p + q, _base_product(b, d)), c * e)
    return product


def _shift(terms: Terms, s: int) -> Terms:
    """``x ↦ f(x + s)``: ``(x+s)^p β^(x+s) = β^s Σ_i C(p, i) s^(p−i) x^i β^x``."""
    if not s:
        return dict(terms)
    shifted: Terms = {}
    for (p, b), c in terms.items():
        scale = c * _BASES[b] ** s
        for i in range(p + 1):
            _add_term(shifted, (i, b), scale * comb(p, i) * s ** (p - i))
    return shifted


_ANTIDIFFERENCES: dict[tuple[int, int], Terms] = {}


def _antidifference(p: int, base: int) -> Terms:
    """``A`` with ``A(x) − A(x−1) = x^p β^x``, as terms: ``Q(x)·β^x`` with ``deg Q = p`` when
    ``β ≠ 1`` (``Q(x) − Q(x−1)/β = x^p``), ``deg Q = p + 1`` when ``β = 1`` (Faulhaber).
    Solved from the top coefficient down (the system is triangular)."""
    key = (p, base)
    b = _BASES[base]
    cached = _ANTIDIFFERENCES.get(key)
    if cached is not None:
        return cached
    # Q(x−1) = Σ_j q_j Σ_i C(j, i) x^i (−1)^(j−i); match the coefficient of x^i.
    if b != 1:
        inverse = 1 / b
        q = [_ZERO] * (p + 1)
        for i in range(p, -1, -1):
            rest = sum((q[j] * comb(j, i) * (-1) ** (j - i) for j in range(i + 1, p + 1)), _ZERO)
            q[i] = ((1 if i == p else 0) + inverse * rest) / (1 - inverse)
    else:
        q = [_ZERO] * (p + 2)
        for i in range(p, -1, -1):
            # −Σ_{j>i} q_j C(j, i) (−1)^(j−i) = [i = p]; the j = i + 1 term is q_{i+1}·(i + 1).
            rest = sum((q[j] * comb(j, i) * (-1) ** (j - i) for j in range(i + 2, p + 2)), _ZERO)
            q[i + 1] = ((1 if i == p else 0) + rest) / (i + 1)
    terms: Terms = {}
    for j, coefficient in enumerate(q):
        if coefficient:
            terms[(j, base)] = coefficient
    _ANTIDIFFERENCES[key] = terms
    return terms


def _cumulative_terms(terms: Terms) -> Terms:
    """An antidifference of the whole term map."""
    result: Terms = {}
    for (p, b), c in terms.items():
        for key, value in _antidifference(p, b).items():
            _add_term(result, key, c * value)
    return result


class ExpPoly:
    """A piecewise exponential polynomial on the integers (module docstring); immutable."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: Iterable[tuple[int | None, int | None, Terms]]) -> None:
        kept = []
        for low, high, terms in pieces:
            if low is not None and high is not None and low > high:
                continue
            terms = {k: v for k, v in terms.items() if v}
            if terms:
                kept.append((low, high, terms))
        kept.sort(key=lambda piece: -10**100 if piece[0] is None else piece[0])
        self.pieces: tuple[tuple[int | None, int | None, Terms], ...] = tuple(kept)

    # --- the distributions of noise -------------------------------------------------------

    @classmethod
    @lru_cache(maxsize=256)
    def two_sided_geometric(cls, alpha: Fraction) -> "ExpPoly":
        """``Pr[Z = z] = (1−α)/(1+α)·α^|z|`` for every integer ``z`` (``0 < α < 1``)."""
        alpha = _q(alpha)
        c = (1 - alpha) / (1 + alpha)
        return cls([(None, -1, {(0, _base(1 / alpha)): c}), (0, None, {(0, _base(alpha)): c})])

    @classmethod
    @lru_cache(maxsize=256)
    def one_sided_geometric(cls, alpha: Fraction) -> "ExpPoly":
        """``Pr[Z = z] = (1−α)·α^z`` for ``z ≥ 0`` (``0 < α < 1``)."""
        alpha = _q(alpha)
        return cls([(0, None, {(0, _base(alpha)): 1 - alpha})])

    @classmethod
    def constant(cls, value: Fraction, low: int | None = None, high: int | None = None) -> "ExpPoly":
        """``value`` on ``[low, high]``, 0 elsewhere."""
        return cls([(low, high, {(0, _UNIT): _q(value)})])

    # --- evaluation -----------------------------------------------------------------------

    def __call__(self, x: int) -> Fraction:
        for low, high, terms in self.pieces:
            if (low is None or low <= x) and (high is None or x <= high):
                return _fraction(_evaluate(terms, x))
        return Fraction(0)

    def __repr__(self) -> str:
        return f"ExpPoly({len(self.pieces)} pieces)"

    # --- operations -----------------------------------------------------------------------

    def restrict(self, low: int | None, high: int | None) -> "ExpPoly":
        """The function on ``[low, high]`` (``None``: no bound), 0 elsewhere."""
        pieces = []
        for a, b, terms in self.pieces:
            a2 = a if low is None else (low if a is None else max(a, low))
            b2 = b if high is None else (high if b is None else min(b, high))
            pieces.append((a2, b2, terms))
        return ExpPoly(pieces)

    def shift(self, s: int) -> "ExpPoly":
        """``x ↦ f(x + s)``."""
        return ExpPoly((None if a is None else a - s, None if b is None else b - s, _shift(t, s))
                       for a, b, t in self.pieces)

    def times(self, other: "ExpPoly") -> "ExpPoly":
        """The pointwise product (pieces intersected)."""
        pieces = []
        for a, b, t in self.pieces:
            for c, d, u in other.pieces:
                low = a if c is None else c if a is None else max(a, c)
                high = b if d is None else d if b is None else min(b, d)
                if low is not None and high is not None and low > high:
                    continue
                pieces.append((low, high, _multiply(t, u)))
        return ExpPoly(pieces)

    def _piece_sum(self, low: int | None, high: int | None, terms: Terms) -> fmpq:
        """``Σ_{x ∈ [low, high]} f(x)`` for one piece (an infinite end needs every term to
        vanish there: ``β > 1`` towards −∞, ``β < 1`` towards +∞)."""
        antidifference = _cumulative_terms(terms)
        top = _ZERO if high is None else _evaluate(antidifference, high)
        bottom = _ZERO if low is None else _evaluate(antidifference, low - 1)
        if high is None or low is None:
            for (p, b) in terms:
                if (high is None and _BASES[b] >= 1) or (low is None and _BASES[b] <= 1):
                    raise ArithmeticError("the sum of a term x^p·β^x diverges on this piece")
        return top - bottom

    def total(self) -> Fraction:
        """``Σ_x f(x)`` over all integers, exactly (closed forms on infinite pieces)."""
        return _fraction(sum((self._piece_sum(a, b, t) for a, b, t in self.pieces), _ZERO))

    def cumulative(self) -> "ExpPoly":
        """``G(t) = Σ_{x ≤ t} f(x)`` as a piecewise exponential polynomial in ``t``."""
        pieces = []
        before = _ZERO              # Σ f over the pieces already passed
        previous_high: int | None = None
        for a, b, terms in self.pieces:
            if previous_high is not None and a is not None and a > previous_high + 1:
                pieces.append((previous_high + 1, a - 1, {(0, _UNIT): before}))  # a gap: constant
            antidifference = _cumulative_terms(terms)
            # on [a, b]: before + A(t) − A(a − 1)  (A(−∞) = 0 when a is −∞)
            start = _ZERO if a is None else _evaluate(antidifference, a - 1)
            if a is None and any(_BASES[b_] <= 1 for (_, b_) in terms):
                raise ArithmeticError("the sum of a term x^p·β^x from −∞ diverges (β ≤ 1)")
            piece = dict(antidifference)
            _add_term(piece, (0, _UNIT), before - start)
            pieces.append((a, b, piece))
            before += self._piece_sum(a, b, terms)
            previous_high = b
            if b is None:
                break
        if previous_high is not None:
            pieces.append((previous_high + 1, None, {(0, _UNIT): before}))
        return ExpPoly(pieces)

    def window_sum(self, low_offset: int | None, high_offset: int | None) -> "ExpPoly":
        """``m(y) = Σ_{x ∈ [y + low_offset, y + high_offset]} f(x)`` (``None``: unbounded), as a
        function of ``y``: ``G(y + high) − G(y + low − 1)`` with ``G`` the cumulative sum."""
        if low_offset is not None and high_offset is not None and low_offset > high_offset:
            return ExpPoly(())
        g = self.cumulative()
        top = (ExpPoly.constant(self.total()) if high_offset is None else g.shift(high_offset))
        if low_offset is None:
            return top
        return top.minus(g.shift(low_offset - 1))

    def minus(self, other: "ExpPoly") -> "ExpPoly":
        """The pointwise difference."""
        return ExpPoly._combine(self, other, -1)

    @staticmethod
    def _combine(first: "ExpPoly", second: "ExpPoly", sign: int) -> "ExpPoly":
        points = set()
        for f in (first, second):
            for a, b, _ in f.pieces:
                if a is not None:
                    points.add(a)
                if b is not None:
                    points.add(b + 1)
        cuts = sorted(points)
        bounds = [None, *cuts]
        intervals = [(bounds[k], None if k == len(cuts) else cuts[k] - 1)
                     for k in range(len(cuts) + 1)]
        pieces = []
        for low, high in intervals:
            if low is not None and high is not None and low > high:
                continue
            probe = low if low is not None else (high if high is not None else 0)
            terms: Terms = {}
            for f, factor in ((first, 1), (second, sign)):
                for a, b, t in f.pieces:
                    if (a is None or a <= probe) and (b is None or probe <= b):
                        for key, value in t.items():
                            _add_term(terms, key, factor * value)
            pieces.append((low, high, terms))
        return ExpPoly(pieces)
