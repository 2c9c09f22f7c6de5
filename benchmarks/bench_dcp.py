"""Timing of the optimal-composition formula (Murtagh–Vadhan Theorem 1.5, reference [6] of Zhang
et al., Differential Confounding Privacy and Inverse Composition).

Compares the grouped formula of :func:`pufferfish.verify.dcp.composition.optimal_composition_ratio` (equal
levels collapsed into binomial counts) with the baseline that enumerates all 2^k outputs of the
product of randomized-response pairs and inverts the hockey-stick divergence there.  Both are
exact and must agree; printed: sizes, seconds, ratio baseline/grouped.  Never run by CI.
"""

from __future__ import annotations

import time
from fractions import Fraction

from pufferfish.models.distribution import Distribution, product_distribution
from pufferfish.verify.dcp.levels import least_ratio
from pufferfish.verify.dcp.composition import optimal_composition_ratio


def _baseline(levels, delta):
    pairs = [(Distribution({1: r / (1 + r), 0: 1 / (1 + r)}),
              Distribution({1: 1 / (1 + r), 0: r / (1 + r)})) for r, _ in levels]
    p = product_distribution(a for a, _ in pairs)
    q = product_distribution(b for _, b in pairs)
    return least_ratio(p, q, delta).ratio


def main() -> None:
    delta = Fraction(1, 100)
    for k in (8, 12, 14):
        for kinds in (1, 2):
            levels = [(Fraction(3, 2) if i % kinds == 0 else Fraction(2), Fraction(0))
                      for i in range(k)]
            start = time.perf_counter()
            fast = optimal_composition_ratio(levels, delta)
            grouped = time.perf_counter() - start
            start = time.perf_counter()
            slow = _baseline(levels, delta)
            base = time.perf_counter() - start
            assert fast == slow
            print(f"k={k:2d}, {kinds} distinct level(s): grouped {grouped:.4f}s, 2^k enumeration "
                  f"{base:.4f}s, ratio {base / grouped:.1f}x")


if __name__ == "__main__":
    main()
