"""Claims of Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix B.5–B.10 and §4.1
Theorem 4.4: the bounds behind MQMApprox on chains and the algorithms that use them.

====================================  =========================================================
``002.lemB4.bound``                   Lemma B.4: the bound ≥ the exact max-influence
``002.lemB5.mixing``                  Lemma B.5: |P^t(x,y)/π(y) − 1| ≤ e^{−t g}/π_min
``002.lemB6``                         Lemma B.6: forward ratio ≤ (1+Δ_t)/(1−Δ_t)
``002.lemB7``                         Lemma B.7: backward ratio ≤ ((1+Δ_t)/(1−Δ_t))²
``002.claimB10.fast_le_basic``        Claim B.10: Algorithm 5's σ ≤ Algorithm 3's σ
``002.claimB11.fast_private``         Claim B.11: with an interior best quilt, Algorithm 5's σ
                                      covers every node (σ_fast ≥ σ_j for all j)
``002.claimB11.exact_influence``      observation: the same with *exact* max-influence
``002.alg4.literal_finite``           Algorithm 4 as printed gives every node a finite σ_i
``002.thm4.4.utility``                Theorem 4.4 / Lemma B.8: σ_max ≤ (2a−1)/(ε/2) ≤ 4a/ε
``002.B10.gamma_formula``             Appendix B.10: the printed closed form of γ equals the
                                      definition of the multiplicative influence (computed by
                                      brute force over the joint law)
====================================  =========================================================

Transcendental comparisons are certified in a private interval context
(:func:`pufferfish.verify.numerics.intervals.interval_context`, 120 bits); an instance the
arithmetic cannot decide counts as *not* verified.  The claims are registered by
:mod:`pufferfish.proofs_check.paper_002.quilts` (:func:`register_claims`), in the paper's order.

>>> thm44_a(Fraction(1, 3), Fraction(7, 10), Fraction(1))
6
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Iterator
from fractions import Fraction
from itertools import product

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily, chain_family_parameters, eigengap_interval
from pufferfish.models.numbers import fraction_str
from pufferfish.proofs_check.paper_002.quilt_instances import (BINARY_GRID, binary_chains, chain_model,
                                                               claim, fail, random_reversible)
from pufferfish.proofs_check.mutation import on, patched
from pufferfish.proofs_check.registry import ClaimOutcome, Instance
from pufferfish.verify.numerics.intervals import endpoints, interval_context, log_interval, rational_interval
from pufferfish.verify.quilts.chain_influence import family_influence_exact
from pufferfish.verify.quilts.chain_search import mqm_chain_approx, mqm_chain_exact
from pufferfish.verify.quilts.gk16 import gk16_gamma_paper_ratio, gk16_gamma_ratio
from pufferfish.verify.quilts.markov_quilts import chain_quilts

_BITS = 120


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


_CONTEXT = interval_context(_BITS)


def _iv(x: Fraction):
    return rational_interval(_CONTEXT, x)


LEMMA_B4_WEIGHTS = (1, 2)
"""Lemma B.4: e({X_{i-a}, X_{i+b}} | X_i) <= 1·f(b) + 2·f(a)."""


def _bound_interval(pi: Fraction, g_lo: Fraction, g_hi: Fraction, t_b: int | None, t_a: int | None):
    """Enclosure of f(b) + 2 f(a) over g ∈ [g_lo, g_hi] (f decreasing in g)."""
    total_lo, total_hi = _CONTEXT.mpf(0), _CONTEXT.mpf(0)
    for t, w in zip((t_b, t_a), LEMMA_B4_WEIGHTS):
        if t is None:
            continue
        p = _iv(pi)
        d_small = _CONTEXT.exp(-_iv(g_hi) * t)     # smallest Δ → smallest f
        d_large = _CONTEXT.exp(-_iv(g_lo) * t)
        if not (p - d_large).a > 0:
            return None
        f_lo = _CONTEXT.log((p + d_small) / (p - d_small))
        f_hi = _CONTEXT.log((p + d_large) / (p - d_large))
        total_lo += w * f_lo.a
        total_hi += w * f_hi.b
    return total_lo, total_hi


def _log_interval(r: Fraction):
    v = log_interval(_CONTEXT, r)
    return v.a, v.b


def _threshold_ok(t: int, pi: Fraction, g_lo: Fraction) -> bool:
    """``t > log(1/π)/g`` certainly (with g ≥ g_lo)."""
    return bool(t > (_CONTEXT.log(1 / _iv(pi)) / _iv(g_lo)).b)


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
                return fail("002.lemB4.bound", instance,
                            f"node {i}, quilt {cq.label()}: exact e = {float(lo):.12g} > "
                            f"bound {float(bound[1]):.12g}", chain_model(chains))
            if not hi <= bound[0]:
                return fail("002.lemB4.bound", instance,
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


LEMMA_B5_FACTOR = 1
"""Lemma B.5's bound is 1·e^{−tg}/π_min (the constant a mutant changes)."""


