"""Laplace-noise calibration for multi-user Pufferfish privacy, checked exactly
(``001_3a97785a86d61e37.txt`` §2 Proposition 1; §4 Theorems 1–4, equations (10)–(21), Lemmas 1–2,
Remarks 1–2; Appendix A Lemma 3, Proposition 2).

The mechanism releases ``Y = X + Lap(θ)`` where ``X`` is the aggregate of a
:class:`~pufferfish.models.multiuser.MultiUserModel`.  A *calibrator* proposes θ for a budget ε and a pair
set; this module computes every calibrator of the paper and then the **actual Pufferfish level**
of ``X + Lap(θ)`` — the log of ``sup_y f(y | s)/f(y | s')`` over all real outputs and both
directions of every non-vacuous pair — with the exact Laplace-mixture supremum of
:mod:`pufferfish.verify.transport.laplace_level`, next to ε.  A level above ε refutes the calibrator.

Calibrators (θ is returned as an exact multiple ``c/ε`` where the paper's form is one, otherwise as
a certified rational interval ``[lower, upper]`` containing the exact θ):

=====================  ========================  ==============================================
name                   pair set                  θ
=====================  ========================  ==============================================
``proposition1``       all                       ``max sup_{supp π*} |x − x'| / ε`` on the
                                                 conditionals of X (equation (5))
``proposition2``       all                       ``max sup_x Δ*(x) / ε`` on the conditionals
                                                 (equation (28), Δ* on the lattice)
``theorem1``           ab                        ``max |a_i − b_i| / ε`` (10)
``theorem2``           a-absent                  ``max |a_i| / ε`` (12)
``theorem3_eq14``      P-absent                  ``max_{t ∈ 𝒟_i} |t| / ε`` (14)
``theorem3_eq13``      P-absent                  root of ``E_{P_i}[e^{|D_i|/θ}] = e^ε`` (13)
``eq15``               P-absent, Bernoulli       ``1 / log((e^ε − (1 − p_i))/p_i)`` (15)
``theorem4``           PQ                        ``sup_t Δ*(t) / ε`` on ``F_{P_i}, F_{Q_i}`` (16)
``lemma1``             PQ, Bernoulli             ``1/ε`` (18)
``lemma2``             PQ, Bernoulli             ``sup_x 1/log(e^ε + (e^ε − 1) ψ_i(x))`` (21)
=====================  ========================  ==============================================

Equation (13) is solved as a polynomial: with ``L`` the common denominator of the values and
``z = e^{1/(Lθ)}``, ``g(z) = Σ_t P_i(t) z^{L|t|}`` is strictly increasing on ``z >= 1`` with
``g(1) = 1 < e^ε``; the unique root is isolated by bisection over rational ``z`` where every
comparison ``g(z)`` vs ``e^ε`` is decided rigorously (:func:`pufferfish.verify.numerics.certified.compare_ratio`),
and ``θ = 1/(L log z)`` is enclosed with interval arithmetic.  In (21), ``ψ_i(x)`` is taken over
the points ``x`` with ``Pr(S_{-i} = x − 1) > 0`` (elsewhere ``π*(x − 1, x) = 0`` and (23) imposes
nothing); the term is decreasing in ``ψ``, so the supremum is at the least ``ψ``.

Certified θ and the level.  Adding more Laplace noise never raises the level:
``Lap(θ') = Lap(θ) + Z`` with ``Z ~ (θ/θ')² δ_0 + (1 − (θ/θ')²) Lap(θ')`` for ``θ' >= θ``, so
``X + Lap(θ')`` is a post-processing of ``X + Lap(θ)`` and each likelihood-ratio supremum is
nonincreasing in θ.  For ``θ ∈ [lower, upper]`` the level at the exact θ is therefore proved
``<= ε`` by the level at ``lower`` and proved ``> ε`` by the level at ``upper``.  The same
monotonicity justifies :func:`minimal_theta`, a bisection with certified comparisons for the
smallest θ achieving ε.

:func:`relaxed_condition` checks the relaxed sufficient condition (20),
``Σ_x (e^{|x − x'|/θ} − e^ε) π*(x, x') <= 0`` for every ``x'``, exactly (Lindemann–Weierstrass
decides equality; interval arithmetic the sign otherwise).  It constrains one direction; the
reverse direction is (20) with the roles of the two distributions exchanged.

Budgets must be rational ε > 0 (``0.5``, ``1/2``) so that ``c/ε`` is a rational Laplace scale.

Complexity: the conditionals cost one :func:`pufferfish.models.multiuser.sum_distribution` per protected user;
a level evaluation costs ``O(n)`` interval operations per direction (``n`` support points); the
minimal θ costs ``O(log(1/tol))`` level evaluations.

Example (Figure 1: Table 2 users, user 4 reports 5 or 3; Theorem 1 gives θ = 2/ε):

>>> from pufferfish.models.multiuser import paper_value_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> report = calibrate(paper_value_model(), "ab", parse_budget("1"), minimal=False)
>>> [str(c.theta.coefficient) for c in report.calibrations if c.name == "theorem1"]
['2']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce
from math import lcm

from mpmath import iv
from mpmath.libmp import to_rational

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.multiuser import (PAIR_SETS, MultiUserModel, UserSecretPair, conditional_pair,
                              is_bernoulli, others_sum)
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.numerics.certified import Budget, compare_ratio, interval_precision, rational_interval
from pufferfish.verify.transport.laplace_level import LaplaceRatioBound, laplace_mixture_sup_ratio
from pufferfish.verify.transport.kantorovich import delta_star, transport_plan

PAPER = "001_3a97785a86d61e37.txt"
BITS = 128
"""Working precision (bits) of the interval enclosures of transcendental θ."""
ROOT_TOLERANCE = Fraction(1, 2 ** 40)
"""Relative width at which the certified enclosure of a transcendental θ stops."""
MINIMAL_TOLERANCE = Fraction(1, 2 ** 20)
"""Relative width of the bracket returned by :func:`minimal_theta`."""


# ------------------------------------------------------------------------------------------------
# interval helpers
# ------------------------------------------------------------------------------------------------


def _bounds(interval) -> tuple[Fraction, Fraction]:
    low = Fraction(*to_rational(interval._mpi_[0]))
    high = Fraction(*to_rational(interval._mpi_[1]))
    return low, high


def epsilon_of(budget: Budget) -> Fraction:
    """The rational ε > 0 of a budget (``log(r)`` and ``inf`` budgets are refused)."""
    if budget.infinite or budget.epsilon is None:
        raise UnsupportedError(f"give ε as a rational number such as 0.5 or 1/2 (got {budget.text!r}): "
                               "the calibrated scale c/ε must be rational", "--epsilon")
    if budget.epsilon <= 0:
        raise ModelError(f"ε must be > 0, got {budget.text!r}", "--epsilon")
    return budget.epsilon


def exp_sum_sign(terms: Mapping[Fraction, Fraction], max_bits: int = 1 << 13) -> int | None:
    """The exact sign of ``Σ_t c_t e^t`` (rational ``t``, ``c_t``): 0 iff every collected
    coefficient is 0 (Lindemann–Weierstrass), otherwise decided by interval arithmetic at
    increasing precision; ``None`` if ``max_bits`` do not suffice."""
    collected: dict[Fraction, Fraction] = {}
    for t, c in terms.items():
        collected[t] = collected.get(t, Fraction(0)) + c
    collected = {t: c for t, c in collected.items() if c}
    if not collected:
        return 0
    bits = 64
    while bits <= max_bits:
        with interval_precision(bits):
            total = iv.mpf(0)
            for t, c in collected.items():
                total = total + rational_interval(c) * iv.exp(rational_interval(t))
            if total.a > 0:
                return 1
            if total.b < 0:
                return -1
        bits *= 2
    return None


# ------------------------------------------------------------------------------------------------
# noise scales
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Theta:
    """A Laplace scale θ: exact (``lower == upper``; ``coefficient`` = θ·ε when θ = c/ε) or a
    certified enclosure ``lower <= θ <= upper`` of a transcendental value."""

    lower: Fraction
    upper: Fraction
    coefficient: Fraction | None = None
    root: "RootSpec | None" = field(default=None, repr=False, compare=False)

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @classmethod
    def multiple(cls, coefficient: Fraction, epsilon: Fraction) -> "Theta":
        value = Fraction(coefficient) / epsilon
        return cls(value, value, Fraction(coefficient))

    def text(self) -> str:
        if self.coefficient is not None:
            return f"{fraction_str(self.coefficient)}/ε = {fraction_str(self.lower)}"
        if self.exact:
            return fraction_str(self.lower)
        return f"∈ [{float(self.lower):.12g}, {float(self.upper):.12g}]"

    def to_dict(self, epsilon: Fraction | None = None) -> dict:
        data = {"exact": self.exact, "lower": fraction_str(self.lower),
                "upper": fraction_str(self.upper), "lower_float": float(self.lower),
                "upper_float": float(self.upper)}
        if self.exact:
            data["theta"] = fraction_str(self.lower)
        if self.coefficient is not None:
            data["times_epsilon"] = fraction_str(self.coefficient)
        elif epsilon is not None:
            data["times_epsilon_interval"] = [float(self.lower * epsilon), float(self.upper * epsilon)]
        return data


def _theta_from_interval(interval, root: "RootSpec | None" = None) -> Theta:
    low, high = _bounds(interval)
    return Theta(max(low, Fraction(0)), high, None, root)


@dataclass(frozen=True)
class RootSpec:
    """A transcendental θ given as ``θ = 1/(lattice · log z*)`` where ``z* > 1`` is the unique
    root of ``R(z) = e^ε`` for the increasing rational function ``R = numerator/denominator``
    (integer exponent -> rational coefficient), bracketed by ``z_low < z* < z_high``."""

    lattice: int
    numerator: Mapping[int, Fraction]
    denominator: Mapping[int, Fraction]
    z_low: Fraction
    z_high: Fraction

    def value(self, z: Fraction) -> Fraction:
        return _evaluate(self.numerator, z) / _evaluate(self.denominator, z)

    def refined(self, budget: Budget) -> "RootSpec":
        """The bracket halved (the side is decided by a certified comparison of R(mid) with e^ε)."""
        mid = (self.z_low + self.z_high) / 2
        if compare_ratio(self.value(mid), budget).relation == "above":
            return RootSpec(self.lattice, self.numerator, self.denominator, self.z_low, mid)
        return RootSpec(self.lattice, self.numerator, self.denominator, mid, self.z_high)


def eq13_polynomial(dist: Distribution) -> tuple[int, dict[int, Fraction]]:
    """Equation (13) as a polynomial: ``(L, {k: coefficient})`` with
    ``E[e^{|D|/θ}] = Σ_k coefficient_k z^k`` for ``z = e^{1/(Lθ)}``."""
    scale = reduce(lcm, (Fraction(v).denominator for v in dist.support), 1)
    poly: dict[int, Fraction] = {}
    for v, p in dist.items():
        k = int(abs(Fraction(v)) * scale)
        poly[k] = poly.get(k, Fraction(0)) + p
    return scale, poly


def _evaluate(poly: Mapping[int, Fraction], z: Fraction) -> Fraction:
    return sum((c * z ** k for k, c in poly.items()), Fraction(0))


def eq13_theta(dist: Distribution, budget: Budget, tolerance: Fraction = ROOT_TOLERANCE) -> Theta:
    """The θ of equation (13), ``E_{D~P}[e^{|D|/θ}] = e^ε``, with certified root isolation in
    ``z = e^{1/(Lθ)}`` (module docstring).  θ = 0 when ``D = 0`` almost surely."""
    epsilon_of(budget)
    scale, poly = eq13_polynomial(dist)
    if set(poly) == {0}:
        return Theta(Fraction(0), Fraction(0))

    def above(z: Fraction) -> bool:
        return compare_ratio(_evaluate(poly, z), budget).relation == "above"

    low, high = Fraction(1), Fraction(2)
    while not above(high):
        low, high = high, high * 2
    while True:
        mid = (low + high) / 2
        if above(mid):
            high = mid
        else:
            low = mid
        if low > 1:
            with interval_precision(BITS):
                lo_theta = _bounds(1 / (scale * iv.log(rational_interval(high))))[0]
                hi_theta = _bounds(1 / (scale * iv.log(rational_interval(low))))[1]
            if hi_theta - lo_theta <= tolerance * lo_theta:
                return Theta(lo_theta, hi_theta, None,
                             RootSpec(scale, poly, {0: Fraction(1)}, low, high))


def eq15_theta(p: Fraction, budget: Budget) -> Theta:
    """Equation (15) for ``D ~ Bernoulli(p)``: ``θ = 1/log((e^ε − (1 − p))/p)`` (0 when p = 0)."""
    eps = epsilon_of(budget)
    if p == 0:
        return Theta(Fraction(0), Fraction(0))
    if p == 1:
        return Theta.multiple(Fraction(1), eps)          # 1/log(e^ε) = 1/ε exactly
    with interval_precision(BITS):
        e = iv.exp(rational_interval(eps))
        z = (e - (1 - rational_interval(p))) / rational_interval(p)
        root = RootSpec(1, {0: 1 - p, 1: p}, {0: Fraction(1)}, *_widen(z))
        return _theta_from_interval(1 / iv.log(z), root)


def _widen(z) -> tuple[Fraction, Fraction]:
    low, high = _bounds(z)
    return low * (1 - Fraction(1, 2 ** 100)), high * (1 + Fraction(1, 2 ** 100))


def lemma2_psi_min(p: Fraction, q: Fraction, others: Distribution) -> Fraction | None:
    """``min_x ψ_i(x)`` of Lemma 2 over the points with ``Pr(S_{-i} = x − 1) > 0``
    (``None`` when ``p = q``: the two secrets give the same distribution)."""
    if p == q:
        return None
    best: Fraction | None = None
    for s, before in others.items():
        r = others.prob(s + 1) / before
        psi = ((1 - q) * r + p) / (q - p) if p < q else ((1 - p) * r + q) / (p - q)
        best = psi if best is None or psi < best else best
    return best


def lemma2_theta(psi: Fraction, budget: Budget) -> Theta:
    """``θ = 1/log(e^ε + (e^ε − 1) ψ)`` (equation (21) at the least ψ)."""
    eps = epsilon_of(budget)
    if psi == 0:
        return Theta.multiple(Fraction(1), eps)          # 1/log(e^ε) = 1/ε exactly
    with interval_precision(BITS):
        e = iv.exp(rational_interval(eps))
        z = e + (e - 1) * rational_interval(psi)
        root = RootSpec(1, {0: psi, 1: Fraction(1)}, {0: 1 + psi}, *_widen(z))
        return _theta_from_interval(1 / iv.log(z), root)


# ------------------------------------------------------------------------------------------------
# the actual level of X + Lap(θ)
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ConditionalPair:
    """A non-vacuous pair with the exact conditional distributions of X given each secret."""

    pair: UserSecretPair
    first: Distribution
    second: Distribution


@dataclass(frozen=True)
class DirectionBound:
    pair: str
    first: str
    second: str
    bound: LaplaceRatioBound


@dataclass(frozen=True)
class Level:
    """The certified Pufferfish level of ``X + Lap(scale)`` over a pair set, against ε."""

    scale: Fraction
    ratio_lower: Fraction
    ratio_upper: Fraction
    epsilon_lower: float
    epsilon_upper: float
    relation: str
    witness: DirectionBound | None

    @property
    def holds(self) -> bool | None:
        return None if self.relation == "undecided" else self.relation != "above"

    def to_dict(self) -> dict:
        data = {"scale": fraction_str(self.scale), "ratio": {"lower": fraction_str(self.ratio_lower),
                                                             "upper": fraction_str(self.ratio_upper)},
                "epsilon": {"lower": self.epsilon_lower, "upper": self.epsilon_upper,
                            "certified": True},
                "relation": self.relation, "holds": self.holds}
        if self.witness is not None:
            data["witness"] = {"pair": self.witness.pair,
                               "direction": [self.witness.first, self.witness.second],
                               "output": None if self.witness.bound.witness is None
                               else fraction_str(self.witness.bound.witness)}
        return data

    def text(self) -> str:
        return f"[{self.epsilon_lower:.6f}, {self.epsilon_upper:.6f}]"


def level_at(pairs: Sequence[ConditionalPair], scale: Fraction, budget: Budget) -> Level:
    """The certified level of ``X + Lap(scale)`` (both directions of every pair) against ``budget``."""
    directions: list[DirectionBound] = []
    for cp in pairs:
        for (s1, s2), (d1, d2) in zip(cp.pair.directions(),
                                      ((cp.first, cp.second), (cp.second, cp.first))):
            directions.append(DirectionBound(cp.pair.label, s1.name, s2.name,
                                             laplace_mixture_sup_ratio(d1, d2, scale)))
    if not directions:
        return Level(scale, Fraction(1), Fraction(1), 0.0, 0.0, "below", None)
    relations = [d.bound.compare(budget) for d in directions]
    relation = ("above" if "above" in relations else "undecided" if "undecided" in relations
                else "tight" if "tight" in relations else "below")
    witness = max(directions, key=lambda d: (d.bound.upper, d.bound.lower))
    lower = max(d.bound.lower for d in directions)
    return Level(scale, max(lower, Fraction(1)), max(witness.bound.upper, Fraction(1)),
                 max(0.0, max(d.bound.epsilon_lower for d in directions)),
                 max(0.0, witness.bound.epsilon_upper), relation, witness)


@dataclass(frozen=True)
class ThetaCheck:
    """The level at a (possibly certified) θ: ``level`` at ``θ.lower`` proves ``<= ε`` for the exact
    θ; ``level_upper`` (at ``θ.upper``, computed only when needed) proves ``> ε``."""

    level: Level
    level_upper: Level | None
    relation: str

    @property
    def holds(self) -> bool | None:
        return None if self.relation == "undecided" else self.relation != "above"

    def to_dict(self) -> dict:
        data = {"level": self.level.to_dict(), "relation": self.relation, "holds": self.holds}
        if self.level_upper is not None:
            data["level_at_upper_theta"] = self.level_upper.to_dict()
        return data


def check_theta(pairs: Sequence[ConditionalPair], theta: Theta, budget: Budget,
                cache: dict | None = None) -> ThetaCheck:
    """Decide whether ``X + Lap(θ)`` meets the budget, for an exact or a certified θ."""
    cache = {} if cache is None else cache

    def level(scale: Fraction) -> Level:
        if scale not in cache:
            cache[scale] = level_at(pairs, scale, budget)
        return cache[scale]

    low = level(theta.lower)
    if theta.exact or low.relation in ("below", "tight"):
        return ThetaCheck(low, None, low.relation)
    high = level(theta.upper)
    relation = "above" if high.relation == "above" else "undecided"
    if relation == "undecided" and theta.root is not None:
        relation = decide_at_root(pairs, theta.root, budget)
    return ThetaCheck(low, high, relation)


def decide_at_root(pairs: Sequence[ConditionalPair], root: RootSpec, budget: Budget,
                   refinements: int = 200) -> str:
    """Decide ``X + Lap(θ*)`` against ε *at* the transcendental ``θ* = 1/(lattice · log z*)``.

    With ``Λ`` a common multiple of ``lattice`` and of the denominators of the support lattice and
    ``u = e^{1/(Λθ)}``, at a support point ``w`` (where the supremum is attained, see
    :mod:`pufferfish.verify.transport.laplace_level`) ``2θ (f_1(w) − e^ε f_2(w))`` is ``A(u) − R(u^{Λ/lattice}) B(u)``
    with Laurent polynomials ``A, B`` of rational coefficients, because ``e^ε = R(z*)``.  Cleared
    of denominators this is a polynomial ``P`` with rational coefficients evaluated at ``u*``.
    ``u*`` is transcendental (if it were algebraic, ``e^ε = R(z*)`` would be algebraic, contrary
    to Lindemann's theorem for rational ε ≠ 0), so ``P(u*) = 0`` iff ``P ≡ 0`` (``tight``);
    otherwise the sign is constant on a bracket of ``u*`` free of roots of ``P`` (Sturm count,
    sympy), found by refining the bracket of ``z*``.
    """
    import sympy

    points = {v for cp in pairs for d in (cp.first, cp.second) for v in d.support}
    grid = reduce(lcm, (Fraction(v).denominator for v in points), 1)
    big = lcm(grid, root.lattice)
    power = big // root.lattice
    symbol = sympy.Symbol("u")
    worst = "below"
    for cp in pairs:
        for d1, d2 in ((cp.first, cp.second), (cp.second, cp.first)):
            for w in sorted(set(d1.support) | set(d2.support)):
                a = _exponents(d1, w, big)
                b = _exponents(d2, w, big)
                top = max(max(a), max(b))
                poly: dict[int, Fraction] = {}
                for k, c in a.items():
                    for j, r in root.denominator.items():
                        e = top - k + power * j
                        poly[e] = poly.get(e, Fraction(0)) + c * r
                for k, c in b.items():
                    for j, r in root.numerator.items():
                        e = top - k + power * j
                        poly[e] = poly.get(e, Fraction(0)) - c * r
                poly = {e: c for e, c in poly.items() if c}
                if not poly:
                    worst = "tight" if worst == "below" else worst
                    continue
                sign = _sign_at_root(poly, root, power, budget, refinements, symbol, sympy)
                if sign is None:
                    return "undecided"
                if sign > 0:
                    return "above"
    return worst


def _exponents(dist: Distribution, w: Fraction, big: int) -> dict[int, Fraction]:
    """``{Λ|w − v|: Σ P(v)}`` — the Laplace kernel at ``w`` as a Laurent polynomial in ``u``."""
    out: dict[int, Fraction] = {}
    for v, p in dist.items():
        k = int(big * abs(w - v))
        out[k] = out.get(k, Fraction(0)) + p
    return out


def _sign_at_root(poly, root: RootSpec, power: int, budget: Budget, refinements: int,
                  symbol, sympy) -> int | None:
    """Sign of ``Σ c_e u^e`` at ``u* = z*^{1/power}`` for a polynomial not identically zero."""
    expression = sympy.Poly({(e,): sympy.Rational(c.numerator, c.denominator)
                             for e, c in poly.items()}, symbol)
    spec = root
    for _ in range(refinements):
        with interval_precision(BITS):
            u_low = iv.root(rational_interval(spec.z_low), power) if power > 1 else rational_interval(spec.z_low)
            u_high = iv.root(rational_interval(spec.z_high), power) if power > 1 else rational_interval(spec.z_high)
            low, _ = _bounds(u_low)
            _, high = _bounds(u_high)
        if expression.count_roots(sympy.Rational(low.numerator, low.denominator),
                                  sympy.Rational(high.numerator, high.denominator)) == 0:
            value = sum((c * low ** e for e, c in poly.items()), Fraction(0))
            return (value > 0) - (value < 0)
        spec = spec.refined(budget)
    return None


@dataclass(frozen=True)
class MinimalTheta:
    """``θ_min ∈ (lower, upper]``: ``X + Lap(lower)`` is proved above ε (unless ``lower = 0``),
    ``X + Lap(upper)`` proved at most ε; ``steps`` certified level evaluations."""

    lower: Fraction
    upper: Fraction
    steps: int
    undecided: bool = False

    def to_dict(self, epsilon: Fraction) -> dict:
        return {"lower": fraction_str(self.lower), "upper": fraction_str(self.upper),
                "lower_float": float(self.lower), "upper_float": float(self.upper),
                "times_epsilon": [float(self.lower * epsilon), float(self.upper * epsilon)],
                "steps": self.steps, "undecided_midpoint": self.undecided}


def minimal_theta(pairs: Sequence[ConditionalPair], budget: Budget, start: Fraction | None = None,
                  tolerance: Fraction = MINIMAL_TOLERANCE, cache: dict | None = None) -> MinimalTheta:
    """The smallest θ with level ``<= ε``, bracketed by bisection with certified comparisons
    (valid because the level is nonincreasing in θ; see the module docstring)."""
    epsilon_of(budget)
    cache = {} if cache is None else cache
    steps = 0

    def relation(scale: Fraction) -> str:
        nonlocal steps
        if scale not in cache:
            steps += 1
            cache[scale] = level_at(pairs, scale, budget)
        return cache[scale].relation

    if all(cp.first == cp.second for cp in pairs):
        return MinimalTheta(Fraction(0), Fraction(0), steps)
    high = start if start and start > 0 else Fraction(1)
    for _ in range(200):
        if relation(high) in ("below", "tight"):
            break
        high *= 2
    low = high / 2
    for _ in range(60):
        if relation(low) == "above":
            break
        high, low = low, low / 2
    else:
        return MinimalTheta(Fraction(0), high, steps)
    while high - low > tolerance * high:
        mid = (low + high) / 2
        r = relation(mid)
        if r == "undecided":
            return MinimalTheta(low, high, steps, True)
        if r == "above":
            low = mid
        else:
            high = mid
    return MinimalTheta(low, high, steps)


# ------------------------------------------------------------------------------------------------
# the relaxed sufficient condition (20)
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RelaxedCondition:
    """Equation (20) for ``π*`` of (first, second) at a rational θ: per column ``x'`` the sign of
    ``Σ_x (e^{|x − x'|/θ} − e^ε) π*(x, x')`` (−1, 0, +1, or ``None`` when undecided)."""

    theta: Fraction
    columns: tuple[tuple[Fraction, int | None], ...]

    @property
    def holds(self) -> bool | None:
        signs = [s for _, s in self.columns]
        if any(s == 1 for s in signs):
            return False
        return None if any(s is None for s in signs) else True

    @property
    def worst(self) -> Fraction | None:
        return next((x for x, s in self.columns if s == 1), None)

    def to_dict(self) -> dict:
        return {"theta": fraction_str(self.theta), "holds": self.holds,
                "violated_at": None if self.worst is None else fraction_str(self.worst),
                "columns": [[fraction_str(x), s] for x, s in self.columns]}


def relaxed_condition(first: Mapping, second: Mapping, theta: Fraction, budget: Budget
                      ) -> RelaxedCondition:
    """Check (20) exactly: ``Σ_x (e^{|x−x'|/θ} − e^ε) π*(x, x') <= 0`` for every ``x'`` (this
    bounds ``f(y | first) <= e^ε f(y | second)``; swap the arguments for the other direction)."""
    eps = epsilon_of(budget)
    if theta <= 0:
        raise ModelError("θ must be > 0", "theta")
    plan = transport_plan(first, second)
    columns: dict[Fraction, dict[Fraction, Fraction]] = {}
    for x, x2, m in plan.coupling:
        terms = columns.setdefault(x2, {})
        t = abs(x - x2) / theta
        terms[t] = terms.get(t, Fraction(0)) + m
        terms[eps] = terms.get(eps, Fraction(0)) - m
    return RelaxedCondition(theta, tuple((x2, exp_sum_sign(terms)) for x2, terms in sorted(columns.items())))


# ------------------------------------------------------------------------------------------------
# the calibrators
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Calibration:
    """One calibrator on one pair set: its θ (or why it does not apply) and the actual level."""

    name: str
    source: str
    applicable: bool
    reason: str
    theta: Theta | None = None
    check: ThetaCheck | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self, epsilon: Fraction) -> dict:
        data = {"calibrator": self.name, "source": f"{PAPER} {self.source}",
                "applicable": self.applicable, "reason": self.reason}
        if self.theta is not None:
            data["theta"] = self.theta.to_dict(epsilon)
        if self.check is not None:
            data["actual"] = self.check.to_dict()
        data.update(self.extra)
        return data


CALIBRATORS: dict[str, tuple[str, tuple[str, ...]]] = {
    "proposition1": ("§2, Proposition 1, equation (5)", PAIR_SETS),
    "proposition2": ("Appendix A, Lemma 3, Proposition 2, equation (28)", PAIR_SETS),
    "theorem1": ("§4.1, Theorem 1, equation (10)", ("ab",)),
    "theorem2": ("§4.2, Theorem 2, equation (12)", ("a-absent",)),
    "theorem3_eq14": ("§4.3, Theorem 3, equation (14)", ("P-absent",)),
    "theorem3_eq13": ("§4.3, Theorem 3, equation (13)", ("P-absent",)),
    "eq15": ("§4.3.2, equation (15)", ("P-absent",)),
    "theorem4": ("§4.4, Theorem 4, equations (16)-(17)", ("PQ",)),
    "lemma1": ("§4.4.1, Lemma 1, equation (18)", ("PQ",)),
    "lemma2": ("§4.4.1, Lemma 2, equation (21)", ("PQ",)),
}
"""Calibrator name -> (source in the paper, pair sets it applies to)."""


def pair_conditionals(model: MultiUserModel, pair_set: str, naive: bool = False
                      ) -> tuple[tuple[ConditionalPair, ...], tuple[UserSecretPair, ...]]:
    """The non-vacuous pairs of ``pair_set`` with their exact conditionals, and the vacuous ones."""
    active, vacuous = [], []
    cache: dict[str, Distribution] = {}
    for pair in model.pairs(pair_set):
        if pair.vacuous:
            vacuous.append(pair)
            continue
        user = pair.first.user
        if user not in cache:
            cache[user] = others_sum(model, user, naive)
        first, second = conditional_pair(model, pair, cache[user])
        active.append(ConditionalPair(pair, first, second))
    return tuple(active), tuple(vacuous)


def _max_theta(values: Sequence[Theta]) -> Theta:
    if not values:
        return Theta(Fraction(0), Fraction(0))
    best = max(values, key=lambda t: t.upper)
    if all(t is best or t.upper <= best.lower for t in values):
        return best                     # a unique largest θ: keep its root for exact decisions
    return Theta(max(t.lower for t in values), best.upper)


def _users(pairs: Sequence[ConditionalPair]) -> list[str]:
    return list(dict.fromkeys(cp.pair.first.user for cp in pairs))


def calibrator_theta(name: str, model: MultiUserModel, pair_set: str,
                     pairs: Sequence[ConditionalPair], budget: Budget
                     ) -> tuple[bool, str, Theta | None, dict]:
    """``(applicable, reason, θ, extra)`` of one calibrator (without the level check)."""
    eps = epsilon_of(budget)
    source, sets = CALIBRATORS[name]
    if pair_set not in sets:
        return False, f"applies to the pair sets {list(sets)}", None, {}
    extra: dict = {}
    users = [model.user(u) for u in _users(pairs)]
    if name == "proposition1":
        plans = [transport_plan(cp.first, cp.second) for cp in pairs]
        top = max((p.largest_distance for p in plans), default=Fraction(0))
        extra["largest_transported_distance"] = fraction_str(top)
        extra["w1"] = [fraction_str(p.w1) for p in plans]
        return True, "largest transported distance of the comonotone coupling", \
            Theta.multiple(top, eps), extra
    if name == "proposition2":
        sups = [delta_star(cp.first, cp.second) for cp in pairs]
        top = max((d.supremum for d in sups), default=Fraction(0))
        extra["delta_star"] = [d.to_dict() | {"values": None} for d in sups]
        return True, "sup of Δ* on the lattice of the conditionals' support", \
            Theta.multiple(top, eps), extra
    if name == "theorem1":
        top = max((abs(cp.pair.first.value - cp.pair.second.value) for cp in pairs),
                  default=Fraction(0))
        return True, "max |a − b| over the pairs", Theta.multiple(top, eps), extra
    if name == "theorem2":
        top = max((abs(cp.pair.first.value) for cp in pairs), default=Fraction(0))
        return True, "max |a| over the pairs", Theta.multiple(top, eps), extra
    if name == "theorem3_eq14":
        top = max((abs(t) for u in users for t in u.values), default=Fraction(0))
        return True, "max |t| over the protected users' alphabets", Theta.multiple(top, eps), extra
    if name == "theorem3_eq13":
        thetas = [eq13_theta(u.distribution, budget) for u in users]
        extra["polynomials"] = {u.name: {"z": f"e^(1/({eq13_polynomial(u.distribution)[0]}θ))",
                                         "coefficients": {str(k): fraction_str(c) for k, c in
                                                          sorted(eq13_polynomial(u.distribution)[1].items())}}
                                for u in users}
        return True, "certified root of E[e^{|D|/θ}] = e^ε", _max_theta(thetas), extra
    if name == "eq15":
        if not all(is_bernoulli(u.distribution) for u in users):
            return False, "needs Bernoulli users (values in {0, 1})", None, {}
        thetas = [eq15_theta(u.distribution.prob(Fraction(1)), budget) for u in users]
        return True, "closed form for Bernoulli users", _max_theta(thetas), extra
    if name == "theorem4":
        sups = [delta_star(u.distribution, u.alternative) for u in users]
        top = max((d.supremum for d in sups), default=Fraction(0))
        extra["delta_star"] = {u.name: d.to_dict() for u, d in zip(users, sups)}
        return True, "sup of Δ* on F_P, F_Q (lattice of their support)", \
            Theta.multiple(top, eps), extra
    if name == "lemma1":
        if not all(is_bernoulli(u.distribution) and is_bernoulli(u.alternative) for u in users):
            return False, "needs Bernoulli P_i and Q_i", None, {}
        return True, "θ = 1/ε for Bernoulli users", Theta.multiple(Fraction(1), eps), extra
    if name == "lemma2":
        if not all(is_bernoulli(u.distribution) and is_bernoulli(u.alternative) for u in users):
            return False, "needs Bernoulli P_i and Q_i", None, {}
        thetas, psis = [], {}
        for u in users:
            psi = lemma2_psi_min(u.distribution.prob(Fraction(1)), u.alternative.prob(Fraction(1)),
                                 others_sum(model, u.name))
            psis[u.name] = None if psi is None else fraction_str(psi)
            if psi is not None:
                thetas.append(lemma2_theta(psi, budget))
        extra["psi_min"] = psis
        return True, "relaxed condition (20) for Bernoulli users", _max_theta(thetas), extra
    raise ModelError(f"unknown calibrator {name!r}; the calibrators are {list(CALIBRATORS)}",
                     "calibrator")


@dataclass(frozen=True)
class MultiUserCalibration:
    """Every calibrator on one pair set, each θ's actual level, and the minimal θ."""

    pair_set: str
    budget: Budget
    epsilon: Fraction
    others: str
    pairs: tuple[ConditionalPair, ...]
    vacuous: tuple[UserSecretPair, ...]
    calibrations: tuple[Calibration, ...]
    minimal: MinimalTheta | None
    relaxed: dict = field(default_factory=dict)

    @property
    def holds(self) -> bool | None:
        """Whether every applicable calibrator's θ achieves ε (``None`` if one is undecided)."""
        checks = [c.check.holds for c in self.calibrations if c.check is not None]
        if any(h is False for h in checks):
            return False
        return None if any(h is None for h in checks) else True

    def calibration(self, name: str) -> Calibration:
        return next(c for c in self.calibrations if c.name == name)

    def to_dict(self) -> dict:
        data = {"check": "multiuser_calibration", "paper": PAPER, "pair_set": self.pair_set,
                "budget": self.budget.text, "others": self.others, "holds": self.holds,
                "pairs": [{"pair": cp.pair.label,
                           "x_given_first": [[fraction_str(v), fraction_str(p)] for v, p in sorted(cp.first.items())],
                           "x_given_second": [[fraction_str(v), fraction_str(p)] for v, p in sorted(cp.second.items())]}
                          for cp in self.pairs],
                "vacuous_pairs": [{"pair": p.label, "reason": "a secret has prior probability 0"}
                                  for p in self.vacuous],
                "calibrations": [c.to_dict(self.epsilon) for c in self.calibrations],
                "minimal_theta": None if self.minimal is None else self.minimal.to_dict(self.epsilon)}
        if self.relaxed:
            data["relaxed_condition_20"] = self.relaxed
        return data

    def explain(self) -> str:
        lines = []
        for c in self.calibrations:
            if c.applicable and c.check is not None:
                lines.append(f"{c.name}: θ {c.theta.text()}, actual level ε ∈ {c.check.level.text()} "
                             f"({c.check.relation})")
        if self.minimal is not None:
            lines.append(f"minimal θ ∈ ({float(self.minimal.lower):.10g}, {float(self.minimal.upper):.10g}]")
        return "\n".join(lines)


def calibrate(model: MultiUserModel, pair_set: str, budget: Budget, minimal: bool = True,
              names: Sequence[str] | None = None, naive: bool = False,
              progress: Callable[[str], None] | None = None) -> MultiUserCalibration:
    """Every calibrator of ``pair_set`` with its θ and the certified actual level of
    ``X + Lap(θ)``; with ``minimal`` also the smallest θ achieving ε (bisection)."""
    eps = epsilon_of(budget)
    pairs, vacuous = pair_conditionals(model, pair_set, naive)
    cache: dict = {}
    calibrations = []
    for name in names or CALIBRATORS:
        if progress:
            progress(name)
        applicable, reason, theta, extra = calibrator_theta(name, model, pair_set, pairs, budget)
        if not applicable:
            if pair_set in CALIBRATORS[name][1]:
                calibrations.append(Calibration(name, CALIBRATORS[name][0], False, reason))
            continue
        check = check_theta(pairs, theta, budget, cache)
        calibrations.append(Calibration(name, CALIBRATORS[name][0], True, reason, theta, check, extra))
    relaxed = {}
    lemma2 = next((c for c in calibrations if c.name == "lemma2" and c.applicable), None)
    if lemma2 is not None and lemma2.theta.upper > 0:
        for cp in pairs:
            forward = relaxed_condition(cp.first, cp.second, lemma2.theta.lower, budget)
            backward = relaxed_condition(cp.second, cp.first, lemma2.theta.lower, budget)
            relaxed[cp.pair.label] = {"theta": "lemma2 lower bound",
                                      "forward": forward.to_dict(), "backward": backward.to_dict()}
    best = None
    if minimal:
        start = max((c.theta.upper for c in calibrations if c.theta is not None), default=None)
        best = minimal_theta(pairs, budget, start, cache=cache)
    return MultiUserCalibration(pair_set, budget, eps, model.others, pairs, vacuous,
                                tuple(calibrations), best, relaxed)
