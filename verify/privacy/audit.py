"""The full audit of a model file: every mechanism's Pufferfish, DP and leakage levels, and the
joint release of all of them (Bai et al., Composition for Pufferfish Privacy, Definitions 1–5;
composition §1, §4).

This is what ``pufferfish audit MODEL`` runs.  Each part is computed by its own module; this one
only gathers the results, applies the optional budgets, and decides the exit verdict: with a
Pufferfish budget, the audit *holds* when every mechanism and their joint release are
ε-Pufferfish private; with a DP budget, when every audited mechanism's DP level under every
audited neighbour relation is within it.

The DP levels are taken under the relations asked for (:mod:`pufferfish.models.neighbours`), else
the model's ``neighbours``, else per-entry DP and, when some record has several attributes,
per-record DP; ``group`` adds group-``K`` DP.  ``mechanisms`` names the mechanisms to audit (all
by default); their joint release is audited when there are at least two.

Length: the audit's one entry point, its exact path and the result objects it returns are one
unit; the block and structured machinery already live in their own modules.

A model without mechanisms has nothing to audit: :func:`audit_model` refuses it with a
:class:`~pufferfish.models.errors.ModelError` (exit 2 on the command line) instead of reporting
that an empty set of mechanisms "holds" for every budget.
"""

from __future__ import annotations

import copy
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from pufferfish.models.enclosures import UncertainComparison
from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS, KernelTable
from pufferfish.models.model import PufferfishModel
from pufferfish.models.programs.mechanism import ProgramMechanism
from pufferfish.models.neighbours import (DEFAULT_MAX_PAIRS, NeighbourRelation, ScannedRelation,
                                          StandardRelation, parse_neighbours)
from pufferfish.models.numbers import epsilon_float, fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, size_text
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.models.mechanisms import compose, jsonable_output
from pufferfish.verify.execution import Engine, InProcessEngine, ProgressCallback
from pufferfish.verify.privacy.audit_plan import AuditPlan, plan_audit
from pufferfish.verify.privacy.blocks import (BLOCK_DATASETS, BlockSums, audited_secrets,
                                              block_plan, merge_block_sums, shippable,
                                              support_block_sums)
from pufferfish.verify.privacy.composition import CompositionResult, composition_result
from pufferfish.verify.privacy.dp import (DPResult, dp_level, dp_levels_by_relation,
                                          scan_size_within)
from pufferfish.verify.privacy.dp_blocks import dp_levels_blocked, first_row
from pufferfish.verify.privacy.joint import SecretJoint, joint_from_groups
from pufferfish.verify.privacy.leakage import LeakageResult, leakage_from_joints
from pufferfish.verify.privacy.pufferfish import (VACUOUS_TEXT, PufferfishResult,
                                                  pufferfish_from_joints)
from pufferfish.verify.program_laws import program_laws, universe_keys
from pufferfish.verify.report import Explained, assuming, assumption_lines, compact, table
from pufferfish.verify.privacy.certified_audit import certified_audit, has_certified_laws
from pufferfish.verify.structured.audit import (leakage_from_priors, pufferfish_from_directions,
                                                structured_leakage, structured_pufferfish,
                                                structured_reason)
from pufferfish.verify.structured.dp import structured_entry_dp
from pufferfish.verify.structured.laws import output_laws
from pufferfish.verify.structured.tasks import structured_pieces


@dataclass(frozen=True)
class MechanismAudit:
    """Pufferfish level, DP levels and leakage of one mechanism (``pufferfish`` and ``leakage``
    are ``None`` for a DP-only model, which has no prior)."""

    name: str
    pufferfish: PufferfishResult | None
    dp: tuple[DPResult, ...]
    leakage: LeakageResult | None

    def to_dict(self) -> dict:
        return {"mechanism": self.name,
                "pufferfish": None if self.pufferfish is None else self.pufferfish.to_dict(),
                "dp": [d.to_dict() for d in self.dp],
                "leakage": None if self.leakage is None else self.leakage.to_dict()}


