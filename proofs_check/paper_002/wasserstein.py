"""Claims of Wang et al., Privacy-Preserving Analysis of Correlated Data, §3 and Appendix A (the
Wasserstein mechanism), checked with the modules of :mod:`pufferfish.verify.transport`
(``w_infinity``, ``trimmed``, ``parameter``, ``wasserstein``, ``epsilon_delta``, ``groups``,
``laplace_level``); the flu example of §3 is in :mod:`pufferfish.proofs_check.paper_002.instances`.

=================================  ===========================================================
``002.thm3.2.private``             Theorem 3.2: ``F + Lap(W/ε)`` is ε-Pufferfish (the certified
                                   actual level, over all real outputs, is ``<= ε``)
``002.thm3.3.group_sensitivity``   Theorem 3.3 with the groups of Appendix A.2.2 (connected
                                   components of the pairwise-dependence graph): ``W <= Δ_𝒢 F``
``002.thm3.3.mutual``              observation: the same bound when the groups are *mutually*
                                   independent (what the proof of A.2.2 actually uses)
``002.flu.numbers``                §3 flu example: ``W = 2``; group DP sensitivity 4
``002.flu.realizable``             §3 flu example: some prior on 4 flu statuses (N = Σ X_i)
                                   gives every individual i the stated conditionals
``002.thmA8.epsilon_delta``        Theorem A.8: ``F + Lap(W_δ/ε)`` is (ε, δ)-Pufferfish
                                   (Definition A.7), δ-trimming done exactly on atoms
``002.winf.comonotone``            observation: the comonotone coupling's ``W_∞`` equals an
                                   exact max-flow computation and its certificates verify
=================================  ===========================================================

Instances: universes of 2–4 binary attributes and one of 3 ternary attributes; priors that are
Markov chains (random rational kernels, with zero entries and with deterministic copies),
non-Markov tables (random weights with zeros, parity constraints), independent priors and
block products; queries ``sum``, ``count``, ``parity`` and a single attribute; ε from 1/4 to 3
and δ from 1/20 to 1/2.  Each check computes the quantity the statement is about and compares
it with the paper's value; nothing is tuned for the paper to pass.  Theorem 3.2 is decided with
certified interval arithmetic and exact tightness (module :mod:`pufferfish.verify.transport.laplace_level`); an
instance the arithmetic cannot decide counts as *not* verified.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from fractions import Fraction
from itertools import product

from pufferfish.bibliography import paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import fraction_str
from pufferfish.models.priors import IndependentPrior, MarkovPrior, Prior, TablePrior
from pufferfish.models.secrets import entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.paper_002.instances import (flu_all_individuals_system,
                                                        flu_conditionals, flu_model)
from pufferfish.proofs_check.mutation import on, patched
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register, violation
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.transport.epsilon_delta import EpsilonDeltaVerification
from pufferfish.verify.transport.laplace_level import (conditional_query_distributions,
                                                       laplace_mixture_hockey_stick,
                                                       laplace_pufferfish_level)
from pufferfish.verify.transport.epsilon_delta import verify_epsilon_delta_mechanism
from pufferfish.verify.transport.groups import (dependence_groups, group_sensitivity,
                                                groups_mutually_independent)
from pufferfish.verify.transport.parameter import mechanism_epsilon, wasserstein_parameter
from pufferfish.verify.transport.queries import parse_query
from pufferfish.verify.transport.w_infinity import w_infinity, w_infinity_by_max_flow
from pufferfish.verify.transport.wasserstein import WassersteinVerification, verify_wasserstein_mechanism

PAPER = paper("002").key


def _fail(model: PufferfishModel | None, claim_id: str, instance: Instance, detail: str) -> ClaimOutcome:
    return violation(claim_id, PAPER, instance, detail, model)


# --------------------------------------------------------------------------------------------
# instance generation
# --------------------------------------------------------------------------------------------

def _random_distribution(rng: random.Random, values, zeros: bool = False) -> Distribution:
    weights = [rng.randint(0 if zeros else 1, 5) for _ in values]
    if not any(weights):
        weights[0] = 1
    total = sum(weights)
    return Distribution({v: Fraction(w, total) for v, w in zip(values, weights)})


def _markov(name: str, universe: Universe, rng: random.Random, zeros: bool = False) -> MarkovPrior:
    domain = universe.domains[0]
    kernel = {v: _random_distribution(rng, domain, zeros) for v in domain}
    return MarkovPrior(name, universe.attributes, _random_distribution(rng, domain),
                       (kernel,) * (universe.width - 1))


def _copy_chain(name: str, universe: Universe) -> MarkovPrior:
    """Every attribute copies the previous one (maximal correlation)."""
    domain = universe.domains[0]
    kernel = {v: Distribution.point(v) for v in domain}
    return MarkovPrior(name, universe.attributes, Distribution.uniform(domain),
                       (kernel,) * (universe.width - 1))


def _table(name: str, universe: Universe, rng: random.Random, keep=None) -> TablePrior:
    datasets = [d for d in universe.datasets() if keep is None or keep(d)]
    weights = [rng.randint(0, 4) for _ in datasets]
    if sum(weights) == 0:
        weights = [1] * len(datasets)
    total = sum(weights)
    return TablePrior(name, Distribution({d: Fraction(w, total) for d, w in zip(datasets, weights)
                                          if w}))


def _independent(name: str, universe: Universe, rng: random.Random) -> IndependentPrior:
    return IndependentPrior(name, universe.attributes,
                            tuple(_random_distribution(rng, d) for d in universe.domains))


def _bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


def _model(universe: Universe, priors: list[Prior]) -> PufferfishModel:
    secrets = entry_secrets(universe)
    return PufferfishModel(universe, {p.name: p for p in priors}, secrets,
                           entry_pairs(universe, secrets))


def _settings() -> Iterator[tuple[str, Universe, list[Prior]]]:
    rng = random.Random(2017)
    for n in (2, 3, 4):
        u = _bits(n)
        yield f"{n} bits, Markov chains", u, [_markov("chain", u, rng), _markov("chain0", u, rng, True)]
        yield f"{n} bits, copy chain", u, [_copy_chain("copy", u)]
        yield f"{n} bits, non-Markov table", u, [_table("table", u, rng)]
        yield f"{n} bits, independent", u, [_independent("indep", u, rng)]
    u3 = _bits(3)
    yield "3 bits, even parity only", u3, [_table("even", u3, rng, keep=lambda d: sum(d) % 2 == 0)]
    t3 = Universe.product(["x1", "x2", "x3"], [[0, 1, 2]] * 3)
    yield "3 ternary, Markov + table", t3, [_markov("chain", t3, rng, True), _table("table", t3, rng)]


_QUERIES = ("sum", "count", "parity", "attribute:last")


def _query_text(kind: str, universe: Universe) -> str:
    return f"attribute:{universe.attributes[-1]}" if kind == "attribute:last" else kind


def theorem32_instances() -> Iterator[Instance]:
    epsilons = (Fraction(1, 4), Fraction(1), Fraction(3))
    for k, (label, universe, priors) in enumerate(_settings()):
        for q, kind in enumerate(_QUERIES):
            eps = epsilons[(k + q) % 3]
            query = _query_text(kind, universe)
            yield Instance(f"{label}, query {query}, ε = {fraction_str(eps)}",
                           {"universe": universe, "priors": priors, "query": query, "epsilon": eps})


def _check_theorem32(instance: Instance) -> ClaimOutcome:
    p = instance.params
    model = _model(p["universe"], p["priors"])
    result = verify_wasserstein_mechanism(model, parse_query(p["query"], model.universe),
                                          p["epsilon"], query_name=p["query"])
    detail = result.explain()
    if result.holds is True:
        return ClaimOutcome(True, detail)
    return _fail(model, "002.thm3.2.private", instance,
                 detail + ("" if result.holds is False else " (could not be certified)"))


# --------------------------------------------------------------------------------------------
# Theorem 3.3
# --------------------------------------------------------------------------------------------

def _xor_prior(universe: Universe) -> TablePrior:
    """x_n = x_1 XOR ... XOR x_{n-1}, the others fair: pairwise independent for n = 3."""
    datasets = [d for d in universe.datasets() if sum(d) % 2 == 0]
    return TablePrior("xor", Distribution.uniform(datasets))


def _block_prior(name: str, universe: Universe, blocks: list[list[int]], rng: random.Random) -> TablePrior:
    """A product of independent blocks, each with a random joint table (mutually independent)."""
    factors = []
    for block in blocks:
        values = list(product(*(universe.domains[i] for i in block)))
        factors.append((block, _random_distribution(rng, values, zeros=True)))
    table: dict[tuple, Fraction] = {}
    for combo in product(*(f.items() for _, f in factors)):
        dataset = [None] * universe.width
        p = Fraction(1)
        for (block, _), (values, q) in zip(factors, combo):
            for i, v in zip(block, values):
                dataset[i] = v
            p *= q
        if p:
            table[tuple(dataset)] = p
    return TablePrior(name, Distribution(table))


def theorem33_instances() -> Iterator[Instance]:
    """Θ's whose pairwise-dependence components are the groups (A.2.2), sum and count queries."""
    for label, universe, priors in _settings():
        for kind in ("sum", "count"):
            yield Instance(f"{label}, query {kind}", {"universe": universe, "priors": priors,
                                                      "query": kind})
    for n in (3, 4):
        u = _bits(n)
        for kind in ("sum", "count"):
            yield Instance(f"{n} bits, x{n} = XOR of the others (pairwise independent), "
                           f"query {kind}", {"universe": u, "priors": [_xor_prior(u)], "query": kind})
    rng = random.Random(33)
    for blocks in ([[0, 1], [2, 3]], [[0], [1, 2, 3]], [[0, 2], [1], [3]]):
        u = _bits(4)
        yield Instance(f"4 bits, blocks {blocks}, query sum",
                       {"universe": u, "priors": [_block_prior("blocks", u, blocks, rng)],
                        "query": "sum", "blocks": blocks})


