"""Certified floating-point logarithms of a mechanism table's probabilities.

The NfC programs (Bai et al., Composition for Pufferfish Privacy, §5.1) have coefficients
``log P(ω|D)``.  Evaluating ``Σ α_i log(...)`` for thousands of entries with interval arithmetic in
Python is too slow, so the table keeps, for every probability, a float enclosure
``[lo, hi] ∋ log p`` computed once per distinct probability by the toolkit's one certified logarithm
(:func:`pufferfish.verify.numerics.intervals.log_enclosure`).  Linear forms over these enclosures
are then evaluated with numpy in IEEE-754 double precision and widened by the standard rounding-error
bound for dot products, ``|fl(xᵀy) − xᵀy| <= γ_k |x|ᵀ|y|`` with ``γ_k = k·u/(1 − k·u)``,
``u = 2^-53`` (:func:`pufferfish.verify.numerics.intervals.dot_error_factor`; Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1), which holds for any
summation order.  The weights are dyadic rationals (exact in binary), so the resulting bounds are
rigorous.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pufferfish.verify.numerics.intervals import dot_error_factor, log_enclosure


@dataclass(frozen=True)
class LogTable:
    """``low[d, o] <= log P(outputs[o] | datasets[d]) <= high[d, o]`` (``-inf`` where ``P = 0``)."""

    low: np.ndarray
    high: np.ndarray
    positive: np.ndarray          # P(o|d) > 0

    @classmethod
    def build(cls, probabilities: Sequence[Sequence[Fraction]]) -> "LogTable":
        """Enclose every entry; one mpmath evaluation per distinct probability value."""
        cache: dict[Fraction, tuple[float, float]] = {}
        rows = len(probabilities)
        cols = len(probabilities[0]) if rows else 0
        low = np.empty((rows, cols))
        high = np.empty((rows, cols))
        for d, row in enumerate(probabilities):
            for o, p in enumerate(row):
                bounds = cache.get(p)
                if bounds is None:
                    bounds = cache[p] = log_enclosure(p)
                low[d, o], high[d, o] = bounds
        return cls(low, high, high > -math.inf)


def lower_difference(a_low: np.ndarray, b_high: np.ndarray) -> np.ndarray:
    """A rigorous lower bound of ``a − b`` from ``a >= a_low`` and ``b <= b_high``."""
    return np.nextafter(a_low - b_high, -np.inf)


def upper_difference(a_high: np.ndarray, b_low: np.ndarray) -> np.ndarray:
    """A rigorous upper bound of ``a − b`` from ``a <= a_high`` and ``b >= b_low``."""
    return np.nextafter(a_high - b_low, np.inf)


def dot_lower(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Rigorous lower bounds of ``values @ weights`` (rows of ``values``; exact ``weights >= 0``)."""
    k = weights.shape[0]
    gamma = dot_error_factor(k)
    computed = values @ weights
    margin = gamma * (np.abs(values) @ weights)
    return np.nextafter(computed - np.nextafter(margin, np.inf), -np.inf)


def dot_upper(weights: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Rigorous upper bounds of ``values @ weights`` (rows of ``values``; exact ``weights >= 0``)."""
    k = weights.shape[0]
    gamma = dot_error_factor(k)
    computed = values @ weights
    margin = gamma * (np.abs(values) @ weights)
    return np.nextafter(computed + np.nextafter(margin, np.inf), np.inf)


def dyadic_simplex(candidate: np.ndarray, bits: int = 40) -> list[Fraction]:
    """Round a solver's vector to exact dyadic rationals ``m / 2^bits`` on the probability simplex.

    Negative entries (solver noise) become 0; the entries are floored to the grid and the missing
    mass is given, one grid step at a time, to the largest remainders — so the result is exactly on
    the simplex and every entry is exactly representable as a double.
    """
    clipped = np.clip(np.nan_to_num(candidate, nan=0.0), 0.0, None)
    total = clipped.sum()
    if total <= 0:
        clipped = np.ones_like(clipped)
        total = clipped.sum()
    scale = 1 << bits
    scaled = [Fraction(float(x)) / Fraction(float(total)) * scale for x in clipped]
    floors = [math.floor(x) for x in scaled]
    missing = scale - sum(floors)
    order = sorted(range(len(scaled)), key=lambda i: scaled[i] - floors[i], reverse=True)
    for i in order[:missing]:
        floors[i] += 1
    return [Fraction(f, scale) for f in floors]


__all__ = ["LogTable", "log_enclosure", "lower_difference", "upper_difference", "dot_lower",
           "dot_upper", "dyadic_simplex"]
