"""Pufferfish Laplace and exponential mechanisms (Algorithms 1–2) as samplers.

Source: Bai et al., Composition for Pufferfish Privacy, §6.4.1–6.4.2, Appendix B Algorithms 1–2, and
§7.1.3 (top-K by ``K`` rounds of the exponential mechanism at ``ε_DP/K`` each, without replacement,
the final order being the selection order).

Both mechanisms first translate the Pufferfish budget into a per-entry DP budget with
:func:`pufferfish.verify.influence.translation.epsilon_dp_for` (Theorem 6): by default the largest ε_DP any curve point
allows (``rule="theorem"``); ``rule="algorithm"`` reproduces the listing of Algorithms 1–2 (the
minimum over points, with ``ε_puffer/|I|`` for points with ``a >= ε_puffer``).  The exact ε_DP is
``(ε_puffer − a)/b``, usually irrational; the sampler uses an exact rational **at most** that value
(the certified lower bound, :meth:`~pufferfish.verify.influence.translation.LogValue.lower_fraction`), so the noise is
never smaller than the theorem requires.  Sampling itself uses floating point (numpy), as any
sampler does; it is not part of any verdict.  Each result reports the ε_DP used, the exact ε_DP and
the curve point that gave it.

>>> import numpy as np
>>> from fractions import Fraction
>>> from pufferfish.verify.influence.translation import CurvePoint, LogValue
>>> pts = [CurvePoint(1, LogValue.log(Fraction(3))), CurvePoint(3, LogValue.log(Fraction(1)))]
>>> out = pufferfish_laplace(10.0, 1, LogValue.rational(Fraction(2)), pts, entries=3,
...                          rng=np.random.default_rng(0))
>>> out.choice.point.b, out.scale > 0
(1, True)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.translation import CurvePoint, DPChoice, LogValue, epsilon_dp_for
from pufferfish.verify.report import Explained


@dataclass(repr=False, frozen=True)
class SampleResult(Explained):
    """One release of a Pufferfish mechanism: the output and how its ε_DP was chosen."""

    mechanism: str
    output: object
    choice: DPChoice
    epsilon_dp_used: Fraction
    scale: float | None = None

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "output": _plain(self.output),
                "epsilon_dp_used": str(self.epsilon_dp_used),
                "epsilon_dp_used_float": float(self.epsilon_dp_used),
                "noise_scale": self.scale, "translation": self.choice.to_dict()}

    def explain(self) -> str:
        return (f"{self.mechanism}: output {_plain(self.output)!r} with ε_DP = "
                f"{float(self.epsilon_dp_used):.6g} (exact {self.choice.epsilon_dp.text}, from the "
                f"point b = {self.choice.point.b}, a = {self.choice.point.a.text})")


def _plain(value: object) -> object:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _budget(eps_puffer: LogValue, points: Sequence[CurvePoint], entries: int | None,
            rule: str) -> tuple[DPChoice, Fraction | None]:
    choice = epsilon_dp_for(eps_puffer, points, entries, rule)
    if choice.epsilon_dp is None:
        raise ModelError(f"no curve point has a < ε_puffer = {eps_puffer.text}; Theorem 6 allows no "
                         "ε_DP (use rule='algorithm' with |I| for the ε_puffer/|I| fallback)",
                         "epsilon_puffer")
    if choice.epsilon_dp.infinite:
        return choice, None
    used = choice.epsilon_dp.lower_fraction()
    if used <= 0:
        raise ModelError("the admissible ε_DP is not positive", "epsilon_puffer")
    return choice, used


def _generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def pufferfish_laplace(value: float, lipschitz: float, eps_puffer: LogValue,
                       points: Sequence[CurvePoint], entries: int | None = None,
                       rng: np.random.Generator | int | None = None,
                       rule: str = "theorem") -> SampleResult:
    """Algorithm 1: ``F(D) + Lap(L/ε_DP)`` for a query value ``F(D)`` with Lipschitz constant ``L``
    (per-entry ℓ1 sensitivity)."""
    if lipschitz < 0:
        raise ModelError("the Lipschitz constant must be >= 0", "lipschitz")
    choice, used = _budget(eps_puffer, points, entries, rule)
    generator = _generator(rng)
    if used is None or lipschitz == 0:
        return SampleResult("pufferfish_laplace", float(value), choice,
                            used if used is not None else Fraction(0), 0.0)
    scale = float(lipschitz) / float(used)
    return SampleResult("pufferfish_laplace", float(value) + generator.laplace(0.0, scale), choice,
                        used, scale)


def _exponential_draw(scores: Mapping[Hashable, float], epsilon: float, sensitivity: float,
                      generator: np.random.Generator) -> Hashable:
    keys = list(scores)
    logits = np.array([epsilon * float(scores[k]) / (2 * sensitivity) for k in keys])
    logits -= logits.max()
    weights = np.exp(logits)
    return keys[int(generator.choice(len(keys), p=weights / weights.sum()))]


def pufferfish_exponential(scores: Mapping[Hashable, float] | Callable[[], Mapping[Hashable, float]],
                           sensitivity: float, eps_puffer: LogValue, points: Sequence[CurvePoint],
                           entries: int | None = None, k: int = 1,
                           rng: np.random.Generator | int | None = None,
                           rule: str = "theorem") -> SampleResult:
    """Algorithm 2 (``k = 1``): sample ``r`` with probability ``∝ exp(ε_DP u(D, r) / (2Δ_u))``.

    ``k > 1``: top-K as in §7.1.3 — ``k`` rounds without replacement, each at ``ε_DP/k``; the
    output is the tuple of selections in order (the round-``j`` pick is the ``j``-th largest).
    ``scores`` maps each candidate ``r`` to ``u(D, r)``; ``sensitivity`` is ``Δ_u`` (the
    Lipschitz constant ``L`` of Algorithm 2).
    """
    table = dict(scores() if callable(scores) else scores)
    if sensitivity <= 0:
        raise ModelError("the sensitivity must be > 0", "sensitivity")
    if not 1 <= k <= len(table):
        raise ModelError(f"k must be between 1 and the number of candidates {len(table)}", "k")
    choice, used = _budget(eps_puffer, points, entries, rule)
    generator = _generator(rng)
    if used is None:   # unbounded ε_DP: the exact top-k
        ranked = sorted(table, key=lambda r: table[r], reverse=True)[:k]
        return SampleResult("pufferfish_exponential", ranked[0] if k == 1 else tuple(ranked),
                            choice, Fraction(0))
    per_round = float(used) / k
    picks = []
    remaining = dict(table)
    for _ in range(k):
        pick = _exponential_draw(remaining, per_round, sensitivity, generator)
        picks.append(pick)
        del remaining[pick]
    output = picks[0] if k == 1 else tuple(picks)
    return SampleResult("pufferfish_exponential" if k == 1 else f"pufferfish_top{k}", output,
                        choice, used, None)