def _check_lemma_b5(instance: Instance) -> ClaimOutcome:
    c = instance.params["chain"]
    pi = c.stationary()
    pmin = min(pi)
    g_lo, g_hi = eigengap_interval(c)
    for t in range(0, 25):
        Pt = c.power(t)
        rhs_small = _CONTEXT.exp(-_iv(g_hi) * t) / _iv(pmin) * _iv(Fraction(LEMMA_B5_FACTOR))
        rhs_large = _CONTEXT.exp(-_iv(g_lo) * t) / _iv(pmin) * _iv(Fraction(LEMMA_B5_FACTOR))
        for x in range(c.k):
            for y in range(c.k):
                lhs = abs(Pt[x][y] / pi[y] - 1)
                if _iv(lhs).a > rhs_large.b:
                    return fail("002.lemB5.mixing", instance,
                                f"t={t}, x={x}, y={y}: |P^t/π − 1| = {float(lhs):.6g} > "
                                f"e^(-tg)/π_min = {float(rhs_large.b):.6g}",
                                chain_model((c,)))
                if not _iv(lhs).b <= rhs_small.a:
                    return fail("002.lemB5.mixing", instance, f"t={t}: undecided", None)
    return ClaimOutcome(True, "t = 0..24: every entry within the bound")


def _check_lemma_b67(which: str):
    def check(instance: Instance) -> ClaimOutcome:
        chains = instance.params["chains"]
        pi, g_lo, g_hi = _family_parameters(chains)
        for c in chains:
            if c.initial is None:
                continue
            for t in range(1, 16):
                if not _threshold_ok(t, pi, g_lo):
                    continue
                d_large = _CONTEXT.exp(-_iv(g_lo) * t) / _iv(pi)
                d_small = _CONTEXT.exp(-_iv(g_hi) * t) / _iv(pi)
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
                    return fail(f"002.lem{which}", instance,
                                f"t={t}: ratio {float(worst):.8g} > bound {float(bound_hi.b):.8g}",
                                chain_model(chains))
                if not _iv(worst).b <= bound_lo.a:
                    return fail(f"002.lem{which}", instance, f"t={t}: undecided", None)
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
        return fail("002.claimB10.fast_le_basic", instance,
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
            return fail("002.claimB11.fast_private", instance,
                        f"node {c.node} needs σ ≥ {c.score.lower:.12g} > fast σ "
                        f"{fast.sigma[1]:.12g}", None)
    return ClaimOutcome(True, f"σ_fast = {fast.sigma[1]:.10g} covers all {p['T']} nodes")


def _exact_fast_instances() -> Iterator[Instance]:
    for T in (5, 11, 15, 27):
        for label, chain in binary_chains(T):
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
        return fail("002.claimB11.exact_influence", instance,
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
        return fail("002.alg4.literal_finite", instance,
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


def thm44_a(pi: Fraction, g: Fraction, eps: Fraction) -> int:
    """``a = ⌈log((e^{ε/6}+1)/(e^{ε/6}−1) / π_Θ) / g_Θ⌉`` (certified ceiling: the precision
    doubles until both ends of the enclosure have the same ceiling)."""
    bits = _BITS
    while True:
        context = interval_context(bits)
        e6 = context.exp(rational_interval(context, eps) / 6)
        v = context.log((e6 + 1) / (e6 - 1) / rational_interval(context, pi)) / rational_interval(context, g)
        low, high = endpoints(v)
        if math.ceil(low) == math.ceil(high):
            return math.ceil(low)
        bits *= 2


def _check_thm44(instance: Instance) -> ClaimOutcome:
    chains, eps_text = instance.params["chains"], instance.params["eps"]
    eps = Fraction(eps_text)
    pi, g = chain_family_parameters(ChainFamily(chains))
    a = thm44_a(pi, g, eps)
    t_min = 2 * a + 3
    bound = Fraction(2 * (2 * a - 1)) / eps          # (2a − 1)/(ε/2), exact
    for T in (t_min, t_min + 1, 2 * t_min, 4 * t_min):
        for method, result in (("approx", mqm_chain_approx(T, eps_text, pi, g)),
                               ("approx-fast", mqm_chain_approx(T, eps_text, pi, g, fast=True)),
                               ("exact", mqm_chain_exact(ChainFamily(tuple(
                                   c.with_initial(c.initial, c.name) for c in
                                   (MarkovChain(c.states, c.matrix, T, c.initial, c.name)
                                    for c in chains))), eps_text))):
            if Fraction(result.sigma[0]) > bound:        # certified lower end of σ_max, exactly
                return fail("002.thm4.4.utility", instance,
                            f"T={T}, {method}: σ_max ≥ {result.sigma[0]:.10g} > (2a−1)/(ε/2) = "
                            f"{float(bound):.10g} (a = {a})", None)
    return ClaimOutcome(True, f"a = {a}: σ_max ≤ {float(bound):.6g} for T = {t_min}..{4 * t_min}")


# ------------------------------------------------------------------------------------------------
# Appendix B.10
# ------------------------------------------------------------------------------------------------

def _gamma_instances() -> Iterator[Instance]:
    for p0, p1 in BINARY_GRID + [("1/2", "9/10"), ("9/10", "1/2"), ("2/5", "2/5")]:
        yield Instance(f"p0={p0}, p1={p1}", {"p0": Fraction(p0), "p1": Fraction(p1)})


def gamma_ratio_by_definition(p0: Fraction, p1: Fraction, length: int = 5) -> Fraction:
    """``exp(2γ)`` from B.10's definition, by brute force over the joint law of a binary chain.

    ``γ_ij = max ½ log P(X_i ∈ S | x_{−i}) / P(X_i ∈ S | x'_{−i})`` over events ``S`` and
    ``x_{−i}, x'_{−i}`` differing only at ``X_j``; here over every interior node ``i`` of a chain of
    ``length`` nodes (uniform start), ``j = i ± 1``, both values of every other node and ``S = {0}``,
    ``{1}`` (``S = {0, 1}`` gives 1).  The conditionals are ratios of joint probabilities
    ``P(x) = π(x_1) Π P(x_t, x_{t+1})`` summed over ``x_i`` — nothing assumes the Markov
    blanket, which :func:`pufferfish.verify.quilts.gk16.gk16_gamma_ratio` uses.  Pairs with a zero
    conditional are skipped (the ratio is then undefined or infinite on an impossible context).
    Cost: ``O(4^length)``.

    >>> gamma_ratio_by_definition(Fraction(1, 2), Fraction(1, 2))
    Fraction(1, 1)
    """
    P = ((p0, 1 - p0), (1 - p1, p1))

    def joint(x: tuple) -> Fraction:
        value = Fraction(1, 2)
        for a, b in zip(x, x[1:]):
            value *= P[a][b]
        return value

    def conditional(s: int, i: int, rest: tuple) -> Fraction | None:
        weights = [joint(rest[:i] + (v,) + rest[i:]) for v in (0, 1)]
        total = weights[0] + weights[1]
        return weights[s] / total if total else None

    best = Fraction(1)
    for i in range(1, length - 1):
        for rest in product((0, 1), repeat=length - 1):
            for j in (i - 1, i):            # the positions of X_{i-1}, X_{i+1} in x_{-i}
                other = rest[:j] + (1 - rest[j],) + rest[j + 1:]
                for s in (0, 1):
                    num, den = conditional(s, i, rest), conditional(s, i, other)
                    if num and den:
                        best = max(best, num / den)
    return best


def _check_gamma(instance: Instance) -> ClaimOutcome:
    p0, p1 = instance.params["p0"], instance.params["p1"]
    definition = gamma_ratio_by_definition(p0, p1)
    library = gk16_gamma_ratio(p0, p1)
    printed = gk16_gamma_paper_ratio(p0, p1)
    chain = chain_model((MarkovChain.binary(p0, p1, 3, ["1/2", "1/2"]),))
    if library != definition:
        return fail("002.B10.gamma_formula", instance,
                    f"exp(2γ) by brute force over the joint law = {fraction_str(definition)} but "
                    f"the toolkit's Markov-blanket formula gives {fraction_str(library)}", chain)
    if definition != printed:
        return fail("002.B10.gamma_formula", instance,
                    f"exp(2γ) from the definition = {fraction_str(definition)} "
                    f"(γ ≈ {0.5 * math.log(definition):.6g}); the printed closed form gives "
                    f"{fraction_str(printed)} (γ ≈ {0.5 * math.log(printed):.6g})", chain)
    return ClaimOutcome(True, f"exp(2γ) = {fraction_str(definition)} (brute force = printed)")


# ------------------------------------------------------------------------------------------------
# Mutants
# ------------------------------------------------------------------------------------------------

_THIS = sys.modules[__name__]
_ORIGINAL = {"mqm_chain_approx": mqm_chain_approx, "mqm_chain_exact": mqm_chain_exact,
             "thm44_a": thm44_a}


def _scaled_fast(name: str, factor):
    """The fast variant's σ multiplied by ``factor`` (the basic variant unchanged)."""
    def run(*args, fast: bool = False, **kwargs):
        result = _ORIGINAL[name](*args, fast=fast, **kwargs)
        if not fast:
            return result
        return dataclasses.replace(result, sigma=tuple(x * factor for x in result.sigma))
    return run


def _first(generate, count: int = 1, keep=lambda instance: True):
    return lambda: [i for i in generate() if keep(i)][:count]


def _mutants() -> dict:
    approx = _first(_approx_instances, 40)
    return {
        "002.lemB4.bound": (patched("2·f(a) replaced by 0·f(a)", _check_lemma_b4,
                                    _first(_reversible_instances, 3), _THIS,
                                    LEMMA_B4_WEIGHTS=(1, 0)),),
        "002.lemB5.mixing": (patched("bound e^{−tg}/π_min halved", _check_lemma_b5,
                                     _first(_mixing_instances, 4), _THIS,
                                     LEMMA_B5_FACTOR=Fraction(1, 2)),),
        "002.lemB6": (patched("hypothesis t > log(1/π_Θ)/g_Θ dropped", _check_lemma_b67("B6"),
                              _first(_reversible_instances, 6), _THIS,
                              _threshold_ok=lambda t, pi, g: t >= 1),),
        "002.lemB7": (patched("hypothesis t > log(1/π_Θ)/g_Θ dropped", _check_lemma_b67("B7"),
                              _first(_reversible_instances, 6), _THIS,
                              _threshold_ok=lambda t, pi, g: t >= 1),),
        "002.claimB10.fast_le_basic": (patched("Algorithm 5's σ doubled", _check_b10,
                                               _first(_approx_instances, 3), _THIS,
                                               mqm_chain_approx=_scaled_fast("mqm_chain_approx",
                                                                             2)),),
        "002.claimB11.fast_private": (patched("Algorithm 5's σ halved", _check_b11, approx, _THIS,
                                              mqm_chain_approx=_scaled_fast("mqm_chain_approx",
                                                                            0.5)),),
        "002.claimB11.exact_influence": (patched(
            "Algorithm 5's σ halved", _check_b11_exact,
            _first(_exact_fast_instances, 1, lambda i: "T=5, p0=1/2, p1=1/2" in i.label), _THIS,
            mqm_chain_exact=_scaled_fast("mqm_chain_exact", 0.5)),),
        "002.alg4.literal_finite": (on("Algorithm 4 as printed (the claim is violated, so this only "
                                       "confirms the check can fail)", _check_alg4_literal,
                                       _first(_approx_instances, 1)),),
        "002.thm4.4.utility": (patched("a replaced by ⌈a/2⌉", _check_thm44,
                                       _first(_thm44_instances, 3), _THIS,
                                       thm44_a=lambda pi, g, eps: -(-_ORIGINAL["thm44_a"](pi, g, eps)
                                                                    // 2)),),
        "002.B10.gamma_formula": (on("the printed closed form (the claim is violated, so this "
                                     "only confirms the check can fail)", _check_gamma,
                                     _first(_gamma_instances, 1)),),
    }


def register_claims() -> None:
    """Register this module's claims (called once by :mod:`pufferfish.proofs_check.paper_002.quilts`)."""
    mutants = _mutants()
    claim("002.lemB4.bound", "Appendix B.5, Lemma B.4",
          "For reversible, irreducible, aperiodic chains and quilt distances a, b > log(1/π_Θ)/g_Θ: "
          "e({X_{i-a},X_{i+b}}|X_i) ≤ f(b) + 2f(a), e({X_{i-a}}) ≤ 2f(a), e({X_{i+b}}) ≤ f(b), "
          "f(t) = log((π_Θ + e^{-g_Θ t})/(π_Θ − e^{-g_Θ t})).",
          _reversible_instances, _check_lemma_b4, mutants=mutants["002.lemB4.bound"])
    claim("002.lemB5.mixing", "Appendix B.5, Lemma B.5",
          "|P^t(x,y)/π(y) − 1| ≤ exp(−t g*)/π_min for a reversible, irreducible, aperiodic chain.",
          _mixing_instances, _check_lemma_b5, mutants=mutants["002.lemB5.mixing"])
    claim("002.lemB6", "Appendix B.5, Lemma B.6",
          "For t > log(1/π_Θ)/g_Θ: P(X_{t+j}=y|X_j=x)/P(X_{t+j}=y|X_j=x') ≤ (1+Δ_t)/(1−Δ_t).",
          _reversible_instances, _check_lemma_b67("B6"), mutants=mutants["002.lemB6"])
    claim("002.lemB7", "Appendix B.5, Lemma B.7",
          "For t > log(1/π_Θ)/g_Θ: P(X_j=y|X_{j+t}=x)/P(X_j=y|X_{j+t}=x') ≤ ((1+Δ_t)/(1−Δ_t))².",
          _reversible_instances, _check_lemma_b67("B7"), mutants=mutants["002.lemB7"])
    claim("002.claimB10.fast_le_basic", "Appendix B.8.2, Claim B.10",
          "The noise of FastMarkovQuiltMechanism (Algorithm 5) is at most that of "
          "BasicMarkovQuiltMechanism (Algorithm 3).",
          _approx_instances, _check_b10, mutants=mutants["002.claimB10.fast_le_basic"])
    claim("002.claimB11.fast_private", "Appendix B.8.2, Claim B.11",
          "If Algorithm 5's best quilt {X_{i-a}, X_{i+b}} is interior, its σ covers every node "
          "(σ_fast ≥ σ_j for all j), so Algorithm 5 is ε-Pufferfish.",
          _approx_instances, _check_b11, mutants=mutants["002.claimB11.fast_private"])
    claim("002.claimB11.exact_influence", "Appendix B.8.2, Claim B.11 with exact max-influence",
          "Observation beyond the paper: Claim B.11's argument (the shifted quilt has the same score) "
          "also holds when FindBestMarkovQuilt uses the exact max-influence of a chain with a given "
          "initial distribution.", _exact_fast_instances, _check_b11_exact, observation=True, mutants=mutants["002.claimB11.exact_influence"])
    claim("002.alg4.literal_finite", "Appendix B.8.1, Algorithm 4 (as printed)",
          "Algorithm 4 as printed — σ_i initialised to ∞, the loop over (a, b) with "
          "a, b ≥ log(1/π_Θ)/g_Θ where a = i, b = T+1−i encode a missing side — gives every node a "
          "finite σ_i.", _approx_instances, _check_alg4_literal, mutants=mutants["002.alg4.literal_finite"])
    claim("002.thm4.4.utility", "§4.1, Theorem 4.4; Appendix B.6.1, Lemma B.8",
          "If T ≥ 2⌈log((e^{ε/6}+1)/(e^{ε/6}−1)/π_Θ)/g_Θ⌉ + 3 the Markov Quilt Mechanism's scale is "
          "at most (2a−1)/(ε/2) ≤ 4a/ε with a that ceiling, independent of T.",
          _thm44_instances, _check_thm44, mutants=mutants["002.thm4.4.utility"])
    claim("002.B10.gamma_formula", "Appendix B.10",
          "For a binary chain, the multiplicative influence γ of [11] between neighbours equals the "
          "closed form printed in Appendix B.10.", _gamma_instances, _check_gamma, mutants=mutants["002.B10.gamma_formula"])


__all__ = ["thm44_a", "gamma_ratio_by_definition", "register_claims"]
