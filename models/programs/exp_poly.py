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

from pufferfish.models.programs.exp_numbers import ExpNumber, exact_number

__all__ = ["ExpPoly", "ContinuousExpPoly", "Terms"]

Terms = dict[tuple[int, int], object]
"""``{(p, k): c}``: the function ``x ↦ Σ c · x^p · β_k^x`` where ``β_k`` is the ``k``-th base
(bases are interned: a term key hashes as two integers).  A base is ``q·e^r`` (``q > 0``, ``r``
rational): rational (``r = 0``) for geometric noise of rational α, ``e^(−ε)`` for the discrete
Laplace at ``α = e^(−ε)``, ``e^(∓1/b)`` for continuous Laplace of scale ``b``.  Coefficients are
python-flint's exact rationals (about nine times faster here than :class:`~fractions.Fraction`)
while every base is rational, and :class:`~pufferfish.models.programs.exp_numbers.ExpNumber` (the
field ``Q(e^(1/n))``) once a transcendental base enters; results leave as Fractions, or as
ExpNumbers when they are not rational."""

_ONE = fmpq(1)
_ZERO = fmpq(0)
_BASES: list = []                                 # the value q·e^r: fmpq, or ExpNumber (r ≠ 0)
_BASE_KEYS: list[tuple[Fraction, Fraction]] = []  # (q, r)
_BELOW_ONE: list[int] = []                        # the sign of log(base): −1, 0 or 1
_BASE_INDEX: dict[tuple[Fraction, Fraction], int] = {}
_BASE_PRODUCTS: dict[tuple[int, int], int] = {}


def _base_of(q: Fraction, r: Fraction) -> int:
    """The index of the base ``q·e^r`` (interned)."""
    key = (Fraction(q), Fraction(r))
    index = _BASE_INDEX.get(key)
    if index is None:
        if key[0] <= 0:
            raise ValueError("a base must be positive")
        if key[1]:
            value = ExpNumber.exp(key[1]) * key[0]
            order = (value - 1).sign()
        else:
            value = fmpq(key[0].numerator, key[0].denominator)
            order = (key[0] > 1) - (key[0] < 1)
        index = _BASE_INDEX[key] = len(_BASES)
        _BASES.append(value)
        _BASE_KEYS.append(key)
        _BELOW_ONE.append(order)
    return index


def _base(value: fmpq) -> int:
    """The index of the rational base ``value`` (interned)."""
    return _base_of(Fraction(int(value.p), int(value.q)), Fraction(0))


def _base_product(i: int, j: int) -> int:
    key = (i, j) if i <= j else (j, i)
    index = _BASE_PRODUCTS.get(key)
    if index is None:
        (q1, r1), (q2, r2) = _BASE_KEYS[i], _BASE_KEYS[j]
        index = _BASE_PRODUCTS[key] = _base_of(q1 * q2, r1 + r2)
    return index


def _power(base: int, x) -> object:
    """``β^x`` for an integer ``x``, or a rational ``x`` when ``β = e^r`` (continuous noise)."""
    if isinstance(x, int):
        return _BASES[base] ** x
    q, r = _BASE_KEYS[base]
    x = Fraction(x)
    if x.denominator == 1:
        return _BASES[base] ** int(x)
    if q != 1:
        raise ArithmeticError("a rational power of a base with a rational factor")
    return ExpNumber.exp(r * x) if r else _ONE


_UNIT = _base(_ONE)  # the base 1: constants and polynomials


def _q(value):
    """An exact number as a coefficient: fmpq for a rational, the ExpNumber itself otherwise."""
    if isinstance(value, fmpq):
        return value
    if isinstance(value, ExpNumber):
        return fmpq(value.rational().numerator, value.rational().denominator) \
            if value.is_rational() else value
    value = Fraction(value)
    return fmpq(value.numerator, value.denominator)


def _fraction(value):
    return exact_number(value)


def _add_term(terms: Terms, key: tuple[int, int], coefficient: fmpq) -> None:
    value = terms.get(key, 0) + coefficient
    if value:
        terms[key] = value
    else:
        terms.pop(key, None)


def _evaluate(terms: Terms, x):
    total = _ZERO
    if type(x) is int:
        for (p, b), c in terms.items():
            total += c * x ** p * _BASES[b] ** x
        return total
    xq = _q(x)
    for (p, b), c in terms.items():
        total += c * xq ** p * _power(b, x)
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
    sq = _q(s)
    for (p, b), c in terms.items():
        scale = c * _power(b, s)
        for i in range(p + 1):
            _add_term(shifted, (i, b), scale * comb(p, i) * sq ** (p - i))
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