def _theorem33(instance: Instance, groups, claim_id: str) -> ClaimOutcome:
    p = instance.params
    model = _model(p["universe"], p["priors"])
    query = parse_query(p["query"], model.universe)
    parameter = wasserstein_parameter(model, query)
    sensitivity, witness = group_sensitivity(model.universe, query, groups)
    detail = (f"groups {[[model.universe.attributes[i] for i in g] for g in groups]}: "
              f"{parameter.explain()}; group-DP sensitivity Δ = {fraction_str(sensitivity)}")
    if witness is not None:
        detail += f" (group {list(witness[0])}: {list(witness[1])} vs {list(witness[2])})"
    if parameter.value <= sensitivity:
        return ClaimOutcome(True, detail)
    return _fail(model, claim_id, instance, detail)


def _check_theorem33(instance: Instance) -> ClaimOutcome:
    model = _model(instance.params["universe"], instance.params["priors"])
    return _theorem33(instance, dependence_groups(model), "002.thm3.3.group_sensitivity")


def mutual_instances() -> Iterator[Instance]:
    for instance in theorem33_instances():
        model = _model(instance.params["universe"], instance.params["priors"])
        groups = instance.params.get("blocks") or dependence_groups(model)
        if groups_mutually_independent(model, groups):
            yield Instance(instance.label, {**instance.params, "blocks": groups})


