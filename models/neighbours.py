"""Neighbour relations of differential privacy, as data.

Definitions 1–3 of Bai, He, Gu, Kifer and Maeng, *Composition for Pufferfish Privacy* (§2.1)
bound ``Pr[M(D) = ω] <= e^ε Pr[M(D') = ω]`` for every pair of *neighbouring* datasets ``D, D'``
and every output ω; what a DP guarantee protects is decided by the neighbour relation.  A
relation here is symmetric and irreflexive (a pair is compared in both orders, a dataset is never
its own neighbour).  The relations, with the text form used by the command line
(``audit --neighbours``), Python (``relation=``) and the model file's optional ``"neighbours"``
key:

* ``entry`` — Definition 2: ``D, D'`` differ in exactly one attribute.
* ``record`` — Definition 1: ``D, D'`` differ only inside one person's record (the model's
  ``records``).
* ``group:K`` — Definition 3: ``D, D'`` differ in at most ``K`` attributes.
* ``linf:K`` — vectors of query answers (each attribute holds a numeric answer): ``D ≠ D'`` and
  ``|D_i − D'_i| <= K`` for every attribute ``i``; every answer moves by at most ``K``, as the
  sensitivity-``K`` queries of the sparse vector technique do (Dwork and Roth, *The Algorithmic
  Foundations of Differential Privacy*, §3.6).
* ``l1:K`` — vectors of query answers: ``0 < Σ_i |D_i − D'_i| <= K`` (the ℓ1 distance of Dwork
  and Roth, §2.3).
* ``monotone:K`` — vectors of *monotonic* query answers: a pair of ``linf:K`` whose answers all
  move the same way (``D_i ≤ D'_i`` for every ``i``, or ``D_i ≥ D'_i`` for every ``i``), as
  counting queries do when one record is added (Lyu, Su and Li, *Understanding the Sparse Vector
  Technique for Differential Privacy*, PVLDB 2017, §3: the Sparse Vector needs half the noise on
  its answers then; the INCREASING and DECREASING preconditions of the CheckDP benchmark).
* ``add_remove:VALUE`` — add or remove one record (unbounded DP, Dwork and Roth, §2.3).
  ``VALUE``, a value of every attribute's domain, marks a missing record.  A record (a part of
  the model's ``records``; by default each attribute) is *absent* when every attribute of it holds
  ``VALUE`` and *present* when none does; ``D, D'`` are neighbours when they agree outside one
  record that is absent in one of them and present in the other.  A partly absent record is
  neither, so such a dataset has neighbours only through its other records.  In a model file:
  ``{"add_remove": {"absent": VALUE}}`` (``VALUE`` a JSON integer or string, typed as in the
  domain).
* ``pairs:FILE`` — an explicit, undirected list of neighbouring pairs, read from the JSON file
  ``FILE``, which holds ``{"pairs": [[D, D'], ...]}``, the model file's form.  Every dataset must
  be in the universe, the two datasets of a pair must differ, and a pair is listed once (in either
  order).

``K`` is a positive integer for ``group`` and a positive exact rational (``1``, ``1/2``, ``0.5``)
for ``linf``, ``l1`` and ``monotone``, which refuse non-numeric domains.  Entry, record and group relations are
computed by :mod:`pufferfish.verify.privacy.dp` and :mod:`pufferfish.verify.privacy.dp_blocks`
(neighbours generated, per-entry DP split into blocks); the others are
:class:`ScannedRelation`\\ s, whose ordered pairs are generated and counted here.

>>> from pufferfish.models.universe import Universe
>>> answers = Universe.product(["q1", "q2", "q3"], [[0, 1, 2]] * 3)
>>> relation = parse_neighbours("linf:1", answers)
>>> relation.label, relation.scan_size(answers), relation.adjacent((0, 0, 0), (1, 1, 1))
('linf:1', 316, True)

Length: every relation's definition, text and file forms, closed-form pair count and generation
in scan order are one concept, read together by the DP scans; split, each relation would be
spread over several modules.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product as cartesian

from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.universe import Dataset, Universe, Value
from pufferfish.models.values import canonical_value

DEFAULT_MAX_PAIRS = 10**7
"""Default limit on the ordered pairs of datasets one scan of a relation examines
(``--max-pairs``)."""

RELATION_FORMS = ("entry, record, group:K, linf:K, l1:K, monotone:K (K a positive rational), "
                  "add_remove:VALUE (VALUE marks an absent record) or pairs:FILE (a JSON file "
                  "{\"pairs\": [[dataset, dataset], ...]})")
"""The text forms of a relation, for messages and ``--help``."""


class NeighbourRelation(ABC):
    """A symmetric, irreflexive relation on the datasets of a universe (see the module)."""

    kind: str

    @property
    @abstractmethod
    def label(self) -> str:
        """How results name the relation (``DPResult.relation``)."""

    @abstractmethod
    def to_json(self) -> object:
        """The model-file form (the value of the ``"neighbours"`` key)."""

    @abstractmethod
    def adjacent(self, first: Dataset, second: Dataset, records: Sequence[Sequence[int]] = ()
                 ) -> bool:
        """Whether two datasets are neighbours, straight from the definition (``records``: the
        universe's records, read by ``record`` and ``add_remove``; default one per attribute)."""

    def check(self, universe: Universe, path: str = "neighbours") -> None:
        """Refuse, located at ``path``, a relation that does not apply to ``universe``."""


@dataclass(frozen=True)
class StandardRelation(NeighbourRelation):
    """``entry``, ``record`` or ``group:K`` (Definitions 2, 1 and 3 of Bai et al., Composition for
    Pufferfish Privacy, §2.1).

    >>> StandardRelation("group", 2).label, StandardRelation("group", 2).to_json()
    ('group 2', 'group:2')
    """

    kind: str
    k: int = 1

    @property
    def label(self) -> str:
        return f"group {self.k}" if self.kind == "group" else self.kind

    @property
    def text(self) -> str:
        """The form :func:`pufferfish.verify.privacy.dp.parse_relation` reads."""
        return f"group:{self.k}" if self.kind == "group" else self.kind

    def to_json(self) -> object:
        return self.text

    def adjacent(self, first: Dataset, second: Dataset, records: Sequence[Sequence[int]] = ()
                 ) -> bool:
        changed = [i for i, (a, b) in enumerate(zip(first, second)) if a != b]
        if not changed:
            return False
        if self.kind == "group":
            return len(changed) <= self.k
        if self.kind == "record" and records:
            return any(set(changed) <= set(record) for record in records)
        return len(changed) == 1


class ScannedRelation(NeighbourRelation):
    """A relation whose DP level is computed by scanning its ordered pairs
    (:func:`pufferfish.verify.privacy.dp.dp_levels_by_relation`)."""

    needs_every_dataset = True
    """Whether the scan reads every dataset of the universe (a rule) or only its own (a list)."""

    @abstractmethod
    def scan_size(self, universe: Universe) -> int:
        """The ordered pairs of datasets :meth:`ordered_pairs` examines, counted without
        generating them — exact neighbour pairs on a product universe."""

    @abstractmethod
    def ordered_pairs(self, universe: Universe) -> Iterator[tuple[Dataset, Dataset]]:
        """Every ordered pair ``(D, D')`` of neighbours in the universe, each once, in a fixed
        order (dataset by dataset in the universe's order, neighbours in domain order)."""

    def datasets_read(self, universe: Universe, limit: int) -> list[Dataset]:
        """The datasets the scan meets, in order (:class:`TooLargeError` beyond ``limit``)."""
        return list(universe.datasets(limit))


class _RuleRelation(ScannedRelation):
    """A relation defined by a rule on values: each dataset's neighbours are generated (in a
    product universe every candidate is a dataset); on an explicit universe of ``N`` datasets
    candidates are generated and looked up, or, when the rule would generate more than
    ``N·(N − 1)`` candidates in all, every ordered pair of listed datasets is tested."""

    @abstractmethod
    def _candidates(self, universe: Universe, dataset: Dataset) -> Iterator[Dataset]:
        """The neighbours of ``dataset`` in the product of the domains, in domain order."""

    @abstractmethod
    def _candidate_count(self, universe: Universe, dataset: Dataset) -> int:
        """``len(list(self._candidates(universe, dataset)))``, counted."""

    @abstractmethod
    def _product_total(self, universe: Universe) -> int:
        """``Σ_D self._candidate_count(D)`` over the product of the domains, in closed form."""

    def _generated(self, universe: Universe) -> int:
        if universe.explicit is None:
            return self._product_total(universe)
        return sum(self._candidate_count(universe, d) for d in universe.explicit)

    def _tests_every_pair(self, universe: Universe) -> bool:
        size = universe.size
        return universe.explicit is not None and self._generated(universe) > size * (size - 1)

    def scan_size(self, universe: Universe) -> int:
        """``O(n)`` arithmetic on a product universe of ``n`` attributes; ``O(N·n)`` (and up to
        ``O(N·n·K)`` for ``l1``) on an explicit universe of ``N`` datasets."""
        size = universe.size
        return min(self._generated(universe), size * (size - 1))

    def ordered_pairs(self, universe: Universe) -> Iterator[tuple[Dataset, Dataset]]:
        if self._tests_every_pair(universe):
            listed = universe.explicit
            for dataset in listed:
                yield from ((dataset, other) for other in listed
                            if self.adjacent(dataset, other, universe.records))
            return
        explicit = universe.explicit is not None
        for dataset in universe.datasets(universe.size):
            for other in self._candidates(universe, dataset):
                if not explicit or other in universe:
                    yield dataset, other


def _numeric(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | Fraction)


def _one_direction(first: Dataset, second: Dataset) -> bool:
    """Whether no answer goes down from ``first`` to ``second`` or none goes up."""
    return (all(a <= b for a, b in zip(first, second))
            or all(a >= b for a, b in zip(first, second)))


@dataclass(frozen=True)
class AnswerDistance(_RuleRelation):
    """``linf:K``, ``l1:K`` or ``monotone:K`` on vectors of numeric query answers (see the
    module).

    >>> u = Universe.product(["q1", "q2"], [[0, 1, 2]] * 2)
    >>> one = Fraction(1)
    >>> AnswerDistance("l1", one).adjacent((0, 0), (1, 1)), AnswerDistance("linf", one).adjacent((0, 0), (1, 1))
    (False, True)
    >>> sorted(AnswerDistance("l1", Fraction(1)).ordered_pairs(u))[:2]
    [((0, 0), (0, 1)), ((0, 0), (1, 0))]
    >>> up = AnswerDistance("monotone", one)
    >>> up.adjacent((0, 0), (1, 1)), up.adjacent((0, 1), (1, 0)), up.scan_size(u)
    (True, False, 32)
    """

    kind: str
    bound: Fraction

    @property
    def label(self) -> str:
        return f"{self.kind}:{fraction_str(self.bound)}"

    def to_json(self) -> object:
        return self.label

    def adjacent(self, first: Dataset, second: Dataset, records: Sequence[Sequence[int]] = ()
                 ) -> bool:
        moves = [abs(a - b) for a, b in zip(first, second)]
        if not any(moves):
            return False
        if self.kind == "monotone" and not _one_direction(first, second):
            return False
        return (sum(moves) if self.kind == "l1" else max(moves)) <= self.bound

    def check(self, universe: Universe, path: str = "neighbours") -> None:
        for name, domain in zip(universe.attributes, universe.domains):
            for value in domain:
                if not _numeric(value):
                    raise ModelError(
                        f"the relation {self.label} compares numeric query answers, but attribute "
                        f"{name!r} takes the value {value!r}; give every attribute a domain of "
                        f"integers or use entry, record, group:K, add_remove or pairs", path)

    def _reach(self, universe: Universe, position: int, value: Value
               ) -> list[tuple[Value, Fraction]]:
        """The values of attribute ``position`` within ``bound`` of ``value``, in domain order,
        each with its distance."""
        return [(w, abs(w - value)) for w in universe.domains[position]
                if abs(w - value) <= self.bound]

    def _candidates(self, universe: Universe, dataset: Dataset) -> Iterator[Dataset]:
        options = [self._reach(universe, i, v) for i, v in enumerate(dataset)]
        if self.kind != "l1":
            for values in cartesian(*([w for w, _ in choice] for choice in options)):
                if values != dataset and (self.kind == "linf"
                                          or _one_direction(dataset, values)):
                    yield values
            return
        # l1: depth-first over the attributes, cutting branches that exceed the bound
        width = len(options)
        chosen: list[Value] = []
        spent = [Fraction(0)]
        stack = [iter(options[0])]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                if chosen:
                    chosen.pop()
                    spent.pop()
                continue
            value, distance = step
            if spent[-1] + distance > self.bound:
                continue
            if len(stack) == width:
                candidate = (*chosen, value)
                if candidate != dataset:
                    yield candidate
                continue
            chosen.append(value)
            spent.append(spent[-1] + distance)
            stack.append(iter(options[len(stack)]))

    def _candidate_count(self, universe: Universe, dataset: Dataset) -> int:
        if self.kind == "monotone":  # the moves all up, or all down; the dataset is in both
            reach = [self._reach(universe, i, v) for i, v in enumerate(dataset)]
            return sum(math.prod(sum(1 for w, _ in options if (w - v) * sign >= 0)
                                 for (options, v) in zip(reach, dataset))
                       for sign in (1, -1)) - 2
        distances = [[d for _, d in self._reach(universe, i, v)] for i, v in enumerate(dataset)]
        return self._count_within(distances) - 1

    def _product_total(self, universe: Universe) -> int:
        if self.kind == "monotone":  # Σ_D Π_i up_i(D_i) = Π_i Σ_v up_i(v), and the same down
            return sum(math.prod(sum(1 for v in domain for w in domain
                                     if 0 <= (w - v) * sign <= self.bound)
                                 for domain in universe.domains)
                       for sign in (1, -1)) - 2 * universe.size
        distances = [[abs(v - w) for v in domain for w in domain if abs(v - w) <= self.bound]
                     for domain in universe.domains]
        return self._count_within(distances) - universe.size

    def _count_within(self, distances: Sequence[Sequence[Fraction]]) -> int:
        """How many choices of one distance per list keep the max (``linf``) or the sum
        (``l1``) within the bound — every listed distance is within it."""
        if self.kind == "linf":
            return math.prod(len(choices) for choices in distances)
        totals: dict[Fraction, int] = {Fraction(0): 1}
        for choices in distances:
            step: dict[Fraction, int] = {}
            for distance in choices:
                for total, count in totals.items():
                    if total + distance <= self.bound:
                        step[total + distance] = step.get(total + distance, 0) + count
            totals = step
        return sum(totals.values())


@dataclass(frozen=True)
class AddRemove(_RuleRelation):
    """Add or remove one record; ``absent`` marks a missing record (see the module).

    >>> u = Universe.product(["p1", "p2"], [[0, 1, "-"]] * 2)
    >>> relation = AddRemove("-")
    >>> list(relation._candidates(u, (0, "-")))
    [('-', '-'), (0, 0), (0, 1)]
    >>> relation.scan_size(u), relation.adjacent((0, "-"), (1, "-"))
    (24, False)
    """

    absent: Value
    kind = "add_remove"

    @property
    def label(self) -> str:
        return f"add_remove:{self.absent}"

    def to_json(self) -> object:
        return {"add_remove": {"absent": self.absent}}

    def check(self, universe: Universe, path: str = "neighbours") -> None:
        for name, domain in zip(universe.attributes, universe.domains):
            if self.absent not in domain:
                raise ModelError(
                    f"the absent value {self.absent!r} is not in the domain {list(domain)} of "
                    f"attribute {name!r}; add it to every attribute's domain (a record is absent "
                    f"when all its attributes hold it)", path)

    def _state(self, dataset: Dataset, record: Sequence[int]) -> str:
        missing = [dataset[i] == self.absent for i in record]
        return "absent" if all(missing) else "present" if not any(missing) else "partial"

    def adjacent(self, first: Dataset, second: Dataset, records: Sequence[Sequence[int]] = ()
                 ) -> bool:
        records = records or [(i,) for i in range(len(first))]
        changed = {i for i, (a, b) in enumerate(zip(first, second)) if a != b}
        for record in records:
            if changed and changed <= set(record):
                return {self._state(first, record), self._state(second, record)} == {
                    "absent", "present"}
        return False

    def _fillings(self, universe: Universe, record: Sequence[int]) -> list[tuple]:
        return list(cartesian(*([v for v in universe.domains[i] if v != self.absent]
                                for i in record)))

    def _candidates(self, universe: Universe, dataset: Dataset) -> Iterator[Dataset]:
        for record in universe.records:
            state = self._state(dataset, record)
            if state == "partial":
                continue
            fillings = ([(self.absent,) * len(record)] if state == "present"
                        else self._fillings(universe, record))
            for filling in fillings:
                candidate = list(dataset)
                for i, value in zip(record, filling):
                    candidate[i] = value
                yield tuple(candidate)

    def _candidate_count(self, universe: Universe, dataset: Dataset) -> int:
        count = 0
        for record in universe.records:
            state = self._state(dataset, record)
            count += (1 if state == "present" else 0 if state == "partial" else
                      math.prod(len(universe.domains[i]) - 1 for i in record))
        return count

    def _product_total(self, universe: Universe) -> int:
        # a record is present in Π(d_i − 1) of its Π d_i fillings, and absent in exactly one
        total = 0
        for record in universe.records:
            fillings = math.prod(len(universe.domains[i]) for i in record)
            present = math.prod(len(universe.domains[i]) - 1 for i in record)
            total += 2 * present * (universe.size // fillings)
        return total



@dataclass(frozen=True)
class ListedPairs(ScannedRelation):
    """An explicit, undirected list of neighbouring pairs (see the module).

    >>> relation = ListedPairs((((0, 0), (1, 1)), ((0, 0), (0, 1))))
    >>> relation.label, list(relation.ordered_pairs(None))[:2]
    ('listed pairs (2)', [((0, 0), (1, 1)), ((1, 1), (0, 0))])
    """

    pairs: tuple[tuple[Dataset, Dataset], ...]
    kind = "pairs"
    needs_every_dataset = False

    @property
    def label(self) -> str:
        return f"listed pairs ({len(self.pairs)})"

    def to_json(self) -> object:
        return {"pairs": [[list(first), list(second)] for first, second in self.pairs]}

    def adjacent(self, first: Dataset, second: Dataset, records: Sequence[Sequence[int]] = ()
                 ) -> bool:
        return (first, second) in self.pairs or (second, first) in self.pairs

    def check(self, universe: Universe, path: str = "neighbours") -> None:
        seen: dict[frozenset, int] = {}
        for k, pair in enumerate(self.pairs):
            for j, dataset in enumerate(pair):
                universe.require_dataset(dataset, join_path(path, "pairs", k, j))
            if pair[0] == pair[1]:
                raise ModelError(f"a dataset is not its own neighbour: pair {k} lists "
                                 f"{list(pair[0])} twice", join_path(path, "pairs", k))
            key = frozenset(pair)
            if key in seen:
                raise ModelError(f"the pair {list(pair[0])}, {list(pair[1])} is already listed "
                                 f"(as pair {seen[key]}; pairs are undirected)",
                                 join_path(path, "pairs", k))
            seen[key] = k

    def scan_size(self, universe: Universe) -> int:
        return 2 * len(self.pairs)

    def ordered_pairs(self, universe: Universe) -> Iterator[tuple[Dataset, Dataset]]:
        for first, second in self.pairs:
            yield first, second
            yield second, first

    def datasets_read(self, universe: Universe, limit: int) -> list[Dataset]:
        return list(dict.fromkeys(d for pair in self.pairs for d in pair))


def _dataset(raw: object) -> object:
    """A listed dataset in canonical form (checked against the universe by ``check``)."""
    if not isinstance(raw, list | tuple):
        return raw
    try:
        return canonical_value(tuple(raw))
    except ModelError:
        return tuple(raw)  # ``check`` refuses it with its location


def parse_neighbours(spec: object, universe: Universe, path: str = "neighbours"
                     ) -> NeighbourRelation:
    """The relation ``spec`` names, checked against ``universe``; errors located at ``path``.

    ``spec``: a relation object; a text form (module table; case and spaces around the parts
    ignored, ``group K`` and ``add-remove`` accepted); or a model file's JSON form —
    ``{"pairs": [[D, D'], ...]}`` or ``{"add_remove": {"absent": VALUE}}``.  In the text form
    ``add_remove:VALUE`` names the domain value whose text is ``VALUE``, and ``pairs:FILE`` reads
    the list of pairs from the JSON file ``FILE``.  Cost: linear in ``spec``, plus
    :meth:`NeighbourRelation.check` (a pass over the domains, or over the listed pairs).

    >>> from pufferfish.models.universe import Universe
    >>> u = Universe.product(["a", "b"], [[0, 1, "-"]] * 2)
    >>> parse_neighbours("add-remove:-", u).to_json()
    {'add_remove': {'absent': '-'}}
    >>> parse_neighbours("linf:1", u)
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: neighbours: the relation linf:1 compares numeric query answers, but attribute 'a' takes the value '-'; give every attribute a domain of integers or use entry, record, group:K, add_remove or pairs
    """
    if isinstance(spec, NeighbourRelation):
        relation = spec
    elif isinstance(spec, str):
        relation = _parse_text(spec, universe, path)
    elif isinstance(spec, Mapping):
        relation = _parse_json(spec, path)
    else:
        raise ModelError(f"expected a neighbour relation ({RELATION_FORMS}), got {spec!r}", path)
    relation.check(universe, path)
    return relation


def parse_file_neighbours(raw: object, universe: Universe, path: str = "neighbours"
                          ) -> NeighbourRelation:
    """The ``"neighbours"`` value of a model file: ``"entry"``, ``"record"``, ``"group:K"``,
    ``"linf:K"``, ``"l1:K"``, ``"monotone:K"``, ``{"pairs": [[D, D'], ...]}`` or
    ``{"add_remove": {"absent": VALUE}}`` (a file names no other file, and writes its absent
    value with its JSON type).

    >>> from pufferfish.models.universe import Universe
    >>> u = Universe.product(["a", "b"], [[0, 1]] * 2)
    >>> parse_file_neighbours("pairs:more.json", u)
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: neighbours: in a model file this relation is written {"pairs": [[dataset, dataset], ...]}
    """
    if isinstance(raw, str):
        kind = raw.partition(":")[0].strip().lower().replace("-", "_").split(" ")[0]
        if kind in _OBJECT_FORMS:
            raise ModelError(f"in a model file this relation is written {_OBJECT_FORMS[kind]}", path)
        if kind not in ("entry", "record", "group", "linf", "l1", "monotone"):
            raise ModelError(f"unknown neighbour relation {raw!r}; use \"entry\", \"record\", "
                             f"\"group:K\", \"linf:K\", \"l1:K\", \"monotone:K\" (K a "
                             f"positive rational), "
                             f"{_OBJECT_FORMS['pairs']} or {_OBJECT_FORMS['add_remove']}", path)
    return parse_neighbours(raw, universe, path)


_OBJECT_FORMS = {"pairs": '{"pairs": [[dataset, dataset], ...]}',
                 "add_remove": '{"add_remove": {"absent": VALUE}}'}


def _parse_text(text: str, universe: Universe, path: str) -> NeighbourRelation:
    kind, _, argument = text.strip().partition(":")
    kind = kind.strip().lower().replace("-", "_")
    argument = argument.strip()
    if not argument and " " in kind:  # "group 2"
        kind, _, argument = kind.partition(" ")
        argument = argument.strip()
    if kind in ("entry", "record") and not argument:
        return StandardRelation(kind)
    if kind == "group" and argument.isdigit() and int(argument) >= 1:
        return StandardRelation("group", int(argument))
    if kind in ("linf", "l1", "monotone") and argument:
        bound = exact(argument, path)
        if bound <= 0:
            raise ModelError(f"the bound of {kind} must be positive, got {argument}", path)
        return AnswerDistance(kind, bound)
    if kind == "add_remove" and argument:
        return AddRemove(_value_by_text(argument, universe, path))
    if kind == "pairs" and argument:
        return _pairs_file(argument, universe, path)
    raise ModelError(f"unknown neighbour relation {text!r}; use {RELATION_FORMS}", path)


def _pairs_file(file: str, universe: Universe, path: str) -> ListedPairs:
    """The pairs of the JSON file ``file`` (``{"pairs": [[D, D'], ...]}``, the model file's
    form); an error names the option, the file and the JSON path in it."""
    from pufferfish.models.files.json_io import read_json_file

    raw = read_json_file(file, "neighbour pairs file")
    try:
        if not isinstance(raw, Mapping) or set(raw) != {"pairs"}:
            raise ModelError("the file must hold {\"pairs\": [[dataset, dataset], ...]}")
        relation = _parse_json(raw, "")
        relation.check(universe, "")
    except ModelError as error:
        raise type(error)(error.reason, f"{path} {file}" + (f": {error.path}" if error.path
                                                             else "")) from None
    return relation


def _parse_json(raw: Mapping, path: str) -> NeighbourRelation:
    if set(raw) == {"pairs"}:
        pairs = raw["pairs"]
        if not isinstance(pairs, list | tuple) or not pairs:
            raise ModelError("'pairs' needs a non-empty list of [dataset, dataset] pairs",
                             join_path(path, "pairs"))
        built = []
        for k, pair in enumerate(pairs):
            if not isinstance(pair, list | tuple) or len(pair) != 2:
                raise ModelError("a pair lists exactly two datasets", join_path(path, "pairs", k))
            built.append((_dataset(pair[0]), _dataset(pair[1])))
        return ListedPairs(tuple(built))
    if set(raw) == {"add_remove"} and isinstance(raw["add_remove"], Mapping) \
            and set(raw["add_remove"]) == {"absent"}:
        return AddRemove(raw["add_remove"]["absent"])
    raise ModelError(f"expected {{\"pairs\": [...]}} or {{\"add_remove\": {{\"absent\": VALUE}}}}, "
                     f"got the keys {sorted(raw)}", path)


def _value_by_text(text: str, universe: Universe, path: str) -> Value:
    """The domain value whose text is ``text`` (as the keys of a model file's objects)."""
    found = list(dict.fromkeys(v for domain in universe.domains for v in domain
                               if str(v) == text))
    if len(found) > 1:
        raise ModelError(f"the value {text!r} is ambiguous: the domains hold {found}", path)
    if not found:
        raise ModelError(f"no attribute's domain holds the value {text!r}", path)
    return found[0]


__all__ = ["DEFAULT_MAX_PAIRS", "RELATION_FORMS", "NeighbourRelation", "StandardRelation",
           "ScannedRelation", "AnswerDistance", "AddRemove", "ListedPairs", "parse_neighbours",
           "parse_file_neighbours"]
