"""Claims of ``000_65109fe28ca61d17.txt`` §5.2 (Theorem 5: NfC constraints and post-processing).

=====================================  ======================================================
``000.thm5.one_hot_invariant``         a set whose β are all one-hot is post-processing
                                       invariant (random mechanisms meeting it, random
                                       post-processors: no violation)
``000.thm5.mixed_not_invariant``       a non-redundant set with a β of two or more nonzero
                                       entries is not invariant: the proof's construction
                                       (M̂, A) must give an exactly verified violation
``000.thm5.pufferfish_dp_invariance``  Pufferfish and DP levels never increase under
                                       post-processing (§2, Definition 5 and §2.1)
``000.thm5.every_constraint_invariant``  observation beyond the paper: no post-processor
                                       breaks any NfC constraint (superadditivity of the
                                       weighted geometric mean; see pufferfish.verify.nfc.postprocessing)
=====================================  ======================================================

Instances cover β with two and three nonzero entries (two is the smallest case Theorem 5 covers),
sets with and without DP-style companions, sets produced by the duals of solved NfC programs, and
budgets 1/10, 1/2, 2 and log(3).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import PostProcessed, RandomizedResponse, TableMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import TablePrior
from pufferfish.models.secrets import entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, counterexample_dict, register
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.nfc.programs import nfc_programs
from pufferfish.verify.nfc.postprocessing import (ConstraintSet, NfcConstraint, counterexample_model,
                                   evaluate_constraint, invariance_report,
                                   random_postprocessing_search, reduce_redundant)
from pufferfish.verify.privacy.pufferfish import pufferfish_level, ratio_key

PAPER = "000_65109fe28ca61d17.txt"


def _constraint(name, left, beta, pair=("s1", "s2")) -> NfcConstraint:
    return NfcConstraint(name, tuple(left), pair[0], pair[1],
                         tuple((tuple(d), Fraction(b)) for d, b in beta))


def mixed_sets() -> Iterator[Instance]:
    """Non-redundant sets with a mixed β, by hand and from solved NfC programs."""
    for budget in ("1/10", "1/2", "2", "log(3)"):
        yield Instance(f"β = (1/2, 1/2) with a DP companion, ε = {budget}", {"set": ConstraintSet((
            _constraint("mixed", [0], [([1], "1/2"), ([2], "1/2")]),
            _constraint("dp", [1], [([0], "1")], ("s2", "s1"))), parse_budget(budget))})
    yield Instance("β with three entries (1/5, 3/10, 1/2), alone, ε = 1/2", {"set": ConstraintSet((
        _constraint("mixed3", [0], [([1], "1/5"), ([2], "3/10"), ([3], "1/2")]),),
        parse_budget("1/2"))})
    yield Instance("two mixed constraints with different left datasets, ε = 1", {"set": ConstraintSet((
        _constraint("a", [0], [([2], "1/3"), ([3], "2/3")]),
        _constraint("b", [1], [([2], "3/4"), ([3], "1/4")])), parse_budget("1"))})
    from_programs = _program_set()
    if from_programs is not None:
        yield Instance("duals of the NfC programs of a random 3-output kernel (2 × 3 datasets)",
                       {"set": from_programs})


def _program_set() -> ConstraintSet | None:
    rng = random.Random(11)
    universe = Universe.product(["s", "y"], [[0, 1], [0, 1, 2]])
    rows = {}
    for dataset in universe.datasets():
        weights = [rng.randint(1, 9) for _ in range(3)]
        rows[dataset] = Distribution({k: Fraction(w, sum(weights)) for k, w in enumerate(weights)})
    mechanism = TableMechanism("k", rows)
    secrets = entry_secrets(universe)
    pairs = [p for p in entry_pairs(universe, secrets) if p.first.name.startswith("s=")]
    model = PufferfishModel(universe, {"u": TablePrior("u", Distribution.uniform(
        list(universe.datasets())))}, secrets, pairs, {"k": mechanism})
    result = nfc_programs(model, [mechanism])
    budget = parse_budget(str(Fraction(result.upper).limit_denominator(1000) + Fraction(1, 100)))
    constraints = []
    for k, program in enumerate(result.programs):
        constraints.append(NfcConstraint(f"p{k}", program.d_star, program.first, program.second,
                                         tuple(program.beta)))
    full = ConstraintSet(tuple(constraints), budget)
    kept = set(reduce_redundant(full).kept)
    reduced = tuple(c for c in constraints if c.name in kept)
    if all(c.one_hot for c in reduced):
        return None
    return ConstraintSet(reduced, budget)


def check_mixed_not_invariant(instance: Instance) -> ClaimOutcome:
    constraints = instance.params["set"]
    report = invariance_report(constraints)
    if report.theorem5_says_invariant:
        return ClaimOutcome(True, "after removing redundant constraints every β is one-hot: "
                                  "Theorem 5's second part does not apply")
    construction = report.construction
    if construction is not None and construction.violation_found:
        return ClaimOutcome(True, f"verified violation of {construction.constraint.name}: "
                                  f"{construction.after.value:.12g} > ε")
    model = counterexample_model(construction, constraints.budget) if construction else None
    detail = (f"the proof's construction gives M̂ meeting every constraint "
              f"({construction.mechanism_satisfies_all}) with {construction.constraint.name} at "
              f"{construction.before.value:.12g} but A∘M̂ at {construction.after.value:.12g} "
              f"({construction.after.relation} ε = {constraints.budget.text}): no violation — "
              f"inequality (3) applies AM–GM to negative weights −β_ℓ")
    counterexample = counterexample_dict(model, f"counterexample to 000.thm5.mixed_not_invariant: "
                                                f"{instance.label}: {detail}") if model else None
    if counterexample is not None:
        counterexample["nfc_constraints"] = constraints.to_dict()
    return ClaimOutcome(False, detail, counterexample)


def one_hot_sets() -> Iterator[Instance]:
    rng = random.Random(5)
    universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    datasets = list(universe.datasets())
    for budget, keep in (("log(3)", "3/4"), ("1", "2/3"), ("1/2", "3/5")):
        constraints = tuple(_constraint(f"dp{a}{b}", a, [(b, "1")])
                            for a in datasets for b in datasets
                            if sum(x != y for x, y in zip(a, b)) == 1)
        rr = RandomizedResponse("rr", universe, Fraction(keep))
        yield Instance(f"per-entry DP constraints at ε = {budget}, randomized response keep {keep}",
                       {"set": ConstraintSet(constraints, parse_budget(budget)), "mechanism": rr,
                        "seed": rng.randint(0, 10**6)})


def check_one_hot_invariant(instance: Instance) -> ClaimOutcome:
    return _search(instance, "000.thm5.one_hot_invariant")


def _search(instance: Instance, claim_id: str) -> ClaimOutcome:
    constraints = instance.params["set"]
    mechanism = instance.params["mechanism"]
    unmet = [c.name for c in constraints.constraints
             if not evaluate_constraint(c, mechanism, constraints.budget).holds]
    if unmet:
        return ClaimOutcome(True, f"the mechanism does not meet {unmet[:3]}: nothing to test")
    rng = random.Random(instance.params.get("seed", 0))
    found, post = random_postprocessing_search(constraints, mechanism, 40, rng)
    if found:
        broken = [c.name for c in constraints.constraints
                  if not evaluate_constraint(c, post, constraints.budget).holds]
        return ClaimOutcome(False, f"post-processor #{found} breaks {broken}", {
            "nfc_constraints": constraints.to_dict(),
            "mechanism": {str(d): str(mechanism.distribution(d)) for d in constraints.datasets},
            "postprocessed": {str(d): str(post.distribution(d)) for d in constraints.datasets}})
    return ClaimOutcome(True, "40 random post-processors: no constraint broken")


def every_constraint_instances() -> Iterator[Instance]:
    """Mechanisms meeting mixed sets: the proof's own M̂, and random kernels that meet them."""
    rng = random.Random(9)
    for instance in mixed_sets():
        constraints = instance.params["set"]
        report = invariance_report(constraints)
        if report.construction is not None:
            yield Instance(f"{instance.label}: the proof's M̂",
                           {"set": ConstraintSet(tuple(c for c in constraints.constraints
                                                       if c.name in report.redundancy.kept),
                                                 constraints.budget),
                            "mechanism": report.construction.mechanism, "seed": rng.randint(0, 999)})


