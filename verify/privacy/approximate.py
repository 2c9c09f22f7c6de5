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
from pufferfish.models.enclosures import Enclosure
from pufferfish.models.numbers import (INFINITY, decimal_bound, decimal_text, epsilon_float,
                                       epsilon_str, fraction_str, log_bound)
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


def _end(value, end: str):
    """The ``end`` (``"lower"``/``"upper"``) of a certified enclosure; an exact number as is."""
    return getattr(value, end) if isinstance(value, Enclosure) else value


def _bound_rows(table: KernelTable, dataset: Dataset, other: Dataset, side: str | None):
    """The two rows of an ordered pair; with ``side`` (for certified enclosures) the ends that
    make the hockey-stick divergence smallest (``"lower"``: ``P`` low, ``Q`` high) or largest
    (``"upper"``): the divergence increases with ``P`` and decreases with ``Q``."""
    first = table.rows[table.dataset_index[dataset]]
    second = table.rows[table.dataset_index[other]]
    if side is None:
        return first, second
    mine, theirs = ("lower", "upper") if side == "lower" else ("upper", "lower")
    return (tuple(_end(p, mine) for p in first), tuple(_end(q, theirs) for q in second))


def delta_at(table: KernelTable, pairs: list[tuple[Dataset, Dataset]], epsilon: Budget,
             side: str | None = None) -> _PairDelta | None:
    """The largest hockey-stick divergence ``D_ε(M(D) ‖ M(D'))`` over ``pairs`` (module
    docstring), with the pair and outputs attaining it; ``None`` when there are no pairs.  For
    a table of certified enclosures, ``side`` (``"lower"`` or ``"upper"``) computes a certified
    lower or upper bound exactly from the enclosures' ends (``_bound_rows``)."""
    factor = None if epsilon.infinite else _exp(epsilon)
    rows = {}
    best: _PairDelta | None = None
    for dataset, other in pairs:
        key = (id(table.rows[table.dataset_index[dataset]]),
               id(table.rows[table.dataset_index[other]]))
        if key in rows:
            continue
        first, second = _bound_rows(table, dataset, other, side)
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
    """δ(ε) of a mechanism under a neighbour relation and/or the least ε for a given δ.

    For a mechanism whose probabilities are certified enclosures (a program with Gaussian
    noise) ``delta`` is an :class:`~pufferfish.models.enclosures.Enclosure` of δ(ε), ``holds``
    is ``None`` when that interval straddles the budget (:attr:`undecided`), and the least ε lies
    in ``[log least_ratio, log least_ratio_upper]``."""

    mechanism: str
    relation: str
    epsilon: Budget | None = None
    delta: object = None                 # δ(ε): Fraction, ExpNumber or Enclosure
    witness: _PairDelta | None = None
    delta_budget: Fraction | None = None
    least_ratio: object = None           # e^ε* for the least ε*: Fraction, ExpNumber or INFINITY
    pairs_checked: int = 0
    least_ratio_upper: object = None     # certified: an upper bound on e^ε* (else None)

    @property
    def certified(self) -> bool:
        """Whether the figures are certified bounds rather than exact values."""
        return isinstance(self.delta, Enclosure) or self.least_ratio_upper is not None

    @property
    def holds(self) -> bool | None:
        """Whether the mechanism is (ε, δ)-DP, when both were given (``None`` also when a
        certified δ(ε) straddles the budget: :attr:`undecided`)."""
        if self.delta is None or self.delta_budget is None:
            return None
        if isinstance(self.delta, Enclosure):
            if self.delta.upper <= self.delta_budget:
                return True
            return False if self.delta.lower > self.delta_budget else None
        return _sign(self.delta - self.delta_budget) <= 0

    @property
    def undecided(self) -> bool:
        """Whether a verdict was asked and the certified interval of δ(ε) straddles δ."""
        return self.delta_budget is not None and self.delta is not None and self.holds is None

    @property
    def least_epsilon(self) -> str | None:
        """The least ε with δ(ε) ≤ δ, exactly (``"log(9/2)"``, ``"1/2"``, ``"0"``, ``"inf"``);
        for certified probabilities the interval of its certified decimal bounds."""
        if self.least_ratio is None:
            return None
        if self.least_ratio_upper is not None:
            return _log_interval(self.least_ratio, self.least_ratio_upper)
        return epsilon_str(self.least_ratio)

    def to_dict(self) -> dict:
        data: dict = {"check": "approximate_dp", "mechanism": self.mechanism,
                      "neighbours": self.relation, "pairs_checked": self.pairs_checked}
        if self.certified:
            data["certified"] = True
        if self.epsilon is not None:
            data["epsilon"] = self.epsilon.text
            data["delta"] = fraction_str(self.delta)
            data["delta_float"] = float(self.delta)
            if isinstance(self.delta, Enclosure):
                data["delta_lower"] = decimal_bound(self.delta.lower, up=False, digits=12)
                data["delta_upper"] = decimal_bound(self.delta.upper, up=True, digits=12)
            if self.witness is not None:
                data["witness"] = {"dataset": list(self.witness.dataset),
                                   "neighbour": list(self.witness.neighbour),
                                   "outputs": [jsonable_output(o) for o in self.witness.outputs]}
        if self.delta_budget is not None:
            data["delta_budget"] = fraction_str(self.delta_budget)
        if self.holds is not None or self.undecided:
            data["holds"] = self.holds
        if self.undecided:
            data["undecided"] = True
        if self.least_ratio is not None:
            data["least_epsilon"] = self.least_epsilon
            if self.least_ratio_upper is not None:
                data["least_epsilon_float"] = None
                data["least_epsilon_lower"] = _log_end(self.least_ratio, up=False)
                data["least_epsilon_upper"] = _log_end(self.least_ratio_upper, up=True)
            else:
                data["least_epsilon_float"] = (None if self.least_ratio == INFINITY
                                               else epsilon_float(self.least_ratio))
        return data

    def explain(self) -> str:
        lines = []
        if self.epsilon is not None:
            if isinstance(self.delta, Enclosure):
                text = (f"{self.mechanism}: {self.relation} δ(ε = {self.epsilon.text}) "
                        f"{decimal_text(self.delta)} (certified)")
            else:
                text = (f"{self.mechanism}: {self.relation} δ(ε = {self.epsilon.text}) = "
                        f"{fraction_str(self.delta)} {decimal_text(self.delta)}")
            if self.witness is not None and self.delta:
                text += (f"; worst pair {list(self.witness.dataset)} vs "
                         f"{list(self.witness.neighbour)} on the outputs "
                         f"{[jsonable_output(o) for o in self.witness.outputs]}")
            lines.append(text)
            if self.delta_budget is not None:
                verdict = ("holds" if self.holds else "VIOLATED" if self.holds is False else
                           f"UNDECIDED: the certified interval straddles δ (width "
                           f"{decimal_bound(self.delta.width, up=True, digits=2)})")
                lines.append(f"{self.mechanism}: ({self.epsilon.text}, "
                             f"{fraction_str(self.delta_budget)})-DP {verdict}")
        if self.least_ratio is not None:
            text = (f"{self.mechanism}: {self.relation} least ε with δ(ε) ≤ "
                    f"{fraction_str(self.delta_budget)}: ")
            if self.least_ratio_upper is not None:
                text += f"ε ∈ {self.least_epsilon} (certified)"
            else:
                text += self.least_epsilon
                if self.least_ratio not in (INFINITY, 1):
                    text += f" {decimal_text(self.least_ratio, log=True)}"
            lines.append(text)
        return "\n".join(lines)


