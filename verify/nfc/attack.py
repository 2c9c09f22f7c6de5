"""Constructive composition attacks and exact levels of repeated runs
(Bai et al., Composition for Pufferfish Privacy, §5.1, Theorem 4, and the limit argument of its
proof in Appendix C).

**The attack.**  When the certified lower bound of an NfC program exceeds the budget ε, the
program's α says *which outputs to look for*.  The curator's r runs produce output ω_i about
``r·α_i`` times; the attacker who observes exactly those outputs has the Pufferfish log-ratio::

    log [ Σ_{D∈supp θ(·|s1)} θ(D|s1) Π_i P(ω_i|D)^{c_i} / Σ_{D∈supp θ(·|s2)} θ(D|s2) Π_i P(ω_i|D)^{c_i} ]

which, by the proof's limit, grows like ``r·(program value)``.  :func:`composition_attack` rounds
``N·α`` to integer counts (largest remainders), computes that ratio exactly in rationals, and
returns the smallest ``N`` (up to a limit) at which it exceeds ``e^{N·ε}`` — a concrete sequence of
``N`` releases (mechanism, output, count) whose joint release breaks linear composition at ε.  The
comparison with ``e^{N·ε}`` is rigorous (:mod:`pufferfish.verify.numerics.certified`).

**Repeated runs.**  :func:`repeated_run_levels` computes the exact Pufferfish level ``ε_r`` of ``r``
independent runs of one mechanism for ``r = 1..R``.  The probability of a sequence of outputs
depends only on its multiset (runs are exchangeable) and the multinomial coefficient cancels in the
ratio, so it enumerates the ``C(m+r−1, r)`` multisets of the ``m`` outputs instead of ``m^r``
sequences, with integer arithmetic (the kernel's common denominator cancels too).  ``ε_r / r`` tends
to the largest NfC program value of the mechanism (the limit in the proof of Theorem 4).

**Interval families** (Example 4.3) are attacked and levelled over the *whole* family, not one
member: the probability of the observations given a secret is linear in that secret's conditional
and the two conditionals are chosen independently, so for each ``N`` (each multiset) the worst
member puts each block's mass on one dataset (the minimal supports the programs use) and is found
exactly by :meth:`~pufferfish.models.priors.IntervalFamily.extreme_conditional`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable, integer_weights
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import IntervalFamily
from pufferfish.models.numbers import (INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str,
                            ratio_key)
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.numerics.certified import Budget, budget_float, compare_ratio, scale_budget
from pufferfish.verify.nfc.programs import NfcProgram
from pufferfish.verify.privacy.supports import audited_datasets, prior_supports
from pufferfish.verify.report import Explained

DEFAULT_MAX_RUNS = 200
"""The most runs a composition attack tries, and the default number of repeated runs whose exact
levels are computed."""
DEFAULT_MAX_MULTISETS = 10**6
"""The most output multisets the exact levels of repeated runs may enumerate (refused above)."""


@dataclass(repr=False, frozen=True)
class CompositionAttack(Explained):
    """A sequence of releases whose exact joint Pufferfish ratio exceeds ``e^{N·ε}``."""

    first: str
    second: str
    prior: str
    budget: Budget
    runs: int | None                      # smallest N found, None if none up to the limit
    counts: tuple[tuple[tuple, int], ...]  # ((mechanism, output), count)
    ratio: Ratio                          # exact Pr[observations|s1,θ] / Pr[observations|s2,θ]
    searched_up_to: int

    @property
    def found(self) -> bool:
        return self.runs is not None

    def to_dict(self) -> dict:
        return {"direction": [self.first, self.second], "prior": self.prior,
                "budget": self.budget.text, "found": self.found, "runs": self.runs,
                "searched_up_to": self.searched_up_to,
                "releases": [{"mechanism": o[0], "output": jsonable_output(o[1]), "count": c}
                             for o, c in self.counts],
                "ratio": fraction_str(self.ratio) if len(fraction_str(self.ratio)) < 400 else None,
                "log_ratio": epsilon_str(self.ratio) if self.ratio == INFINITY else None,
                "log_ratio_float": epsilon_float(self.ratio),
                "budget_total_float": (self.runs or 0) * budget_float(self.budget)}

    def explain(self) -> str:
        if not self.found:
            return (f"attack: no N <= {self.searched_up_to} found where the observed outputs exceed "
                    f"N·ε for {self.first} vs {self.second}")
        releases = ", ".join(f"{c}× {o[0]}→{jsonable_output(o[1])!r}" for o, c in self.counts)
        return (f"attack: after N = {self.runs} releases ({releases}) the exact log-ratio under "
                f"{self.prior} is {epsilon_float(self.ratio):.6g} > N·ε = "
                f"{self.runs * budget_float(self.budget):.6g}: linear composition fails")


def composition_attack(model: PufferfishModel, mechanisms: Sequence[Mechanism],
                       program: NfcProgram, budget: Budget, max_runs: int = DEFAULT_MAX_RUNS,
                       max_datasets: int = DEFAULT_MAX_DATASETS) -> CompositionAttack:
    """The smallest ``N <= max_runs`` at which the rounded ``N·α`` observations break ``N·ε``."""
    by_name = {m.name: m for m in mechanisms}
    alpha = list(program.alpha)
    supports = prior_supports(model, max_datasets)
    secrets = {s.name: s for pair in model.pairs for s in (pair.first, pair.second)}
    first, second = secrets[program.first], secrets[program.second]
    priors = sorted({prior for _, prior in program.occurrences})
    families = model.interval_families
    sides = {}
    for prior in priors:
        if prior in families:
            # the whole family: every dataset of either secret; the worst member per N below
            family = families[prior]
            sides[prior] = tuple([(d, None) for block in family.blocks[name] for d in block.datasets]
                                 for name in (first.name, second.name))
            continue
        support = supports[prior]
        sides[prior] = (_conditional(support, first.holds), _conditional(support, second.holds))
    likelihood = {}
    for prior in priors:
        for dataset, _ in sides[prior][0] + sides[prior][1]:
            if dataset not in likelihood:
                likelihood[dataset] = [by_name[o[0]].distribution(dataset).prob(o[1])
                                       for o, _ in alpha]
    best: tuple | None = None
    for runs in range(1, max_runs + 1):
        counts = _round_counts([w for _, w in alpha], runs)
        for prior in priors:
            ratio = (_family_observation_ratio(families[prior], first.name, second.name,
                                               sides[prior], likelihood, counts)
                     if prior in families else _observation_ratio(sides[prior], likelihood, counts))
            if not compare_ratio(ratio, scale_budget(budget, runs)).holds:
                return CompositionAttack(program.first, program.second, prior, budget, runs,
                                         tuple((o, c) for (o, _), c in zip(alpha, counts) if c),
                                         ratio, max_runs)
            if best is None:
                best = (prior, counts, ratio)
    prior, counts, ratio = best if best else (priors[0], [], Fraction(1))
    return CompositionAttack(program.first, program.second, prior, budget, None,
                             tuple((o, c) for (o, _), c in zip(alpha, counts) if c), ratio, max_runs)


def _conditional(support, holds) -> list[tuple]:
    chosen = [(d, p) for d, p in support if holds(d)]
    total = sum((p for _, p in chosen), Fraction(0))
    return [(d, p / total) for d, p in chosen]


def _round_counts(weights: Sequence[Fraction], total: int) -> list[int]:
    """Integer counts summing to ``total`` closest to ``total·weights`` (largest remainders)."""
    scaled = [w * total for w in weights]
    counts = [math.floor(x) for x in scaled]
    missing = total - sum(counts)
    order = sorted(range(len(scaled)), key=lambda i: scaled[i] - counts[i], reverse=True)
    for i in order[:missing]:
        counts[i] += 1
    return counts


def _observation_likelihood(dataset: Dataset, likelihood, counts) -> Fraction:
    """``Π_i P(ω_i|D)^{c_i}``."""
    term = Fraction(1)
    for p, c in zip(likelihood[dataset], counts):
        if c:
            term *= p ** c
            if not term:
                break
    return term


def _family_observation_ratio(family: IntervalFamily, first: str, second: str, sides,
                              likelihood, counts) -> Ratio:
    """The supremum over the whole interval family of the observations' likelihood ratio.

    ``Pr[obs | s, θ] = Σ_D θ(D|s) L(D)`` is linear in ``θ(·|s)`` and the two secrets'
    conditionals are independent, so the supremum is the family's largest ``Pr[obs|s1]`` over its
    smallest ``Pr[obs|s2]``, each attained by an extreme member
    (:meth:`~pufferfish.models.priors.IntervalFamily.extreme_conditional`: the minimal-support
    members of the programs put each block's mass on one dataset, and these are such members).
    """
    top, _ = family.extreme_conditional(
        first, {d: _observation_likelihood(d, likelihood, counts) for d, _ in sides[0]}, True)
    bottom, _ = family.extreme_conditional(
        second, {d: _observation_likelihood(d, likelihood, counts) for d, _ in sides[1]}, False)
    if not bottom:
        return INFINITY if top else Fraction(0)
    return top / bottom


def _observation_ratio(sides, likelihood, counts) -> Ratio:
    def mass(side) -> Fraction:
        total = Fraction(0)
        for dataset, weight in side:
            term = weight
            for p, c in zip(likelihood[dataset], counts):
                if c:
                    term *= p ** c
                    if not term:
                        break
            total += term
        return total
    numerator, denominator = mass(sides[0]), mass(sides[1])
    if not denominator:
        return INFINITY if numerator else Fraction(0)
    return numerator / denominator


@dataclass(frozen=True)
class RepeatedRunLevels:
    """Exact Pufferfish levels ``ε_r`` of ``r = 1..R`` runs of one mechanism."""

    mechanism: str
    ratios: tuple[Ratio, ...]            # e^{ε_r}, exact
    witnesses: tuple[tuple, ...]         # (direction, prior, multiset) attaining each

    def per_run(self) -> list[float]:
        """``ε_r / r`` as floats (for reading)."""
        return [epsilon_float(r) / k for k, r in enumerate(self.ratios, start=1)]

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism,
                "runs": [{"runs": k, "epsilon": epsilon_str(r), "epsilon_float": epsilon_float(r),
                          "epsilon_per_run": epsilon_float(r) / k,
                          "witness": {"direction": list(w[0]), "prior": w[1],
                                      "outputs": [[jsonable_output(o), c] for o, c in w[2]]}
                          if w else None}
                         for k, (r, w) in enumerate(zip(self.ratios, self.witnesses), start=1)]}


def repeated_run_levels(model: PufferfishModel, mechanism: Mechanism, max_runs: int,
                        max_datasets: int = DEFAULT_MAX_DATASETS,
                        max_outputs: int = DEFAULT_MAX_OUTPUTS,
                        max_multisets: int = DEFAULT_MAX_MULTISETS) -> RepeatedRunLevels:
    """Exact ``ε_r`` for ``r = 1..max_runs`` by enumerating output multisets.

    Cost: ``C(m + R, R)`` multisets × (datasets + pair directions × priors) integer operations.
    """
    if max_runs < 1:
        raise ModelError("the number of runs must be at least 1", "--runs")
    datasets = audited_datasets(model, max_datasets)
    table = KernelTable.build(mechanism, datasets, max_outputs)
    m = len(table.outputs)
    if math.comb(m + max_runs, max_runs) - 1 > max_multisets:
        raise TooLargeError(f"{max_runs} runs of {mechanism.name!r} ({m} outputs) have "
                            f"{math.comb(m + max_runs, max_runs) - 1:,} output multisets, more than "
                            f"the limit of {max_multisets:,}")
    directions = _directions(model, table, max_datasets)
    best: list[tuple[Ratio, tuple | None]] = [(Fraction(0), None)] * max_runs
    counts = [0] * m

    def visit(start: int, size: int, products: list[int]) -> None:
        for o in range(start, m):
            column = [row[o] for row in table.rows]
            if not any(column):
                continue
            updated = [p * v for p, v in zip(products, column)]
            counts[o] += 1
            ratio, witness = _best_direction(directions, updated, table.dataset_index)
            if ratio_key(ratio) > ratio_key(best[size][0]):
                multiset = tuple((table.outputs[j], c) for j, c in enumerate(counts) if c)
                best[size] = (ratio, (witness[0], witness[1], multiset))
            if size + 1 < max_runs:
                visit(o, size + 1, updated)
            counts[o] -= 1

    visit(0, 0, [1] * len(datasets))
    ratios = tuple(r if r == INFINITY else max(Fraction(1), r) for r, _ in best)
    return RepeatedRunLevels(mechanism.name, ratios, tuple(w for _, w in best))


def _directions(model: PufferfishModel, table: KernelTable, max_datasets: int) -> list[tuple]:
    """Each (ordered pair, prior) as integer weights on the table's rows; an interval family's
    direction carries the family (its worst member is chosen per multiset)."""
    directions: list[tuple] = []
    for name, family in model.interval_families.items():
        for pair in model.pairs:
            family.require_blocks((pair.first.name, pair.second.name), pair.label, name)
            for first, second in pair.directions():
                directions.append(((first.name, second.name), name, family, None, None, None))
    for prior, support in prior_supports(model, max_datasets).items():
        weights, _ = integer_weights([p for _, p in support])
        for pair in model.pairs:
            for first, second in pair.directions():
                side1 = [(table.dataset_index[d], w) for (d, _), w in zip(support, weights)
                         if first.holds(d)]
                side2 = [(table.dataset_index[d], w) for (d, _), w in zip(support, weights)
                         if second.holds(d)]
                if side1 and side2:
                    directions.append(((first.name, second.name), prior, side1, side2,
                                       sum(w for _, w in side1), sum(w for _, w in side2)))
    return directions


def _family_multiset_ratio(family: IntervalFamily, names: tuple[str, str], products: list[int],
                           index: dict) -> Ratio:
    """The supremum over the family of ``Pr[multiset|s1,θ] / Pr[multiset|s2,θ]``: linear in each
    secret's conditional, so the family's largest numerator over its smallest denominator
    (:meth:`~pufferfish.models.priors.IntervalFamily.extreme_conditional`)."""
    def values(secret: str) -> dict:
        return {d: Fraction(products[index[d]]) for block in family.blocks[secret]
                for d in block.datasets}

    top, _ = family.extreme_conditional(names[0], values(names[0]), True)
    if not top:
        return Fraction(0)
    bottom, _ = family.extreme_conditional(names[1], values(names[1]), False)
    return INFINITY if not bottom else top / bottom


def _best_direction(directions, products, index: dict) -> tuple[Ratio, tuple]:
    best: Ratio = Fraction(0)
    witness = None
    for names, prior, side1, side2, mass1, mass2 in directions:
        if isinstance(side1, IntervalFamily):
            ratio = _family_multiset_ratio(side1, names, products, index)
            if ratio and (witness is None or ratio_key(ratio) > ratio_key(best)):
                best, witness = ratio, (names, prior)
            continue
        numerator = sum(w * products[i] for i, w in side1)
        if not numerator:
            continue
        denominator = sum(w * products[i] for i, w in side2)
        ratio = INFINITY if not denominator else Fraction(numerator * mass2, denominator * mass1)
        if witness is None or ratio_key(ratio) > ratio_key(best):
            best, witness = ratio, (names, prior)
    return best, witness or ((), "")


