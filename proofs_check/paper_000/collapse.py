"""Claims of Bai et al., Composition for Pufferfish Privacy, §4.

Every sentence of Theorems 1–3 (privacy collapse) that can be decided on a finite instance is a
registered :class:`~pufferfish.proofs_check.registry.Claim`, plus the sentences of Examples 4.1–4.3 that say
two runs suffice to reveal, and the closed form the proof of Theorem 1 derives (Appendix C):

=============================  ==============================================================
``000.thm1.zero_leakage``      Theorem 1: posteriors of s1, s2 equal their priors for every
                               output; hence zero leakage (Pufferfish level 0)
``000.thm1.expected_runs_bound``  Theorem 1: E[runs to reveal D] <= 1 + 1/(1 − max_D max_s Pr(D|s))
``000.thm1.expected_runs_formula``  App. C: E[runs] = 1 + Σ_s Pr(s) Σ_D' p(D'|s̄)/(1 − p(D'|s̄))
``000.ex41.two_runs``          Example 4.1: two runs can reveal (two-run level infinite)
``000.thm2.zero_leakage``      Theorem 2: posteriors of every bit secret equal their priors;
                               zero leakage (Pufferfish level 0)
``000.thm2.expected_runs``     Theorem 2: E[runs to reveal D] = 3
``000.ex42.two_runs``          Example 4.2: two runs can reveal (two-run level infinite)
``000.thm3.epsilon``           Theorem 3: M* is ε-Pufferfish, ε = max |log x| of eight ratios
``000.thm3.expected_runs``     Theorem 3: E[runs to reveal the secret] = 3 (members of Θ)
``000.ex43.two_runs``          Example 4.3: finite level for one run, infinite for two
``000.thm3.epsilon_tight``     observation beyond the paper: the exact level equals ε
=============================  ==============================================================

Theorem 3 writes ``log|x|``; the claims read it as ``|log x|`` (see :mod:`pufferfish.proofs_check.paper_000.collapse_report`, which
also reports the literal value).  The checks compute every quantity with the toolkit's exact
algorithms (:mod:`pufferfish.verify.privacy.leakage`, :mod:`pufferfish.verify.privacy.pufferfish`, :mod:`pufferfish.verify.privacy.expected_runs`) and
compare with the paper's value; nothing is tuned for the paper to pass.

Instance generators cover the parameter ranges, smallest sizes included: for Theorem 1 several
universes (one attribute with 4 or 6 values, 2 and 3 bits, secrets that do not cover the
universe), priors (uniform, skewed, with zero-probability datasets, peaked with ``Pr(D|s)`` up to
``1 − 10^-6``) and both orders of the secrets; for Theorem 2 ``n = 3, 4, 5, 6``; for Theorem 3 a
grid of intervals (degenerate ``L = U``, near 0 and 1, asymmetric) and block sizes.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from fractions import Fraction
from itertools import product

from pufferfish.bibliography import paper
from pufferfish.proofs_check.paper_000.collapse_examples import (interval_example, interval_member_prior, interval_parameters,
                             parity_example, peaked_prior, resample_example, weighted_prior)
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import repeat
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, epsilon_str, fraction_str
from pufferfish.models.priors import IndependentPrior, Prior, UniformPrior
from pufferfish.models.secrets import Secret
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.mutation import patched
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register, violation
from pufferfish.proofs_check.paper_000.collapse_report import (resample_parts, theorem1_bound, theorem1_expected_runs,
                             theorem3_ratio, theorem3_ratios)
from pufferfish.verify.privacy.expected_runs import dataset_classes, expected_runs_to_reveal, pair_classes
from pufferfish.verify.privacy.leakage import leakage
from pufferfish.verify.privacy.pufferfish import pufferfish_level, ratio_key

PAPER = paper("000").key


def _fail(model: PufferfishModel, claim_id: str, instance: Instance, detail: str) -> ClaimOutcome:
    return violation(claim_id, PAPER, instance, detail, model)


def _outcome(holds: bool, model: PufferfishModel, claim_id: str, instance: Instance,
             detail: str) -> ClaimOutcome:
    return ClaimOutcome(True, detail) if holds else _fail(model, claim_id, instance, detail)


# --------------------------------------------------------------------------------------------
# Theorem 1 / Example 4.1
# --------------------------------------------------------------------------------------------

def _bits(n: int) -> Universe:
    return Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)


def _theorem1_settings() -> Iterator[tuple[str, Universe, Secret, Secret]]:
    x4 = Universe.product(["x"], [[0, 1, 2, 3]])
    yield ("x in {0..3}", x4, Secret.where("x<=1", x4, {"x": [0, 1]}),
           Secret.where("x>=2", x4, {"x": [2, 3]}))
    x6 = Universe.product(["x"], [[0, 1, 2, 3, 4, 5]])
    yield ("x in {0..5} (x=5 in neither secret)", x6, Secret.where("x<=2", x6, {"x": [0, 1, 2]}),
           Secret.where("x in 3,4", x6, {"x": [3, 4]}))
    b2 = _bits(2)
    yield ("2 bits", b2, Secret.where("x1=0", b2, {"x1": 0}), Secret.where("x1=1", b2, {"x1": 1}))
    b3 = _bits(3)
    yield ("3 bits", b3, Secret.where("x1=0", b3, {"x1": 0}), Secret.where("x1=1", b3, {"x1": 1}))
    yield ("3 bits, secret on the sum", b3,
           Secret.from_predicate("sum<=1", lambda d: sum(d) <= 1),
           Secret.from_predicate("sum>=2", lambda d: sum(d) >= 2))
    yield ("3 bits (x2=0,x3=1 in neither secret)", b3, Secret.where("x2=1", b3, {"x2": 1}),
           Secret.where("x2=0,x3=0", b3, {"x2": 0, "x3": 0}))


def _theorem1_priors(universe: Universe, first: Secret, second: Secret) -> Iterator[Prior]:
    datasets = list(universe.datasets())
    yield UniformPrior("uniform", universe)
    if all(d == (0, 1) for d in universe.domains):
        yield IndependentPrior("skewed", universe.attributes, tuple(
            Distribution({0: 1 - Fraction(1, i + 2), 1: Fraction(1, i + 2)})
            for i in range(1, universe.width + 1)))
    else:
        yield weighted_prior("skewed", datasets, [k + 1 for k in range(len(datasets))])
    # zeros: every other dataset of a secret beyond its first two, and every dataset of neither
    weights, position, zeros = [], {first.name: 0, second.name: 0}, 0
    for k, dataset in enumerate(datasets):
        side = first.name if first.holds(dataset) else second.name if second.holds(dataset) else None
        if side is None:
            weights.append(0)
            zeros += 1
            continue
        keep = position[side] < 2 or position[side] % 2 == 1
        position[side] += 1
        weights.append(k + 1 if keep else 0)
        zeros += not keep
    if zeros:
        yield weighted_prior("with zeros", datasets, weights)
    yield peaked_prior("peaked 999/1000", datasets, [first, second],
                       [Fraction(999, 1000), Fraction(99, 100)])
    yield peaked_prior("peaked 1-10^-6", datasets, [first, second],
                       [Fraction(1, 2), Fraction(999_999, 1_000_000)])


def theorem1_instances() -> Iterator[Instance]:
    """Example 4.1 instances: universes × priors × both orders of the secrets."""
    for name, universe, first, second in _theorem1_settings():
        for prior in _theorem1_priors(universe, first, second):
            for s1, s2 in ((first, second), (second, first)):
                label = f"{name}, s1={s1.name}, s2={s2.name}, prior {prior.name}"
                params = {"universe": universe, "prior": prior, "first": s1, "second": s2}
                try:
                    resample_example(universe, prior, s1, s2)
                except ModelError:
                    continue        # outside Example 4.1's hypotheses: not an instance
                yield Instance(label, params)


def _resample_model(instance: Instance) -> PufferfishModel:
    p = instance.params
    return resample_example(p["universe"], p["prior"], p["first"], p["second"])


def _zero_leakage(claim_id: str) -> Callable[[Instance], ClaimOutcome]:
    def check(instance: Instance) -> ClaimOutcome:
        model = _resample_model(instance) if "universe" in instance.params else \
            parity_example(instance.params["n"])
        mechanism = model.mechanism("collapse")
        leak = leakage(model, mechanism)
        level = pufferfish_level(model, mechanism)
        holds = leak.zero_leakage and level.level_ratio == 1
        detail = f"{leak.explain()}; one-run Pufferfish ε = {level.epsilon}"
        return _outcome(holds, model, claim_id, instance, detail)
    return check


def _resample_runs(model: PufferfishModel):
    prior, _, _ = resample_parts(model)
    return expected_runs_to_reveal(model.mechanism("collapse"), prior, dataset_classes(),
                                   "dataset").expected_runs


def _check_thm1_bound(instance: Instance) -> ClaimOutcome:
    model = _resample_model(instance)
    runs, bound = _resample_runs(model), theorem1_bound(model)
    return _outcome(ratio_key(runs) <= ratio_key(bound), model, "000.thm1.expected_runs_bound",
                    instance, f"exact expected runs {fraction_str(runs)} vs bound "
                              f"{fraction_str(bound)}")


def _check_thm1_formula(instance: Instance) -> ClaimOutcome:
    model = _resample_model(instance)
    runs, formula = _resample_runs(model), theorem1_expected_runs(model)
    return _outcome(runs == formula, model, "000.thm1.expected_runs_formula", instance,
                    f"exact expected runs {fraction_str(runs)} vs closed form "
                    f"{fraction_str(formula)}")


def _two_runs(claim_id: str, build: Callable[[Instance], PufferfishModel],
              single_finite: bool = False) -> Callable[[Instance], ClaimOutcome]:
    def check(instance: Instance) -> ClaimOutcome:
        model = build(instance)
        mechanism = model.mechanism("collapse")
        double = pufferfish_level(model, repeat(mechanism, 2))
        holds = double.level_ratio == INFINITY
        detail = f"two-run Pufferfish ε = {double.epsilon}"
        if single_finite:
            single = pufferfish_level(model, mechanism)
            holds = holds and single.level_ratio != INFINITY
            detail = f"one-run ε = {single.epsilon}, " + detail
        return _outcome(holds, model, claim_id, instance, detail)
    return check


# --------------------------------------------------------------------------------------------
# Theorem 2 / Example 4.2
# --------------------------------------------------------------------------------------------

EXPECTED_RUNS = 3
"""Theorems 2 and 3: the expected number of runs to reveal the dataset (the secret) is 3."""


def theorem2_instances() -> Iterator[Instance]:
    """Example 4.2 on n = 3, 4, 5, 6 bits (odd and even, smallest first)."""
    for n in (3, 4, 5, 6):
        yield Instance(f"n={n}", {"n": n})


def _parity_model(instance: Instance) -> PufferfishModel:
    return parity_example(instance.params["n"])


def _check_thm2_runs(instance: Instance) -> ClaimOutcome:
    model = _parity_model(instance)
    prior = model.finite_priors["uniform"].distribution()
    runs = expected_runs_to_reveal(model.mechanism("collapse"), prior, dataset_classes(),
                                   "dataset").expected_runs
    return _outcome(runs == EXPECTED_RUNS, model, "000.thm2.expected_runs", instance,
                    f"exact expected runs {fraction_str(runs)} vs the paper's 3")


# --------------------------------------------------------------------------------------------
# Theorem 3 / Example 4.3
# --------------------------------------------------------------------------------------------

_INTERVALS = (
    (Fraction(1, 5), Fraction(2, 5)), (Fraction(3, 10), Fraction(1, 2)),
    (Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 100), Fraction(1, 100)),
    (Fraction(99, 100), Fraction(99, 100)), (Fraction(1, 1000), Fraction(999, 1000)),
    (Fraction(1, 3), Fraction(2, 3)), (Fraction(9, 10), Fraction(99, 100)),
    (Fraction(1, 100), Fraction(1, 50)),
)
_SIZES = ((1, 1, 1, 1), (2, 1, 1, 3), (1, 3, 2, 1))


def theorem3_instances() -> Iterator[Instance]:
    """Example 4.3 on every pair of intervals of the grid × block sizes."""
    for (lt, ut), (lf, uf), sizes in product(_INTERVALS, _INTERVALS, _SIZES):
        label = (f"L_T={fraction_str(lt)}, U_T={fraction_str(ut)}, L_F={fraction_str(lf)}, "
                 f"U_F={fraction_str(uf)}, block sizes {sizes}")
        yield Instance(label, {"lt": lt, "ut": ut, "lf": lf, "uf": uf, "sizes": sizes})


def _interval_model(instance: Instance) -> PufferfishModel:
    p = instance.params
    return interval_example(p["lt"], p["ut"], p["lf"], p["uf"], *p["sizes"])


def _epsilon_check(claim_id: str, tight: bool) -> Callable[[Instance], ClaimOutcome]:
    def check(instance: Instance) -> ClaimOutcome:
        model = _interval_model(instance)
        level = pufferfish_level(model, model.mechanism("collapse")).level_ratio
        r = theorem3_ratio(*interval_parameters(model))
        holds = level == r if tight else ratio_key(level) <= ratio_key(r)
        return _outcome(holds, model, claim_id, instance,
                        f"exact level {epsilon_str(level)} vs Theorem 3's ε = {epsilon_str(r)}")
    return check


_MEMBERS = (
    {"pr_true": Fraction(1, 2)},
    {"pr_true": Fraction(1, 7), "mass_true": "lower", "mass_false": "upper", "spread": "skewed"},
    {"pr_true": Fraction(9, 10), "mass_true": "upper", "mass_false": "lower", "spread": "skewed"},
)


def _check_thm3_runs(instance: Instance) -> ClaimOutcome:
    model = _interval_model(instance)
    lt, ut, lf, uf = interval_parameters(model)
    ends = {"lower": (lt, lf), "upper": (ut, uf)}
    for k, member in enumerate(_MEMBERS):
        args = dict(member)
        if "mass_true" in args:
            args["mass_true"] = ends[args["mass_true"]][0]
            args["mass_false"] = ends[args["mass_false"]][1]
        prior = interval_member_prior(model, name=f"member{k}", **args)
        runs = expected_runs_to_reveal(model.mechanism("collapse"), prior.distribution(),
                                       pair_classes(model.pairs[0]), "secret").expected_runs
        if runs != EXPECTED_RUNS:
            finite = PufferfishModel(model.universe, {prior.name: prior}, model.secrets,
                                     model.pairs, model.mechanisms, model.description)
            return _fail(finite, "000.thm3.expected_runs", instance,
                         f"exact expected runs {fraction_str(runs)} vs the paper's 3 under member "
                         f"prior {prior.name} of Θ")
    return ClaimOutcome(True, f"expected runs 3 under {len(_MEMBERS)} member priors of Θ")


# --------------------------------------------------------------------------------------------
# Registration
# --------------------------------------------------------------------------------------------

def _claim(claim_id: str, section: str, statement: str, generate, check,
           observation: bool = False, mutants: tuple[Mutant, ...] = ()) -> None:
    register(Claim(claim_id, PAPER, section, statement, generate, check, observation, mutants))


# --------------------------------------------------------------------------------------------
# Mutants: wrong versions of the statements that the checks must reject
# --------------------------------------------------------------------------------------------

_THIS = sys.modules[__name__]
_ORIGINAL = {"resample_example": resample_example, "parity_example": parity_example,
             "repeat": repeat}


def _some_theorem1(count: int = 3, prior: str = "skewed") -> list[Instance]:
    return [i for i in theorem1_instances() if i.params["prior"].name == prior][:count]


def _some_theorem3() -> list[Instance]:
    return [i for i in theorem3_instances() if i.params["sizes"] == (1, 1, 1, 1)][:12]


def _mechanism_for_another_prior(universe, prior, first, second):
    """Example 4.1's M* built from the uniform prior, audited under ``prior`` (breaks the
    hypothesis that M* resamples from the attacker's θ*)."""
    built = _ORIGINAL["resample_example"](universe, UniformPrior("uniform", universe), first, second)
    return PufferfishModel(built.universe, {prior.name: prior}, built.secrets, built.pairs,
                           built.mechanisms, built.description)


