"""The Markov Quilt Mechanism for the state histogram of a chain (Wang et al., Privacy-Preserving
Analysis of Correlated Data, Appendix B.2, Theorem B.9, Appendix B.12).

The histogram density ``F(D) = (f_1, ..., f_k)`` is ``2/T``-Lipschitz in ``L₁``; the release adds
``Lap(2σ_max/T)`` to each coordinate, with ``σ_max`` from the chain search
(:mod:`pufferfish.verify.quilts.chain_search`).  Expected errors are exact rationals.

>>> state_histogram([0, 1, 1, 2], (0, 1, 2))
(Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pufferfish.models.chain_family import ChainFamily, chain_family_parameters
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.quilts.chain_search import mqm_chain_approx, mqm_chain_exact
from pufferfish.verify.quilts.scores import MQMResult, as_budget
from pufferfish.verify.report import Explained


def state_histogram(data: Sequence[object], states: Sequence[object]) -> tuple[Fraction, ...]:
    """The histogram density estimator ``F(D) = (f_1, ..., f_k)``, ``f_j = #{t : X_t = s_j}/T``.

    Wang et al., Privacy-Preserving Analysis of Correlated Data, Appendix B.12 (the function ``F``
    of Figure 4) and Theorem B.9. Exact; ``O(T + k)``.  Changing one entry moves two coordinates by
    ``1/T`` each, so ``‖F(D) − F(D')‖₁ ≤ 2/T`` (proof of Theorem B.9).

    >>> state_histogram([0, 1, 1, 2], (0, 1, 2))
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    """
    index = {s: j for j, s in enumerate(states)}
    counts = [0] * len(index)
    for t, x in enumerate(data):
        if x not in index:
            raise ModelError(f"value {x!r} is not a state of the chain {tuple(states)!r}",
                             f"data.{t}")
        counts[index[x]] += 1
    if not data:
        raise ModelError("the data set is empty", "data")
    return tuple(Fraction(c, len(data)) for c in counts)


def harmonic_number(k: int) -> Fraction:
    """``H_k = 1 + 1/2 + ... + 1/k`` exactly."""
    return sum((Fraction(1, j) for j in range(1, k + 1)), Fraction(0))


def expected_max_abs_laplace(k: int, scale: Fraction) -> Fraction:
    """``E max_{j≤k} |Z_j|`` for i.i.d. ``Z_j ~ Lap(scale)``, exactly: ``scale · H_k``.

    ``|Z_j|`` is exponential with mean ``scale``; by Rényi's representation the maximum of ``k``
    i.i.d. exponentials is ``Σ_{j=1}^k E_j/j`` with independent exponentials ``E_j``, whose mean
    is ``scale · Σ 1/j``.  This is ``E‖M(D) − F(D)‖∞`` of the histogram release
    (Theorem B.9 of Wang et al., Privacy-Preserving Analysis of Correlated Data).

    >>> expected_max_abs_laplace(2, Fraction(1))
    Fraction(3, 2)
    """
    if k < 1:
        raise ModelError("need at least one coordinate", "k")
    return Fraction(scale) * harmonic_number(k)


@dataclass(repr=False, frozen=True)
class HistogramMechanism(Explained):
    """The Markov Quilt Mechanism for the state histogram of a chain (Appendix B.2, B.12).

    The histogram density ``F`` is ``2/T``-Lipschitz in ``L₁``; ``F' = (T/2)·F`` is 1-Lipschitz,
    so (Appendix B.2, Proposition 1 of [7]) ``F'(D) + σ_max·Lap(1)^k`` is ε-Pufferfish and so is
    its post-processing ``M(D) = F(D) + (2σ_max/T)·Lap(1)^k``.  The per-coordinate Laplace scale
    is therefore ``b = 2σ_max/T``; the mechanism uses ``σ = sigma_upper`` of :attr:`mqm` (a float,
    so ``b`` is an exact dyadic rational).  ``E‖M(D) − F(D)‖∞ = H_k·b`` and
    ``E‖M(D) − F(D)‖₁ = k·b`` exactly.
    """

    mqm: MQMResult
    length: int
    states: tuple

    @property
    def k(self) -> int:
        return len(self.states)

    @property
    def holds(self) -> bool:
        """True when σ_max is finite (some quilt has finite score for every node)."""
        return self.mqm.holds

    @property
    def scale(self) -> Fraction:
        """The per-coordinate scale ``b = 2·σ_upper/T`` the mechanism uses (exact)."""
        if not self.holds:
            raise UnsupportedError("σ_max is infinite: no finite noise scale", "--epsilon")
        return 2 * Fraction(self.mqm.sigma[1]) / self.length

    @property
    def scale_interval(self) -> tuple[Fraction, Fraction]:
        """``[2σ_lower/T, 2σ_upper/T]``: the certified enclosure of ``2σ_max/T``."""
        return 2 * Fraction(self.mqm.sigma[0]) / self.length, self.scale

    @property
    def expected_linf_error(self) -> Fraction:
        """``E‖M(D) − F(D)‖∞ = H_k · b`` (exact; Theorem B.9's left-hand side)."""
        return expected_max_abs_laplace(self.k, self.scale)

    @property
    def expected_l1_error(self) -> Fraction:
        """``E‖M(D) − F(D)‖₁ = k · b`` (exact; the utility measure of Figure 4)."""
        return self.k * self.scale

    def release(self, data: Sequence[object], rng: np.random.Generator) -> tuple[float, ...]:
        """One draw of ``M(D)`` (numerical: float Laplace samples from ``rng``)."""
        f = state_histogram(data, self.states)
        noise = rng.laplace(0.0, float(self.scale), size=self.k)
        return tuple(float(x) + float(z) for x, z in zip(f, noise))

    def to_dict(self) -> dict:
        lo, hi = self.scale_interval
        return {"query": "state histogram (density), 2/T-Lipschitz in L1", "length": self.length,
                "states": list(self.states), "sigma_max": self.mqm.to_dict()["sigma_max"],
                "scale": fraction_str(hi), "scale_float": float(hi),
                "scale_interval": [fraction_str(lo), fraction_str(hi)],
                "expected_linf_error": fraction_str(self.expected_linf_error),
                "expected_linf_error_float": float(self.expected_linf_error),
                "expected_l1_error": fraction_str(self.expected_l1_error),
                "expected_l1_error_float": float(self.expected_l1_error),
                "mqm": self.mqm.to_dict()}

    def explain(self) -> str:
        if not self.holds:
            return "histogram MQM: σ_max is infinite"
        return (f"histogram MQM ({self.mqm.method}), T = {self.length}, k = {self.k}, "
                f"ε = {self.mqm.budget.text}: σ_max ≤ {self.mqm.sigma[1]:.10g}; release "
                f"F(D) + Lap({float(self.scale):.6g}) per coordinate (b = 2σ_max/T); "
                f"E‖M−F‖∞ = H_k·b = {float(self.expected_linf_error):.6g}, "
                f"E‖M−F‖₁ = k·b = {float(self.expected_l1_error):.6g}")


HISTOGRAM_METHODS = ("approx", "fast", "exact")
"""How σ_max is computed for the histogram: Lemma B.4's bounds (Algorithms 3–4), Algorithm 5
with the bounds, or the exact max-influence (MQMExact)."""


def histogram_mechanism(length: int, epsilon: Budget | str, *, states: Sequence[object] | None = None,
                        pi: object | None = None, g: object | None = None,
                        family: ChainFamily | None = None,
                        method: str = "approx") -> HistogramMechanism:
    """The MQM histogram release of Wang et al., Privacy-Preserving Analysis of Correlated Data,
    Appendix B.2 / B.12.

    ``method="approx"`` (MQMApprox, Algorithms 3–4) or ``"fast"`` (Algorithm 5) use Lemma B.4's
    bounds from ``pi`` = π_Θ and ``g`` = g_Θ (rationals; a lower bound on either is also valid);
    ``"exact"`` (MQMExact, Algorithm 3) uses the exact max-influence of ``family`` (its length
    must be ``length``).  Cost: that of the σ_max computation (see :func:`mqm_chain_approx`,
    :func:`mqm_chain_exact`).

    Example (k = 5 states, π_Θ = 1/20, g_Θ = 1/10, ε = 1, T = 1000): ``σ_max ≈ 154.5`` and the
    per-coordinate scale ``b = 2σ_max/T ≈ 0.309``.
    """
    if method not in HISTOGRAM_METHODS:
        raise ModelError(f"unknown method {method!r}; use one of {HISTOGRAM_METHODS}", "--method")
    if not isinstance(length, int) or length < 1:
        raise ModelError("the chain length T must be a positive integer", "--length")
    budget = as_budget(epsilon)
    if method == "exact":
        if family is None:
            raise ModelError("method 'exact' needs a chain family", "--method")
        if family.length != length:
            raise ModelError(f"the family has length {family.length}, not {length}", "--length")
        result = mqm_chain_exact(family, budget)
        chain_states = family.members[0].states
    else:
        if pi is None or g is None:
            if family is None:
                raise ModelError("methods 'approx' and 'fast' need π_Θ and g_Θ (or a family)",
                                 "--pi")
            pi, g = chain_family_parameters(family)
        result = mqm_chain_approx(length, budget, exact(pi, "--pi"), exact(g, "--g"),
                                  fast=method == "fast")
        chain_states = family.members[0].states if family is not None else None
    if states is None:
        if chain_states is None:
            raise ModelError("give the states (or a family) for the histogram", "--states")
        states = chain_states
    states = tuple(states)
    if len(states) < 1 or len(set(states)) != len(states):
        raise ModelError("the states must be distinct and non-empty", "--states")
    return HistogramMechanism(result, length, states)



__all__ = ["state_histogram", "harmonic_number", "expected_max_abs_laplace", "HistogramMechanism",
           "histogram_mechanism", "HISTOGRAM_METHODS"]
