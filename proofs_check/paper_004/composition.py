"""Claims of Zhang, Malin, Raviv, Vorobeychik, Differential Confounding Privacy and Inverse
Composition, §III, §IV and Appendices C, J, K, L, M.

==========================  =================================================================
``004.thm1.i``              Theorem 1 (i) / Prop. 2: the composition is (ε_g, δ_g)-DCP for some
                            ε_g >= 0, δ_g ∈ [0, 1]
``004.thm1.ii``             Theorem 1 (ii): with L^G ≠ 0 the composition is *not generally*
                            (Σ ε_i, Σ δ_i)-DCP — existential: some generated model breaks it
``004.thm1.iii``            Theorem 1 (iii): with L^G ≠ 0, OPT(N(ψ̄), δ_g) *strictly*
                            underestimates the true least ε (δ_g ∈ {0, 1/10, 1/4})
``004.thm3.i``              Theorem 3 (i): as Theorem 1 (ii), per pair, with δ_i = 1/10
``004.thm3.ii``             Theorem 3 (ii), first halves: opt_δ (product) < opt_δ (true) and
                            dt_ε (product) < dt_ε (true) for every pair with L^G ≠ 0
``004.prop1.invertible``    Proposition 1, bullet 1: G invertible ⟹ L^G = 0 for every pair
``004.prop1.noninvertible`` Proposition 1, bullet 2: G non-invertible ⟹ L^G ≠ 0 (weakest
                            reading: for at least one adjacent pair)
``004.prop4``               Proposition 4: T(D_[2](s0), D_[2](s1)) <= T(D_12(s0), D_12(s1))
                            everywhere, equality iff D_[2] = D_12
``004.thm5.i``              Theorem 5 (i): ε_g >= ε*(δ(ε_g)) whenever δ(ε_g) < 1
``004.thm5.ii``             Theorem 5 (ii): δ_g >= δ(ε*(δ_g))
``004.thm5.equality``       Theorem 5: equality in (i) and (ii) iff D_[k] = Π ψ_i (read: the
                            privacy profiles δ(ε) of true and product coincide for every ε)
``004.lemma4``              Lemma 4: CEL(J_[2]) <= CEL(J_12), equality iff J_[2] = J_12
``004.lemma7``              Lemma 7: posterior spread τ ⟹ (ε(τ, θ), 0)-DCP (exact level <= bound)
``004.thm2.ii``             Theorem 2 (ii): the composition is (ε(τ*, θ), δ)-DCP for the Task-2 τ*
==========================  =================================================================

Readings.  ``L^G ≠ 0`` is ``Pr_{Ȳ~D_[k](·|s0)}[L^G(Ȳ) ≠ 0] > 0`` (:mod:`pufferfish.verify.dcp.composition`).
Theorem 5's ``δ(ε)`` is the privacy profile of the true composition (``1 + f*_{[k]}(−e^ε)`` equals
the hockey-stick divergence, App. K) and ``ε*(δ)`` the least ε of the product ``N(ψ̄)``; both at
the level of the mechanism (maximum over ordered adjacent pairs).  Theorem 3 (ii)'s upper bounds
(``opt <= \\overline{opt}``) involve a mechanism ``N̂(c)`` whose privacy loss equals ``L^G``; the
paper does not define it for finite outputs (a discrete copula is not unique), so only the strict
lower inequalities are checked.

Instances: hand-made models first (smallest first, so a failure reports a minimal
counterexample) — a DP-like invertible model, the XOR model (each output alone says nothing,
both reveal the secret), a repeated-release model (the same noisy dataset released twice), a
constant second mechanism, a single mechanism — then seeded random models with binary and
ternary secrets, 2–8 datasets, invertible and non-invertible G, adjacency "all" or a path graph,
and 1–3 mechanisms.  Every check computes with the exact algorithms of :mod:`pufferfish.verify.dcp.levels`,
:mod:`pufferfish.verify.dcp.composition` and :mod:`pufferfish.verify.dcp.inverse`; nothing is tuned for the
paper to pass.
"""

from __future__ import annotations

import random
from itertools import combinations
from collections.abc import Iterator
from fractions import Fraction

import networkx as nx

