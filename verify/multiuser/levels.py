"""The certified Pufferfish level of ``X + Lap(θ)`` over a pair set, and the smallest θ that
achieves ε (Ding et al., Multi-user Pufferfish Privacy, §2.1, equation (1); §4).

The level is the log of ``sup_y f(y | s)/f(y | s')`` over all real outputs ``y`` and both
directions of every non-vacuous pair, each supremum computed exactly-or-certified by
:func:`pufferfish.verify.transport.laplace_level.laplace_mixture_sup_ratio`.

Monotonicity.  Adding more Laplace noise never raises the level:
``Lap(θ') = Lap(θ) + Z`` with ``Z ~ (θ/θ')² δ_0 + (1 − (θ/θ')²) Lap(θ')`` for ``θ' >= θ``, so
``X + Lap(θ')`` is a post-processing of ``X + Lap(θ)`` and each likelihood-ratio supremum is
nonincreasing in θ.  Hence, for a certified ``θ ∈ [lower, upper]`` (:class:`~pufferfish.verify.multiuser.thetas.Theta`),
the level at the exact θ is proved ``<= ε`` by the level at ``lower`` and proved ``> ε`` by the
level at ``upper`` (:func:`check_theta`); when neither decides, :func:`decide_at_root` decides at
the transcendental θ itself.  The same monotonicity justifies :func:`minimal_theta`, a bisection
with certified comparisons for the smallest θ achieving ε.

Complexity: a level evaluation costs ``O(n)`` interval operations per direction (``n`` support
points); the minimal θ costs ``O(log(1/tolerance))`` level evaluations.

>>> from fractions import Fraction
>>> from pufferfish.models.multiuser import MultiUserModel, User, bernoulli
>>> from pufferfish.verify.multiuser.pairs import pair_conditionals
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> model = MultiUserModel((User("o", distribution=bernoulli(Fraction(1, 2))),
...                         User("i", distribution=bernoulli(Fraction(1, 4)))), ("i",))
>>> pairs, _ = pair_conditionals(model, "ab")
>>> level_at(pairs, Fraction(1), parse_budget("1")).relation    # a shift by 1 with θ = 1/ε
'tight'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import reduce
from itertools import product
from math import lcm, prod

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.multiuser import MultiUserModel
from pufferfish.models.numbers import fraction_str
from pufferfish.models.priors import IntervalBlock
from pufferfish.verify.multiuser.pairs import ConditionalPair, pair_conditionals
from pufferfish.verify.multiuser.thetas import BITS, RootSpec, Theta, epsilon_of
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import (endpoints, interval_context, log_interval,
                                                  rational_interval)
from pufferfish.verify.transport.family_vertices import block_mass_vertices
from pufferfish.verify.transport.laplace_level import LaplaceRatioBound, laplace_mixture_sup_ratio

MINIMAL_TOLERANCE = Fraction(1, 2 ** 20)
"""Relative width of the bracket returned by :func:`minimal_theta`."""


@dataclass(frozen=True)
class DirectionBound:
    """The certified supremum of the density ratio for one direction of one secret pair."""

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
    context = interval_context(BITS)
    for _ in range(refinements):
        low, _ = endpoints(_root_interval(context, spec.z_low, power))
        _, high = endpoints(_root_interval(context, spec.z_high, power))
        if expression.count_roots(sympy.Rational(low.numerator, low.denominator),
                                  sympy.Rational(high.numerator, high.denominator)) == 0:
            value = sum((c * low ** e for e, c in poly.items()), Fraction(0))
            return (value > 0) - (value < 0)
        spec = spec.refined(budget)
    return None


def _root_interval(context, z: Fraction, power: int):
    """An enclosure of ``z^{1/power}`` for a rational ``z > 0`` (``exp(log z / power)``)."""
    if power == 1:
        return rational_interval(context, z)
    return context.exp(log_interval(context, z) / power)


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


def interval_family_level(model: MultiUserModel, intervals: Mapping[str, Mapping[Fraction, tuple]],
                          pair_set: str, scale: Fraction, budget: Budget,
                          limit: int = 10_000) -> Level:
    """The certified level of ``X + Lap(scale)`` over a *family* of user distributions.

    ``intervals[user]`` maps each value ``v`` to ``(low, high)``: the user's distribution ranges
    over every ``P`` with ``low <= P(v) <= high`` (the interval family of
    Bai et al., Composition for Pufferfish Privacy, Example 4.3 with one block per value),
    independently per user.

    **The extreme-member argument.**  For a fixed output ``y`` each density ``f(y | s)`` of the
    aggregate is affine in each user's distribution separately (a convolution over users), so
    ``f(y|s)/f(y|s')`` is a linear-fractional function of one user's distribution when the others
    are fixed: it is quasi-linear, and its maximum over that user's polytope sits at a vertex
    (:func:`~pufferfish.verify.transport.family_vertices.block_mass_vertices`).  Fixing users one
    at a time, the supremum over the product of polytopes is attained with every user at a vertex,
    and the supremum over ``y`` commutes with the finite maximum.  So the level over the whole
    family is the largest level among the vertex models — exact up to the certified intervals of
    :func:`level_at`.  A pair whose secret has probability 0 at a vertex imposes nothing there.

    Cost: ``Π_users (vertices)`` level evaluations (refused beyond ``limit``).

    >>> from pufferfish.models.multiuser import User, bernoulli
    >>> from pufferfish.verify.numerics.certified import parse_budget
    >>> model = MultiUserModel((User("o", distribution=bernoulli(Fraction(1, 2))),
    ...                         User("i", distribution=bernoulli(Fraction(1, 4)))), ("i",))
    >>> q = Fraction
    >>> box = {"o": {q(0): (q(1, 4), q(3, 4)), q(1): (q(1, 4), q(3, 4))}}
    >>> interval_family_level(model, box, "ab", q(1), parse_budget("1")).relation
    'tight'
    """
    choices = []
    for user in model.users:
        bounds = intervals.get(user.name)
        if bounds is None:
            choices.append([user])
            continue
        values = list(bounds)
        blocks = tuple(IntervalBlock(((v,),), Fraction(bounds[v][0]), Fraction(bounds[v][1]))
                       for v in values)
        vertices = block_mass_vertices(blocks)
        if not vertices:
            raise ModelError("no distribution meets the intervals (need lower sum <= 1 <= upper "
                             "sum, each 0 <= low <= high <= 1)", f"intervals.{user.name}")
        choices.append([replace(user, distribution=Distribution(
            {v: m for v, m in zip(values, masses) if m})) for masses in vertices])
    unknown = set(intervals) - {u.name for u in model.users}
    if unknown:
        raise ModelError(f"unknown users {sorted(unknown)}", "intervals")
    if prod(len(c) for c in choices) > limit:
        raise TooLargeError(f"the family has more than {limit:,} vertex models", "intervals")
    levels = [level_at(pair_conditionals(MultiUserModel(tuple(users), model.targets, model.others,
                                                        model.description), pair_set)[0],
                       scale, budget)
              for users in product(*choices)]
    relations = [lv.relation for lv in levels]
    relation = ("above" if "above" in relations else "undecided" if "undecided" in relations
                else "tight" if "tight" in relations else "below")
    worst = max(levels, key=lambda lv: (lv.ratio_upper, lv.ratio_lower))
    return Level(scale, max(lv.ratio_lower for lv in levels), worst.ratio_upper,
                 max(lv.epsilon_lower for lv in levels), worst.epsilon_upper, relation,
                 worst.witness)
