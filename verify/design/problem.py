"""The mechanism-design linear program of a finite Pufferfish model, with exact coefficients.

Definition (Bai et al., Composition for Pufferfish Privacy, §2.2, Definition 5; DP-style constraints
§5–6): the unknowns are the probabilities ``P(ω|D)`` for every dataset ``D`` of the universe and
every output ``ω`` of a finite output set Ω.  Minimise the expected loss

    Σ_D π(D) Σ_ω P(ω|D) loss(q(D), ω)            (π: the data prior, q: the released query)

over the product of simplices ``{P(·|D) ≥ 0, Σ_ω P(ω|D) = 1}`` subject to, for every prior θ of
the model, every ordered secret pair ``(s_i, s_j)`` with ``Pr[s_i|θ] > 0`` and ``Pr[s_j|θ] > 0``,
and every ω,

    Σ_D (θ(D|s_i) − r·θ(D|s_j)) P(ω|D) <= 0          (r = e^ε, or a rational r <= e^ε)

and, with DP-style constraints at ``r_DP``, ``P(ω|D) − r_DP·P(ω|D') <= 0`` for every ordered pair of
neighbours.  Every constraint has the form ``Σ_D a_D P(ω|D) <= 0`` for one ω
(:class:`Constraint`): the right-hand side is 0, which makes the dual bound of
:mod:`pufferfish.verify.design.exact` a plain sum of minima.

Interval families (Example 4.3) are infinite; the constraint is linear in the conditional
``θ(·|s)``, so it holds for the whole family iff it holds at every vertex of the polytope of
conditionals, which :func:`interval_vertices` enumerates (block masses at a vertex of the box
``[l, u]`` cut by ``Σ m = 1``, each block's mass on one of its datasets).

Size: ``|D|·|Ω|`` variables; constraints: ``Σ_θ (ordered pairs with positive mass)·|Ω|`` for
finite priors, ``(vertices of s_i)·(vertices of s_j)·|Ω|`` per pair for interval families, and
``|D|·(neighbours per dataset)·|Ω|`` DP-style constraints.  Building costs one pass over each
prior's support per constraint family plus the size of the constraints.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> problem = build_problem(load_model(example_path("quickstart.json")), "sum", parse_budget("log(3)"))
>>> len(problem.datasets), problem.outputs, problem.ratio, len(problem.constraints)
(8, (0, 1, 2, 3), Fraction(3, 1), 16)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction
from itertools import product

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, fraction_str
from pufferfish.models.priors import IntervalFamily, Prior
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.design.losses import Loss, loss_function
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import endpoints, exp_interval, interval_context
from pufferfish.verify.privacy.dp import neighbours, parse_relation
from pufferfish.verify.transport.queries import parse_query

RATIO_DIGITS = 6
"""A rational budget ε is designed at ``r = ⌊e^ε·10^6⌋/10^6`` (a certified lower bound of e^ε)."""

MAX_CONSTRAINTS = 2_000_000
"""Refuse programs with more privacy constraints than this (before building them)."""

MAX_INTERVAL_VERTICES = 10_000
"""Refuse interval families whose polytope of conditionals has more vertices than this."""


@dataclass(frozen=True)
class Constraint:
    """``Σ_D coefficient_D · P(output|D) <= 0``; ``terms`` are ``(dataset index, coefficient)``."""

    kind: str            # "pufferfish" or "dp"
    label: str
    output: int
    terms: tuple[tuple[int, Fraction], ...]


@dataclass(frozen=True)
class DesignProblem:
    """The exact linear program (module docstring); ``cost[d][o] = π(D)·loss(q(D), ω)``."""

    datasets: tuple[Dataset, ...]
    outputs: tuple
    cost: tuple[tuple[Fraction, ...], ...]
    constraints: tuple[Constraint, ...]
    ratio: Ratio
    ratio_dp: Ratio | None
    ratio_note: str
    query: str
    loss: Loss
    data_prior: str
    neighbours: str | None

    @cached_property
    def matrix(self):
        """The constraints as a sparse float matrix over the variables ``d·|Ω| + o`` (for the
        solver and for the floating-point screening of exact checks), built once."""
        import scipy.sparse as sparse

        width = len(self.outputs)
        rows, cols, data = [], [], []
        for k, constraint in enumerate(self.constraints):
            for d, a in constraint.terms:
                rows.append(k)
                cols.append(d * width + constraint.output)
                data.append(float(a))
        shape = (len(self.constraints), len(self.datasets) * width)
        return sparse.csr_matrix((data, (rows, cols)), shape=shape)

    @property
    def size(self) -> tuple[int, int]:
        """``(variables, constraints)`` of the program (simplex equalities not counted)."""
        return len(self.datasets) * len(self.outputs), len(self.constraints)

    def expected_loss(self, rows: Sequence[Sequence[Fraction]]) -> Fraction:
        """The exact expected loss of a mechanism given as rows ``P(·|D)`` over :attr:`outputs`."""
        return sum((c * p for cost_row, row in zip(self.cost, rows)
                    for c, p in zip(cost_row, row) if p), Fraction(0))

    def slack(self, constraint: Constraint, rows: Sequence[Sequence[Fraction]]) -> Fraction:
        """``Σ_D a_D P(ω|D)`` (feasible when <= 0)."""
        o = constraint.output
        return sum((a * rows[d][o] for d, a in constraint.terms), Fraction(0))


def design_ratio(budget: Budget) -> tuple[Ratio, str]:
    """The ratio ``r`` designed for: ``e^ε`` exactly for ``ε = log(r)``; for a rational ε the
    certified lower bound ``⌊e^ε·10^6⌋/10^6`` (so ``log r <= ε``), with a note of the rounding.

    >>> from pufferfish.verify.numerics.certified import parse_budget
    >>> design_ratio(parse_budget("1"))
    (Fraction(2718281, 1000000), 'e^1 rounded down to 2718281/1000000 (certified: 2718281/1000000 <= e^ε < 1359141/500000)')
    """
    if budget.infinite:
        return INFINITY, "ε = inf: no privacy constraint"
    if budget.ratio is not None:
        return budget.ratio, f"e^ε = {fraction_str(budget.ratio)} exactly"
    epsilon = budget.epsilon
    if epsilon < 0:
        raise ModelError(f"ε must be >= 0, got {budget.text}", "--epsilon")
    low, high = endpoints(exp_interval(interval_context(128), epsilon))
    scale = 10 ** RATIO_DIGITS
    ratio = max(Fraction(1), Fraction(low.numerator * scale // low.denominator, scale))
    upper = Fraction(-(-high.numerator * scale // high.denominator), scale)
    return ratio, (f"e^{budget.text} rounded down to {fraction_str(ratio)} (certified: "
                   f"{fraction_str(ratio)} <= e^ε < {fraction_str(upper)})")


def build_problem(model: PufferfishModel, query_text: str, budget: Budget, *,
                  loss: str | Loss | None = None, outputs: Sequence | None = None,
                  data: str | None = None, dp_budget: Budget | None = None,
                  neighbour_relation: str = "entry",
                  max_datasets: int = DEFAULT_MAX_DATASETS) -> DesignProblem:
    """The design program of ``model`` for the query ``query_text`` (``sum``, ``count``,
    ``parity`` or ``attribute:NAME``, as :func:`~pufferfish.verify.transport.queries.parse_query`)
    at ``budget``; ``dp_budget`` adds DP-style constraints for ``neighbour_relation``
    (``entry``, ``record`` or ``group:K``).  ``outputs`` default to the query's range; ``loss``
    to ``l1`` for a numeric query and ``01`` otherwise; ``data`` to the model's first finite prior.
    """
    universe = model.universe
    query = parse_query(query_text, universe)
    universe.require_enumerable(max_datasets)
    datasets = tuple(universe.datasets(max_datasets))
    values = [query(d) for d in datasets]
    omega = _outputs(values, outputs)
    loss_of = loss_function(loss, values, omega)
    prior = _data_prior(model, data)
    cost = tuple(tuple(prior.probability(d) * loss_of(v, o) for o in omega)
                 for d, v in zip(datasets, values))
    ratio, note = design_ratio(budget)
    index = {d: k for k, d in enumerate(datasets)}
    constraints: list[Constraint] = []
    if ratio != INFINITY:
        conditionals = _pair_conditionals(model, datasets, index, max_datasets)
        _check_count(len(conditionals) * len(omega), "Pufferfish")
        for label, first, second in conditionals:
            terms = _difference(first, second, ratio)
            constraints += [Constraint("pufferfish", label, o, terms) for o in range(len(omega))]
    ratio_dp = None
    if dp_budget is not None:
        ratio_dp, _ = design_ratio(dp_budget)
        if ratio_dp != INFINITY:
            kind, k = parse_relation(neighbour_relation)
            for d, dataset in enumerate(datasets):
                for other in neighbours(universe, dataset, kind, k):
                    terms = ((d, Fraction(1)), (index[other], -ratio_dp))
                    constraints += [Constraint("dp", f"{list(dataset)} vs {list(other)}", o, terms)
                                    for o in range(len(omega))]
                _check_count(len(constraints), "DP-style")
    return DesignProblem(datasets, tuple(omega), cost, tuple(constraints), ratio, ratio_dp, note,
                         query_text, loss_of, _prior_name(model, data),
                         neighbour_relation if dp_budget is not None else None)


def _check_count(count: int, what: str) -> None:
    if count > MAX_CONSTRAINTS:
        raise UnsupportedError(f"the design program would have more than {MAX_CONSTRAINTS:,} "
                               f"{what} constraints ({count:,} so far); use a smaller model or "
                               f"fewer outputs", "--output-values")


def _outputs(values: list, given: Sequence | None) -> list:
    if given is None:
        return sorted(set(values), key=_order_key)
    omega = list(dict.fromkeys(given))
    if len(omega) != len(list(given)):
        raise ModelError("the outputs must be distinct", "--output-values")
    if not omega:
        raise ModelError("give at least one output", "--output-values")
    return omega


def _order_key(value: object) -> tuple:
    return (0, value, "") if isinstance(value, int | Fraction) else (1, 0, str(value))


def _prior_name(model: PufferfishModel, data: str | None) -> str:
    if data is not None:
        return data
    return next(iter(model.finite_priors), "")


def _data_prior(model: PufferfishModel, data: str | None) -> Prior:
    name = _prior_name(model, data)
    if name in model.finite_priors:
        return model.finite_priors[name]
    if name in model.interval_families:
        raise ModelError(f"prior {name!r} is an interval family; the expected loss needs one "
                         f"distribution: choose a finite prior with --data", "--data")
    known = sorted(model.finite_priors)
    raise ModelError(f"unknown prior {name!r}; the model's finite priors are {known}" if known
                     else "the model has no finite prior to take the expected loss under",
                     "--data")


Conditional = dict[int, Fraction]


def _difference(first: Conditional, second: Conditional, ratio: Fraction
                ) -> tuple[tuple[int, Fraction], ...]:
    keys = sorted(set(first) | set(second))
    terms = ((k, first.get(k, Fraction(0)) - ratio * second.get(k, Fraction(0))) for k in keys)
    return tuple((k, a) for k, a in terms if a)


def _pair_conditionals(model: PufferfishModel, datasets: Sequence[Dataset],
                       index: dict[Dataset, int], limit: int
                       ) -> list[tuple[str, Conditional, Conditional]]:
    """``(label, θ(·|s_i), θ(·|s_j))`` for every ordered pair, finite prior with both secrets of
    positive mass, and pair of interval-family vertices (duplicates removed)."""
    seen: set = set()
    found: list[tuple[str, Conditional, Conditional]] = []

    def add(label: str, first: Conditional, second: Conditional) -> None:
        key = (tuple(sorted(first.items())), tuple(sorted(second.items())))
        if key not in seen:
            seen.add(key)
            found.append((label, first, second))

    for name, prior in model.finite_priors.items():
        support = [(index[d], p) for d, p in prior.support(limit) if d in index]
        for pair in model.pairs:
            for first, second in pair.directions():
                c1 = _conditional(support, first.holds, datasets)
                c2 = _conditional(support, second.holds, datasets)
                if c1 is not None and c2 is not None:
                    add(f"{first.name} vs {second.name} under {name}", c1, c2)
    for name, family in model.interval_families.items():
        for pair in model.pairs:
            for first, second in pair.directions():
                family.require_blocks((first.name, second.name), pair.label, name)
                for v1, v2 in product(interval_vertices(family, first.name, index),
                                      interval_vertices(family, second.name, index)):
                    add(f"{first.name} vs {second.name} under {name} (vertex)", v1, v2)
    return found


def _conditional(support: list[tuple[int, Fraction]], holds: Callable,
                 datasets: Sequence[Dataset]) -> Conditional | None:
    mass = {k: p for k, p in support if holds(datasets[k])}
    total = sum(mass.values(), Fraction(0))
    return None if not total else {k: p / total for k, p in mass.items()}


def interval_vertices(family: IntervalFamily, secret: str, index: dict[Dataset, int]
                      ) -> list[Conditional]:
    """The vertices of the family's polytope of conditionals ``θ(·|secret)``.

    A vertex puts every block's mass at a bound except at most one block, and puts each block's
    mass on one dataset.  Cost: ``k·2^(k−1)`` mass patterns for ``k`` blocks, times the product of
    the block sizes (refused beyond :data:`MAX_INTERVAL_VERTICES`).

    >>> from pufferfish.models.priors import IntervalBlock
    >>> family = IntervalFamily("f", {"s": (IntervalBlock(((0,),), Fraction(1, 4), Fraction(3, 4)),
    ...                                      IntervalBlock(((1,),), Fraction(1, 4), Fraction(3, 4)))})
    >>> sorted(sorted(v.items()) for v in interval_vertices(family, "s", {(0,): 0, (1,): 1}))
    [[(0, Fraction(1, 4)), (1, Fraction(3, 4))], [(0, Fraction(3, 4)), (1, Fraction(1, 4))]]
    """
    blocks = family.blocks[secret]
    patterns: set[tuple[Fraction, ...]] = set()
    for free in range(len(blocks)):
        others = [j for j in range(len(blocks)) if j != free]
        for bounds in product((0, 1), repeat=len(others)):
            masses = [Fraction(0)] * len(blocks)
            for j, upper in zip(others, bounds):
                masses[j] = blocks[j].upper if upper else blocks[j].lower
            masses[free] = 1 - sum(masses, Fraction(0))
            if blocks[free].lower <= masses[free] <= blocks[free].upper:
                patterns.add(tuple(masses))
    vertices: dict[tuple, Conditional] = {}
    for masses in sorted(patterns):
        used = [j for j, m in enumerate(masses) if m]
        count = 1
        for j in used:
            count *= len(blocks[j].datasets)
        if len(vertices) + count > MAX_INTERVAL_VERTICES:
            raise UnsupportedError(f"interval family {family.name!r} has more than "
                                   f"{MAX_INTERVAL_VERTICES:,} vertices for secret {secret!r}; the "
                                   f"design program lists one constraint per vertex",
                                   f"priors.{family.name}.interval.{secret}")
        for choice in product(*(blocks[j].datasets for j in used)):
            conditional: Conditional = {}
            for j, dataset in zip(used, choice):
                if dataset in index:
                    conditional[index[dataset]] = conditional.get(index[dataset], Fraction(0)) \
                        + masses[j]
            vertices.setdefault(tuple(sorted(conditional.items())), conditional)
    return list(vertices.values())


__all__ = ["Constraint", "DesignProblem", "design_ratio", "build_problem", "interval_vertices",
           "RATIO_DIGITS", "MAX_CONSTRAINTS", "MAX_INTERVAL_VERTICES"]