from pufferfish.bibliography import paper
from pufferfish.models.dcp import DCPModel, DatasetKernel
from pufferfish.models.files.dcp_file import dcp_model_to_dict
from pufferfish.models.numbers import INFINITY, epsilon_str, fraction_str, ratio_key
from pufferfish.proofs_check.registry import (Claim, ClaimOutcome, Instance, Mutant, register,
                                              violation)
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.dcp.levels import (dcp_delta, dcp_level, effective_mechanism, hockey_stick, least_ratio,
                        same_privacy_profile, tradeoff_compare, tradeoff_curve)
from pufferfish.verify.dcp.composition import (cross_entropy_gap, dependence_term, invertibility,
                                    product_of_effective, true_joint)
from pufferfish.verify.dcp.inverse import lemma7_check, task2

PAPER = paper("004").key
DELTAS = (Fraction(0), Fraction(1, 10), Fraction(1, 4))
RATIOS = (Fraction(1), Fraction(2), Fraction(4))


# --------------------------------------------------------------------------------------------
# instances
# --------------------------------------------------------------------------------------------

def _hand_made() -> Iterator[tuple[str, DCPModel]]:
    rr = {"0": "3/4", "1": "1/4"}, {"0": "1/4", "1": "3/4"}
    yield "DP-like: invertible G, two randomized responses", DCPModel.build(
        {"s0": {"a": "1/2"}, "s1": {"b": "1/2"}}, [("s0", "s1")],
        {"m1": {"a": rr[0], "b": rr[1]}, "m2": {"a": rr[0], "b": rr[1]}})
    yield "XOR: each output alone is independent of S, both reveal it", DCPModel.build(
        {"s0": {"a": "1/4", "b": "1/4"}, "s1": {"c": "1/4", "d": "1/4"}}, [("s0", "s1")],
        {"m1": {"a": {"1": 1}, "b": {"0": 1}, "c": {"1": 1}, "d": {"0": 1}},
         "m2": {"a": {"1": 1}, "b": {"0": 1}, "c": {"0": 1}, "d": {"1": 1}}})
    yield "repeated release: the same noisy x published twice", DCPModel.build(
        {"s0": {"a": "3/8", "b": "1/8"}, "s1": {"a": "1/8", "b": "3/8"}}, [("s0", "s1")],
        {"m1": {"a": {"a": 1}, "b": {"b": 1}}, "m2": {"a": {"a": 1}, "b": {"b": 1}}})
    yield "constant second mechanism, non-invertible G", DCPModel.build(
        {"s0": {"a": "3/8", "b": "1/8"}, "s1": {"a": "1/8", "b": "3/8"}}, [("s0", "s1")],
        {"m1": {"a": rr[0], "b": rr[1]}, "m2": {"a": {"0": 1}, "b": {"0": 1}}})
    yield "single mechanism, non-invertible G", DCPModel.build(
        {"s0": {"a": "3/8", "b": "1/8"}, "s1": {"a": "1/8", "b": "3/8"}}, [("s0", "s1")],
        {"m1": {"a": rr[0], "b": rr[1]}})


def random_row(rng: random.Random, outputs: int) -> dict:
    weights = [rng.choice((0, 1, 1, 2, 3, 5)) for _ in range(outputs)]
    if not sum(weights):
        weights[0] = 1
    return {str(y): Fraction(w, sum(weights)) for y, w in enumerate(weights) if w}


def _random_model(seed: int) -> tuple[str, DCPModel]:
    rng = random.Random(seed)
    n_secrets = 2 if seed % 2 == 0 else 3
    n_datasets = rng.randint(max(2, n_secrets), 8)
    invertible = seed % 3 == 0
    secrets = [f"s{i}" for i in range(n_secrets)]
    datasets = [f"x{j}" for j in range(n_datasets)]
    joint: dict = {}
    if invertible:
        chosen = rng.sample(datasets, n_secrets)
        for s, x in zip(secrets, chosen):
            joint[s] = {x: Fraction(rng.randint(1, 4))}
    else:
        for s in secrets:
            joint[s] = {}
            for x in datasets:
                w = rng.choice((0, 0, 1, 2, 3))
                if w:
                    joint[s][x] = Fraction(w)
            if not joint[s]:
                joint[s][rng.choice(datasets)] = Fraction(1)
    total = sum(p for row in joint.values() for p in row.values())
    joint = {s: {x: p / total for x, p in row.items()} for s, row in joint.items()}
    k = 1 + seed % 3
    mechanisms = {f"m{i + 1}": {x: random_row(rng, 2) for x in datasets} for i in range(k)}
    adjacency: object = "all" if seed % 4 < 2 else nx.path_graph(secrets)
    kind = "invertible" if invertible else "non-invertible"
    label = (f"random seed {seed}: {n_secrets} secrets, {n_datasets} datasets, {kind} G, "
             f"{k} mechanism(s), adjacency {'all' if adjacency == 'all' else 'path'}")
    return label, DCPModel.build(joint, adjacency, mechanisms, secrets=secrets, datasets=datasets)


