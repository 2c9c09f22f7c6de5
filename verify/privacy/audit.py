"""The full audit of a model file: every mechanism's Pufferfish, DP and leakage levels, and the
joint release of all of them (``000_65109fe28ca61d17.txt`` Definitions 1–5; composition §1, §4).

This is what ``pufferfish audit MODEL`` runs.  Each part is computed by its own module; this one
only gathers the results, applies the optional budget, and decides the exit verdict: with a budget,
the audit *holds* when every mechanism and their joint release are ε-Pufferfish private.

A model without mechanisms has nothing to audit: :func:`audit_model` refuses it with a
:class:`~pufferfish.models.errors.ModelError` (exit 2 on the command line) instead of reporting
that an empty set of mechanisms "holds" for every budget.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import epsilon_float, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.numerics.certified import Budget
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import compose
from pufferfish.verify.execution import Engine, InProcessEngine, ProgressCallback
from pufferfish.verify.privacy.audit_plan import AuditPlan, plan_audit
from pufferfish.verify.privacy.blocks import (BlockSums, audited_secrets, block_plan,
                                              merge_block_sums, shippable, support_block_sums)
from pufferfish.verify.privacy.composition import CompositionResult, composition_result
from pufferfish.verify.privacy.dp import DPResult, dp_level
from pufferfish.verify.privacy.dp_blocks import dp_levels_blocked, first_row
from pufferfish.verify.privacy.joint import SecretJoint, joint_from_groups
from pufferfish.verify.privacy.leakage import LeakageResult, leakage_from_joints
from pufferfish.verify.privacy.pufferfish import (VACUOUS_TEXT, PufferfishResult,
                                                  pufferfish_from_joints)
from pufferfish.verify.report import Explained, compact, table


@dataclass(frozen=True)
class MechanismAudit:
    """Pufferfish level, DP levels and leakage of one mechanism."""

    name: str
    pufferfish: PufferfishResult
    dp: tuple[DPResult, ...]
    leakage: LeakageResult

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "pufferfish": self.pufferfish.to_dict(),
                "dp": [d.to_dict() for d in self.dp], "leakage": self.leakage.to_dict()}


@dataclass(frozen=True, repr=False)
class ModelAudit(Explained):
    """Every mechanism's audit and the composition of all of them."""

    mechanisms: tuple[MechanismAudit, ...]
    composition: CompositionResult | None
    composition_note: str = ""
    budget: Budget | None = None

    @property
    def holds(self) -> bool | None:
        """With a budget: every mechanism and the joint release meet it.  Without: ``None``."""
        if self.budget is None:
            return None
        verdicts = [m.pufferfish.holds for m in self.mechanisms]
        if self.composition is not None and self.composition.budget is not None:
            verdicts.append(self.composition.budget.holds)
        if False in verdicts:
            return False
        return None if None in verdicts else True  # None: a vacuous level decides nothing

    @property
    def verdict(self) -> str:
        """``holds``, ``VIOLATED`` or ``UNDECIDED`` (some level is vacuous) under the budget."""
        return {True: "holds", False: "VIOLATED", None: "UNDECIDED (a level is vacuous)"}[self.holds]

    def to_dict(self) -> dict:
        data = {"check": "audit", "mechanisms": [m.to_dict() for m in self.mechanisms],
                "composition": self.composition.to_dict() if self.composition else None}
        if self.composition_note:
            data["composition_note"] = self.composition_note
        if self.budget is not None:
            data["budget"] = self.budget.text
            data["holds"] = self.holds
        return data

    def summary(self) -> str:
        """One line: each mechanism's Pufferfish level, and the verdict when a budget was given."""
        levels = ", ".join(f"{m.name} {m.pufferfish.epsilon}" for m in self.mechanisms)
        verdict = "" if self.budget is None else (
            f"; budget {self.budget.text} {self.verdict}")
        return f"Pufferfish levels {levels}{verdict}"

    def explain(self, source: str = "the model") -> str:
        """The plain-text report ``pufferfish audit`` prints (``source`` names the model)."""
        rows = []
        for m in self.mechanisms:
            p = m.pufferfish
            approx = epsilon_float(p.level_ratio)
            rows.append([m.name, "vacuous" if p.vacuous else compact(p.epsilon),
                         "-" if p.vacuous else "inf" if approx == math.inf else f"{approx:.4f}",
                         ", ".join(f"{d.relation} {compact(d.epsilon)}" for d in m.dp),
                         "zero" if m.leakage.zero_leakage
                         else compact(fraction_str(m.leakage.worst_shift)),
                         "-" if p.budget is None else
                         "undecided" if p.holds is None else ("ok" if p.holds else "VIOLATED")])
        lines = [f"Audit of {source}", "",
                 table(["mechanism", "pufferfish ε", "≈", "DP ε", "leakage (max shift)", "budget"],
                       rows), ""]
        for m in self.mechanisms:
            if m.pufferfish.witness is not None:
                lines.append(f"  {m.name}: worst case {m.pufferfish.witness.explain()}")
            if m.pufferfish.vacuous:
                lines.append(f"  {m.name}: vacuous: {VACUOUS_TEXT}")
            for skipped in m.pufferfish.skipped[:3]:
                lines.append(f"  {m.name}: skipped {skipped[0]} under {skipped[1]} ({skipped[2]})")
        if self.composition is not None:
            lines += ["", self.composition.explain()]
        elif self.composition_note:
            lines += ["", self.composition_note]
        if self.budget is not None:
            lines += ["", f"budget ε = {self.budget.text}: {self.verdict}"]
        return "\n".join(lines)


