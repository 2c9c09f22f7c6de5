"""Claims of Wang et al., Privacy-Preserving Analysis of Correlated Data, §4 and Appendix B (Markov
quilts, the Markov Quilt Mechanism, the inferential-privacy baseline), checked with
:mod:`pufferfish.verify.quilts`.

This module holds the claims of §4 and Appendix B.4 (quilts, Theorem 4.3) and registers, in the
paper's order, those of Appendix B.5–B.10 (:mod:`.quilt_chain_bounds`) and of Theorem B.9
(:mod:`.quilt_histogram`); the paper instances are in :mod:`.quilt_instances`.

====================================  =========================================================
``002.def42.dsep_independence``       Def. 4.2 / proof of Lemma B.2: a quilt found by d-separation
                                      satisfies condition 2 exactly in the CPTs
``002.lemB2.chain_quilts``            Lemma B.2: on a chain graph, the minimal quilts found by
                                      enumeration are exactly Lemma B.2's sets (with its X_N, X_R)
``002.lemB3.minimal_suffice``         Lemma B.3: every quilt has a Lemma B.2 quilt with the same
                                      X_N and the same exact max-influence (so σ_i is unchanged)
``002.lemB4.bound``                   Lemma B.4: the bound ≥ the exact max-influence
``002.lemB5.mixing``                  Lemma B.5: |P^t(x,y)/π(y) − 1| ≤ e^{−t g}/π_min
``002.lemB6``                         Lemma B.6: forward ratio ≤ (1+Δ_t)/(1−Δ_t)
``002.lemB7``                         Lemma B.7: backward ratio ≤ ((1+Δ_t)/(1−Δ_t))²
``002.claimB10.fast_le_basic``        Claim B.10: Algorithm 5's σ ≤ Algorithm 3's σ
``002.claimB11.fast_private``         Claim B.11: with an interior best quilt, Algorithm 5's σ
                                      covers every node (σ_fast ≥ σ_j for all j)
``002.claimB11.exact_influence``      observation: the same with *exact* max-influence
                                      (position dependent when the chain does not start
                                      stationary)
``002.alg4.literal_finite``           Algorithm 4 as printed gives every node a finite σ_i
``002.thm4.4.utility``                Theorem 4.4 / Lemma B.8: when T meets the condition,
                                      σ_max ≤ (2a−1)/(ε/2) ≤ 4a/ε, independent of T
``002.B10.gamma_formula``             Appendix B.10: the printed closed form of γ equals the
                                      definition of the multiplicative influence
``002.thm4.3.private``                Theorem 4.3: F + σ_max·Lap(1) is ε-Pufferfish (the actual
                                      certified level of the released value, via
                                      :func:`pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`)
``002.thmB9.consistency``             Theorem B.9: for T ≥ 2a + 3 the MQM histogram's scale is
                                      ≤ 2C/(εT) and E‖M − F‖∞ = H_k·scale ≤ 2H_k·C/(εT), C = 4a
``002.thmB9.proof_constant``          proof of Theorem B.9: E‖M − F‖∞ ≤ 2C/(εT) with the same C
====================================  =========================================================

Instances: chain graphs with 2–8 nodes; random DAGs with 5 nodes and the v-structure network of
``examples/bayesnet_vstructure.json``; binary chains over a grid of ``(p0, p1)`` including
near-deterministic and i.i.d. ones; random reversible 3-state chains (random symmetric rational
weights); initial distributions uniform, skewed, point masses, stationary and "any"; ε from 1/2
to 10.  Transcendental comparisons are certified (private interval contexts of
:mod:`pufferfish.verify.numerics.intervals`); an instance the arithmetic cannot decide counts as
*not* verified.
"""

from __future__ import annotations

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations

import networkx as nx

from pufferfish.models.bayesnet import BayesNetFamily, MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.models.numbers import fraction_str
from pufferfish.proofs_check.paper_002 import quilt_chain_bounds, quilt_histogram
from pufferfish.proofs_check.paper_002.quilt_instances import (PAPER, bayesnet_model, binary_chains,
                                                               chain_model, claim, fail,
                                                               random_network, random_reversible,
                                                               vstructure_family)
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import ClaimOutcome, Instance
from pufferfish.verify.influence.max_influence import network_max_influence
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.quilts.bayesnet_mqm import mqm_bayesnet
from pufferfish.verify.quilts.chain_influence import family_influence_exact
from pufferfish.verify.quilts.chain_search import mqm_chain_exact
from pufferfish.verify.quilts.markov_quilts import (chain_quilts, enumerate_quilts, path_graph, quilt_for,
                                                    quilt_independence_holds)