@dataclass(frozen=True, repr=False)
class ModelAudit(Explained):
    """Every mechanism's audit and the composition of all of them; ``budget`` (Pufferfish) and
    ``dp_budget`` (every DP level) when given, and the neighbour ``relations`` of the DP levels.
    ``dp_only``: the model had no priors, so only DP levels were computed
    (:mod:`pufferfish.verify.privacy.dp_audit`).  ``assumptions``: what every verdict takes on
    trust (the trusted programs among the mechanisms,
    :meth:`~pufferfish.models.model.PufferfishModel.assumptions`); each verdict's words say so."""

    mechanisms: tuple[MechanismAudit, ...]
    composition: CompositionResult | None
    composition_note: str = ""
    budget: Budget | None = None
    dp_budget: Budget | None = None
    relations: tuple[NeighbourRelation, ...] = ()
    method: str = "enumeration"
    method_note: str = ""
    notes: tuple[str, ...] = ()
    dp_only: bool = False
    assumptions: tuple[str, ...] = ()

    @property
    def pufferfish_holds(self) -> bool | None:
        """With a Pufferfish budget: every mechanism and the joint release meet it; else ``None``."""
        if self.budget is None:
            return None
        verdicts = [m.pufferfish.holds for m in self.mechanisms]
        if self.composition is not None and self.composition.budget is not None:
            verdicts.append(self.composition.budget.holds)
        if False in verdicts:
            return False
        return None if None in verdicts else True  # None: a vacuous level decides nothing

    @property
    def dp_holds(self) -> bool | None:
        """With a DP budget: every DP level of every mechanism meets it; else ``None``."""
        if self.dp_budget is None:
            return None
        return all(d.holds for m in self.mechanisms for d in m.dp)

    @property
    def holds(self) -> bool | None:
        """Every budget given is met (``None`` when no budget was given)."""
        verdicts = ([self.pufferfish_holds] if self.budget is not None else []) + \
                   ([self.dp_holds] if self.dp_budget is not None else [])
        if not verdicts:
            return None
        if False in verdicts:
            return False
        return None if None in verdicts else True  # None: a vacuous Pufferfish level

    def to_dict(self) -> dict:
        data = {"check": "audit", "mechanisms": [m.to_dict() for m in self.mechanisms],
                "composition": self.composition.to_dict() if self.composition else None,
                "method": {"path": self.method, "note": self.method_note or None}}
        if self.dp_only:
            data["dp_only"] = True
        if self.notes:
            data["notes"] = list(self.notes)
        if self.assumptions:
            data["assumptions"] = list(self.assumptions)
        if self.relations:
            data["neighbours"] = [relation.to_json() for relation in self.relations]
        if self.composition_note:
            data["composition_note"] = self.composition_note
        if self.budget is not None:
            data["budget"] = self.budget.text
        if self.dp_budget is not None:
            data["dp_budget"] = self.dp_budget.text
            data["dp_holds"] = self.dp_holds
        if self.budget is not None or self.dp_budget is not None:
            data["holds"] = self.holds
        return data

    def summary(self) -> str:
        """One line: each mechanism's Pufferfish level (its DP levels for a DP-only model), and
        the verdicts of the budgets given."""
        if self.dp_only:
            levels = ", ".join(f"{m.name} {d.relation} {d.epsilon}" for m in self.mechanisms
                               for d in m.dp)
            verdict = "" if self.dp_budget is None else (
                f"; DP budget {self.dp_budget.text} {self._verdict(self.dp_holds)}")
            return f"DP levels {levels}{verdict}"
        levels = ", ".join(f"{m.name} {m.pufferfish.epsilon}" for m in self.mechanisms)
        verdict = "" if self.budget is None else (
            f"; budget {self.budget.text} {self._verdict(self.pufferfish_holds)}")
        if self.dp_budget is not None:
            verdict += f"; DP budget {self.dp_budget.text} {self._verdict(self.dp_holds)}"
        return f"Pufferfish levels {levels}{verdict}"

    def _repr_html_(self) -> str:
        from pufferfish.verify.html_views import audit_html

        return audit_html(self)

    def explain(self, source: str = "the model") -> str:
        """The plain-text report ``pufferfish audit`` prints (``source`` names the model): a row
        per mechanism (each DP level with its decimal), then each worst case, Pufferfish and DP."""
        from pufferfish.verify.privacy.dp_audit import approximate, explain_dp_only, witness_line

        if self.dp_only:
            return explain_dp_only(self, source)
        rows = []
        for m in self.mechanisms:
            p = m.pufferfish
            approx = epsilon_float(p.level_ratio)
            rows.append([m.name, "vacuous" if p.vacuous else compact(p.epsilon),
                         "-" if p.vacuous else "inf" if approx == math.inf else f"{approx:.4f}",
                         ", ".join(f"{d.relation} {compact(d.epsilon)} ≈{approximate(d)}"
                                   for d in m.dp),
                         "zero" if m.leakage.zero_leakage
                         else compact(fraction_str(m.leakage.worst_shift)),
                         "-" if p.budget is None else
                         "undecided" if p.holds is None else ("ok" if p.holds else "VIOLATED")])
            if self.dp_budget is not None:
                rows[-1].append("ok" if all(d.holds for d in m.dp) else "VIOLATED")
        headers = ["mechanism", "pufferfish ε", "≈", "DP ε", "leakage (max shift)", "budget"]
        if self.dp_budget is not None:
            headers.append("DP budget")
        lines = [f"Audit of {source}", "", table(headers, rows), ""]
        if self.method == "structured":
            lines.append(f"  exact by the prior's structure: {self.method_note}")
        lines += [f"  note: {note}" for note in self.notes]
        for m in self.mechanisms:
            if m.pufferfish.witness is not None:
                lines.append(f"  {m.name}: worst case {m.pufferfish.witness.explain()}")
            if m.pufferfish.vacuous:
                lines.append(f"  {m.name}: vacuous: {VACUOUS_TEXT}")
            for skipped in m.pufferfish.skipped[:3]:
                lines.append(f"  {m.name}: skipped {skipped[0]} under {skipped[1]} ({skipped[2]})")
            for d in m.dp:
                if self.dp_budget is not None and not d.holds and d.dataset is not None:
                    lines.append(f"  {m.name}: {d.relation} DP level {d.epsilon} exceeds "
                                 f"{self.dp_budget.text}: output "
                                 f"{jsonable_output(d.output)!r} on {list(d.dataset)} vs "
                                 f"{list(d.neighbour)} ({fraction_str(d.p_dataset)} vs "
                                 f"{fraction_str(d.p_neighbour)})")
                elif witness_line(m.name, d) is not None:
                    lines.append(witness_line(m.name, d))
        if self.composition is not None:
            lines += ["", self.composition.explain()]
        elif self.composition_note:
            lines += ["", self.composition_note]
        if self.budget is not None:
            lines += ["", f"budget ε = {self.budget.text}: {self._verdict(self.pufferfish_holds)}"]
        if self.dp_budget is not None:
            if self.budget is None:
                lines.append("")
            relations = ", ".join(r.label for r in self.relations) or "each relation"
            lines.append(f"DP budget ε = {self.dp_budget.text} ({relations}): "
                         f"{self._verdict(self.dp_holds)}")
        if self.assumptions:
            lines += [""] + assumption_lines(self.assumptions)
        return "\n".join(lines)

    def _verdict(self, holds: bool | None) -> str:
        return assuming(_verdict(holds), self.assumptions)