def audit_model(model: PufferfishModel, budget: Budget | None = None, group: int | None = None,
                max_datasets: int = DEFAULT_MAX_DATASETS, max_outputs: int = DEFAULT_MAX_OUTPUTS,
                progress: Callable[[str], None] | None = None,
                engine: Engine | None = None,
                block_progress: ProgressCallback | None = None,
                announce: Callable[[AuditPlan], None] | None = None) -> ModelAudit:
    """Audit every mechanism of ``model`` and their joint release.

    ``progress(name)`` is called as each mechanism is audited, ``block_progress(done, total)`` as
    the prior blocks finish.  The priors' supports are cut into blocks that run as independent tasks on ``engine`` (this
    process by default, or a Dask cluster: :mod:`pufferfish.verify.execution`) and are reduced
    exactly (:mod:`pufferfish.verify.privacy.blocks`); per-entry DP on a product universe is split
    the same way (:mod:`pufferfish.verify.privacy.dp_blocks`).  The result is the same, bit for
    bit, as :func:`~pufferfish.verify.privacy.pufferfish.pufferfish_level`,
    :func:`~pufferfish.verify.privacy.dp.dp_level`, :func:`~pufferfish.verify.privacy.leakage.leakage`
    and :func:`~pufferfish.verify.privacy.composition.composition_audit` called one by one.

    ``max_datasets`` bounds one block (the most datasets a task enumerates), not the universe:
    :func:`~pufferfish.verify.privacy.audit_plan.plan_audit` checks the blocks and the estimated
    memory before anything runs, and ``announce(plan)`` receives that plan; when the universe is
    larger than one block, it receives it once the first block of each prior and the first DP row
    block, run first, have finished, with a time estimate from their times (their results are
    kept, and the other blocks run meanwhile).

    Raises :class:`ModelError` (at ``mechanisms``) when the model has no mechanism: a check that
    finds nothing to check says so rather than passing.
    """
    if not model.mechanisms:
        raise ModelError("the model has no mechanisms, so there is nothing to audit; add at least "
                         "one under \"mechanisms\"", "mechanisms")
    engine = engine or InProcessEngine()
    relations = ["entry"]
    if any(len(record) > 1 for record in model.universe.records):
        relations.append("record")
    if group is not None:
        relations.append(f"group:{group}")
    plan = plan_audit(model, engine.workers, max_datasets, group is not None)
    mechanisms = list(model.mechanisms.values())
    slots = mechanisms + ([compose(mechanisms)] if len(mechanisms) >= 2 else [])
    prior_blocks = block_plan(model, 4 * engine.workers, max_datasets)
    tasks: list[tuple[str, tuple]] = [("prior", block) for block in prior_blocks]
    order: list[int | None] = list(range(len(tasks)))  # each task's prior block (None: DP row)
    estimate = None
    if announce is not None and plan.is_split:
        estimate = _TimeEstimate(plan, tasks, (4 * engine.workers, max_datasets), engine.workers,
                                 announce)
        tasks, order = estimate.tasks, estimate.order
    elif announce is not None:
        announce(plan)
    done = engine.map(_timed_task, tasks, progress=block_progress, shared=shippable(model),
                      on_result=estimate.record if estimate else None)
    blocks: list[BlockSums | None] = [None] * len(prior_blocks)
    row = None
    for k, (_, result) in zip(order, done):
        if k is None:
            row = result
        else:
            blocks[k] = result
    groups, first = merge_block_sums(blocks, list(model.finite_priors), len(slots))
    family_datasets = [d for family in model.interval_families.values()
                       for blocks_of_secret in family.blocks.values()
                       for block in blocks_of_secret for d in block.datasets]
    names = [s.name for s in audited_secrets(model)]

    def joints_of(slot: int) -> tuple[dict[str, SecretJoint], KernelTable]:
        mechanism = slots[slot]
        for dataset in family_datasets:
            first[slot].setdefault(mechanism.kernel_key(dataset), dataset)
        table = KernelTable.build(mechanism, list(first[slot].values()) + family_datasets,
                                  max_outputs)
        joints = {prior: joint_from_groups(
                      prior, ((signature, weight, table.rows[table.dataset_index[first[slot][key]]])
                              for (signature, key), weight in per_slot[slot].items()),
                      table, names)
                  for prior, per_slot in groups.items()}
        return joints, table

    entry_levels = dp_levels_blocked(model.universe, mechanisms, max_outputs, engine,
                                     4 * engine.workers, max_datasets, row)
    audits = []
    individual = []
    for slot, mechanism in enumerate(mechanisms):
        if progress:
            progress(mechanism.name)
        joints, table = joints_of(slot)
        puffer = pufferfish_from_joints(model, mechanism.name, joints, table, budget)
        individual.append(puffer if budget is None else
                          pufferfish_from_joints(model, mechanism.name, joints, table))
        dps = tuple(entry_levels[slot] if relation == "entry" and entry_levels[slot] is not None
                    else dp_level(model.universe, mechanism, relation, None, max_datasets,
                                  max_outputs)
                    for relation in relations)
        leak = leakage_from_joints(model, mechanism.name, joints)
        audits.append(MechanismAudit(mechanism.name, puffer, dps, leak))
    composition, note = None, ""
    if len(mechanisms) >= 2:
        if progress:
            progress("joint release")
        try:
            joints, table = joints_of(len(mechanisms))
        except TooLargeError as error:
            note = f"joint release not computed: {error.reason}"
        else:
            joint = pufferfish_from_joints(model, slots[-1].name, joints, table)
            composition = composition_result(tuple(individual), joint, budget)
    return ModelAudit(tuple(audits), composition, note, budget)


