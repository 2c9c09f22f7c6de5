"""Claims of Bai et al., Composition for Pufferfish Privacy, §5.1 (Theorem 4, the NfC linear
programs) and the limit argument of its proof (Appendix C).

=============================  ==============================================================
``000.thm4.dp_one_hot``        per-entry ε_DP mechanisms (randomized response, clamped geometric
                               noise on a count, random ε_DP kernels): ε_DP by brute force over
                               neighbours, then Equation 1 with the one-hot β on D*'s neighbour
                               decided exactly, and the certified program value <= ε_DP
``000.thm4.collapse_fails``    the mechanisms of Examples 4.1–4.3 fail the condition at their
                               single-run Pufferfish levels
``000.thm4.limit``             ε_r / r tends to the largest program value: for every r,
                               r·V − log(1/θ_min) − k·d_max <= ε_r <= r·V + log(1/θ_min)
``000.thm4.strong_duality``    the paper's primal and printed dual programs, written out again
                               from the model and evaluated at the solver's exact α and β with
                               certified logs, enclose both optimal values within 10^-6
=============================  ==============================================================

The sandwich of ``000.thm4.limit`` is the quantitative form of the proof's limit (a weighted
``L_p`` norm tends to the max over datasets of positive weight): for counts ``c`` with
``Σ c = r``, the numerator ``Σ θ(D|s1) Π P^c`` lies between ``θ(D*|s1) Π P*^c`` and
``max_D Π P_D^c``, the denominator between ``θ_min max_ℓ Π P_ℓ^c`` and ``max_ℓ Π P_ℓ^c``; rounding
``r·α`` to integers costs at most ``k·d_max`` with ``d_max = max |log(P*/P_ℓ)|``.  Instances use
kernels with no zero entries so no dataset is excluded.  Every quantity is exact or enclosed
(mpmath intervals); an undecided comparison counts as a failure, never as a pass.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import paper
from pufferfish.proofs_check.paper_000.collapse_examples import (interval_example, interval_member_prior, parity_example,
                             resample_bits_example)
from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import GeometricNoise, Query, QueryMechanism, RandomizedResponse, TableMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.models.priors import MarkovPrior, TablePrior
from pufferfish.models.secrets import entry_pairs, entry_secrets
from pufferfish.models.universe import Universe
from pufferfish.proofs_check.mutation import on, patched
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register, violation
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import (endpoints, interval_context, log_enclosure, log_interval,
                                                  rational_interval)
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.nfc.programs import nfc_programs
from pufferfish.verify.nfc.attack import repeated_run_levels
from pufferfish.verify.privacy.pufferfish import pufferfish_level
from pufferfish.verify.privacy.supports import prior_supports

PAPER = paper("000").key
SECTION = "§5.1, Theorem 4"


def _fail(model: PufferfishModel, claim_id: str, instance: Instance, detail: str) -> ClaimOutcome:
    return violation(claim_id, PAPER, instance, detail, model)


# --------------------------------------------------------------------------------------------
# Instance generators
# --------------------------------------------------------------------------------------------

def _random_prior(universe: Universe, rng: random.Random, name: str) -> TablePrior:
    datasets = list(universe.datasets())
    weights = [rng.randint(1, 9) for _ in datasets]
    total = sum(weights)
    return TablePrior(name, Distribution({d: Fraction(w, total) for d, w in zip(datasets, weights)}))


def _sticky(universe: Universe, stay: Fraction) -> MarkovPrior:
    domain = universe.domains[0]
    other = (1 - stay) / (len(domain) - 1)
    rows = {v: Distribution({w: stay if w == v else other for w in domain}) for v in domain}
    kernel = rows
    return MarkovPrior(f"sticky{stay}", universe.attributes, Distribution.uniform(domain),
                       tuple(kernel for _ in range(universe.width - 1)))


def _random_kernel(universe: Universe, rng: random.Random, outputs: int, name: str) -> TableMechanism:
    rows = {}
    for dataset in universe.datasets():
        weights = [rng.randint(1, 6) for _ in range(outputs)]
        total = sum(weights)
        rows[dataset] = Distribution({f"o{k}": Fraction(w, total) for k, w in enumerate(weights)})
    return TableMechanism(name, rows)


def _entry_model(universe: Universe, priors: dict, mechanism) -> PufferfishModel:
    secrets = entry_secrets(universe)
    return PufferfishModel(universe, priors, secrets, entry_pairs(universe, secrets),
                           {mechanism.name: mechanism})


def dp_instances() -> Iterator[Instance]:
    """Per-entry DP mechanisms on 2–3 binary attributes and a ternary one, full-support priors."""
    rng = random.Random(4)
    universes = [Universe.product(["x1", "x2"], [[0, 1]] * 2),
                 Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3),
                 Universe.product(["x1", "x2"], [[0, 1, 2]] * 2)]
    for u in universes:
        priors = {"random": _random_prior(u, rng, "random"), "sticky": _sticky(u, Fraction(4, 5))}
        for keep in (Fraction(1, 2), Fraction(2, 3), Fraction(9, 10)):
            if len(u.domains[0]) == 3 and keep == Fraction(1, 2):
                keep = Fraction(1, 3)          # keep = 1/3 is the 0-DP point for three values
            yield Instance(f"randomized response keep {keep} on {u.width} attributes of size "
                           f"{len(u.domains[0])}",
                           {"model": _entry_model(u, priors, RandomizedResponse("rr", u, keep))})
        if len(u.domains[0]) == 2:
            for alpha in (Fraction(1, 3), Fraction(4, 5)):
                mech = QueryMechanism("count", u, Query("count", u),
                                      GeometricNoise(alpha, 0, u.width))
                yield Instance(f"geometric α={alpha} on the count of {u.width} bits",
                               {"model": _entry_model(u, priors, mech)})
        for outputs in (2, 3):
            yield Instance(f"random kernel with {outputs} outputs on {u.width} attributes",
                           {"model": _entry_model(u, priors, _random_kernel(u, rng, outputs, "k"))})


def collapse_instances() -> Iterator[Instance]:
    """The collapse mechanisms of Examples 4.1–4.3 (4.3 through member priors of Θ)."""
    for bits, prior in ((2, "uniform"), (2, "skewed"), (3, "sparse")):
        yield Instance(f"Example 4.1, {bits} bits, {prior} prior",
                       {"model": resample_bits_example(bits, prior)})
    for n in (3, 4):
        yield Instance(f"Example 4.2, n = {n}", {"model": parity_example(n)})
    for bounds in (("1/5", "2/5", "3/10", "1/2"), ("1/10", "9/10", "1/2", "1/2")):
        family = interval_example(*(Fraction(b) for b in bounds))
        yield Instance(f"Example 4.3, (L_T, U_T, L_F, U_F) = {bounds}", {"model": family})


def limit_instances() -> Iterator[Instance]:
    """Mechanisms with no zero entries, for the limit ε_r / r → V."""
    rng = random.Random(7)
    u2 = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    coin = TableMechanism("coin", {
        (0, 0): Distribution({"a": "1/4", "b": "3/4"}), (0, 1): Distribution({"a": "3/4", "b": "1/4"}),
        (1, 0): Distribution({"a": "1/2", "b": "1/2"}), (1, 1): Distribution({"a": "1/2", "b": "1/2"})})
    uniform = {"uniform": TablePrior("uniform", Distribution.uniform(list(u2.datasets())))}
    yield Instance("hidden coin (examples/hidden_coin.json)", {"model": _pair_model(u2, uniform, coin)})
    yield Instance("randomized response keep 3/4, sticky chain",
                   {"model": _entry_model(u2, {"s": _sticky(u2, Fraction(9, 10))},
                                          RandomizedResponse("rr", u2, Fraction(3, 4)))})
    for k in range(3):
        yield Instance(f"random kernel #{k} with 2 outputs, random prior",
                       {"model": _pair_model(u2, {"random": _random_prior(u2, rng, "random")},
                                             _random_kernel(u2, rng, 2, "k"))})


def _pair_model(universe: Universe, priors: dict, mechanism) -> PufferfishModel:
    secrets = entry_secrets(universe)
    pairs = [p for p in entry_pairs(universe, secrets) if p.first.name.startswith("x1=")]
    return PufferfishModel(universe, priors, secrets, pairs, {mechanism.name: mechanism})


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------

def _only(model: PufferfishModel):
    return next(iter(model.mechanisms.values()))


def entry_dp_ratio(universe: Universe, mechanism) -> Ratio:
    """``e^{ε_DP}`` of per-entry DP by brute force: the largest ``P(ω|D) / P(ω|D')`` over datasets
    differing in exactly one entry (``∞`` when ``P(ω|D) > 0 = P(ω|D')``).

    Computed here from the definition, independently of :func:`pufferfish.verify.privacy.dp.dp_level`.
    Cost: ``O(|𝒟|² · |Ω|)``.
    """
    datasets = list(universe.datasets())
    worst: Ratio = Fraction(1)
    for first in datasets:
        row = mechanism.distribution(first)
        for second in datasets:
            if sum(a != b for a, b in zip(first, second)) != 1:
                continue
            other = mechanism.distribution(second)
            for output, p in row.items():
                q = other.prob(output)
                if p and not q:
                    return INFINITY
                if p:
                    worst = max(worst, p / q)
    return worst


def _support(model: PufferfishModel, prior: str, secret: str) -> list:
    holds = model.secrets[secret].holds
    return [d for d, p in model.finite_priors[prior].distribution().items() if p and holds(d)]


def check_dp_one_hot(instance: Instance) -> ClaimOutcome:
    """Equation 1 with the one-hot β on D*'s neighbour, decided exactly at the brute-force ε_DP.

    For every program (ordered pair, prior, D*) the neighbour ``D_ℓ`` (D* with the entry set to the
    second secret's value) must be a dataset of positive probability under ``s2``, so that the
    one-hot β is a feasible dual point; then ``P(ω|D*) <= e^{ε_DP} P(ω|D_ℓ)`` is checked exactly
    for every ω, and the certified lower end of the program's value must not exceed ε_DP (the
    dual point bounds the value).
    """
    model = instance.params["model"]
    mechanism = _only(model)
    ratio = entry_dp_ratio(model.universe, mechanism)
    toolkit = dp_level(model.universe, mechanism, "entry").max_ratio
    if ratio != toolkit:
        return _fail(model, "000.thm4.dp_one_hot", instance,
                     f"brute-force e^ε_DP = {fraction_str(ratio)} but dp_level gives "
                     f"{fraction_str(toolkit)}")
    result = nfc_programs(model, [mechanism])
    for program in result.programs:
        (position, allowed), = model.secrets[program.second].conditions
        neighbour = list(program.d_star)
        neighbour[position] = next(iter(allowed))
        neighbour = tuple(neighbour)
        feasible = all(neighbour in _support(model, prior, program.second)
                       for _, prior in program.occurrences)
        for output, p in mechanism.distribution(program.d_star).items():
            q = mechanism.distribution(neighbour).prob(output)
            if feasible and ratio != INFINITY and p > ratio * q:
                return _fail(model, "000.thm4.dp_one_hot", instance,
                             f"one-hot β on {list(neighbour)}: P(ω={output!r}|D*) = "
                             f"{fraction_str(p)} > e^ε_DP · {fraction_str(q)} for D* = "
                             f"{list(program.d_star)}")
        if program.lower > _log_upper(ratio):
            return _fail(model, "000.thm4.dp_one_hot", instance,
                         f"the certified NfC value {program.lower!r} exceeds ε_DP = "
                         f"{epsilon_str(ratio)} for D* = {list(program.d_star)} "
                         f"(one-hot β on the neighbour {'feasible' if feasible else 'not feasible'})")
    return ClaimOutcome(True, f"{len(result.programs)} programs: one-hot β at brute-force ε_DP = "
                              f"{epsilon_str(ratio)}; NfC value in [{result.lower:.6g}, "
                              f"{result.upper:.6g}]")


def check_collapse_fails(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    mechanism = _only(model)
    single = pufferfish_level(model, mechanism).level_ratio
    finite = model
    if model.interval_families:
        members = {name: interval_member_prior(model, spread=spread, name=name)
                   for name, spread in (("member", "uniform"), ("skewed_member", "skewed"))}
        finite = PufferfishModel(model.universe, members, model.secrets, model.pairs,
                                 model.mechanisms, model.description)
    budget = Budget(f"log({fraction_str(single)})", ratio=Fraction(single))
    result = nfc_programs(finite, [mechanism], budget)
    if result.verdict != "violated":
        return _fail(finite, "000.thm4.collapse_fails", instance,
                     f"verdict {result.verdict} at the single-run level {budget.text}: NfC value in "
                     f"[{result.lower!r}, {result.upper!r}]")
    return ClaimOutcome(True, f"single-run level {budget.text}, NfC value [{result.lower}, "
                              f"{result.upper}]: violated")


RUNS = 6
_BITS = 80


def check_limit(instance: Instance) -> ClaimOutcome:
    model = instance.params["model"]
    mechanism = _only(model)
    result = nfc_programs(model, [mechanism])
    levels = repeated_run_levels(model, mechanism, RUNS)
    conditional_min = _conditional_min(model)
    outputs = max(p.outputs for p in result.programs)
    d_max = _max_log_ratio(model, mechanism)
    context = interval_context(_BITS)
    log_inv_theta = log_interval(context, 1 / conditional_min)
    d_max_interval = rational_interval(context, d_max)
    for r, ratio in enumerate(levels.ratios, start=1):
        eps_r = log_interval(context, ratio)
        upper_bound = r * context.mpf(result.upper) + log_inv_theta
        lower_bound = r * context.mpf(result.lower) - log_inv_theta - outputs * d_max_interval
        if not (eps_r.b <= upper_bound.a and eps_r.a >= lower_bound.b):
            return _fail(model, "000.thm4.limit", instance,
                         f"r = {r}: ε_r = {epsilon_float(ratio):.6g} outside "
                         f"[{float(lower_bound.a):.6g}, {float(upper_bound.b):.6g}]")
    per_run = ", ".join(f"{x:.4g}" for x in levels.per_run())
    return ClaimOutcome(True, f"ε_r/r for r = 1..{RUNS}: {per_run}; NfC value ≈ {result.upper:.6g}")


def _conditional_min(model: PufferfishModel) -> Fraction:
    smallest = Fraction(1)
    for support in prior_supports(model).values():
        for pair in model.pairs:
            for secret in (pair.first, pair.second):
                mass = sum((p for d, p in support if secret.holds(d)), Fraction(0))
                for d, p in support:
                    if secret.holds(d):
                        smallest = min(smallest, p / mass)
    return smallest


def _max_log_ratio(model: PufferfishModel, mechanism) -> Fraction:
    """An exact upper bound on ``log(max P / min P)`` over the mechanism's table."""
    values = [p for d in model.universe.datasets() for p in mechanism.distribution(d).values()]
    ratio = max(values) / min(values)
    return endpoints(log_interval(interval_context(_BITS), ratio))[1]


DUALITY_GAP = Fraction(1, 10**6)


def dual_constraint_value(log_star, weighted_log):
    """The printed dual's lower bound on ``ε'_0`` at one output: ``log P(ω_i|D*) − Σ_ℓ β_ℓ log
    P(ω_i|D_ℓ)`` (Appendix C: ``ε'_0 − log P(ω_i|D*) + Σ_ℓ β_ℓ log P(ω_i|D_ℓ) >= 0``)."""
    return log_star - weighted_log


def certified_duality_gap(model: PufferfishModel, mechanisms, program, bits: int = _BITS):
    """Certified ``[L, U]`` with primal value >= L and dual value <= U, from the program's exact α, β.

    The paper's programs (Appendix C) are written out again here from the model, not taken from
    the solver: ``d_{ℓi} = log(P(ω_i|D*) / P(ω_i|D_ℓ))`` over the outputs ω_i possible under D* and
    the datasets ``D_ℓ`` of positive prior probability under ``s2`` that can produce all of them.
    The primal objective of α is ``min_ℓ Σ_i α_i d_{ℓi}``; the dual's, as printed (``ε'_0 >=
    log P(ω_i|D*) − Σ_ℓ β_ℓ log P(ω_i|D_ℓ)`` for all i), is ``max_i (log P(ω_i|D*) − Σ_ℓ β_ℓ
    log P(ω_i|D_ℓ))``.  Both are enclosed with mpmath intervals at ``bits`` bits.  Returns
    ``(L, U, problem)`` with ``problem`` a text when α or β is not a feasible point.
    """
    context = interval_context(bits)
    rows = {}
    for mech in mechanisms:
        for output, p in mech.distribution(program.d_star).items():
            if p:
                rows[(mech.name, output)] = (mech, output, p)
    support = []
    for _, prior in program.occurrences:
        support = _support(model, prior, program.second)
        break
    kept = [d for d in support
            if all(m.distribution(d).prob(o) for m, o, _ in rows.values())]
    alpha = dict(program.alpha)
    beta = dict(program.beta)
    if sum(alpha.values()) != 1 or any(w < 0 for w in alpha.values()) or \
            not set(alpha) <= set(rows):
        return None, None, f"α is not on the simplex of the outputs possible under D*: {alpha}"
    if sum(beta.values()) != 1 or any(w < 0 for w in beta.values()) or not set(beta) <= set(kept):
        return None, None, f"β is not on the simplex of the kept datasets: {beta}"
    logs = {}

    def log_of(mech, output, dataset):
        key = (mech.name, output, dataset)
        if key not in logs:
            logs[key] = log_interval(context, mech.distribution(dataset).prob(output))
        return logs[key]

    primal = None
    for dataset in kept:
        total = context.mpf(0)
        for key, weight in alpha.items():
            mech, output, _ = rows[key]
            total += rational_interval(context, weight) * (log_of(mech, output, program.d_star)
                                                           - log_of(mech, output, dataset))
        low = endpoints(total)[0]
        primal = low if primal is None else min(primal, low)
    dual = None
    for mech, output, _ in rows.values():
        weighted = context.mpf(0)
        for dataset, weight in beta.items():
            weighted += rational_interval(context, weight) * log_of(mech, output, dataset)
        total = dual_constraint_value(log_of(mech, output, program.d_star), weighted)
        high = endpoints(total)[1]
        dual = high if dual is None else max(dual, high)
    return primal, dual, None


def check_strong_duality(instance: Instance) -> ClaimOutcome:
    """Strong duality of the paper's primal and dual programs, certified from exact points.

    The solver only proposes α and β; :func:`certified_duality_gap` evaluates the paper's two
    objectives at them with certified logs.  Weak duality puts both optimal values in ``[L, U]``,
    so ``U − L <= 10^-6`` certifies that the printed dual has the primal's value (to within
    ``10^-6``) and that β meets Equation 1 at ε = U.  A gap above that, or ``L > U`` (impossible
    for a correct dual), fails.
    """
    model = instance.params["model"]
    mechanisms = list(model.mechanisms.values())
    result = nfc_programs(model, mechanisms)
    widest = Fraction(0)
    for program in result.programs:
        if program.infinite:
            continue
        lower, upper, problem = certified_duality_gap(model, mechanisms, program)
        where = f"program D* = {list(program.d_star)} ({program.first} -> {program.second})"
        if problem is not None:
            return _fail(model, "000.thm4.strong_duality", instance, f"{where}: {problem}")
        if lower > upper:
            return _fail(model, "000.thm4.strong_duality", instance,
                         f"{where}: primal objective >= {float(lower):.12g} above the dual "
                         f"objective <= {float(upper):.12g}: the dual does not bound the primal")
        if upper - lower > DUALITY_GAP:
            return _fail(model, "000.thm4.strong_duality", instance,
                         f"{where}: certified primal value >= {float(lower):.12g}, dual value <= "
                         f"{float(upper):.12g}: gap {float(upper - lower):.3g} > 10^-6")
        widest = max(widest, upper - lower)
    return ClaimOutcome(True, f"{len(result.programs)} programs: certified |dual − primal| <= "
                              f"{float(widest):.3g} from exact α, β")


def _log_upper(ratio) -> float:
    if ratio == INFINITY:
        return float("inf")
    return log_enclosure(ratio, _BITS)[1]


def duality_instances() -> Iterator[Instance]:
    yield from dp_instances()
    yield from limit_instances()


def _claim(claim_id: str, statement: str, generate, check, section: str = SECTION,
           mutants: tuple[Mutant, ...] = ()) -> None:
    register(Claim(claim_id, PAPER, section, statement, generate, check, mutants=mutants))


# --------------------------------------------------------------------------------------------
# Mutants
# --------------------------------------------------------------------------------------------

_THIS = sys.modules[__name__]
_ORIGINAL_NFC = nfc_programs


def _diagonal_prior_instance() -> Instance:
    """Randomized response under a prior that gives every neighbour of D* probability 0: the
    one-hot β is then not a point of the proof's dual programs (the check's hypothesis)."""
    u2 = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    prior = TablePrior("diagonal", Distribution({(0, 0): Fraction(1, 2), (1, 1): Fraction(1, 2)}))
    return Instance("randomized response keep 3/4 under a prior on {(0,0), (1,1)}",
                    {"model": _entry_model(u2, {"diagonal": prior},
                                           RandomizedResponse("rr", u2, Fraction(3, 4)))})


def _dp_instance() -> list[Instance]:
    """A DP mechanism (not a collapse mechanism) whose NfC value is below its Pufferfish level."""
    u2 = Universe.product(["x1", "x2"], [[0, 1]] * 2)
    return [Instance("randomized response keep 3/4, sticky chain",
                     {"model": _entry_model(u2, {"s": _sticky(u2, Fraction(9, 10))},
                                            RandomizedResponse("rr", u2, Fraction(3, 4)))})]


def _doubled_value(model, mechanisms, *args, **kwargs):
    """Mutant of the limit: ε_r / r tends to twice the largest program value."""
    import dataclasses

    result = _ORIGINAL_NFC(model, mechanisms, *args, **kwargs)
    return dataclasses.replace(result, lower=2 * result.lower, upper=2 * result.upper)


_MUTANTS = {
    "000.thm4.dp_one_hot": (on("a prior with zeros on every neighbour of D*", check_dp_one_hot,
                               lambda: [_diagonal_prior_instance()]),),
    "000.thm4.collapse_fails": (on("a per-entry DP mechanism instead of a collapse mechanism",
                                   check_collapse_fails, _dp_instance),),
    "000.thm4.limit": (patched("ε_r / r tends to twice the program value", check_limit,
                               lambda: list(limit_instances())[:2], _THIS,
                               nfc_programs=_doubled_value),),
    "000.thm4.strong_duality": (patched("dual constraint with the sign of Σ β_ℓ log P flipped",
                                        check_strong_duality, lambda: list(limit_instances())[:1],
                                        _THIS,
                                        dual_constraint_value=lambda star, weighted: star + weighted),),
}


_claim("000.thm4.dp_one_hot",
       "A per-entry ε_DP mechanism satisfies Theorem 4's necessary condition at ε_DP: for every "
       "ordered pair and D*, Equation 1 holds with a one-hot β on the neighbouring dataset "
       "(differential privacy inequalities are a subset of the NfC constraints).",
       dp_instances, check_dp_one_hot, mutants=_MUTANTS["000.thm4.dp_one_hot"])
_claim("000.thm4.collapse_fails",
       "The collapse mechanisms of Examples 4.1–4.3 do not compose linearly: their NfC value exceeds "
       "their single-run Pufferfish level (the condition of Theorem 4 fails at that level).",
       collapse_instances, check_collapse_fails, "§5.1, Theorem 4 with §4, Examples 4.1–4.3",
       _MUTANTS["000.thm4.collapse_fails"])
_claim("000.thm4.limit",
       "Running the mechanism r times, ε_r / r tends to the largest NfC program value (the limit "
       "r → ∞ in the proof of Theorem 4); checked as r·V − log(1/θ_min) − k·d_max <= ε_r <= "
       "r·V + log(1/θ_min) for r = 1..6.",
       limit_instances, check_limit, "Appendix C, proof of Theorem 4", _MUTANTS["000.thm4.limit"])
_claim("000.thm4.strong_duality",
       "Each NfC primal program and its dual have the same optimal value (strong duality), and the "
       "primal's constraint duals are an optimal convex combination β.",
       duality_instances, check_strong_duality, "Appendix C, proof of Theorem 4 (dual programs)",
       _MUTANTS["000.thm4.strong_duality"])