def _check_mutual(instance: Instance) -> ClaimOutcome:
    return _theorem33(instance, instance.params["blocks"], "002.thm3.3.mutual")


# --------------------------------------------------------------------------------------------
# the flu example
# --------------------------------------------------------------------------------------------

FLU_W = 2
"""§3 flu example: the Wasserstein mechanism adds Lap(2/ε)."""
FLU_GROUP_SENSITIVITY = 4
"""§3 flu example: group DP over the 4 correlated people adds Lap(4/ε)."""


def flu_instances() -> Iterator[Instance]:
    yield Instance("§3 flu example (Alice = x1, N = x1 + x2 + x3 + x4)")


def _check_flu_numbers(instance: Instance) -> ClaimOutcome:
    first, second = flu_conditionals()
    direct = w_infinity(first, second)
    model = flu_model()
    query = parse_query("sum", model.universe)
    parameter = wasserstein_parameter(model, query)
    sensitivity, _ = group_sensitivity(model.universe, query, dependence_groups(model))
    holds = (direct.value == FLU_W and direct.verify() and parameter.value == FLU_W
             and sensitivity == FLU_GROUP_SENSITIVITY)
    detail = (f"W∞ of the stated conditionals = {fraction_str(direct.value)} (certificate "
              f"verified: {direct.verify()}); W on the model = {fraction_str(parameter.value)}; "
              f"group-DP sensitivity of N = {fraction_str(sensitivity)} (paper: W = 2, group DP "
              f"adds Lap(4/ε))")
    return ClaimOutcome(True, detail) if holds else _fail(model, "002.flu.numbers", instance, detail)


