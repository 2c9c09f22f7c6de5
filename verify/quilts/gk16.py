"""The inferential-privacy baseline of Wang et al., Privacy-Preserving Analysis of Correlated Data,
Appendix B.10 (reference [11]).

For a binary chain, the multiplicative influence ``γ`` of one node on a neighbour, the matrix Γ
(tridiagonal, ``γ`` off the diagonal), its spectral-norm condition ``‖Γ‖₂ < 1`` (certified) and
the resulting Laplace noise ``1/ε'`` (numerical, labelled so).

>>> gk16_gamma_ratio(Fraction(1, 2), Fraction(1, 2))
Fraction(1, 1)
>>> gk16_noise(Fraction(9, 4), 10, "1").applies
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from itertools import product as cartesian

import numpy as np

from pufferfish.models.numbers import fraction_str
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import interval_context, log_interval, round_out
from pufferfish.verify.quilts.scores import SCORE_BITS, as_budget, eps_float
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class GK16Result(Explained):
    """Appendix B.10: γ (exact ratio), the spectral-norm condition (certified) and the noise."""

    gamma_ratio: Fraction          # γ = ½ log(gamma_ratio)
    length: int
    spectral_norm: tuple[float, float]
    applies: bool
    noise_scale: float | None      # numerical
    budget: Budget

    def to_dict(self) -> dict:
        return {"gamma": f"1/2 * log({fraction_str(self.gamma_ratio)})",
                "gamma_float": 0.5 * math.log(float(self.gamma_ratio)),
                "spectral_norm": list(self.spectral_norm), "applies": self.applies,
                "noise_scale": self.noise_scale, "noise_scale_is": "numerical (numpy inverse)",
                "length": self.length, "epsilon": self.budget.text}

    def explain(self) -> str:
        if not self.applies:
            return (f"inferential privacy [11]: ‖Γ‖₂ ∈ [{self.spectral_norm[0]:.6g}, "
                    f"{self.spectral_norm[1]:.6g}] is not < 1; no guarantee")
        return (f"inferential privacy [11]: ‖Γ‖₂ ≈ {self.spectral_norm[1]:.6g} < 1; noise "
                f"Lap({self.noise_scale:.6g}) (numerical)")


def gk16_gamma_ratio(p0: Fraction, p1: Fraction) -> Fraction:
    """``exp(2γ)`` for an interior node of the binary chain, from the definition in B.10.

    ``γ_ij = max ½ log P(X_i∈S | x_{−i}) / P(X_i∈S | x'_{−i})`` over ``S`` and ``x_{−i} ∼_j x'_{−i}``;
    for a chain, ``P(X_i | X_{−i})`` depends on the two neighbours only:
    ``P(X_i = s | u, v) ∝ P(u, s) P(s, v)``.  ``S = {0}`` or ``{1}`` (``S = {0, 1}`` gives 1).
    Needs ``0 < p0, p1 < 1``.
    """
    P = ((p0, 1 - p0), (1 - p1, p1))

    def cond(s: int, u: int, v: int) -> Fraction:
        w = [P[u][t] * P[t][v] for t in (0, 1)]
        return w[s] / (w[0] + w[1])

    best = Fraction(1)
    for s, u, v, v2 in cartesian((0, 1), repeat=4):
        for num, den in ((cond(s, u, v), cond(s, u, v2)), (cond(s, v, u), cond(s, v2, u))):
            if num and den:
                best = max(best, num / den)
    return best


def gk16_gamma_paper_ratio(p0: Fraction, p1: Fraction) -> Fraction:
    """``exp(2γ)`` from the closed form printed in Appendix B.10 (as rendered in our copy):
    ``γ = ½ max{±log t}`` over its four rational terms ``t``, i.e. ``exp(2γ) = max max(t, 1/t)``.
    Compared with the definition by the claim ``002.B10.gamma_formula``."""
    c1 = ((1 - p0) ** 2 + (1 - p1) * p0) / ((1 - p1) * (1 - p0) + p1 * (1 - p1))
    c2 = (p0 * (1 - p0) + p0 * p1) / ((1 - p1) * p0 + p1 ** 2)
    terms = [(1 - p1) / (1 - p0) * c1, p1 / p0 * c1, (1 - p1) / (1 - p0) * c2, p1 / p0 * c2]
    return max(max(t, 1 / t) for t in terms)


def gk16_noise(gamma_ratio: Fraction, length: int, epsilon: Budget | str) -> GK16Result:
    """The inferential-privacy noise of Appendix B.10 for a binary chain of ``length`` nodes.

    Γ is tridiagonal with ``γ`` off the diagonal, so ``‖Γ‖₂ = 2γ cos(π/(T+1))`` (eigenvalues of a
    tridiagonal Toeplitz matrix), certified with interval arithmetic; the condition applies only
    when the enclosure is below 1.  If ``‖Γ‖₂ < 1``: ``Φ = (I − Γ)^{-1}`` (its row sums by a banded
    solve, numerical, ``O(T)``), ``ε' = ε / (2 max_i Σ_j φ_ij)``, noise ``Lap(1/ε')``.
    """
    budget = as_budget(epsilon)
    context = interval_context(SCORE_BITS)
    gamma = log_interval(context, gamma_ratio) / 2
    norm = 2 * gamma * context.cos(context.pi / (length + 1)) if length > 1 else context.mpf(0)
    lo, hi = round_out(norm)
    applies = bool(norm.b < 1)
    scale = None
    if applies:
        from scipy.linalg import solve_banded
        g = 0.5 * math.log(float(gamma_ratio))
        # row sums of Φ = (I − Γ)^{-1} solve (I − Γ) r = 1 (Γ symmetric tridiagonal): O(T)
        bands = np.zeros((3, length))
        bands[0, 1:] = -g
        bands[1, :] = 1.0
        bands[2, :-1] = -g
        rows = solve_banded((1, 1), bands, np.ones(length))
        eps_prime = eps_float(budget) / (2 * rows.max())
        scale = 1 / eps_prime
    return GK16Result(gamma_ratio, length, (lo, hi), applies, scale, budget)


__all__ = ["GK16Result", "gk16_gamma_ratio", "gk16_gamma_paper_ratio", "gk16_noise"]
