"""NfC constraints (Bai et al., Composition for Pufferfish Privacy, §5.1, Equation 1): what they
are, how they are read from a file, and how a mechanism is checked against one.

A constraint names a dataset ``D_t`` (the left side), a secret pair and a convex combination β
over datasets of the second secret; a mechanism satisfies it at ε when, for every output ω,

    P(ω|D_t) <= e^ε Π_ℓ P(ω|D_ℓ)^{β_ℓ}          (log form: v·w <= ε for v = log P(ω|·))

with ``w = e_t − β``.  :func:`evaluate_constraint` decides it exactly (rational powers) when the
common denominator of β is small and with certified intervals otherwise.  A constraints file is
``{"nfc_constraints": 1, "epsilon": E, "constraints": [...]}`` (:func:`parse_constraints`).

>>> c = NfcConstraint("c", (0,), "s1", "s2", ((( 1,), Fraction(1)),))
>>> c.one_hot, c.weights([(0,), (1,)])
(True, [Fraction(1, 1), Fraction(-1, 1)])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.numbers import INFINITY, Ratio, exact, fraction_str, ratio_key
from pufferfish.models.universe import Dataset
from pufferfish.verify.numerics.certified import Budget, compare_ratio, parse_budget, scale_budget
from pufferfish.verify.numerics.intervals import (endpoints, interval_context, log_enclosure, log_interval,
                                                  rational_interval)


@dataclass(frozen=True)
class NfcConstraint:
    """``P(ω|left) <= e^ε Π_ℓ P(ω|D_ℓ)^{β_ℓ}`` for every output ω (Equation 1)."""

    name: str
    left: Dataset
    first: str
    second: str
    beta: tuple[tuple[Dataset, Fraction], ...]

    def __post_init__(self) -> None:
        total = sum((b for _, b in self.beta), Fraction(0))
        if not self.beta or total != 1 or any(b <= 0 for _, b in self.beta):
            raise ModelError(f"β must be positive weights summing to 1, got sum "
                             f"{fraction_str(total)}", f"constraints.{self.name}.beta")
        if any(d == self.left for d, _ in self.beta):
            raise ModelError("β weights the left-hand dataset itself; the two secrets of a pair "
                             "hold on different datasets", f"constraints.{self.name}.beta")

    @property
    def one_hot(self) -> bool:
        """A single nonzero β entry: a differential-privacy-style constraint."""
        return len(self.beta) == 1

    def weights(self, datasets: Sequence[Dataset]) -> list[Fraction]:
        """The vector ``w = e_left − β`` over ``datasets``."""
        position = {d: k for k, d in enumerate(datasets)}
        w = [Fraction(0)] * len(datasets)
        w[position[self.left]] += 1
        for dataset, b in self.beta:
            w[position[dataset]] -= b
        return w

    def to_dict(self) -> dict:
        return {"name": self.name, "left": list(self.left), "pair": [self.first, self.second],
                "beta": [[list(d), fraction_str(b)] for d, b in self.beta]}


@dataclass(frozen=True)
class ConstraintEvaluation:
    """The worst output of one constraint on one mechanism, decided exactly or certified."""

    constraint: str
    holds: bool
    relation: str                 # below / tight / above (value vs ε), or undecided
    output: object
    value_low: float              # certified bounds on log P(ω|D_t) − Σ β_ℓ log P(ω|D_ℓ)
    value_high: float
    exact_ratio: Ratio | None = None   # R = P_t^q / Π P_ℓ^{qβ_ℓ} when q is small
    power: int | None = None

    @property
    def value(self) -> float:
        """The constraint's value at the worst output (float, for reading)."""
        if self.value_low == self.value_high or math.isinf(self.value_high):
            return self.value_high
        return (self.value_low + self.value_high) / 2

    def to_dict(self) -> dict:
        data = {"constraint": self.constraint, "holds": self.holds, "relation": self.relation,
                "worst_output": jsonable_output(self.output), "value_float": self.value,
                "value_bounds": [self.value_low, self.value_high]}
        if self.exact_ratio is not None and (self.exact_ratio == INFINITY
                                             or len(fraction_str(self.exact_ratio)) < 300):
            data["value"] = ("inf" if self.exact_ratio == INFINITY
                             else f"log({fraction_str(self.exact_ratio)})/{self.power}")
        return data