def model_instances(min_mechanisms: int = 1, max_mechanisms: int = 3,
                    seeds: int = 24) -> Iterator[Instance]:
    """Hand-made models, then seeded random ones, with ``k`` mechanisms in the given range."""
    models = list(_hand_made()) + [_random_model(seed) for seed in range(seeds)]
    for label, model in models:
        if min_mechanisms <= len(model.mechanisms) <= max_mechanisms:
            yield Instance(label, {"model": model})


def _family() -> Iterator[Instance]:
    yield Instance("the generated family (hand-made and seeded random models, k >= 2)",
                   {"models": [i.params["model"] for i in model_instances(2)]})


def _invertible_family() -> Iterator[Instance]:
    """The generated models with invertible G only (L^G = 0: outside Theorem 1 (ii)'s hypothesis)."""
    yield Instance("the generated models with invertible G (k >= 2)",
                   {"models": [i.params["model"] for i in model_instances(2)
                               if invertibility(i.params["model"]).holds]})


def _kernels(model: DCPModel) -> list[DatasetKernel]:
    return list(model.mechanisms.values())


def _fail(model: DCPModel, claim_id: str, instance: Instance, detail: str) -> ClaimOutcome:
    return violation(claim_id, PAPER, instance, detail, model, dcp_model_to_dict)


def _outcome(holds: bool, model: DCPModel, claim_id: str, instance: Instance,
             detail: str) -> ClaimOutcome:
    return ClaimOutcome(True, detail) if holds else _fail(model, claim_id, instance, detail)


def _lg_nonzero(model: DCPModel, pair: tuple | None = None) -> bool:
    pairs = [pair] if pair else list(model.directions())
    return any(dependence_term(model, _kernels(model), a, b).nonzero for a, b in pairs)


def _ratio_text(r) -> str:
    return epsilon_str(r)


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------

def worst_event_excess(rows, directions, ratio: Fraction) -> Fraction:
    """``max_{(s,s'), W} (Pr^s[W] − ratio · Pr^{s'}[W])`` by enumerating every event ``W`` of the
    outputs (Definition 1 of DCP read literally; independent of the hockey-stick formula of
    :mod:`pufferfish.verify.dcp.levels`).  Cost ``O(|pairs| · 2^|outputs| · |outputs|)``: meant for
    the small composed models of the claims."""
    worst = Fraction(0)
    for s, t in directions:
        outputs = sorted(set(rows[s].support) | set(rows[t].support), key=repr)
        for size in range(len(outputs) + 1):
            for event in combinations(outputs, size):
                excess = (sum((rows[s].prob(y) for y in event), Fraction(0))
                          - ratio * sum((rows[t].prob(y) for y in event), Fraction(0)))
                worst = max(worst, excess)
    return worst


def thm1_i_check(candidate=None, label: str = "the toolkit's δ at ε = 0"):
    """Theorem 1 (i): the composition is ``(ε_g, δ_g)``-DCP for a pair with ``ε_g >= 0`` and
    ``δ_g ∈ [0, 1]``; the pair is ``candidate(rows, directions) -> (e^ε_g, δ_g)`` (by default
    ``(1, dcp_delta at ε = 0)``), verified against every event of the outputs."""
    def paper_candidate(rows, directions):
        return Fraction(1), dcp_delta(rows, directions, Budget("0", epsilon=Fraction(0))).value

    choose = candidate or paper_candidate

    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        rows = true_joint(model, _kernels(model))
        directions = model.directions()
        ratio, delta = choose(rows, directions)
        excess = worst_event_excess(rows, directions, ratio)
        holds = ratio >= 1 and 0 <= delta <= 1 and excess <= delta
        return _outcome(holds, model, "004.thm1.i", instance,
                        f"{label}: the composition is claimed ({epsilon_str(ratio)}, "
                        f"{fraction_str(delta)})-DCP; the worst event over all pairs gives "
                        f"δ = {fraction_str(excess)}")
    return check