def _skewed_parity(n: int) -> PufferfishModel:
    """Example 4.2's mechanism under a non-uniform product prior (the theorem assumes uniform)."""
    model = _ORIGINAL["parity_example"](n)
    skewed = IndependentPrior("skewed", model.universe.attributes, tuple(
        Distribution({0: Fraction(2, 3), 1: Fraction(1, 3)}) for _ in model.universe.attributes))
    return PufferfishModel(model.universe, {"skewed": skewed}, model.secrets, model.pairs,
                           model.mechanisms, model.description)


def _one_run(mechanism, runs):
    """The number of runs changed from 2 to 1."""
    return _ORIGINAL["repeat"](mechanism, 1)


_ZERO_LEAKAGE_1 = (patched("M* resamples from another prior than the attacker's θ*",
                           _zero_leakage("000.thm1.zero_leakage"), lambda: _some_theorem1(2),
                           _THIS, resample_example=_mechanism_for_another_prior),)
_ZERO_LEAKAGE_2 = (patched("Example 4.2 under a non-uniform prior (hypothesis dropped)",
                           _zero_leakage("000.thm2.zero_leakage"), [Instance("n=3", {"n": 3})],
                           _THIS, parity_example=_skewed_parity),)
_RUNS_BOUND = (patched("bound without its leading 1: 1/(1 − max Pr(D|s))", _check_thm1_bound,
                       lambda: _some_theorem1(3, "uniform"), _THIS,
                       theorem1_bound=lambda model: _original_theorem1_bound(model) - 1),)
