"""Gaussian and discrete Gaussian noise in programs: certified enclosures of every path mass.

Definitions.  :func:`gaussian` draws ``N(0, σ²)``, density ``e^(−z²/(2σ²))/(σ√(2π))`` on the
real line (the Gaussian mechanism, Dwork and Roth, The Algorithmic Foundations of Differential
Privacy, §3.5.3 and Appendix A; the Gaussian Sparse Vector and noisy max of DiPApprox, Bhusal,
Chadha, Sistla and Viswanathan, CCS 2025); :func:`discrete_gaussian` draws the discrete Gaussian
``Pr[Z = z] = e^(−z²/(2σ²)) / Σ_y e^(−y²/(2σ²))`` on the integers (Canonne, Kamath and Steinke,
The Discrete Gaussian for Differential Privacy, NeurIPS 2020, Definition 1).  ``σ`` is an exact
rational > 0.

Why enclosures.  A path of a program is a forest of comparisons between noise values
(:mod:`~pufferfish.models.programs.constraints`); its mass is summed out leaf to root.  For
Laplace-type noise every message is an exponential polynomial and the mass is exact; for the
Gaussian the messages are error functions and their products have no closed form, so the engine
computes **certified enclosures**: every path mass is returned as an
:class:`~pufferfish.models.enclosures.Enclosure` ``[lower, upper]`` that provably contains it.

How (cell arithmetic, rigorous).  Each Gaussian variable is cut into cells: the integers
``|z| ≤ ⌈13σ⌉ + 1`` for the discrete Gaussian, and for ``N(0, σ²)`` the intervals
``[j·h, (j+1)·h]`` of a dyadic width ``h ≤ σ/`` :data:`CELLS_PER_SIGMA` over ``±13σ``, plus
the tails beyond, whose mass is bounded (``< 10^(−37)``).  A *belief* holds lower and upper
bounds on its mass in each cell; a *message* from a child ``c`` to its parent ``v`` through
``x_c − x_v ∈ [l, u]`` holds, for each cell of ``v``, bounds on ``Pr[x_c ∈ [x_v + l, x_v + u]]``
over every ``x_v`` of that cell: the lower bound sums the child's cells inside the window for
every such ``x_v``, the upper bound those it meets for some (plus the child's tail mass when the
window reaches it).  Product and sum then bound the mass from both sides.

* The cell masses of each law are computed once with arb balls (python-flint: ``erfc`` at
  96 bits, ``exp`` and a bounded tail for the discrete normaliser), and their ball ends
  rounded outward to floats.
* Sums and products of bounds run in float64 numpy arrays with the rounding error bounded
  explicitly (a recursive sum of ``n`` nonnegative terms is within ``γ_n = n·u/(1 − n·u)`` of the
  exact sum relative to that sum, a product within ``u``, ``u = 2^(−53)``, plus the smallest
  subnormal for underflow): every lower bound is decreased and every upper bound increased by
  those amounts, so the bounds are rigorous under IEEE arithmetic.
* A restriction of a law to ``[low, high]`` (a comparison with a number) is exact at its ends:
  the partial cell's mass is computed by arb, and a path that only compares one variable with
  numbers gets its mass from arb directly (width about ``10^(−28)``).

Accuracy.  The width of a message is the mass of about one cell of the child at each end of its
window, so a path mass of a tree with ``k`` comparisons between noise values is enclosed to
within about ``k·h/σ`` relative (``k · 2·10^(−4)`` at the default resolution; the discrete
Gaussian's cells are its points, so only rounding widens it).  A verdict is decided only when the
interval does not straddle the budget; otherwise it is reported undecided with the interval.

Cost: ``O(26·CELLS_PER_SIGMA·σ_max/σ_min)`` floats per continuous belief and per message
(``O(26σ)`` for the discrete Gaussian), one vectorised pass per comparison; the cells of each law
are computed once per process.

Mixing.  Gaussian values may be compared with numbers and with Gaussian values (continuous with
continuous, discrete with discrete); a comparison between a Gaussian value and Laplace-type
noise is refused (the exact and the certified engines do not share a path's tree).

>>> from pufferfish.models.programs import program_distribution
>>> def above(data):
...     return data[0] + gaussian(1) >= 1
>>> law = program_distribution(above, (0,))
>>> print(law.prob(True))                         # Pr[N(0,1) ≥ 1] = 0.158655…
[0.158655, 0.158656]
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import arb, ctx, fmpq

from pufferfish.models.enclosures import Enclosure
from pufferfish.models.numbers import fraction_str
from pufferfish.models.programs.runs import current_run, exact_parameter

__all__ = ["gaussian", "discrete_gaussian", "GaussianLaw", "CELLS_PER_SIGMA", "WINDOW_SIGMAS"]

CELLS_PER_SIGMA = 4096
"""Continuous Gaussian cells per standard deviation (at least; the width is a power of 2)."""

WINDOW_SIGMAS = 13
"""Cells cover ``±13σ``; beyond, the mass is bounded (``2·Pr[Z > 13σ] < 1.3·10^(−38)``)."""

_BITS = 96
_U = 2.0 ** -53
_TINY = 5e-324


def _gamma(n: int) -> float:
    """An upper bound on ``γ_n = n·u/(1 − n·u)`` rounded up (the relative error of a recursive
    sum of ``n`` nonnegative floats), inflated for the roundings of this very computation."""
    return 1.01 * n * _U / (1 - n * _U) + 4 * _U


def _down(values):
    """Lower bounds after one more floating operation: shrunk by ``2u`` and one subnormal."""
    return np.maximum(values * (1 - 2 * _U) - _TINY, 0.0)


def _up(values):
    return values * (1 + 2 * _U) + _TINY


def _float_ends(ball: arb) -> tuple[float, float]:
    """Floats ``lo ≤ ball ≤ hi`` (the ball's ends, each moved one float outward)."""
    low = float(ball.lower())
    high = float(ball.upper())
    return max(math.nextafter(low, -math.inf), 0.0), math.nextafter(high, math.inf)


_SMALLEST = 2 ** 1100
"""Masses below ``2^(−1100)`` (under the smallest float) are rounded outward to 0 or to
``2^(−1100)``: the tail of a Gaussian far beyond its cells (``e^(−10^600)`` for
``σ = 10^(−300)`` at a threshold of 1) is an arb ball whose exact end would be an integer of
``10^600`` bits."""


def _fraction(ball_end: arb, up: bool) -> Fraction:
    """The exact end of a ball (``arb.lower()`` or ``upper()``), rounded outward (``up``) to a
    multiple of ``2^(−1100)`` when it is smaller than that in magnitude."""
    mantissa, exponent = ball_end.man_exp()
    mantissa, exponent = int(mantissa), int(exponent)
    if exponent < -1100 and mantissa.bit_length() + exponent < -1100:   # |end| < 2^(−1100)
        if mantissa == 0 or (mantissa > 0) != up:
            return Fraction(0)
        return Fraction(1 if up else -1, _SMALLEST)
    return Fraction(mantissa) * Fraction(2) ** exponent


def _enclosure(ball: arb) -> Enclosure:
    with ctx.workprec(_BITS):   # the ends of the ball, rounded outward at the working precision
        return Enclosure(max(_fraction(ball.lower(), False), Fraction(0)),
                         _fraction(ball.upper(), True))


class GaussianLaw:
    """The law of one Gaussian draw, cut into cells (module docstring); one object per
    ``(σ, discrete)`` (:meth:`of`), so that the engine's memo of beliefs keys laws by identity.

    >>> law = GaussianLaw.of(Fraction(1), discrete=True)
    >>> print(law.mass(0, 0))                         # Pr[Z = 0] = 1/Σ_y e^(−y²/2)
    [0.398942, 0.398943]
    """

    __slots__ = ("sigma", "discrete", "continuous", "width", "start", "lo", "hi", "outside",
                 "_restricted", "__weakref__")

    def __init__(self, sigma: Fraction, discrete: bool) -> None:
        self.sigma, self.discrete, self.continuous = sigma, discrete, not discrete
        self._restricted: dict = {}
        if discrete:
            self.width = Fraction(1)
            half = math.ceil(WINDOW_SIGMAS * sigma) + 1
            self.start = -half
            with ctx.workprec(_BITS):
                two_var = 2 * arb(fmpq(sigma.numerator, sigma.denominator)) ** 2
                weights = [(-arb(j * j) / two_var).exp() for j in range(half + 1)]
                # Σ_{y > half} e^(−y²/(2σ²)) ≤ e^(−(half+1)²/(2σ²)) / (1 − e^(−(half+1)/σ²))
                first = (-arb((half + 1) ** 2) / two_var).exp()
                tail = first / (1 - (-arb(2 * (half + 1)) / two_var).exp())
                inner = weights[0] + 2 * sum(weights[1:], arb(0))
                normaliser = inner + 2 * tail * arb("0.5 +/- 0.5")   # in [inner, inner + 2·tail]
                masses = [w / normaliser for w in weights]
                outside = 2 * tail / inner
            ends = [_float_ends(m) for m in masses]
            ends = ends[:0:-1] + ends                        # j = −half … half
        else:
            exponent = _floor_log2(sigma / CELLS_PER_SIGMA)
            self.width = Fraction(2) ** exponent
            half = math.ceil(WINDOW_SIGMAS * sigma / self.width)
            self.start = -half
            with ctx.workprec(_BITS):
                scale = arb(fmpq(self.width.numerator, self.width.denominator)) / (
                    arb(fmpq(sigma.numerator, sigma.denominator)) * arb(2).sqrt())
                tails = [(scale * j).erfc() / 2 for j in range(half + 1)]  # Pr[Z ≥ j·h]
                masses = [tails[j] - tails[j + 1] for j in range(half)]
                outside = 2 * tails[half]
            ends = [_float_ends(m) for m in masses]
            ends = ends[::-1] + ends                         # j = −half … half − 1
        self.lo = np.array([e[0] for e in ends])
        self.hi = np.array([e[1] for e in ends])
        self.outside = _float_ends(outside)[1]

    @classmethod
    @lru_cache(maxsize=64)
    def of(cls, sigma: Fraction, discrete: bool) -> "GaussianLaw":
        return cls(sigma, discrete)

    def __repr__(self) -> str:
        kind = "discrete_gaussian" if self.discrete else "gaussian"
        return f"GaussianLaw({kind}, sigma={fraction_str(self.sigma)})"

    def __reduce__(self):
        return (GaussianLaw.of, (self.sigma, self.discrete))

    # --- exact masses (arb) --------------------------------------------------------------------

    def _mass_ball(self, low, high) -> arb:
        """``Pr[low ≤ Z ≤ high]`` as an arb ball (``None``: unbounded)."""
        with ctx.workprec(_BITS):
            if self.discrete:
                low = -math.inf if low is None else math.ceil(low)
                high = math.inf if high is None else math.floor(high)
                return self._discrete_mass(low, high)
            root = arb(fmpq(self.sigma.numerator, self.sigma.denominator)) * arb(2).sqrt()

            def upper_tail(t):  # Pr[Z ≥ t]
                return arb(1) if t is None else (arb(fmpq(t.numerator, t.denominator))
                                                 / root).erfc() / 2

            low = None if low is None else Fraction(low)
            high = None if high is None else Fraction(high)
            if high is None:
                return upper_tail(low) if low is not None else arb(1)
            lower_tail_high = upper_tail(-high)     # Pr[Z ≤ high] = Pr[Z ≥ −high]
            if low is None:
                return lower_tail_high
            if low >= 0:
                return upper_tail(low) - upper_tail(high)
            if high <= 0:
                return upper_tail(-high) - upper_tail(-low)
            return 1 - upper_tail(high) - upper_tail(-low)

    def _discrete_mass(self, low, high) -> arb:
        if low > high:
            return arb(0)
        cells = len(self.lo)
        total = arb(0)
        first, last = max(low, self.start), min(high, self.start + cells - 1)
        for j in range(int(first), int(last) + 1):
            total += arb(self.lo[j - self.start]).union(arb(self.hi[j - self.start]))
        if low < self.start or high > self.start + cells - 1:
            total += arb(0).union(arb(self.outside))
        return total

    def mass(self, low=None, high=None) -> Enclosure:
        """``Pr[low ≤ Z ≤ high]`` as a certified enclosure."""
        return _enclosure(self._mass_ball(low, high))

    # --- the law as a belief -------------------------------------------------------------------

    def restrict(self, low, high) -> "CellMasses":
        """The law on ``[low, high]`` (``None``: unbounded) as cell masses, its partial cells
        exact (arb)."""
        key = (low, high)
        found = self._restricted.get(key)
        if found is not None:
            return found
        cells = len(self.lo)
        lo, hi = self.lo.copy(), self.hi.copy()
        outside = self.outside
        h, start = self.width, self.start
        if low is not None:
            first = math.ceil(Fraction(low) / h) - start       # first cell starting at ≥ low
            if first > 0:
                lo[:max(0, min(first, cells))] = 0.0
                hi[:max(0, min(first, cells))] = 0.0
            if not self.discrete and 0 < first <= cells and Fraction(low) < (first + start) * h:
                j = first - 1   # the cell holding low: its part above low, exactly
                part = self._mass_ball(low, min((j + start + 1) * h, Fraction(high))
                                       if high is not None else (j + start + 1) * h)
                lo[j], hi[j] = _float_ends(part)
            if first >= cells:
                lo[:] = hi[:] = 0.0
        if high is not None:
            last = math.floor(Fraction(high) / h) - start       # the cell holding high
            end = last if not self.discrete else last + 1       # cells from `end` on: above
            if end < cells:
                lo[max(0, end):] = 0.0
                hi[max(0, end):] = 0.0
            if not self.discrete and 0 <= last < cells and Fraction(high) > (last + start) * h:
                bottom = (last + start) * h
                if low is not None:
                    bottom = max(bottom, Fraction(low))
                part = self._mass_ball(bottom, high) if bottom <= Fraction(high) else arb(0)
                lo[last], hi[last] = _float_ends(part)
            if last < 0:
                lo[:] = hi[:] = 0.0
        if low is not None and high is not None and Fraction(low) > Fraction(high):
            lo[:] = hi[:] = 0.0
            outside = 0.0
        exact = _enclosure(self._mass_ball(low, high))
        found = self._restricted[key] = CellMasses(self, lo, hi, outside, exact)
        return found


class CellMasses:
    """Bounds on the mass of a belief in each cell of its law, and on its mass outside them.
    ``exact``: an arb enclosure of the total when the belief is a restricted law (no message)."""

    __slots__ = ("law", "lo", "hi", "outside", "exact", "_prefix", "__weakref__")

    def __init__(self, law: GaussianLaw, lo, hi, outside: float, exact: Enclosure | None = None):
        self.law, self.lo, self.hi, self.outside, self.exact = law, lo, hi, outside, exact
        self._prefix = None

    @property
    def continuous(self) -> bool:
        return self.law.continuous

    def __repr__(self) -> str:
        return f"CellMasses({self.law!r}, {len(self.lo)} cells)"

    def total(self) -> Enclosure:
        """A certified enclosure of the belief's total mass."""
        if self.exact is not None:
            return self.exact
        n = len(self.lo)
        gamma = _gamma(n)
        low = max(float(np.sum(self.lo)) * (1 - gamma) - n * _TINY, 0.0)
        high = float(np.sum(self.hi)) * (1 + gamma) + n * _TINY + self.outside * (1 + 4 * _U)
        return Enclosure(Fraction(low), Fraction(high))

    def times(self, message: "WindowMessage") -> "CellMasses":
        """The belief times a message (bounds multiplied cell by cell)."""
        low, high, sup = message.on(self.law)
        return CellMasses(self.law, _down(self.lo * low), _up(self.hi * high),
                          self.outside * sup * (1 + 4 * _U))

    def window_sum(self, low, high) -> "WindowMessage":
        """The message ``y ↦ Pr[x ∈ [y + low, y + high]]`` of this belief (bounds on each cell of
        the parent, computed when the parent's cells are known)."""
        return WindowMessage(self, low, high)

    def prefix(self) -> tuple:
        """Prefix sums of the lower and upper bounds, and suffix sums (no cancellation for
        one-sided windows)."""
        if self._prefix is None:
            zero = np.zeros(1)
            self._prefix = (np.concatenate([zero, np.cumsum(self.lo)]),
                            np.concatenate([zero, np.cumsum(self.hi)]),
                            np.concatenate([np.cumsum(self.lo[::-1])[::-1], zero]),
                            np.concatenate([np.cumsum(self.hi[::-1])[::-1], zero]))
        return self._prefix


class WindowMessage:
    """``m(y) = Pr[x_child ∈ [y + low, y + high]]`` from a child belief; :meth:`on` gives its
    bounds on each cell of a parent law (module docstring)."""

    __slots__ = ("child", "low", "high", "_on", "__weakref__")

    def __init__(self, child: CellMasses, low, high) -> None:
        self.child, self.low, self.high = child, low, high
        self._on: dict = {}

    def on(self, parent: GaussianLaw) -> tuple:
        """``(lower bounds, upper bounds, sup)`` over the parent's cells; ``sup`` bounds the
        message everywhere (it is used outside the parent's cells)."""
        found = self._on.get(id(parent))
        if found is None:
            found = self._on[id(parent)] = self._compute(parent)
        return found

    def _compute(self, parent: GaussianLaw) -> tuple:
        child = self.child
        law = child.law
        if law.discrete != parent.discrete:
            raise TypeError("discrete and continuous Gaussian values cannot be compared")
        n = len(child.lo)
        gamma = _gamma(n)
        p_lo, p_hi, s_lo, s_hi = child.prefix()
        total_hi = float(p_hi[-1]) * (1 + gamma) + child.outside + n * _TINY
        cells = np.arange(len(parent.lo), dtype=np.int64) + parent.start
        ratio = parent.width / law.width
        if parent.discrete:   # integer windows: the cells are the points themselves
            inner_first = outer_first = None if self.low is None else cells + int(self.low)
            inner_last = outer_last = None if self.high is None else cells + int(self.high)
        else:
            inner_first = None if self.low is None else _ceil(cells + 1, ratio, self.low, law)
            outer_first = None if self.low is None else _floor(cells, ratio, self.low, law)
            inner_last = None if self.high is None else _floor(cells, ratio, self.high, law) - 1
            outer_last = None if self.high is None else _ceil(cells + 1, ratio, self.high,
                                                              law) - 1
        low = self._range_sums(inner_first, inner_last, law.start, n, p_lo, s_lo, gamma, -1)
        high = self._range_sums(outer_first, outer_last, law.start, n, p_hi, s_hi, gamma, 1)
        beyond = np.zeros(len(cells), dtype=bool)
        if outer_first is not None:
            beyond |= outer_first < law.start
        else:
            beyond |= True
        if outer_last is not None:
            beyond |= outer_last > law.start + n - 1
        else:
            beyond |= True
        high = high + np.where(beyond, child.outside, 0.0)
        high = np.minimum(_up(high), total_hi)
        return low, high, total_hi

    @staticmethod
    def _range_sums(first, last, start: int, n: int, prefix, suffix, gamma: float, side: int):
        """``Σ_{j ∈ [first, last]}`` of a cell array (``None``: unbounded), rounded down
        (``side = −1``) or up (``side = 1``) by the rounding bound of the prefix sums."""
        if first is None and last is None:
            value = np.full(1, float(prefix[-1]))
            error = value * gamma
            return np.maximum(value - error, 0.0) if side < 0 else value + error
        if last is None:    # a suffix: no cancellation
            index = np.clip(first - start, 0, n)
            value = suffix[index]
            error = value * gamma + n * _TINY
        elif first is None:
            index = np.clip(last - start + 1, 0, n)
            value = prefix[index]
            error = value * gamma + n * _TINY
        else:
            top = np.clip(last - start + 1, 0, n)
            bottom = np.clip(first - start, 0, n)
            top = np.maximum(top, bottom)
            value = prefix[top] - prefix[bottom]
            error = (prefix[top] + prefix[bottom]) * gamma + np.abs(value) * 2 * _U + n * _TINY
        return np.maximum(value - error, 0.0) if side < 0 else value + error


def _scaled(cells, ratio: Fraction, offset, law: GaussianLaw):
    """``cells·ratio + offset/h`` as (numerators, denominator) of exact integers."""
    shift = Fraction(offset) / law.width
    denominator = ratio.denominator * shift.denominator // math.gcd(ratio.denominator,
                                                                     shift.denominator)
    a = ratio.numerator * (denominator // ratio.denominator)
    b = shift.numerator * (denominator // shift.denominator)
    if max(abs(a) * (int(np.abs(cells).max()) + 1) + abs(b), denominator) > 2 ** 62:
        raise ArithmeticError("a threshold with too large a denominator for the Gaussian cells")
    return cells * a + b, denominator


def _floor(cells, ratio: Fraction, offset, law: GaussianLaw):
    numerators, denominator = _scaled(cells, ratio, offset, law)
    return numerators // denominator


def _ceil(cells, ratio: Fraction, offset, law: GaussianLaw):
    numerators, denominator = _scaled(cells, ratio, offset, law)
    return -((-numerators) // denominator)


MAX_DISCRETE_CELLS = 1 << 22
"""The most points a discrete Gaussian's cells may have (``2⌈13σ⌉ + 3``, so ``σ`` up to about
161,000): each costs about 180 bytes and 1.5 µs while its mass is computed (measured: 2.6
million points, ``σ = 10^5``, 0.5 GB and 3.8 s), so ``σ = 10^6`` would need 4.7 GB and a
minute.  Refused up front, with the figure."""

_BYTES_PER_CELL = 180


def _floor_log2(value: Fraction) -> int:
    """``⌊log2(value)⌋`` of a rational ``value > 0``, exactly (no float: ``10^(−400)`` would
    underflow)."""
    exponent = value.numerator.bit_length() - value.denominator.bit_length()
    if Fraction(2) ** exponent > value:
        exponent -= 1
    return exponent


@lru_cache(maxsize=256)
def _sigma(sigma: object) -> Fraction:
    sigma = exact_parameter(sigma, "sigma")
    if sigma <= 0:
        raise ValueError(f"sigma must be positive, got {fraction_str(sigma)}")
    return sigma


def _discrete_sigma(sigma: object) -> Fraction:
    """``σ`` of a discrete Gaussian, refused when its cells would pass
    :data:`MAX_DISCRETE_CELLS`."""
    sigma = _sigma(sigma)
    if sigma > MAX_DISCRETE_CELLS:  # the count below would itself be a huge integer
        cells = None
    else:
        cells = 2 * math.ceil(WINDOW_SIGMAS * sigma) + 3
    if cells is None or cells > MAX_DISCRETE_CELLS:
        if cells is None:  # about 26σ points: a power of ten from the bit length
            size = f"about 10^{int((26 * sigma).numerator.bit_length() * 0.30103)} points"
        else:
            size = f"{cells:,} points (about {cells * _BYTES_PER_CELL / 1e9:.1f} GB)"
        raise ValueError(f"discrete_gaussian({_short(sigma)}) would need its law on "
                         f"±{WINDOW_SIGMAS}σ: {size}, more than the limit of "
                         f"{MAX_DISCRETE_CELLS:,} points (about "
                         f"{MAX_DISCRETE_CELLS * _BYTES_PER_CELL / 1e9:.1f} GB, σ up to "
                         f"{(MAX_DISCRETE_CELLS - 3) // (2 * WINDOW_SIGMAS):,}); use a smaller "
                         f"sigma, or the continuous gaussian (a fixed number of cells at any "
                         f"sigma)")
    return sigma


def _short(value: Fraction) -> str:
    text = fraction_str(value)
    return text if len(text) <= 40 else f"{text[:20]}…({len(text):,} characters)"


def gaussian(sigma: object):
    """Gaussian noise ``N(0, σ²)`` of rational standard deviation ``σ > 0`` (module docstring):
    compared with numbers and with other Gaussian values, its path masses are certified
    enclosures.  ``≥`` and ``>`` have the same probability."""
    from pufferfish.models.programs.noise import Noisy
    run = current_run()
    run.draws("fixed")
    law = GaussianLaw.of(_sigma(sigma), False)
    return Noisy(run.noise.add_variable(law, None, None), 0, run)


def discrete_gaussian(sigma: object):
    """Discrete Gaussian noise of rational parameter ``σ > 0`` on the integers:
    ``Pr[Z = z] ∝ e^(−z²/(2σ²))`` (Canonne, Kamath and Steinke, Definition 1)."""
    from pufferfish.models.programs.noise import Noisy
    run = current_run()
    run.draws("fixed")
    law = GaussianLaw.of(_discrete_sigma(sigma), True)
    return Noisy(run.noise.add_variable(law, None, None), 0, run)
