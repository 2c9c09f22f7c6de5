"""Priors over datasets and prior families Θ (Bai et al., Composition for Pufferfish Privacy, §2, §4
Example 4.3).

A prior θ is a distribution over the universe 𝒰.  Four kinds are built in:

* :class:`TablePrior` — an explicit list of ``(dataset, probability)``;
* :class:`IndependentPrior` — attributes independent, one marginal per attribute;
* :class:`MarkovPrior` — a Markov chain over the attributes in order: an initial distribution for
  the first attribute and a transition kernel for each step (the same one for a homogeneous chain);
* :class:`UniformPrior` — uniform over the universe.

Structured priors compute ``Pr[D | θ]`` without enumerating 𝒰, so a chain over thousands of
attributes loads at once; :meth:`Prior.support` enumerates only when a computation needs it, and
refuses (with the size) beyond the dataset limit.

A prior *family* is a finite set of named priors plus, optionally, :class:`IntervalFamily` members:
the infinite families of Example 4.3, where for each secret its datasets are split into blocks, the
conditional mass ``Pr[block | s, θ]`` of each block ranges over an interval, and ``θ(·|s)`` is any
distribution meeting those intervals.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product as cartesian
from math import lcm, prod

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError, join_path
from pufferfish.models.numbers import fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe, Value


class Prior(ABC):
    """A prior θ over datasets: ``probability(D) = Pr[Data = D | θ]``."""

    name: str

    @abstractmethod
    def probability(self, dataset: Dataset) -> Fraction:
        """``Pr[Data = dataset | θ]``."""

    @abstractmethod
    def support_bound(self) -> int:
        """An upper bound on the number of datasets of positive probability (no enumeration)."""

    @abstractmethod
    def _support(self) -> Iterator[tuple[Dataset, Fraction]]:
        """Every dataset of positive probability with its probability."""

    def support(self, limit: int = DEFAULT_MAX_DATASETS) -> Iterator[tuple[Dataset, Fraction]]:
        """Enumerate ``(D, Pr[D | θ])`` over the support, refusing beyond ``limit`` datasets."""
        self.require_support_within(limit)
        return self._support()

    def require_support_within(self, limit: int = DEFAULT_MAX_DATASETS) -> None:
        """Raise :class:`TooLargeError` when the support may have more than ``limit`` datasets."""
        bound = self.support_bound()
        if bound > limit:
            raise TooLargeError(
                f"prior {self.name!r} may give positive probability to {bound:,} datasets, more "
                f"than the limit of {limit:,}; raise it with --max-datasets",
                join_path("priors", self.name))

    def prefix_blocks(self, depth: int) -> list[tuple[tuple, Fraction]]:
        """Blocks that partition the support for work split across tasks: ``(prefix, Pr[prefix])``
        for the values of the first ``depth`` attributes, in enumeration order, so that
        concatenating :meth:`support_under` over the blocks gives :meth:`support` in its order.
        Priors without a product or chain structure give one block, the whole support."""
        return [((), Fraction(1))]

    def block_bound(self, depth: int) -> int:
        """An upper bound on the datasets of positive probability in any one block of
        :meth:`prefix_blocks` at ``depth`` (no enumeration); the whole support's bound for priors
        that are not split."""
        return self.support_bound()

    def support_under(self, prefix: tuple, probability: Fraction) -> Iterator[tuple[Dataset, Fraction]]:
        """The part of the support whose datasets start with ``prefix`` (a block from
        :meth:`prefix_blocks`), in enumeration order."""
        if prefix:
            raise ValueError(f"prior {self.name!r} is not split into blocks")
        return self._support()

    def scaled_support_under(self, prefix: tuple, probability: Fraction
                             ) -> tuple[int, Iterator[tuple[Dataset, int]]]:
        """:meth:`support_under` with integer weights: ``(denominator, [(D, w), ...])`` with
        ``w / denominator = Pr[D | θ]`` and one denominator for the whole block (so sums over the
        block are integer sums).  Product and chain priors multiply integers, never Fractions."""
        support = list(self.support_under(prefix, probability))
        denominator = lcm(*(p.denominator for _, p in support)) if support else 1
        return denominator, iter([(d, p.numerator * (denominator // p.denominator))
                                  for d, p in support])

    def values_within(self, domains: Sequence[Sequence[Value]]) -> bool:
        """Whether every dataset of the support is proved, from the prior's structure alone, to
        take each attribute's value in ``domains`` (so no dataset needs a membership test)."""
        return False

    def distribution(self, limit: int = DEFAULT_MAX_DATASETS) -> Distribution:
        """The prior as an explicit :class:`Distribution` over datasets."""
        return Distribution._trusted(dict(self.support(limit)))

    @abstractmethod
    def to_dict(self) -> dict:
        """The model-file form of this prior."""


