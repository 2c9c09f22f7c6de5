"""Certified enclosures of Gaussian quantities for the continuous statements of
Zhang et al., Differential Confounding Privacy and Inverse Composition, App. G–I (Gaussian copula
perturbation).

* :func:`normal_cdf` — ``Φ(x) = (1 + erf(x/√2))/2`` for an interval ``x``;
* :func:`gaussian_delta` — the exact ``δ(ε)`` of the Gaussian mechanism ``N(μ, σ²)`` against
  ``N(μ + Δ, σ²)`` (Balle and Wang 2018, Theorem 8):
  ``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``;
* :func:`event_excess` — ``Pr_P[Y <= t] − e^ε Pr_Q[Y <= t]`` for the same pair: the excess of
  one explicit event, a lower bound on ``δ(ε)`` that does not rely on the formula's optimality.

Method.  mpmath's interval context has no working ``erf``, so ``Φ`` is enclosed here.  For
``|x| <= 10`` the series ``erf(z) = (2/√π) e^{−z²} Σ_n 2^n z^{2n+1}/(1·3···(2n+1))`` is summed
in interval arithmetic: its terms are positive (no cancellation inside the sum), and once the
ratio of consecutive terms ``2z²/(2n+3)`` is at most 1/2 the tail is at most twice the next term,
which is added as the interval ``[0, 2·t_{N+1}]``.  For ``|x| > 10`` the Mills-ratio bounds
``φ(x)x/(1 + x²) < 1 − Φ(x) < φ(x)/x`` (``x > 0``) enclose the tail.  ``Φ`` is increasing, so an
interval argument ``[a, b]`` is enclosed by ``[Φ(a)_low, Φ(b)_high]``.  Cost: ``O(z² + bits)``
interval operations per endpoint.  All work happens in a private context of the caller
(:func:`pufferfish.verify.numerics.intervals.interval_context`).

>>> from fractions import Fraction
>>> from pufferfish.verify.numerics.intervals import endpoints, interval_context
>>> ctx = interval_context(128)
>>> lo, hi = endpoints(normal_cdf(ctx, ctx.mpf(1)))
>>> round(float(lo), 15), hi - lo < Fraction(1, 10**30)
(0.841344746068543, True)
>>> lo, hi = endpoints(gaussian_delta(ctx, Fraction(1), ctx.mpf(1)))
>>> round(float(lo), 12), hi - lo < Fraction(1, 10**30)
(0.126936737507, True)
"""

from __future__ import annotations

from fractions import Fraction

from mpmath.ctx_iv import MPIntervalContext

from pufferfish.verify.numerics.intervals import rational_interval

SERIES_LIMIT = 10
"""Above this ``|x|`` the Mills-ratio bounds enclose ``1 − Φ(x)`` instead of the erf series."""


def _erf_point(ctx: MPIntervalContext, z):
    """An enclosure of ``erf(z)`` for a point ``z >= 0`` (an interval of zero width)."""
    if z == 0:
        return ctx.mpf(0)
    z2 = z * z
    term, total, n = z, z, 0
    while True:
        n += 1
        term = term * 2 * z2 / (2 * n + 1)
        total = total + term
        ratio_bound = 2 * z2 / (2 * n + 3)
        if (ratio_bound.b <= ctx.mpf(1) / 2 and
                (term.b * 2 ** (ctx.prec + 4) <= total.a or n > 100000)):
            next_term = term * ratio_bound
            break
    total = total + ctx.mpf([0, (2 * next_term).b])
    return 2 / ctx.sqrt(ctx.pi) * ctx.exp(-z2) * total


def _phi_density(ctx: MPIntervalContext, x):
    return ctx.exp(-x * x / 2) / ctx.sqrt(2 * ctx.pi)


def _cdf_point(ctx: MPIntervalContext, x):
    """An enclosure of ``Φ(x)`` for a point ``x``."""
    if abs(x) > SERIES_LIMIT:
        t = abs(x)
        density = _phi_density(ctx, t)
        upper_tail = density / t
        lower_tail = density * t / (1 + t * t)
        tail = ctx.mpf([lower_tail.a, upper_tail.b])
        return tail if x < 0 else 1 - tail
    value = _erf_point(ctx, abs(x) / ctx.sqrt(2))
    return (1 - value) / 2 if x < 0 else (1 + value) / 2


def normal_cdf(ctx: MPIntervalContext, x):
    """An interval of ``ctx`` enclosing ``Φ(x)`` for every point of the interval ``x``."""
    x = ctx.convert(x)
    low, high = ctx.mpf(x.a), ctx.mpf(x.b)
    if low == high:
        return _cdf_point(ctx, low)
    return ctx.mpf([_cdf_point(ctx, low).a, _cdf_point(ctx, high).b])


def gaussian_delta(ctx: MPIntervalContext, epsilon: Fraction, shift_over_sigma):
    """``δ(ε)`` of ``N(0, σ²)`` against ``N(Δ, σ²)`` with ``Δ/σ`` = ``shift_over_sigma`` (an
    interval; the value depends on ``Δ/σ`` alone), enclosed:
    ``Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``.  It decreases in σ."""
    a = ctx.convert(shift_over_sigma)
    eps = rational_interval(ctx, epsilon)
    return (normal_cdf(ctx, a / 2 - eps / a)
            - ctx.exp(eps) * normal_cdf(ctx, -a / 2 - eps / a))


def event_excess(ctx: MPIntervalContext, epsilon: Fraction, sigma, shift: Fraction,
                 threshold: Fraction):
    """``Pr[Y <= t | N(0, σ²)] − e^ε Pr[Y <= t | N(Δ, σ²)]`` for ``t`` = ``threshold``: the
    excess of one event, a certified lower bound on ``δ(ε)`` of the pair."""
    t = rational_interval(ctx, threshold)
    eps = rational_interval(ctx, epsilon)
    sigma = ctx.convert(sigma)
    return (normal_cdf(ctx, t / sigma)
            - ctx.exp(eps) * normal_cdf(ctx, (t - rational_interval(ctx, shift)) / sigma))


__all__ = ["normal_cdf", "gaussian_delta", "event_excess", "SERIES_LIMIT"]