_RUNS_FORMULA = (patched("closed form with Σ p/(1 − p) replaced by Σ p", _check_thm1_formula,
                         lambda: _some_theorem1(3), _THIS,
                         theorem1_expected_runs=lambda model: _formula_without_denominator(model)),)


def _formula_without_denominator(model: PufferfishModel):
    prior, first, second = resample_parts(model)
    total = Fraction(1)
    for secret, other in ((first, second), (second, first)):
        mass = sum((p for d, p in prior.items() if secret.holds(d)), Fraction(0))
        rest = prior.condition(other.holds)
        total += mass * sum((p for _, p in rest.items()), Fraction(0))
    return total


def _two_runs_mutant(claim_id: str, build, instances, single_finite: bool = False) -> tuple:
    return (patched("two runs replaced by one run", _two_runs(claim_id, build, single_finite),
                    instances, _THIS, repeat=_one_run),)


def _runs_mutant(check, instances) -> tuple:
    return (patched("expected runs 2 instead of 3", check, instances, _THIS, EXPECTED_RUNS=2),)


def _only_first_four(lt, ut, lf, uf):
    return max(max(x, 1 / x) for _, x in theorem3_ratios(lt, ut, lf, uf)[:4])


def _theorem3_mutants(claim_id: str, tight: bool) -> tuple:
    if tight:
        return (patched("ε doubled (e^ε squared)", _epsilon_check(claim_id, tight), _some_theorem3,
                        _THIS, theorem3_ratio=lambda *a: _original_theorem3_ratio(*a) ** 2),)
    return (patched("only the first four of the eight ratios", _epsilon_check(claim_id, tight),
                    _some_theorem3, _THIS, theorem3_ratio=_only_first_four),)


