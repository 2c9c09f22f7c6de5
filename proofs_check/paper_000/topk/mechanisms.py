"""The four noisy Top-K mechanisms of the experiments, calibrated to a Pufferfish budget.

Source: Bai et al., Composition for Pufferfish Privacy, §7.1.3 (mechanisms and budget splits), §6.4
and Appendix B Algorithms 1–2 (Pufferfish Laplace / exponential via Theorem 6), and Wang et al.,
Privacy-Preserving Analysis of Correlated Data, §4 (Markov Quilt Mechanism).  The query: the ``m``
category counts of one group's test data, each user a chain of at most ``T`` entries (independent
users: an entry's leakage never reaches another user, so a single chain's curve and quilts govern
the whole data set). Changing one entry changes two counts by one, so the count score has
sensitivity ``Δ_u = 1`` and each count has Lipschitz constant 1.

* **Ours-Exp** — ``ε_DP = max_b (ε_puffer − a(b)) / b`` over the prior's a(b)-influence curve
  (Theorem 6, :func:`pufferfish.verify.influence.translation.epsilon_dp_for`, ``rule="theorem"``), then ``K`` rounds of
  the exponential mechanism at ``ε_DP/K`` each, without replacement, the selection order being the
  ranking (:func:`pufferfish.verify.influence.mechanisms.pufferfish_exponential` with ``k=K``).  The curve
  has certified upper bounds on ``a(b)`` (:func:`pufferfish.verify.influence.chains.stationary_chain_curve_bounds`),
  so the ε_DP used is at most the theorem's.
* **MQM** — "the privacy budget is evenly divided across the m queries": each count is released
  with the Markov Quilt Mechanism at ``ε_puffer/m`` (:func:`pufferfish.verify.quilts.chain_search.mqm_chain_exact`, certified
  ``σ_max``), ``count + σ·Lap(1)``; the ranking sorts the noisy counts.
* **Group DP-Exp** — the exponential top-K with ``ε_DP = ε_puffer/T``: group privacy with the group
  = the whole sequence (the curve point ``(b = T, a = 0)``).
* **Group DP-Lap** — each count at ``ε_puffer/m`` (the same split as MQM) with group privacy over
  the sequence: ``Lap(T·m/ε_puffer)`` per count.  (This is MQM's trivial quilt, so MQM's σ is never
  larger; the paper does not state Group DP-Lap's split — this is the choice made here.)

Each :class:`Calibration` records the ε_DP or noise scale and where it came from (the curve point,
the quilt, or the group size).  Sampling uses a seeded numpy ``Generator`` (floats; never part of a
verdict).  Per release: ``O(K m)`` for the exponential mechanisms, ``O(m log m)`` for Laplace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.errors import ModelError
from pufferfish.verify.influence.chains import ChainCurveBounds
from pufferfish.models.chain_family import ChainFamily
from pufferfish.verify.quilts.chain_search import mqm_chain_exact
from pufferfish.verify.influence.mechanisms import pufferfish_exponential, pufferfish_laplace
from pufferfish.verify.influence.translation import CurvePoint, LogValue, epsilon_dp_for

EPSILONS = ("0.5", "1", "2", "3", "4", "5")
"""The ε_puffer values of Tables 2–5 and 7–8."""

MECHANISMS = ("Ours-Exp", "MQM", "Group DP-Exp", "Group DP-Lap")


@dataclass(frozen=True)
class Calibration:
    """How one mechanism spends ε_puffer: ``kind`` ``"exponential"`` (``epsilon_dp`` for all K
    rounds, ``point`` the curve point) or ``"laplace"`` (``scale`` per count)."""

    mechanism: str
    epsilon_puffer: str
    kind: str
    source: str
    epsilon_dp: Fraction | None = None
    epsilon_dp_exact: str | None = None
    point: CurvePoint | None = None
    scale: float | None = None
    K: int = 3
    detail: dict = field(default_factory=dict)

    @property
    def per_round(self) -> float | None:
        return None if self.epsilon_dp is None else float(self.epsilon_dp) / self.K

    def to_dict(self) -> dict:
        data = {"mechanism": self.mechanism, "epsilon_puffer": self.epsilon_puffer,
                "kind": self.kind, "source": self.source, **self.detail}
        if self.kind == "exponential":
            data.update({"epsilon_dp": str(self.epsilon_dp), "epsilon_dp_float": float(self.epsilon_dp),
                         "epsilon_dp_exact": self.epsilon_dp_exact, "rounds": self.K,
                         "epsilon_per_round": self.per_round,
                         "point": self.point.to_dict() if self.point else None})
        else:
            data["noise_scale"] = self.scale
        return data

    def explain(self) -> str:
        if self.kind == "exponential":
            return (f"{self.mechanism} at ε_puffer = {self.epsilon_puffer}: ε_DP = "
                    f"{float(self.epsilon_dp):.6g} ({self.K} rounds of {self.per_round:.6g}); "
                    f"{self.source}")
        return (f"{self.mechanism} at ε_puffer = {self.epsilon_puffer}: Lap({self.scale:.6g}) per "
                f"count; {self.source}")

    def short(self) -> str:
        if self.kind == "exponential":
            return f"ε_DP={float(self.epsilon_dp):.4g}"
        return f"σ={self.scale:.4g}"


def _budget(epsilon: str) -> LogValue:
    return LogValue.parse(epsilon, "epsilon_puffer")


def calibrate_ours_exp(epsilon: str, curve: ChainCurveBounds, K: int) -> Calibration:
    """Theorem 6 on the certified curve: the point maximising ``(ε − a)/b``."""
    points = curve.curve_points()
    choice = epsilon_dp_for(_budget(epsilon), points, entries=curve.length)
    if choice.epsilon_dp is None or choice.epsilon_dp.infinite:
        raise ModelError("Theorem 6 gives no finite ε_DP for this curve", "epsilon_puffer")
    used = choice.epsilon_dp.lower_fraction()
    p = choice.point
    a_text = "0" if p.a.sign() == 0 else f"{p.a.to_float():.6g}"
    return Calibration("Ours-Exp", epsilon, "exponential",
                       f"curve point b = {p.b}, a(b) <= {a_text} (Theorem 6)", used,
                       choice.epsilon_dp.text if len(choice.epsilon_dp.text) < 80 else None,
                       p, K=K, detail={"curve_point": p.to_dict()})


def calibrate_group_exp(epsilon: str, length: int, K: int) -> Calibration:
    """Group privacy over the whole sequence: the point ``(T, 0)``, ε_DP = ε_puffer/T."""
    point = CurvePoint(length, LogValue.rational(Fraction(0)))
    choice = epsilon_dp_for(_budget(epsilon), [point], entries=length)
    return Calibration("Group DP-Exp", epsilon, "exponential",
                       f"group privacy, group = sequence length T = {length}",
                       choice.epsilon_dp.lower_fraction(), choice.epsilon_dp.text, point, K=K,
                       detail={"group_size": length})


def calibrate_mqm(epsilon: str, chain: MarkovChain, categories: int, K: int) -> Calibration:
    """MQM per count at ``ε_puffer/m`` (certified upper end of σ_max, with the worst quilt)."""
    share = Fraction(epsilon) / categories
    result = mqm_chain_exact(ChainFamily((chain,), initial="given"), str(share))
    w = result.worst
    quilt = w.quilt_label() if w is not None else "?"
    return Calibration("MQM", epsilon, "laplace",
                       f"ε/m = {float(share):.4g} per count; worst node {w.node}, quilt {quilt}, "
                       f"card(X_N) = {w.score.card_nearby}", scale=result.sigma_upper, K=K,
                       detail={"epsilon_per_count": str(share), "sigma_bounds": list(result.sigma),
                               "worst_node": w.node, "quilt": quilt,
                               "card_nearby": w.score.card_nearby})


def calibrate_group_lap(epsilon: str, length: int, categories: int, K: int) -> Calibration:
    """Each count at ``ε_puffer/m`` with group privacy over ``T`` entries: ``Lap(T m / ε)``."""
    share = Fraction(epsilon) / categories
    point = CurvePoint(length, LogValue.rational(Fraction(0)))
    probe = pufferfish_laplace(0.0, 1, LogValue.rational(share), [point], entries=length, rng=0)
    return Calibration("Group DP-Lap", epsilon, "laplace",
                       f"ε/m = {float(share):.4g} per count, group = T = {length}",
                       scale=probe.scale, K=K,
                       detail={"epsilon_per_count": str(share), "group_size": length})


def calibrate_all(epsilon: str, chain: MarkovChain, curve: ChainCurveBounds, categories: int,
                  K: int) -> dict[str, Calibration]:
    """The four calibrations for one ε_puffer (prior ``chain`` of length T = the longest sequence)."""
    T = chain.length
    return {"Ours-Exp": calibrate_ours_exp(epsilon, curve, K),
            "MQM": calibrate_mqm(epsilon, chain, categories, K),
            "Group DP-Exp": calibrate_group_exp(epsilon, T, K),
            "Group DP-Lap": calibrate_group_lap(epsilon, T, categories, K)}


def release(calibration: Calibration, counts: Sequence[int] | np.ndarray,
            rng: np.random.Generator) -> tuple[int, ...]:
    """One noisy Top-K answer (category indices, rank order) under ``calibration``."""
    counts = np.asarray(counts)
    K = calibration.K
    if calibration.kind == "exponential":
        scores = {j: float(c) for j, c in enumerate(counts)}
        out = pufferfish_exponential(scores, 1.0, _budget(calibration.epsilon_puffer),
                                     [calibration.point], entries=None, k=K, rng=rng)
        picks = out.output if K > 1 else (out.output,)
        return tuple(int(p) for p in picks)
    if calibration.kind == "laplace":
        noisy = counts + rng.laplace(0.0, calibration.scale, size=len(counts))
        order = np.lexsort((np.arange(len(counts)), -noisy))
        return tuple(int(x) for x in order[:K])
    raise ModelError(f"unknown mechanism kind {calibration.kind!r}", "kind")
