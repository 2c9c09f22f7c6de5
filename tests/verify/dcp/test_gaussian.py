"""Certified Gaussian enclosures (verify/dcp/gaussian.py) against mpmath's own erfc in a private
high-precision context (a separate implementation)."""

from __future__ import annotations

from fractions import Fraction as Q

import mpmath
import pytest

from pufferfish.verify.dcp.gaussian import SERIES_LIMIT, event_excess, gaussian_delta, normal_cdf
from pufferfish.verify.numerics.intervals import endpoints, interval_context

REFERENCE = mpmath.MPContext()
REFERENCE.dps = 60


def _phi(x):
    return REFERENCE.erfc(-REFERENCE.mpf(x) / REFERENCE.sqrt(2)) / 2


def _contains(interval, value) -> bool:
    lo, hi = endpoints(interval)
    exact = Q(REFERENCE.nstr(value, 55, min_fixed=-REFERENCE.inf, max_fixed=REFERENCE.inf))
    slack = abs(exact) * Q(1, 10**50) + Q(1, 10**400)
    return lo - slack <= exact <= hi + slack


@pytest.mark.parametrize("x", [-40, -12, -SERIES_LIMIT - 1, -9.5, -3, -0.25, 0, 0.5, 1, 2.75,
                               9.9, 10.5, 40])
def test_normal_cdf_encloses_the_reference(x):
    ctx = interval_context(192)
    value = normal_cdf(ctx, ctx.mpf(x))
    assert _contains(value, _phi(x))
    lo, hi = endpoints(value)
    assert hi - lo <= max(hi, Q(1, 10**300)) / 50          # at worst the Mills bounds' width


def test_normal_cdf_of_an_interval_encloses_its_range():
    ctx = interval_context(128)
    value = normal_cdf(ctx, ctx.mpf([-1, 2]))
    assert _contains(value, _phi(-1)) and _contains(value, _phi(2)) and _contains(value, _phi(0))


@pytest.mark.parametrize("eps, ratio", [(Q(1), Q(1)), (Q(1, 10), Q(1, 3)), (Q(5), Q(3)),
                                        (Q(20), Q(12))])
def test_gaussian_delta_and_the_event_witness(eps, ratio):
    ctx = interval_context(192)
    delta = gaussian_delta(ctx, eps, ctx.mpf(ratio.numerator) / ratio.denominator)
    a, e = REFERENCE.mpf(ratio.numerator) / ratio.denominator, REFERENCE.mpf(eps.numerator) / eps.denominator
    assert _contains(delta, _phi(a / 2 - e / a) - REFERENCE.exp(e) * _phi(-a / 2 - e / a))
    sigma = 1 / ratio                                       # Δ = 1
    optimum = Q(1, 2) - eps * sigma * sigma                # the Neyman–Pearson threshold
    for t in (optimum, optimum + Q(1, 3), optimum - 1):
        excess = event_excess(ctx, eps, ctx.mpf(sigma.numerator) / sigma.denominator, Q(1), t)
        assert endpoints(excess)[0] <= endpoints(delta)[1]  # one event never beats the optimum
    exact = event_excess(ctx, eps, ctx.mpf(sigma.numerator) / sigma.denominator, Q(1), optimum)
    assert abs(endpoints(exact)[0] - endpoints(delta)[0]) < Q(1, 10**40)
