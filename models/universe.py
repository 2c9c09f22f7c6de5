"""Datasets, universes of datasets and records.

A *dataset* is a tuple of attribute values, one per attribute (Bai et al., Composition for
Pufferfish Privacy, §2: "the dataset will be a table where rows are records and columns are
attributes").  A :class:`Universe` is the set 𝒰 of possible datasets: either the product of the
attribute domains (``"all"``) or an explicit list.  A universe is never enumerated when it is built:
its size is computed arithmetically, and only computations that need every dataset call
:meth:`Universe.datasets`, which refuses (with the size and the limit) a universe larger than the
limit.  A Markov-chain model over thousands of attributes therefore loads instantly and serves
structured algorithms.

*Records* say which attributes belong to one person (Definition 1's "one person's record"); by
default every attribute is its own record, so per-record and per-entry DP coincide.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import product as cartesian
from math import prod

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.values import canonical_value

Value = Hashable
Dataset = tuple

DEFAULT_MAX_DATASETS = 10**6
"""Default limit on the number of datasets a computation may enumerate (``--max-datasets``)."""


@dataclass(frozen=True)
class Universe:
    """The set of possible datasets over named attributes.

    ``explicit`` is ``None`` for the full product of ``domains``; otherwise the listed datasets.
    ``records`` partitions the attribute indices into persons' records.

    >>> u = Universe.product(["x1", "x2"], [[0, 1], [0, 1]])
    >>> u.size, (0, 1) in u
    (4, True)
    """

    attributes: tuple[str, ...]
    domains: tuple[tuple[Value, ...], ...]
    explicit: tuple[Dataset, ...] | None = None
    records: tuple[tuple[int, ...], ...] = ()
    _explicit_set: frozenset = field(default=frozenset(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.attributes:
            raise ModelError("a universe needs at least one attribute", "attributes")
        if len(set(self.attributes)) != len(self.attributes):
            raise ModelError("attribute names must be distinct", "attributes")
        if len(self.domains) != len(self.attributes):
            raise ModelError(f"{len(self.domains)} domains for {len(self.attributes)} attributes",
                             "domain")
        # Domain values and listed datasets compare as JSON values (true is not 1):
        # models/values.py (listed datasets are made canonical below).
        object.__setattr__(self, "domains", tuple(
            tuple(canonical_value(v, f"domain.{name}") for v in domain)
            for name, domain in zip(self.attributes, self.domains)))
        for name, domain in zip(self.attributes, self.domains):
            if not domain:
                raise ModelError(f"attribute {name!r} has an empty domain", f"domain.{name}")
            if len(set(domain)) != len(domain):
                raise ModelError(f"attribute {name!r} has repeated domain values", f"domain.{name}")
        if not self.records:
            object.__setattr__(self, "records", tuple((i,) for i in range(len(self.attributes))))
        covered = sorted(i for record in self.records for i in record)
        if covered != list(range(len(self.attributes))):
            raise ModelError("records must partition the attributes (each attribute in exactly one"
                             " record)", "records")
        if self.explicit is not None:
            seen: dict = {}
            for k, raw in enumerate(self.explicit):
                dataset = self._check_dataset(raw, f"datasets.{k}")
                if dataset in seen:
                    raise ModelError(f"dataset {list(dataset)} is listed twice", f"datasets.{k}")
                seen[dataset] = None
            if not self.explicit:
                raise ModelError("the explicit list of datasets is empty", "datasets")
            object.__setattr__(self, "explicit", tuple(seen))
            object.__setattr__(self, "_explicit_set", frozenset(seen))

    @classmethod
    def product(cls, attributes: Sequence[str], domains: Sequence[Sequence[Value]],
                records: Sequence[Sequence[int]] = ()) -> "Universe":
        """The universe of all datasets: the product of the domains."""
        return cls(tuple(attributes), tuple(tuple(d) for d in domains), None,
                   tuple(tuple(r) for r in records))

    @classmethod
    def listed(cls, attributes: Sequence[str], domains: Sequence[Sequence[Value]],
               datasets: Iterable[Sequence[Value]], records: Sequence[Sequence[int]] = ()) -> "Universe":
        """A universe given as an explicit list of datasets."""
        return cls(tuple(attributes), tuple(tuple(d) for d in domains),
                   tuple(tuple(d) for d in datasets), tuple(tuple(r) for r in records))

    @property
    def width(self) -> int:
        """Number of attributes."""
        return len(self.attributes)

    @property
    def size(self) -> int:
        """Number of datasets, computed without enumerating them."""
        if self.explicit is not None:
            return len(self.explicit)
        return prod(len(d) for d in self.domains)

    @cached_property
    def _positions(self) -> dict[str, int]:
        """Each attribute's position (the first, as ``tuple.index``): :meth:`index` in ``O(1)``."""
        return {a: i for i, a in reversed(list(enumerate(self.attributes)))}

    def index(self, attribute: str, path: str = "") -> int:
        """Position of a named attribute."""
        try:
            return self._positions[attribute]
        except (KeyError, TypeError):
            raise ModelError(f"unknown attribute {attribute!r}; the attributes are "
                             f"{list(self.attributes)}", path) from None

    def __contains__(self, dataset: object) -> bool:
        if not isinstance(dataset, tuple) or len(dataset) != self.width:
            return False
        try:
            dataset = canonical_value(dataset)
        except ModelError:
            return False
        if self.explicit is not None:
            return dataset in self._explicit_set
        return all(v in d for v, d in zip(dataset, self.domains))

    def datasets(self, limit: int = DEFAULT_MAX_DATASETS) -> Iterator[Dataset]:
        """Enumerate every dataset, refusing if there are more than ``limit``."""
        self.require_enumerable(limit)
        if self.explicit is not None:
            return iter(self.explicit)
        return cartesian(*self.domains)

    def require_enumerable(self, limit: int = DEFAULT_MAX_DATASETS) -> None:
        """Raise :class:`TooLargeError` if the universe has more than ``limit`` datasets."""
        size = self.size
        if size > limit:
            raise TooLargeError(
                f"the universe has {size_text(size)} datasets, more than the limit of "
                f"{size_text(limit)}; raise the limit with --max-datasets if the computation "
                f"should enumerate them")

    def record_of(self, attribute_index: int) -> tuple[int, ...]:
        """The record (tuple of attribute indices) that contains ``attribute_index``."""
        for record in self.records:
            if attribute_index in record:
                return record
        raise KeyError(attribute_index)

    def require_dataset(self, raw: object, path: str = "") -> Dataset:
        """``raw`` (a list or tuple of values) as a dataset of this universe, in canonical form
        (:mod:`pufferfish.models.values`); refused at ``path`` when its length is not the number
        of attributes, a value is outside its attribute's domain, or an explicit universe does
        not list it."""
        dataset = self._check_dataset(raw, path)
        if self.explicit is not None and dataset not in self._explicit_set:
            raise ModelError(f"dataset {list(dataset)} is not in the universe (the explicit "
                             f"'datasets' list)", path)
        return dataset

    def _check_dataset(self, raw: object, path: str) -> Dataset:
        """``raw`` canonical, checked value by value against the domains."""
        if not isinstance(raw, list | tuple):
            raise ModelError(f"a dataset must list {self.width} values (one per attribute)", path)
        dataset = canonical_value(tuple(raw), path)
        if len(dataset) != self.width:
            raise ModelError(f"a dataset must list {self.width} values (one per attribute), "
                             f"this one has {len(dataset)}", path)
        for name, value, domain in zip(self.attributes, dataset, self.domains):
            if value not in domain:
                raise ModelError(f"value {value!r} of attribute {name!r} is not in its domain "
                                 f"{list(domain)}", path)
        return dataset


def hamming(first: Dataset, second: Dataset) -> int:
    """Number of attributes on which two datasets differ."""
    return sum(1 for a, b in zip(first, second) if a != b)


def size_text(n: int) -> str:
    """A count for a message: exact below ten million, else two significant digits.

    >>> size_text(1_048_576), size_text(2**26), size_text(2**40), size_text(10**8 - 1)
    ('1,048,576', 'about 6.7·10^7', 'about 1.1·10^12', 'about 1.0·10^8')
    """
    if n < 10**7:
        return f"{n:,}"
    logarithm = math.log10(n)  # math.log10 takes integers of any size
    exponent = int(logarithm)
    mantissa = round(10 ** (logarithm - exponent), 1)
    if mantissa >= 10:
        mantissa, exponent = 1.0, exponent + 1
    return f"about {mantissa}·10^{exponent:,}"