def _check_flu_realizable(instance: Instance) -> ClaimOutcome:
    solutions = flu_all_individuals_system()
    if solutions:
        return ClaimOutcome(True, f"the linear system has solutions {solutions}")
    first, second = flu_conditionals()
    printed = Instance(instance.label, {"P(N | X_i = 0)": first, "P(N | X_i = 1)": second})
    return violation("002.flu.realizable", PAPER, printed,
                     "no prior (not even a signed measure) on the 16 datasets gives every "
                     "individual the stated conditionals: exact linear solve is empty. Reason: "
                     "N = 4 forces P(X_i = 1) = 4·P(N = 4) =: π for all i; then Σ_i P(N=n, X_i=1) "
                     "= n·P(N=n) gives π = 2/11 for n = 1 but π = 2/5 for n = 2")


# --------------------------------------------------------------------------------------------
# Theorem A.8
# --------------------------------------------------------------------------------------------

def theorem_a8_instances() -> Iterator[Instance]:
    deltas = (Fraction(1, 20), Fraction(1, 5), Fraction(1, 2))
    epsilons = (Fraction(1, 2), Fraction(1), Fraction(2))
    for k, (label, universe, priors) in enumerate(_settings()):
        for q, kind in enumerate(("sum", "parity")):
            delta, eps = deltas[(k + q) % 3], epsilons[k % 3]
            yield Instance(f"{label}, query {kind}, ε = {fraction_str(eps)}, δ = {fraction_str(delta)}",
                           {"universe": universe, "priors": priors, "query": kind,
                            "epsilon": eps, "delta": delta})
    flu = flu_model()
    for delta in (Fraction(1, 6), Fraction(1, 4), Fraction(1, 2)):
        yield Instance(f"flu example, query sum, ε = 1, δ = {fraction_str(delta)}",
                       {"model": flu, "query": "sum", "epsilon": Fraction(1), "delta": delta})


def _check_theorem_a8(instance: Instance) -> ClaimOutcome:
    p = instance.params
    model = p.get("model") or _model(p["universe"], p["priors"])
    result = verify_epsilon_delta_mechanism(model, parse_query(p["query"], model.universe),
                                            p["epsilon"], p["delta"])
    certified = all(d.distance.verify() for d in result.parameter.distances)
    detail = result.explain() + f"; trimming certificates verified: {certified}"
    if result.holds is True and certified:
        return ClaimOutcome(True, detail)
    return _fail(model, "002.thmA8.epsilon_delta", instance,
                 detail + ("" if result.holds is not None else " (could not be certified)"))


# --------------------------------------------------------------------------------------------
# W_∞ certificate
# --------------------------------------------------------------------------------------------

