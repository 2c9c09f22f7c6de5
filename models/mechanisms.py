"""Mechanisms as exact kernels: dataset → distribution over outputs (Bai et al., Composition for
Pufferfish Privacy, §2).

A mechanism ``M`` maps each dataset ``D`` to the exact distribution of ``M(D)``.  Constructors:

* :class:`TableMechanism` — an explicit kernel, one row per dataset;
* :class:`QueryMechanism` — a deterministic query (``sum``, ``count``, ``parity``, ``identity``,
  ``attribute``) optionally followed by noise;
* :class:`GeometricNoise` — two-sided geometric noise ``Pr[Z = z] = (1−α)/(1+α)·α^|z|`` added to an
  integer query, the result clamped to ``[min, max]`` with the clamped mass on the ends;
* :class:`RandomizedResponse` — per entry: report the true value with probability ``keep``,
  otherwise a uniformly random *other* value of the attribute's domain;
* :class:`Composition` — independent runs on one dataset, the tuple of outputs (``repeat(k)``);
* :class:`PostProcessed` — a stochastic map applied to a mechanism's output;
* :class:`FunctionMechanism` — any Python function returning a :class:`Distribution` (builders).

Kernels are computed on demand, one dataset at a time, and cached.  Before a kernel is built,
:meth:`Mechanism.support_size` counts the outputs of ``M(D)`` from the mechanism's structure alone
(a product for compositions, ``s^k`` for ``repeat(k)``, the clamped range for geometric noise), so a
caller with a limit on outputs (``--max-outputs``) refuses a mechanism at once, with its size,
instead of building gigabytes of outputs first.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction

from pufferfish.models.distribution import Distribution, product_distribution
from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.numbers import fraction_str
from pufferfish.models.universe import Dataset, Universe, size_text
from pufferfish.models.values import canonical_value, json_value

Output = Hashable


class Mechanism(ABC):
    """A randomized algorithm with an exact kernel ``D ↦ Pr[M(D) = ·]``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._cache: dict[Dataset, Distribution] = {}

    def distribution(self, dataset: Dataset) -> Distribution:
        """The exact output distribution of ``M(dataset)``, computed once per kernel key (see
        :meth:`kernel_key`): datasets with the same key share one :class:`Distribution` object."""
        return self._cached(self.kernel_key(dataset), self._compute, dataset)

    def kernel_key(self, dataset: Dataset) -> Hashable:
        """What of ``dataset`` the output distribution depends on: datasets with equal keys have
        equal distributions.  The default is the dataset itself; a query mechanism reads only
        the query's answer, randomized response only its attributes, so a universe of 2^n
        datasets costs them n + 1 and 2^k distributions (time and memory), not 2^n.

        >>> from pufferfish.models.universe import Universe
        >>> u = Universe.product(["x", "y", "z"], [[0, 1]] * 3)
        >>> rr = RandomizedResponse("rr", u, Fraction(3, 4), ["x"])
        >>> rr.kernel_key((1, 0, 1)), rr.distribution((1, 0, 1)) is rr.distribution((1, 1, 0))
        ((1,), True)
        """
        return dataset

    def key_distribution(self, key: Hashable) -> Distribution:
        """The output distribution of every dataset whose :meth:`kernel_key` is ``key``, computed
        from the key alone (cached with :meth:`distribution`'s).  Structured audits
        (:mod:`pufferfish.verify.structured`) use it: they find the law of the key under a prior
        without listing datasets.  A mechanism whose key is the dataset itself computes it as
        :meth:`distribution` does.

        >>> from pufferfish.models.universe import Universe
        >>> u = Universe.product(["x", "y"], [[0, 1]] * 2)
        >>> noisy = QueryMechanism("sum", u, Query("sum", u), GeometricNoise(Fraction(1, 2), 0, 2))
        >>> noisy.key_distribution(2) == noisy.distribution((1, 1))
        True
        """
        return self._cached(key, self._from_key, key)

    def keep_distribution(self, key: Hashable, law: Distribution) -> None:
        """Keep ``law`` as the distribution of the kernel key ``key``, computed elsewhere (a
        task on another process: :mod:`pufferfish.verify.program_laws`), unless one is kept
        already; later calls of :meth:`distribution` and :meth:`key_distribution` return it.

        >>> from pufferfish.models.universe import Universe
        >>> u = Universe.product(["x"], [[0, 1]])
        >>> rr = RandomizedResponse("rr", u, Fraction(3, 4), ["x"])
        >>> law = rr.key_distribution((1,))
        >>> rr.keep_distribution((1,), Distribution({1: Fraction(1, 2), 0: Fraction(1, 2)}))
        >>> rr.distribution((1,)) is law
        True
        """
        self._cache.setdefault(key, law)

    def is_known(self, key: Hashable) -> bool:
        """Whether the distribution of the kernel key ``key`` is computed (or kept) already."""
        return key in self._cache

    def _cached(self, key: Hashable, compute: Callable[[object], Distribution],
                argument: object) -> Distribution:
        """The distribution of ``key``: from the cache, else ``compute(argument)``, kept."""
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = compute(argument)
        return cached

    def _from_key(self, key: Hashable) -> Distribution:
        """The distribution of a kernel key (uncached).  The default key is the dataset; a class
        that reads less of it overrides this together with :meth:`kernel_key`."""
        if type(self).kernel_key is not Mechanism.kernel_key:
            raise UnsupportedError(f"mechanism {self.name!r} ({type(self).__name__}) cannot "
                                   f"compute its law from its kernel key alone",
                                   f"mechanisms.{self.name}")
        return self._compute(key)

    def prob(self, dataset: Dataset, output: Output) -> Fraction:
        """``Pr[M(dataset) = output]``."""
        return self.distribution(dataset).prob(output)

    @abstractmethod
    def _compute(self, dataset: Dataset) -> Distribution:
        """Compute the output distribution for one dataset (uncached)."""

    def support_size(self, dataset: Dataset, limit: int) -> int | None:
        """The number of outputs of positive probability of ``M(dataset)``, counted without
        building the distribution, or ``None`` when only building it would tell.

        Raises :class:`TooLargeError` (with the size and ``limit``) when that number, or the
        support of a distribution that building this one needs (a part of a composition, the
        mechanism a post-processing reads), exceeds ``limit``.  Cost: O(size of the mechanism's
        structure), independent of the number of outputs.
        """
        cached = self._cache.get(self.kernel_key(dataset))
        return None if cached is None else self._within(len(cached), dataset, limit)

    def _within(self, size: int, dataset: Dataset, limit: int, text: str = "") -> int:
        """``size`` if it is at most ``limit``; otherwise refuse with the size (or ``text``)."""
        if size > limit:
            raise TooLargeError(
                f"mechanism {self.name!r} has {text or size_text(size)} outputs on dataset "
                f"{list(dataset)}, more than the limit of {size_text(limit)}; raise the limit with "
                f"--max-outputs", f"mechanisms.{self.name}")
        return size

    @abstractmethod
    def to_dict(self) -> dict:
        """The model-file form (composite mechanisms refer to their parts by name)."""

    def parts(self) -> tuple["Mechanism", ...]:
        """Mechanisms this one is built from (for writers that must emit them too)."""
        return ()

    def assumptions(self) -> tuple[str, ...]:
        """What a verdict on it takes on trust: a text per trusted program in it or its parts."""
        return tuple(dict.fromkeys(text for part in self.parts() for text in part.assumptions()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class TableMechanism(Mechanism):
    """A mechanism given by an explicit kernel: one output distribution per dataset."""

    def __init__(self, name: str, rows: Mapping[Dataset, Distribution]) -> None:
        super().__init__(name)
        self.rows = dict(rows)

    def _compute(self, dataset: Dataset) -> Distribution:
        try:
            return self.rows[dataset]
        except KeyError:
            raise ModelError(f"the kernel has no row for dataset {list(dataset)}",
                             f"mechanisms.{self.name}.table") from None

    def support_size(self, dataset: Dataset, limit: int) -> int | None:
        row = self.rows.get(dataset)
        return None if row is None else self._within(len(row), dataset, limit)

    def to_dict(self) -> dict:
        return {"table": [[list(d), [[_jsonable(o), fraction_str(p)] for o, p in dist.items()]]
                          for d, dist in self.rows.items()]}


class Query:
    """A deterministic query on datasets, restricted to some attributes.

    ``sum``: sum of the values; ``count``: how many values equal ``value`` (default 1);
    ``parity``: sum mod 2 of integer values; ``identity``: the tuple of values;
    ``attribute``: the value of one attribute.
    """

    KINDS = ("sum", "count", "parity", "identity", "attribute")

    def __init__(self, kind: str, universe: Universe, attributes: Sequence[str] | None = None,
                 value: object = 1, path: str = "") -> None:
        if kind not in self.KINDS:
            raise ModelError(f"unknown query {kind!r}; choose one of {list(self.KINDS)}", path)
        names = list(attributes) if attributes is not None else list(universe.attributes)
        if kind == "attribute" and len(names) != 1:
            raise ModelError("the 'attribute' query reads exactly one attribute", path)
        if not names:
            raise ModelError("the query reads no attribute", path)
        self.kind = kind
        self.attribute_names = tuple(names)
        self.positions = tuple(universe.index(a, path) for a in names)
        self.value = canonical_value(value, path)
        if kind in ("sum", "parity"):
            for position in self.positions:
                for v in universe.domains[position]:
                    if isinstance(v, bool) or not isinstance(v, int | Fraction):
                        raise ModelError(f"the {kind!r} query needs numeric values, attribute "
                                         f"{universe.attributes[position]!r} has {v!r}", path)
                    if kind == "parity" and not isinstance(v, int):
                        raise ModelError("the 'parity' query needs integer values", path)

    def __call__(self, dataset: Dataset) -> Output:
        values = [dataset[i] for i in self.positions]
        if self.kind == "sum":
            return sum(values)
        if self.kind == "count":
            return sum(1 for v in values if v == self.value)
        if self.kind == "parity":
            return sum(values) % 2
        if self.kind == "identity":
            return tuple(values)
        return values[0]

    def to_dict(self, universe_attributes: Sequence[str]) -> object:
        if self.kind == "attribute":
            return {"attribute": self.attribute_names[0]}
        body: dict = {}
        if list(self.attribute_names) != list(universe_attributes):
            body["attributes"] = list(self.attribute_names)
        if self.kind == "count" and self.value != 1:
            body["value"] = json_value(self.value)
        return {self.kind: body} if body else self.kind


class GeometricNoise:
    """Two-sided geometric noise on integers, clamped to ``[low, high]``.

    ``Pr[Z = z] = (1−α)/(1+α) · α^|z|`` for integer ``z``; the output is
    ``clamp(q + Z, low, high)``.  Tail masses are closed forms: for ``t ≥ 1``,
    ``Pr[Z ≥ t] = α^t / (1+α)``, so the clamped ends get exact rational mass.
    """

    def __init__(self, alpha: Fraction, low: int, high: int, path: str = "") -> None:
        if not 0 <= alpha < 1:
            raise ModelError(f"alpha must satisfy 0 <= alpha < 1, got {fraction_str(alpha)}",
                             f"{path}.alpha")
        if low > high:
            raise ModelError(f"min {low} is larger than max {high}", path)
        self.alpha, self.low, self.high = alpha, low, high

    def _tail_at_least(self, t: int) -> Fraction:
        """``Pr[Z ≥ t]``."""
        a = self.alpha
        if t >= 1:
            return a ** t / (1 + a)
        return 1 - a ** (1 - t) / (1 + a)

    def support_size(self) -> int:
        """Outputs of positive probability: the whole range ``[low, high]`` when ``α > 0``
        (every interior mass ``c·α^|y−q|`` and both clamped tails are positive), one when
        ``α = 0`` (no noise)."""
        return self.high - self.low + 1 if self.alpha else 1

    def around(self, centre: int) -> Distribution:
        """The distribution of ``clamp(centre + Z, low, high)``."""
        a = self.alpha
        scale = (1 - a) / (1 + a)
        probs: dict[Output, Fraction] = {}
        if self.low == self.high or not a:  # no noise: the clamped answer, without a range walk
            return Distribution.point(min(max(centre, self.low), self.high))
        probs[self.low] = self._tail_at_least(centre - self.low)     # Z <= low - centre
        probs[self.high] = self._tail_at_least(self.high - centre)   # Z >= high - centre
        for y in range(self.low + 1, self.high):
            probs[y] = scale * a ** abs(y - centre)
        return Distribution(probs)

    def to_dict(self) -> dict:
        return {"geometric": {"alpha": fraction_str(self.alpha), "min": self.low,
                              "max": self.high}}


class QueryMechanism(Mechanism):
    """A deterministic query, optionally followed by noise on its (integer) answer."""

    def __init__(self, name: str, universe: Universe, query: Query,
                 noise: GeometricNoise | None = None) -> None:
        super().__init__(name)
        self.universe, self.query, self.noise = universe, query, noise

    def kernel_key(self, dataset: Dataset) -> Hashable:
        """The query's answer: the noise is added to it alone."""
        return self.query(dataset)

    def _compute(self, dataset: Dataset) -> Distribution:
        return self._from_key(self.query(dataset))

    def _from_key(self, answer: Hashable) -> Distribution:
        if self.noise is None:
            return Distribution.point(answer)
        if isinstance(answer, bool) or not isinstance(answer, int):
            raise ModelError(f"geometric noise needs an integer query answer, got {answer!r}",
                             f"mechanisms.{self.name}.noise")
        return self.noise.around(answer)

    def support_size(self, dataset: Dataset, limit: int) -> int | None:
        return self._within(1 if self.noise is None else self.noise.support_size(), dataset, limit)

    def to_dict(self) -> dict:
        body: dict = {"query": self.query.to_dict(self.universe.attributes)}
        if self.noise is not None:
            body["noise"] = self.noise.to_dict()
        return body


class RandomizedResponse(Mechanism):
    """Per-entry randomized response.

    Each attribute is reported truthfully with probability ``keep`` and otherwise replaced by a
    uniformly random other value of its domain (a one-value domain is always reported as is).  The
    output is the tuple of reports; its support has ``Π |domain_i|`` elements.
    """

    def __init__(self, name: str, universe: Universe, keep: Fraction,
                 attributes: Sequence[str] | None = None, path: str = "") -> None:
        super().__init__(name)
        if not 0 <= keep <= 1:
            raise ModelError(f"keep must be a probability, got {fraction_str(keep)}", f"{path}.keep")
        self.universe, self.keep = universe, keep
        names = list(attributes) if attributes is not None else list(universe.attributes)
        self.positions = tuple(universe.index(a, path) for a in names)

    def entry_distribution(self, position: int, value: object) -> Distribution:
        """The report distribution of one entry holding ``value``."""
        others = [v for v in self.universe.domains[position] if v != value]
        if not others:
            return Distribution.point(value)
        share = (1 - self.keep) / len(others)
        probs = {value: self.keep}
        probs.update({v: share for v in others})
        return Distribution(probs)

    def kernel_key(self, dataset: Dataset) -> Hashable:
        """The values of the reported attributes."""
        return tuple(dataset[i] for i in self.positions)

    def _compute(self, dataset: Dataset) -> Distribution:
        return self._from_key(self.kernel_key(dataset))

    def _from_key(self, values: Hashable) -> Distribution:
        return product_distribution(self.entry_distribution(i, value)
                                    for i, value in zip(self.positions, values))

    def support_size(self, dataset: Dataset, limit: int) -> int | None:
        size = 1
        for position in self.positions:
            values = len(self.universe.domains[position])
            size *= 1 if values == 1 or self.keep == 1 else values - 1 if self.keep == 0 else values
        return self._within(size, dataset, limit)

    def to_dict(self) -> dict:
        body: dict = {"keep": fraction_str(self.keep)}
        if len(self.positions) != self.universe.width:
            body["attributes"] = [self.universe.attributes[i] for i in self.positions]
        return {"per_entry": {"randomized_response": body}}


class Composition(Mechanism):
    """Independent runs of several mechanisms on the same dataset; the output is their tuple."""

    def __init__(self, name: str, mechanisms: Sequence[Mechanism]) -> None:
        super().__init__(name)
        if not mechanisms:
            raise ModelError("a composition needs at least one mechanism", f"mechanisms.{name}")
        self.mechanisms = tuple(mechanisms)

    def kernel_key(self, dataset: Dataset) -> Hashable:
        """The parts' keys: the joint distribution is the product of the parts'."""
        return tuple(m.kernel_key(dataset) for m in self.mechanisms)

    def _compute(self, dataset: Dataset) -> Distribution:
        return product_distribution(m.distribution(dataset) for m in self.mechanisms)

    def _from_key(self, keys: Hashable) -> Distribution:
        return product_distribution(m.key_distribution(k) for m, k in zip(self.mechanisms, keys))

    def support_size(self, dataset: Dataset, limit: int) -> int | None:
        # The support of a product distribution is the product of the supports.
        sizes = [m.support_size(dataset, limit) for m in self.mechanisms]
        self._within_entries(limit)
        if any(size is None for size in sizes):
            return None
        return self._within(math.prod(sizes), dataset, limit)  # type: ignore[arg-type]

    def _within_entries(self, limit: int) -> None:
        """Refuse an output tuple of more than ``limit`` entries (:func:`output_entries`): one
        output of ``repeat`` 10^9 times is a 10^9-tuple even when the mechanism repeated is
        deterministic (a single output, which the support size alone would let through)."""
        entries = output_entries(self)
        if entries > limit:
            raise TooLargeError(
                f"mechanism {self.name!r} releases tuples of {size_text(entries)} entries (one "
                f"per run of the mechanisms it composes), more than the limit of "
                f"{size_text(limit)}; raise the limit with --max-outputs",
                f"mechanisms.{self.name}")

    def to_dict(self) -> dict:
        return {"compose": [m.name for m in self.mechanisms]}

    def parts(self) -> tuple[Mechanism, ...]:
        return self.mechanisms


class Repeated(Composition):
    """``k`` independent runs of one mechanism (``repeat(k)``).

    Only the base mechanism and ``k`` are stored (``repeat`` 10^9 times costs nothing until its
    kernel is asked for, and :meth:`support_size` refuses it at once: ``s^k`` outputs, each a
    ``k``-tuple, so even a deterministic base is refused beyond the limit).
    """

    def __init__(self, name: str, mechanism: Mechanism, times: int) -> None:
        if isinstance(times, bool) or not isinstance(times, int) or times < 1:
            raise ModelError(f"times must be an integer of at least 1, got {times!r}",
                             f"mechanisms.{name}.repeat.times")
        Mechanism.__init__(self, name)
        self.base, self.times = mechanism, times

    @property
    def mechanisms(self) -> tuple[Mechanism, ...]:  # type: ignore[override]
        """The ``k`` runs (the same mechanism ``k`` times)."""
        return (self.base,) * self.times

    def kernel_key(self, dataset: Dataset) -> Hashable:
        return self.base.kernel_key(dataset)

    def _compute(self, dataset: Dataset) -> Distribution:
        return self._from_key(self.base.kernel_key(dataset))

    def _from_key(self, key: Hashable) -> Distribution:
        base = self.base.key_distribution(key)
        return product_distribution(base for _ in range(self.times))

    def support_size(self, dataset: Dataset, limit: int) -> int | None:
        size = self.base.support_size(dataset, limit)
        if size is None or size <= 1:
            self._within_entries(limit)
            return size
        total = 1
        for _ in range(self.times):  # stops after at most log2(limit) + 1 rounds
            total *= size
            if total > limit:
                exponent = self.times * math.log10(size)  # for the message only
                text = (size_text(size ** self.times) if exponent < 30
                        else f"{size}^{self.times:,} (about 10^{exponent:,.0f})")
                self._within(total, dataset, limit, text)
        self._within_entries(limit)
        return total

    def to_dict(self) -> dict:
        return {"repeat": {"mechanism": self.base.name, "times": self.times}}

    def parts(self) -> tuple[Mechanism, ...]:
        return (self.base,)


def output_entries(mechanism: Mechanism) -> int:
    """How many entries one output of ``mechanism`` holds once its nested tuples are flattened:
    1 for a mechanism that is not a composition, the sum over the parts of a composition, and
    ``k`` times the base's for ``repeat(k)``.  Cost: O(structure), never O(k).

    >>> from pufferfish.models.universe import Universe
    >>> rr = RandomizedResponse("rr", Universe.product(["x"], [[0, 1]]), Fraction(3, 4))
    >>> output_entries(compose([repeat(rr, 10**9), rr]))
    1000000001
    """
    if isinstance(mechanism, Repeated):
        return mechanism.times * output_entries(mechanism.base)
    if isinstance(mechanism, Composition):
        return sum(output_entries(part) for part in mechanism.mechanisms)
    return 1


def repeat(mechanism: Mechanism, times: int, name: str | None = None) -> Repeated:
    """``times`` independent runs of ``mechanism`` on the same dataset."""
    return Repeated(name or f"{mechanism.name}^{times}", mechanism, times)


def compose(mechanisms: Sequence[Mechanism], name: str | None = None) -> Composition:
    """The joint release of independent runs of ``mechanisms``."""
    return Composition(name or "+".join(m.name for m in mechanisms), mechanisms)


class PostProcessed(Mechanism):
    """``A ∘ M``: the stochastic map ``A`` (output of ``M`` → distribution) applied to ``M``."""

    def __init__(self, name: str, mechanism: Mechanism,
                 mapping: Mapping[Output, Distribution] | Callable[[Output], Distribution]) -> None:
        super().__init__(name)
        self.base = mechanism
        if not callable(mapping):
            mapping = _canonical_map(mapping, f"mechanisms.{name}.postprocess.map")
        self.mapping = mapping

    def apply(self, output: Output) -> Distribution:
        """The distribution of ``A(output)`` (a function map receives the canonical output,
        :mod:`pufferfish.models.values`, and may return a Distribution or a mapping of exact
        probabilities)."""
        if callable(self.mapping):
            return as_distribution(self.mapping(output),
                                   f"mechanisms.{self.name}.postprocess (output {_jsonable(output)!r})")
        try:
            return self.mapping[canonical_value(output)]
        except KeyError:
            raise ModelError(f"the post-processing map has no entry for output {_jsonable(output)!r}",
                             f"mechanisms.{self.name}.postprocess.map") from None

    def kernel_key(self, dataset: Dataset) -> Hashable:
        """The read mechanism's key: the map is applied to its output alone."""
        return self.base.kernel_key(dataset)

    def _compute(self, dataset: Dataset) -> Distribution:
        return self._from_key(self.base.kernel_key(dataset))

    def _from_key(self, key: Hashable) -> Distribution:
        inner = self.base.key_distribution(key)
        return Distribution.mixture((p, self.apply(output)) for output, p in inner.items())

    def support_size(self, dataset: Dataset, limit: int) -> int | None:
        # The mechanism read is built in full, so it must fit; the map may merge outputs.
        self.base.support_size(dataset, limit)
        return super().support_size(dataset, limit)

    def to_dict(self) -> dict:
        if callable(self.mapping):
            raise ModelError(f"mechanism {self.name!r} post-processes with a Python function, "
                             "which a model file cannot hold; tabulate it first")
        return {"postprocess": {"mechanism": self.base.name,
                                "map": [[_jsonable(o), [[_jsonable(y), fraction_str(p)]
                                                        for y, p in dist.items()]]
                                        for o, dist in self.mapping.items()]}}

    def parts(self) -> tuple[Mechanism, ...]:
        return (self.base,)


class FunctionMechanism(Mechanism):
    """A mechanism defined by a Python function ``dataset -> Distribution`` (for builders)."""

    def __init__(self, name: str, function: Callable[[Dataset], Distribution],
                 description: str = "") -> None:
        super().__init__(name)
        self.function = function
        self.description = description

    def _compute(self, dataset: Dataset) -> Distribution:
        return as_distribution(self.function(dataset),
                               f"mechanisms.{self.name} (dataset {list(dataset)})")

    def to_dict(self) -> dict:
        raise ModelError(f"mechanism {self.name!r} is a Python function; tabulate it over the "
                         "universe to write it to a model file")


def tabulate(mechanism: Mechanism, datasets: Sequence[Dataset], name: str | None = None) -> TableMechanism:
    """The same kernel written out as a table over ``datasets``."""
    return TableMechanism(name or mechanism.name, {d: mechanism.distribution(d) for d in datasets})


def as_distribution(value: object, path: str) -> Distribution:
    """``value`` as a :class:`Distribution`: a Distribution as it is, a mapping of outputs to exact
    probabilities (``{0: "1/4", 1: Fraction(3, 4)}``) validated at ``path``; anything else is
    refused with what it is."""
    if isinstance(value, Distribution):
        return value
    if isinstance(value, Mapping):
        return Distribution(value, path)
    raise ModelError(f"expected an output distribution (a Distribution or a mapping of outputs to "
                     f"exact probabilities), got {type(value).__name__} {value!r:.80}", path)


def _canonical_map(mapping: Mapping[Output, object], path: str) -> dict[Output, Distribution]:
    """A post-processing map keyed by canonical outputs; two keys that are one output are
    refused."""
    canonical: dict[Output, Distribution] = {}
    for output, image in mapping.items():
        key = canonical_value(output, path)
        if key in canonical:
            raise ModelError(f"output {_jsonable(key)!r} is mapped twice", path)
        canonical[key] = as_distribution(image, f"{path} (output {_jsonable(key)!r})")
    return canonical


_jsonable = json_value
jsonable_output = json_value
"""An output as JSON holds it (:func:`pufferfish.models.values.json_value`)."""