class _TimeEstimate:
    """The time of an audit estimated from its first tasks: the first block of each prior and the
    first DP row block are put first in the prior blocks' map (``tasks``), and once all of them
    have finished, ``announce`` receives the plan with ``seconds`` = their times multiplied by
    the number of such blocks, over the workers.  No barrier: the other blocks run meanwhile.
    ``order``: the prior block of each task (``None`` for the DP row block)."""

    def __init__(self, plan: AuditPlan, tasks: list[tuple[str, tuple]], row: tuple,
                 workers: int, announce: Callable[[AuditPlan], None]) -> None:
        counts = Counter(block[0] for _, block in tasks)
        firsts: dict[str, int] = {}
        for k, (_, block) in enumerate(tasks):
            firsts.setdefault(block[0], k)
        leading = set(firsts.values())
        self.order: list[int | None] = ([None, *firsts.values()]
                                        + [k for k in range(len(tasks)) if k not in leading])
        self.tasks = [("row", row) if k is None else tasks[k] for k in self.order]
        # the task's index in self.tasks -> how many blocks of its kind there are
        self.waiting = {0: plan.dp_blocks, **{k + 1: counts[name] for k, name in enumerate(firsts)}}
        self.plan, self.workers, self.announce, self.seconds = plan, workers, announce, 0.0

    def record(self, index: int, outcome: tuple[float, object]) -> None:
        blocks = self.waiting.pop(index, None)
        if blocks is not None:
            self.seconds += outcome[0] * blocks
            if not self.waiting:
                self.announce(replace(self.plan, seconds=self.seconds / self.workers))


def _timed_task(model: PufferfishModel, kind: str, argument: tuple) -> tuple[float, object]:
    """A task of the audit's first map with its time in seconds: a prior block (``kind``
    "prior", ``argument`` its plan entry) or the first DP row block ("row", ``(tasks,
    max_block)``)."""
    started = time.perf_counter()
    if kind == "prior":
        result = support_block_sums(model, *argument)
    else:
        result = first_row(model.universe, list(model.mechanisms.values()), *argument)
    return time.perf_counter() - started, result
