"""Pufferfish level, leakage, joint release and per-entry DP from structured laws, never listing
the universe.

Definition 5 (Bai et al., Composition for Pufferfish Privacy, §2.2) needs, for every prior θ,
secret ``s`` and output ω, ``Pr[M = ω | s, θ]``; Definition 4 (ibid.) needs ``Pr[s | M = ω, θ]``.
When the mechanism reads a decomposable statistic (:mod:`~pufferfish.verify.structured.statistics`)
both follow from ``Pr[s ∧ code = k | θ]`` (:mod:`~pufferfish.verify.structured.elimination`) and the
mechanism's kernel on each code:

    ``Pr[s ∧ M = ω | θ] = Σ_k Pr[s ∧ code = k | θ] · Pr[M = ω | key(k)]``.

A query with two-sided geometric noise (``sum`` or ``count``, the noise clamped to ``[low, high]``)
takes this sum as one polynomial product with the noise's generating polynomial
``Σ_d α^{|d|} z^d`` and closed forms for the two clamped ends; any other mechanism sums over its
codes.  Every number is exact (python-flint ``fmpq``); levels are compared by
cross-multiplication.  Per-entry DP needs no prior: neighbours differ in one attribute ``v``, so
their codes are ``a + c_v(x)`` and ``a + c_v(x')`` for ``a`` in the set of codes of the other
attributes (a sumset, kept as a bit set), and the level is the worst ratio over those pairs of
codes.

:func:`structured_reason` says why an audit cannot take this path (``None`` when it can), and
:func:`structured_audit` runs it; :func:`pufferfish.verify.privacy.audit.audit_model` chooses.

>>> from pufferfish.api import load
>>> from pufferfish.verify.privacy.audit import audit_model
>>> model = load("quickstart.json")
>>> structured_reason(model, list(model.mechanisms.values()))
>>> audit_model(model, method="structured").mechanisms[1].pufferfish.epsilon
'log(706/137)'
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_series, ctx, fmpq, fmpq_poly

from pufferfish.models.errors import TooLargeError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.mechanisms import GeometricNoise, Mechanism, QueryMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import NeighbourRelation, StandardRelation
from pufferfish.models.numbers import INFINITY, Ratio
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.privacy.blocks import audited_secrets
from pufferfish.verify.privacy.dp import DPResult
from pufferfish.verify.privacy.leakage import LeakageResult
from pufferfish.verify.privacy.pufferfish import (DirectionLevel, PufferfishResult, check_level,
                                                  ratio_key)
from pufferfish.models.priors import Prior
from pufferfish.verify.structured.elimination import (EXACT, JunctionTree, Ring, balls,
                                                      prior_factors)
from pufferfish.verify.structured.statistics import (DEFAULT_MAX_CODES, Additive, Statistic,
                                                     packed_weights, statistic_of)


def _fraction(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def structured_reason(model: PufferfishModel, mechanisms: Sequence[Mechanism],
                      relations: Sequence[NeighbourRelation] = (),
                      max_codes: int = DEFAULT_MAX_CODES) -> str | None:
    """Why the audit of ``mechanisms`` under ``model`` cannot follow the prior's structure, or
    ``None`` when it can: every prior factored (a chain, a product prior or a Bayesian network),
    no interval family, every secret a condition on attributes, every mechanism reading a
    decomposable statistic of at most ``max_codes`` values, and every DP relation per-entry (or
    per-record with one attribute per record).  Cost: ``O(size of the model)``."""
    if model.interval_families:
        return "an interval family constrains only conditionals, which have no factored form"
    if model.universe.explicit is not None:
        return "the universe is an explicit list of datasets"
    try:
        for prior in model.finite_priors.values():
            prior_factors(prior, model.universe)
        for mechanism in mechanisms:
            statistic_of(mechanism, model.universe, max_codes)
    except (UnsupportedError, TooLargeError) as error:
        return error.reason
    for secret in audited_secrets(model):
        if secret.conditions is None:
            return (f"secret {secret.name!r} is a set of datasets or a predicate, not a condition "
                    f"on attributes")
    for relation in relations:
        if not _entry_like(relation, model.universe):
            return f"DP under {relation.label} is computed by scanning neighbour pairs"
    return None


def _entry_like(relation: NeighbourRelation, universe: Universe) -> bool:
    return relation == StandardRelation("entry") or (
        relation == StandardRelation("record") and all(len(r) == 1 for r in universe.records))


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
    by two Horner evaluations instead of the whole polynomial product).  Laws are cached for the
    last few secrets only, so memory stays that of a few laws on long chains.
    """

    CACHED = 8

    def __init__(self, prior: Prior, universe: Universe, statistic: Statistic, weights,
                 mechanism: Mechanism, max_outputs: int, screen: bool = False,
                 bits: int = 128) -> None:
        self.statistic, self.mechanism = statistic, mechanism
        self.tree = JunctionTree.of_prior(prior, universe, weights)
        self.ball_tree = (JunctionTree.of_prior(prior, universe, weights, balls(bits))
                          if screen else None)
        self.screen = screen
        total_law = self.tree.law({})
        self._convolution = _GeometricConvolution.of(mechanism, statistic, EXACT)
        if self._convolution is not None:
            self.outputs = self._convolution.outputs
            if screen:
                self._ball_convolution = _GeometricConvolution.of(mechanism, statistic,
                                                                  self.ball_tree.ring)
        else:
            self._keys = _key_rows(mechanism, statistic, total_law, max_outputs)
            self.outputs = self._keys.outputs
        self.total_mass = total_law(1) if total_law.degree() >= 0 else fmpq(0)
        self._total_split: SplitLaw | None = None
        self._laws: dict = {}
        self._exact: dict = {None: self._mix(total_law)}
        self._balls: dict = {}

    def law(self, secret) -> fmpq_poly:
        """``F_s``: coefficient ``k`` is ``Pr[s ∧ code = k | θ]``."""
        return _cached(self._laws, secret, lambda: self.tree.law(_conditions(secret)),
                       self.CACHED)

    def mass(self, secret) -> fmpq:
        return self.tree.mass(_conditions(secret))

    def exact(self, secret) -> list[fmpq]:
        """Every output's exact ``Pr[s ∧ M = ω | θ]`` (``secret=None``: ``Pr[M = ω | θ]``)."""
        return _cached(self._exact, secret, lambda: self._mix(self.law(secret)), self.CACHED)

    def balls(self, secret) -> list:
        """Every output's ball (``secret=None``: the total)."""
        def compute():
            tree = self.ball_tree
            with tree.ring.precision():
                law = tree.law({} if secret is None else _conditions(secret))
                return self._ball_convolution.apply(law)
        # all balls fit in a few hundred megabytes on chains of thousands of attributes
        return _cached(self._balls, secret, compute,
                       max(self.CACHED, BALL_ENTRIES // max(1, len(self.outputs))))

    def exact_at(self, secret, indices: Sequence[int]) -> dict[int, fmpq]:
        """The exact masses of the outputs at ``indices``."""
        if not indices:
            return {}
        if self._convolution is None or len(indices) > len(self.outputs) // 8:
            law = self.exact(secret)
            return {o: law[o] for o in indices}
        if secret is None:
            if self._total_split is None:
                self._total_split = SplitLaw(self.tree.terms({}))
            split = self._total_split
        else:
            split = SplitLaw(self.tree.terms(_conditions(secret)))
        return {o: self._convolution.value_at(split, o) for o in indices}

    @property
    def screens(self) -> bool:
        """Whether balls are available to screen outputs (a geometric noise on a long range)."""
        return self.screen and self._convolution is not None

    def _mix(self, law: fmpq_poly) -> list[fmpq]:
        if self._convolution is not None:
            return self._convolution.apply(law)
        return self._keys.apply(law)


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

    def low(self, n: int, point):
        """``(F mod z^n)(point)``."""
        if n > self.degree:
            return self(point)
        if n <= 0:
            return fmpq(0)
        if self._full is None:
            self._full = sum((a * b for a, b in self.terms), fmpq_poly())
        return self._full.truncate(n)(point)


class _GeometricConvolution:
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
           ring: Ring) -> "_GeometricConvolution | None":
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
        """One output's exact mass (``index`` into :attr:`outputs`) from a split law, by
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
            shifted = rest.right_shift(high + 1)
            value += shifted(1) - a * a * shifted(a) / (1 + a)
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
                screen_above: int = SCREEN_OUTPUTS) -> dict[str, OutputLaws]:
    """Each finite prior's :class:`OutputLaws` of ``mechanism`` (calibrated once per prior;
    screened with balls when the mechanism has more than ``screen_above`` outputs)."""
    statistic = statistic_of(mechanism, model.universe, max_codes)
    weights = packed_weights(statistic)
    screen = statistic.codes > screen_above
    return {name: OutputLaws(prior, model.universe, statistic, weights, mechanism, max_outputs,
                             screen)
            for name, prior in model.finite_priors.items()}


def _conditions(secret) -> dict[int, frozenset]:
    return {position: frozenset(allowed) for position, allowed in secret.conditions}


def structured_pufferfish(model: PufferfishModel, mechanism: Mechanism,
                          laws: dict[str, OutputLaws], budget: Budget | None = None
                          ) -> PufferfishResult:
    """Definition 5's exact level from structured laws: for every prior and ordered pair, the
    output maximising ``Pr[ω|s_i]/Pr[ω|s_j]``, compared exactly by cross-multiplication.  With
    balls, an output whose ratio's upper bound is below the best lower bound of the pair is
    ruled out first, so exact values are computed for a few outputs per pair.  Cost
    ``O(|𝕊|·|Ω|)`` comparisons per prior."""
    levels: list[DirectionLevel] = []
    skipped: list[tuple[str, str, str]] = []
    for prior_name, prior_laws in laws.items():
        for pair in model.pairs:
            for first, second in pair.directions():
                mass_first, mass_second = prior_laws.mass(first), prior_laws.mass(second)
                if not mass_first or not mass_second:
                    zero = first.name if not mass_first else second.name
                    skipped.append((f"{first.name} -> {second.name}", prior_name,
                                    f"Pr[{zero} | {prior_name}] = 0"))
                    continue
                levels.append(_direction(pair.label, first, second, prior_name, prior_laws,
                                         mass_first, mass_second))
    witness = max(levels, key=lambda level: ratio_key(level.max_ratio), default=None)
    max_ratio: Ratio = witness.max_ratio if witness is not None else Fraction(0)
    result_ratio = max(Fraction(1), max_ratio) if max_ratio != INFINITY else INFINITY
    check = check_level(result_ratio, budget, not levels) if budget is not None else None
    return PufferfishResult(mechanism.name, max_ratio, witness, tuple(levels), tuple(skipped),
                            check)


def _direction(label: str, first, second, prior: str, laws: OutputLaws, mass_first: fmpq,
               mass_second: fmpq) -> DirectionLevel:
    if laws.screens:
        candidates = _ratio_candidates(laws.balls(first), laws.balls(second))
        law_first = laws.exact_at(first, candidates)
        law_second = laws.exact_at(second, candidates)
    else:
        exact_first, exact_second = laws.exact(first), laws.exact(second)
        candidates = range(len(exact_first))
        law_first, law_second = dict(enumerate(exact_first)), dict(enumerate(exact_second))
    best = None  # (numerator, denominator, output index) of x_first/x_second, as integers
    for o in candidates:
        a, b = law_first[o], law_second[o]
        if not a:
            continue
        num, den = a.p * b.q, a.q * b.p
        if best is None or num * best[1] > best[0] * den:
            best = (num, den, o)
            if not den:
                break
    if best is None:
        return DirectionLevel(label, first.name, second.name, prior, Fraction(0))
    num, den, o = best
    ratio: Ratio = (INFINITY if not den else
                    Fraction(int(num), int(den)) * _fraction(mass_second / mass_first))
    return DirectionLevel(label, first.name, second.name, prior, ratio, laws.outputs[o],
                          _fraction(law_first[o] / mass_first),
                          _fraction(law_second[o] / mass_second))


def _ratio_candidates(first: Sequence, second: Sequence) -> list[int]:
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


def structured_leakage(model: PufferfishModel, mechanism: Mechanism,
                       laws: dict[str, OutputLaws]) -> LeakageResult:
    """Definition 4's check from structured laws: the worst ``|Pr[s|ω,θ] − Pr[s|θ]|`` over every
    declared secret, prior and output, compared exactly by cross-multiplication.  With balls, a
    first pass bounds every shift and exact values are computed only where a ball's upper bound
    reaches the largest lower bound."""
    best = None  # (|u|, v, secret, prior, output index, prior probability, posterior)
    for prior_name, prior_laws in laws.items():
        for secret, prior_p, candidates in _leakage_candidates(model, prior_laws):
            law = prior_laws.exact_at(secret, candidates)
            total = prior_laws.exact_at(None, candidates)
            for o in candidates:
                x, t = law[o], total[o]
                if not t:
                    continue
                # x/t − π = (x.p·t.q·π.q − π.p·t.p·x.q) / (x.q·t.p·π.q)
                u = x.p * t.q * prior_p.q - prior_p.p * t.p * x.q
                v = x.q * t.p * prior_p.q
                size = abs(u)
                if size and (best is None or size * best[1] > best[0] * v):
                    best = (size, v, secret.name, prior_name, o, prior_p, x / t)
    skipped = tuple(model.interval_families)
    if best is None:
        return LeakageResult(mechanism.name, True, Fraction(0), not_evaluated=skipped)
    size, v, secret, prior, o, prior_p, posterior = best
    outputs = laws[prior].outputs
    return LeakageResult(mechanism.name, False, Fraction(int(size), int(v)), secret, prior,
                         outputs[o], _fraction(prior_p), _fraction(posterior),
                         not_evaluated=skipped)


def _leakage_candidates(model: PufferfishModel, laws: OutputLaws):
    """``(secret, Pr[s|θ], outputs to compare exactly)`` for every declared secret: all outputs
    without balls; with balls, those whose shift's upper bound reaches the largest lower bound
    over all secrets (found in a first pass)."""
    secrets = [(secret, laws.mass(secret) / laws.total_mass) for secret in model.secrets.values()]
    everything = list(range(len(laws.outputs)))
    if not laws.screens:
        return [(secret, prior_p, everything) for secret, prior_p in secrets]
    total = laws.balls(None)
    bounds, best_lower = [], None
    for secret, prior_p in secrets:
        shifts = []
        prior_ball = arb(prior_p)
        for o, (x, t) in enumerate(zip(laws.balls(secret), total)):
            if 0 in t:
                shifts.append((o, None))
                continue
            shift = abs(x / t - prior_ball)
            lower = shift.lower()
            if best_lower is None or lower > best_lower:
                best_lower = lower
            shifts.append((o, shift.upper()))
        bounds.append((secret, prior_p, shifts))
    return [(secret, prior_p, [o for o, upper in shifts if upper is None or best_lower is None
                               or not upper < best_lower])
            for secret, prior_p, shifts in bounds]


def structured_entry_dp(universe: Universe, mechanism: Mechanism, label: str = "entry",
                        max_codes: int = DEFAULT_MAX_CODES) -> DPResult:
    """Per-entry DP (Bai et al., Composition for Pufferfish Privacy, §2.1, Definition 2) without
    listing the universe: neighbours differ at one attribute ``v``, so their codes are
    ``c = a + c_v(x)`` and ``c + δ`` with ``δ = c_v(x') − c_v(x)`` and ``a`` a code of the other
    attributes.  The codes of the other attributes are a sumset, kept as a bit set
    (``O(n · codes²/64)`` to build for ``n`` attributes); the pairs ``(c, c + δ)`` are collected
    per ``δ`` as bit sets too, and each distinct pair of kernel keys is compared once over its
    outputs (a geometric noise's rows by one polynomial product each).  The witness datasets are
    rebuilt from the sumsets.  ``pairs_checked`` counts the ordered neighbour pairs the level
    covers (``|𝒰|·Σ_v (d_v − 1)``)."""
    statistic = statistic_of(mechanism, universe, max_codes)
    weights = packed_weights(statistic)
    n = universe.width
    prefix = [1]                      # prefix[v]: codes of attributes < v, as a bit set
    for v in range(n):
        prefix.append(_sumset(prefix[-1], set(weights[v].values())))
    suffix = [1] * (n + 1)            # suffix[v]: codes of attributes >= v
    for v in range(n - 1, -1, -1):
        suffix[v] = _sumset(suffix[v + 1], set(weights[v].values()))
    starts: dict[int, int] = {}       # δ -> the codes c with a neighbour at c + δ
    for v in range(n):
        others = _combine(prefix[v], suffix[v + 1])
        for x, wx in weights[v].items():
            for y, wy in weights[v].items():
                if x != y:
                    starts[wy - wx] = starts.get(wy - wx, 0) | (others << wx)
    pairs: dict[tuple, tuple[int, int]] = {}
    for delta, codes in starts.items():
        for code in _bits(codes):
            key, other = statistic.key(code), statistic.key(code + delta)
            if key != other:
                pairs.setdefault((key, other), (code, delta))
    rows = _DPRows(mechanism, statistic)
    best = None  # (numerator, denominator, output, code, δ) of the worst ratio
    for key, other in pairs:
        row, other_row = rows.of(key), rows.of(other)
        for output, p in row.items():
            q = other_row.get(output, 0)
            if q and type(p) is type(q) is fmpq:  # the common case, without conversions
                num, den = p.p * q.q, p.q * q.p
            else:
                num, den = _cross(p, q)
            if best is None or num * best[1] > best[0] * den:
                best = (num, den, output, *pairs[(key, other)], p, q)
                if not den:
                    break
        if best is not None and not best[1]:
            break
    neighbours = universe.size * sum(len(d) - 1 for d in universe.domains)
    if best is None:
        return DPResult(mechanism.name, label, Fraction(1), pairs_checked=neighbours)
    num, den, output, code, delta, p, q = best
    v, x, y, a = _neighbours_at(weights, prefix, suffix, code, delta)
    dataset = _dataset_with(universe, weights, prefix, suffix, v, x, a)
    neighbour = dataset[:v] + (y,) + dataset[v + 1:]
    ratio: Ratio = INFINITY if not den else max(Fraction(1), Fraction(int(num), int(den)))
    return DPResult(mechanism.name, label, ratio, dataset, neighbour, output, _as_fraction(p),
                    _as_fraction(q), neighbours)


class _DPRows:
    """Kernel rows by key, as ``{output: probability}``: a geometric noise's row by one
    polynomial product (exact ``fmpq``), any other mechanism's from its key."""

    def __init__(self, mechanism: Mechanism, statistic: Statistic) -> None:
        self.mechanism, self.statistic = mechanism, statistic
        self.convolution = _GeometricConvolution.of(mechanism, statistic, EXACT)
        self.rows: dict = {}

    def of(self, key) -> dict:
        row = self.rows.get(key)
        if row is None:
            if self.convolution is not None:
                code = key - self.statistic.offsets[0]
                law = self.convolution.apply(EXACT.monomial(Fraction(1), code))
                row = {y: p for y, p in zip(self.convolution.outputs, law) if p}
            else:
                row = dict(self.mechanism.key_distribution(key).items())
            self.rows[key] = row
        return row


def _cross(p, q) -> tuple:
    """``p/q`` as a pair of integers (``fmpq`` or ``Fraction``)."""
    if isinstance(p, Fraction) or isinstance(q, Fraction | int):
        p, q = Fraction(_as_fraction(p)), Fraction(_as_fraction(q))
        return p.numerator * q.denominator, p.denominator * q.numerator
    return p.p * q.q, p.q * q.p


def _as_fraction(value) -> Fraction:
    return value if isinstance(value, Fraction | int) else _fraction(value)


def _neighbours_at(weights, prefix, suffix, code: int, delta: int) -> tuple:
    """An attribute ``v``, values ``x → y`` with ``c_v(y) − c_v(x) = δ``, and the code ``a`` of
    the other attributes, with ``a + c_v(x) = code``."""
    for v in range(len(weights)):
        others = _combine(prefix[v], suffix[v + 1])
        for x, wx in weights[v].items():
            for y, wy in weights[v].items():
                if x != y and wy - wx == delta and code >= wx and others >> (code - wx) & 1:
                    return v, x, y, code - wx
    raise AssertionError("a pair of codes without neighbours")


def _sumset(codes: int, steps: set[int]) -> int:
    out = 0
    for step in steps:
        out |= codes << step
    return out


def _combine(first: int, second: int) -> int:
    """The sumset of two bit sets of codes."""
    if first.bit_count() > second.bit_count():
        first, second = second, first
    return _sumset(second, set(_bits(first)))


def _bits(codes: int):
    """The codes in a bit set, in increasing order."""
    for position, bit in enumerate(bin(codes)[:1:-1]):
        if bit == "1":
            yield position


def _dataset_with(universe: Universe, weights, prefix, suffix, v: int, x, code: int) -> tuple:
    """A dataset with ``D_v = x`` whose other attributes have code ``code`` (from the sumsets:
    attributes before ``v`` take a part in ``prefix[v]``, the rest in ``suffix[v + 1]``)."""
    values = [None] * universe.width
    values[v] = x
    split = next(a for a in _bits(prefix[v]) if code - a >= 0 and suffix[v + 1] >> (code - a) & 1)
    remaining = code - split
    for u in range(v + 1, universe.width):     # walk forward through the suffix
        for value, w in weights[u].items():
            if remaining - w >= 0 and suffix[u + 1] >> (remaining - w) & 1:
                values[u], remaining = value, remaining - w
                break
    remaining = split
    for u in range(v - 1, -1, -1):             # and backward through the prefix
        for value, w in weights[u].items():
            if remaining - w >= 0 and prefix[u] >> (remaining - w) & 1:
                values[u], remaining = value, remaining - w
                break
    return tuple(values)


__all__ = ["OutputLaws", "output_laws", "structured_reason", "structured_pufferfish",
           "structured_leakage", "structured_entry_dp"]