def _basic_violation(model: DCPModel, individual_delta: Fraction, per_pair: bool) -> str | None:
    kernels = _kernels(model)
    truth = true_joint(model, kernels)
    directions = model.directions()
    levels = [dcp_level(effective_mechanism(model, k), directions, individual_delta)
              for k in kernels]
    if any(lv.ratio == INFINITY for lv in levels):
        return None
    ratio = Fraction(1)
    for lv in levels:
        ratio *= lv.ratio
    total_delta = individual_delta * len(kernels)
    for pair in (directions if per_pair else [None]):
        if pair is not None and not _lg_nonzero(model, pair):
            continue
        if pair is None and not _lg_nonzero(model):
            return None
        pairs = [pair] if pair else directions
        delta = dcp_delta(truth, pairs, f"log({ratio})")
        if delta.value > total_delta:
            where = delta.witness.pair
            return (f"individual levels {[lv.epsilon for lv in levels]} with δ_i = "
                    f"{fraction_str(individual_delta)}: the true joint has δ({epsilon_str(ratio)}) = "
                    f"{fraction_str(delta.value)} > Σδ_i = {fraction_str(total_delta)} "
                    f"(pair {where[0]} vs {where[1]})")
    return None


def _existential(claim_id: str, individual_delta: Fraction, per_pair: bool):
    def check(instance: Instance) -> ClaimOutcome:
        for model in instance.params["models"]:
            found = _basic_violation(model, individual_delta, per_pair)
            if found:
                return ClaimOutcome(True, f"witness: {model.description or 'model'} "
                                    f"{dcp_model_to_dict(model)['joint']}: {found}")
        return ClaimOutcome(False, "no generated model with L^G ≠ 0 violates basic composition; "
                            "the existence claim is not confirmed on this family")
    return check


def _strictly(first, second, reversed_: bool) -> bool:
    """``first < second`` (``second < first`` when ``reversed_``, a mutant's reversed inequality)."""
    return ratio_key(second) < ratio_key(first) if reversed_ else ratio_key(first) < ratio_key(second)


def thm1_iii_check(reversed_: bool = False):
    """Theorem 1 (iii): OPT(N(ψ̄), δ) < the true least ε (``reversed_``: >, a mutant)."""
    return lambda instance: _check_thm1_iii(instance, reversed_)


def _check_thm1_iii(instance: Instance, reversed_: bool = False) -> ClaimOutcome:
    model = instance.params["model"]
    if not _lg_nonzero(model):
        return ClaimOutcome(True, "L^G = 0 for every pair: the hypothesis does not apply")
    kernels = _kernels(model)
    truth, product = true_joint(model, kernels), product_of_effective(model, kernels)
    details = []
    holds = True
    for delta in DELTAS:
        t = dcp_level(truth, model.directions(), delta).ratio
        p = dcp_level(product, model.directions(), delta).ratio
        details.append(f"δ={fraction_str(delta)}: OPT(N(ψ)) = {_ratio_text(p)}, true {_ratio_text(t)}")
        holds &= _strictly(p, t, reversed_)
    return _outcome(holds, model, "004.thm1.iii", instance, "; ".join(details))


def thm3_ii_check(reversed_: bool = False):
    """Theorem 3 (ii): product < true for opt and dt (``reversed_``: >, a mutant)."""
    return lambda instance: _check_thm3_ii(instance, reversed_)


