"""Claim of Bai et al., Composition for Pufferfish Privacy, §6.1, Definition 7 (the a(b)-influence
curve), as printed.

=============================  ==============================================================
``000.def7.curve``             the tightest curve ``a(b) = max_pairs inf_{|H| <= b} a†(L)``,
                               computed by brute force over every split, is non-increasing in
                               b ("by definition, the curve is monotonically non-increasing"),
                               is 0 at ``b = |I|`` (L = ∅), is >= 0, and equals the toolkit's
                               curve (:func:`pufferfish.verify.influence.curves.influence_curve`)
=============================  ==============================================================

The brute force here uses no structure: for every finite prior, every ordered secret pair and
every subset ``L`` of the indices it sums the prior table into ``Pr[Data_L = D_L | s]`` and takes
the largest ratio (``∞`` when ``Pr[D_L|s_i] > 0 = Pr[D_L|s_j]``; priors giving a secret
probability 0 impose nothing), then the infimum over every ``L`` with ``|I \\ L| <= b`` — no
monotonicity is assumed, unlike the toolkit's pruned search.  Cost: ``O(2^n · |support|)`` per
pair and prior.

>>> from pufferfish.proofs_check.paper_000.figures import binary_chain_model
>>> brute_force_curve(binary_chain_model(Fraction(4, 5), Fraction(9, 10), 3))
[inf, Fraction(64, 1), Fraction(8, 1), Fraction(1, 1)]
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations

from pufferfish.bibliography import cite, paper
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_str
from pufferfish.proofs_check.paper_000.figures import binary_chain_model
from pufferfish.proofs_check.paper_000.influence import _translation_models
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, counterexample_dict, register
from pufferfish.verify.influence.curves import influence_curve
from pufferfish.verify.privacy.pufferfish import ratio_key

PAPER = paper("000").key


def _leak(table: list, first, second, low: tuple[int, ...]) -> Ratio | None:
    """``max_{D_L} Pr[D_L|s_i]/Pr[D_L|s_j]`` under one prior table, ``None`` if a secret has mass 0."""
    mass_i = sum((p for d, p in table if first.holds(d)), Fraction(0))
    mass_j = sum((p for d, p in table if second.holds(d)), Fraction(0))
    if not mass_i or not mass_j:
        return None
    given_i: dict[tuple, Fraction] = {}
    given_j: dict[tuple, Fraction] = {}
    for d, p in table:
        key = tuple(d[k] for k in low)
        if first.holds(d):
            given_i[key] = given_i.get(key, Fraction(0)) + p / mass_i
        if second.holds(d):
            given_j[key] = given_j.get(key, Fraction(0)) + p / mass_j
    worst: Ratio = Fraction(0)
    for key, p in given_i.items():
        if not p:
            continue
        q = given_j.get(key, Fraction(0))
        if not q:
            return INFINITY
        worst = max(worst, p / q)
    return worst


def split_choice(values: list[Ratio]) -> Ratio:
    """Definition 7's ``inf`` over the admissible splits ``L`` (the choice a mutant changes)."""
    return min(values, key=ratio_key)


def brute_force_curve(model: PufferfishModel) -> list[Ratio]:
    """``[e^{a(0)}, ..., e^{a(n)}]`` for the tightest curve of Definition 7, by brute force."""
    n = model.universe.width
    tables = [[(d, p) for d, p in prior.distribution().items() if p]
              for prior in model.finite_priors.values()]
    directions = [d for pair in model.pairs for d in pair.directions()]
    curve = []
    for b in range(n + 1):
        worst_pair: Ratio = Fraction(1)
        for first, second in directions:
            values = []
            for size in range(max(0, n - b), n + 1):
                for low in combinations(range(n), size):
                    leaks = [x for x in (_leak(t, first, second, low) for t in tables)
                             if x is not None]
                    values.append(max(leaks, key=ratio_key) if leaks else Fraction(1))
            worst_pair = max(worst_pair, split_choice(values), key=ratio_key)
        curve.append(worst_pair)
    return curve


def curve_instances() -> Iterator[Instance]:
    for label, model in _translation_models():
        yield Instance(label, {"model": model})
    for p, q in ((Fraction(1, 10), Fraction(1, 5)), (Fraction(9, 10), Fraction(1, 2))):
        yield Instance(f"binary chain p={p} q={q} T=4", {"model": binary_chain_model(p, q, 4)})


def check_curve(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    brute = brute_force_curve(model)
    toolkit = influence_curve(model)
    text = ", ".join(epsilon_str(r) for r in brute)
    problems = []
    if any(ratio_key(later) > ratio_key(earlier) for earlier, later in zip(brute, brute[1:])):
        problems.append("the curve increases")
    if brute[-1] != 1:
        problems.append(f"a(|I|) = {epsilon_str(brute[-1])}, not 0")
    if any(ratio_key(r) < ratio_key(Fraction(1)) for r in brute):
        problems.append("a negative value")
    mismatch = [b for b, r in enumerate(brute) if toolkit.at(b).max_ratio != r]
    if mismatch:
        problems.append(f"the toolkit's curve differs at b = {mismatch} "
                        f"({[toolkit.at(b).epsilon for b in mismatch]})")
    if problems:
        detail = f"brute-force curve [{text}]: " + "; ".join(problems)
        return ClaimOutcome(False, detail, counterexample_dict(
            model, f"counterexample to 000.def7.curve ({cite(PAPER)}): {instance.label}: {detail}"))
    return ClaimOutcome(True, f"a(b) for b = 0..{len(brute) - 1}: [{text}] — non-increasing, "
                              f"0 at b = |I|, equal to the toolkit's curve")


_THIS = sys.modules[__name__]

register(Claim(
    "000.def7.curve", PAPER, "§6.1, Definition 7",
    "The a(b)-influence curve a(b) = max over pairs of inf_{L: |H| <= b} a†(L) is monotonically "
    "non-increasing in b, non-negative and 0 at b = |I| (checked by brute force over every split, "
    "and against the toolkit's pruned search).",
    curve_instances, check_curve,
    mutants=(patched("inf over the splits replaced by sup", check_curve,
                     lambda: list(curve_instances())[:1], _THIS,
                     split_choice=lambda values: max(values, key=ratio_key)),)))