def _verdict(holds: bool | None) -> str:
    """A budget's verdict for reports (``None``: a vacuous level decided nothing)."""
    return {True: "holds", False: "VIOLATED", None: "UNDECIDED (a level is vacuous)"}[holds]


def selected_mechanisms(model: PufferfishModel, names: Sequence[str] | None,
                        path: str = "mechanisms") -> list[str]:
    """The names of the mechanisms to audit, in the model's order (all when ``names`` is
    ``None``); an unknown name is refused with the known ones, located at ``path``.

    >>> from pufferfish.api import load
    >>> selected_mechanisms(load("quickstart.json"), ["sum"])
    ['sum']
    >>> selected_mechanisms(load("quickstart.json"), ["noise"], "--mechanism")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: --mechanism: unknown mechanism 'noise'; the model's mechanisms are 'rr', 'sum'
    """
    if names is None:
        return list(model.mechanisms)
    for name in names:
        if name not in model.mechanisms:
            known = ", ".join(repr(n) for n in model.mechanisms) or "(none)"
            raise ModelError(f"unknown mechanism {name!r}; the model's mechanisms are {known}",
                             path)
    if not names:
        raise ModelError("no mechanism named: there is nothing to audit", path)
    return [name for name in model.mechanisms if name in set(names)]


def audit_model(model: PufferfishModel, budget: Budget | None = None, group: int | None = None,
                max_datasets: int = DEFAULT_MAX_DATASETS, max_outputs: int = DEFAULT_MAX_OUTPUTS,
                progress: Callable[[str], None] | None = None,
                engine: Engine | None = None,
                block_progress: ProgressCallback | None = None,
                announce: Callable[[AuditPlan], None] | None = None, *,
                mechanisms: Sequence[str] | None = None,
                neighbours: Sequence[object] | None = None,
                dp_budget: Budget | None = None,
                max_pairs: int = DEFAULT_MAX_PAIRS,
                method: str = "auto") -> ModelAudit:
    """Audit every mechanism of ``model`` (or the ``mechanisms`` named) and their joint release.

    ``method`` chooses how the priors are read.  ``"enumeration"`` lists each prior's support
    (below).  ``"structured"`` follows the prior's structure instead
    (:mod:`pufferfish.verify.structured`: sum-product on the chain's or network's junction tree,
    with the mechanism's statistic carried as a polynomial), for chains, product priors and
    Bayesian networks whose mechanisms read a decomposable statistic; it is refused, with the
    reason, when the model is not of that form.  ``"auto"`` (the default) takes the structured
    path when the model allows it and the universe is larger than one enumeration block
    (:data:`~pufferfish.verify.privacy.blocks.BLOCK_DATASETS` datasets), and enumerates
    otherwise; the plan announced and the result's ``method_note`` say which and why.  Both
    paths give the same levels exactly (tests compare them).

    DP levels are taken under each relation of ``neighbours`` (any form
    :func:`~pufferfish.models.neighbours.parse_neighbours` reads), else the model's
    ``neighbours``, else per-entry (and per-record, with multi-attribute records); ``group`` adds
    group-``K``.  Entry, record and group levels are computed as before; the other relations by
    :func:`~pufferfish.verify.privacy.dp.dp_levels_by_relation` (each refused above ``max_pairs``
    ordered pairs), every mechanism in one pass.  ``dp_budget`` decides each DP level with
    :func:`~pufferfish.verify.numerics.certified.compare_ratio`, as ``budget`` decides the
    Pufferfish levels.

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

    A model with certified (interval) probabilities — programs with Gaussian noise or cycles of
    comparisons — is audited by :func:`~pufferfish.verify.privacy.certified_audit.certified_audit`
    (verdicts undecided inside an interval), also when the exact audit meets one late.

    Raises :class:`ModelError` (at ``mechanisms``) when the model has no mechanism: a check that
    finds nothing to check says so rather than passing.
    """
    if not model.mechanisms:
        raise ModelError("the model has no mechanisms, so there is nothing to audit; add at least "
                         "one under \"mechanisms\"", "mechanisms")
    if mechanisms is not None:
        chosen = selected_mechanisms(model, mechanisms)
        model = copy.copy(model)
        model.mechanisms = {name: model.mechanisms[name] for name in chosen}
    result = _audit(model, budget, group, max_datasets, max_outputs, progress, engine,
                    block_progress, announce, neighbours, dp_budget, max_pairs, method)
    return replace(result, assumptions=model.assumptions())