EXACT_POWER_LIMIT = 256
"""Above this common denominator of β, constraints are decided by interval arithmetic instead of
exact powers (``P^q`` with a huge ``q`` cannot be formed)."""


def evaluate_constraint(constraint: NfcConstraint, mechanism: Mechanism,
                        budget: Budget) -> ConstraintEvaluation:
    """Decide Equation 1 for every output of ``mechanism``.

    With ``q`` the common denominator of β, the constraint at ω is ``R_ω <= e^{qε}`` for the
    rational ``R_ω = P(ω|D_t)^q / Π P(ω|D_ℓ)^{qβ_ℓ}``; for ``q <= 256`` that comparison is made
    exactly (:func:`pufferfish.verify.numerics.certified.compare_ratio`).  For larger ``q`` (β from a solver has
    denominators ``2^40``) the value ``log P(ω|D_t) − Σ β_ℓ log P(ω|D_ℓ)`` is enclosed with mpmath
    interval arithmetic at increasing precision; a comparison that no precision separates is
    reported ``undecided`` and does not count as holding.  ``P(ω|D_t) = 0`` satisfies the
    constraint; ``P(ω|D_t) > 0`` with some ``P(ω|D_ℓ) = 0`` violates it.
    """
    power = math.lcm(*(b.denominator for _, b in constraint.beta))
    left = mechanism.distribution(constraint.left)
    rows = [(mechanism.distribution(d), b) for d, b in constraint.beta]
    if power <= EXACT_POWER_LIMIT:
        return _evaluate_exactly(constraint, left, rows, power, budget)
    return _evaluate_by_intervals(constraint, left, rows, budget)


def _evaluate_exactly(constraint, left, rows, power, budget) -> ConstraintEvaluation:
    worst: tuple[Ratio, object] | None = None
    for output, p in left.items():
        denominator = Fraction(1)
        for row, b in rows:
            denominator *= row.prob(output) ** int(b * power)
        ratio: Ratio = INFINITY if not denominator else p ** power / denominator
        if worst is None or ratio_key(ratio) > ratio_key(worst[0]):
            worst = (ratio, output)
    if worst is None:
        return ConstraintEvaluation(constraint.name, True, "below", None, -math.inf, -math.inf)
    check = compare_ratio(worst[0], scale_budget(budget, power))
    if worst[0] == INFINITY:
        low = high = math.inf
    else:
        low, high = (x / power for x in log_enclosure(worst[0]))
    return ConstraintEvaluation(constraint.name, check.holds, check.relation, worst[1], low, high,
                                worst[0], power)


def _evaluate_by_intervals(constraint, left, rows, budget) -> ConstraintEvaluation:
    best = None
    for bits in (128, 512, 2048):
        context = interval_context(bits)
        budget_interval = (rational_interval(context, budget.epsilon) if budget.ratio is None
                           else log_interval(context, budget.ratio))
        values = []
        for output, p in left.items():
            if any(not row.prob(output) for row, _ in rows):
                return ConstraintEvaluation(constraint.name, False, "above", output,
                                            math.inf, math.inf)
            value = log_interval(context, p)
            for row, b in rows:
                value -= rational_interval(context, b) * log_interval(context, row.prob(output))
            values.append((value, output))
        if not values:
            return ConstraintEvaluation(constraint.name, True, "below", None, -math.inf,
                                        -math.inf)
        value, output = max(values, key=lambda item: item[0].b)
        low, high = _outward(value)
        best = (output, low, high)
        if value.b < budget_interval.a:
            return ConstraintEvaluation(constraint.name, True, "below", output, low, high)
        above = [(v, o) for v, o in values if v.a > budget_interval.b]
        if above:
            v, o = above[0]
            return ConstraintEvaluation(constraint.name, False, "above", o, *_outward(v))
    output, low, high = best
    return ConstraintEvaluation(constraint.name, False, "undecided", output, low, high)


def _outward(interval) -> tuple[float, float]:
    """Floats one step outside the nearest doubles of the interval's endpoints (certified)."""
    low, high = endpoints(interval)
    return math.nextafter(float(low), -math.inf), math.nextafter(float(high), math.inf)


