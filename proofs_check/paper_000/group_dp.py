"""Claim of Bai et al., Composition for Pufferfish Privacy, §2.1, Definition 3 (group DP), as
printed.

=============================  ==============================================================
``000.def3.group_dp``          a per-entry ε_DP mechanism is kε_DP-DP for groups of k entries:
                               for datasets differing in exactly k entries and every output,
                               ``P(ω|D) <= e^{kε_DP} P(ω|D')``
=============================  ==============================================================

The check computes, by brute force over every pair of datasets, the exact largest ratio
``R_k = max P(ω|D)/P(ω|D')`` over pairs differing in exactly ``k`` entries and compares it with
``R_1^k`` (``R_1 = e^{ε_DP}`` from :func:`pufferfish.proofs_check.paper_000.nfc.entry_dp_ratio`):
one exact rational comparison per ``k``.  Instances: randomized response (keep 1/2, 2/3, 9/10 on
bits — keep 1/2 is ε_DP = 0 — and 1/3, 3/4 on three values), clamped geometric noise on counts,
random full-support kernels, and a kernel with zeros (ε_DP = ∞: the statement is then empty).
Cost: ``O(|𝒟|² · |Ω|)`` per instance.

>>> outcome = check_group_dp(next(iter(group_instances())))
>>> outcome.holds
True
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import (GeometricNoise, Query, QueryMechanism, RandomizedResponse,
                                          TableMechanism)
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_str, fraction_str
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.paper_000.nfc import entry_dp_ratio
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register

PAPER = paper("000").key


def group_bound(ratio: Ratio, k: int) -> Ratio:
    """Definition 3's bound ``e^{kε_DP} = (e^{ε_DP})^k`` (``∞`` stays ``∞``)."""
    return INFINITY if ratio == INFINITY else ratio ** k


def group_ratios(universe: Universe, mechanism) -> dict[int, Ratio]:
    """``k -> R_k``: the largest ``P(ω|D)/P(ω|D')`` over datasets differing in exactly k entries."""
    datasets = list(universe.datasets())
    rows = {d: mechanism.distribution(d) for d in datasets}
    worst: dict[int, Ratio] = {}
    for first in datasets:
        for second in datasets:
            k = sum(a != b for a, b in zip(first, second))
            if k == 0:
                continue
            best = worst.get(k, Fraction(0))
            for output, p in rows[first].items():
                q = rows[second].prob(output)
                if p and not q:
                    best = INFINITY
                    break
                if p and best != INFINITY:
                    best = max(best, p / q)
            worst[k] = best
    return worst


def group_instances() -> Iterator[Instance]:
    """Mechanisms on 2–3 bits and on two three-valued entries, in every regime."""
    bits2 = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    bits3 = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
    ternary = Universe.product(["x1", "x2"], [[0, 1, 2]] * 2)
    for universe, keep in ((bits3, Fraction(2, 3)), (bits2, Fraction(1, 2)), (bits3, Fraction(9, 10)),
                           (ternary, Fraction(1, 3)), (ternary, Fraction(3, 4))):
        yield Instance(f"randomized response keep {keep} on {universe.width} entries of size "
                       f"{len(universe.domains[0])}",
                       {"universe": universe, "mechanism": RandomizedResponse("rr", universe, keep)})
    for alpha in (Fraction(1, 3), Fraction(4, 5)):
        yield Instance(f"clamped geometric α={alpha} on the count of 3 bits", {
            "universe": bits3,
            "mechanism": QueryMechanism("count", bits3, Query("count", bits3),
                                        GeometricNoise(alpha, 0, 3))})
    rng = random.Random(17)
    for k in range(3):
        rows = {}
        for d in bits3.datasets():
            weights = [rng.randint(1, 7) for _ in range(3)]
            rows[d] = Distribution({f"o{j}": Fraction(w, sum(weights)) for j, w in enumerate(weights)})
        yield Instance(f"random full-support kernel #{k} on 3 bits",
                       {"universe": bits3, "mechanism": TableMechanism(f"k{k}", rows)})
    rows = {d: Distribution({"0": Fraction(1)}) if d[0] == 0 else
            Distribution({"0": Fraction(1, 2), "1": Fraction(1, 2)}) for d in bits2.datasets()}
    yield Instance("kernel with zeros (per-entry ε_DP = ∞)",
                   {"universe": bits2, "mechanism": TableMechanism("zeros", rows)})


def check_group_dp(instance: Instance) -> ClaimOutcome:
    universe, mechanism = instance.params["universe"], instance.params["mechanism"]
    single = entry_dp_ratio(universe, mechanism)
    ratios = group_ratios(universe, mechanism)
    for k in sorted(ratios):
        bound = group_bound(single, k)
        if bound != INFINITY and (ratios[k] == INFINITY or ratios[k] > bound):
            return ClaimOutcome(False, f"k = {k}: largest ratio {epsilon_str(ratios[k])} > "
                                       f"k·ε_DP = {epsilon_str(bound)} (ε_DP = {epsilon_str(single)})")
    shown = ", ".join(f"k={k}: {fraction_str(r) if r != INFINITY else '∞'}"
                      for k, r in sorted(ratios.items()))
    return ClaimOutcome(True, f"e^ε_DP = {fraction_str(single) if single != INFINITY else '∞'}; "
                              f"largest ratios {shown}, each <= (e^ε_DP)^k")


_THIS = sys.modules[__name__]
_ORIGINAL_BOUND = group_bound

register(Claim(
    "000.def3.group_dp", PAPER, "§2.1, Definition 3",
    "A per-entry ε_DP-DP mechanism achieves kε_DP-DP for a group of k entries: if D, D' differ in "
    "k entries, P(M(D) = ω) <= e^{kε_DP} P(M(D') = ω) for every ω (checked exactly for every k).",
    group_instances, check_group_dp,
    mutants=(patched("e^{(k−1)ε_DP} instead of e^{kε_DP}", check_group_dp,
                     lambda: list(group_instances())[:1], _THIS,
                     group_bound=lambda ratio, k: _ORIGINAL_BOUND(ratio, k - 1)),)))
