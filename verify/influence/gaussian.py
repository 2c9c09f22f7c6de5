"""a*(b) for the truncated Gaussian prior with region secrets (Example 6.2, Theorem 9).

Source: Bai et al., Composition for Pufferfish Privacy, §6.3 Example 6.2 and Theorem 9, with the
reduction of its proof (Appendix C, the second "Proof of Theorem 8", which is the proof of
Theorem 9).

Setting: ``x ~ N(0, Σ)`` truncated to ``[−γ, γ]^n``, ``Σ_jk = exp(−(j−k)²/ℓ)``; secrets
``s_i(r) = {x_i ∈ [r, r+δ]}``, ``r ∈ [−γ, γ−δ]``; a pair is two disjoint regions on one
coordinate.  For a set ``L`` of observed coordinates the paper's reduction writes
``x_i | x_L ~ N(μ_{i,L}, σ²_{i,L})`` with ``μ_{i,L} = Σ_{i,L} Σ_{L,L}^{-1} x_L`` and constant
``σ²_{i,L} = Σ_ii − Σ_{i,L} Σ_{L,L}^{-1} Σ_{L,i}``, so
``a†(L) = sup_{r,r',μ} [log g_{r}(μ)/g_{r'}(μ) − log m_r/m_{r'}]`` with ``g_r(μ) = Pr[N(μ,σ²) ∈
[r, r+δ]]`` and ``m_r = Pr[N(0, Σ_ii) ∈ [r, r+δ]]`` (the truncation constant cancels because every
region lies inside ``[−γ, γ]``; like the paper, the effect of truncating the *unobserved*
coordinates on ``x_i | x_L`` is not modelled).  Because ``x_L ∈ [−γ,γ]^{|L|}``, ``μ`` sweeps
``[−γ‖w‖₁, γ‖w‖₁]`` with ``w = Σ_{L,L}^{-1} Σ_{L,i}``.

**Computation.**  For fixed ``(r, r')`` the likelihood ratio ``g_r(μ)/g_{r'}(μ)`` is monotone in
``μ`` (Gaussian location family, disjoint intervals), so the sup over ``μ`` is at an end of the
range; then the objective separates: ``h(r) − h(r')`` with ``h(r) = log g_r(μ) − log m_r``, maximised
over a grid of ``r`` (``grid`` points, endpoints included) subject to ``|r − r'| >= δ``.  The linear
algebra and the normal probabilities use mpmath at 50 digits.  **The result is numerical**: the
grid maximum is a lower bound on the supremum over ``r`` (each grid value is evaluated to ~40
digits) and is reported with ``numerical = True``; no verdict of the toolkit rests on it alone.

Cost: one ``|L|×|L|`` solve per ``L`` (``O(n³)`` at 50 digits) plus ``2·grid`` normal probabilities.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import mpmath
import numpy as np

from pufferfish.models.errors import ModelError

_DPS = 50
_MP = mpmath.ctx_mp.MPContext()
_MP.dps = _DPS
"""A private mpmath context at 50 digits (mpmath's global precision is never changed)."""


@dataclass(frozen=True)
class GaussianSetting:
    """Example 6.2's parameters: dimension ``n``, kernel length ``ell``, bound ``gamma``, region
    length ``delta`` (exact rationals; ``delta < gamma``)."""

    n: int
    ell: Fraction
    gamma: Fraction = Fraction(5)
    delta: Fraction = Fraction(1, 10)

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ModelError("n must be >= 1", "n")
        if self.ell <= 0 or self.gamma <= 0 or not 0 < self.delta < self.gamma:
            raise ModelError("need ell > 0, gamma > 0 and 0 < delta < gamma", "gaussian")

    @property
    def centre(self) -> int:
        """``i* = ⌈n/2⌉`` as a 0-based index."""
        return -(-self.n // 2) - 1


@dataclass(frozen=True)
class GaussianLeakage:
    """``a†(L)`` for coordinate ``i`` (numerical, see the module)."""

    coordinate: int
    low: tuple[int, ...]
    value: float
    mu_max: float
    sigma: float
    regions: tuple[float, float] | None
    numerical: bool = True

    def to_dict(self) -> dict:
        return {"coordinate": self.coordinate, "low": list(self.low), "a": self.value,
                "mu_range": [-self.mu_max, self.mu_max], "sigma": self.sigma,
                "worst_regions": list(self.regions) if self.regions else None,
                "numerical": self.numerical}


def _mp(q: Fraction) -> mpmath.mpf:
    return _MP.mpf(q.numerator) / q.denominator


def covariance(setting: GaussianSetting) -> mpmath.matrix:
    """``Σ_jk = exp(−(j−k)²/ℓ)`` at 50 digits."""
    ell = _mp(setting.ell)
    return _MP.matrix([[_MP.exp(-_MP.mpf((j - k) ** 2) / ell)
                           for k in range(setting.n)] for j in range(setting.n)])


def _region_prob(lo, hi, mu, sigma):
    """``Pr[N(mu, sigma²) ∈ [lo, hi]]``, by upper tails above the mean (no cancellation to 0)."""
    if lo > mu:
        return _MP.ncdf((mu - lo) / sigma) - _MP.ncdf((mu - hi) / sigma)
    return _MP.ncdf((hi - mu) / sigma) - _MP.ncdf((lo - mu) / sigma)


def leakage_through(setting: GaussianSetting, coordinate: int, low: Iterable[int],
                    grid: int = 201, sigma_matrix: mpmath.matrix | None = None) -> GaussianLeakage:
    """``a†(L)`` of Definition 7 for the region secrets on ``coordinate`` (numerical)."""
    low = tuple(sorted(low))
    if coordinate in low:
        return GaussianLeakage(coordinate, low, math.inf, math.inf, 0.0, None)
    sig = sigma_matrix if sigma_matrix is not None else covariance(setting)
    gamma, delta = _mp(setting.gamma), _mp(setting.delta)
    var_i = sig[coordinate, coordinate]
    if low:
        s_ll = _MP.matrix([[sig[a, b] for b in low] for a in low])
        s_li = _MP.matrix([sig[a, coordinate] for a in low])
        w = _MP.lu_solve(s_ll, s_li)
        var = var_i - sum(s_li[k] * w[k] for k in range(len(low)))
        mu_max = gamma * sum(abs(w[k]) for k in range(len(low)))
    else:
        var, mu_max = var_i, _MP.mpf(0)
    sigma = _MP.sqrt(max(var, _MP.mpf(10) ** (-40)))
    rs = [-gamma + (2 * gamma - delta) * k / (grid - 1) for k in range(grid)]
    marg = [_MP.log(_region_prob(r, r + delta, 0, _MP.sqrt(var_i))) for r in rs]
    best, best_regions = -math.inf, None
    for mu in ((mu_max, -mu_max) if mu_max else (_MP.mpf(0),)):
        h = np.array([float(_MP.log(_region_prob(r, r + delta, mu, sigma)) - m)
                      for r, m in zip(rs, marg)])
        positions = np.array([float(r) for r in rs])
        # max over (r, r') with |r - r'| >= delta of h(r) - h(r')
        order = np.argsort(h)
        for top in np.argsort(-h)[:grid]:
            far = np.abs(positions[order] - positions[top]) >= float(delta) - 1e-12
            if far.any():
                bottom = order[np.argmax(far)]
                value = h[top] - h[bottom]
                if value > best:
                    best, best_regions = value, (float(positions[top]), float(positions[bottom]))
                break
    return GaussianLeakage(coordinate, low, float(max(best, 0.0)), float(mu_max), float(sigma),
                           best_regions)


def farthest_low(setting: GaussianSetting, coordinate: int, b: int) -> tuple[int, ...]:
    """The ``n − b`` indices farthest from ``coordinate`` (ties: larger index first)."""
    order = sorted((j for j in range(setting.n) if j != coordinate),
                   key=lambda j: (-abs(j - coordinate), -j))
    return tuple(sorted(order[:max(0, setting.n - b)]))


def farthest_low_sets(setting: GaussianSetting, coordinate: int, b: int) -> list[tuple[int, ...]]:
    """Every set of ``n − b`` indices that is "farthest from ``coordinate``" under some tie-break:
    all indices strictly farther than the cut-off distance, plus any choice among those at it."""
    others = [j for j in range(setting.n) if j != coordinate]
    size = max(0, setting.n - b)
    if size == 0:
        return [()]
    distances = sorted((abs(j - coordinate) for j in others), reverse=True)
    cut = distances[size - 1]
    sure = [j for j in others if abs(j - coordinate) > cut]
    tied = [j for j in others if abs(j - coordinate) == cut]
    return [tuple(sorted(sure + list(extra))) for extra in combinations(tied, size - len(sure))]


@dataclass(frozen=True)
class GaussianCurve:
    """Theorem 9's a*(b) for ``b = 0..n`` at the centre with the farthest ``L`` (the best of the
    tie-breaks, :func:`farthest_low_sets`) (numerical)."""

    setting: GaussianSetting
    points: tuple[GaussianLeakage, ...]
    numerical: bool = True

    def to_dict(self) -> dict:
        s = self.setting
        return {"check": "gaussian_influence_curve", "numerical": True, "n": s.n,
                "ell": str(s.ell), "gamma": str(s.gamma), "delta": str(s.delta),
                "points": [{"b": b, **p.to_dict()} for b, p in enumerate(self.points)]}


def gaussian_curve(setting: GaussianSetting, grid: int = 201,
                   b_values: Sequence[int] | None = None) -> GaussianCurve:
    """a*(b) as Theorem 9 computes it: centre coordinate, farthest-index ``L`` of size ``n − b``."""
    sig = covariance(setting)
    i = setting.centre
    bs = range(setting.n + 1) if b_values is None else b_values
    points = []
    for b in bs:
        if b == 0:
            points.append(GaussianLeakage(i, tuple(range(setting.n)), math.inf, math.inf, 0.0, None))
            continue
        points.append(min((leakage_through(setting, i, low, grid, sig)
                           for low in farthest_low_sets(setting, i, b)), key=lambda p: p.value))
    return GaussianCurve(setting, tuple(points))


@dataclass(frozen=True)
class DirectSearch:
    """``min_L a†(L)`` for every coordinate at one ``b`` by enumerating every ``L`` (numerical)."""

    b: int
    per_coordinate: tuple[GaussianLeakage, ...]

    def worst(self) -> GaussianLeakage:
        return max(self.per_coordinate, key=lambda p: p.value)


def direct_search(setting: GaussianSetting, b: int, grid: int = 101,
                  coordinates: Iterable[int] | None = None) -> DirectSearch:
    """For each coordinate ``i``: the best ``L`` of size ``n − b`` not containing ``i``."""
    if not 1 <= b <= setting.n:
        raise ModelError("direct search needs 1 <= b <= n", "b")
    sig = covariance(setting)
    out = []
    for i in (range(setting.n) if coordinates is None else coordinates):
        others = [j for j in range(setting.n) if j != i]
        best = None
        for low in combinations(others, setting.n - b):
            value = leakage_through(setting, i, low, grid, sig)
            if best is None or value.value < best.value:
                best = value
        out.append(best)
    return DirectSearch(b, tuple(out))
