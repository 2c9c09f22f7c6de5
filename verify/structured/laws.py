"""The law of a mechanism's output given each secret, from a calibrated junction tree.

``Pr[s ∧ M = ω | θ] = Σ_k Pr[s ∧ code = k | θ] · Pr[M = ω | key(k)]``
(:mod:`~pufferfish.verify.structured.statistics`, :mod:`~pufferfish.verify.structured.elimination`).
A query with two-sided geometric noise (``sum`` or ``count``, clamped to ``[low, high]``) takes
this sum as one polynomial product with the noise's generating polynomial ``Σ_d α^{|d|} z^d`` (or,
for balls, two power-series divisions by ``1 − αz``) and closed forms for the two clamped ends;
a composition applies each mechanism's mixture in turn to its own components
(:mod:`~pufferfish.verify.structured.composed`); any other mechanism sums over its codes.  Exact
values are ``fmpq``; certified balls (``arb``) bound every output cheaply, so that a maximum over
outputs needs exact values only where a ball does not rule the output out.

>>> from pufferfish.api import load
>>> model = load("quickstart.json")
>>> laws = output_laws(model, model.mechanisms["sum"])["sticky"]
>>> laws.outputs, [str(p) for p in laws.exact(None)]
([0, 1, 2, 3], ['281/800', '119/800', '119/800', '281/800'])
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_series, ctx, fmpq, fmpq_poly

from pufferfish.models.errors import TooLargeError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.mechanisms import Composition, GeometricNoise, Mechanism, QueryMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import Prior
from pufferfish.models.universe import Universe
from pufferfish.verify.structured.composed import ComposedMixture
from pufferfish.verify.structured.elimination import EXACT, JunctionTree, Ring, balls
from pufferfish.verify.structured.statistics import (DEFAULT_MAX_CODES, Additive, Statistic,
                                                     packed_weights, statistic_of)


# ------------------------------------------------------------------------------------------------
# the law of the output given each secret, for one prior
# ------------------------------------------------------------------------------------------------

class OutputLaws:
    """For one prior and one mechanism: ``Pr[s | θ]`` and ``Pr[s ∧ M = ω | θ]`` for each secret,
    over a fixed list of ``outputs``, exactly, and, when ``screen`` is on, also as certified balls
    (:func:`~pufferfish.verify.structured.elimination.balls`) so that a maximum over outputs needs
    exact values only where a ball does not rule the output out.

    ``mass(s)``: exact.  ``exact(s)``: every output's exact mass.  ``balls(s)``: every output's
    ball.  ``exact_at(s, indices)``: the exact masses of some outputs (for a geometric noise, each
    by two Horner evaluations instead of the whole polynomial product; every mass found is kept,
    so the level and the leakage pass compute each at most once).  Laws are cached for the last
    few secrets only, so memory stays that of a few laws on long chains.
    """

    CACHED = 8

    def __init__(self, prior: Prior, universe: Universe, statistic: Statistic, weights,
                 mechanism: Mechanism, max_outputs: int, screen: bool = False,
                 bits: int = 128, factored: bool = True) -> None:
        self.statistic, self.mechanism, self.universe = statistic, mechanism, universe
        self.tree = JunctionTree.of_prior(prior, universe, weights)
        self._convolution = GeometricConvolution.of(mechanism, statistic, EXACT)
        requested, screen = screen, screen and self._convolution is not None
        self.ball_tree = (JunctionTree.of_prior(prior, universe, weights, balls(bits))
                          if screen else None)          # balls screen a geometric noise
        self.screen = screen
        total_law = self._total_law = self.tree.law({})
        self._single: dict = {}        # (position, allowed) -> law, for the last few secrets
        if self._convolution is not None:
            self.outputs = self._convolution.outputs
            if screen:
                self._ball_convolution = GeometricConvolution.of(mechanism, statistic,
                                                                  self.ball_tree.ring)
        else:
            self._keys = mixture_of(mechanism, statistic, total_law, max_outputs, factored)
            self.outputs = self._keys.outputs
        self._composed = self._convolution is None and isinstance(self._keys, ComposedMixture)
        self._bounded = requested and self._composed    # float bounds screen a composition
        self.total_mass = total_law(1) if total_law.degree() >= 0 else fmpq(0)
        self._total_split: SplitLaw | None = None
        self._splits: dict = {}        # the split laws of the last few secrets
        self._values: dict = {}        # secret -> {output index: exact mass} found so far
        self._laws: dict = {}
        self._exact: dict = {None: self._mix(total_law)}
        self._balls: dict = {}
        self._float_bounds: dict = {}

    def law(self, secret) -> fmpq_poly:
        """``F_s``: coefficient ``k`` is ``Pr[s ∧ code = k | θ]``.  A secret ``D_v ∈ A`` whose
        complement ``D_v ∉ A`` was among the last few secrets read is ``F − F_{D_v ∉ A}``
        (one subtraction instead of a pass over the tree)."""
        return _cached(self._laws, secret, lambda: self._law_of(conditions_of(secret)),
                       self.CACHED)

    def _law_of(self, conditions: dict[int, frozenset]) -> fmpq_poly:
        if len(conditions) == 1:
            ((position, allowed),) = conditions.items()
            domain = frozenset(self.universe.domains[position])
            complement = self._single.get((position, domain - allowed))
            if complement is not None:
                law = self._total_law - complement
            else:
                law = self.tree.law(conditions)
            self._single[(position, allowed)] = law
            while len(self._single) > self.CACHED:
                self._single.pop(next(iter(self._single)))
            return law
        return self.tree.law(conditions)

    def mass(self, secret) -> fmpq:
        return self.tree.mass(conditions_of(secret))

    def exact(self, secret) -> list[fmpq]:
        """Every output's exact ``Pr[s ∧ M = ω | θ]`` (``secret=None``: ``Pr[M = ω | θ]``)."""
        return _cached(self._exact, secret, lambda: self._mix(self.law(secret)), self.CACHED)

    def balls(self, secret) -> list:
        """Every output's ball (``secret=None``: the total)."""
        def compute():
            tree = self.ball_tree
            with tree.ring.precision():
                law = tree.law({} if secret is None else conditions_of(secret))
                return self._ball_convolution.apply(law)
        # all balls fit in a few hundred megabytes on chains of thousands of attributes
        return _cached(self._balls, secret, compute,
                       max(self.CACHED, BALL_ENTRIES // max(1, len(self.outputs))))

    def exact_at(self, secret, indices: Sequence[int]) -> dict[int, fmpq]:
        """The exact masses of the outputs at ``indices``."""
        if not indices:
            return {}
        if self._composed:
            known = self._values.setdefault(secret, {})
            missing = [o for o in indices if o not in known]
            if missing:
                law = self.law(secret) if secret is not None else self._total_law
                known.update(self._keys.exact_at(law, missing))
            return {o: known[o] for o in indices}
        if self._convolution is None or len(indices) > len(self.outputs) // 8:
            law = self.exact(secret)
            return {o: law[o] for o in indices}
        known = self._values.setdefault(secret, {})
        missing = [o for o in indices if o not in known]
        if missing:
            if secret is None:
                if self._total_split is None:
                    self._total_split = SplitLaw(self.tree.terms({}))
                split = self._total_split
            else:
                split = _cached(self._splits, secret,
                                lambda: SplitLaw(self.tree.terms(conditions_of(secret))),
                                self.CACHED)
            for o in missing:
                known[o] = self._convolution.value_at(split, o)
        return {o: known[o] for o in indices}

    def ratio_candidates(self, first, second) -> list[int] | None:
        """The outputs at which ``Pr[ω | first] / Pr[ω | second]`` may be largest, ruled out by
        certified bounds (:func:`ball_ratio_candidates` on balls for a geometric noise,
        :meth:`~pufferfish.verify.structured.composed.ComposedMixture.ratio_candidates` for a
        composition); ``None`` when no bounds are available (every output is a candidate)."""
        if self._bounded:
            return self._keys.ratio_candidates(self._bounds(first), self._bounds(second))
        if self.screens:
            return ball_ratio_candidates(self.balls(first), self.balls(second))
        return None

    def _bounds(self, secret):
        return _cached(self._float_bounds, secret,
                       lambda: self._keys.bounds(self.law(secret)), self.CACHED)

    @property
    def screens(self) -> bool:
        """Whether balls are available to screen outputs (a geometric noise on a long range)."""
        return self.screen and self._convolution is not None

    def _mix(self, law: fmpq_poly) -> list[fmpq]:
        if self._convolution is not None:
            return self._convolution.apply(law)
        return self._keys.apply(law)


def ball_ratio_candidates(first: Sequence, second: Sequence) -> list[int]:
    """The outputs whose ratio ``first/second`` may be the largest: every output except those
    whose ball's upper bound is below the largest lower bound (and those with ``first`` exactly
    0, which impose nothing).  An output whose ``second`` ball contains 0 stays (its ratio may
    be infinite)."""
    bounds = []
    best_lower = None
    for o, (a, b) in enumerate(zip(first, second)):
        if a.is_exact() and a.is_zero():
            continue
        if 0 in b:
            bounds.append((o, None))
            continue
        ratio = a / b
        lower = ratio.lower()
        if best_lower is None or lower > best_lower:
            best_lower = lower
        bounds.append((o, ratio.upper()))
    return [o for o, upper in bounds
            if upper is None or best_lower is None or not upper < best_lower]


def _cached(cache: dict, key, compute, size: int):
    value = cache.get(key, _MISSING)
    if value is _MISSING:
        value = compute()
        if key is not None:
            while len(cache) > size:
                cache.pop(next(k for k in cache if k is not None))
        cache[key] = value
    return value


_MISSING = object()


@dataclass
class _KeyRows:
    """The generic mixture: each code's kernel row, grouped by kernel key."""

    outputs: list
    rows: list[tuple[list[int], list[tuple[int, fmpq]]]]  # (codes, [(output index, prob)])

    def apply(self, law: fmpq_poly) -> list[fmpq]:
        coefficients = law.coeffs()
        out = [fmpq(0)] * len(self.outputs)
        for codes, row in self.rows:
            weight = sum((coefficients[c] for c in codes if c < len(coefficients)), fmpq(0))
            if weight:
                for o, p in row:
                    out[o] += weight * p
        return out


def mixture_of(mechanism: Mechanism, statistic: Statistic, total: fmpq_poly,
               max_outputs: int, factored: bool = True):
    """The mixture ``law -> [Pr[s ∧ M = ω | θ] per output]`` of a mechanism other than one
    geometric noise on one sum: a composition one mechanism at a time
    (:class:`~pufferfish.verify.structured.composed.ComposedMixture`), else each code's kernel
    row (also for a composition when ``factored`` is off: the product distribution of each joint
    code, the reference the factored mixture is tested against)."""
    if factored and isinstance(mechanism, Composition):
        composed = ComposedMixture.of(mechanism, statistic, total, max_outputs, _part_mixture)
        if composed is not None:
            return composed
    return _key_rows(mechanism, statistic, total, max_outputs)


def _part_mixture(mechanism: Mechanism, statistic: Statistic, total: fmpq_poly,
                  max_outputs: int):
    convolution = GeometricConvolution.of(mechanism, statistic, EXACT)
    if convolution is not None:
        return convolution
    return mixture_of(mechanism, statistic, total, max_outputs)


def _key_rows(mechanism: Mechanism, statistic: Statistic, total: fmpq_poly,
              max_outputs: int) -> _KeyRows:
    codes_of: dict[Hashable, list[int]] = {}
    for code, coefficient in enumerate(total.coeffs()):
        if coefficient:
            codes_of.setdefault(statistic.key(code), []).append(code)
    outputs: dict = {}
    rows = []
    for key, codes in codes_of.items():
        row = []
        for output, p in mechanism.key_distribution(key).items():
            if output not in outputs:
                outputs[output] = len(outputs)
                if len(outputs) > max_outputs:
                    raise TooLargeError(f"mechanism {mechanism.name!r} has more than "
                                        f"{max_outputs:,} outputs; raise the limit with "
                                        f"--max-outputs", f"mechanisms.{mechanism.name}")
            row.append((outputs[output], fmpq(p.numerator, p.denominator)))
        rows.append((codes, row))
    return _KeyRows(list(outputs), rows)


class SplitLaw:
    """``F = Σ_k A_k·B_k`` kept as its terms (:meth:`JunctionTree.terms`): its value at a point
    costs evaluations only; the value of its terms of degree below ``n`` (inside its degree)
    forms the product once and truncates it."""

    def __init__(self, terms: list[tuple]) -> None:
        self.terms = terms
        self.degree = max((a.degree() + b.degree() for a, b in terms
                           if a.degree() >= 0 and b.degree() >= 0), default=-1)
        self._full = None
        self._values: dict = {}

    def __call__(self, point):
        key = ("all", point)
        if key not in self._values:
            self._values[key] = sum((a(point) * b(point) for a, b in self.terms), fmpq(0))
        return self._values[key]

    WINDOW = 24
    """Up to this many coefficients from either end, :meth:`low` sums the products of
    coefficients directly (``O(WINDOW²)`` scalar operations) instead of forming ``F``."""

    def low(self, n: int, point):
        """``(F mod z^n)(point)``: near either end of ``F`` from the terms' coefficients, else
        from ``F`` formed once (``O(d log d)``)."""
        if n > self.degree:
            return self(point)
        if n <= 0:
            return fmpq(0)
        key = (n, point)
        if key not in self._values:
            if n <= self.WINDOW:
                value = self._direct(point, lambda a, b: (0, n - 1))
            elif self.degree - n < self.WINDOW:     # F(point) minus the terms of degree >= n
                value = self(point) - self._direct(point, lambda a, b: (n, a + b))
            else:
                if self._full is None:
                    self._full = sum((a * b for a, b in self.terms), fmpq_poly())
                value = self._full.truncate(n)(point)
            self._values[key] = value
        return self._values[key]

    def _direct(self, point, degrees):
        """``Σ_k Σ_{lo <= i + j <= hi} a_k[i]·b_k[j]·point^(i+j)`` with ``(lo, hi) =
        degrees(deg a_k, deg b_k)``, from the coefficients."""
        total = fmpq(0)
        for a, b in self.terms:
            da, db = a.degree(), b.degree()
            if da < 0 or db < 0:
                continue
            lo, hi = degrees(da, db)
            for i in range(max(0, lo - db), min(da, hi) + 1):
                ai = a[i]
                if not ai:
                    continue
                inner = fmpq(0)
                for j in range(max(0, lo - i), min(db, hi - i) + 1):
                    inner += b[j] * point ** j
                total += ai * point ** i * inner
        return total


class GeometricConvolution:
    """``clamp(S + Z, low, high)`` with two-sided geometric ``Z`` for an additive ``S``: the
    interior outputs are one polynomial product with ``Σ_d α^{|d|} z^d``, the two clamped ends
    closed forms evaluated at α; in the ring of the laws (exact or balls)."""

    def __init__(self, noise: GeometricNoise, offset: int, codes: int, ring: Ring) -> None:
        self.noise, self.offset, self.codes, self.ring = noise, offset, codes, ring
        self.alpha = ring.scalar(noise.alpha)
        self.outputs = list(range(noise.low, noise.high + 1))
        low, high = noise.low - offset, noise.high - offset   # in code units
        self.low, self.high = low, high
        self.reach = max(high, codes - 1 - low, 0)
        self.scale = (1 - self.alpha) / (1 + self.alpha)
        self._kernel_coefficients = None
        if noise.alpha and high > low + 1:
            with ring.precision():
                powers = [ring.scalar(Fraction(1))]
                for _ in range(self.reach):
                    powers.append(powers[-1] * self.alpha)
                # G(z) = Σ_{d=-R}^{R} α^{|d|} z^{d+R}, times the interior scale (1-α)/(1+α)
                self.kernel = ring.poly([p * self.scale for p in powers[:0:-1]]
                                        + [p * self.scale for p in powers])

    @classmethod
    def of(cls, mechanism: Mechanism, statistic: Statistic,
           ring: Ring) -> "GeometricConvolution | None":
        if not (isinstance(mechanism, QueryMechanism) and mechanism.noise is not None
                and mechanism.query.kind in ("sum", "count") and len(statistic.components) == 1
                and isinstance(statistic.components[0], Additive)):
            return None
        return cls(mechanism.noise, statistic.offsets[0], statistic.codes, ring)

    def apply(self, law) -> list:
        """Every output's mass ``Σ_c F[c]·Pr[clamp(c + Z) = y]``."""
        low, high = self.low, self.high
        width = len(self.outputs)
        zero = self.ring.scalar(Fraction(0))
        if law.degree() < 0:
            return [zero] * width
        if not self.noise.alpha or width == 1:   # the clamped answer itself
            out = [zero] * width
            for c, p in enumerate(law.coeffs()):
                out[min(max(c, low), high) - low] += p
            return out
        out = [zero] * width
        with self.ring.precision():
            if high > low + 1:
                if self.ring is EXACT:
                    interior = (law * self.kernel).coeffs()[low + 1 + self.reach:
                                                           high + self.reach]
                else:
                    interior = self._interior_by_series(law)
                out[1:1 + len(interior)] = interior
            out[0] = self._below(law, low)
            out[-1] = self._above(law, high)
        return out

    def point_mass(self, code: int) -> list:
        """:meth:`apply` to the law ``z^code`` (the code ``code`` with probability 1), the
        interior read off the noise's kernel instead of multiplied out (``O(outputs)``)."""
        if self.ring is not EXACT or not self.noise.alpha or not self.high > self.low + 1:
            return self.apply(self.ring.monomial(Fraction(1), code))
        if self._kernel_coefficients is None:
            self._kernel_coefficients = self.kernel.coeffs()
        kernel, zero = self._kernel_coefficients, fmpq(0)
        # coefficient t of z^code · G(z) is G[t − code]; the interior is t = low+1+R .. high−1+R
        shift = self.reach - code
        interior = [kernel[y + shift] if 0 <= y + shift < len(kernel) else zero
                    for y in range(self.low + 1, self.high)]
        law = self.ring.monomial(Fraction(1), code)
        return [self._below(law, self.low), *interior, self._above(law, self.high)]

    def _interior_by_series(self, law) -> list:
        """The interior outputs of a ball law by two power-series divisions by ``1 − αz``
        (``O(n)`` ball operations in FLINT instead of a product with ``2n`` terms):
        ``Σ_c F[c] α^{|y−c|} = L[y] + α·M[y+1]`` with ``L = F/(1 − αz)`` (codes up to ``y``) and
        ``M[y'] = Σ_{c ≥ y'} F[c] α^{c−y'}``, the same division on the reversed coefficients."""
        a, low, high = self.alpha, self.low, self.high
        coefficients = law.coeffs()
        degree = len(coefficients) - 1
        length = max(high, degree + 1)
        saved = ctx.cap
        ctx.cap = length + 1
        try:
            divisor = arb_series([1, -a], prec=length)
            forward = (arb_series(coefficients, prec=length) / divisor).coeffs()
            backward = (arb_series(coefficients[::-1], prec=degree + 1)
                        / arb_series([1, -a], prec=degree + 1)).coeffs()
        finally:
            ctx.cap = saved
        forward += [arb(0)] * (length - len(forward))
        backward += [arb(0)] * (degree + 1 - len(backward))

        def at_least(code: int):       # M[code] = Σ_{c ≥ code} F[c] α^{c − code}
            if code > degree:
                return arb(0)
            if code < 0:
                return a ** (-code) * backward[degree]
            return backward[degree - code]

        values = []
        for y in range(low + 1, high):
            below = forward[y] if 0 <= y < length else arb(0)
            values.append((below + a * at_least(y + 1)) * self.scale)
        return values

    def value_at(self, law: SplitLaw, index: int) -> fmpq:
        """One output's exact mass (``index`` into ``outputs``) from a split law, by
        evaluations at α, 1/α and 1 of ``F`` and of its low terms ``F_{<n}`` (the clamped ends
        for ``c < low``, ``c <= high``; an interior ``y``: ``F_{<=y}``):
        ``scale·(α^y·F_{≤y}(1/α) + α^{-y}·(F(α) − F_{≤y}(α)))`` for an interior ``y``."""
        low, high = self.low, self.high
        if law.degree < 0:
            return fmpq(0)
        if not self.noise.alpha or len(self.outputs) == 1:
            full = fmpq_poly()
            for a, b in law.terms:
                full += a * b
            return self.apply(full)[index]
        a = self.alpha
        y = low + index
        at_alpha = law(a)
        if index == 0:          # Σ_c F[c]·Pr[Z <= low − c]
            if low <= 0:
                return a ** (-low) * at_alpha / (1 + a)
            part_alpha = law.low(low, a)
            value = (at_alpha - part_alpha) / a ** low / (1 + a)
            return value + law.low(low, 1) - a ** (low + 1) * law.low(low, 1 / a) / (1 + a)
        if y == high:           # Σ_c F[c]·Pr[Z >= high − c]
            if high < 0:
                part_one = part_alpha = part_inverse = fmpq(0)
            else:
                part_one, part_alpha = law.low(high + 1, 1), law.low(high + 1, a)
                part_inverse = law.low(high + 1, 1 / a)
            value = a ** high * part_inverse / (1 + a)
            rest_one, rest_alpha = law(1) - part_one, at_alpha - part_alpha
            if rest_one:
                value += rest_one - a * a * rest_alpha / a ** (high + 1) / (1 + a)
            return value
        if y < 0:               # every code is above y
            return at_alpha * a ** (-y) * self.scale
        upto_inverse, upto_alpha = law.low(y + 1, 1 / a), law.low(y + 1, a)
        return (a ** y * upto_inverse + (at_alpha - upto_alpha) / a ** y) * self.scale

    def _below(self, law, low: int):
        """``Σ_c F[c]·Pr[Z <= low - c]``: ``α^{c-low}/(1+α)`` for ``c >= low``, else
        ``1 - α^{low-c+1}/(1+α)``."""
        a = self.alpha
        if low <= 0:
            return a ** (-low) * law(a) / (1 + a)
        part = law.truncate(low)          # codes below low
        upper = law - part                # codes from low on
        value = (upper.right_shift(low)(a) / (1 + a) if upper.degree() >= 0
                 else self.ring.scalar(Fraction(0)))
        if part.degree() >= 0:
            # Σ_{c<low} F[c] α^{low-c+1} = α^{low+1} · part(1/α)
            value += part(1) - a ** (low + 1) * part(1 / a) / (1 + a)
        return value

    def _above(self, law, high: int):
        """``Σ_c F[c]·Pr[Z >= high - c]``, the mirror image of :meth:`_below`."""
        a = self.alpha
        part = law.truncate(high + 1) if high >= 0 else self.ring.poly()  # codes up to high
        value = (a ** high * part(1 / a) / (1 + a) if part.degree() >= 0
                 else self.ring.scalar(Fraction(0)))
        rest = law - part                                                  # codes above high
        if rest.degree() >= 0:
            # Σ_{c>high} F[c]·(1 − α^{c−high+1}/(1+α))
            if high >= -1:
                shifted = rest.right_shift(high + 1)
                value += shifted(1) - a * a * shifted(a) / (1 + a)
            else:                  # the whole range lies below every code
                value += rest(1) - a ** (1 - high) * rest(a) / (1 + a)
        return value


# ------------------------------------------------------------------------------------------------
# the audit
# ------------------------------------------------------------------------------------------------

BALL_ENTRIES = 4 * 10**6
"""The most output balls kept (over all secrets) by one prior's :class:`OutputLaws`."""

SCREEN_OUTPUTS = 64
"""Outputs above which levels are screened with certified balls before exact comparisons."""


def output_laws(model: PufferfishModel, mechanism: Mechanism,
                max_outputs: int = DEFAULT_MAX_OUTPUTS,
                max_codes: int = DEFAULT_MAX_CODES,
                screen_above: int = SCREEN_OUTPUTS,
                factored: bool = True) -> dict[str, OutputLaws]:
    """Each finite prior's :class:`OutputLaws` of ``mechanism`` (calibrated once per prior;
    screened with certified bounds when its statistic has more than ``screen_above`` codes; a
    composition one mechanism at a time unless ``factored`` is off)."""
    statistic = statistic_of(mechanism, model.universe, max_codes)
    weights = packed_weights(statistic)
    screen = statistic.codes > screen_above
    return {name: OutputLaws(prior, model.universe, statistic, weights, mechanism, max_outputs,
                             screen, factored=factored)
            for name, prior in model.finite_priors.items()}


def conditions_of(secret) -> dict[int, frozenset]:
    """A ``where`` secret as the evidence a tree reads: position -> allowed values."""
    return {position: frozenset(allowed) for position, allowed in secret.conditions}


__all__ = ["OutputLaws", "SplitLaw", "GeometricConvolution", "output_laws", "conditions_of",
           "mixture_of", "ball_ratio_candidates",
           "SCREEN_OUTPUTS", "BALL_ENTRIES"]
