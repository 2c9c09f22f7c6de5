"""Claims of Bai et al., Composition for Pufferfish Privacy, §5.2 (Theorem 5: NfC constraints and
post-processing).

=====================================  ======================================================
``000.thm5.one_hot_invariant``         a set whose β are all one-hot is post-processing
                                       invariant: decided exactly over every post-processor
                                       (its extreme points are the events S ⊆ Ω)
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

import json
import random
import sys
from itertools import combinations
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import (GeometricNoise, PostProcessed, Query, QueryMechanism,
                                          RandomizedResponse, TableMechanism)
from pufferfish.models.numbers import INFINITY
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import TablePrior
from pufferfish.models.secrets import entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.mutation import on, patched
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, counterexample_dict, register
from pufferfish.verify.numerics.certified import Budget, compare_ratio, parse_budget
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.nfc.programs import nfc_programs
from pufferfish.verify.nfc.postprocessing import (ConstraintSet, NfcConstraint, counterexample_model,
                                   evaluate_constraint, invariance_report,
                                   random_postprocessing_search, reduce_redundant)
from pufferfish.verify.privacy.pufferfish import pufferfish_level, ratio_key

PAPER = paper("000").key


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
    # the counterexample stays a loadable model file: the constraint set (a file of its own
    # format) is written into its description
    counterexample = counterexample_dict(
        model, f"counterexample to 000.thm5.mixed_not_invariant: {instance.label}: {detail}; "
               f"NfC constraints file: {json.dumps(constraints.to_dict())}") if model else None
    return ClaimOutcome(False, detail, counterexample)


def _dp_constraints(universe: Universe) -> tuple[NfcConstraint, ...]:
    datasets = list(universe.datasets())
    return tuple(_constraint(f"dp{list(a)}{list(b)}", a, [(b, "1")])
                 for a in datasets for b in datasets if sum(x != y for x, y in zip(a, b)) == 1)


def _max_neighbour_ratio(universe: Universe, mechanism) -> Fraction:
    """The exact largest ``P(ω|D)/P(ω|D')`` over neighbours (the kernels used have no ``p > 0 = q``)."""
    worst = Fraction(1)
    for c in _dp_constraints(universe):
        (right, _), = c.beta
        for o, p in mechanism.distribution(c.left).items():
            if p:
                worst = max(worst, p / mechanism.distribution(right).prob(o))
    return worst


def one_hot_sets() -> Iterator[Instance]:
    """Per-entry DP constraint sets (every β one-hot) and mechanisms meeting them, in every regime.

    Budgets with a rational ``e^ε`` (``log(3)``, ``log(9/4)``) and a transcendental one (1, 1/2),
    ε = 0 (randomized response keep 1/2 on bits: equal rows), constraints met with equality
    (randomized response keep 3/4 at ``log(3)``; random kernels at the log of their exact largest
    neighbour ratio), kernels with outputs impossible under some datasets (then only ε = ∞ is met),
    clamped geometric noise, three-valued entries and three attributes.
    """
    rng = random.Random(5)
    bits2 = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    bits3 = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
    ternary = Universe.product(["x1", "x2"], [[0, 1, 2]] * 2)
    for universe, budget, mechanism, regime in (
            (bits2, "log(3)", RandomizedResponse("rr", bits2, Fraction(3, 4)), "tight, e^ε rational"),
            (bits2, "1", RandomizedResponse("rr", bits2, Fraction(2, 3)), "e^ε transcendental"),
            (bits2, "1/2", RandomizedResponse("rr", bits2, Fraction(3, 5)), "e^ε transcendental"),
            (bits2, "0", RandomizedResponse("rr", bits2, Fraction(1, 2)), "ε = 0"),
            (bits3, "log(3)", RandomizedResponse("rr", bits3, Fraction(3, 4)), "3 attributes, tight"),
            (ternary, "log(2)", RandomizedResponse("rr", ternary, Fraction(1, 2)), "3 values, tight"),
            (bits3, "log(9/4)", QueryMechanism("count", bits3, Query("count", bits3),
                                               GeometricNoise(Fraction(4, 9), 0, 3)),
             "clamped geometric on the count, tight")):
        yield Instance(f"per-entry DP constraints at ε = {budget}, {mechanism.name} ({regime})",
                       {"set": ConstraintSet(_dp_constraints(universe), parse_budget(budget)),
                        "mechanism": mechanism})
    for k in range(4):
        rows = {}
        for d in bits2.datasets():
            weights = [rng.randint(1, 6) for _ in range(3)] + [0]      # output 3 never occurs
            if k % 2:
                weights[2] = 0 if d[0] == 0 else weights[2]             # output 2 impossible for x1=0
            rows[d] = Distribution({o: Fraction(w, sum(weights)) for o, w in enumerate(weights) if w})
        mechanism = TableMechanism(f"kernel{k}", rows)
        if k % 2:
            budget = parse_budget("inf")
        else:
            ratio = _max_neighbour_ratio(bits2, mechanism)
            budget = Budget(f"log({ratio})", ratio=ratio)
        yield Instance(f"random kernel #{k} at its exact DP budget {budget.text}"
                       + (" (zeros: an output impossible under x1=0, ε = ∞)" if k % 2 else " (tight)"),
                       {"set": ConstraintSet(_dp_constraints(bits2), budget), "mechanism": mechanism})


def _event_probability(mechanism, dataset, event: frozenset) -> Fraction:
    """``P(M(D) ∈ S)``: the output probability of the deterministic post-processor ``1[ω ∈ S]``."""
    return sum((p for o, p in mechanism.distribution(dataset).items() if o in event), Fraction(0))


def check_one_hot_invariant(instance: Instance) -> ClaimOutcome:
    """Every post-processor keeps every DP-style constraint, decided exactly over all of them.

    For a one-hot constraint ``P(ω|D_i) <= e^ε P(ω|D_j)`` and a post-processor ``A``, the output
    ``y`` of ``A∘M`` satisfies it iff ``Σ_ω A(y|ω)(P(ω|D_i) − e^ε P(ω|D_j)) <= 0``; this is linear
    in the column ``A(y|·) ∈ [0,1]^Ω``, so the worst post-processor is a vertex: an event ``S ⊆ Ω``
    (output 1 iff ``ω ∈ S``).  The check decides ``P(S|D_i) <= e^ε P(S|D_j)`` exactly
    (:func:`compare_ratio`) for every event and constraint — all post-processors, not a sample.
    Cost: ``2^|Ω|`` events per constraint.
    """
    constraints = instance.params["set"]
    mechanism = instance.params["mechanism"]
    unmet = [c.name for c in constraints.constraints
             if not evaluate_constraint(c, mechanism, constraints.budget).holds]
    if unmet:
        return ClaimOutcome(False, f"the instance's mechanism does not meet {unmet[:3]}: the "
                                   f"instance does not satisfy the theorem's hypothesis")
    outputs = sorted({o for d in constraints.datasets for o in mechanism.distribution(d).support},
                     key=repr)
    events = 0
    for size in range(1, len(outputs) + 1):
        for chosen in combinations(outputs, size):
            event = frozenset(chosen)
            events += 1
            for c in constraints.constraints:
                (right, _), = c.beta
                left_p = _event_probability(mechanism, c.left, event)
                right_p = _event_probability(mechanism, right, event)
                if left_p and not right_p:
                    ratio = INFINITY
                else:
                    ratio = left_p / right_p if left_p else Fraction(0)
                if not compare_ratio(ratio, constraints.budget).holds:
                    return ClaimOutcome(False, f"the post-processor 1[ω ∈ {sorted(event, key=repr)}] "
                                               f"breaks {c.name}: P = {left_p} vs {right_p} at "
                                               f"ε = {constraints.budget.text}", {
                        "nfc_constraints": constraints.to_dict(),
                        "mechanism": {str(d): str(mechanism.distribution(d))
                                      for d in constraints.datasets}})
    return ClaimOutcome(True, f"all {events} events (the extreme post-processors) keep all "
                              f"{len(constraints.constraints)} constraints, exactly")


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


# --------------------------------------------------------------------------------------------
# Mutants
# --------------------------------------------------------------------------------------------

_THIS = sys.modules[__name__]


def _reads_the_dataset(mechanism, dataset, event: frozenset) -> Fraction:
    """Mutant of post-processing: the map depends on the dataset (the complement event when the
    first entry is 1), which no post-processor can do."""
    probability = sum((p for o, p in mechanism.distribution(dataset).items() if o in event),
                      Fraction(0))
    return 1 - probability if dataset[0] == 1 else probability


def _revealing_search(constraints: ConstraintSet, mechanism, trials: int, rng):
    """Mutant of the search: a "post-processor" that outputs the dataset itself (it reads the
    data, not the mechanism's output); returned only if it really breaks a constraint."""
    post = TableMechanism("reveal", {d: Distribution.point(repr(d)) for d in constraints.datasets})
    if any(not evaluate_constraint(c, post, constraints.budget).holds
           for c in constraints.constraints):
        return 1, post
    return 0, None


def _not_a_postprocessor() -> list[Instance]:
    """The "post-processed" mechanism is a sharper mechanism of the data, not A∘M."""
    universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    secrets = entry_secrets(universe)
    model = PufferfishModel(universe, {"u": TablePrior("u", Distribution.uniform(
        list(universe.datasets())))}, secrets, entry_pairs(universe, secrets), {})
    return [Instance("randomized response keep 3/5 'post-processed' into keep 9/10", {
        "model": model, "mechanism": RandomizedResponse("m", universe, Fraction(3, 5)),
        "post": RandomizedResponse("A∘m", universe, Fraction(9, 10))})]


def _first(generate, count: int = 1):
    return lambda: list(generate())[:count]


_MUTANTS = {
    "000.thm5.one_hot_invariant": (patched("a post-processor that reads the dataset",
                                           check_one_hot_invariant, _first(one_hot_sets), _THIS,
                                           _event_probability=_reads_the_dataset),),
    "000.thm5.mixed_not_invariant": (on("a β of two nonzero entries (the claim is violated on every "
                                        "instance, so this only confirms the check can fail)",
                                        check_mixed_not_invariant, _first(mixed_sets)),),
    "000.thm5.pufferfish_dp_invariance": (on("a map that reads the data instead of the output",
                                             check_pufferfish_dp, _not_a_postprocessor),),
    "000.thm5.every_constraint_invariant": (patched(
        "a post-processor that reads the dataset", check_every_constraint,
        _first(every_constraint_instances), _THIS, random_postprocessing_search=_revealing_search),),
}


register(Claim("000.thm5.one_hot_invariant", PAPER, "§5.2, Theorem 5 (first part)",
               "If every convex combination β of a non-redundant NfC constraint set is one-hot "
               "(DP-style), the set is post-processing invariant.",
               one_hot_sets, check_one_hot_invariant,
               mutants=_MUTANTS["000.thm5.one_hot_invariant"]))
register(Claim("000.thm5.mixed_not_invariant", PAPER, "§5.2, Theorem 5 (second part); App. C",
               "If a β of a non-redundant NfC constraint set has two or more nonzero entries, the set "
               "is not post-processing invariant: the proof's mechanism M̂ meets every constraint and "
               "A∘M̂ violates the mixed one.",
               mixed_sets, check_mixed_not_invariant,
               mutants=_MUTANTS["000.thm5.mixed_not_invariant"]))
register(Claim("000.thm5.pufferfish_dp_invariance", PAPER, "§2.1–2.2 (post-processing invariance)",
               "Post-processing never increases the Pufferfish level or the DP level of a mechanism.",
               random_models, check_pufferfish_dp,
               mutants=_MUTANTS["000.thm5.pufferfish_dp_invariance"]))
register(Claim("000.thm5.every_constraint_invariant", PAPER, "§5.2 (observation beyond the paper)",
               "Observation: every NfC constraint, mixed β included, is preserved by every "
               "post-processing (the weighted geometric mean is superadditive).",
               every_constraint_instances, check_every_constraint, observation=True,
               mutants=_MUTANTS["000.thm5.every_constraint_invariant"]))
