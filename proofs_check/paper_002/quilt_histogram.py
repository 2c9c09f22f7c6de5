"""Claims of Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix B.6.2, Theorem
B.9: consistency of the MQM histogram (Appendix B.2, B.12), and the last inequality of its proof.

====================================  =========================================================
``002.thmB9.consistency``             Theorem B.9: for T ≥ 2a + 3 the MQM histogram's scale is
                                      ≤ 2C/(εT) and E‖M − F‖∞ = H_k·scale ≤ 2H_k·C/(εT), C = 4a
``002.thmB9.proof_constant``          proof of Theorem B.9: E‖M − F‖∞ ≤ 2C/(εT) with the same C
====================================  =========================================================

What is checked and why it is the theorem is written out below.  The claims are registered by
:mod:`pufferfish.proofs_check.paper_002.quilts` (:func:`register_claims`), in the paper's order.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily, binary_box_parameters, chain_family_parameters
from pufferfish.proofs_check.paper_002.quilt_chain_bounds import thm44_a
from pufferfish.proofs_check.paper_002.quilt_instances import claim, fail
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import ClaimOutcome, Instance
from pufferfish.verify.quilts.histogram import harmonic_number, histogram_mechanism


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
#   (Rényi's representation, :func:`pufferfish.verify.quilts.histogram.expected_max_abs_laplace`).  A finite check cannot
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
    pi, g = binary_box_parameters(Fraction(1, 10), Fraction(9, 10))
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
    a = thm44_a(pi, g, eps)
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
    a = thm44_a(p["pi"], p["g"], eps)
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
            return fail("002.thmB9.consistency", instance,
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
        return fail("002.thmB9.proof_constant", instance,
                    f"T={T}, {method}: E‖M−F‖∞ = H_k·b with H_k = {h_k}, b = 2σ_max/T ≥ "
                    f"{float(b_lo):.10g}: E‖M−F‖∞ ≥ {float(h_k * b_lo):.10g} > 2C/(εT) = "
                    f"{float(bound):.10g} (C = 4a = {c_b8}); the scale itself is ≤ 2C/(εT), "
                    f"the expected maximum of k = {instance.params['k']} |Laplace| variables is "
                    f"H_k times the scale" + ("" if certain else " (undecided at this precision)"),
                    None)
    return ClaimOutcome(True, f"a = {a}: H_k·b ≤ 2C/(εT) at every T checked")


_THIS = sys.modules[__name__]
_ORIGINAL_CONSTANTS = _thmB9_constants


def _constant_a(instance: Instance) -> tuple[Fraction, int, int, Fraction]:
    """Mutant of Lemma B.8's constant: C = a instead of C = 4a."""
    eps, a, _, h_k = _ORIGINAL_CONSTANTS(instance)
    return eps, a, a, h_k


def _labelled(prefix: str, count: int):
    return lambda: [i for i in _thmB9_instances() if i.label.startswith(prefix)][:count]


def register_claims() -> None:
    """Register this module's claims (called once by :mod:`pufferfish.proofs_check.paper_002.quilts`)."""
    claim("002.thmB9.consistency", "Appendix B.6.2, Theorem B.9 (with Appendix B.2, Lemma B.8)",
              "If T ≥ 2⌈log((e^{ε/6}+1)/(e^{ε/6}−1)/π_Θ)/g_Θ⌉ + 3, the MQM histogram (per-coordinate "
              "Laplace scale 2σ_max/T) has scale ≤ 2C/(εT) and E‖M(D) − F(D)‖∞ ≤ C'/(εT) with constants "
              "independent of T (checked with Lemma B.8's C = 4a and C' = 2·H_k·C along T = T0·2^j).",
              _thmB9_instances, _check_thmB9,
              mutants=(patched("C = a instead of 4a", _check_thmB9, lambda: list(_thmB9_instances())[:2],
                               _THIS, _thmB9_constants=_constant_a),))
    claim("002.thmB9.proof_constant", "Appendix B.6.2, proof of Theorem B.9 (last inequality)",
              "With C the constant of Lemma B.8 (σ_max ≤ C/ε, C = 4a), the MQM histogram satisfies "
              "E‖M(D) − F(D)‖∞ ≤ 2C/(εT) for T ≥ 2a + 3.",
              _thmB9_instances, _check_thmB9_proof,
              mutants=(patched("C = a instead of 4a", _check_thmB9_proof,
                               _labelled("generated k=2 (π_gen=3/10, g_gen=1/2, seed 0): π_Θ=0.5", 2),
                               _THIS,
                               _thmB9_constants=_constant_a),))


__all__ = ["register_claims"]