def _antiderivative(p: int, base: int) -> Terms:
    """``A`` with ``A' = x^p e^(λx)`` for the base ``e^λ``: ``e^(λx)·Σ_k (−1)^k p!/(p−k)!
    x^(p−k)/λ^(k+1)`` when ``λ ≠ 0``, ``x^(p+1)/(p+1)`` when ``λ = 0`` (integration by parts)."""
    key = (-1 - p, base)  # negative first entries: the continuous cache shares the dict
    cached = _ANTIDIFFERENCES.get(key)
    if cached is not None:
        return cached
    q, lam = _BASE_KEYS[base]
    if q != 1:
        raise ArithmeticError("a continuous density with a rational base")
    if not lam:
        terms = {(p + 1, base): fmpq(1, p + 1)}
    else:
        lam_q = _q(lam)
        terms = {}
        falling = 1
        for k in range(p + 1):
            terms[(p - k, base)] = fmpq((-1) ** k * falling) / lam_q ** (k + 1)
            falling *= p - k
    _ANTIDIFFERENCES[key] = terms
    return terms


def _cumulative_terms(terms: Terms, continuous: bool = False) -> Terms:
    """An antidifference (an antiderivative when ``continuous``) of the whole term map."""
    primitive = _antiderivative if continuous else _antidifference
    result: Terms = {}
    for (p, b), c in terms.items():
        for key, value in primitive(p, b).items():
            _add_term(result, key, c * value)
    return result


def _inverse_base(base: int) -> int:
    """The index of ``1/β`` for the base ``β = q·e^r``."""
    q, r = _BASE_KEYS[base]
    return _base_of(1 / q, -r)


def _split_kernel(kernel_terms: Terms) -> list[tuple[Terms, Terms]]:
    """``k(x − y)`` as a sum of products ``X(x)·Y(y)``: ``e·(x−y)^q·γ^(x−y) =
    Σ_i e·C(q, i)·(−1)^(q−i)·x^i·γ^x · y^(q−i)·γ^(−y)``."""
    split = []
    for (q, gamma), e in kernel_terms.items():
        inverse = _inverse_base(gamma)
        for i in range(q + 1):
            split.append(({(i, gamma): _ONE},
                          {(q - i, inverse): e * comb(q, i) * (-1) ** (q - i)}))
    return split


def _end_value(antidifference: Terms, end, side: int) -> Terms:
    """The antidifference at a fixed end, as a constant term map; at an infinite end (``None``)
    the limit 0, which needs every term to vanish there (``side`` +1: towards +∞)."""
    if end is None:
        for (_, base) in antidifference:
            if _BELOW_ONE[base] * side >= 0:
                raise ArithmeticError("the sum of a term x^p·β^x diverges on this piece")
        return {}
    value = _evaluate(antidifference, end)
    return {(0, _UNIT): value} if value else {}


def _intervals(cuts, step) -> list[tuple]:
    """The non-empty intervals ``(low, high)`` the points ``cuts`` start, from −∞ to +∞ (each
    cut is the first point of an interval; ``None``: an infinite end)."""
    ordered = sorted(cuts)
    starts = [None, *ordered]
    intervals = []
    for k, low in enumerate(starts):
        high = None if k == len(ordered) else ordered[k] - step
        if low is None or high is None or low <= high:
            intervals.append((low, high))
    return intervals


def _correlation_ranges(a, b, c, d, step, probe_owner):
    """The ranges of ``y`` on which ``x ∈ [max(a, y + c), min(b, y + d)]`` is non-empty and of
    one shape: ``(low, high, lower_is_a, upper_is_b)`` (``None`` ends are infinite)."""
    domain_low = None if a is None or d is None else a - d
    domain_high = None if b is None or c is None else b - c
    cuts = set()
    if a is not None and c is not None:
        cuts.add(a - c + step)          # from here on the lower end is y + c
    if b is not None and d is not None:
        cuts.add(b - d)                 # from here on the upper end is b
    if domain_low is not None:
        cuts.add(domain_low)
    if domain_high is not None:
        cuts.add(domain_high + step)
    ranges = []
    for low, high in _intervals(cuts, step):
        if not step and low is not None and low == high:
            continue
        y = probe_owner._probe(low, high)
        if (domain_low is not None and y < domain_low) or \
                (domain_high is not None and y > domain_high):
            continue
        lower_is_a = c is None or (a is not None and y + c <= a)
        upper_is_b = d is None or (b is not None and y + d >= b)
        ranges.append((low, high, lower_is_a, upper_is_b))
    return ranges