def coupling_instances() -> Iterator[Instance]:
    rng = random.Random(31)
    for size_a, size_b in ((1, 1), (1, 3), (2, 2), (3, 4), (5, 5), (6, 2)):
        for _ in range(4):
            values_a = rng.sample(range(-6, 7), size_a)
            values_b = rng.sample(range(-6, 7), size_b)
            first = _random_distribution(rng, [Fraction(v, 2) for v in values_a])
            second = _random_distribution(rng, [Fraction(v, 3) for v in values_b])
            yield Instance(f"{size_a} vs {size_b} atoms: {dict(first.items())} vs "
                           f"{dict(second.items())}", {"first": dict(first.items()),
                                                       "second": dict(second.items())})
    yield Instance("identical", {"first": {0: Fraction(1, 2), 1: Fraction(1, 2)},
                                 "second": {0: Fraction(1, 2), 1: Fraction(1, 2)}})


def _check_coupling(instance: Instance) -> ClaimOutcome:
    first, second = instance.params["first"], instance.params["second"]
    result = w_infinity(first, second)
    flow = w_infinity_by_max_flow(first, second)
    detail = (f"comonotone W∞ = {fraction_str(result.value)}, max-flow W∞ = {fraction_str(flow)}, "
              f"certificates verified: {result.verify()}")
    return ClaimOutcome(result.value == flow and result.verify(), detail)


def _claim(claim_id: str, section: str, statement: str, generate, check,
           observation: bool = False, mutants: tuple[Mutant, ...] = ()) -> None:
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation, mutants))


# --------------------------------------------------------------------------------------------
# Mutants
# --------------------------------------------------------------------------------------------

_THIS = sys.modules[__name__]
_ORIGINAL_W_INFINITY = w_infinity


def _half_scale_mechanism(model, query, epsilon, max_datasets=None, query_name=None):
    """Mutant of Algorithm 1: noise Lap(W/(2ε)) instead of Lap(W/ε), audited at ε."""
    eps = mechanism_epsilon(epsilon)
    parameter = wasserstein_parameter(model, query, Fraction(0))
    level = laplace_pufferfish_level(model, query, parameter.value / (2 * eps),
                                     parse_budget(fraction_str(eps)), query_name=query_name)
    return WassersteinVerification(eps, parameter, level)


def _half_scale_epsilon_delta(model, query, epsilon, delta, max_datasets=None):
    """Mutant of Theorem A.8: noise Lap(W_δ/(2ε)) instead of Lap(W_δ/ε), audited at (ε, δ)."""
    eps = mechanism_epsilon(epsilon)
    parameter = wasserstein_parameter(model, query, delta)
    budget = parse_budget(fraction_str(eps))
    rows = []
    for _, first, second, prior, d1, d2 in conditional_query_distributions(model, query):
        if d1 is None or d2 is None:
            continue
        bound = laplace_mixture_hockey_stick(dict(d1.items()), dict(d2.items()),
                                             parameter.value / (2 * eps), budget)
        rows.append((first, second, prior, bound, bound.compare(parameter.delta)))
    return EpsilonDeltaVerification(eps, parameter.delta, parameter, tuple(rows))


def _singletons(model) -> list[list[int]]:
    """Mutant of A.2.2: every individual its own group, correlations ignored."""
    return [[i] for i in range(model.universe.width)]


def _correlated_as_singletons() -> list[Instance]:
    instance = next(iter(theorem33_instances()))
    return [Instance(instance.label + ", groups forced to singletons",
                     {**instance.params, "blocks": [[i] for i in range(instance.params["universe"].width)]})]


def _first(generate, count: int = 1):
    return lambda: list(generate())[:count]


