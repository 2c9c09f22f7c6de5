"""The decomposable statistic a mechanism reads, packed into one non-negative integer code.

A mechanism's output law depends on the dataset only through its
:meth:`~pufferfish.models.mechanisms.Mechanism.kernel_key`.  For the mechanisms below that key is a
function of a few *components*, each decomposable over the attributes:

* an **additive** component ``S(D) = Σ_v w_v(D_v)`` with integer weights — a ``sum`` query
  (``w_v(x) = x``), a ``count`` (``w_v(x) = [x = value]``), a ``parity`` (the sum, read mod 2);
* a **values** component ``(D_v)_{v ∈ P}`` for a few positions ``P`` — an ``identity`` or
  ``attribute`` query, per-entry randomized response, a program that ``reads`` a few attributes.

A composition, repetition or post-processing reads the union of its parts' components.  The
components are packed into one integer ``code(D) = Σ_v c_v(D_v)`` in mixed radix (a values
component is the index of the value tuple; an additive one is shifted to start at 0), so that the
whole statistic is additive: ``z^{code(D)} = Π_v z^{c_v(D_v)}``.  That is what lets
:mod:`~pufferfish.verify.structured.elimination` carry it through sum-product as the exponent of a
polynomial.  The number of codes is the product of the components' ranges, bounded by
``max_codes``.

This is the "decomposable statistic" of the structured-inference view of Pufferfish audits: for a
Markov chain or Bayesian network prior (Wang et al., Privacy-Preserving Analysis of Correlated
Data, §4), ``Pr[ω | s, θ] = Σ_k Pr[statistic = k | s, θ] · Pr[M = ω | statistic = k]``.

>>> from fractions import Fraction
>>> from pufferfish.models.universe import Universe
>>> from pufferfish.models.mechanisms import GeometricNoise, Query, QueryMechanism
>>> u = Universe.product(["a", "b", "c"], [[0, 1]] * 3)
>>> total = QueryMechanism("sum", u, Query("sum", u), GeometricNoise(Fraction(1, 2), 0, 3))
>>> stat = statistic_of(total, u)
>>> stat.codes, stat.weight(0, 1), stat.key(2)
(4, 1, 2)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import TooLargeError, UnsupportedError
from pufferfish.models.mechanisms import (Composition, Mechanism, PostProcessed, Query,
                                          QueryMechanism, RandomizedResponse, Repeated)
from pufferfish.models.programs.mechanism import ProgramMechanism
from pufferfish.models.universe import Universe

DEFAULT_MAX_CODES = 10**6
"""The most values a packed statistic may take (the length of the polynomials carried)."""


@dataclass(frozen=True)
class Additive:
    """``S(D) = Σ_{v ∈ positions} weights[k][D_v]`` (``k`` the index of ``v`` in ``positions``)."""

    positions: tuple[int, ...]
    weights: tuple[tuple[tuple[Hashable, int], ...], ...]

    def bounds(self) -> tuple[int, int]:
        """The least and largest value of ``S`` over the product of the domains."""
        low = sum(min(w for _, w in row) for row in self.weights)
        high = sum(max(w for _, w in row) for row in self.weights)
        return low, high


@dataclass(frozen=True)
class Values:
    """The tuple of values ``(D_v)_{v ∈ positions}``."""

    positions: tuple[int, ...]


Component = Additive | Values


@dataclass(frozen=True)
class Statistic:
    """Components packed into one code, and the mechanism's kernel key as a function of it.

    ``weight(v, x)`` is the contribution of ``D_v = x`` to the code; ``codes`` the number of
    codes (the code of every dataset is in ``range(codes)``); ``key(code)`` the kernel key of
    every dataset with that code.
    """

    universe: Universe
    components: tuple[Component, ...]
    radices: tuple[int, ...]
    offsets: tuple[int, ...]
    ranges: tuple[int, ...]
    key_of_parts: Callable[[tuple], Hashable]

    @property
    def codes(self) -> int:
        total = 1
        for size in self.ranges:
            total *= size
        return total

    @property
    def positions(self) -> frozenset[int]:
        """The attributes the statistic reads."""
        return frozenset(v for c in self.components for v in c.positions)

    def weight(self, position: int, value: Hashable) -> int:
        """The contribution of ``D_position = value`` to the code."""
        total = 0
        for component, radix in zip(self.components, self.radices):
            if position not in component.positions:
                continue
            k = component.positions.index(position)
            if isinstance(component, Values):
                domain = self.universe.domains
                stride = 1
                for earlier in component.positions[:k]:
                    stride *= len(domain[earlier])
                total += radix * stride * domain[position].index(value)
            else:
                total += radix * dict(component.weights[k])[value]
        return total

    def parts(self, code: int) -> tuple:
        """The components' values of a code (a values component as its tuple of values)."""
        parts = []
        for component, radix, offset, size in zip(self.components, self.radices, self.offsets,
                                                  self.ranges):
            digit = (code // radix) % size
            if isinstance(component, Values):
                values = []
                for position in component.positions:
                    domain = self.universe.domains[position]
                    values.append(domain[digit % len(domain)])
                    digit //= len(domain)
                parts.append(tuple(values))
            else:
                parts.append(digit + offset)
        return tuple(parts)

    def key(self, code: int) -> Hashable:
        """The kernel key of the datasets with this code."""
        return self.key_of_parts(self.parts(code))


def statistic_of(mechanism: Mechanism, universe: Universe,
                 max_codes: int = DEFAULT_MAX_CODES) -> Statistic:
    """The packed statistic ``mechanism``'s kernel key is a function of.

    Raises :class:`UnsupportedError` (with the reason) for a mechanism whose key is not such a
    function — a table or Python-function mechanism, a program that reads every attribute, a sum
    of non-integer values — and :class:`TooLargeError` when the statistic has more than
    ``max_codes`` values.  Cost: ``O(Σ |domain|)`` over the attributes read.
    """
    if universe.explicit is not None:
        raise UnsupportedError("the universe is an explicit list of datasets, not a product of "
                               "domains", "datasets")
    components: list[Component] = []

    def index_of(component: Component) -> int:
        if component not in components:
            components.append(component)
        return components.index(component)

    key_function = _key_function(mechanism, universe, index_of)
    ranges, offsets = [], []
    for component in components:
        if isinstance(component, Values):
            size = 1
            for position in component.positions:
                size *= len(universe.domains[position])
            ranges.append(size)
            offsets.append(0)
        else:
            low, high = component.bounds()
            ranges.append(high - low + 1)
            offsets.append(low)
    radices, total = [], 1
    for size in ranges:
        radices.append(total)
        total *= size
        if total > max_codes:
            raise TooLargeError(f"mechanism {mechanism.name!r} reads a statistic of more than "
                                f"{max_codes:,} values", f"mechanisms.{mechanism.name}")
    # an additive component's code digit is S - low: shift every position's weights by its min
    shifted = []
    for component in components:
        if isinstance(component, Additive):
            rows = tuple(tuple((x, w - min(v for _, v in row)) for x, w in row)
                         for row in component.weights)
            shifted.append(Additive(component.positions, rows))
        else:
            shifted.append(component)
    return Statistic(universe, tuple(shifted), tuple(radices), tuple(offsets), tuple(ranges),
                     key_function)


def _key_function(mechanism: Mechanism, universe: Universe,
                  index_of: Callable[[Component], int]) -> Callable[[tuple], Hashable]:
    """The mechanism's kernel key as a function of the components' values (registering the
    components it reads with ``index_of``)."""
    if isinstance(mechanism, QueryMechanism):
        return _query_key(mechanism.query, universe, index_of)
    if isinstance(mechanism, RandomizedResponse):
        k = index_of(Values(mechanism.positions))
        return lambda parts: parts[k]
    if isinstance(mechanism, ProgramMechanism):
        if mechanism.reads is None:
            raise UnsupportedError(f"program {mechanism.name!r} reads every attribute; name the "
                                   f"few it reads with \"reads\"", f"mechanisms.{mechanism.name}")
        k = index_of(Values(mechanism.reads))
        return lambda parts: parts[k]
    if isinstance(mechanism, Repeated | PostProcessed):
        return _key_function(mechanism.base, universe, index_of)
    if isinstance(mechanism, Composition):
        functions = [_key_function(m, universe, index_of) for m in mechanism.mechanisms]
        return lambda parts: tuple(f(parts) for f in functions)
    raise UnsupportedError(f"mechanism {mechanism.name!r} ({type(mechanism).__name__}) is not "
                           f"known to read a decomposable statistic", f"mechanisms.{mechanism.name}")


def _query_key(query: Query, universe: Universe,
               index_of: Callable[[Component], int]) -> Callable[[tuple], Hashable]:
    positions = query.positions
    if query.kind in ("identity", "attribute"):
        k = index_of(Values(positions))
        return (lambda parts: parts[k]) if query.kind == "identity" else (lambda parts: parts[k][0])
    rows = []
    for position in positions:
        row = []
        for value in universe.domains[position]:
            if query.kind == "count":
                row.append((value, int(value == query.value)))
            elif isinstance(value, Fraction) and value.denominator != 1:
                raise UnsupportedError(f"the {query.kind} query adds non-integer values "
                                       f"({value}) of attribute {universe.attributes[position]!r}",
                                       "mechanisms")
            else:
                row.append((value, int(value)))
        rows.append(tuple(row))
    k = index_of(Additive(tuple(positions), tuple(rows)))
    if query.kind == "parity":
        return lambda parts: parts[k] % 2
    return lambda parts: parts[k]


def part_reads(mechanism: Composition, universe: Universe) -> list[tuple[int, ...]]:
    """For each mechanism a composition runs (``repeat(k)``: its base ``k`` times), the indices
    into ``statistic_of(mechanism).components`` of the components it reads, in the order of that
    part's own statistic (``statistic_of(part).components[k]`` is the composition's component
    ``part_reads(...)[i][k]``).  Cost: ``O(Σ |domain|)`` per part.

    >>> from pufferfish.models.universe import Universe
    >>> from pufferfish.models.mechanisms import Query, QueryMechanism, compose
    >>> u = Universe.product(["a", "b", "c"], [[0, 1]] * 3)
    >>> first = QueryMechanism("first", u, Query("count", u, ["a", "b"]))
    >>> total = QueryMechanism("total", u, Query("sum", u))
    >>> part_reads(compose([total, first, total]), u)
    [(0,), (1,), (0,)]
    """
    components: list[Component] = []

    def index_of(component: Component) -> int:
        if component not in components:
            components.append(component)
        return components.index(component)

    reads = []
    for part in mechanism.mechanisms:
        seen: list[int] = []

        def recording(component: Component) -> int:
            k = index_of(component)
            if k not in seen:
                seen.append(k)
            return k

        _key_function(part, universe, recording)
        reads.append(tuple(seen))
    return reads


def packed_weights(statistic: Statistic) -> list[dict[Hashable, int]]:
    """``weights[v][x]``: the code contribution of ``D_v = x`` (:meth:`Statistic.weight`) for
    every attribute ``v`` (all zero for an attribute the statistic does not read), in one pass
    over the components: ``O(Σ |domain|)``."""
    domains = statistic.universe.domains
    weights = [dict.fromkeys(domain, 0) for domain in domains]
    for component, radix in zip(statistic.components, statistic.radices):
        if isinstance(component, Values):
            stride = radix
            for v in component.positions:
                row = weights[v]
                for index, value in enumerate(domains[v]):
                    row[value] += stride * index
                stride *= len(domains[v])
        else:
            for v, pairs in zip(component.positions, component.weights):
                row = weights[v]
                for value, weight in pairs:
                    row[value] += radix * weight
    return weights


__all__ = ["Additive", "Values", "Statistic", "statistic_of", "part_reads", "packed_weights",
           "DEFAULT_MAX_CODES"]
