"""Claim of Bai et al., Composition for Pufferfish Privacy, §6.3, Figure 2(a): the reading the text
draws from it.

=============================  ==============================================================
``000.fig2a.correlation``      for the binary chains of Example 6.1, moving p or q from 1/2
                               towards 0 (or towards 1) — stronger temporal correlation — never
                               lowers a*(b), for every b; at p = q = 1/2 the curve is 0 for b >= 1
=============================  ==============================================================

"When p and q are close to 1/2 ... the a(b)-curve lies closer to the origin and quickly decays
... As p or q decreases towards 0 (or increases towards 1 ...), the chain exhibits stronger
temporal correlation, and the a(b)-influence curve also spreads out over b."  Read literally as
an ordering: along each path that moves one parameter (or both) monotonically away from 1/2 while
the other stays on the same side of 1/2, ``a*(b)`` is non-decreasing for every ``b``.  (Moving p
towards 0 while q > 1/2 first *weakens* the correlation, λ = p + q − 1 passing 0, so those paths
are outside the reading.)  Every value is the exact ``a*(b)`` of
:func:`pufferfish.verify.influence.chains.chain_influence_curve` (T = 7), compared exactly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import paper
from pufferfish.models.numbers import epsilon_str
from pufferfish.proofs_check.paper_000.figures import binary_chain_model
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, register
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.privacy.pufferfish import ratio_key

PAPER = paper("000").key
LENGTH = 7
_TOWARDS_0 = (Fraction(1, 2), Fraction(2, 5), Fraction(1, 5), Fraction(1, 10), Fraction(1, 20))
_TOWARDS_1 = tuple(1 - x for x in _TOWARDS_0)


def correlation_paths() -> Iterator[Instance]:
    """Paths of (p, q) moving away from 1/2: p alone, q alone, both together."""
    for towards, path in (("0", _TOWARDS_0), ("1", _TOWARDS_1)):
        for other in (Fraction(1, 2), path[1]):
            yield Instance(f"p → {towards} with q = {other}", {"path": [(x, other) for x in path]})
            yield Instance(f"q → {towards} with p = {other}", {"path": [(other, x) for x in path]})
        yield Instance(f"p = q → {towards}", {"path": [(x, x) for x in path]})
    yield Instance("p → 0 and q → 1 together (λ = 0 throughout)",
                   {"path": list(zip(_TOWARDS_0, _TOWARDS_1))})


def stronger_not_lower(weaker, stronger) -> bool:
    """The text's ordering: stronger correlation gives an a*(b) at least as large."""
    return ratio_key(stronger) >= ratio_key(weaker)


def check_correlation(instance: Instance) -> ClaimOutcome:
    path = instance.params["path"]
    curves = [chain_influence_curve(binary_chain_model(p, q, LENGTH), max_b=LENGTH - 1)
              for p, q in path]
    for b in range(1, LENGTH):
        values = [c.at(b).max_ratio for c in curves]
        for (weak, strong), (pq_weak, pq_strong) in zip(zip(values, values[1:]), zip(path, path[1:])):
            if not stronger_not_lower(weak, strong):
                return ClaimOutcome(False, f"b = {b}: a*(b) = {epsilon_str(strong)} at (p, q) = "
                                           f"{tuple(str(x) for x in pq_strong)} is below "
                                           f"{epsilon_str(weak)} at {tuple(str(x) for x in pq_weak)}")
    if path[0] == (Fraction(1, 2), Fraction(1, 2)) and \
            any(curves[0].at(b).max_ratio != 1 for b in range(1, LENGTH)):
        return ClaimOutcome(False, "the independent chain p = q = 1/2 has a*(b) > 0 for some b >= 1")
    return ClaimOutcome(True, f"a*(b) non-decreasing along the path for b = 1..{LENGTH - 1}; "
                              f"a*(1) from {epsilon_str(curves[0].at(1).max_ratio)} to "
                              f"{epsilon_str(curves[-1].at(1).max_ratio)}")


_THIS = sys.modules[__name__]

register(Claim(
    "000.fig2a.correlation", PAPER, "§6.3, Figure 2(a) (the text's reading)",
    "For Example 6.1's chains, as p or q moves from 1/2 towards 0 (or towards 1) the correlation "
    "strengthens and the a(b)-curve spreads out: a*(b) never decreases along such a path, for every "
    "b; at p = q = 1/2 it is 0 for b >= 1 (exact, T = 7).",
    correlation_paths, check_correlation,
    mutants=(patched("ordering reversed (stronger correlation, smaller a*(b))", check_correlation,
                     lambda: list(correlation_paths())[:1], _THIS,
                     stronger_not_lower=lambda weaker, stronger: ratio_key(stronger) <= ratio_key(weaker)),)))