_MUTANTS = {
    "002.thm3.2.private": (patched("noise Lap(W/(2ε)) instead of Lap(W/ε)", _check_theorem32,
                                   _first(theorem32_instances, 4), _THIS,
                                   verify_wasserstein_mechanism=_half_scale_mechanism),),
    "002.thm3.3.group_sensitivity": (patched("groups ignore the correlations (singletons)",
                                             _check_theorem33, _first(theorem33_instances, 2),
                                             _THIS, dependence_groups=_singletons),),
    "002.thm3.3.mutual": (on("singleton groups on a correlated prior (not mutually independent)",
                             _check_mutual, _correlated_as_singletons),),
    "002.flu.numbers": (patched("W = 1 instead of 2", _check_flu_numbers, flu_instances, _THIS,
                                FLU_W=1),),
    "002.flu.realizable": (on("the printed conditionals (the claim is violated, so this only "
                              "confirms the check can fail)", _check_flu_realizable,
                              flu_instances),),
    "002.thmA8.epsilon_delta": (patched("noise Lap(W_δ/(2ε)) instead of Lap(W_δ/ε)",
                                        _check_theorem_a8, _first(theorem_a8_instances, 4), _THIS,
                                        verify_epsilon_delta_mechanism=_half_scale_epsilon_delta),),
    "002.winf.comonotone": (patched("the coupling pairs the atoms anti-monotonically "
                                    "(reversed order of the second measure)", _check_coupling,
                                    _first(coupling_instances, 12), _THIS,
                                    w_infinity=lambda a, b: _antitone(a, b)),),
}


def _antitone(first, second):
    """Mutant of the comonotone coupling: W∞ computed after reflecting the second measure."""
    reflected = {-v: p for v, p in second.items()}
    return _ORIGINAL_W_INFINITY(first, reflected)


_claim("002.thm3.2.private", "§3, Algorithm 1, Theorem 3.2",
       "The Wasserstein mechanism F(D) + Lap(W/ε), W = sup over secret pairs and priors of "
       "W∞(P(F|s_i,θ), P(F|s_j,θ)), is ε-Pufferfish private: the likelihood ratio of every real "
       "output is at most e^ε.", theorem32_instances, _check_theorem32,
       mutants=_MUTANTS["002.thm3.2.private"])

_claim("002.thm3.3.group_sensitivity", "§3, Theorem 3.3; Appendix A.2.2",
       "For the framework hiding each individual's value, W is at most the global sensitivity of "
       "F in the group-DP framework whose groups are the connected components of the graph with an "
       "edge between individuals whose values are correlated (A.2.2: X_i, X_j independent across "
       "groups).", theorem33_instances, _check_theorem33,
       mutants=_MUTANTS["002.thm3.3.group_sensitivity"])

_claim("002.thm3.3.mutual", "§3, Theorem 3.3; Appendix A.2.2, Lemma A.6",
       "W <= group-DP sensitivity when the groups are mutually independent under every prior "
       "(the hypothesis the proof of A.2.2 uses).", mutual_instances, _check_mutual,
       observation=True,
       mutants=_MUTANTS["002.thm3.3.mutual"])

_claim("002.flu.numbers", "§3, flu example",
       "With P(N|X_i=0) = (1/2, 1/6, 1/6, 1/6) on 0..3 and P(N|X_i=1) uniform on 1..4, W = 2 "
       "(Lap(2/ε)); group DP over the 4 correlated people adds Lap(4/ε).",
       flu_instances, _check_flu_numbers,
       mutants=_MUTANTS["002.flu.numbers"])

_claim("002.flu.realizable", "§3, flu example",
       "Some distribution of the flu statuses X_1..X_4 (N = Σ X_i) gives every individual i the "
       "stated conditionals P(N|X_i=0), P(N|X_i=1).", flu_instances, _check_flu_realizable,
       mutants=_MUTANTS["002.flu.realizable"])

_claim("002.thmA8.epsilon_delta", "Appendix A.4, Definition A.7, Theorem A.8",
       "F(D) + Lap(W_δ/ε), W_δ = sup inf over trims of mass δ of W∞ of the renormalized rest, is "
       "(ε, δ)-Pufferfish private: P(M ∈ S|s_i) <= e^ε P(M ∈ S|s_j) + δ for every set S (atoms "
       "trimmed fractionally, see pufferfish.verify.transport.trimmed).", theorem_a8_instances, _check_theorem_a8,
       mutants=_MUTANTS["002.thmA8.epsilon_delta"])

_claim("002.winf.comonotone", "§3, Definition 3.1",
       "On the line, the comonotone (north-west-corner) coupling attains W∞; its value equals an "
       "exact max-flow computation and its certificates verify.", coupling_instances,
       _check_coupling, observation=True,
       mutants=_MUTANTS["002.winf.comonotone"])