def _check_thm3_ii(instance: Instance, reversed_: bool = False) -> ClaimOutcome:
    model = instance.params["model"]
    kernels = _kernels(model)
    truth, product = true_joint(model, kernels), product_of_effective(model, kernels)
    checked, details, holds = 0, [], True
    for s0, s1 in model.directions():
        if not dependence_term(model, kernels, s0, s1).nonzero:
            continue
        checked += 1
        for delta in DELTAS:
            t = least_ratio(truth[s0], truth[s1], delta).ratio
            p = least_ratio(product[s0], product[s1], delta).ratio
            if not _strictly(p, t, reversed_):
                holds = False
                details.append(f"{s0}->{s1}, δ={fraction_str(delta)}: opt(product) = "
                               f"{_ratio_text(p)} not < opt(true) = {_ratio_text(t)}")
        for ratio in RATIOS:
            t = hockey_stick(truth[s0], truth[s1], f"log({ratio})").value
            p = hockey_stick(product[s0], product[s1], f"log({ratio})").value
            if not (t < p if reversed_ else p < t):
                holds = False
                details.append(f"{s0}->{s1}, ε={epsilon_str(ratio)}: dt(product) = "
                               f"{fraction_str(p)} not < dt(true) = {fraction_str(t)}")
    if not checked:
        return ClaimOutcome(True, "L^G = 0 for every pair: the hypothesis does not apply")
    return _outcome(holds, model, "004.thm3.ii", instance,
                    "; ".join(details[:4]) or f"strict on {checked} pair(s)")


def prop1_invertible_check(conclusion_zero: bool = True):
    """Proposition 1, bullet 1: G invertible ⟹ L^G = 0 on every pair (``conclusion_zero``
    False: ⟹ L^G ≠ 0 on some pair, a mutant)."""
    return lambda instance: _check_prop1_invertible(instance, conclusion_zero)


def _check_prop1_invertible(instance: Instance, conclusion_zero: bool = True) -> ClaimOutcome:
    model = instance.params["model"]
    if not invertibility(model).holds:
        return ClaimOutcome(True, "G is not invertible: the bullet does not apply")
    bad = [(a, b) for a, b in model.directions()
           if dependence_term(model, _kernels(model), a, b).nonzero]
    return _outcome(not bad if conclusion_zero else bool(bad), model, "004.prop1.invertible",
                    instance,
                    f"L^G ≠ 0 on {bad}" if bad else "L^G = 0 on every pair")


def prop1_noninvertible_check(conclusion_nonzero: bool = True):
    """Proposition 1, bullet 2: G non-invertible ⟹ L^G ≠ 0 on some pair
    (``conclusion_nonzero`` False: ⟹ L^G = 0 on every pair, a mutant)."""
    return lambda instance: _check_prop1_noninvertible(instance, conclusion_nonzero)


def _check_prop1_noninvertible(instance: Instance, conclusion_nonzero: bool = True
                               ) -> ClaimOutcome:
    model = instance.params["model"]
    if invertibility(model).holds:
        return ClaimOutcome(True, "G is invertible: the bullet does not apply")
    nonzero = [(a, b) for a, b in model.directions()
               if dependence_term(model, _kernels(model), a, b).nonzero]
    return _outcome(bool(nonzero) == conclusion_nonzero, model, "004.prop1.noninvertible",
                    instance,
                    f"L^G ≠ 0 on {len(nonzero)} of {len(model.directions())} ordered pairs "
                    f"({len(model.mechanisms)} mechanism(s))")


def prop4_check(swapped: bool = False):
    """Proposition 4: T(true) <= T(product) (``swapped``: T(product) <= T(true), a mutant)."""
    return lambda instance: _check_prop4(instance, swapped)


def _check_prop4(instance: Instance, swapped: bool = False) -> ClaimOutcome:
    model = instance.params["model"]
    kernels = _kernels(model)
    truth, product = true_joint(model, kernels), product_of_effective(model, kernels)
    if swapped:
        truth, product = product, truth
    same = all(truth[s] == product[s] for s in truth)
    problems = []
    for s0, s1 in model.directions():
        below, equal, where = tradeoff_compare(tradeoff_curve(truth[s0], truth[s1]),
                                               tradeoff_curve(product[s0], product[s1]))
        if not below:
            problems.append(f"{s0}->{s1}: T(true) > T(product) at α = {fraction_str(where)}")
        if equal and not same and not problems:
            pass
    all_equal = all(tradeoff_compare(tradeoff_curve(truth[a], truth[b]),
                                     tradeoff_curve(product[a], product[b]))[1]
                    for a, b in model.directions())
    if all_equal != same:
        problems.append(f"equality of the trade-off curves ({all_equal}) differs from "
                        f"D_[k] = Π ψ_i ({same})")
    return _outcome(not problems, model, "004.prop4", instance,
                    "; ".join(problems[:3]) or f"T(true) <= T(product) on every pair "
                    f"(D_[k] {'=' if same else '≠'} product)")