# ------------------------------------------------------------------------------------------------
# Definition 4.2 / Lemmas B.2 and B.3
# ------------------------------------------------------------------------------------------------

def _dsep_instances() -> Iterator[Instance]:
    fam = vstructure_family()
    for node in fam.nodes:
        yield Instance(f"v-structure network, node {node}", {"net": fam.members[0], "node": node})
    for seed in range(6):
        net = random_network(seed, zeros=seed % 2 == 1)
        for node in net.nodes:
            yield Instance(f"random network {seed}, node {node}", {"net": net, "node": node})
    chain = MarkovChain.binary("4/5", "3/5", 5, ["1/3", "2/3"]).to_bayesnet()
    for node in chain.nodes:
        yield Instance(f"binary chain T=5, node {node}", {"net": chain, "node": node})


def _check_dsep(instance: Instance) -> ClaimOutcome:
    net, node = instance.params["net"], instance.params["node"]
    enum = enumerate_quilts(net.graph, node)
    for q in enum.quilts:
        if not quilt_independence_holds(net, q):
            return fail("002.def42.dsep_independence", instance,
                        f"{q.explain()}: X_R is not independent of X_{node} given X_Q", None)
    return ClaimOutcome(True, f"{len(enum.quilts)} quilts satisfy condition 2 exactly")


def _chain_graph_instances() -> Iterator[Instance]:
    for T in range(1, 9):
        for i in range(1, T + 1):
            yield Instance(f"chain T={T}, node {i}", {"T": T, "i": i})


def _check_lemma_b2(instance: Instance) -> ClaimOutcome:
    T, i = instance.params["T"], instance.params["i"]
    enum = enumerate_quilts(path_graph(T), i)
    found = {(q.quilt, q.nearby) for q in enum.minimal}
    lemma = set()
    for cq in chain_quilts(T, i):
        q = cq.as_quilt()
        direct = quilt_for(path_graph(T), i, q.quilt)
        if (direct.nearby, direct.remote) != (q.nearby, q.remote):
            return fail("002.lemB2.chain_quilts", instance,
                        f"quilt {cq.label()}: d-separation gives X_N = {sorted(direct.nearby)}, "
                        f"Lemma B.2 says {sorted(q.nearby)}", None)
        lemma.add((q.quilt, q.nearby))
    if found != lemma:
        extra = sorted(tuple(sorted(q)) for q, _ in found - lemma)
        missing = sorted(tuple(sorted(q)) for q, _ in lemma - found)
        return fail("002.lemB2.chain_quilts", instance,
                    f"enumeration found minimal quilts not in Lemma B.2 {extra} and missed {missing}",
                    None)
    return ClaimOutcome(True, f"{len(found)} minimal quilts, exactly Lemma B.2's")


def _lemma_b3_instances() -> Iterator[Instance]:
    for T in (3, 4, 5):
        for label, chain in list(binary_chains(T))[::4]:
            yield Instance(f"T={T}, {label}", {"chains": (chain,)})
    yield Instance("T=4, family of two chains", {"chains": (
        MarkovChain.binary("9/10", "4/5", 4, ["1/2", "1/2"]),
        MarkovChain.binary("1/5", "3/5", 4, ["1", "0"], name="second"))})
    yield Instance("T=4, reversible 3-state chain", {"chains": (random_reversible(1, 3, 4),)})