_original_theorem3_ratio = theorem3_ratio
_original_theorem1_bound = theorem1_bound


_claim("000.thm1.zero_leakage", "§4, Theorem 1",
       "For the mechanism of Example 4.1 and every output ω, Pr(s1 | M*(Data) = ω, θ*) = "
       "Pr(s1 | θ*) and Pr(s2 | M*(Data) = ω, θ*) = Pr(s2 | θ*); thus M* has zero leakage under "
       "posterior-based privacy definitions (Pufferfish level 0).",
       theorem1_instances, _zero_leakage("000.thm1.zero_leakage"),
       mutants=_ZERO_LEAKAGE_1)
_claim("000.thm1.expected_runs_bound", "§4, Theorem 1",
       "If M* is run multiple times, the expected number of runs before the input dataset is "
       "revealed is <= 1 + 1/(1 - max_D max_{s_i} Pr(D | s_i)).",
       theorem1_instances, _check_thm1_bound, mutants=_RUNS_BOUND)
_claim("000.thm1.expected_runs_formula", "Appendix C, proof of Theorem 1",
       "The expected number of runs before the input dataset is revealed equals "
       "1 + Σ_{D'} Pr(D'|s̄, θ*)/(1 - Pr(D'|s̄, θ*)) given secret s (s̄ the other one), i.e. "
       "1 + Σ_s Pr(s) Σ_{D'} p(D'|s̄)/(1 - p(D'|s̄)) overall.",
       theorem1_instances, _check_thm1_formula, mutants=_RUNS_FORMULA)