def _check_thm5(part: str, reversed_: bool = False):
    """Theorem 5 (i) or (ii) on the grid (``reversed_``: the opposite strict inequality, a
    mutant: (i) ε*(δ(ε_g)) > ε_g, (ii) δ(ε*(δ_g)) > δ_g)."""
    def check(instance: Instance) -> ClaimOutcome:
        model = instance.params["model"]
        kernels = _kernels(model)
        truth, product = true_joint(model, kernels), product_of_effective(model, kernels)
        directions = model.directions()
        problems = []
        if part == "i":
            for ratio in RATIOS:
                d = dcp_delta(truth, directions, f"log({ratio})").value
                if d >= 1:
                    continue
                star = dcp_level(product, directions, d).ratio
                if (star != INFINITY and star <= ratio) == reversed_:
                    problems.append(f"ε_g = {epsilon_str(ratio)}: δ(ε_g) = {fraction_str(d)}, "
                                    f"ε*(δ(ε_g)) = {epsilon_str(star)} > ε_g")
        else:
            for delta in DELTAS + (Fraction(1, 2),):
                star = dcp_level(product, directions, delta).ratio
                d = dcp_delta(truth, directions, "inf" if star == INFINITY else
                              f"log({star})").value
                if (d > delta) != reversed_:
                    problems.append(f"δ_g = {fraction_str(delta)}: ε*(δ_g) = {epsilon_str(star)}, "
                                    f"δ(ε*(δ_g)) = {fraction_str(d)} > δ_g")
        return _outcome(not problems, model, f"004.thm5.{part}", instance,
                        "; ".join(problems[:3]) or "holds on the grid")
    return check


def thm5_equality_check(negated: bool = False):
    """Theorem 5's equality case (``negated``: equality iff D_[k] ≠ Π ψ_i, a mutant)."""
    return lambda instance: _check_thm5_equality(instance, negated)


def _check_thm5_equality(instance: Instance, negated: bool = False) -> ClaimOutcome:
    model = instance.params["model"]
    kernels = _kernels(model)
    truth, product = true_joint(model, kernels), product_of_effective(model, kernels)
    directions = model.directions()
    same = all(truth[s] == product[s] for s in truth)
    equal, where = same_privacy_profile(truth, product, directions)
    detail = f"privacy profiles of the true and product compositions equal for every ε: {equal}"
    if where is not None:
        detail += f" (they differ at e^ε = {fraction_str(where)})"
    return _outcome(equal == (same != negated), model, "004.thm5.equality", instance,
                    f"{detail}; D_[k] = Π ψ_i: {same}")


def lemma4_check(reversed_: bool = False):
    """Lemma 4: CEL(J_[k]) <= CEL(J_1..k) (``reversed_``: >=, a mutant)."""
    return lambda instance: _check_lemma4(instance, reversed_)


def _check_lemma4(instance: Instance, reversed_: bool = False) -> ClaimOutcome:
    model = instance.params["model"]
    gap = cross_entropy_gap(model, _kernels(model))
    truth = true_joint(model, _kernels(model))
    product = product_of_effective(model, _kernels(model))
    same = all(truth[s] == product[s] for s in truth)
    if gap.equal:
        holds, text = True, "J_[k] = J_1..k exactly: CEL gap 0"
    else:
        holds = gap.upper < 0 if reversed_ else gap.lower > 0
        text = f"CEL(J_1..k) − CEL(J_[k]) ∈ [{gap.lower:.6g}, {gap.upper:.6g}] (certified)"
    if same and not gap.equal:
        holds = False
    return _outcome(holds, model, "004.lemma4", instance, text)


def lemma7_claim_check(bound_factor: Fraction = Fraction(1)):
    """Lemma 7: exact level <= 1 + bound_factor·(τ_J − 1)/P* (``bound_factor`` 1 in the paper)."""
    return lambda instance: _check_lemma7(instance, bound_factor)