def _audit(model, budget, group, max_datasets, max_outputs, progress, engine, block_progress,
           announce, neighbours, dp_budget, max_pairs, method):
    """:func:`audit_model` once the mechanisms are chosen: the exact audit, or the certified one
    for a model with interval laws."""
    relations = audited_relations(model, neighbours, group)
    # any one dataset (listed lazily: a universe too large to enumerate still has a first)
    first = next(iter(model.universe.datasets(model.universe.size)))
    if any(has_certified_laws(m, first) for m in model.mechanisms.values()):
        return certified_audit(model, list(model.mechanisms.values()), relations, budget,
                               dp_budget, max_datasets, max_outputs, max_pairs, progress)
    try:
        return _exact_audit(model, budget, group, max_datasets, max_outputs, progress, engine,
                            block_progress, announce, relations, dp_budget, max_pairs, method)
    except UncertainComparison:  # a law with intervals past the first dataset
        if not any(isinstance(m, ProgramMechanism) for m in model.mechanisms.values()):
            raise
        return certified_audit(model, list(model.mechanisms.values()), relations, budget,
                               dp_budget, max_datasets, max_outputs, max_pairs, progress)


def _exact_audit(model: PufferfishModel, budget, group, max_datasets, max_outputs, progress,
                 engine, block_progress, announce, relations, dp_budget, max_pairs, method):
    """The exact audit of :func:`audit_model` once the mechanisms and relations are chosen."""
    if model.dp_only:
        from pufferfish.verify.privacy.dp_audit import DP_ONLY_NOTE, dp_levels_only

        levels = dp_levels_only(model, relations, budget, dp_budget, max_datasets, max_outputs,
                                max_pairs, progress)
        return ModelAudit(tuple(MechanismAudit(name, None, dps, None) for name, dps in levels),
                          None, "", None, dp_budget, tuple(relations), "enumeration",
                          DP_ONLY_NOTE, dp_only=True)
    if method not in ("auto", "structured", "enumeration"):
        raise ModelError(f"unknown method {method!r}; choose auto, structured or enumeration",
                         "method")
    note = ""
    if method != "enumeration":
        mechanisms_audited = list(model.mechanisms.values())
        reason = structured_reason(model, mechanisms_audited, relations)
        if reason is None and (method == "structured" or model.universe.size > BLOCK_DATASETS):
            return _structured_audit(model, budget, max_outputs, progress, announce, dp_budget,
                                     relations, engine)
        if method == "structured":
            raise UnsupportedError(f"the structured audit does not apply: {reason}", "method")
        note = ("enumeration: the universe fits in one block" if reason is None
                else f"enumeration: the structured path does not apply ({reason})")
    scanned = [r for r in relations if isinstance(r, ScannedRelation)]
    for relation in scanned:  # sized before any work starts
        scan_size_within(model.universe, relation, max_pairs)
    engine = engine or InProcessEngine()
    program_laws(engine, model.mechanisms.values(),
                 lambda mechanism: universe_keys(mechanism, model.universe, max_datasets))
    plan = plan_audit(model, engine.workers, max_datasets, group is not None or any(
        r.needs_every_dataset for r in scanned))
    if note:
        plan = replace(plan, note=note)
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

    entry_levels = (dp_levels_blocked(model.universe, mechanisms, max_outputs, engine,
                                      4 * engine.workers, max_datasets, row)
                    if StandardRelation("entry") in relations else [None] * len(mechanisms))
    scanned_levels = {relation: dp_levels_by_relation(model.universe, mechanisms, relation,
                                                      max_datasets, max_outputs, max_pairs)
                      for relation in scanned}
    audits = []
    individual = []
    for slot, mechanism in enumerate(mechanisms):
        if progress:
            progress(mechanism.name)
        joints, table = joints_of(slot)
        puffer = pufferfish_from_joints(model, mechanism.name, joints, table, budget)
        individual.append(puffer if budget is None else
                          pufferfish_from_joints(model, mechanism.name, joints, table))
        dps = tuple(scanned_levels[relation][slot] if relation in scanned_levels
                    else entry_levels[slot] if relation == StandardRelation("entry")
                    and entry_levels[slot] is not None
                    else dp_level(model.universe, mechanism, relation.text, None, max_datasets,
                                  max_outputs)
                    for relation in relations)
        if dp_budget is not None:
            dps = tuple(replace(d, budget=compare_ratio(d.max_ratio, dp_budget)) for d in dps)
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
    return ModelAudit(tuple(audits), composition, note, budget, dp_budget, tuple(relations),
                      "enumeration", plan.note, prior_notes(model))


