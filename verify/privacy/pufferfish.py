"""The exact Pufferfish privacy level of a mechanism (Bai et al., Composition for Pufferfish
Privacy, §2.2, Definition 5).

``M`` satisfies ε-Pufferfish privacy for (Θ, 𝕊) if for every pair ``(s_i, s_j) ∈ 𝕊``, every prior
``θ ∈ Θ`` with ``Pr[s_i|θ] > 0`` and ``Pr[s_j|θ] > 0``, and every output ω,
``Pr[M(Data) = ω | s_i, θ] <= e^ε Pr[M(Data) = ω | s_j, θ]``.

The level is therefore ``log r*`` with ``r* = sup ratio`` over those triples, computed exactly:

* a triple with ``Pr[ω|s_i,θ] = 0`` imposes nothing (``0 <= e^ε·x`` always);
* ``Pr[ω|s_i,θ] > 0 = Pr[ω|s_j,θ]`` makes the ratio infinite (no finite ε);
* priors under which a secret of the pair has probability 0 are skipped, as the definition says,
  and listed in the result;
* interval families (Example 4.3) are handled exactly over the whole infinite family by
  :meth:`pufferfish.models.priors.IntervalFamily.extreme_conditional`.

Cost: one pass per prior over its support and the mechanism's table (:mod:`pufferfish.verify.privacy.joint`), plus
``O(|𝕊|·|Ω|)`` ratio comparisons; interval families add ``O(|𝕊|·|Ω|·|datasets of the secret|)``.
The reported ε is the least ε >= 0 that works: ``log max(1, r*)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.mechanisms import Mechanism, jsonable_output
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import (INFINITY, Ratio, decimal_text, epsilon_float, epsilon_str,
                                       exact_ratio, fraction_str, ratio_key)
from pufferfish.models.secrets import Secret
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.numerics.certified import Budget, BudgetCheck, compare_ratio
from pufferfish.verify.privacy.joint import SecretJoint, accumulate, constrained_directions
from pufferfish.verify.privacy.supports import audited_datasets, prior_supports
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class DirectionLevel(Explained):
    """The worst ratio for one ordered secret pair under one prior (or interval family)."""

    pair: str
    first: str
    second: str
    prior: str
    max_ratio: Ratio
    output: object = None
    p_first: Fraction | None = None
    p_second: Fraction | None = None
    conditional_first: Distribution | None = None
    conditional_second: Distribution | None = None

    @property
    def has_output(self) -> bool:
        """Whether an output attains the ratio (none when no output is possible under the first
        secret); the output itself may be any value, JSON ``null`` included."""
        return self.p_first is not None

    def to_dict(self) -> dict:
        data = {"pair": self.pair, "direction": [self.first, self.second], "prior": self.prior,
                "max_ratio": fraction_str(self.max_ratio), "epsilon": epsilon_str(self.max_ratio)}
        if self.has_output:
            data.update({"output": jsonable_output(self.output),
                         "p_output_given_first": fraction_str(self.p_first),
                         "p_output_given_second": fraction_str(self.p_second)})
        if self.conditional_first is not None:
            data["extreme_prior"] = {
                self.first: [[list(d), fraction_str(p)] for d, p in self.conditional_first.items()],
                self.second: [[list(d), fraction_str(p)] for d, p in self.conditional_second.items()]}
        return data

    def explain(self) -> str:
        if not self.has_output:
            return (f"{self.first} vs {self.second} under {self.prior}: no output is possible under"
                    f" {self.first}")
        return (f"output {jsonable_output(self.output)!r}: Pr[ω|{self.first}, {self.prior}] = "
                f"{fraction_str(self.p_first)} vs Pr[ω|{self.second}, {self.prior}] = "
                f"{fraction_str(self.p_second)}, ratio {fraction_str(self.max_ratio)}")


@dataclass(repr=False, frozen=True)
class PufferfishResult(Explained):
    """The exact Pufferfish level of one mechanism, with the worst case as witness."""

    mechanism: str
    max_ratio: Ratio
    witness: DirectionLevel | None
    levels: tuple[DirectionLevel, ...]
    skipped: tuple[tuple[str, str, str], ...] = ()
    budget: BudgetCheck | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def level_ratio(self) -> Ratio:
        """``e^ε`` for the least admissible ε >= 0: ``max(1, max_ratio)``."""
        return max(Fraction(1), self.max_ratio) if self.max_ratio != INFINITY else INFINITY

    @property
    def epsilon(self) -> str:
        return epsilon_str(self.level_ratio)

    @property
    def holds(self) -> bool | None:
        return None if self.budget is None else self.budget.holds

    @property
    def vacuous(self) -> bool:
        """No ordered secret pair is constrained: under every prior one of its secrets has
        probability 0 (Definition 5 then says nothing, and the level ``0`` proves nothing)."""
        return not self.levels

    def to_dict(self) -> dict:
        data = {"check": "pufferfish", "mechanism": self.mechanism,
                "max_ratio": fraction_str(self.level_ratio), "epsilon": self.epsilon,
                "epsilon_float": epsilon_float(self.level_ratio), "vacuous": self.vacuous,
                "witness": self.witness.to_dict() if self.witness else None,
                "levels": [lv.to_dict() for lv in self.levels],
                "skipped": [{"pair": p, "prior": q, "reason": r} for p, q, r in self.skipped]}
        if self.budget is not None:
            data["budget"] = self.budget.to_dict()
            data["holds"] = self.budget.holds
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    def explain(self) -> str:
        if self.vacuous:
            text = (f"{self.mechanism}: Pufferfish level vacuous: {VACUOUS_TEXT} "
                    f"({len(self.skipped)} ordered pairs skipped)")
        else:
            text = f"{self.mechanism}: Pufferfish level ε = {self.epsilon}"
            if self.level_ratio not in (INFINITY,):
                text += f" {decimal_text(self.level_ratio, log=True)}"
        if self.witness is not None:
            text += f"; worst case {self.witness.explain()}"
        if self.budget is not None:
            text += (f"; budget {self.budget.budget.text}: {self.budget.verdict}"
                     f"{'' if self.vacuous else f' ({self.budget.relation})'}")
        return text

    def _repr_html_(self) -> str:
        from pufferfish.verify.html_views import pufferfish_html

        return pufferfish_html(self)


VACUOUS_TEXT = ("no secret pair applies — every pair has a secret of probability 0 under every "
                "prior, so nothing is constrained")
"""How reports say that a Pufferfish level is vacuous."""


def check_level(ratio: Ratio, budget: Budget, vacuous: bool) -> BudgetCheck:
    """The budget verdict of a level: ``vacuous`` (undecided) when the level constrains
    nothing, else the exact comparison of ``log(ratio)`` with the budget."""
    return BudgetCheck(budget, ratio, "vacuous") if vacuous else compare_ratio(ratio, budget)


def pufferfish_level(model: PufferfishModel, mechanism: Mechanism, budget: Budget | None = None,
                     max_datasets: int = DEFAULT_MAX_DATASETS,
                     max_outputs: int = DEFAULT_MAX_OUTPUTS) -> PufferfishResult:
    """The exact Pufferfish level of ``mechanism`` under ``model`` (Definition 5); for a
    mechanism whose probabilities are certified enclosures (a program with Gaussian noise),
    certified bounds on it
    (:class:`~pufferfish.verify.privacy.certified_pufferfish.CertifiedPufferfishResult`).

    >>> from pufferfish.models.files.pufferfish_file import load_model  # doctest: +SKIP
    """
    supports = prior_supports(model, max_datasets)
    table = KernelTable.build(mechanism, audited_datasets(model, max_datasets), max_outputs)
    secrets = pair_secrets(model)
    if table.enclosed:  # certified probabilities (Gaussian noise): certified bounds on the level
        from pufferfish.verify.privacy.certified_pufferfish import certified_pufferfish_level
        return certified_pufferfish_level(model, mechanism, supports, table, secrets, budget)
    joints = {name: accumulate(name, support, table, secrets) for name, support in supports.items()}
    return pufferfish_from_joints(model, mechanism.name, joints, table, budget)


def pufferfish_from_joints(model: PufferfishModel, mechanism_name: str,
                           joints: dict[str, SecretJoint], table: KernelTable,
                           budget: Budget | None = None) -> PufferfishResult:
    """Definition 5's level from each finite prior's :class:`SecretJoint` (in the model's prior
    order) and the kernel ``table`` (read for the interval families).  Cost ``O(|𝕊|·|Ω|)`` per
    prior, plus the interval families' ``O(|𝕊|·|Ω|·|datasets of the secret|)``."""
    levels: list[DirectionLevel] = []
    skipped: list[tuple[str, str, str]] = []
    for prior_name, joint in joints.items():
        for pair, first, second in constrained_directions(model, prior_name, joint.mass,
                                                          skipped):
            levels.append(_finite_direction(pair.label, first, second, joint))
    for family_name, family in model.interval_families.items():
        for pair in model.pairs:
            for first, second in pair.directions():
                family.require_blocks((first.name, second.name), pair.label, family_name)
                levels.append(_interval_direction(pair.label, first, second, family_name,
                                                  family, table))
    witness = max(levels, key=_level_key, default=None)
    max_ratio: Ratio = witness.max_ratio if witness is not None else Fraction(0)
    result_ratio = max(Fraction(1), max_ratio) if max_ratio != INFINITY else INFINITY
    check = check_level(result_ratio, budget, not levels) if budget is not None else None
    return PufferfishResult(mechanism_name, max_ratio, witness, tuple(levels), tuple(skipped), check)