def check_every_constraint(instance: Instance) -> ClaimOutcome:
    return _search(instance, "000.thm5.every_constraint_invariant")


def random_models() -> Iterator[Instance]:
    rng = random.Random(3)
    universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    datasets = list(universe.datasets())
    for k in range(12):
        weights = [rng.randint(0 if k % 3 == 0 else 1, 6) for _ in datasets]
        if not any(weights):
            weights[0] = 1
        prior = TablePrior("p", Distribution({d: Fraction(w, sum(weights))
                                              for d, w in zip(datasets, weights) if w}))
        rows = {}
        for d in datasets:
            ws = [rng.randint(0 if k % 2 else 1, 5) for _ in range(3)]
            if not any(ws):
                ws[0] = 1
            rows[d] = Distribution({o: Fraction(w, sum(ws)) for o, w in enumerate(ws) if w})
        mapping = {}
        for o in range(3):
            ws = [rng.randint(0, 4) for _ in range(2)]
            if not any(ws):
                ws[1] = 1
            mapping[o] = Distribution({y: Fraction(w, sum(ws)) for y, w in enumerate(ws) if w})
        mechanism = TableMechanism("m", rows)
        secrets = entry_secrets(universe)
        model = PufferfishModel(universe, {"p": prior}, secrets, entry_pairs(universe, secrets),
                                {"m": mechanism})
        yield Instance(f"random model #{k}", {"model": model, "mechanism": mechanism,
                                              "post": PostProcessed("A∘m", mechanism, mapping)})


