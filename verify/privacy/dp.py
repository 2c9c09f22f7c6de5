"""Exact differential-privacy levels (Bai et al., Composition for Pufferfish Privacy, §2.1,
Definitions 1–3).

For a neighbour relation on the universe, the DP level of ``M`` is ``log r*`` with
``r* = max Pr[M(D) = ω] / Pr[M(D') = ω]`` over neighbouring ``(D, D')`` (both orders) and outputs
ω.  A ratio ``x/0`` with ``x > 0`` is infinite; ``0/0`` imposes nothing.  Neighbour relations:

* ``entry`` — per-entry DP (Definition 2): ``D, D'`` differ in exactly one attribute;
* ``record`` — DP (Definition 1): ``D, D'`` differ only inside one person's record (the model's
  ``records``; by default each attribute is a record, so this equals ``entry``);
* ``group k`` — Definition 3: ``D, D'`` differ in at most ``k`` entries.  Definition 3 states the
  guarantee ``kε`` for a per-entry ε mechanism; the exact group level computed here can be smaller,
  and is never larger (checked in the tests).

Neighbours are generated, not searched: ``O(|𝒰|·Σ_{j<=k} C(n,j)(d-1)^j·|Ω|)`` for the group
relation over ``n`` attributes with domains of size ``d``; the ``|Ω|`` factor is paid once per
distinct pair of kernel rows (datasets with the same
:meth:`~pufferfish.models.mechanisms.Mechanism.kernel_key` share a row), so a query mechanism on
2^n datasets costs ``O(2^n·n)`` neighbour steps plus ``O(n·|Ω|)`` comparisons.

The other relations of :mod:`pufferfish.models.neighbours` — ``linf:K`` and ``l1:K`` on vectors
of query answers, ``add_remove`` of one record, an explicit list of pairs — are scanned pair by
pair by :func:`dp_levels_by_relation`, with the same kernel-key sharing, after their pairs are
counted (and refused above a limit); :func:`dp_level` takes any of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations, product

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.neighbours import (DEFAULT_MAX_PAIRS, NeighbourRelation, ScannedRelation,
                                          parse_neighbours)
from pufferfish.models.numbers import (INFINITY, Ratio, decimal_text, epsilon_float, epsilon_str,
                                       exact_ratio, fraction_str)
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe, size_text
from pufferfish.verify.numerics.certified import Budget, BudgetCheck, compare_ratio
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class DPResult(Explained):
    """The exact DP level of a mechanism for one neighbour relation, with the worst pair."""

    mechanism: str
    relation: str
    max_ratio: Ratio
    dataset: Dataset | None = None
    neighbour: Dataset | None = None
    output: object = None
    p_dataset: Fraction | None = None
    p_neighbour: Fraction | None = None
    pairs_checked: int = 0
    budget: BudgetCheck | None = None

    @property
    def epsilon(self) -> str:
        return epsilon_str(self.max_ratio)

    @property
    def holds(self) -> bool | None:
        return None if self.budget is None else self.budget.holds

    def to_dict(self) -> dict:
        data = {"check": "dp", "mechanism": self.mechanism, "neighbours": self.relation,
                "max_ratio": fraction_str(self.max_ratio), "epsilon": self.epsilon,
                "epsilon_float": epsilon_float(self.max_ratio), "pairs_checked": self.pairs_checked,
                "witness": None}
        if self.dataset is not None:
            data["witness"] = {"dataset": list(self.dataset), "neighbour": list(self.neighbour),
                               "output": jsonable_output(self.output),
                               "p_dataset": fraction_str(self.p_dataset),
                               "p_neighbour": fraction_str(self.p_neighbour)}
        if self.budget is not None:
            data["budget"] = self.budget.to_dict()
            data["holds"] = self.budget.holds
        return data

    def explain(self) -> str:
        text = f"{self.mechanism}: {self.relation} DP level ε = {self.epsilon}"
        if self.max_ratio != INFINITY:
            text += f" {decimal_text(self.max_ratio, log=True)}"
        if self.dataset is not None:
            text += (f"; worst pair {list(self.dataset)} vs {list(self.neighbour)} on output "
                     f"{jsonable_output(self.output)!r} ({fraction_str(self.p_dataset)} vs "
                     f"{fraction_str(self.p_neighbour)})")
        return text

    def _repr_html_(self) -> str:
        from pufferfish.verify.html_views import dp_html

        return dp_html(self)


def parse_relation(text: str) -> tuple[str, int]:
    """``"entry"``, ``"record"`` or ``"group:k"`` / ``"group k"`` → (kind, k)."""
    cleaned = text.strip().lower().replace(":", " ").split()
    if cleaned in (["entry"], ["record"]):
        return cleaned[0], 1
    if len(cleaned) == 2 and cleaned[0] == "group" and cleaned[1].isdigit() and int(cleaned[1]) >= 1:
        return "group", int(cleaned[1])
    raise ModelError(f"unknown neighbour relation {text!r}; use entry, record or group:K",
                     "--neighbours")


def neighbours(universe: Universe, dataset: Dataset, kind: str, k: int = 1) -> Iterator[Dataset]:
    """The datasets of the universe adjacent to ``dataset`` under the relation (each once)."""
    width = universe.width
    if kind == "group":
        # every dataset within Hamming distance k differs only inside some set of k positions
        position_sets = combinations(range(width), min(k, width))
    elif kind == "record":
        position_sets = iter(universe.records)
    else:
        position_sets = ((i,) for i in range(width))
    seen: set = set()
    for positions in position_sets:
        yield from _changes(universe, dataset, positions, seen)


def _changes(universe: Universe, dataset: Dataset, positions: tuple[int, ...],
             seen: set) -> Iterator[Dataset]:
    """Datasets of the universe that differ from ``dataset`` only at some of ``positions``."""
    choices = [[v for v in universe.domains[i]] for i in positions]
    for values in product(*choices):
        candidate = list(dataset)
        for i, v in zip(positions, values):
            candidate[i] = v
        candidate = tuple(candidate)
        # in a product universe every such candidate is a dataset; an explicit list may lack it
        if candidate == dataset or candidate in seen or (
                universe.explicit is not None and candidate not in universe):
            continue
        seen.add(candidate)
        yield candidate


def dp_level(universe: Universe, mechanism: Mechanism,
             relation: str | Mapping | NeighbourRelation = "entry",
             budget: Budget | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
             max_outputs: int = DEFAULT_MAX_OUTPUTS, max_pairs: int = DEFAULT_MAX_PAIRS
             ) -> DPResult:
    """The exact DP level of ``mechanism`` over ``universe`` for a neighbour relation: any form
    :func:`~pufferfish.models.neighbours.parse_neighbours` reads.  Entry, record and group
    relations generate neighbours here; the others are scanned by :func:`dp_levels_by_relation`
    (refused above ``max_pairs`` ordered pairs).

    >>> from fractions import Fraction
    >>> from pufferfish.models import Universe, RandomizedResponse
    >>> u = Universe.product(["x"], [[0, 1]])
    >>> dp_level(u, RandomizedResponse("rr", u, Fraction(3, 4))).epsilon
    'log(3)'
    >>> from pufferfish.models import GeometricNoise, Query, QueryMechanism
    >>> answers = Universe.product(["q1", "q2", "q3"], [[0, 1, 2]] * 3)
    >>> total = QueryMechanism("total", answers, Query("sum", answers),
    ...                        GeometricNoise(Fraction(1, 2), 0, 6))
    >>> dp_level(answers, total, "linf:1").epsilon           # the sum moves by up to 3
    'log(8)'
    """
    parsed = parse_neighbours(relation, universe, "neighbours")
    if isinstance(parsed, ScannedRelation):
        result = dp_levels_by_relation(universe, [mechanism], parsed, max_datasets, max_outputs,
                                       max_pairs)[0]
        return result if budget is None else replace(
            result, budget=compare_ratio(result.max_ratio, budget))
    relation = parsed.text  # entry, record or group:K: the generated neighbours below
    kind, k = parse_relation(relation)
    label = f"group {k}" if kind == "group" else kind
    datasets = list(universe.datasets(max_datasets))
    table = KernelTable.build(mechanism, datasets, max_outputs)
    best_num, best_den, witness = 0, 1, None
    checked = 0
    # Datasets with the same kernel key share one row object; the ratios of a pair of rows are
    # compared once (a later pair with the same rows cannot be strictly worse than the first).
    compared: set[tuple[int, int]] = set()
    for dataset in datasets:
        row = table.rows[table.dataset_index[dataset]]
        for other in neighbours(universe, dataset, kind, k):
            checked += 1
            other_row = table.rows[table.dataset_index[other]]
            rows_key = (id(row), id(other_row))
            if rows_key in compared:
                continue
            compared.add(rows_key)
            for o, (a, b) in enumerate(zip(row, other_row)):
                if a and a * best_den > best_num * b:
                    best_num, best_den, witness = a, b, (dataset, other, o)
                    if not b:
                        break
            if witness is not None and not best_den:
                break
        if witness is not None and not best_den:
            break
    if witness is None:
        ratio: Ratio = Fraction(1)
        result = DPResult(mechanism.name, label, ratio, pairs_checked=checked)
    else:
        ratio = INFINITY if not best_den else max(Fraction(1), exact_ratio(best_num, best_den))
        dataset, other, o = witness
        result = DPResult(mechanism.name, label, ratio, dataset, other, table.outputs[o],
                          table.prob(dataset, table.outputs[o]), table.prob(other, table.outputs[o]),
                          checked)
    if budget is not None:
        result = DPResult(**{**result.__dict__, "budget": compare_ratio(result.max_ratio, budget)})
    return result


def dp_levels_by_relation(universe: Universe, mechanisms: Sequence[Mechanism],
                          relation: ScannedRelation, max_datasets: int = DEFAULT_MAX_DATASETS,
                          max_outputs: int = DEFAULT_MAX_OUTPUTS,
                          max_pairs: int = DEFAULT_MAX_PAIRS) -> list[DPResult]:
    """The exact DP level of each mechanism under a scanned relation (``linf:K``, ``l1:K``,
    ``add_remove``, listed pairs; :mod:`pufferfish.models.neighbours`): ``max Pr[M(D) = ω] /
    Pr[M(D') = ω]`` over the relation's ordered pairs ``(D, D')`` and outputs ω
    (Bai et al., Composition for Pufferfish Privacy, §2.1, Definition 1 with this relation's
    neighbours), with the first worst pair met in the relation's order, as :func:`dp_level` reports
    it for the entry relation.

    The ordered pairs are counted first (:func:`scan_size_within`): more than ``max_pairs`` is
    refused with the count (:class:`TooLargeError`), none with a :class:`ModelError` (nothing to
    check).  Each mechanism's kernel keys number the datasets
    the relation reads, and a pair whose two key numbers were compared before is only counted:
    datasets with equal keys share one kernel row, so a later such pair cannot be strictly worse.
    All mechanisms share one pass over the pairs; a mechanism stops at its first infinite ratio.

    Cost: ``O(n)`` to count the pairs on a product universe of ``n`` attributes; ``O(N·M)``
    kernel keys for the ``N`` datasets read (every dataset of the universe, refused above
    ``max_datasets``, or those of the listed pairs) and ``M`` mechanisms; ``O(P·(n + M))`` to
    generate and visit the ``P`` ordered pairs; ``O(Q·|Ω|)`` exact integer comparisons for the
    ``Q <= min(P, K²)`` distinct pairs of a mechanism's ``K`` kernel keys.  Memory ``O(N·M + Q)``.

    >>> from fractions import Fraction
    >>> from pufferfish.models import Universe, RandomizedResponse
    >>> from pufferfish.models.neighbours import AnswerDistance
    >>> answers = Universe.product(["q1", "q2"], [[0, 1, 2]] * 2)
    >>> flip = RandomizedResponse("flip", answers, Fraction(1, 2))
    >>> level = dp_levels_by_relation(answers, [flip], AnswerDistance("linf", Fraction(1)))[0]
    >>> level.epsilon, level.pairs_checked, level.dataset, level.neighbour
    ('log(4)', 40, (0, 0), (1, 1))
    """
    size = scan_size_within(universe, relation, max_pairs)
    datasets = relation.datasets_read(universe, max_datasets)
    index = {dataset: k for k, dataset in enumerate(datasets)}
    scans = [_WorstPairScan(mechanism, datasets, max_outputs) for mechanism in mechanisms]
    pairs = 0
    for dataset, other in relation.ordered_pairs(universe):
        pairs += 1
        first, second = index[dataset], index[other]
        for scan in scans:
            if not scan.infinite:
                scan.compare(first, second)
        if all(scan.infinite for scan in scans):
            break
    if not pairs:  # an explicit universe: candidates were examined, none is a neighbour
        raise _nothing_to_check(relation)
    return [scan.result(relation.label, datasets) for scan in scans]


def scan_size_within(universe: Universe, relation: ScannedRelation,
                     max_pairs: int = DEFAULT_MAX_PAIRS) -> int:
    """The ordered pairs a scan of ``relation`` examines
    (:meth:`~pufferfish.models.neighbours.ScannedRelation.scan_size`), refused above
    ``max_pairs`` with the count (:class:`TooLargeError`) and, on a product universe, when there
    is none (:class:`ModelError`: nothing to check).  ``O(n)`` on a product universe of ``n``
    attributes, before any dataset is enumerated.

    >>> from pufferfish.models import Universe
    >>> from pufferfish.models.neighbours import parse_neighbours
    >>> answers = Universe.product([f"q{i}" for i in range(12)], [list(range(10))] * 12)
    >>> scan_size_within(answers, parse_neighbours("linf:1", answers))
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.TooLargeError: neighbours: the neighbour relation linf:1 has about 2.3·10^17 ordered pairs of datasets to examine in this universe, more than the limit of 10,000,000; raise the limit with --max-pairs
    """
    size = relation.scan_size(universe)
    if size > max_pairs:
        raise TooLargeError(f"the neighbour relation {relation.label} has {size_text(size)} "
                            f"ordered pairs of datasets to examine in this universe, more than the "
                            f"limit of {max_pairs:,}; raise the limit with --max-pairs",
                            "neighbours")
    if not size:
        raise _nothing_to_check(relation)
    return size


def _nothing_to_check(relation: ScannedRelation) -> ModelError:
    return ModelError(f"the neighbour relation {relation.label} relates no two datasets of this "
                      f"universe: there is no pair to check", "neighbours")


class _WorstPairScan:
    """One mechanism's running maximum over ordered pairs of dataset indices: the datasets'
    kernel keys numbered in order of first appearance, one kernel row per key, each distinct
    pair of key numbers compared once (strict improvement, stop at the first infinite ratio)."""

    def __init__(self, mechanism: Mechanism, datasets: Sequence[Dataset], max_outputs: int
                 ) -> None:
        numbering: dict = {}
        firsts: list[Dataset] = []
        self.numbers: list[int] = []
        for dataset in datasets:
            key = mechanism.kernel_key(dataset)
            number = numbering.get(key)
            if number is None:
                number = numbering[key] = len(numbering)
                firsts.append(dataset)
            self.numbers.append(number)
        self.mechanism = mechanism
        self.keys = len(numbering)
        self.table = KernelTable.build(mechanism, firsts, max_outputs)
        self.exceeds = self.table.ratio_test()
        self.compared: set[int] = set()
        self.best_num, self.best_den = 0, 1
        self.witness: tuple[int, int, int] | None = None
        self.checked = 0
        self.infinite = False

    def compare(self, first: int, second: int) -> None:
        self.checked += 1
        own, other = self.numbers[first], self.numbers[second]
        code = own * self.keys + other
        if code in self.compared:
            return
        self.compared.add(code)
        rows, exceeds = self.table.rows, self.exceeds
        for o, (a, b) in enumerate(zip(rows[own], rows[other])):
            if a and (a * self.best_den > self.best_num * b if exceeds is None
                      else exceeds(a, self.best_den, self.best_num, b)):
                self.best_num, self.best_den, self.witness = a, b, (first, second, o)
                if not b:
                    self.infinite = True
                    return

    def result(self, label: str, datasets: Sequence[Dataset]) -> DPResult:
        if self.witness is None:
            return DPResult(self.mechanism.name, label, Fraction(1), pairs_checked=self.checked)
        first, second, o = self.witness
        ratio: Ratio = (INFINITY if not self.best_den
                        else max(Fraction(1), exact_ratio(self.best_num, self.best_den)))
        rows, denominator = self.table.rows, self.table.denominator
        return DPResult(self.mechanism.name, label, ratio, datasets[first], datasets[second],
                        self.table.outputs[o],
                        exact_ratio(rows[self.numbers[first]][o], denominator),
                        exact_ratio(rows[self.numbers[second]][o], denominator), self.checked)
