"""Certified Gaussian region masses and the conditional of Example 6.2, in two interval backends.

Source: Bai et al., Composition for Pufferfish Privacy, §6.3, Example 6.2 (the reduction of Theorem
9's proof, Appendix C): ``x_i | x_L ~ N(μ, σ²)`` with ``σ² = Σ_ii − Σ_iL Σ_LL⁻¹ Σ_Li`` and ``μ``
ranging over ``[−M, M]``, ``M = γ ‖Σ_LL⁻¹ Σ_Li‖₁``, for the kernel ``Σ_jk = exp(−(j−k)²/ℓ)``.

A backend turns exact rationals into rigorous enclosures:

* :class:`ArbBackend` (default) — arb balls of python-flint: the solve by ``arb_mat.solve`` and
  the normal tails by arb's ``erfc``, each a rigorous ball (FLINT/Arb's error bounds).  The
  working precision is set only inside ``with backend.precision():`` (python-flint's
  ``ctx.workprec``, restored on exit).
* :class:`IntervalBackend` — a private mpmath interval context
  (:func:`pufferfish.verify.numerics.intervals.interval_context`): ``erf`` by its alternating
  Taylor series (``|x| <= 6``, remainder bounded by the first omitted term) and the upper tail by
  two consecutive approximants of Laplace's continued fraction for the Mills ratio, which lie on
  either side of it (``x > 6``).  Kept as the independent reference the arb backend is tested and
  benchmarked against (``benchmarks/bench_gaussian_bound.py``: arb's tails are two to three
  orders of magnitude faster).

``mass(p, q)`` encloses ``Pr[N(μ, σ²) ∈ [p, q]]`` from the tails at each end, chosen so no
difference of two numbers near 1 is taken (both ends above the mean: ``Q(x_p) − Q(x_q)``; both
below: by symmetry; straddling: ``1 − Q(x_q) − Q(−x_p)``).  The tail at each end is computed once
per end (cached): the cell algorithm of :mod:`pufferfish.verify.influence.gaussian_bound` asks for
every end several times.

Cost per new end: one ``erfc`` (arb: microseconds at 128 bits) or ``O(bits)`` series terms / a few
dozen continued-fraction steps (mpmath); the solve is ``O(|L|³)`` ball operations.

>>> from fractions import Fraction
>>> backend = ArbBackend(128)
>>> with backend.precision():
...     low, high = backend.bounds(backend.masses(0, 1).mass(Fraction(-1), Fraction(1)))
>>> Fraction(682689, 10**6) < low < high < Fraction(682690, 10**6) and high - low < Fraction(1, 10**30)
True
"""

from __future__ import annotations

from contextlib import nullcontext
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.verify.numerics.intervals import endpoints, interval_context, rational_interval

DEFAULT_BITS = 128
"""Working precision (bits) of the normal-tail enclosures."""
_SERIES_LIMIT = 6
_FRACTION_DEPTH = 60


def _not_separated(what: str) -> ModelError:
    return ModelError(f"{what} is not separated from 0 at this precision; raise bits", "bits")


class _Masses:
    """``Pr[N(μ, σ²) ∈ [p, q]]`` for rational ends, with the tails at each end computed once."""

    def __init__(self, backend, mu, sigma) -> None:
        self.backend, self.mu, self.sigma = backend, mu, sigma
        self._ends: dict = {}

    def _end(self, point: Fraction, upper_tail: bool):
        key = (point, upper_tail)
        found = self._ends.get(key)
        if found is None:
            x = (self.backend.number(point) - self.mu) / self.sigma
            found = self._ends[key] = (x, self.backend.tail(x if upper_tail else -x))
        return found

    def mass(self, low: Fraction, high: Fraction):
        """An enclosure of the mass of ``[low, high]`` (cancellation avoided)."""
        x_low, q_low = self._end(low, True)
        x_high, q_high = self._end(high, True)
        backend = self.backend
        if backend.surely_nonnegative(x_low):
            value = q_low - q_high
        elif backend.surely_nonnegative(-x_high):
            value = self._end(high, False)[1] - self._end(low, False)[1]
        else:
            value = 1 - q_high - self._end(low, False)[1]
        return value