def pair_secrets(model: PufferfishModel) -> list[Secret]:
    """The secrets that appear in the model's pairs, each once, in order of appearance."""
    unique: dict[str, Secret] = {}
    for pair in model.pairs:
        for secret in (pair.first, pair.second):
            unique.setdefault(secret.name, secret)
    return list(unique.values())


def _level_key(level: DirectionLevel) -> tuple[int, Fraction]:
    return ratio_key(level.max_ratio)


def _finite_direction(label: str, first: Secret, second: Secret, joint: SecretJoint) -> DirectionLevel:
    """Worst output for ``Pr[ω|first] / Pr[ω|second]`` under one prior, by cross-multiplication."""
    mass_first, mass_second = joint.mass[first.name], joint.mass[second.name]
    vec_first, vec_second = joint.joint[first.name], joint.joint[second.name]
    best_num, best_den, best_o = 0, 1, None
    for o, (a, b) in enumerate(zip(vec_first, vec_second)):
        if not a:
            continue
        num, den = a * mass_second, b * mass_first
        if best_o is None or num * best_den > best_num * den:
            best_num, best_den, best_o = num, den, o
            if not den:
                break
    if best_o is None:
        return DirectionLevel(label, first.name, second.name, joint.prior_name, Fraction(0))
    ratio: Ratio = INFINITY if not best_den else exact_ratio(best_num, best_den)
    return DirectionLevel(label, first.name, second.name, joint.prior_name, ratio,
                          joint.table.outputs[best_o], joint.conditional(first.name, best_o),
                          joint.conditional(second.name, best_o))


def _interval_direction(label: str, first: Secret, second: Secret, family_name: str,
                        family, table: KernelTable) -> DirectionLevel:
    """Exact supremum over an interval family for one ordered pair (see IntervalFamily)."""
    def values(secret: Secret, o: int) -> dict:
        return {d: table.rows[table.dataset_index[d]][o]
                for block in family.blocks[secret.name] for d in block.datasets}

    best = None
    for o in range(len(table.outputs)):
        top, q_first = family.extreme_conditional(first.name, values(first, o), maximize=True)
        if not top:
            continue
        bottom, q_second = family.extreme_conditional(second.name, values(second, o), maximize=False)
        ratio: Ratio = INFINITY if not bottom else Fraction(top) / bottom
        if best is None or ratio_key(ratio) > ratio_key(best[0]):
            best = (ratio, o, top, bottom, q_first, q_second)
    if best is None:
        return DirectionLevel(label, first.name, second.name, family_name, Fraction(0))
    ratio, o, top, bottom, q_first, q_second = best
    scale = table.denominator
    return DirectionLevel(label, first.name, second.name, family_name, ratio, table.outputs[o],
                          Fraction(top) / scale, Fraction(bottom) / scale, q_first, q_second)
