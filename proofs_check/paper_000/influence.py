"""Claims of Bai et al., Composition for Pufferfish Privacy, §6: a(b)-influence, Theorems 6–9.

=============================  ==============================================================
``000.thm8.closed_form``       Theorem 8 (Appendix C form, with |log|): the closed form equals
                               the exact a*(b) of Example 6.1's binary chain, for b with
                               2b + 1 <= T (the paper's "T large enough, b ≪ T")
``000.thm8.boundary``          observation: the same comparison for T−1 >= b with 2b + 1 > T
                               (outside the paper's hypothesis)
``000.thm6.translation``       Theorem 6: a per-entry ε_DP mechanism is (b·ε_DP + a)-Pufferfish
                               for every point (a, b) of the exact curve
``000.thm7.composition``       Theorem 7: the joint release of per-entry ε_DPℓ mechanisms is
                               (max aℓ + Σ ε_pufferℓ − Σ aℓ)-Pufferfish for any chosen points
``000.thm9.centre``            Theorem 9: the centre coordinate i* = ⌈n/2⌉ has the largest a*(b)
``000.thm9.farthest_low``      Theorem 9 (1): the farthest-index L attains min_L a†(L) at i*
=============================  ==============================================================

Theorems 6–8 are checked exactly: curve values are ``log`` of exact rationals
(:mod:`pufferfish.verify.influence.curves`, :mod:`pufferfish.verify.influence.chains`), the mechanisms' DP levels
(:func:`pufferfish.verify.privacy.dp.dp_level`, ``"entry"``) and Pufferfish levels (:func:`pufferfish.verify.privacy.pufferfish.pufferfish_level`,
joint releases via :func:`pufferfish.models.mechanisms.compose`) are exact, and every bound is a product of
rationals, so each comparison is one exact rational comparison.  Theorem 9 is decided with
certified enclosures of ``a†(L)`` over the whole region range
(:mod:`pufferfish.verify.influence.gaussian_bound`, compared by
:func:`pufferfish.verify.influence.gaussian_compare.compare_minima`): a claim holds when the
enclosures prove it (equal offset classes of ``L − i`` are equal exactly, which settles the ties
of mirror coordinates), is violated with a certified witness, and is undecided, with the
intervals, when the refinement budget runs out.

Instances: Theorem 8 over a grid of ``(p, q)`` covering λ = p + q − 1 > 0, = 0 and < 0, q > p,
q = p, q < p, values near 0 and 1, chain lengths ``T = 1..9`` and ``T = 15``, every ``b``.
Theorems 6–7 on binary chains (positively and negatively correlated), an independent prior, a
3-entry table prior that is not a Markov chain (and a 2-prior family), and a 3-valued table,
with randomized response (rational keep) and clamped geometric noise on counts (rational α).
Theorem 9 on n = 3..6 with short, medium and long kernels ℓ ∈ {1/2, 2, 5} (γ = 5, δ = 1/10, the
paper's values), every b from 0 (the centre claim: every a*(0) is ∞) or 1 to n (L = ∅, a* = 0).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from fractions import Fraction
from functools import lru_cache
from itertools import combinations, product

from pufferfish.bibliography import cite, paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import (GeometricNoise, Query, QueryMechanism, RandomizedResponse,
                               compose)
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_str, fraction_str
from pufferfish.models.priors import IndependentPrior, TablePrior
from pufferfish.models.secrets import entry_pairs
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import (Claim, ClaimOutcome, Instance, Mutant, counterexample_dict,
                                              register, violation)
from pufferfish.verify.influence.chains import chain_influence_curve
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.influence.curves import influence_curve
from pufferfish.proofs_check.paper_000.figures import binary_chain_model
from pufferfish.verify.privacy.pufferfish import pufferfish_level, ratio_key

PAPER = paper("000").key

# --------------------------------------------------------------------------------------------
# Theorem 8
# --------------------------------------------------------------------------------------------

THEOREM8_VALUES = (Fraction(1, 100), Fraction(1, 10), Fraction(1, 3), Fraction(1, 2),
                   Fraction(2, 3), Fraction(9, 10), Fraction(99, 100))
THEOREM8_LENGTHS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 15)


def theorem8_ratio(p: Fraction, q: Fraction, b: int, absolute: bool = True) -> Ratio:
    """``e^{a*(b)}`` by Theorem 8's closed form (exact).

    ``absolute=True``: the Appendix C statement, ``|log x_L| + |log x_R|``; ``False``: the §6.3
    statement without absolute values (a ratio below 1 then lowers the value).
    """
    lam = p + q - 1
    pi = (1 - q) / (2 - p - q) if q > p else (1 - p) / (2 - p - q)
    d_left, d_right = (b + 1) // 2, -(-(b + 1) // 2)
    total: Ratio = Fraction(1)
    for d in (d_left, d_right):
        num, den = pi + lam ** d * (1 - pi), pi - lam ** d * pi
        if den == 0:
            return INFINITY
        x = num / den
        total *= max(x, 1 / x) if absolute else x
    return total


def _theorem8_instances(boundary: bool) -> Iterator[Instance]:
    for p, q in product(THEOREM8_VALUES, repeat=2):
        for length in THEOREM8_LENGTHS:
            bs = [b for b in range(length) if (2 * b + 1 > length) == boundary]
            if bs:
                yield Instance(f"p={p}, q={q}, T={length}, b in {bs[0]}..{bs[-1]}",
                               {"p": p, "q": q, "T": length, "bs": bs})


def _check_theorem8(claim_id: str):
    def check(instance: Instance) -> ClaimOutcome:
        p, q, length, bs = (instance.params[k] for k in ("p", "q", "T", "bs"))
        model = binary_chain_model(p, q, length)
        curve = chain_influence_curve(model, max_b=max(bs))
        for b in bs:
            exact_ratio = curve.at(b).max_ratio
            paper = theorem8_ratio(p, q, b)
            if exact_ratio != paper:
                literal = theorem8_ratio(p, q, b, absolute=False)
                detail = (f"b={b}: exact a*(b) = {epsilon_str(exact_ratio)} (worst pair "
                          f"{curve.at(b).pair}, H={list(curve.at(b).high)}) but Theorem 8 gives "
                          f"{epsilon_str(paper)} (§6.3 form without |.|: "
                          f"{'log(' + fraction_str(literal) + ')' if literal != INFINITY else 'inf'})")
                return ClaimOutcome(False, detail, counterexample_dict(
                    model, f"counterexample to {claim_id} ({cite(PAPER)}): {instance.label}: "
                    f"{detail}"))
        return ClaimOutcome(True, f"closed form = exact a*(b) for b in {bs[0]}..{bs[-1]}")
    return check


# --------------------------------------------------------------------------------------------
# Theorems 6 and 7
# --------------------------------------------------------------------------------------------

def _bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


def _entry_model(universe: Universe, priors: dict, description: str) -> PufferfishModel:
    pairs = entry_pairs(universe)
    secrets = {s.name: s for pair in pairs for s in (pair.first, pair.second)}
    return PufferfishModel(universe, priors, secrets, pairs, description=description)


def _table(name: str, universe: Universe, weights: list[int]) -> TablePrior:
    datasets = list(universe.datasets())
    total = sum(weights)
    return TablePrior(name, Distribution({d: Fraction(w, total)
                                          for d, w in zip(datasets, weights) if w}))


def _translation_models() -> Iterator[tuple[str, PufferfishModel]]:
    for p, q, length in ((Fraction(4, 5), Fraction(9, 10), 3), (Fraction(1, 5), Fraction(3, 10), 3),
                         (Fraction(2, 3), Fraction(2, 3), 4)):
        yield f"binary chain p={p} q={q} T={length}", binary_chain_model(p, q, length)
    u3 = _bits(3)
    yield "independent bits", _entry_model(u3, {"ind": IndependentPrior(
        "ind", u3.attributes, tuple(Distribution({0: Fraction(k, 5), 1: 1 - Fraction(k, 5)})
                                    for k in (1, 2, 4)))}, "independent prior")
    # x1 and x3 agree more than a chain through x2 allows: not a Markov chain
    non_markov = _table("non-markov", u3, [4, 1, 2, 1, 1, 2, 1, 4])
    yield "non-Markov table", _entry_model(u3, {"non-markov": non_markov}, "non-Markov table prior")
    yield "family of two tables", _entry_model(u3, {
        "non-markov": non_markov, "skewed": _table("skewed", u3, [6, 1, 1, 3, 2, 1, 1, 1])},
        "two-prior family")
    yield "table with zeros", _entry_model(u3, {"zeros": _table("zeros", u3, [3, 0, 1, 2, 2, 1, 0, 3])},
                                           "table prior with impossible datasets")
    u2 = Universe.product(["x1", "x2"], [[0, 1, 2]] * 2)
    yield "3-valued pair", _entry_model(u2, {"t": _table("t", u2, [5, 2, 1, 2, 4, 1, 1, 1, 3])},
                                        "3-valued entries, table prior")


def _mechanisms(universe: Universe) -> list:
    mechs = [RandomizedResponse("rr3/4", universe, Fraction(3, 4)),
             RandomizedResponse("rr3/5", universe, Fraction(3, 5))]
    if all(d == (0, 1) for d in universe.domains):
        for alpha in (Fraction(1, 2), Fraction(4, 5)):
            mechs.append(QueryMechanism(f"count+geo({alpha})", universe, Query("count", universe),
                                        GeometricNoise(alpha, 0, universe.width)))
    return mechs


def _translation_instances() -> Iterator[Instance]:
    for label, model in _translation_models():
        yield Instance(label, {"model": model})


def _curve(model: PufferfishModel):
    return influence_curve(model)


def _bound(curve, ratios_dp: list[Ratio], chosen: list[int]) -> Ratio:
    """Theorem 7 with ε_pufferℓ = bℓ ε_DPℓ + aℓ: ``max aℓ + Σ bℓ ε_DPℓ`` as a ratio."""
    top = max((curve.at(b).max_ratio for b in chosen), key=ratio_key)
    total: Ratio = top
    for r, b in zip(ratios_dp, chosen):
        if total == INFINITY or r == INFINITY:
            return INFINITY
        total *= r ** b
    return total


def _check_theorem6(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    curve = _curve(model)
    checked = 0
    for mech in _mechanisms(model.universe):
        r_dp = dp_level(model.universe, mech, "entry").max_ratio
        level = pufferfish_level(model, mech).level_ratio
        for point in curve.points:
            if point.max_ratio == INFINITY:
                continue
            bound = _bound(curve, [r_dp], [point.b])
            checked += 1
            if ratio_key(level) > ratio_key(bound):
                detail = (f"{mech.name} (per-entry ε_DP = {epsilon_str(r_dp)}) has Pufferfish "
                          f"level {epsilon_str(level)} > b·ε_DP + a = {epsilon_str(bound)} at "
                          f"b={point.b}, a={point.epsilon}")
                return ClaimOutcome(False, detail, counterexample_dict(
                    model, f"counterexample to 000.thm6.translation: {detail}"))
    return ClaimOutcome(True, f"{checked} (mechanism, point) bounds hold exactly")


def _check_theorem7(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    curve = _curve(model)
    mechs = _mechanisms(model.universe)
    finite = [p.b for p in curve.points if p.max_ratio != INFINITY]
    checked = 0
    for first, second in ((mechs[0], mechs[1]), (mechs[0], mechs[-1])):
        ratios = [dp_level(model.universe, m, "entry").max_ratio for m in (first, second)]
        joint = pufferfish_level(model, compose([first, second])).level_ratio
        for chosen in product(finite, repeat=2):
            bound = _bound(curve, ratios, list(chosen))
            checked += 1
            if ratio_key(joint) > ratio_key(bound):
                detail = (f"joint release of {first.name} and {second.name} has level "
                          f"{epsilon_str(joint)} > Theorem 7's bound {epsilon_str(bound)} with "
                          f"points b = {chosen}")
                return ClaimOutcome(False, detail, counterexample_dict(
                    model, f"counterexample to 000.thm7.composition: {detail}"))
    return ClaimOutcome(True, f"{checked} joint-release bounds hold exactly")


# --------------------------------------------------------------------------------------------
# Theorem 9 (certified)
# --------------------------------------------------------------------------------------------

THEOREM9_DIMENSIONS = (3, 4, 5, 6)
THEOREM9_LENGTHS = (Fraction(1, 2), Fraction(2), Fraction(5))


def _theorem9_instances(first_b: int) -> Iterator[Instance]:
    """Every ``b`` from ``first_b`` to ``n`` (``b = n``: ``L = ∅``, the boundary where every
    ``a*`` is 0) for short, medium and long kernels ``ℓ`` and ``n = 3..6``."""
    for n in THEOREM9_DIMENSIONS:
        for ell in THEOREM9_LENGTHS:
            for b in range(first_b, n + 1):
                yield Instance(f"n={n}, ell={ell}, b={b}", {"n": n, "ell": ell, "b": b})


@lru_cache(maxsize=None)
def _leakage_cache(ell: Fraction, gamma: Fraction, delta: Fraction):
    """One enclosure cache per ``(ℓ, γ, δ)``, shared by every instance and coordinate (``a†``
    depends on the offsets of ``L`` only)."""
    from pufferfish.verify.influence.gaussian import GaussianSetting
    from pufferfish.verify.influence.gaussian_bound import LeakageCache

    return LeakageCache(GaussianSetting(1, ell, gamma, delta))


def _setting(instance: Instance):
    from pufferfish.verify.influence.gaussian import GaussianSetting

    setting = GaussianSetting(instance.params["n"], instance.params["ell"])
    return setting, _leakage_cache(setting.ell, setting.gamma, setting.delta)


def _low_sets(setting, coordinate: int, b: int) -> list[tuple[int, tuple[int, ...]]]:
    others = [j for j in range(setting.n) if j != coordinate]
    return [(coordinate, low) for low in combinations(others, setting.n - b)]


def _outcome(verdict: str, detail: str) -> ClaimOutcome:
    if verdict == "undecided":
        return ClaimOutcome.undecided_at(detail)
    return ClaimOutcome(verdict == "holds", detail)


def claimed_worst_coordinate(setting) -> int:
    """Theorem 9: the coordinate with the largest a*(b) is the centre ``i* = ⌈n/2⌉`` (0-based)."""
    return setting.centre


def claimed_low_sets(setting, coordinate: int, b: int) -> list[tuple[int, ...]]:
    """Theorem 9 (1): the low-influence sets of size ``n − b`` farthest from ``coordinate``."""
    from pufferfish.verify.influence.gaussian import farthest_low_sets

    return farthest_low_sets(setting, coordinate, b)


def _nearest_low_sets(setting, coordinate: int, b: int) -> list[tuple[int, ...]]:
    """Mutant of Theorem 9 (1): the ``n − b`` indices *nearest* to ``coordinate``."""
    others = sorted((j for j in range(setting.n) if j != coordinate),
                    key=lambda j: (abs(j - coordinate), j))
    return [tuple(sorted(others[:max(0, setting.n - b)]))]


def _check_theorem9_centre(instance: Instance) -> ClaimOutcome:
    from pufferfish.verify.influence.gaussian_compare import compare_minima

    setting, cache = _setting(instance)
    b = instance.params["b"]
    claimed = claimed_worst_coordinate(setting)
    if b == 0:
        return ClaimOutcome(True, "b=0: L is every coordinate, so a*_i(0) = ∞ at every i (equal)")
    undecided = []
    compared = []
    for i in range(setting.n):
        if i == claimed:
            continue
        result = compare_minima(cache, _low_sets(setting, claimed, b), _low_sets(setting, i, b))
        text = (f"a*_{claimed + 1}(b) ∈ {_bounds_text(result.left)}, a*_{i + 1}(b) ∈ "
                f"{_bounds_text(result.right)}")
        if result.verdict == "violated":
            return violation("000.thm9.centre", PAPER, instance,
                             f"(certified) the claimed worst coordinate has the smaller a*(b): "
                             f"{text}")
        (undecided if result.verdict == "undecided" else compared).append(text)
    if undecided:
        return ClaimOutcome.undecided_at("(certified enclosures overlap) " + "; ".join(undecided))
    return ClaimOutcome(True, f"(certified) a*_{claimed + 1}(b) >= a*_i(b) for every i: "
                              + "; ".join(compared))


def _bounds_text(bounds: tuple[Fraction, Fraction]) -> str:
    low, high = bounds
    return f"{float(low):.8g}" if low == high else f"[{float(low):.8g}, {float(high):.8g}]"


def _check_theorem9_farthest(instance: Instance) -> ClaimOutcome:
    from pufferfish.verify.influence.gaussian_compare import compare_minima

    setting, cache = _setting(instance)
    b = instance.params["b"]
    i = setting.centre
    far = [(i, low) for low in claimed_low_sets(setting, i, b)]
    result = compare_minima(cache, _low_sets(setting, i, b), far)
    detail = (f"(certified) best farthest L (any tie-break) = {[j + 1 for j in result.right_best[1]]}: "
              f"a† ∈ {_bounds_text(result.right)}; min over every L "
              f"(at L = {[j + 1 for j in result.left_best[1]]}) ∈ {_bounds_text(result.left)}")
    if result.witness is not None:
        detail += f"; L = {[j + 1 for j in result.witness[1]]} does better than every farthest L"
    return _outcome(result.verdict, detail)


# --------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------

def _claim(claim_id: str, section: str, statement: str, generate, check,
           observation: bool = False, mutants: tuple[Mutant, ...] = ()) -> None:
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation, mutants))


_THIS = sys.modules[__name__]
_ORIGINAL_THEOREM8 = theorem8_ratio


def _theorem8_mutant(claim_id: str, shift: int, instances: list[Instance]) -> tuple[Mutant, ...]:
    """Theorem 8's closed form evaluated at ``b + shift``: d_L, d_R off by one."""
    def shifted(p: Fraction, q: Fraction, b: int, absolute: bool = True) -> Ratio:
        return _ORIGINAL_THEOREM8(p, q, b + shift, absolute)

    return (patched(f"d_L, d_R computed from b {'+' if shift > 0 else '−'} {abs(shift)}",
                    _check_theorem8(claim_id), instances, _THIS, theorem8_ratio=shifted),)