def _scaled(distribution: Distribution) -> tuple[int, list[tuple[Value, int]]]:
    """``(L, [(v, p·L), ...])`` with ``L`` the least common denominator of the probabilities."""
    scale = lcm(*(p.denominator for _, p in distribution.items()))
    return scale, [(v, p.numerator * (scale // p.denominator)) for v, p in distribution.items()]


@dataclass(frozen=True)
class TablePrior(Prior):
    """A prior given by an explicit distribution over datasets."""

    name: str
    table: Distribution

    def probability(self, dataset: Dataset) -> Fraction:
        return self.table.prob(dataset)

    def support_bound(self) -> int:
        return len(self.table)

    def _support(self) -> Iterator[tuple[Dataset, Fraction]]:
        return iter(self.table.items())

    def to_dict(self) -> dict:
        return {"table": [[list(d), fraction_str(p)] for d, p in self.table.items()]}


@dataclass(frozen=True)
class IndependentPrior(Prior):
    """Attributes drawn independently: ``Pr[D] = Π_i P_i(D_i)``."""

    name: str
    attributes: tuple[str, ...]
    marginals: tuple[Distribution, ...]

    @classmethod
    def iid(cls, name: str, attributes: Sequence[str] | Universe,
            marginal: Distribution | Mapping[Value, object]) -> "IndependentPrior":
        """Every attribute drawn independently from the same ``marginal`` (a
        :class:`Distribution` or a mapping value -> exact probability); ``attributes`` are names
        or a :class:`Universe`, whose attributes are taken.

        >>> fair = IndependentPrior.iid("fair", ["x1", "x2", "x3"], {0: "1/2", 1: "1/2"})
        >>> fair.probability((0, 1, 1))
        Fraction(1, 8)
        """
        names = tuple(attributes.attributes if isinstance(attributes, Universe) else attributes)
        law = _law(marginal, f"priors.{name}.independent")
        return cls(name, names, (law,) * len(names))

    def probability(self, dataset: Dataset) -> Fraction:
        p = Fraction(1)
        for value, marginal in zip(dataset, self.marginals):
            p *= marginal.prob(value)
            if not p:
                break
        return p

    def support_bound(self) -> int:
        return prod(len(m) for m in self.marginals)

    def _support(self) -> Iterator[tuple[Dataset, Fraction]]:
        return self.support_under((), Fraction(1))

    def prefix_blocks(self, depth: int) -> list[tuple[tuple, Fraction]]:
        return self._grow([((), Fraction(1))], self.marginals[:depth])

    def block_bound(self, depth: int) -> int:
        return prod(len(m) for m in self.marginals[depth:])

    def support_under(self, prefix: tuple, probability: Fraction) -> Iterator[tuple[Dataset, Fraction]]:
        return iter(self._grow([(prefix, probability)], self.marginals[len(prefix):]))

    def scaled_support_under(self, prefix, probability):
        layer = [(prefix, probability.numerator)]
        denominator = probability.denominator
        for marginal in self.marginals[len(prefix):]:
            scale, items = _scaled(marginal)
            denominator *= scale
            layer = [(d + (v,), w * q) for d, w in layer for v, q in items]
        return denominator, iter(layer)

    def values_within(self, domains):
        return len(domains) == len(self.marginals) and all(
            set(m.support) <= set(domain) for m, domain in zip(self.marginals, domains))

    @staticmethod
    def _grow(layer: list[tuple[tuple, Fraction]], marginals) -> list[tuple[tuple, Fraction]]:
        # grow the products one attribute at a time so shared prefixes are multiplied once
        for marginal in marginals:
            items = list(marginal.items())
            layer = [(prefix + (v,), p * q) for prefix, p in layer for v, q in items]
        return layer

    def to_dict(self) -> dict:
        return {"independent": {a: {str(v): fraction_str(p) for v, p in m.items()}
                                for a, m in zip(self.attributes, self.marginals)}}


@dataclass(frozen=True)
class MarkovPrior(Prior):
    """A Markov chain over the attributes in order.

    ``Pr[D] = P_0(D_1) Π_{t=1}^{n-1} T_t(D_t → D_{t+1})``.  ``transitions[t]`` maps a value of
    attribute ``t`` to the distribution of attribute ``t+1``; a homogeneous chain repeats one kernel
    (stored once).  Structured algorithms read ``initial`` and ``transitions`` directly.
    """

    name: str
    attributes: tuple[str, ...]
    initial: Distribution
    transitions: tuple[Mapping[Value, Distribution], ...]
    homogeneous: bool = True

    @classmethod
    def homogeneous(cls, name: str, attributes: Sequence[str] | Universe,
                    initial: Distribution | Mapping[Value, object],
                    transition: Mapping[Value, Distribution | Mapping[Value, object]]
                    ) -> "MarkovPrior":
        """A homogeneous chain over ``attributes`` (names, or a :class:`Universe`, whose
        attributes are taken): ``initial`` the law of the first attribute and ``transition`` the
        one kernel of every step, value -> law of the next value, as a model file's
        ``"markov": {"initial": ..., "transition": ...}``.  A law is a :class:`Distribution` or
        a mapping value -> exact probability (``"9/10"``, ``Fraction``, int; never a float).
        The chain's values are the kernel's rows: every row must stay among them, and the
        initial law too (:func:`markov_kernel`).

        >>> sticky = MarkovPrior.homogeneous(
        ...     "sticky", ["x1", "x2", "x3"], {0: "1/2", 1: "1/2"},
        ...     {0: {0: "9/10", 1: "1/10"}, 1: {0: "1/10", 1: "9/10"}})
        >>> sticky.probability((0, 0, 0)), len(sticky.transitions)
        (Fraction(81, 200), 2)
        >>> sticky.to_dict()["markov"]["transition"]["0"]
        {'0': '9/10', '1': '1/10'}
        """
        names = tuple(attributes.attributes if isinstance(attributes, Universe) else attributes)
        path = f"priors.{name}.markov"
        first = _law(initial, f"{path}.initial")
        rows = {value: _law(row, join_path(f"{path}.transition", str(value)))
                for value, row in transition.items()}
        kernel = markov_kernel(rows, tuple(rows), f"{path}.transition")
        for value in first.support:
            if value not in kernel:
                raise ModelError(f"the initial law gives probability to {value!r}, which has no "
                                 f"transition row", f"{path}.initial")
        return cls(name, names, first, (kernel,) * max(0, len(names) - 1), homogeneous=True)

    def __post_init__(self) -> None:
        if len(self.transitions) != len(self.attributes) - 1:
            raise ModelError(f"a chain over {len(self.attributes)} attributes needs "
                             f"{len(self.attributes) - 1} transition kernels, got "
                             f"{len(self.transitions)}", self.name)

    def probability(self, dataset: Dataset) -> Fraction:
        p = self.initial.prob(dataset[0])
        for step, kernel in enumerate(self.transitions):
            if not p:
                return p
            row = kernel.get(dataset[step])
            p *= row.prob(dataset[step + 1]) if row is not None else 0
        return p

    def support_bound(self) -> int:
        bound = len(self.initial)
        for kernel in self.transitions:
            bound *= max((len(row) for row in kernel.values()), default=0)
            if bound > 10**18:
                return bound
        return bound

    def _support(self) -> Iterator[tuple[Dataset, Fraction]]:
        return self.support_under((), Fraction(1))

    def prefix_blocks(self, depth: int) -> list[tuple[tuple, Fraction]]:
        return list(self._extend((), Fraction(1), max(0, min(depth, len(self.attributes)))))

    def block_bound(self, depth: int) -> int:
        if depth <= 0:
            return self.support_bound()
        bound = 1
        for kernel in self.transitions[depth - 1:]:
            bound *= max((len(row) for row in kernel.values()), default=0)
            if bound > 10**18:
                return bound
        return bound

    def support_under(self, prefix: tuple, probability: Fraction) -> Iterator[tuple[Dataset, Fraction]]:
        return self._extend(prefix, probability, len(self.attributes))

    def scaled_support_under(self, prefix, probability):
        denominator = probability.denominator
        if prefix:
            layer = [(prefix, probability.numerator)]
        else:
            scale, items = _scaled(self.initial)
            denominator *= scale
            layer = [((v,), probability.numerator * q) for v, q in items]
        for kernel in self.transitions[max(0, len(prefix) - 1):]:
            # one denominator for the whole kernel, so every dataset shares the block's
            scale = lcm(*(p.denominator for row in kernel.values() for _, p in row.items()))
            rows = {v: [(w, p.numerator * (scale // p.denominator)) for w, p in row.items()]
                    for v, row in kernel.items()}
            denominator *= scale
            layer = [(d + (w,), weight * q) for d, weight in layer
                     for w, q in rows.get(d[-1], ())]
        return denominator, iter(layer)

    def values_within(self, domains):
        if len(domains) != len(self.attributes):
            return False
        if not set(self.initial.support) <= set(domains[0]):
            return False
        return all(set(row.support) <= set(domains[step + 1])
                   for step, kernel in enumerate(self.transitions) for row in kernel.values())

    def _extend(self, prefix: tuple, p: Fraction, length: int) -> Iterator[tuple[tuple, Fraction]]:
        """Every continuation of ``prefix`` to ``length`` values with positive probability."""
        if len(prefix) == length:
            yield prefix, p
            return
        if not prefix:
            for value, q in self.initial.items():
                yield from self._extend((value,), p * q, length)
            return
        row = self.transitions[len(prefix) - 1].get(prefix[-1])
        if row is None:
            return
        for value, q in row.items():
            yield from self._extend(prefix + (value,), p * q, length)

    def to_dict(self) -> dict:
        def kernel_dict(kernel: Mapping[Value, Distribution]) -> dict:
            return {str(v): {str(w): fraction_str(p) for w, p in row.items()}
                    for v, row in kernel.items()}

        body: dict = {"initial": {str(v): fraction_str(p) for v, p in self.initial.items()}}
        if self.homogeneous and self.transitions:
            body["transition"] = kernel_dict(self.transitions[0])
        else:
            body["transitions"] = [kernel_dict(k) for k in self.transitions]
        return {"markov": body}


@dataclass(frozen=True)
class UniformPrior(Prior):
    """The uniform prior over the universe."""

    name: str
    universe: Universe

    def probability(self, dataset: Dataset) -> Fraction:
        return Fraction(1, self.universe.size) if dataset in self.universe else Fraction(0)

    def support_bound(self) -> int:
        return self.universe.size

    def _support(self) -> Iterator[tuple[Dataset, Fraction]]:
        share = Fraction(1, self.universe.size)
        for dataset in self.universe.datasets(limit=self.universe.size):
            yield dataset, share

    # On a product universe the uniform prior is the product of uniform marginals, so it is cut
    # into blocks by its first attributes like an independent prior.

    def prefix_blocks(self, depth: int) -> list[tuple[tuple, Fraction]]:
        if self.universe.explicit is not None:
            return [((), Fraction(1))]
        domains = self.universe.domains[:max(0, depth)]
        share = Fraction(1, prod(len(domain) for domain in domains))
        return [(prefix, share) for prefix in cartesian(*domains)]

    def block_bound(self, depth: int) -> int:
        if self.universe.explicit is not None:
            return self.universe.size
        return prod(len(domain) for domain in self.universe.domains[max(0, depth):])

    def support_under(self, prefix: tuple, probability: Fraction) -> Iterator[tuple[Dataset, Fraction]]:
        if not prefix:
            return self._support()
        share = Fraction(1, self.universe.size)
        return ((prefix + rest, share)
                for rest in cartesian(*self.universe.domains[len(prefix):]))

    def values_within(self, domains: Sequence[Sequence[Value]]) -> bool:
        return self.universe.explicit is None and list(map(list, domains)) == \
            list(map(list, self.universe.domains))

    def to_dict(self) -> dict:
        return {"uniform": True}


@dataclass(frozen=True)
class IntervalBlock:
    """A block of datasets of one secret whose conditional mass lies in ``[lower, upper]``."""

    datasets: tuple[Dataset, ...]
    lower: Fraction
    upper: Fraction


@dataclass(frozen=True)
class IntervalFamily:
    """The prior family of Example 4.3 (Bai et al., Composition for Pufferfish Privacy, §4),
    generalised.

    For each secret ``s`` named in ``blocks``, the datasets where ``s`` holds are partitioned into
    blocks ``B_1..B_k`` with intervals ``[l_j, u_j]``; the family contains every prior θ whose
    conditional ``θ(·|s)`` satisfies ``Pr[B_j | s, θ] ∈ [l_j, u_j]`` for every block, for every
    listed secret, with any positive ``Pr[s | θ]``.  The secrets must be pairwise disjoint, so the
    conditionals of different secrets can be chosen independently.

    **Exact extremes over the infinite family.**  ``Pr[ω | s, θ] = Σ_D θ(D|s) P(ω|D)`` is linear in
    ``q = θ(·|s)``, and the feasible ``q`` form the polytope
    ``{q ≥ 0, Σ q = 1, l_j ≤ q(B_j) ≤ u_j}``.  For any feasible ``q``,
    ``Σ_D q(D) v(D) ≤ Σ_j q(B_j) c_j`` with ``c_j = max_{D∈B_j} v(D)``, with equality when each
    block's mass sits on a maximiser.  The block masses ``m_j = q(B_j)`` range over the box
    ``[l, u]`` intersected with ``Σ m = 1``, where a linear function is maximised greedily: start at
    ``m = l`` and pour the remaining ``1 − Σ l`` into blocks in decreasing order of ``c_j`` up to
    ``u_j`` (an exchange argument: moving mass from a lower ``c`` to a higher ``c`` never hurts).
    Minimising is the same with increasing order.  Because the two secrets of a pair have
    independent conditionals, the supremum over θ of ``Pr[ω|s_i,θ] / Pr[ω|s_j,θ]`` is
    ``max_q Pr[ω|s_i] / min_q Pr[ω|s_j]``, attained by the two extreme conditionals (a vertex
    prior of the family, returned as the witness).
    """

    name: str
    blocks: Mapping[str, tuple[IntervalBlock, ...]]

    def __post_init__(self) -> None:
        for secret, blocks in self.blocks.items():
            path = f"priors.{self.name}.interval.{secret}"
            if not blocks:
                raise ModelError("a secret needs at least one block", path)
            low = sum((b.lower for b in blocks), Fraction(0))
            high = sum((b.upper for b in blocks), Fraction(0))
            for k, block in enumerate(blocks):
                if not block.datasets:
                    raise ModelError("the block has no datasets", f"{path}.{k}")
                if not 0 <= block.lower <= block.upper <= 1:
                    raise ModelError(f"the interval [{fraction_str(block.lower)}, "
                                     f"{fraction_str(block.upper)}] must satisfy "
                                     f"0 <= lower <= upper <= 1", f"{path}.{k}.mass")
            if low > 1 or high < 1:
                raise ModelError(f"no distribution meets the intervals: the lower bounds sum to "
                                 f"{fraction_str(low)} and the upper bounds to "
                                 f"{fraction_str(high)}; need lower sum <= 1 <= upper sum", path)

    def require_blocks(self, secrets: tuple[str, ...], pair_label: str,
                       family_name: str | None = None) -> None:
        """Refuse, at the family's path, a pair whose secret the family gives no blocks for
        (the family says nothing about that secret's conditional, so no level can be computed).
        ``family_name`` is the family's key in the model (default: its own name)."""
        name = family_name if family_name is not None else self.name
        for secret in secrets:
            if secret not in self.blocks:
                raise ModelError(f"interval family {name!r} gives no blocks for secret "
                                 f"{secret!r}, which pair {pair_label!r} uses",
                                 f"priors.{name}.interval")

    def extreme_conditional(self, secret: str, values: Mapping[Dataset, Fraction],
                            maximize: bool) -> tuple[Fraction, Distribution]:
        """``max`` (or ``min``) of ``Σ_D q(D) values[D]`` over the family's ``q = θ(·|secret)``.

        Returns the extreme value and a conditional distribution attaining it.  Linear in the
        number of datasets of the secret plus ``k log k`` for the ``k`` blocks.
        """
        blocks = self.blocks[secret]
        best = []
        for block in blocks:
            chooser = max if maximize else min
            dataset = chooser(block.datasets, key=lambda d: values.get(d, Fraction(0)))
            best.append((values.get(dataset, Fraction(0)), dataset, block))
        order = sorted(range(len(best)), key=lambda j: best[j][0], reverse=maximize)
        masses = [block.lower for _, _, block in best]
        remaining = 1 - sum(masses, Fraction(0))
        for j in order:
            if not remaining:
                break
            extra = min(remaining, best[j][2].upper - best[j][2].lower)
            masses[j] += extra
            remaining -= extra
        value = sum((m * c for m, (c, _, _) in zip(masses, best)), Fraction(0))
        conditional = Distribution._trusted(
            {dataset: m for m, (_, dataset, _) in zip(masses, best) if m})
        return value, conditional

    def to_dict(self) -> dict:
        return {"interval": {
            secret: [{"datasets": [list(d) for d in b.datasets],
                      "mass": [fraction_str(b.lower), fraction_str(b.upper)]} for b in blocks]
            for secret, blocks in self.blocks.items()}}


PriorLike = Prior | IntervalFamily


def _law(law: Distribution | Mapping[Value, object], path: str) -> Distribution:
    """``law`` as a :class:`Distribution` (a mapping is checked as one, errors at ``path``)."""
    return law if isinstance(law, Distribution) else Distribution(law, path)


def check_prior_in_universe(prior: Prior, universe: Universe, limit: int, path: str) -> None:
    """Validate that a prior puts all its mass on datasets of the universe.

    For a product universe every structured prior over the domains does so by construction; for an
    explicit universe the support is enumerated (it is bounded by the explicit list's size).
    """
    if universe.explicit is None and not isinstance(prior, TablePrior):
        return
    for dataset, _ in prior.support(limit):
        if dataset not in universe:
            raise ModelError(f"prior gives probability to dataset {list(dataset)}, which is not in "
                             f"the universe", path)


def markov_kernel(rows: Mapping[Value, Distribution], domain: Sequence[Value], path: str) -> dict:
    """Validate a transition kernel: a row for every domain value, support inside the domain."""
    kernel = {}
    for value in domain:
        if value not in rows:
            raise ModelError(f"no transition row for value {value!r}", path)
        row = rows[value]
        for target in row.support:
            if target not in domain:
                raise ModelError(f"transition to {target!r}, which is not in the domain",
                                 f"{path}.{value}")
        kernel[value] = row
    return kernel
