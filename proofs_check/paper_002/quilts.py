"""Claims of ``002_e1f2e9a9937b8cda.txt`` §4 and Appendix B (Markov quilts, the Markov Quilt
Mechanism, the inferential-privacy baseline), checked with :mod:`pufferfish.verify.quilts.markov_quilts` and
:mod:`pufferfish.verify.quilts.mqm`.

====================================  =========================================================
``002.def42.dsep_independence``       Def. 4.2 / proof of Lemma B.2: a quilt found by d-separation
                                      satisfies condition 2 exactly in the CPTs
``002.lemB2.chain_quilts``            Lemma B.2: on a chain graph, the minimal quilts found by
                                      enumeration are exactly Lemma B.2's sets (with its X_N, X_R)
``002.lemB3.minimal_suffice``         Lemma B.3: every quilt has a Lemma B.2 quilt with the same
                                      X_N and the same exact max-influence (so σ_i is unchanged)
``002.lemB4.bound``                   Lemma B.4: the bound ≥ the exact max-influence
``002.lemB5.mixing``                  Lemma B.5: |P^t(x,y)/π(y) − 1| ≤ e^{−t g}/π_min
``002.lemB6.forward``                 Lemma B.6: forward ratio ≤ (1+Δ_t)/(1−Δ_t)
``002.lemB7.backward``                Lemma B.7: backward ratio ≤ ((1+Δ_t)/(1−Δ_t))²
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
to 10.  Transcendental comparisons are certified (mpmath ``iv``); an instance the arithmetic
cannot decide counts as *not* verified.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations

import mpmath
from mpmath import iv

from pufferfish.models.bayesnet import BayesNet, BayesNetFamily, MarkovChain, reversible_chain
from pufferfish.models.distribution import Distribution
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import fraction_str
from pufferfish.models.priors import MarkovPrior, TablePrior
from pufferfish.models.secrets import entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register, violation
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.quilts.mqm import (ChainFamily, chain_family_parameters,
                        eigengap_interval, family_influence_exact, gk16_gamma_paper_ratio,
                        gk16_gamma_ratio, harmonic_number, histogram_mechanism,
                        interval_parameters, max_influence, mqm_bayesnet, mqm_chain_approx,
                        mqm_chain_exact)
from pufferfish.verify.quilts.markov_quilts import (chain_quilts, enumerate_quilts, path_graph, quilt_for,
                           quilt_independence_holds)

PAPER = "002_e1f2e9a9937b8cda.txt"
_BITS = 120


# ------------------------------------------------------------------------------------------------
# models for counterexamples
# ------------------------------------------------------------------------------------------------

def chain_model(chains: tuple[MarkovChain, ...], description: str = "") -> PufferfishModel:
    """The chains as a model file: ``markov`` priors over ``x1..xT``, every entry pair.

    A chain whose initial distribution is "any" is written with the uniform initial distribution.
    """
    first = chains[0]
    T, states = first.length, first.states
    universe = Universe.product([f"x{t}" for t in range(1, T + 1)], [list(states)] * T)
    priors = {}
    for m in chains:
        init = m.initial or tuple(Fraction(1, m.k) for _ in states)
        kernel = {s: Distribution._trusted({t: p for t, p in zip(states, m.matrix[i]) if p})
                  for i, s in enumerate(states)}
        name = m.name.replace(" ", "_")
        priors[name] = MarkovPrior(name, universe.attributes,
                                   Distribution._trusted({s: p for s, p in zip(states, init) if p}),
                                   tuple([kernel] * (T - 1)), homogeneous=True)
    secrets = entry_secrets(universe)
    return PufferfishModel(universe, priors, secrets, entry_pairs(universe, secrets),
                           description=description)


def bayesnet_model(family: BayesNetFamily) -> PufferfishModel:
    """A Bayesian-network family as a model file: one ``table`` prior per member, entry pairs."""
    nodes = family.nodes
    universe = Universe.product([str(n) for n in nodes], [list(family.domains[n]) for n in nodes])
    priors = {}
    for net in family.members:
        table = {}
        for dataset in universe.datasets():
            p = net.probability(dict(zip(nodes, dataset)))
            if p:
                table[dataset] = p
        priors[net.name] = TablePrior(net.name, Distribution._trusted(table))
    secrets = entry_secrets(universe)
    return PufferfishModel(universe, priors, secrets, entry_pairs(universe, secrets))


def _fail(claim_id: str, instance: Instance, detail: str, model: PufferfishModel | None) -> ClaimOutcome:
    return violation(claim_id, PAPER, instance, detail, model)


def _claim(claim_id: str, section: str, statement: str, generate, check,
           observation: bool = False) -> None:
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation))


# ------------------------------------------------------------------------------------------------
# instance generators
# ------------------------------------------------------------------------------------------------

def vstructure_family() -> BayesNetFamily:
    """The 5-node network of ``examples/bayesnet_vstructure.json`` (A → C ← B, C → D, B → E)."""
    parents = {"A": [], "B": [], "C": ["A", "B"], "D": ["C"], "E": ["B"]}
    domains = {n: (0, 1) for n in parents}
    members = []
    for name, pa, pb, pc, pd, pe in (
            ("theta1", "1/2", "2/5", ("1/10", "1/2", "7/10", "9/10"), ("1/5", "3/4"), ("3/10", "4/5")),
            ("theta2", "2/3", "1/2", ("1/5", "2/5", "3/5", "4/5"), ("1/10", "9/10"), ("2/5", "3/5"))):
        def row(p1: str) -> dict:
            return {0: 1 - Fraction(p1), 1: Fraction(p1)}
        cpts = {"A": {(): row(pa)}, "B": {(): row(pb)},
                "C": {k: row(p) for k, p in zip(((0, 0), (0, 1), (1, 0), (1, 1)), pc)},
                "D": {(0,): row(pd[0]), (1,): row(pd[1])},
                "E": {(0,): row(pe[0]), (1,): row(pe[1])}}
        members.append(BayesNet.from_cpts(parents, domains, cpts, name))
    return BayesNetFamily(tuple(members))


def random_network(seed: int, n: int = 5, zeros: bool = False) -> BayesNet:
    """A random DAG on ``n`` nodes (edges i→j, i<j, with probability 1/2) and random CPTs."""
    rng = random.Random(seed)
    parents = {f"V{j}": [f"V{i}" for i in range(j) if rng.random() < 0.5] for j in range(n)}
    domains = {v: (0, 1) for v in parents}
    cpts = {}
    for v, ps in parents.items():
        rows = {}
        for key in _keys(len(ps)):
            p = Fraction(rng.randint(0 if zeros else 1, 9), 10 if not zeros else 9)
            rows[key] = {0: p, 1: 1 - p}
        cpts[v] = rows
    return BayesNet.from_cpts(parents, domains, cpts, f"random{seed}")


def _keys(m: int) -> list[tuple]:
    return [tuple((k >> j) & 1 for j in range(m)) for k in range(2 ** m)]


def random_reversible(seed: int, k: int, length: int, initial: str = "random") -> MarkovChain:
    """A random reversible chain: random symmetric integer weights (diagonal boosted)."""
    rng = random.Random(seed)
    W = [[0] * k for _ in range(k)]
    for i in range(k):
        for j in range(i, k):
            W[i][j] = W[j][i] = rng.randint(1, 6) + (rng.randint(0, 12) if i == j else 0)
    init = None
    if initial == "random":
        w = [rng.randint(1, 5) for _ in range(k)]
        init = [Fraction(x, sum(w)) for x in w]
    elif initial == "point":
        init = [Fraction(int(s == 0)) for s in range(k)]
    c = reversible_chain(W, length, init, f"rev{seed}")
    return c.stationary_start() if initial == "stationary" else c


_BINARY_GRID = [("1/10", "1/10"), ("1/2", "1/2"), ("9/10", "4/5"), ("3/10", "7/10"),
                ("19/20", "19/20"), ("1/5", "9/10"), ("3/5", "2/5"), ("99/100", "1/2")]


def _binary_chains(length: int) -> Iterator[tuple[str, MarkovChain]]:
    inits = [("uniform", ["1/2", "1/2"]), ("skewed", ["1/5", "4/5"]), ("point 0", ["1", "0"])]
    for p0, p1 in _BINARY_GRID:
        for label, init in inits:
            yield f"p0={p0}, p1={p1}, start {label}", MarkovChain.binary(p0, p1, length, init)


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
            return _fail("002.def42.dsep_independence", instance,
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
            return _fail("002.lemB2.chain_quilts", instance,
                         f"quilt {cq.label()}: d-separation gives X_N = {sorted(direct.nearby)}, "
                         f"Lemma B.2 says {sorted(q.nearby)}", None)
        lemma.add((q.quilt, q.nearby))
    if found != lemma:
        extra = sorted(tuple(sorted(q)) for q, _ in found - lemma)
        missing = sorted(tuple(sorted(q)) for q, _ in lemma - found)
        return _fail("002.lemB2.chain_quilts", instance,
                     f"enumeration found minimal quilts not in Lemma B.2 {extra} and missed {missing}",
                     None)
    return ClaimOutcome(True, f"{len(found)} minimal quilts, exactly Lemma B.2's")


def _lemma_b3_instances() -> Iterator[Instance]:
    for T in (3, 4, 5):
        for label, chain in list(_binary_chains(T))[::4]:
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
                ratio = max_influence(fam, i, q.quilt).ratio
                if q.nearby not in minimal:
                    return _fail("002.lemB3.minimal_suffice", instance,
                                 f"node {i}: quilt {sorted(subset)} has X_N = {sorted(q.nearby)}, "
                                 f"which no Lemma B.2 quilt has", chain_model(chains))
                if minimal[q.nearby] != ratio:
                    return _fail("002.lemB3.minimal_suffice", instance,
                                 f"node {i}: quilt {sorted(subset)} has max-influence "
                                 f"log({fraction_str(ratio)}), the Lemma B.2 quilt with the same X_N "
                                 f"log({fraction_str(minimal[q.nearby])})", chain_model(chains))
    return ClaimOutcome(True, "every quilt matches a Lemma B.2 quilt (same X_N, same influence)")


# ------------------------------------------------------------------------------------------------
# Lemmas B.4–B.7
# ------------------------------------------------------------------------------------------------

def _reversible_instances() -> Iterator[Instance]:
    for p0, p1 in [("9/10", "4/5"), ("1/2", "1/2"), ("3/10", "7/10"), ("1/5", "1/10"),
                   ("19/20", "19/20"), ("3/5", "9/10")]:
        for init in (["1/2", "1/2"], ["1", "0"], None):
            c = MarkovChain.binary(p0, p1, 16, init)
            yield Instance(f"binary {c.name}, start {init or 'any'}", {"chains": (c,)})
    for seed in range(6):
        for init in ("random", "point", "stationary"):
            c = random_reversible(seed, 3, 12, init)
            yield Instance(f"reversible 3-state seed {seed}, start {init}", {"chains": (c,)})
    yield Instance("family: two binary chains", {"chains": (
        MarkovChain.binary("9/10", "4/5", 20, ["1/2", "1/2"]),
        MarkovChain.binary("7/10", "3/5", 20, ["1/4", "3/4"], name="other"))})


def _family_parameters(chains) -> tuple[Fraction, Fraction, Fraction]:
    """(π_Θ, g_lo, g_hi) with g_lo <= g_Θ <= g_hi."""
    pis = [min(c.stationary()) for c in chains]
    gaps = [eigengap_interval(c) for c in chains]
    return min(pis), min(g[0] for g in gaps), min(g[1] for g in gaps)


def _iv(x: Fraction):
    return iv.mpf(x.numerator) / x.denominator


def _bound_interval(pi: Fraction, g_lo: Fraction, g_hi: Fraction, t_b: int | None, t_a: int | None):
    """Enclosure of f(b) + 2 f(a) over g ∈ [g_lo, g_hi] (f decreasing in g)."""
    old = iv.prec
    iv.prec = _BITS
    try:
        total_lo, total_hi = mpmath.mpf(0), mpmath.mpf(0)
        for t, w in ((t_b, 1), (t_a, 2)):
            if t is None:
                continue
            p = _iv(pi)
            d_small = iv.exp(-_iv(g_hi) * t)     # smallest Δ → smallest f
            d_large = iv.exp(-_iv(g_lo) * t)
            if not (p - d_large).a > 0:
                return None
            f_lo = iv.log((p + d_small) / (p - d_small))
            f_hi = iv.log((p + d_large) / (p - d_large))
            total_lo += w * f_lo.a
            total_hi += w * f_hi.b
        return total_lo, total_hi
    finally:
        iv.prec = old


def _log_interval(r: Fraction):
    old = iv.prec
    iv.prec = _BITS
    try:
        v = iv.log(_iv(r))
        return v.a, v.b
    finally:
        iv.prec = old


def _threshold_ok(t: int, pi: Fraction, g_lo: Fraction) -> bool:
    """``t > log(1/π)/g`` certainly (with g ≥ g_lo)."""
    old = iv.prec
    iv.prec = _BITS
    try:
        return bool(t > (iv.log(1 / _iv(pi)) / _iv(g_lo)).b)
    finally:
        iv.prec = old


def _check_lemma_b4(instance: Instance) -> ClaimOutcome:
    chains = instance.params["chains"]
    T = chains[0].length
    mode = "any" if chains[0].initial is None else "given"
    family = ChainFamily(chains, mode)
    pi, g_lo, g_hi = _family_parameters(chains)
    checked = 0
    for i in range(1, T + 1):
        for cq in chain_quilts(T, i):
            a = cq.a if cq.has_left else None
            b = cq.b if cq.has_right else None
            if (a is not None and not _threshold_ok(a, pi, g_lo)) or \
               (b is not None and not _threshold_ok(b, pi, g_lo)):
                continue
            if a is None and b is None:
                continue
            ratio, who = family_influence_exact(family, cq)
            bound = _bound_interval(pi, g_lo, g_hi, b, a)
            if bound is None:
                continue
            lo, hi = _log_interval(Fraction(ratio))
            checked += 1
            if lo > bound[1]:
                return _fail("002.lemB4.bound", instance,
                             f"node {i}, quilt {cq.label()}: exact e = {float(lo):.12g} > "
                             f"bound {float(bound[1]):.12g}", chain_model(chains))
            if not hi <= bound[0]:
                return _fail("002.lemB4.bound", instance,
                             f"node {i}, quilt {cq.label()}: undecided (e ∈ [{float(lo)}, "
                             f"{float(hi)}], bound ∈ [{float(bound[0])}, {float(bound[1])}])",
                             chain_model(chains))
    return ClaimOutcome(True, f"{checked} quilts: exact max-influence ≤ Lemma B.4 bound")


def _mixing_instances() -> Iterator[Instance]:
    for p0, p1 in [("9/10", "4/5"), ("1/10", "1/5"), ("1/2", "1/2"), ("99/100", "1/100")]:
        yield Instance(f"binary p0={p0}, p1={p1}", {"chain": MarkovChain.binary(p0, p1, 2, ["1/2", "1/2"])})
    for seed in range(8):
        yield Instance(f"reversible 3-state seed {seed}", {"chain": random_reversible(seed, 3, 2)})
    yield Instance("reversible 4-state seed 9", {"chain": random_reversible(9, 4, 2)})


def _check_lemma_b5(instance: Instance) -> ClaimOutcome:
    c = instance.params["chain"]
    pi = c.stationary()
    pmin = min(pi)
    g_lo, g_hi = eigengap_interval(c)
    old = iv.prec
    iv.prec = _BITS
    try:
        for t in range(0, 25):
            Pt = c.power(t)
            rhs_small = iv.exp(-_iv(g_hi) * t) / _iv(pmin)
            rhs_large = iv.exp(-_iv(g_lo) * t) / _iv(pmin)
            for x in range(c.k):
                for y in range(c.k):
                    lhs = abs(Pt[x][y] / pi[y] - 1)
                    if _iv(lhs).a > rhs_large.b:
                        return _fail("002.lemB5.mixing", instance,
                                     f"t={t}, x={x}, y={y}: |P^t/π − 1| = {float(lhs):.6g} > "
                                     f"e^(-tg)/π_min = {float(rhs_large.b):.6g}",
                                     chain_model((c,)))
                    if not _iv(lhs).b <= rhs_small.a:
                        return _fail("002.lemB5.mixing", instance, f"t={t}: undecided", None)
    finally:
        iv.prec = old
    return ClaimOutcome(True, "t = 0..24: every entry within the bound")


def _check_lemma_b67(which: str):
    def check(instance: Instance) -> ClaimOutcome:
        chains = instance.params["chains"]
        pi, g_lo, g_hi = _family_parameters(chains)
        old = iv.prec
        iv.prec = _BITS
        try:
            for c in chains:
                if c.initial is None:
                    continue
                for t in range(1, 16):
                    if not _threshold_ok(t, pi, g_lo):
                        continue
                    d_large = iv.exp(-_iv(g_lo) * t) / _iv(pi)
                    d_small = iv.exp(-_iv(g_hi) * t) / _iv(pi)
                    power = 1 if which == "B6" else 2
                    bound_hi = ((1 + d_large) / (1 - d_large)) ** power
                    bound_lo = ((1 + d_small) / (1 - d_small)) ** power
                    worst = Fraction(1)
                    Pt = c.power(t)
                    for j in (1, 2, 3):
                        if which == "B6":
                            for y in range(c.k):
                                col = [Pt[x][y] for x in range(c.k)]
                                worst = max(worst, max(col) / min(col))
                        else:
                            mu = c.marginal(j + t)
                            muj = c.marginal(j)
                            for y in range(c.k):
                                if not muj[y]:
                                    continue
                                vals = [muj[y] * Pt[y][x] / mu[x] for x in range(c.k) if mu[x]]
                                worst = max(worst, max(vals) / min(vals))
                    if _iv(worst).a > bound_hi.b:
                        return _fail(f"002.lem{which}", instance,
                                     f"t={t}: ratio {float(worst):.8g} > bound {float(bound_hi.b):.8g}",
                                     chain_model(chains))
                    if not _iv(worst).b <= bound_lo.a:
                        return _fail(f"002.lem{which}", instance, f"t={t}: undecided", None)
        finally:
            iv.prec = old
        return ClaimOutcome(True, "every t above the threshold within the bound")
    return check


# ------------------------------------------------------------------------------------------------
# Claims B.10, B.11, Algorithm 4, Theorem 4.4
# ------------------------------------------------------------------------------------------------

def _approx_instances() -> Iterator[Instance]:
    for pi, g in [("1/3", "3/10"), ("1/2", "1/2"), ("1/10", "1/5"), ("2/5", "9/10"), ("1/4", "1/20"),
                  ("1/2", "1"), ("9/20", "19/20")]:
        for T in (1, 2, 5, 20, 60, 200):
            for eps in ("1/2", "1", "5", "10"):
                yield Instance(f"π_Θ={pi}, g_Θ={g}, T={T}, ε={eps}",
                               {"pi": Fraction(pi), "g": Fraction(g), "T": T, "eps": eps})


def _check_b10(instance: Instance) -> ClaimOutcome:
    p = instance.params
    basic = mqm_chain_approx(p["T"], p["eps"], p["pi"], p["g"])
    fast = mqm_chain_approx(p["T"], p["eps"], p["pi"], p["g"], fast=True)
    if fast.sigma[0] > basic.sigma[1]:
        return _fail("002.claimB10.fast_le_basic", instance,
                     f"fast σ ≥ {fast.sigma[0]:.12g} > basic σ ≤ {basic.sigma[1]:.12g}", None)
    return ClaimOutcome(True, f"fast σ {fast.sigma[1]:.10g} ≤ basic σ {basic.sigma[1]:.10g}")


def _check_b11(instance: Instance) -> ClaimOutcome:
    p = instance.params
    fast = mqm_chain_approx(p["T"], p["eps"], p["pi"], p["g"], fast=True)
    last = fast.choices[-1].quilt
    if not (last.has_left and last.has_right):
        return ClaimOutcome(True, "hypothesis not met (Algorithm 5 ended on a boundary quilt)")
    basic = mqm_chain_approx(p["T"], p["eps"], p["pi"], p["g"])
    for c in basic.choices:
        if c.score.lower > fast.sigma[1]:
            return _fail("002.claimB11.fast_private", instance,
                         f"node {c.node} needs σ ≥ {c.score.lower:.12g} > fast σ "
                         f"{fast.sigma[1]:.12g}", None)
    return ClaimOutcome(True, f"σ_fast = {fast.sigma[1]:.10g} covers all {p['T']} nodes")


def _exact_fast_instances() -> Iterator[Instance]:
    for T in (5, 11, 15, 27):
        for label, chain in _binary_chains(T):
            for eps in ("1/2", "2", "5"):
                yield Instance(f"T={T}, {label}, ε={eps}", {"chain": chain, "eps": eps})


def _check_b11_exact(instance: Instance) -> ClaimOutcome:
    chain, eps = instance.params["chain"], instance.params["eps"]
    family = ChainFamily((chain,))
    fast = mqm_chain_exact(family, eps, fast=True)
    last = fast.choices[-1].quilt
    if not (last.has_left and last.has_right):
        return ClaimOutcome(True, "hypothesis not met (Algorithm 5 ended on a boundary quilt)")
    basic = mqm_chain_exact(family, eps)
    if basic.sigma[0] > fast.sigma[1]:
        w = basic.worst
        return _fail("002.claimB11.exact_influence", instance,
                     f"Algorithm 5 with exact max-influence gives σ = {fast.sigma[1]:.12g}, but "
                     f"node {w.node} needs σ ≥ {w.score.lower:.12g} (its best quilt "
                     f"{w.quilt_label()}); the shifted quilt's exact influence depends on the "
                     f"position", chain_model((chain,)))
    return ClaimOutcome(True, f"σ_fast = {fast.sigma[1]:.10g} ≥ σ_basic = {basic.sigma[0]:.10g}")


def _check_alg4_literal(instance: Instance) -> ClaimOutcome:
    p = instance.params
    literal = mqm_chain_approx(p["T"], p["eps"], p["pi"], p["g"], literal_pseudocode=True)
    bad = [c.node for c in literal.choices if c.score.infinite]
    if bad:
        return _fail("002.alg4.literal_finite", instance,
                     f"nodes {bad[:8]}{'...' if len(bad) > 8 else ''} get σ_i = ∞: every candidate "
                     f"encodes a missing side with a = i or b = T+1−i below log(1/π_Θ)/g_Θ", None)
    return ClaimOutcome(True, "every node has a finite σ_i")


def _thm44_instances() -> Iterator[Instance]:
    for p0, p1 in [("9/10", "4/5"), ("1/2", "1/2"), ("3/5", "2/5"), ("4/5", "4/5")]:
        for eps in ("1", "3", "10"):
            yield Instance(f"binary p0={p0}, p1={p1}, ε={eps}", {
                "chains": (MarkovChain.binary(p0, p1, 2, ["1/2", "1/2"]),), "eps": eps})
    for seed in (2, 5):
        yield Instance(f"reversible 3-state seed {seed}, ε=2", {
            "chains": (random_reversible(seed, 3, 2),), "eps": "2"})


def _thm44_a(pi: Fraction, g: Fraction, eps: Fraction) -> int:
    """``a = ⌈log((e^{ε/6}+1)/(e^{ε/6}−1) / π_Θ) / g_Θ⌉`` (certified ceiling)."""
    bits = _BITS
    while True:
        old = iv.prec
        iv.prec = bits
        try:
            e6 = iv.exp(_iv(eps) / 6)
            v = iv.log((e6 + 1) / (e6 - 1) / _iv(pi)) / _iv(g)
            lo, hi = math.ceil(float(mpmath.mpf(v.a))), math.ceil(float(mpmath.mpf(v.b)))
        finally:
            iv.prec = old
        if lo == hi:
            return lo
        bits *= 2


def _check_thm44(instance: Instance) -> ClaimOutcome:
    chains, eps_text = instance.params["chains"], instance.params["eps"]
    eps = Fraction(eps_text)
    pi, g = chain_family_parameters(ChainFamily(chains))
    a = _thm44_a(pi, g, eps)
    t_min = 2 * a + 3
    bound = (2 * a - 1) / (float(eps) / 2)
    for T in (t_min, t_min + 1, 2 * t_min, 4 * t_min):
        for method, result in (("approx", mqm_chain_approx(T, eps_text, pi, g)),
                               ("approx-fast", mqm_chain_approx(T, eps_text, pi, g, fast=True)),
                               ("exact", mqm_chain_exact(ChainFamily(tuple(
                                   c.with_initial(c.initial, c.name) for c in
                                   (MarkovChain(c.states, c.matrix, T, c.initial, c.name)
                                    for c in chains))), eps_text))):
            if result.sigma[0] > bound * (1 + 1e-12):
                return _fail("002.thm4.4.utility", instance,
                             f"T={T}, {method}: σ_max ≥ {result.sigma[0]:.10g} > (2a−1)/(ε/2) = "
                             f"{bound:.10g} (a = {a})", None)
    return ClaimOutcome(True, f"a = {a}: σ_max ≤ {bound:.6g} for T = {t_min}..{4 * t_min}")


# ------------------------------------------------------------------------------------------------
# Appendix B.10
# ------------------------------------------------------------------------------------------------

def _gamma_instances() -> Iterator[Instance]:
    for p0, p1 in _BINARY_GRID + [("1/2", "9/10"), ("9/10", "1/2"), ("2/5", "2/5")]:
        yield Instance(f"p0={p0}, p1={p1}", {"p0": Fraction(p0), "p1": Fraction(p1)})


def _check_gamma(instance: Instance) -> ClaimOutcome:
    p0, p1 = instance.params["p0"], instance.params["p1"]
    definition = gk16_gamma_ratio(p0, p1)
    printed = gk16_gamma_paper_ratio(p0, p1)
    if definition != printed:
        return _fail("002.B10.gamma_formula", instance,
                     f"exp(2γ) from the definition = {fraction_str(definition)} "
                     f"(γ ≈ {0.5 * math.log(definition):.6g}); the printed closed form gives "
                     f"{fraction_str(printed)} (γ ≈ {0.5 * math.log(printed):.6g})",
                     chain_model((MarkovChain.binary(p0, p1, 3, ["1/2", "1/2"]),)))
    return ClaimOutcome(True, f"exp(2γ) = {fraction_str(definition)}")


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
    return _fail("002.thm4.3.private", instance,
                 detail + ("" if verdict is False else " (undecided)"), model)


# ------------------------------------------------------------------------------------------------
# registration
# ------------------------------------------------------------------------------------------------

_claim("002.def42.dsep_independence", "§4, Definition 4.2; proof of Lemma B.2",
       "A quilt X_Q whose remote set X_R is chosen by d-separation satisfies condition 2 of "
       "Definition 4.2: P(X_R | X_Q, X_i = a) = P(X_R | X_Q) for all values.",
       _dsep_instances, _check_dsep)
_claim("002.lemB2.chain_quilts", "Appendix B.4, Lemma B.2",
       "On a chain X_1 → ... → X_T the minimal Markov quilts of X_i are {X_{i-a}, X_{i+b}}, "
       "{X_{i-a}}, {X_{i+b}} and ∅ with the X_N and X_R stated in Lemma B.2.",
       _chain_graph_instances, _check_lemma_b2)
_claim("002.lemB3.minimal_suffice", "Appendix B.4, Lemma B.3",
       "For every Markov quilt of X_i in a chain there is a Lemma B.2 quilt with the same X_N and "
       "the same max-influence; hence searching only Lemma B.2's quilts adds the same noise.",
       _lemma_b3_instances, _check_lemma_b3)
_claim("002.lemB4.bound", "Appendix B.5, Lemma B.4",
       "For reversible, irreducible, aperiodic chains and quilt distances a, b > log(1/π_Θ)/g_Θ: "
       "e({X_{i-a},X_{i+b}}|X_i) ≤ f(b) + 2f(a), e({X_{i-a}}) ≤ 2f(a), e({X_{i+b}}) ≤ f(b), "
       "f(t) = log((π_Θ + e^{-g_Θ t})/(π_Θ − e^{-g_Θ t})).",
       _reversible_instances, _check_lemma_b4)
_claim("002.lemB5.mixing", "Appendix B.5, Lemma B.5",
       "|P^t(x,y)/π(y) − 1| ≤ exp(−t g*)/π_min for a reversible, irreducible, aperiodic chain.",
       _mixing_instances, _check_lemma_b5)
_claim("002.lemB6", "Appendix B.5, Lemma B.6",
       "For t > log(1/π_Θ)/g_Θ: P(X_{t+j}=y|X_j=x)/P(X_{t+j}=y|X_j=x') ≤ (1+Δ_t)/(1−Δ_t).",
       _reversible_instances, _check_lemma_b67("B6"))
_claim("002.lemB7", "Appendix B.5, Lemma B.7",
       "For t > log(1/π_Θ)/g_Θ: P(X_j=y|X_{j+t}=x)/P(X_j=y|X_{j+t}=x') ≤ ((1+Δ_t)/(1−Δ_t))².",
       _reversible_instances, _check_lemma_b67("B7"))
_claim("002.claimB10.fast_le_basic", "Appendix B.8.2, Claim B.10",
       "The noise of FastMarkovQuiltMechanism (Algorithm 5) is at most that of "
       "BasicMarkovQuiltMechanism (Algorithm 3).",
       _approx_instances, _check_b10)
_claim("002.claimB11.fast_private", "Appendix B.8.2, Claim B.11",
       "If Algorithm 5's best quilt {X_{i-a}, X_{i+b}} is interior, its σ covers every node "
       "(σ_fast ≥ σ_j for all j), so Algorithm 5 is ε-Pufferfish.",
       _approx_instances, _check_b11)
_claim("002.claimB11.exact_influence", "Appendix B.8.2, Claim B.11 with exact max-influence",
       "Observation beyond the paper: Claim B.11's argument (the shifted quilt has the same score) "
       "also holds when FindBestMarkovQuilt uses the exact max-influence of a chain with a given "
       "initial distribution.", _exact_fast_instances, _check_b11_exact, observation=True)
_claim("002.alg4.literal_finite", "Appendix B.8.1, Algorithm 4 (as printed)",
       "Algorithm 4 as printed — σ_i initialised to ∞, the loop over (a, b) with "
       "a, b ≥ log(1/π_Θ)/g_Θ where a = i, b = T+1−i encode a missing side — gives every node a "
       "finite σ_i.", _approx_instances, _check_alg4_literal)
_claim("002.thm4.4.utility", "§4.1, Theorem 4.4; Appendix B.6.1, Lemma B.8",
       "If T ≥ 2⌈log((e^{ε/6}+1)/(e^{ε/6}−1)/π_Θ)/g_Θ⌉ + 3 the Markov Quilt Mechanism's scale is "
       "at most (2a−1)/(ε/2) ≤ 4a/ε with a that ceiling, independent of T.",
       _thm44_instances, _check_thm44)
_claim("002.B10.gamma_formula", "Appendix B.10",
       "For a binary chain, the multiplicative influence γ of [11] between neighbours equals the "
       "closed form printed in Appendix B.10.", _gamma_instances, _check_gamma)
_claim("002.thm4.3.private", "§4, Theorem 4.3",
       "F(D) + σ_max·Lap(1) with a 1-Lipschitz F (here a count) is ε-Pufferfish in the framework "
       "of §4 (each X_i's value secret, every pair of values, every θ ∈ Θ).",
       _thm43_instances, _check_thm43)


__all__ = ["chain_model", "bayesnet_model", "vstructure_family", "random_network",
           "random_reversible"]


# ------------------------------------------------------------------------------------------------
# Theorem B.9 (consistency of the MQM histogram)
# ------------------------------------------------------------------------------------------------
#
# ``002.thmB9.consistency`` — what is checked, on finite instances, and why it is the theorem:
#
#   Theorem B.9 says that for T ≥ T0 = 2a + 3, a = ⌈log((e^{ε/6}+1)/(e^{ε/6}−1)/π_Θ)/g_Θ⌉, the
#   MQM histogram M(D) = F(D) + b·Lap(1)^k has E‖M(D) − F(D)‖∞ ≤ C/(εT) with C depending on Θ
#   (and ε) but not on T.  Its proof: the per-coordinate scale is b = 2σ_max/T (Appendix B.2 with
#   the 2/T-Lipschitz histogram) and Lemma B.8 gives σ_max ≤ C_B8/ε with the explicit
#   C_B8 = 4a.  On each instance (Θ, ε) we take T = T0·2^j (a geometric sequence), compute the
#   certified σ_max(T) of MQMApprox (Algorithms 3–4) and of Algorithm 5 (and of MQMExact for the
#   smaller T), and check with exact rationals
#     (1) b(T) = 2σ_upper(T)/T ≤ 2·C_B8/(εT)              (the scale claim of the proof), and
#     (2) E‖M − F‖∞ = H_k·b(T) ≤ C_thm/(εT), C_thm = 2·H_k·C_B8   (the statement, with a C
#         that depends on Θ through k, π_Θ, g_Θ and on ε, not on T).
#   (2) is (1) multiplied by H_k; both fail exactly when σ_max(T) > 4a/ε, i.e. when Lemma B.8's
#   T-independent bound fails at some T of the sequence.  E max_j |Lap(b)_j| = H_k·b is exact
#   (Rényi's representation, :func:`pufferfish.verify.quilts.mqm.expected_max_abs_laplace`).  A finite check cannot
#   reach every T; the detail reports ε·σ_max(T)/a along the sequence (on the instances below it
#   is constant from T = 2T0 on, at most 3.28 < 4).  "T·b(T) non-increasing" is *not* what the
#   theorem says and is false here: σ_max(T0) is often smaller than σ_max(2T0), so T·b(T) = 2σ_max
#   increases once; the content of the theorem is the T-independent bound, checked in (1).
#
# ``002.thmB9.proof_constant`` — the last inequality of the proof, E‖M − F‖∞ ≤ 2C/(εT) with the
#   same C = C_B8 as the scale bound.  E‖·‖∞ = H_k·b > b for k ≥ 2, so this step conflates the
#   scale with the expected maximum; the claim decides it (violation certified with σ_lower).

def _thmB9_chain_instances() -> Iterator[tuple[str, tuple, Fraction, Fraction, int]]:
    from pufferfish.proofs_check.paper_002.figures import generate_reversible_chain
    for k, pi_gen, g_gen, seed in ((2, "3/10", "1/2", 0), (3, "1/10", "3/10", 1),
                                   (5, "1/20", "1/10", 0), (5, "3/20", "3/5", 2),
                                   (3, "1/4", "1/20", 3)):
        gen = generate_reversible_chain(k, pi_gen, g_gen, seed=seed, length=2)
        pi, g = chain_family_parameters(ChainFamily((gen.chain,), "any"))
        yield (f"generated k={k} (π_gen={pi_gen}, g_gen={g_gen}, seed {seed}): "
               f"π_Θ={float(pi):.4g}, g_Θ≥{float(g):.4g}", (gen.chain,), pi, g, k)
        # the conservative estimates of Appendix B.12 (π_est = π_gen, g_est = g_gen): valid lower
        # bounds on π_Θ and g_Θ, so Lemma B.4 and the theorem apply with them
        yield (f"generated k={k}, estimates π_est={pi_gen}, g_est={g_gen} (seed {seed})",
               (gen.chain,), Fraction(pi_gen), Fraction(g_gen), k)
    pi, g = interval_parameters(Fraction(1, 10), Fraction(9, 10))
    yield ("binary §5 family Θ = [1/10, 9/10] (closed-form π_Θ, g_Θ)", (), pi, g, 2)


def _thmB9_instances() -> Iterator[Instance]:
    for label, chains, pi, g, k in _thmB9_chain_instances():
        for eps in ("1/2", "1", "5"):
            yield Instance(f"{label}, ε={eps}", {"chains": chains, "pi": pi, "g": g, "k": k,
                                                 "eps": eps})


_THMB9_STEPS = 4          # T = T0, 2T0, 4T0, 8T0
_THMB9_BASIC_MAX_T = 2500  # Algorithm 3 (basic) up to this T; Algorithm 5 at every T
_THMB9_EXACT_MAX_T = 300   # MQMExact up to this T


def _thmB9_mechanisms(instance: Instance) -> Iterator[tuple[int, str, object]]:
    """Yield (T, method, HistogramMechanism) along the geometric sequence of lengths."""
    p = instance.params
    eps, pi, g, k = Fraction(p["eps"]), p["pi"], p["g"], p["k"]
    a = _thm44_a(pi, g, eps)
    t0 = 2 * a + 3
    for j in range(_THMB9_STEPS):
        T = t0 * 2 ** j
        methods = ["fast"] + (["approx"] if T <= _THMB9_BASIC_MAX_T else [])
        for method in methods:
            yield T, method, histogram_mechanism(T, p["eps"], states=range(k), pi=pi, g=g,
                                                 method=method)
        if p["chains"] and T <= _THMB9_EXACT_MAX_T and p["pi"] == min(
                min(c.stationary()) for c in p["chains"]):
            family = ChainFamily(tuple(MarkovChain(c.states, c.matrix, T, None, c.name)
                                       for c in p["chains"]), "any")
            yield T, "exact", histogram_mechanism(T, p["eps"], family=family, method="exact")


def _thmB9_constants(instance: Instance) -> tuple[Fraction, int, int, Fraction]:
    p = instance.params
    eps = Fraction(p["eps"])
    a = _thm44_a(p["pi"], p["g"], eps)
    return eps, a, 4 * a, harmonic_number(p["k"])


def _check_thmB9(instance: Instance) -> ClaimOutcome:
    eps, a, c_b8, h_k = _thmB9_constants(instance)
    c_thm = 2 * h_k * c_b8
    normalised: dict[str, list[str]] = {}
    checked = 0
    for T, method, mech in _thmB9_mechanisms(instance):
        b_lo, b_hi = mech.scale_interval
        scale_bound = 2 * Fraction(c_b8) / (eps * T)
        e_inf = mech.expected_linf_error                 # = H_k · b_hi exactly
        e_bound = c_thm / (eps * T)
        normalised.setdefault(method, []).append(f"{float(eps * T * b_hi / 2 / a):.4g}@T={T}")
        checked += 1
        if not (b_hi <= scale_bound and e_inf <= e_bound):
            certain = b_lo > scale_bound
            return _fail("002.thmB9.consistency", instance,
                         f"T={T} ≥ T0={2 * a + 3}, {method}: per-coordinate scale b = 2σ_max/T ∈ "
                         f"[{float(b_lo):.10g}, {float(b_hi):.10g}] vs 2C/(εT) = "
                         f"{float(scale_bound):.10g} with C = 4a = {c_b8}; E‖M−F‖∞ = H_k·b = "
                         f"{float(e_inf):.10g} vs C_thm/(εT) = {float(e_bound):.10g}"
                         + ("" if certain else " (undecided at this precision)"), None)
    return ClaimOutcome(True, f"a = {a}, C = 4a = {c_b8}, H_k = {h_k}: {checked} mechanisms, "
                        f"b ≤ 2C/(εT) and E‖M−F‖∞ = H_k·b ≤ 2H_k·C/(εT); ε·σ_max(T)/a: "
                        + "; ".join(f"{m}: {', '.join(v)}" for m, v in normalised.items()))


def _check_thmB9_proof(instance: Instance) -> ClaimOutcome:
    eps, a, c_b8, h_k = _thmB9_constants(instance)
    for T, method, mech in _thmB9_mechanisms(instance):
        b_lo, b_hi = mech.scale_interval
        bound = 2 * Fraction(c_b8) / (eps * T)
        if h_k * b_hi <= bound:
            continue
        certain = h_k * b_lo > bound
        return _fail("002.thmB9.proof_constant", instance,
                     f"T={T}, {method}: E‖M−F‖∞ = H_k·b with H_k = {h_k}, b = 2σ_max/T ≥ "
                     f"{float(b_lo):.10g}: E‖M−F‖∞ ≥ {float(h_k * b_lo):.10g} > 2C/(εT) = "
                     f"{float(bound):.10g} (C = 4a = {c_b8}); the scale itself is ≤ 2C/(εT), "
                     f"the expected maximum of k = {instance.params['k']} |Laplace| variables is "
                     f"H_k times the scale" + ("" if certain else " (undecided at this precision)"),
                     None)
    return ClaimOutcome(True, f"a = {a}: H_k·b ≤ 2C/(εT) at every T checked")


_claim("002.thmB9.consistency", "Appendix B.6.2, Theorem B.9 (with Appendix B.2, Lemma B.8)",
       "If T ≥ 2⌈log((e^{ε/6}+1)/(e^{ε/6}−1)/π_Θ)/g_Θ⌉ + 3, the MQM histogram (per-coordinate "
       "Laplace scale 2σ_max/T) has scale ≤ 2C/(εT) and E‖M(D) − F(D)‖∞ ≤ C'/(εT) with constants "
       "independent of T (checked with Lemma B.8's C = 4a and C' = 2·H_k·C along T = T0·2^j).",
       _thmB9_instances, _check_thmB9)
_claim("002.thmB9.proof_constant", "Appendix B.6.2, proof of Theorem B.9 (last inequality)",
       "With C the constant of Lemma B.8 (σ_max ≤ C/ε, C = 4a), the MQM histogram satisfies "
       "E‖M(D) − F(D)‖∞ ≤ 2C/(εT) for T ≥ 2a + 3.",
       _thmB9_instances, _check_thmB9_proof)