def _structured_audit(model: PufferfishModel, budget: Budget | None, max_outputs: int,
                      progress: Callable[[str], None] | None,
                      announce: Callable[[object], None] | None, dp_budget: Budget | None,
                      relations: Sequence[NeighbourRelation],
                      engine: Engine | None = None) -> ModelAudit:
    """:func:`audit_model` by the prior's structure (:mod:`pufferfish.verify.structured`): every
    prior calibrated once per mechanism, the levels from the laws, DP per entry from sumsets; on
    a cluster ``engine``, the independent pieces as tasks
    (:mod:`pufferfish.verify.structured.tasks`), with the same result."""
    kinds = sorted({_STRUCTURE_NAMES.get(type(p).__name__, type(p).__name__)
                    for p in model.finite_priors.values()})
    text = (f"sum-product on the junction tree of each prior ({', '.join(kinds)}); "
            f"{size_text(model.universe.size)} datasets, none listed")
    if announce is not None:
        announce(StructuredPlan(model.universe.size, text))
    mechanisms = list(model.mechanisms.values())
    # On a cluster, the independent (prior, directions), (prior, leakage) and DP pieces of every
    # mechanism run as tasks first; the levels are then reduced from them in audit order.
    pieces = (None if engine is None or isinstance(engine, InProcessEngine) else
              structured_pieces(model, [m.name for m in mechanisms], relations, max_outputs,
                                engine))
    audits, individual = [], []
    for slot, mechanism in enumerate(mechanisms):
        if progress:
            progress(mechanism.name)
        if pieces is not None:
            found, worst, dps = pieces[slot]
            puffer = pufferfish_from_directions(mechanism.name, found, budget)
            individual.append(puffer if budget is None else
                              pufferfish_from_directions(mechanism.name, found))
            leak = leakage_from_priors(model, mechanism.name, worst)
            dps = tuple(dps)
        else:
            laws = output_laws(model, mechanism, max_outputs)
            puffer = structured_pufferfish(model, mechanism, laws, budget)
            individual.append(puffer if budget is None else
                              structured_pufferfish(model, mechanism, laws))
            leak = structured_leakage(model, mechanism, laws)
            dps = tuple(structured_entry_dp(model.universe, mechanism, relation.label)
                        for relation in relations)
        if dp_budget is not None:
            dps = tuple(replace(d, budget=compare_ratio(d.max_ratio, dp_budget)) for d in dps)
        audits.append(MechanismAudit(mechanism.name, puffer, dps, leak))
    composition, note = None, ""
    if len(mechanisms) >= 2:
        if progress:
            progress("joint release")
        joint_mechanism = compose(mechanisms)
        try:
            laws = output_laws(model, joint_mechanism, max_outputs)
        except (TooLargeError, UnsupportedError) as error:
            note = f"joint release not computed: {error.reason}"
        else:
            joint = structured_pufferfish(model, joint_mechanism, laws)
            composition = composition_result(tuple(individual), joint, budget)
    return ModelAudit(tuple(audits), composition, note, budget, dp_budget, tuple(relations),
                      "structured", text, prior_notes(model))