def _bound_without_a(curve, ratios_dp: list[Ratio], chosen: list[int]) -> Ratio:
    """Mutant of Theorems 6–7: the bound Σ bℓ ε_DPℓ without the curve's a."""
    total: Ratio = Fraction(1)
    for r, b in zip(ratios_dp, chosen):
        if r == INFINITY:
            return INFINITY
        total *= r ** b
    return total


def _chain_instances() -> list[Instance]:
    return [i for i in _translation_instances() if i.label.startswith("binary chain")][:2]


_SMALL_THEOREM9 = [Instance("n=4, ell=2, b=1", {"n": 4, "ell": Fraction(2), "b": 1})]


_claim("000.thm8.closed_form", "§6.3, Theorem 8 (Appendix C statement)",
       "For the binary chain of Example 6.1 started in its stationary distribution, with every "
       "node's value a secret, a*(b) = |log x(d_L)| + |log x(d_R)| with x(d) = (π + λ^d(1−π))/"
       "(π − λ^d π), π = π0 if q > p else π1, λ = p + q − 1, d_L = ⌊(b+1)/2⌋, d_R = ⌈(b+1)/2⌉ "
       "(checked exactly for every b with 2b + 1 <= T, the paper's 'T large enough').",
       lambda: _theorem8_instances(False), _check_theorem8("000.thm8.closed_form"),
       mutants=_theorem8_mutant("000.thm8.closed_form", 1, [
           Instance("p=1/100, q=1/100, T=5, b in 0..2", {"p": Fraction(1, 100), "q": Fraction(1, 100),
                                                         "T": 5, "bs": [0, 1, 2]})]))