def _check_lemma_b3(instance: Instance) -> ClaimOutcome:
    chains = instance.params["chains"]
    T = chains[0].length
    fam = BayesNetFamily(tuple(c.to_bayesnet() for c in chains))
    family = ChainFamily(chains)
    for i in range(1, T + 1):
        minimal = {}
        for cq in chain_quilts(T, i):
            q = cq.as_quilt()
            minimal[q.nearby] = family_influence_exact(family, cq)[0]
        others = [v for v in range(1, T + 1) if v != i]
        for size in range(len(others) + 1):
            for subset in combinations(others, size):
                q = quilt_for(fam.graph, i, subset)
                ratio = network_max_influence(fam, i, q.quilt).max_ratio
                if q.nearby not in minimal:
                    return fail("002.lemB3.minimal_suffice", instance,
                                f"node {i}: quilt {sorted(subset)} has X_N = {sorted(q.nearby)}, "
                                f"which no Lemma B.2 quilt has", chain_model(chains))
                if minimal[q.nearby] != ratio:
                    return fail("002.lemB3.minimal_suffice", instance,
                                f"node {i}: quilt {sorted(subset)} has max-influence "
                                f"log({fraction_str(ratio)}), the Lemma B.2 quilt with the same X_N "
                                f"log({fraction_str(minimal[q.nearby])})", chain_model(chains))
    return ClaimOutcome(True, "every quilt matches a Lemma B.2 quilt (same X_N, same influence)")




# ------------------------------------------------------------------------------------------------
# Theorem 4.3
# ------------------------------------------------------------------------------------------------

def _thm43_instances() -> Iterator[Instance]:
    for T in (2, 3, 4):
        for p0, p1 in [("9/10", "4/5"), ("1/2", "1/2"), ("1/10", "19/20"), ("1", "1/2")]:
            for init in (["1/2", "1/2"], ["1", "0"]):
                for eps in ("1/2", "2"):
                    c = MarkovChain.binary(p0, p1, T, init)
                    yield Instance(f"T={T}, {c.name}, start {init}, ε={eps}",
                                   {"chains": (c,), "eps": eps, "mode": "given"})
    for eps in ("1", "5"):
        yield Instance(f"T=5, family of two chains, ε={eps}", {"chains": (
            MarkovChain.binary("9/10", "4/5", 5, ["1/2", "1/2"]),
            MarkovChain.binary("3/5", "2/5", 5, ["1/4", "3/4"], name="other")), "eps": eps,
            "mode": "given"})
        yield Instance(f"T=4, 'any' initial distribution (checked at 3 starts), ε={eps}", {
            "chains": (MarkovChain.binary("4/5", "7/10", 4),), "eps": eps, "mode": "any"})
    yield Instance("T=3, reversible 3-state chain, ε=2", {
        "chains": (random_reversible(4, 3, 3),), "eps": "2", "mode": "given"})
    for eps in ("1", "3"):
        yield Instance(f"v-structure network, ε={eps}", {"bayesnet": vstructure_family(), "eps": eps})


def _check_thm43(instance: Instance) -> ClaimOutcome:
    from pufferfish.verify.transport.laplace_level import laplace_pufferfish_level
    eps = instance.params["eps"]
    budget = parse_budget(eps)
    if "bayesnet" in instance.params:
        family = instance.params["bayesnet"]
        result = mqm_bayesnet(family, eps)
        model = bayesnet_model(family)
    else:
        chains = instance.params["chains"]
        family_chain = ChainFamily(chains, instance.params["mode"])
        result = mqm_chain_exact(family_chain, eps)
        if instance.params["mode"] == "any":
            c = chains[0]
            chains = tuple(c.with_initial(tuple(Fraction(x) for x in init), f"start{n}")
                           for n, init in enumerate((("1", "0"), ("0", "1"), ("1/3", "2/3"))))
        model = chain_model(chains)
    top = max(model.universe.domains[0])
    scale = Fraction(result.sigma[1])
    if len(model.universe.domains[0]) == 2:
        def query(d):
            return Fraction(sum(1 for v in d if v == top))
    else:
        def query(d):
            return Fraction(sum(1 for v in d if v == top))
    level = laplace_pufferfish_level(model, query, scale)
    verdict = level.holds_at(budget)
    detail = (f"σ_max ≤ {result.sigma[1]:.10g}; released count + Lap(σ) has Pufferfish level ε ∈ "
              f"[{level.epsilon_lower:.8g}, {level.epsilon_upper:.8g}] vs ε = {eps}")
    if verdict is True:
        return ClaimOutcome(True, detail)
    return fail("002.thm4.3.private", instance,
                detail + ("" if verdict is False else " (undecided)"), model)


# ------------------------------------------------------------------------------------------------
# registration, in the paper's order
# ------------------------------------------------------------------------------------------------