@dataclass(frozen=True)
class ConstraintSet:
    """A set of NfC constraints at one budget ε."""

    constraints: tuple[NfcConstraint, ...]
    budget: Budget

    @property
    def datasets(self) -> tuple[Dataset, ...]:
        seen: dict[Dataset, None] = {}
        for c in self.constraints:
            seen.setdefault(c.left, None)
            for d, _ in c.beta:
                seen.setdefault(d, None)
        return tuple(seen)

    def to_dict(self) -> dict:
        return {"nfc_constraints": 1, "epsilon": self.budget.text,
                "constraints": [c.to_dict() for c in self.constraints]}


def constraints_from_programs(result, budget: Budget) -> ConstraintSet:
    """The NfC constraints (Equation 1) given by the dual vectors β of solved NfC programs."""
    constraints = []
    for k, program in enumerate(result.programs):
        if program.infinite or not program.beta:
            continue
        constraints.append(NfcConstraint(f"c{k}", program.d_star, program.first, program.second,
                                         tuple(program.beta)))
    return ConstraintSet(tuple(constraints), budget)


def parse_constraints(data: Mapping, path: str = "") -> ConstraintSet:
    """Read ``{"nfc_constraints": 1, "epsilon": E, "constraints": [...]}`` (:doc:`/guide`, "Post-processing and the NfC constraints").

    ``E`` is a budget string (``"0.1"``, ``"1/10"``, ``"log(3)"``, ``"inf"``) or an integer; a JSON
    float is refused with the model reader's hint (it is not exact, and ``1e400`` would be ∞).
    """
    if not isinstance(data, Mapping) or data.get("nfc_constraints") != 1:
        raise ModelError("a constraints file starts with \"nfc_constraints\": 1", "nfc_constraints")
    unknown = set(data) - {"nfc_constraints", "epsilon", "constraints", "description"}
    if unknown:
        raise ModelError(f"unknown key {sorted(unknown)[0]!r}", sorted(unknown)[0])
    if "epsilon" not in data:
        raise ModelError("missing the budget", "epsilon")
    budget = parse_budget(data["epsilon"], "epsilon")
    raw = data.get("constraints")
    if not isinstance(raw, list) or not raw:
        raise ModelError("expected a non-empty list of constraints", "constraints")
    constraints = []
    names = set()
    for k, item in enumerate(raw):
        where = f"constraints.{k}"
        if not isinstance(item, Mapping):
            raise ModelError("expected an object", where)
        extra = set(item) - {"name", "left", "pair", "beta"}
        if extra:
            raise ModelError(f"unknown key {sorted(extra)[0]!r}", where)
        name = str(item.get("name", f"c{k}"))
        if name in names:
            raise ModelError(f"constraint name {name!r} is used twice", f"{where}.name")
        names.add(name)
        left = _dataset(item.get("left"), f"{where}.left")
        pair = item.get("pair", ["s1", "s2"])
        if not (isinstance(pair, list) and len(pair) == 2):
            raise ModelError("expected [first secret, second secret]", f"{where}.pair")
        beta_raw = item.get("beta")
        if not isinstance(beta_raw, list) or not beta_raw:
            raise ModelError("expected [[dataset, weight], ...]", f"{where}.beta")
        beta = []
        for j, entry in enumerate(beta_raw):
            if not (isinstance(entry, list) and len(entry) == 2):
                raise ModelError("expected [dataset, weight]", f"{where}.beta.{j}")
            beta.append((_dataset(entry[0], f"{where}.beta.{j}.0"),
                         exact(entry[1], f"{where}.beta.{j}.1")))
        constraint = NfcConstraint(name, left, str(pair[0]), str(pair[1]), tuple(beta))
        constraints.append(constraint)
    return ConstraintSet(tuple(constraints), budget)


def _dataset(raw: object, path: str) -> tuple:
    """A dataset of a constraints file: a list of values, each an integer (never a float or a
    boolean) or a string, as in a model file."""
    if not isinstance(raw, list):
        raise ModelError("expected a dataset: a list of values", path)
    for k, value in enumerate(raw):
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            shown = getattr(value, "text", None) or repr(value)
            raise ModelError(f"a dataset value is an integer or a string, got {shown[:60]}",
                             f"{path}.{k}")
    return tuple(raw)


__all__ = ["NfcConstraint", "ConstraintEvaluation", "EXACT_POWER_LIMIT", "evaluate_constraint",
           "ConstraintSet", "constraints_from_programs", "parse_constraints"]
