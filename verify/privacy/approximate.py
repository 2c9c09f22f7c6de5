"""Approximate differential privacy: the exact δ(ε) of a mechanism, and the least ε for a δ.

Definition (Dwork and Roth, The Algorithmic Foundations of Differential Privacy, §2.3,
Definition 2.4).  ``M`` is (ε, δ)-DP for a neighbour relation when ``Pr[M(D) ∈ S] ≤ e^ε
Pr[M(D') ∈ S] + δ`` for every ordered pair of neighbours and every set of outputs ``S``.  For
finite output laws the least such δ is the largest hockey-stick divergence over the ordered pairs
(Zhang et al., Differential Confounding Privacy and Inverse Composition, §II, Definition 1)::

    δ(ε) = max_{(D, D')} Σ_ω (Pr[M(D) = ω] − e^ε Pr[M(D') = ω])^+

Exactness.  Each term's sign is decided exactly: the probabilities are rationals or exact
numbers of ``Q(e^(1/n))`` (programs with Laplace-type noise,
:class:`~pufferfish.models.programs.exp_numbers.ExpNumber`), ``e^ε`` is rational (ε = log r) or
such a number (ε rational), so every sign is exact at 0 and certified elsewhere, and δ(ε) is an
exact number with its closed form.  The least ε with ``δ(ε) ≤ δ`` is exactly ``log R`` for an
exact number ``R`` (the private ``_least_ratio`` says why), or 0, or ∞.

Cost: ``O(P·|Ω|)`` exact operations per ε for ``P`` ordered pairs and ``|Ω|`` outputs (pairs of
datasets with equal kernel keys are compared once); the least ε costs one pass with a sort of each pair's
outputs by likelihood ratio, ``O(P·|Ω| log |Ω|)``.

>>> from fractions import Fraction
>>> from pufferfish.models import Universe, RandomizedResponse
>>> bit = Universe.product(["x"], [[0, 1]])
>>> rr = RandomizedResponse("rr", bit, Fraction(3, 4))
>>> approximate_dp(bit, rr, "entry", epsilon="0").delta          # max (3/4 − 1/4)
Fraction(1, 2)
>>> approximate_dp(bit, rr, "entry", epsilon="log(2)").delta     # 3/4 − 2·1/4
Fraction(1, 4)
>>> approximate_dp(bit, rr, "entry", delta="1/4").least_epsilon
'log(2)'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cmp_to_key

from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.neighbours import (DEFAULT_MAX_PAIRS, NeighbourRelation, ScannedRelation,
                                          parse_neighbours)
from pufferfish.models.numbers import (INFINITY, decimal_text, epsilon_float, epsilon_str,
                                       fraction_str)
from pufferfish.models.programs.exp_numbers import ExpNumber
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe
from pufferfish.verify.numerics.certified import Budget, parse_budget
from pufferfish.verify.privacy.dp import neighbours, parse_relation, scan_size_within
from pufferfish.verify.report import Explained

__all__ = ["ApproximateDP", "approximate_dp", "delta_at", "neighbour_pairs"]


def _exp(budget: Budget):
    """``e^ε`` exactly: a rational for ε = log r, an ExpNumber for a rational ε ≠ 0."""
    if budget.ratio is not None:
        return budget.ratio
    return ExpNumber.exp(budget.epsilon).simplified()


def _sign(value) -> int:
    if isinstance(value, ExpNumber):
        return value.sign()
    return (value > 0) - (value < 0)


@dataclass(frozen=True)
class _PairDelta:
    delta: object          # Fraction or ExpNumber
    dataset: Dataset
    neighbour: Dataset
    outputs: tuple         # the maximising set W* = {ω : P(ω) > e^ε Q(ω)}


def neighbour_pairs(universe: Universe, relation: NeighbourRelation, max_datasets: int,
                    max_pairs: int) -> Iterator[tuple[Dataset, Dataset]]:
    """Every ordered pair of neighbours under a parsed relation: generated for entry, record and
    group relations, scanned (after counting them against ``max_pairs``) for the others."""
    if isinstance(relation, ScannedRelation):
        scan_size_within(universe, relation, max_pairs)
        yield from relation.ordered_pairs(universe)
        return
    kind, k = parse_relation(relation.text)
    for dataset in universe.datasets(max_datasets):
        for other in neighbours(universe, dataset, kind, k):
            yield dataset, other


def delta_at(table: KernelTable, pairs: list[tuple[Dataset, Dataset]], epsilon: Budget
             ) -> _PairDelta | None:
    """The largest hockey-stick divergence ``D_ε(M(D) ‖ M(D'))`` over ``pairs`` (module
    docstring), with the pair and outputs attaining it; ``None`` when there are no pairs."""
    factor = None if epsilon.infinite else _exp(epsilon)
    rows = {}
    best: _PairDelta | None = None
    for dataset, other in pairs:
        first = table.rows[table.dataset_index[dataset]]
        second = table.rows[table.dataset_index[other]]
        key = (id(first), id(second))
        if key in rows:
            continue
        total, chosen = 0, []
        for o, (p, q) in enumerate(zip(first, second)):
            if not p:
                continue
            excess = p if factor is None and not q else (0 if factor is None else p - factor * q)
            if _sign(excess) > 0:
                total = total + excess
                chosen.append(table.outputs[o])
        rows[key] = True
        total = total / table.denominator if table.denominator != 1 else total
        if isinstance(total, ExpNumber):
            total = total.simplified()
        elif not isinstance(total, Fraction):
            total = Fraction(total)
        if best is None or _sign(total - best.delta) > 0:
            best = _PairDelta(total, dataset, other, tuple(chosen))
    return best


@dataclass(frozen=True, repr=False)
class ApproximateDP(Explained):
    """δ(ε) of a mechanism under a neighbour relation and/or the least ε for a given δ."""

    mechanism: str
    relation: str
    epsilon: Budget | None = None
    delta: object = None                 # δ(ε): Fraction or ExpNumber
    witness: _PairDelta | None = None
    delta_budget: Fraction | None = None
    least_ratio: object = None           # e^ε* for the least ε*: Fraction, ExpNumber or INFINITY
    pairs_checked: int = 0

    @property
    def holds(self) -> bool | None:
        """Whether the mechanism is (ε, δ)-DP, when both were given."""
        if self.delta is None or self.delta_budget is None:
            return None
        return _sign(self.delta - self.delta_budget) <= 0

    @property
    def least_epsilon(self) -> str | None:
        """The least ε with δ(ε) ≤ δ, exactly (``"log(9/2)"``, ``"1/2"``, ``"0"``, ``"inf"``)."""
        return None if self.least_ratio is None else epsilon_str(self.least_ratio)

    def to_dict(self) -> dict:
        data: dict = {"check": "approximate_dp", "mechanism": self.mechanism,
                      "neighbours": self.relation, "pairs_checked": self.pairs_checked}
        if self.epsilon is not None:
            data["epsilon"] = self.epsilon.text
            data["delta"] = fraction_str(self.delta)
            data["delta_float"] = float(self.delta)
            if self.witness is not None:
                data["witness"] = {"dataset": list(self.witness.dataset),
                                   "neighbour": list(self.witness.neighbour),
                                   "outputs": [jsonable_output(o) for o in self.witness.outputs]}
        if self.delta_budget is not None:
            data["delta_budget"] = fraction_str(self.delta_budget)
        if self.holds is not None:
            data["holds"] = self.holds
        if self.least_ratio is not None:
            data["least_epsilon"] = self.least_epsilon
            data["least_epsilon_float"] = (None if self.least_ratio == INFINITY
                                           else epsilon_float(self.least_ratio))
        return data

    def explain(self) -> str:
        lines = []
        if self.epsilon is not None:
            text = (f"{self.mechanism}: {self.relation} δ(ε = {self.epsilon.text}) = "
                    f"{fraction_str(self.delta)} {decimal_text(self.delta)}")
            if self.witness is not None and self.delta:
                text += (f"; worst pair {list(self.witness.dataset)} vs "
                         f"{list(self.witness.neighbour)} on the outputs "
                         f"{[jsonable_output(o) for o in self.witness.outputs]}")
            lines.append(text)
            if self.delta_budget is not None:
                lines.append(f"{self.mechanism}: ({self.epsilon.text}, "
                             f"{fraction_str(self.delta_budget)})-DP "
                             f"{'holds' if self.holds else 'VIOLATED'}")
        if self.least_ratio is not None:
            text = (f"{self.mechanism}: {self.relation} least ε with δ(ε) ≤ "
                    f"{fraction_str(self.delta_budget)}: {self.least_epsilon}")
            if self.least_ratio not in (INFINITY, 1):
                text += f" {decimal_text(self.least_ratio, log=True)}"
            lines.append(text)
        return "\n".join(lines)


def approximate_dp(universe: Universe, mechanism: Mechanism,
                   relation: str | Mapping | NeighbourRelation = "entry", *,
                   epsilon: str | Fraction | Budget | None = None,
                   delta: str | Fraction | None = None,
                   max_datasets: int = DEFAULT_MAX_DATASETS,
                   max_outputs: int = DEFAULT_MAX_OUTPUTS,
                   max_pairs: int = DEFAULT_MAX_PAIRS) -> ApproximateDP:
    """δ(ε) (with ``epsilon``), the (ε, δ)-DP verdict (with both) or the least ε for ``delta``
    (with ``delta`` alone) of ``mechanism`` under ``relation`` (module docstring)."""
    if epsilon is None and delta is None:
        raise ValueError("give epsilon, delta or both")
    parsed = parse_neighbours(relation, universe, "neighbours")
    budget = (epsilon if isinstance(epsilon, Budget) or epsilon is None
              else parse_budget(epsilon if isinstance(epsilon, str) else Fraction(epsilon)))
    delta_budget = None if delta is None else Fraction(delta)
    if delta_budget is not None and not 0 <= delta_budget <= 1:
        raise ValueError(f"δ must lie in [0, 1], got {fraction_str(delta_budget)}")
    pairs = list(neighbour_pairs(universe, parsed, max_datasets, max_pairs))
    datasets = list(dict.fromkeys(d for pair in pairs for d in pair))
    table = KernelTable.build(mechanism, datasets, max_outputs)
    label = parsed.label if hasattr(parsed, "label") else parsed.text
    if budget is not None:
        found = delta_at(table, pairs, budget)
        value = found.delta if found is not None else Fraction(0)
        return ApproximateDP(mechanism.name, label, budget, value, found, delta_budget,
                             pairs_checked=len(pairs))
    return ApproximateDP(mechanism.name, label, None, None, None, delta_budget,
                         _least_ratio(table, pairs, delta_budget), pairs_checked=len(pairs))


def _least_ratio(table: KernelTable, pairs, delta: Fraction):
    """``e^ε*`` for the least ε* ≥ 0 with δ(ε*) ≤ δ, exactly (``INFINITY`` when no ε will do).

    For one ordered pair, ``max_S (P(S) − e^ε Q(S))`` is attained on a set ``W_k`` of the ``k``
    outputs of largest ratio ``P/Q`` (outputs with ``Q = 0`` first), so ``δ_pair(ε) ≤ δ`` exactly
    when ``e^ε ≥ (P(W_k) − δ)/Q(W_k)`` for every ``k`` with ``P(W_k) > δ``: the least ``e^ε`` is
    the largest such quotient over every pair and ``k`` (and 1 when there is none)."""
    scale = table.denominator
    threshold = delta * scale          # δ on the rows' integer (or exact) scale
    best = Fraction(1)
    seen = set()
    for dataset, other in pairs:
        first = table.rows[table.dataset_index[dataset]]
        second = table.rows[table.dataset_index[other]]
        if (id(first), id(second)) in seen:
            continue
        seen.add((id(first), id(second)))
        certain = sum((p for p, q in zip(first, second) if p and not q), 0)
        if _sign(certain - threshold) > 0:
            return INFINITY
        ranked = sorted(((p, q) for p, q in zip(first, second) if p and q),
                        key=cmp_to_key(lambda a, b: -_sign(a[0] * b[1] - b[0] * a[1])))
        mass_p, mass_q = certain, 0
        for p, q in ranked:
            mass_p, mass_q = mass_p + p, mass_q + q
            if _sign(mass_p - threshold) > 0:
                candidate = (mass_p - threshold) / mass_q
                if _sign(candidate - best) > 0:
                    best = candidate
    return best.simplified() if isinstance(best, ExpNumber) else Fraction(best)