# ------------------------------------------------------------------------------------------------
# mutants
# ------------------------------------------------------------------------------------------------

_THIS = sys.modules[__name__]
_ORIGINAL = {"enumerate_quilts": enumerate_quilts, "chain_quilts": chain_quilts,
             "mqm_chain_exact": mqm_chain_exact}


def _quilts_of_edgeless_graph(graph, node, *args, **kwargs):
    """Mutant of Definition 4.2: quilts found by d-separation in the graph without its edges."""
    empty = nx.DiGraph()
    empty.add_nodes_from(graph.nodes)
    return _ORIGINAL["enumerate_quilts"](empty, node, *args, **kwargs)


def _two_sided_only(length: int, node: int):
    """Mutant of Lemma B.2: only the quilts {X_{i-a}, X_{i+b}} with both sides."""
    return [cq for cq in _ORIGINAL["chain_quilts"](length, node) if cq.has_left and cq.has_right]


def _half_sigma(*args, **kwargs):
    """Mutant of Theorem 4.3: the noise scale σ_max halved."""
    result = _ORIGINAL["mqm_chain_exact"](*args, **kwargs)
    return dataclasses.replace(result, sigma=tuple(x / 2 for x in result.sigma))


def _first(generate, count: int = 1, keep=lambda instance: True):
    return lambda: [i for i in generate() if keep(i)][:count]


_MUTANTS = {
    "002.def42.dsep_independence": (patched(
        "d-separation in the graph without its edges", _check_dsep,
        _first(_dsep_instances, 1, lambda i: "binary chain" in i.label), _THIS,
        enumerate_quilts=_quilts_of_edgeless_graph),),
    "002.lemB2.chain_quilts": (patched("one-sided quilts left out", _check_lemma_b2,
                                       [Instance("chain T=4, node 2", {"T": 4, "i": 2})], _THIS,
                                       chain_quilts=_two_sided_only),),
    "002.lemB3.minimal_suffice": (patched("one-sided quilts left out", _check_lemma_b3,
                                          _first(_lemma_b3_instances, 1), _THIS,
                                          chain_quilts=_two_sided_only),),
    "002.thm4.3.private": (patched("σ_max halved", _check_thm43, _first(_thm43_instances, 2), _THIS,
                                   mqm_chain_exact=_half_sigma),),
}


claim("002.def42.dsep_independence", "§4, Definition 4.2; proof of Lemma B.2",
      "A quilt X_Q whose remote set X_R is chosen by d-separation satisfies condition 2 of "
      "Definition 4.2: P(X_R | X_Q, X_i = a) = P(X_R | X_Q) for all values.",
      _dsep_instances, _check_dsep,
      mutants=_MUTANTS["002.def42.dsep_independence"])
claim("002.lemB2.chain_quilts", "Appendix B.4, Lemma B.2",
      "On a chain X_1 → ... → X_T the minimal Markov quilts of X_i are {X_{i-a}, X_{i+b}}, "
      "{X_{i-a}}, {X_{i+b}} and ∅ with the X_N and X_R stated in Lemma B.2.",
      _chain_graph_instances, _check_lemma_b2,
      mutants=_MUTANTS["002.lemB2.chain_quilts"])
claim("002.lemB3.minimal_suffice", "Appendix B.4, Lemma B.3",
      "For every Markov quilt of X_i in a chain there is a Lemma B.2 quilt with the same X_N and "
      "the same max-influence; hence searching only Lemma B.2's quilts adds the same noise.",
      _lemma_b3_instances, _check_lemma_b3,
      mutants=_MUTANTS["002.lemB3.minimal_suffice"])
quilt_chain_bounds.register_claims()
claim("002.thm4.3.private", "§4, Theorem 4.3",
      "F(D) + σ_max·Lap(1) with a 1-Lipschitz F (here a count) is ε-Pufferfish in the framework "
      "of §4 (each X_i's value secret, every pair of values, every θ ∈ Θ).",
      _thm43_instances, _check_thm43,
      mutants=_MUTANTS["002.thm4.3.private"])

quilt_histogram.register_claims()


__all__ = ["PAPER", "chain_model", "bayesnet_model", "vstructure_family", "random_network",
           "random_reversible"]