def _check_lemma7(instance: Instance, bound_factor: Fraction = Fraction(1)) -> ClaimOutcome:
    model = instance.params["model"]
    failures = []
    for kernel in _kernels(model):
        result = lemma7_check(model, effective_mechanism(model, kernel))
        bound = result.bound if result.bound == INFINITY else 1 + bound_factor * (result.bound - 1)
        if not (bound == INFINITY or (result.level != INFINITY and result.level <= bound)):
            failures.append(f"{kernel.name}: level {fraction_str(result.level)} > bound "
                            f"{fraction_str(bound)}")
    return _outcome(not failures, model, "004.lemma7", instance,
                    "; ".join(failures) or "exact level <= 1 + (τ_J − 1)/P* for every mechanism")


def thm2_ii_check(ratio_factor: Fraction = Fraction(1)):
    """Theorem 2 (ii): the composition is (ε(τ*, θ), δ)-DCP, audited by the worst event of every
    pair; ``ratio_factor`` scales ``e^{ε(τ*, θ)} − 1`` (1 in the paper; 1/2 is a mutant)."""
    return lambda instance: _check_thm2_ii(instance, ratio_factor)


def _check_thm2_ii(instance: Instance, ratio_factor: Fraction = Fraction(1)) -> ClaimOutcome:
    model = instance.params["model"]
    rows = true_joint(model, _kernels(model))
    problems, texts = [], []
    for delta in (Fraction(0), Fraction(1, 4), Fraction(1, 2)):
        result = task2(model, None, delta)
        texts.append(f"δ={fraction_str(delta)}: ε(τ*) = {epsilon_str(result.ratio)}")
        if result.ratio == INFINITY:
            continue
        ratio = 1 + ratio_factor * (result.ratio - 1)
        excess = worst_event_excess(rows, model.directions(), ratio)
        if excess > delta:
            problems.append(f"δ={fraction_str(delta)}: at e^ε = {fraction_str(ratio)} the worst "
                            f"event gives δ = {fraction_str(excess)}")
    return _outcome(not problems, model, "004.thm2.ii", instance,
                    "; ".join(problems[:2]) or "; ".join(texts))


# --------------------------------------------------------------------------------------------
# registration
# --------------------------------------------------------------------------------------------

def _register(claim_id: str, section: str, statement: str, generate, check, mutants=(),
              observation: bool = False) -> None:
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation,
                   tuple(mutants)))


def _few(generate, count: int = 8):
    """The first ``count`` instances of ``generate`` (mutant runs stay cheap)."""
    return lambda: (i for k, i in zip(range(count), generate()))


def _composed() -> Iterator[Instance]:
    return model_instances(2)


def _any() -> Iterator[Instance]:
    return model_instances(1)


_register("004.thm1.i", "§III, Theorem 1 (i); App. C, Proposition 2",
          "the composition of DCP mechanisms is (ε_g, δ_g)-DCP for some ε_g >= 0, δ_g in [0, 1] "
          "(the toolkit's δ at ε_g = 0, verified on every event of the outputs)",
          _composed, thm1_i_check(),
          [Mutant.checking("(0, 0)-DCP claimed for every composition",
                           thm1_i_check(lambda rows, directions: (Fraction(1), Fraction(0)),
                                        "(0, 0)"), _few(_composed))])
_register("004.thm1.ii", "§III, Theorem 1 (ii)",
          "with L^G ≠ 0 the composition is not generally (Σ ε_i, Σ δ_i)-DCP (some model breaks "
          "basic composition; individual levels (ε_i, 0))",
          _family, _existential("004.thm1.ii", Fraction(0), per_pair=False),
          [Mutant.checking("the family restricted to invertible G (L^G = 0, hypothesis dropped)",
                           _existential("004.thm1.ii", Fraction(0), per_pair=False),
                           _invertible_family)])
_register("004.thm1.iii", "§III, Theorem 1 (iii)",
          "with L^G ≠ 0, OPT(N(ψ), δ_g) strictly underestimates the true least ε of the "
          "composition (δ_g in {0, 1/10, 1/4})", _composed, thm1_iii_check(),
          [Mutant.checking("the inequality reversed (overestimates)", thm1_iii_check(True),
                           _composed)])