def prior_notes(model: PufferfishModel) -> tuple[str, ...]:
    """What the priors say every result built on them must report (a Bayesian network whose
    rows were renormalised: :attr:`pufferfish.models.bayesnet.BayesNetPrior.notes`)."""
    return tuple(note for prior in model.finite_priors.values()
                 for note in getattr(prior, "notes", ()))


_STRUCTURE_NAMES = {"MarkovPrior": "Markov chain", "IndependentPrior": "product prior",
                    "UniformPrior": "product prior", "BayesNetPrior": "Bayesian network"}


@dataclass(frozen=True)
class StructuredPlan:
    """What a structured audit announces: the universe's size and how it is read instead."""

    datasets: int
    text: str
    is_split: bool = True

    def explain(self, workers: int = 1) -> str:
        return f"audit plan: exact by the prior's structure: {self.text}"


def audited_relations(model: PufferfishModel, neighbours: Sequence[object] | None = None,
                      group: int | None = None) -> list[NeighbourRelation]:
    """The neighbour relations an audit takes DP levels under: ``neighbours`` (parsed and checked
    against the universe, repeats dropped), else the model's, else per-entry and — when a record
    has several attributes — per-record; then group-``group`` when asked.

    >>> from pufferfish.api import load
    >>> [r.label for r in audited_relations(load("quickstart.json"), ["linf:1"], group=2)]
    ['linf:1', 'group 2']
    """
    if neighbours is not None:
        relations = [parse_neighbours(spec, model.universe, "neighbours") for spec in neighbours]
        if not relations:
            raise ModelError("no neighbour relation given: there would be no DP level to check; "
                             "name at least one, or leave the default", "neighbours")
    elif model.neighbours is not None:
        relations = [model.neighbours]
    else:
        relations = [StandardRelation("entry")]
        if any(len(record) > 1 for record in model.universe.records):
            relations.append(StandardRelation("record"))
    if group is not None:
        relations.append(StandardRelation("group", group))
    return list(dict.fromkeys(relations))


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
