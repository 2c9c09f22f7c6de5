"""Exact differential-privacy levels (``000_65109fe28ca61d17.txt`` §2.1, Definitions 1–3).

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
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product

from pufferfish.models.errors import ModelError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe
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
            text += f" ≈ {epsilon_float(self.max_ratio):.6g}"
        if self.dataset is not None:
            text += (f"; worst pair {list(self.dataset)} vs {list(self.neighbour)} on output "
                     f"{jsonable_output(self.output)!r} ({fraction_str(self.p_dataset)} vs "
                     f"{fraction_str(self.p_neighbour)})")
        return text


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


def dp_level(universe: Universe, mechanism: Mechanism, relation: str = "entry",
             budget: Budget | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
             max_outputs: int = DEFAULT_MAX_OUTPUTS) -> DPResult:
    """The exact DP level of ``mechanism`` over ``universe`` for a neighbour relation.

    >>> from fractions import Fraction
    >>> from pufferfish.models import Universe, RandomizedResponse
    >>> u = Universe.product(["x"], [[0, 1]])
    >>> dp_level(u, RandomizedResponse("rr", u, Fraction(3, 4))).epsilon
    'log(3)'
    """
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
        ratio = INFINITY if not best_den else max(Fraction(1), Fraction(best_num, best_den))
        dataset, other, o = witness
        result = DPResult(mechanism.name, label, ratio, dataset, other, table.outputs[o],
                          table.prob(dataset, table.outputs[o]), table.prob(other, table.outputs[o]),
                          checked)
    if budget is not None:
        result = DPResult(**{**result.__dict__, "budget": compare_ratio(result.max_ratio, budget)})
    return result