def _log_end(ratio, up: bool) -> str | None:
    """A certified decimal bound of ``log(ratio)`` (``None`` for an infinite ratio)."""
    if ratio == INFINITY:
        return None
    enclosure = Enclosure.of(ratio)
    return log_bound(enclosure.upper if up else enclosure.lower, up)


def _log_interval(low, high) -> str:
    """``[a, b]``: certified decimals around ``[log low, log high]`` (``b = inf`` when high
    is infinite)."""
    upper = _log_end(high, up=True)
    return f"[{_log_end(low, up=False)}, {'inf' if upper is None else upper}]"


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
        if table.enclosed:   # certified: bounds from the enclosures' ends, each exact
            low, found = (delta_at(table, pairs, budget, side) for side in ("lower", "upper"))
            value = (Enclosure(Enclosure.of(low.delta).lower, Enclosure.of(found.delta).upper)
                     if found is not None else Fraction(0))
        else:
            found = delta_at(table, pairs, budget)
            value = found.delta if found is not None else Fraction(0)
        return ApproximateDP(mechanism.name, label, budget, value, found, delta_budget,
                             pairs_checked=len(pairs))
    if table.enclosed:
        return ApproximateDP(mechanism.name, label, None, None, None, delta_budget,
                             _least_ratio(table, pairs, delta_budget, "lower"),
                             len(pairs), _least_ratio(table, pairs, delta_budget, "upper"))
    return ApproximateDP(mechanism.name, label, None, None, None, delta_budget,
                         _least_ratio(table, pairs, delta_budget), pairs_checked=len(pairs))


def _least_ratio(table: KernelTable, pairs, delta: Fraction, side: str | None = None):
    """``e^ε*`` for the least ε* ≥ 0 with δ(ε*) ≤ δ, exactly (``INFINITY`` when no ε will do).

    For one ordered pair, ``max_S (P(S) − e^ε Q(S))`` is attained on a set ``W_k`` of the ``k``
    outputs of largest ratio ``P/Q`` (outputs with ``Q = 0`` first), so ``δ_pair(ε) ≤ δ`` exactly
    when ``e^ε ≥ (P(W_k) − δ)/Q(W_k)`` for every ``k`` with ``P(W_k) > δ``: the least ``e^ε`` is
    the largest such quotient over every pair and ``k`` (and 1 when there is none).  The
    argument holds for any nonnegative measures, so ``side`` bounds it for certified enclosures
    (``_bound_rows``)."""
    scale = table.denominator
    threshold = delta * scale          # δ on the rows' integer (or exact) scale
    best = Fraction(1)
    seen = set()
    for dataset, other in pairs:
        key = (id(table.rows[table.dataset_index[dataset]]),
               id(table.rows[table.dataset_index[other]]))
        if key in seen:
            continue
        seen.add(key)
        first, second = _bound_rows(table, dataset, other, side)
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