class ArbBackend:
    """Arb balls (python-flint) at ``bits`` of precision (module docstring)."""

    name = "arb"

    def __init__(self, bits: int = DEFAULT_BITS) -> None:
        import flint

        self.flint, self.bits = flint, bits
        self._sqrt2 = None

    def precision(self):
        """The context in which this backend's numbers are made and combined."""
        return self.flint.ctx.workprec(self.bits)

    def number(self, q: Fraction | int):
        value = Fraction(q)
        return self.flint.arb(self.flint.fmpq(value.numerator, value.denominator))

    def tail(self, x):
        """``Q(x) = Pr[N(0,1) > x] = erfc(x/√2)/2``."""
        if self._sqrt2 is None:
            self._sqrt2 = self.flint.arb(2).sqrt()
        return (x / self._sqrt2).erfc() / 2

    @staticmethod
    def surely_nonnegative(x) -> bool:
        return x >= 0

    def density(self, t: Fraction):
        """The standard normal density ``φ(t)`` at a rational ``t``."""
        flint = self.flint
        return (-self.number(t * t / 2)).exp() / (2 * flint.arb.pi()).sqrt()

    def exp(self, x):
        return x.exp()

    @staticmethod
    def log(x):
        if not x > 0:
            raise _not_separated("a probability")
        return x.log()

    def masses(self, mu, sigma) -> _Masses:
        return _Masses(self, self.number(mu) if isinstance(mu, (int, Fraction)) else mu,
                       self.number(sigma) if isinstance(sigma, (int, Fraction)) else sigma)

    def log_ratio(self, numerator, denominator):
        """``log(numerator/denominator)`` for two positive enclosures."""
        if not (numerator > 0 and denominator > 0):
            raise _not_separated("a region probability")
        return numerator.log() - denominator.log()

    @staticmethod
    def bounds(x) -> tuple[Fraction, Fraction]:
        """The ball's ends as exact fractions."""
        return _arb_fraction(x.lower()), _arb_fraction(x.upper())

    def conditional(self, ell: Fraction, gamma: Fraction, coordinate: int,
                    low: tuple[int, ...]):
        """``(σ, M, 1 − σ²)`` of the reduction (``Σ_ii = 1``; ``1 − σ² = Σ_iL w`` is returned
        as computed, without the cancellation of ``1 − σ²``)."""
        flint = self.flint
        ell_ball = self.number(ell)

        def kernel(j: int, k: int):
            return (-self.number((j - k) ** 2) / ell_ball).exp()

        s_ll = flint.arb_mat([[kernel(a, b) for b in low] for a in low])
        s_li = flint.arb_mat([[kernel(a, coordinate)] for a in low])
        w = s_ll.solve(s_li)
        explained = sum((s_li[k, 0] * w[k, 0] for k in range(len(low))), self.number(0))
        var = 1 - explained
        if not var > 0:
            raise _not_separated("the conditional variance")
        weight = sum((abs(w[k, 0]) for k in range(len(low))), self.number(0))
        return var.sqrt(), self.number(gamma) * weight, explained


def _arb_fraction(x) -> Fraction:
    mantissa, exponent = x.man_exp()
    mantissa, exponent = int(mantissa), int(exponent)
    return Fraction(mantissa * 2 ** exponent) if exponent >= 0 else Fraction(mantissa,
                                                                               2 ** -exponent)


