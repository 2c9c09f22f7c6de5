"""Potential secrets and secret pairs (Bai et al., Composition for Pufferfish Privacy, §2).

A potential secret ``s`` is a named statement about the dataset; ``s(D) = true`` says it holds in
dataset ``D``.  Secrets are given as a conjunction of conditions ``attribute = value`` /
``attribute in [values]`` (``where``), as an explicit set of datasets, or, for builders, as any
predicate.  A :class:`SecretPair` ``(s_i, s_j)`` is checked in both directions unless it is
``directed``; :func:`entry_pairs` generates the family "attribute i is a" vs "attribute i is b".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from pufferfish.models.errors import ModelError, TooLargeError, join_path
from pufferfish.models.universe import Dataset, Universe, Value, size_text
from pufferfish.models.values import canonical_value, json_value


@dataclass(frozen=True)
class Secret:
    """A named predicate on datasets.

    ``conditions`` maps attribute indices to allowed value sets (a conjunction); ``members`` is an
    explicit dataset set; ``predicate`` is a free-form test used by builders.  Exactly one is set.
    """

    name: str
    conditions: tuple[tuple[int, frozenset], ...] | None = None
    members: frozenset | None = None
    predicate: Callable[[Dataset], bool] | None = field(default=None, compare=False)
    description: str = ""

    def __post_init__(self) -> None:
        given = sum(x is not None for x in (self.conditions, self.members, self.predicate))
        if given != 1:
            raise ModelError("a secret is given by exactly one of: conditions, datasets, predicate",
                             self.name)

    @classmethod
    def where(cls, name: str, universe: Universe, conditions: Mapping[str, Value | Sequence[Value]],
              path: str = "") -> "Secret":
        """``attribute = value`` (or ``attribute in [values]``) for every listed attribute."""
        if not conditions:
            raise ModelError("a 'where' secret needs at least one condition", path)
        parsed = []
        for attribute, allowed in conditions.items():
            index = universe.index(attribute, join_path(path, attribute))
            values = [canonical_value(v, join_path(path, attribute)) for v in
                      (allowed if isinstance(allowed, list | tuple) else [allowed])]
            domain = universe.domains[index]
            for value in values:
                if value not in domain:
                    raise ModelError(f"value {value!r} is not in the domain {list(domain)} of "
                                     f"attribute {attribute!r}", join_path(path, attribute))
            parsed.append((index, frozenset(values)))
        text = " and ".join(
            f"{universe.attributes[i]}={next(iter(v))!r}" if len(v) == 1
            else f"{universe.attributes[i]} in {sorted(v, key=repr)!r}" for i, v in parsed)
        return cls(name, conditions=tuple(parsed), description=text)

    @classmethod
    def of_datasets(cls, name: str, datasets: Iterable[Dataset], description: str = "") -> "Secret":
        """The secret that holds exactly on the listed datasets."""
        members = frozenset(canonical_value(tuple(d)) for d in datasets)
        return cls(name, members=members, description=description or f"{len(members)} datasets")

    @classmethod
    def from_predicate(cls, name: str, predicate: Callable[[Dataset], bool],
                       description: str = "") -> "Secret":
        """A secret given by an arbitrary predicate (used by example builders)."""
        return cls(name, predicate=predicate, description=description or name)

    def holds(self, dataset: Dataset) -> bool:
        """``s(D)``: whether the secret is true in ``dataset``."""
        if self.conditions is not None:
            return all(dataset[i] in allowed for i, allowed in self.conditions)
        if self.members is not None:
            return dataset in self.members
        return bool(self.predicate(dataset))  # type: ignore[misc]

    def __call__(self, dataset: Dataset) -> bool:
        return self.holds(dataset)

    def to_dict(self, universe: Universe | None = None) -> dict:
        """The model-file form of the secret (predicate secrets as their description)."""
        if self.conditions is not None and universe is not None:
            where = {}
            for index, allowed in self.conditions:
                values = sorted(allowed, key=repr)
                where[universe.attributes[index]] = json_value(values[0] if len(values) == 1
                                                               else tuple(values))
            return {"where": where}
        if self.members is not None:
            return {"datasets": [json_value(d) for d in sorted(self.members, key=repr)]}
        return {"description": self.description}


@dataclass(frozen=True)
class SecretPair:
    """A pair of potential secrets ``(first, second)``; both directions unless ``directed``."""

    first: Secret
    second: Secret
    directed: bool = False

    def directions(self) -> Iterator[tuple[Secret, Secret]]:
        """The ordered pairs ``(s_i, s_j)`` whose ratio Definition 5 bounds."""
        yield self.first, self.second
        if not self.directed:
            yield self.second, self.first

    @property
    def label(self) -> str:
        arrow = "->" if self.directed else "<->"
        return f"{self.first.name} {arrow} {self.second.name}"


def entry_secrets(universe: Universe) -> dict[str, Secret]:
    """The secrets "attribute i is a" for every attribute and every domain value, named ``xi=a``."""
    secrets = {}
    for index, (attribute, domain) in enumerate(zip(universe.attributes, universe.domains)):
        for value in domain:
            name = f"{attribute}={value}"
            secrets[name] = Secret(name, conditions=((index, frozenset([value])),),
                                   description=f"{attribute}={value!r}")
    return secrets


MAX_SECRET_PAIRS = 10**6
"""The most secret pairs :func:`entry_pairs` generates: an attribute of ``d`` values gives
``d·(d − 1)/2`` of them (300,000 values would give 4.5·10^10)."""


def entry_pair_count(universe: Universe) -> int:
    """How many pairs :func:`entry_pairs` gives: ``Σ d_i·(d_i − 1)/2``, counted, not built.

    >>> entry_pair_count(Universe.product(["x", "y"], [[0, 1, 2], [0, 1]]))
    4
    """
    return sum(len(domain) * (len(domain) - 1) // 2 for domain in universe.domains)


def entry_pairs(universe: Universe, secrets: Mapping[str, Secret] | None = None,
                limit: int = MAX_SECRET_PAIRS) -> list[SecretPair]:
    """Every pair "attribute i is a" vs "attribute i is b" (a before b in the domain order).

    Sized first: more than ``limit`` pairs (:func:`entry_pair_count`) are refused with a
    :class:`~pufferfish.models.errors.TooLargeError` at ``entry_pairs`` that states the count."""
    count = entry_pair_count(universe)
    if count > limit:
        widest = max(range(universe.width), key=lambda i: len(universe.domains[i]))
        values = len(universe.domains[widest])
        raise TooLargeError(
            f"entry pairs would be {size_text(count)} secret pairs (attribute "
            f"{universe.attributes[widest]!r} alone has {values:,} values, {values:,}·"
            f"{values - 1:,}/2 pairs), more than the limit of {size_text(limit)}; list the "
            f"pairs to check under \"pairs\" instead", "entry_pairs")
    secrets = secrets if secrets is not None else entry_secrets(universe)
    pairs = []
    for attribute, domain in zip(universe.attributes, universe.domains):
        for k, a in enumerate(domain):
            for b in domain[k + 1:]:
                pairs.append(SecretPair(secrets[f"{attribute}={a}"], secrets[f"{attribute}={b}"]))
    return pairs
