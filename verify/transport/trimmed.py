"""The trimmed ``W_∞`` of the (ε, δ) Wasserstein mechanism (Wang et al., Privacy-Preserving Analysis
of Correlated Data, Appendix A.4, step 3; Theorem A.8), for discrete distributions.

The paper's distance is ``inf_{T_i, T_j} W_∞(ν_i, ν_j)`` where ``ν = μ`` conditioned off a set
``T`` of mass δ.  The paper assumes a continuous cdf so that such sets exist; for atoms this
module trims a **sub-measure** τ ≤ μ of mass exactly δ, possibly a fraction of an atom (the proof
of Theorem A.8 only uses ``∫ P(Z ∈ S − t) dτ ≤ δ``, so it carries over verbatim).  Then
``W_∞(ν_i, ν_j) <= d`` for ``ν = (μ − τ)/(1 − δ)`` iff a partial coupling of μ_i and μ_j of mass
``1 − δ`` moves no mass farther than ``d``.  The largest partial coupling within distance ``d`` is
:func:`pufferfish.verify.transport.couplings.greedy_partial_coupling`, and the least feasible
``d`` among the candidates ``|a − b|`` is found by bisection.  The flow is scaled by
``(1 − δ)/flow`` so exactly ``1 − δ`` is kept; what is trimmed is ``τ = μ − (kept marginal)``.

Cost ``O((m + n) log(mn))`` per candidate, ``O(log(mn))`` candidates, for supports of sizes
``m, n`` (plus ``O(mn log(mn))`` to sort the candidates).

>>> result = trimmed_w_infinity({0: "1/2", 1: "1/6", 2: "1/6", 3: "1/6"},
...                             {1: "1/4", 2: "1/4", 3: "1/4", 4: "1/4"}, Fraction(1, 4))
>>> result.value, result.verify()
(Fraction(1, 1), True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.verify.transport.couplings import (Atoms, Coupling, atoms, atoms_text,
                                                   coupling_text, greedy_partial_coupling,
                                                   marginal, verify_coupling)
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class TrimmedWInfinity(Explained):
    """``inf_{τ_1, τ_2} W_∞((μ_1 − τ_1)/(1−δ), (μ_2 − τ_2)/(1−δ))`` over trims of mass δ."""

    value: Fraction
    delta: Fraction
    partial_coupling: Coupling
    trimmed_first: Atoms
    trimmed_second: Atoms
    first: Atoms
    second: Atoms

    def verify(self) -> bool:
        """Exactly: the partial coupling has mass ``1 − δ``, marginals ``<=`` μ, displacement
        ``value``; the trims are ``μ − marginal`` with mass δ; and no smaller candidate distance
        admits a partial coupling of mass ``1 − δ`` (re-checked by the greedy optimum)."""
        kept = 1 - self.delta
        if not verify_coupling(self.partial_coupling, self.first, self.second, self.value, kept) \
                and not (kept == 0 and not self.partial_coupling):
            return False
        for measure, trimmed, index in ((self.first, self.trimmed_first, 0),
                                        (self.second, self.trimmed_second, 1)):
            moved = marginal(self.partial_coupling, index)
            expected = {v: p - moved.get(v, 0) for v, p in measure if p - moved.get(v, 0)}
            if dict(trimmed) != expected or sum(expected.values(), Fraction(0)) != self.delta:
                return False
        smaller = [d for d in _candidates(self.first, self.second) if d < self.value]
        return not smaller or _flow_mass(self.first, self.second, max(smaller)) < kept

    def kept(self, index: int) -> Atoms:
        """The normalized kept distribution ν_i (``index`` 0 or 1)."""
        moved = marginal(self.partial_coupling, index)
        return tuple(sorted((v, m / (1 - self.delta)) for v, m in moved.items()))

    def to_dict(self) -> dict:
        return {"w_infinity_trimmed": fraction_str(self.value), "delta": fraction_str(self.delta),
                "partial_coupling": coupling_text(self.partial_coupling),
                "trimmed_first": atoms_text(self.trimmed_first),
                "trimmed_second": atoms_text(self.trimmed_second),
                "certificate_verified": self.verify()}

    def explain(self) -> str:
        return (f"after trimming mass {fraction_str(self.delta)} from each side, W∞ = "
                f"{fraction_str(self.value)}")


def trimmed_mass(delta: object) -> Fraction:
    """δ as an exact number in ``[0, 1)`` (:class:`ModelError` at ``--delta`` otherwise)."""
    value = exact(delta, "--delta")
    if not 0 <= value < 1:
        raise ModelError(f"δ must be in [0, 1), got {fraction_str(value)}", "--delta")
    return value


def _candidates(first: Atoms, second: Atoms) -> list[Fraction]:
    return sorted({abs(a - b) for a, _ in first for b, _ in second})


def _flow_mass(first: Atoms, second: Atoms, distance: Fraction) -> Fraction:
    return sum((m for _, _, m in greedy_partial_coupling(first, second, distance)), Fraction(0))


def trimmed_w_infinity(first: Mapping, second: Mapping, delta: Fraction) -> TrimmedWInfinity:
    """The (ε, δ) variant's distance for discrete distributions (Appendix A.4; module docstring)."""
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    delta = trimmed_mass(delta)
    kept = 1 - delta
    candidates = _candidates(p1, p2)
    low, high = 0, len(candidates) - 1             # the largest candidate always couples fully
    while low < high:
        middle = (low + high) // 2
        if _flow_mass(p1, p2, candidates[middle]) >= kept:
            high = middle
        else:
            low = middle + 1
    value = candidates[low]
    flow = greedy_partial_coupling(p1, p2, value)
    total = sum((m for _, _, m in flow), Fraction(0))
    factor = kept / total
    coupling = tuple((a, b, m * factor) for a, b, m in flow if m * factor)
    value = max((abs(a - b) for a, b, _ in coupling), default=Fraction(0))
    trims = []
    for side, index in ((p1, 0), (p2, 1)):
        moved = marginal(coupling, index)
        trims.append(tuple((v, p - moved.get(v, 0)) for v, p in side if p - moved.get(v, 0)))
    return TrimmedWInfinity(value, delta, coupling, trims[0], trims[1], p1, p2)