class IntervalBackend:
    """A private mpmath interval context at ``bits`` of precision (module docstring)."""

    name = "mpmath-iv"

    def __init__(self, bits: int = DEFAULT_BITS) -> None:
        self.ctx, self.bits = interval_context(bits), bits
        self._integers: dict[int, object] = {}

    @staticmethod
    def precision():
        return nullcontext()

    def number(self, q: Fraction | int):
        return rational_interval(self.ctx, Fraction(q))

    def _integer(self, k: int):
        value = self._integers.get(k)
        if value is None:
            value = self._integers[k] = self.ctx.mpf(k)
        return value

    def tail(self, x):
        """``Q`` over the interval ``x`` (``Q`` is decreasing: its values at the two ends)."""
        ctx = self.ctx
        top = self._tail_point(ctx.mpf(x.a))
        bottom = self._tail_point(ctx.mpf(x.b))
        return ctx.mpf([bottom.a, top.b])

    def _tail_point(self, t):
        ctx = self.ctx
        if t.b < 0:
            return 1 - self._tail_point(-t)
        small = ctx.mpf(2) ** (-ctx.prec - 8)
        if t.a <= _SERIES_LIMIT:
            z = t / ctx.sqrt(2)
            z2 = z * z
            term, total, n = z, ctx.mpf(0), 0
            # alternating series of erf; stop past the peak once a term is negligible
            while True:
                total += term / self._integer(2 * n + 1)
                n += 1
                term = -term * z2 / self._integer(n)
                if n > z2.b + 1 and abs(term).b / (2 * n + 1) < small:
                    break
            bound = abs(term).b / (2 * n + 1)
            erf = 2 / ctx.sqrt(ctx.pi) * (total + ctx.mpf([-bound, bound]))
            return (1 - erf) / 2

        def approximant(depth: int):
            f = t
            for k in range(depth, 0, -1):
                f = t + self._integer(k) / f
            return 1 / f

        density = ctx.exp(-t * t / 2) / ctx.sqrt(2 * ctx.pi)
        depth = 8
        while True:
            first, second = approximant(depth), approximant(depth + 1)
            low, high = min(first.a, second.a), max(first.b, second.b)
            if high - low < small * high or depth >= 4 * _FRACTION_DEPTH:
                return density * ctx.mpf([low, high])
            depth *= 2

    @staticmethod
    def surely_nonnegative(x) -> bool:
        return x.a >= 0

    def density(self, t: Fraction):
        ctx = self.ctx
        return ctx.exp(-self.number(t * t / 2)) / ctx.sqrt(2 * ctx.pi)

    def exp(self, x):
        return self.ctx.exp(x)

    def log(self, x):
        x = self.ctx.mpf([max(x.a, 0), min(x.b, 1)])
        if x.a <= 0:
            raise _not_separated("a probability")
        return self.ctx.log(x)

    def masses(self, mu, sigma) -> _Masses:
        return _Masses(self, self.number(mu) if isinstance(mu, (int, Fraction)) else mu,
                       self.number(sigma) if isinstance(sigma, (int, Fraction)) else sigma)

    def log_ratio(self, numerator, denominator):
        ctx = self.ctx
        numerator = ctx.mpf([max(numerator.a, 0), min(numerator.b, 1)])
        denominator = ctx.mpf([max(denominator.a, 0), min(denominator.b, 1)])
        if numerator.a <= 0 or denominator.a <= 0:
            raise _not_separated("a region probability")
        return ctx.log(numerator) - ctx.log(denominator)

    @staticmethod
    def bounds(x) -> tuple[Fraction, Fraction]:
        return endpoints(x)

    def conditional(self, ell: Fraction, gamma: Fraction, coordinate: int,
                    low: tuple[int, ...]):
        ctx = self.ctx
        ell_iv = self.number(ell)

        def kernel(j: int, k: int):
            return ctx.exp(-ctx.mpf((j - k) ** 2) / ell_iv)

        s_ll = ctx.matrix([[kernel(a, b) for b in low] for a in low])
        s_li = ctx.matrix([kernel(a, coordinate) for a in low])
        w = ctx.lu_solve(s_ll, s_li)
        explained = sum((s_li[k] * w[k] for k in range(len(low))), ctx.mpf(0))
        var = 1 - explained
        if var.a <= 0:
            raise _not_separated("the conditional variance")
        return ctx.sqrt(var), self.number(gamma) * sum((abs(w[k]) for k in range(len(low))),
                                                       ctx.mpf(0)), explained


BACKENDS = {"arb": ArbBackend, "mpmath-iv": IntervalBackend}
"""The interval backends by name: python-flint's arb balls (the default) and mpmath's interval
arithmetic (the slower reference they are tested against)."""


__all__ = ["ArbBackend", "BACKENDS", "DEFAULT_BITS", "IntervalBackend"]