_claim("000.thm8.boundary", "§6.3, Theorem 8 (observation beyond the paper)",
       "Observation: whether Theorem 8's closed form still equals the exact a*(b) for b <= T − 1 "
       "with 2b + 1 > T, where the chain's ends let the high-influence set reach a boundary.",
       lambda: _theorem8_instances(True), _check_theorem8("000.thm8.boundary"), observation=True,
       mutants=_theorem8_mutant("000.thm8.boundary", -1, [
           Instance("p=1/10, q=9/10, T=2, b in 1..1", {"p": Fraction(1, 10), "q": Fraction(9, 10),
                                                       "T": 2, "bs": [1]})]))
_claim("000.thm6.translation", "§6.2, Theorem 6",
       "If (a, b) is a point of the a(b)-influence curve and M is per-entry ε_DP-DP, then M is "
       "(b·ε_DP + a)-Pufferfish (checked with the exact a*(b) curve and exact levels).",
       _translation_instances, _check_theorem6,
       mutants=(patched("bound b·ε_DP without a", _check_theorem6, _chain_instances, _THIS,
                        _bound=_bound_without_a),))
_claim("000.thm7.composition", "§6.2, Theorem 7",
       "Mechanisms M_ℓ, per-entry ε_DPℓ-DP with ε_DPℓ <= (ε_pufferℓ − aℓ)/bℓ, jointly satisfy "
       "(max_ℓ aℓ + Σ ε_pufferℓ − Σ aℓ)-Pufferfish (checked with ε_pufferℓ = bℓ ε_DPℓ + aℓ for "
       "every choice of finite curve points, exactly).",
       _translation_instances, _check_theorem7,
       mutants=(patched("bound Σ bℓ ε_DPℓ without max aℓ", _check_theorem7, _chain_instances, _THIS,
                        _bound=_bound_without_a),))
_claim("000.thm9.centre", "§6.3, Theorem 9",
       "In Example 6.2 the centre coordinate i* = ⌈n/2⌉ has the largest a*(b) (certified: "
       "interval enclosures of a†(L) over the whole region range, every L of every coordinate; "
       "equal offset classes are equal exactly).",
       lambda: _theorem9_instances(0), _check_theorem9_centre,
       mutants=(patched("the first coordinate instead of the centre", _check_theorem9_centre,
                        _SMALL_THEOREM9, _THIS, claimed_worst_coordinate=lambda setting: 0),))
_claim("000.thm9.farthest_low", "§6.3, Theorem 9 (1)",
       "In Example 6.2, for each b the low-influence set of size n − b farthest from i* minimises "
       "a†(L) (ties in distance broken in the best way; certified: interval enclosures of a†(L) "
       "over the whole region range, every L; equal offset classes are equal exactly).",
       lambda: _theorem9_instances(1), _check_theorem9_farthest,
       mutants=(patched("the nearest low-influence set instead of the farthest",
                        _check_theorem9_farthest,
                        [Instance("n=6, ell=2, b=3", {"n": 6, "ell": Fraction(2), "b": 3})], _THIS,
                        claimed_low_sets=_nearest_low_sets),))