def check_pufferfish_dp(instance: Instance) -> ClaimOutcome:
    model, mechanism, post = (instance.params[k] for k in ("model", "mechanism", "post"))
    for name, before, after in (
            ("Pufferfish", pufferfish_level(model, mechanism).level_ratio,
             pufferfish_level(model, post).level_ratio),
            ("DP", dp_level(model.universe, mechanism).max_ratio,
             dp_level(model.universe, post).max_ratio)):
        if ratio_key(after) > ratio_key(before):
            return ClaimOutcome(False, f"the {name} level increased under post-processing",
                                counterexample_dict(model, f"{name} level increased"))
    return ClaimOutcome(True, "neither level increased")


register(Claim("000.thm5.one_hot_invariant", PAPER, "§5.2, Theorem 5 (first part)",
               "If every convex combination β of a non-redundant NfC constraint set is one-hot "
               "(DP-style), the set is post-processing invariant.",
               one_hot_sets, check_one_hot_invariant))
register(Claim("000.thm5.mixed_not_invariant", PAPER, "§5.2, Theorem 5 (second part); App. C",
               "If a β of a non-redundant NfC constraint set has two or more nonzero entries, the set "
               "is not post-processing invariant: the proof's mechanism M̂ meets every constraint and "
               "A∘M̂ violates the mixed one.",
               mixed_sets, check_mixed_not_invariant))
register(Claim("000.thm5.pufferfish_dp_invariance", PAPER, "§2.1–2.2 (post-processing invariance)",
               "Post-processing never increases the Pufferfish level or the DP level of a mechanism.",
               random_models, check_pufferfish_dp))
register(Claim("000.thm5.every_constraint_invariant", PAPER, "§5.2 (observation beyond the paper)",
               "Observation: every NfC constraint, mixed β included, is preserved by every "
               "post-processing (the weighted geometric mean is superadditive).",
               every_constraint_instances, check_every_constraint, observation=True))