class ExpPoly:
    """A piecewise exponential polynomial on the integers (module docstring); immutable.

    Its subclass :class:`ContinuousExpPoly` is the same algebra on the real line: sums become
    integrals and the pieces meet at their ends (a set of measure zero)."""

    __slots__ = ("pieces",)

    continuous = False
    _step = 1
    """The gap between the last point of a piece and the first of the next: 1 on the integers,
    0 on the reals (where ``Σ_{x ≤ t}`` becomes ``∫_{−∞}^t``)."""

    def __init__(self, pieces: Iterable[tuple[object, object, Terms]]) -> None:
        kept = []
        for low, high, terms in pieces:
            if low is not None and high is not None and (low > high or
                                                         (self.continuous and low == high)):
                continue
            terms = {k: v for k, v in terms.items() if v}
            if terms:
                kept.append((low, high, terms))
        kept.sort(key=lambda piece: -10**100 if piece[0] is None else piece[0])
        self.pieces: tuple[tuple[object, object, Terms], ...] = tuple(kept)

    def _new(self, pieces) -> "ExpPoly":
        return type(self)(pieces)

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
    @lru_cache(maxsize=256)
    def discrete_laplace(cls, epsilon: Fraction) -> "ExpPoly":
        """``Pr[Z = z] = (1−α)/(1+α)·α^|z|`` with ``α = e^(−ε)`` (``ε > 0`` rational): the
        discrete Laplace mechanism of Ghosh, Roughgarden and Sundararajan (the two-sided
        geometric mechanism) at a transcendental α."""
        alpha = ExpNumber.exp(-epsilon)
        c = (1 - alpha) / (1 + alpha)
        return cls([(None, -1, {(0, _base_of(Fraction(1), Fraction(epsilon))): c}),
                    (0, None, {(0, _base_of(Fraction(1), -Fraction(epsilon))): c})])

    @classmethod
    @lru_cache(maxsize=256)
    def one_sided_discrete_laplace(cls, epsilon: Fraction) -> "ExpPoly":
        """``Pr[Z = z] = (1−α)·α^z`` for ``z ≥ 0`` with ``α = e^(−ε)``."""
        alpha = ExpNumber.exp(-epsilon)
        return cls([(0, None, {(0, _base_of(Fraction(1), -Fraction(epsilon))): 1 - alpha})])

    @classmethod
    def constant(cls, value, low=None, high=None) -> "ExpPoly":
        """``value`` on ``[low, high]``, 0 elsewhere."""
        return cls([(low, high, {(0, _UNIT): _q(value)})])

    # --- evaluation -----------------------------------------------------------------------

    def __call__(self, x):
        for low, high, terms in self.pieces:
            if (low is None or low <= x) and (high is None or x <= high):
                return _fraction(_evaluate(terms, x))
        return Fraction(0)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self.pieces)} pieces)"

    # --- operations -----------------------------------------------------------------------

    def restrict(self, low, high) -> "ExpPoly":
        """The function on ``[low, high]`` (``None``: no bound), 0 elsewhere."""
        pieces = []
        for a, b, terms in self.pieces:
            a2 = a if low is None else (low if a is None else max(a, low))
            b2 = b if high is None else (high if b is None else min(b, high))
            pieces.append((a2, b2, terms))
        return self._new(pieces)

    def shift(self, s) -> "ExpPoly":
        """``x ↦ f(x + s)``."""
        return self._new((None if a is None else a - s, None if b is None else b - s,
                          _shift(t, s)) for a, b, t in self.pieces)

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
        return self._new(pieces)

    def _piece_sum(self, low, high, terms: Terms):
        """``Σ_{x ∈ [low, high]} f(x)`` (``∫_low^high f`` on the reals) for one piece (an
        infinite end needs every term to vanish there: ``β < 1`` towards +∞, ``β > 1`` towards
        −∞)."""
        if high is None or low is None:
            for (p, b) in terms:
                if (high is None and _BELOW_ONE[b] >= 0) or (low is None and _BELOW_ONE[b] <= 0):
                    raise ArithmeticError("the sum of a term x^p·β^x diverges on this piece")
        antidifference = _cumulative_terms(terms, self.continuous)
        top = _ZERO if high is None else _evaluate(antidifference, high)
        bottom = _ZERO if low is None else _evaluate(antidifference, low - self._step)
        return top - bottom

    def total(self):
        """``Σ_x f(x)`` over all integers (``∫ f`` on the reals), exactly (closed forms on
        infinite pieces): a Fraction, or an ExpNumber when it is not rational."""
        return _fraction(sum((self._piece_sum(a, b, t) for a, b, t in self.pieces), _ZERO))

    def cumulative(self) -> "ExpPoly":
        """``G(t) = Σ_{x ≤ t} f(x)`` (``∫_{−∞}^t f``) as a piecewise function of ``t``."""
        step = self._step
        pieces = []
        before = _ZERO              # Σ f over the pieces already passed
        previous_high = None
        for a, b, terms in self.pieces:
            if previous_high is not None and a is not None and a > previous_high + step:
                pieces.append((previous_high + step, a - step, {(0, _UNIT): before}))  # a gap
            antidifference = _cumulative_terms(terms, self.continuous)
            # on [a, b]: before + A(t) − A(a − step)  (A(−∞) = 0 when a is −∞)
            start = _ZERO if a is None else _evaluate(antidifference, a - step)
            if a is None and any(_BELOW_ONE[b_] <= 0 for (_, b_) in terms):
                raise ArithmeticError("the sum of a term x^p·β^x from −∞ diverges (β ≤ 1)")
            piece = dict(antidifference)
            _add_term(piece, (0, _UNIT), before - start)
            pieces.append((a, b, piece))
            before += self._piece_sum(a, b, terms)
            previous_high = b
            if b is None:
                break
        if previous_high is not None:
            pieces.append((previous_high + step, None, {(0, _UNIT): before}))
        return self._new(pieces)

    def window_sum(self, low_offset, high_offset) -> "ExpPoly":
        """``m(y) = Σ_{x ∈ [y + low_offset, y + high_offset]} f(x)`` (an integral on the reals;
        ``None``: unbounded), as a function of ``y``: ``G(y + high) − G(y + low − step)`` with
        ``G`` the cumulative sum."""
        if low_offset is not None and high_offset is not None and low_offset > high_offset:
            return self._new(())
        g = self.cumulative()
        top = (type(self).constant(self.total()) if high_offset is None
               else g.shift(high_offset))
        if low_offset is None:
            return top
        return top.minus(g.shift(low_offset - self._step))

    def mirrored(self) -> "ExpPoly":
        """``x ↦ f(−x)``: ``c·(−x)^p·β^(−x) = (−1)^p·c·x^p·(1/β)^x`` on the mirrored pieces."""
        pieces = []
        for a, b, terms in self.pieces:
            flipped: Terms = {}
            for (p, base), c in terms.items():
                _add_term(flipped, (p, _inverse_base(base)), -c if p % 2 else c)
            pieces.append((None if b is None else -b, None if a is None else -a, flipped))
        return self._new(pieces)

    def correlate(self, kernel: "ExpPoly") -> "ExpPoly":
        """``m(y) = Σ_x f(x)·k(x − y)`` (an integral on the reals) as a function of ``y``: the
        message of a child ``x`` whose difference ``x − y`` to its parent carries the factor
        ``k`` (the law of a noise value the program added, restricted to the comparisons' window;
        an indicator of a window gives :meth:`window_sum`).  The law of a sum ``y + Z`` of an
        independent draw ``Z`` is this correlation with ``k`` the law of ``Z``: a convolution.

        Per piece ``[a, b]`` of ``f`` and ``[c, d]`` of ``k``, the sum runs over ``x`` in
        ``[max(a, y + c), min(b, y + d)]``; each kernel term ``e·(x−y)^q·γ^(x−y)`` splits by the
        binomial theorem into terms ``x^i·γ^x`` (summed by their antidifference, whose value at
        ``y + c`` is again a term map in ``y``) times terms ``y^(q−i)·γ^(−y)``.  The result is
        piecewise in ``y`` with breakpoints among ``a − d, a − c, b − d, b − c``: exact, closed
        form.  Cost: O(pieces(f)·pieces(k)·terms(f)·terms(k)·(q+1)²) term operations plus the
        merge of the overlapping pieces.

        >>> g = ExpPoly.two_sided_geometric(Fraction(1, 2))
        >>> both = g.correlate(g.mirrored())                  # the law of the sum of two draws
        >>> both(0)                                # Σ_x (1/9)·4^(−|x|) = (1/9)·(5/3)
        Fraction(5, 27)
        >>> both.total()
        Fraction(1, 1)
        """
        step = self._step
        pieces = []
        for a, b, terms in self.pieces:
            for c, d, kernel_terms in kernel.pieces:
                split = _split_kernel(kernel_terms)
                for y_low, y_high, lower_is_a, upper_is_b in _correlation_ranges(a, b, c, d,
                                                                                step, self):
                    result: Terms = {}
                    for x_part, y_part in split:
                        antidifference = _cumulative_terms(_multiply(terms, x_part),
                                                           self.continuous)
                        if upper_is_b:
                            top = _end_value(antidifference, b, +1)
                        else:
                            top = _shift(antidifference, d)
                        if lower_is_a:
                            bottom = _end_value(antidifference, None if a is None else a - step,
                                                -1)
                        else:
                            bottom = _shift(antidifference, c - step)
                        window = dict(top)
                        for key, value in bottom.items():
                            _add_term(window, key, -value)
                        for key, value in _multiply(y_part, window).items():
                            _add_term(result, key, value)
                    pieces.append((y_low, y_high, result))
        return self._summed(pieces)

    def _summed(self, pieces) -> "ExpPoly":
        """The function that is the sum of possibly overlapping ``(low, high, terms)`` pieces."""
        step = self._step
        points = set()
        for a, b, _ in pieces:
            if a is not None:
                points.add(a)
            if b is not None:
                points.add(b + step)
        summed = []
        for low, high in _intervals(points, step):
            probe = self._probe(low, high)
            terms: Terms = {}
            for a, b, t in pieces:
                if (a is None or a <= probe) and (b is None or probe <= b):
                    for key, value in t.items():
                        _add_term(terms, key, value)
            summed.append((low, high, terms))
        return self._new(summed)

    def minus(self, other: "ExpPoly") -> "ExpPoly":
        """The pointwise difference."""
        return self._combine(other, -1)

    def _combine(self, other: "ExpPoly", sign: int) -> "ExpPoly":
        negated = [(a, b, {key: sign * value for key, value in t.items()})
                   for a, b, t in other.pieces]
        return self._summed([*self.pieces, *negated])

    def _probe(self, low, high):
        """A point of ``[low, high]`` that decides which pieces cover the interval (on the reals
        an inner point: pieces share their ends)."""
        if not self.continuous:
            return low if low is not None else (high if high is not None else 0)
        if low is not None and high is not None:
            return (Fraction(low) + Fraction(high)) / 2
        if low is not None:
            return low + 1
        return high - 1 if high is not None else 0


