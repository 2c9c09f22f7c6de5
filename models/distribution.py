"""Finite probability distributions with exact rational probabilities.

A :class:`Distribution` maps hashable outcomes to positive :class:`Fraction` probabilities that sum
to exactly 1.  Outcomes of probability zero are not stored: ``prob`` returns 0 for them and they
are not in the ``support``.  All operations (conditioning, push-forward, marginals, products,
mixtures) are exact.

Outcomes are held as canonical values (:func:`pufferfish.models.values.canonical_value`): ``True``
and ``1`` are two outcomes, as they are two JSON values, and every lookup canonicalises its
argument the same way.

>>> Distribution([(True, "1/2"), (1, "1/2")]).support
(true, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from itertools import product as cartesian

from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.values import canonical_value

Outcome = Hashable


class Distribution(Mapping):
    """An exact finite distribution (immutable, hashable by value).

    >>> d = Distribution({0: "1/4", 1: "3/4"})
    >>> d.prob(1), d.support
    (Fraction(3, 4), (0, 1))
    >>> d.push_forward(lambda x: 1 - x).prob(0)
    Fraction(3, 4)
    """

    __slots__ = ("_probs", "_hash")

    def __init__(self, probabilities: Mapping[Outcome, object] | Iterable[tuple[Outcome, object]],
                 path: str = "") -> None:
        items = probabilities.items() if isinstance(probabilities, Mapping) else probabilities
        probs: dict[Outcome, Fraction] = {}
        for raw_outcome, value in items:
            outcome = canonical_value(raw_outcome, join_path(path, _key_text(raw_outcome)))
            p = exact(value, join_path(path, _key_text(outcome)))
            if p < 0:
                raise ModelError(f"probability {fraction_str(p)} is negative",
                                 join_path(path, _key_text(outcome)))
            if p:
                probs[outcome] = probs.get(outcome, Fraction(0)) + p
        total = sum(probs.values(), Fraction(0))
        if total != 1:
            raise ModelError(f"probabilities sum to {fraction_str(total)}, must sum to 1", path)
        self._probs = probs
        self._hash: int | None = None

    @classmethod
    def _trusted(cls, probs: dict[Outcome, Fraction]) -> "Distribution":
        """Build from positive Fractions already known to sum to 1, keyed by canonical values (no
        validation: callers pass outcomes that are canonical by construction)."""
        dist = cls.__new__(cls)
        dist._probs = probs
        dist._hash = None
        return dist

    @classmethod
    def point(cls, outcome: Outcome) -> "Distribution":
        """The distribution that puts all mass on ``outcome``."""
        return cls._trusted({canonical_value(outcome): Fraction(1)})

    @classmethod
    def uniform(cls, outcomes: Iterable[Outcome]) -> "Distribution":
        """The uniform distribution over the distinct ``outcomes`` (at least one)."""
        distinct = list(dict.fromkeys(canonical_value(o) for o in outcomes))
        if not distinct:
            raise ModelError("a uniform distribution needs at least one outcome")
        share = Fraction(1, len(distinct))
        return cls._trusted({o: share for o in distinct})

    @classmethod
    def mixture(cls, weighted: Iterable[tuple[Fraction, "Distribution"]]) -> "Distribution":
        """The convex combination ``sum_i w_i * D_i``; the weights must sum to 1."""
        probs: dict[Outcome, Fraction] = {}
        total_weight = Fraction(0)
        for weight, dist in weighted:
            total_weight += weight
            if not weight:
                continue
            for outcome, p in dist._probs.items():
                probs[outcome] = probs.get(outcome, Fraction(0)) + weight * p
        if total_weight != 1:
            raise ModelError(f"mixture weights sum to {fraction_str(total_weight)}, must sum to 1")
        return cls._trusted(probs)

    # Mapping protocol: outcome -> probability, over the support only.
    def __getitem__(self, outcome: Outcome) -> Fraction:
        return self._probs[canonical_value(outcome)]

    def __contains__(self, outcome: object) -> bool:
        try:
            return canonical_value(outcome) in self._probs
        except ModelError:
            return False

    def __iter__(self) -> Iterator[Outcome]:
        return iter(self._probs)

    def __len__(self) -> int:
        return len(self._probs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Distribution):
            return self._probs == other._probs
        return NotImplemented

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._probs.items()))
        return self._hash

    def __repr__(self) -> str:
        inner = ", ".join(f"{o!r}: {fraction_str(p)}" for o, p in self._probs.items())
        return f"Distribution({{{inner}}})"

    def prob(self, outcome: Outcome) -> Fraction:
        """``Pr[outcome]``, zero outside the support."""
        return self._probs.get(canonical_value(outcome), Fraction(0))

    @property
    def support(self) -> tuple[Outcome, ...]:
        """The outcomes of positive probability, in insertion order."""
        return tuple(self._probs)

    def mass(self, event: Callable[[Outcome], bool]) -> Fraction:
        """``Pr[event]`` for a predicate on outcomes."""
        return sum((p for o, p in self._probs.items() if event(o)), Fraction(0))

    def condition(self, event: Callable[[Outcome], bool]) -> "Distribution":
        """The conditional distribution given ``event``; raises if ``Pr[event] = 0``."""
        kept = {o: p for o, p in self._probs.items() if event(o)}
        total = sum(kept.values(), Fraction(0))
        if total == 0:
            raise ModelError("cannot condition on an event of probability 0")
        return Distribution._trusted({o: p / total for o, p in kept.items()})

    def push_forward(self, function: Callable[[Outcome], Outcome]) -> "Distribution":
        """The distribution of ``function(X)`` for ``X`` drawn from this distribution."""
        probs: dict[Outcome, Fraction] = {}
        for outcome, p in self._probs.items():
            image = canonical_value(function(outcome))
            probs[image] = probs.get(image, Fraction(0)) + p
        return Distribution._trusted(probs)

    def marginal(self, indices: int | Iterable[int]) -> "Distribution":
        """Marginal of tuple-valued outcomes on one index or a tuple of indices."""
        if isinstance(indices, int):
            position = indices
            return self.push_forward(lambda outcome: outcome[position])
        positions = tuple(indices)
        return self.push_forward(lambda outcome: tuple(outcome[i] for i in positions))

    def product(self, *others: "Distribution") -> "Distribution":
        """The independent product; outcomes are tuples ``(x, y, ...)``."""
        return product_distribution((self, *others))

    def expectation(self, function: Callable[[Outcome], Fraction]) -> Fraction:
        """``E[function(X)]`` exactly."""
        return sum((p * function(o) for o, p in self._probs.items()), Fraction(0))

    def to_pairs(self) -> list[list]:
        """``[[outcome, "p"], ...]`` for JSON output."""
        return [[o, fraction_str(p)] for o, p in self._probs.items()]


def product_distribution(factors: Iterable[Distribution]) -> Distribution:
    """The independent product of ``factors``; outcomes are tuples, one entry per factor.

    The support has the product of the factors' support sizes: callers bound it.
    """
    factors = tuple(factors)
    probs: dict[Outcome, Fraction] = {}
    for combination in cartesian(*(f._probs.items() for f in factors)):
        p = Fraction(1)
        for _, q in combination:
            p *= q
        probs[tuple(o for o, _ in combination)] = p
    return Distribution._trusted(probs)


def _key_text(outcome: Outcome) -> str:
    return str(outcome)
