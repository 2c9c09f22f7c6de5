"""The Wasserstein mechanism and Theorem 3.2 (Wang et al., Privacy-Preserving Analysis of Correlated
Data, §3, Algorithm 1).

Algorithm 1 (Wasserstein mechanism): compute ``W`` (:mod:`pufferfish.verify.transport.parameter`:
the supremum of ``W_∞`` between the conditional query distributions of every secret pair and
prior) and release ``F(D) + Z`` with ``Z ~ Lap(W/ε)``.  Theorem 3.2: this is ε-Pufferfish private.

* :class:`WassersteinMechanism` — the mechanism as a sampler (numpy ``Generator``; the sample is
  a float, which is a release, never a verdict).
* :func:`verify_wasserstein_mechanism` — Theorem 3.2 checked on a model: the *actual* certified
  Pufferfish level of ``F + Lap(W/ε)``
  (:func:`pufferfish.verify.transport.laplace_level.laplace_pufferfish_level`) next to ε.

The other parts of §3 and Appendix A live in their own modules of this package:
:mod:`~pufferfish.verify.transport.w_infinity` (``W_∞`` with certificates),
:mod:`~pufferfish.verify.transport.trimmed` and :mod:`~pufferfish.verify.transport.epsilon_delta`
(the (ε, δ) variant, Theorem A.8), :mod:`~pufferfish.verify.transport.groups` (Theorem 3.3) and
:mod:`~pufferfish.verify.transport.queries` (the query syntax).  The command-line entry points
:func:`parse_query` and :func:`verify_epsilon_delta_mechanism` are importable from here too.

Cost: one :func:`~pufferfish.verify.transport.parameter.wasserstein_parameter` plus one certified
level evaluation (``O(n)`` interval operations per direction, ``n`` output points).

Example (two perfectly correlated bits, the sum, ε = 1: ``W = 2`` and ``σ = 2``):

>>> from pufferfish.models.distribution import Distribution
>>> from pufferfish.models.model import PufferfishModel
>>> from pufferfish.models.priors import TablePrior
>>> from pufferfish.models.secrets import entry_pairs, entry_secrets
>>> from pufferfish.models.universe import Universe
>>> universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
>>> copies = TablePrior("copies", Distribution({(0, 0): "1/2", (1, 1): "1/2"}))
>>> model = PufferfishModel(universe, {"copies": copies}, entry_secrets(universe),
...                         entry_pairs(universe))
>>> result = verify_wasserstein_mechanism(model, sum, 1)
>>> result.scale, result.holds
(Fraction(2, 1), True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import fraction_str
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.numerics.certified import parse_budget
from pufferfish.verify.transport.epsilon_delta import (EpsilonDeltaVerification,
                                                       verify_epsilon_delta_mechanism)
from pufferfish.verify.transport.laplace_level import (LaplacePufferfishResult,
                                                       laplace_pufferfish_level)
from pufferfish.verify.transport.parameter import (WassersteinParameter, mechanism_epsilon,
                                                   wasserstein_parameter)
from pufferfish.verify.transport.queries import parse_query
from pufferfish.verify.report import Explained

__all__ = ["WassersteinMechanism", "wasserstein_mechanism", "WassersteinVerification",
           "verify_wasserstein_mechanism", "EpsilonDeltaVerification",
           "verify_epsilon_delta_mechanism", "parse_query"]


@dataclass(frozen=True)
class WassersteinMechanism:
    """``F(D) + Lap(W/ε)`` (Algorithm 1) as a sampler; ``scale = 0`` releases ``F(D)`` itself."""

    query: Callable[[Dataset], object]
    parameter: WassersteinParameter
    epsilon: Fraction

    @property
    def scale(self) -> Fraction:
        return self.parameter.value / self.epsilon

    def release(self, dataset: Dataset, rng: np.random.Generator) -> float:
        """One release for ``dataset`` (a float sample; the privacy analysis is exact elsewhere)."""
        value = Fraction(self.query(dataset))
        noise = rng.laplace(0.0, float(self.scale)) if self.scale else 0.0
        return float(value) + noise

    def sample(self, dataset: Dataset, size: int, rng: np.random.Generator) -> np.ndarray:
        value = float(Fraction(self.query(dataset)))
        if not self.scale:
            return np.full(size, value)
        return value + rng.laplace(0.0, float(self.scale), size)


def wasserstein_mechanism(model: PufferfishModel, query: Callable[[Dataset], object],
                          epsilon: object, max_datasets: int = DEFAULT_MAX_DATASETS
                          ) -> WassersteinMechanism:
    """Algorithm 1: compute ``W`` and return the mechanism ``F + Lap(W/ε)``."""
    eps = mechanism_epsilon(epsilon)
    return WassersteinMechanism(query, wasserstein_parameter(model, query, Fraction(0), max_datasets),
                                eps)


@dataclass(repr=False, frozen=True)
class WassersteinVerification(Explained):
    """Theorem 3.2 on one model: ``W``, ``σ = W/ε``, and the certified actual level vs ε."""

    epsilon: Fraction
    parameter: WassersteinParameter
    level: LaplacePufferfishResult

    @property
    def scale(self) -> Fraction:
        return self.parameter.value / self.epsilon

    @property
    def holds(self) -> bool | None:
        return self.level.holds

    def to_dict(self) -> dict:
        return {"check": "wasserstein", "epsilon": fraction_str(self.epsilon),
                "W": self.parameter.to_dict(), "scale": fraction_str(self.scale),
                "actual_level": self.level.to_dict(), "holds": self.holds}

    def explain(self) -> str:
        verdict = {None: "UNDECIDED", True: "holds", False: "VIOLATED"}[self.holds]
        return (f"{self.parameter.explain()}; σ = W/ε = {fraction_str(self.scale)}; actual "
                f"Pufferfish level ε ∈ [{self.level.epsilon_lower:.10g}, "
                f"{self.level.epsilon_upper:.10g}] vs ε = {fraction_str(self.epsilon)}: {verdict} "
                f"({self.level.relation})")


def verify_wasserstein_mechanism(model: PufferfishModel, query: Callable[[Dataset], object],
                                 epsilon: object, max_datasets: int = DEFAULT_MAX_DATASETS,
                                 query_name: str | None = None) -> WassersteinVerification:
    """Theorem 3.2 on a finite model: the certified Pufferfish level of ``F + Lap(W/ε)`` next to ε."""
    eps = mechanism_epsilon(epsilon)
    parameter = wasserstein_parameter(model, query, Fraction(0), max_datasets)
    level = laplace_pufferfish_level(model, query, parameter.value / eps,
                                     parse_budget(fraction_str(eps)), max_datasets=max_datasets,
                                     query_name=query_name)
    return WassersteinVerification(eps, parameter, level)