class ContinuousExpPoly(ExpPoly):
    """A piecewise exponential polynomial on the real line: pieces ``[low, high]`` with rational
    ends (meeting at their ends), terms ``c·x^p·e^(λx)``; ``total`` and ``window_sum`` are
    integrals, exact by integration by parts (Laplace noise: the densities below).

    >>> lap = ContinuousExpPoly.laplace(Fraction(2))              # density e^(−|x|/2)/4
    >>> lap.total()
    Fraction(1, 1)
    >>> lap.restrict(1, None).total()                              # Pr[Z ≥ 1] = e^(−1/2)/2
    ExpNumber('1/2·e^(-1/2)')
    """

    __slots__ = ()
    continuous = True
    _step = 0

    @classmethod
    @lru_cache(maxsize=256)
    def laplace(cls, scale: Fraction) -> "ContinuousExpPoly":
        """The Laplace density ``e^(−|x|/b)/(2b)`` of scale ``b > 0`` (Dwork, McSherry, Nissim
        and Smith's Laplace mechanism adds it with ``b = Δ/ε``)."""
        scale = Fraction(scale)
        c = _q(1 / (2 * scale))
        return cls([(None, 0, {(0, _base_of(Fraction(1), 1 / scale)): c}),
                    (0, None, {(0, _base_of(Fraction(1), -1 / scale)): c})])

    @classmethod
    @lru_cache(maxsize=256)
    def exponential(cls, scale: Fraction) -> "ContinuousExpPoly":
        """The exponential density ``e^(−x/b)/b`` on ``x ≥ 0`` (scale ``b > 0``)."""
        scale = Fraction(scale)
        return cls([(0, None, {(0, _base_of(Fraction(1), -1 / scale)): _q(1 / scale)})])