_claim("000.ex41.two_runs", "§4, Example 4.1",
       "The mechanism of Example 4.1 can reveal the truth with as few as two runs: the Pufferfish "
       "level of two runs is infinite.",
       theorem1_instances, _two_runs("000.ex41.two_runs", _resample_model),
       mutants=_two_runs_mutant("000.ex41.two_runs", _resample_model, lambda: _some_theorem1(2)))
_claim("000.thm2.zero_leakage", "§4, Theorem 2",
       "For the mechanism of Example 4.2 and every output ω, Pr(s_j^(i) | M*(Data) = ω, θ*) = "
       "Pr(s_j^(i) | θ*) for all i = 1..n and j in {0, 1}; thus M* has zero leakage under "
       "posterior-based privacy definitions (Pufferfish level 0).",
       theorem2_instances, _zero_leakage("000.thm2.zero_leakage"), mutants=_ZERO_LEAKAGE_2)
_claim("000.thm2.expected_runs", "§4, Theorem 2",
       "The expected number of runs of the mechanism of Example 4.2 before the input dataset is "
       "revealed is 3.",
       theorem2_instances, _check_thm2_runs,
       mutants=_runs_mutant(_check_thm2_runs, [Instance("n=3", {"n": 3})]))
_claim("000.ex42.two_runs", "§4, Example 4.2",
       "The dataset of Example 4.2 could be reconstructed by running M* as few as 2 times: the "
       "Pufferfish level of two runs is infinite.",
       theorem2_instances, _two_runs("000.ex42.two_runs", _parity_model),
       mutants=_two_runs_mutant("000.ex42.two_runs", _parity_model, [Instance("n=3", {"n": 3})]))
