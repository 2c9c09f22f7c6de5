"""Claim ``002.B2.vector_laplace`` of Wang et al., Privacy-Preserving Analysis of Correlated Data,
Appendix B.2 (vector-valued F): "if F is 1-Lipschitz with respect to the L1 norm, then from
Proposition 1 of [7], adding noise σ_max·Lap(1) to each output dimension of F guarantees
ε-Pufferfish privacy".

What the Markov Quilt Mechanism's proof (Theorem 4.3) needs from the noise is one inequality: for
datasets x, x' that differ only in the nearby set X_N, the density ratio of the released value is
at most ``e^{card(X_N)/σ}``.  For a vector F with independent ``σ·Lap(1)`` coordinates the log
ratio at an output w is ``(‖w − F(x')‖₁ − ‖w − F(x)‖₁)/σ``, a ratio of exponentials whose supremum
over w is ``‖F(x) − F(x')‖₁/σ`` (Proposition 1 of [7]); with F 1-Lipschitz in L1 this is at most
``d_H(x, x')/σ``, the bound of the scalar case.  The check computes the supremum from the density
ratio itself — the log ratio is separable in the coordinates and each term
``|w_i − c_i| − |w_i − a_i|`` is piecewise linear with constant tails, so its maximum is at a
breakpoint ``w_i ∈ {a_i, c_i}`` — and compares it with ``d_H(x, x')/σ`` for every pair of
datasets, exactly.  F is the histogram of B.12, ``2/T``-Lipschitz in L1, scaled by ``T/2`` to be
1-Lipschitz as B.2 prescribes; its Lipschitz constant is checked on the same pairs.

Instances: every sequence in ``[k]^T`` for ``(k, T) ∈ {(2, 2), (2, 3), (3, 2), (3, 3), (2, 4)}``
and ``σ ∈ {1/2, 1, 3}``.  Cost ``O(k^{2T} · k)`` exact operations per instance.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from itertools import product

from pufferfish.bibliography import cite
from pufferfish.models.numbers import fraction_str
from pufferfish.proofs_check.paper_002.quilt_instances import PAPER
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register

Q = Fraction


def scaled_histogram(sequence: tuple[int, ...], k: int, scale: Fraction) -> tuple[Fraction, ...]:
    """``scale · (f_1, ..., f_k)`` with ``f_a`` the frequency of state a in the sequence."""
    return tuple(scale * Q(sequence.count(a), len(sequence)) for a in range(k))


def laplace_vector_level(a: tuple[Fraction, ...], c: tuple[Fraction, ...],
                         sigma: Fraction) -> Fraction:
    """``sup_w (‖w − c‖₁ − ‖w − a‖₁)/σ``: the log of the largest density ratio of
    ``a + σ·Lap(1)^k`` over ``c + σ·Lap(1)^k``, maximised coordinate by coordinate over the
    breakpoints (exact)."""
    total = Q(0)
    for ai, ci in zip(a, c):
        total += max(abs(w - ci) - abs(w - ai) for w in (ai, ci))
    return total / sigma


def vector_instances() -> Iterator[Instance]:
    for k, length in ((2, 2), (2, 3), (3, 2), (3, 3), (2, 4)):
        for sigma in (Q(1, 2), Q(1), Q(3)):
            yield Instance(f"k = {k} states, T = {length}, σ = {fraction_str(sigma)}",
                           {"k": k, "T": length, "sigma": sigma})


def vector_check(scale_of=lambda length: Q(length, 2), bound=None):
    """For every pair of sequences: the level of the vector Laplace release of
    ``scale_of(T)·histogram`` is at most ``d_H/σ`` (``bound(a, c, d_H, σ)`` replaces the bound in
    a mutant); reports whether the bound is attained."""
    def check(instance: Instance) -> ClaimOutcome:
        k, length, sigma = instance.params["k"], instance.params["T"], instance.params["sigma"]
        sequences = list(product(range(k), repeat=length))
        values = {x: scaled_histogram(x, k, scale_of(length)) for x in sequences}
        attained = 0
        for x in sequences:
            for y in sequences:
                distance = sum(u != v for u, v in zip(x, y))
                level = laplace_vector_level(values[x], values[y], sigma)
                limit = (bound(values[x], values[y], distance, sigma) if bound
                         else Q(distance) / sigma)
                if level > limit:
                    detail = (f"x = {x}, x' = {y} (d_H = {distance}): the vector Laplace level "
                              f"{fraction_str(level)} exceeds {fraction_str(limit)}")
                    return ClaimOutcome(False, detail, {
                        "description": f"counterexample to 002.B2.vector_laplace ({cite(PAPER)}): "
                                       f"{instance.label}: {detail}",
                        "x": list(x), "x_prime": list(y), "sigma": fraction_str(sigma)})
                attained += distance > 0 and level == limit
        return ClaimOutcome(True, f"level ‖F(x) − F(x')‖₁/σ <= d_H(x, x')/σ on all "
                                  f"{len(sequences) ** 2} pairs; attained on {attained}")
    return check


register(Claim(
    "002.B2.vector_laplace", PAPER, "Appendix B.2 (Proposition 1 of [7] as used)",
    "σ·Lap(1) added to each coordinate of an L1 1-Lipschitz F (the histogram scaled by T/2) "
    "has density ratio at most e^{d_H(x, x')/σ} between any two datasets — the bound the "
    "Markov Quilt Mechanism's proof uses in the scalar case (supremum over outputs computed "
    "exactly from the density ratio)",
    vector_instances, vector_check(), False,
    (Mutant.checking("the histogram read as 1/T-Lipschitz (scaled by T instead of T/2)",
                     vector_check(scale_of=lambda length: Q(length)), vector_instances),
     Mutant.checking("the bound read coordinate-wise: max_i |F_i(x) − F_i(x')|/σ",
                     vector_check(bound=lambda a, c, d, s: max(abs(u - v) for u, v in zip(a, c))
                                  / s), vector_instances))))