_register("004.thm3.i", "App. C, Theorem 3 (i)",
          "with L^G ≠ 0 for a pair, the composition is not generally (Σ ε_i, Σ δ_i)-DCP "
          "(individual levels (ε_i, 1/10))", _family,
          _existential("004.thm3.i", Fraction(1, 10), per_pair=True),
          [Mutant.checking("the family restricted to invertible G (L^G = 0, hypothesis dropped)",
                           _existential("004.thm3.i", Fraction(1, 10), per_pair=True),
                           _invertible_family)])
_register("004.thm3.ii", "App. C, Theorem 3 (ii)",
          "for every pair with L^G ≠ 0: opt_δ(product) < opt_δ(true) and dt_ε(product) < "
          "dt_ε(true) (δ in {0, 1/10, 1/4}, e^ε in {1, 2, 4})", _composed, thm3_ii_check(),
          [Mutant.checking("the inequalities reversed", thm3_ii_check(True), _composed)])
_register("004.prop1.invertible", "App. C, Proposition 1 (first bullet); App. J",
          "if G is invertible then L^G = 0 for every adjacent pair", _any,
          prop1_invertible_check(),
          [Mutant.checking("the conclusion negated (L^G ≠ 0 on some pair)",
                           prop1_invertible_check(False), _any)])
_register("004.prop1.noninvertible", "App. C, Proposition 1 (second bullet)",
          "if G is non-invertible then L^G ≠ 0 (read: for at least one adjacent pair)",
          _any, prop1_noninvertible_check(),
          [Mutant.checking("the conclusion negated (L^G = 0 on every pair)",
                           prop1_noninvertible_check(False), _any)])
_register("004.prop4", "App. L, Proposition 4",
          "T(D_[2](·|s0), D_[2](·|s1)) <= T(D_12(·|s0), D_12(·|s1)) for all α, equality iff "
          "D_[2] = D_12", _composed, prop4_check(),
          [Mutant.checking("the trade-off inequality reversed", prop4_check(True), _composed)])
_register("004.thm5.i", "App. L, Theorem 5 (i)",
          "ε_g >= ε*(δ(ε_g)) whenever δ(ε_g) < 1 (ε* of the product, δ of the true composition; "
          "e^ε_g in {1, 2, 4})", _composed, _check_thm5("i"),
          [Mutant.checking("the inequality reversed (ε_g < ε*(δ(ε_g)))", _check_thm5("i", True),
                           _composed)])
_register("004.thm5.ii", "App. L, Theorem 5 (ii)",
          "δ_g >= δ(ε*(δ_g)) for δ_g in {0, 1/10, 1/4, 1/2}", _composed, _check_thm5("ii"),
          [Mutant.checking("the inequality reversed (δ_g < δ(ε*(δ_g)))", _check_thm5("ii", True),
                           _composed)])
_register("004.thm5.equality", "App. L, Theorem 5 (equality)",
          "equality in (i) and (ii) iff D_[k](ȳ|s) = Π ψ_i(y_i|s)", _composed,
          thm5_equality_check(),
          [Mutant.checking("equality iff D_[k] ≠ Π ψ_i", thm5_equality_check(True), _composed)])
_register("004.lemma4", "App. L, Lemma 4",
          "CEL(J_[2]) <= CEL(J_12), equality iff J_[2] = J_12 (certified intervals)",
          _composed, lemma4_check(),
          [Mutant.checking("the inequality reversed", lemma4_check(True), _few(_composed))])
_register("004.lemma7", "App. M, Lemma 7",
          "a posterior within [1/τ, τ]·P_θ implies (log(1 + (τ−1)/P*), 0)-DCP",
          _any, lemma7_claim_check(),
          [Mutant.checking("(τ − 1)/P* halved in the bound", lemma7_claim_check(Fraction(1, 2)),
                           _any)])
_register("004.thm2.ii", "§IV, Theorem 2 (ii)",
          "the composition is (ε(τ*, θ), δ)-DCP for the Task-2 solution τ* (δ in {0, 1/4, 1/2}), "
          "verified on every event of the outputs", _any, thm2_ii_check(),
          [Mutant.checking("e^{ε(τ*, θ)} − 1 halved", thm2_ii_check(Fraction(1, 2)), _any)])