_claim("000.thm3.epsilon", "§4, Theorem 3",
       "The mechanism of Example 4.3 satisfies ε-Pufferfish privacy for ε = the maximum of "
       "|log x| over x in U_T/L_F, L_T/U_F, (1-U_T)/U_F, (1-L_T)/L_F, L_T/(1-L_F), U_T/(1-U_F), "
       "(1-U_T)/(1-L_F), (1-L_T)/(1-U_F) (the paper writes log|x|; read as |log x|).",
       theorem3_instances, _epsilon_check("000.thm3.epsilon", tight=False),
       mutants=_theorem3_mutants("000.thm3.epsilon", tight=False))
_claim("000.thm3.expected_runs", "§4, Theorem 3",
       "The expected number of runs of the mechanism of Example 4.3 to reveal the true secret "
       "is 3 (checked under several member priors of Θ).",
       theorem3_instances, _check_thm3_runs,
       mutants=_runs_mutant(_check_thm3_runs, lambda: _some_theorem3()[:1]))
_claim("000.ex43.two_runs", "§4, Example 4.3",
       "The mechanism of Example 4.3 has a finite Pufferfish privacy parameter when run once, but "
       "can reveal the secret when run twice (two-run level infinite).",
       theorem3_instances, _two_runs("000.ex43.two_runs", _interval_model, single_finite=True),
       mutants=_two_runs_mutant("000.ex43.two_runs", _interval_model, lambda: _some_theorem3()[:2],
                                single_finite=True))
_claim("000.thm3.epsilon_tight", "§4, Theorem 3 (observation beyond the paper)",
       "Observation, not stated in the paper: Theorem 3's ε is attained — the exact Pufferfish "
       "level of Example 4.3 over the whole interval family Θ equals ε.",
       theorem3_instances, _epsilon_check("000.thm3.epsilon_tight", tight=True), observation=True,
       mutants=_theorem3_mutants("000.thm3.epsilon_tight", tight=True))
