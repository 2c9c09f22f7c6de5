"""Pufferfish level and leakage from structured laws, never listing the universe, and the
decision whether an audit can take this path.

Definition 5 (Bai et al., Composition for Pufferfish Privacy, §2.2) needs, for every prior θ,
secret ``s`` and output ω, ``Pr[M = ω | s, θ]``; Definition 4 (ibid.) needs ``Pr[s | M = ω, θ]``.
Both come from :class:`~pufferfish.verify.structured.laws.OutputLaws`.  Every comparison is exact
(cross-multiplication of ``fmpq`` numerators and denominators); certified balls first rule out
the outputs that cannot attain a maximum, so exact values are computed for a few outputs only.
Per-entry DP is :mod:`pufferfish.verify.structured.dp`.

:func:`structured_reason` says why an audit cannot take this path (``None`` when it can);
:func:`pufferfish.verify.privacy.audit.audit_model` chooses (``method="auto"``) or is told.

>>> from pufferfish.api import load
>>> from pufferfish.verify.privacy.audit import audit_model
>>> model = load("quickstart.json")
>>> structured_reason(model, list(model.mechanisms.values()))
>>> audit_model(model, method="structured").mechanisms[1].pufferfish.epsilon
'log(706/137)'
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from flint import arb, fmpq

from pufferfish.models.errors import TooLargeError, UnsupportedError
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import NeighbourRelation, StandardRelation
from pufferfish.models.numbers import INFINITY, Ratio
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.privacy.blocks import audited_secrets
from pufferfish.verify.privacy.leakage import LeakageResult
from pufferfish.verify.privacy.pufferfish import (DirectionLevel, PufferfishResult, check_level,
                                                  ratio_key)
from pufferfish.verify.structured.elimination import prior_factors
from pufferfish.verify.structured.laws import OutputLaws
from pufferfish.verify.structured.statistics import DEFAULT_MAX_CODES, statistic_of


def _fraction(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def structured_reason(model: PufferfishModel, mechanisms: Sequence[Mechanism],
                      relations: Sequence[NeighbourRelation] = (),
                      max_codes: int = DEFAULT_MAX_CODES) -> str | None:
    """Why the audit of ``mechanisms`` under ``model`` cannot follow the prior's structure, or
    ``None`` when it can: every prior factored (a chain, a product prior or a Bayesian network),
    no interval family, every secret a condition on attributes, every mechanism reading a
    decomposable statistic of at most ``max_codes`` values, and every DP relation per-entry (or
    per-record with one attribute per record).  Cost: ``O(size of the model)``."""
    if model.interval_families:
        return "an interval family constrains only conditionals, which have no factored form"
    if model.universe.explicit is not None:
        return "the universe is an explicit list of datasets"
    try:
        for prior in model.finite_priors.values():
            prior_factors(prior, model.universe)
        for mechanism in mechanisms:
            statistic_of(mechanism, model.universe, max_codes)
    except (UnsupportedError, TooLargeError) as error:
        return error.reason
    for secret in audited_secrets(model):
        if secret.conditions is None:
            return (f"secret {secret.name!r} is a set of datasets or a predicate, not a condition "
                    f"on attributes")
    for relation in relations:
        if not _entry_like(relation, model.universe):
            return f"DP under {relation.label} is computed by scanning neighbour pairs"
    return None


def _entry_like(relation: NeighbourRelation, universe: Universe) -> bool:
    return relation == StandardRelation("entry") or (
        relation == StandardRelation("record") and all(len(r) == 1 for r in universe.records))


def structured_pufferfish(model: PufferfishModel, mechanism: Mechanism,
                          laws: dict[str, OutputLaws], budget: Budget | None = None
                          ) -> PufferfishResult:
    """Definition 5's exact level from structured laws: for every prior and ordered pair, the
    output maximising ``Pr[ω|s_i]/Pr[ω|s_j]``, compared exactly by cross-multiplication.  With
    balls, an output whose ratio's upper bound is below the best lower bound of the pair is
    ruled out first, so exact values are computed for a few outputs per pair.  Cost
    ``O(|𝕊|·|Ω|)`` comparisons per prior."""
    found = [entry for prior_name, prior_laws in laws.items()
             for entry in prior_directions(model, prior_name, prior_laws)]
    return pufferfish_from_directions(mechanism.name, found, budget)


def directions_of(model: PufferfishModel) -> list:
    """Every ordered direction ``(pair label, first, second)`` of the model's secret pairs, in
    the order the level reads them (an index into it names a direction in a task)."""
    return [(pair.label, first, second) for pair in model.pairs
            for first, second in pair.directions()]


def prior_directions(model: PufferfishModel, prior_name: str, laws: OutputLaws,
                     selected: Sequence[int] | None = None) -> list:
    """The directions of one prior (those at the indices ``selected`` of :func:`directions_of`,
    default all), in order: a :class:`DirectionLevel`, or a ``(direction, prior, reason)``
    triple for a direction skipped because a secret has probability 0 — the pieces
    :func:`pufferfish_from_directions` reduces, computable in separate tasks."""
    directions = directions_of(model)
    found: list = []
    for k in range(len(directions)) if selected is None else selected:
        label, first, second = directions[k]
        mass_first, mass_second = laws.mass(first), laws.mass(second)
        if not mass_first or not mass_second:
            zero = first.name if not mass_first else second.name
            found.append((f"{first.name} -> {second.name}", prior_name,
                          f"Pr[{zero} | {prior_name}] = 0"))
            continue
        found.append(_direction(label, first, second, prior_name, laws, mass_first,
                                mass_second))
    return found


def pufferfish_from_directions(name: str, found: Sequence, budget: Budget | None = None
                               ) -> PufferfishResult:
    """The level of mechanism ``name`` from the directions of every prior in audit order
    (:func:`prior_directions`): the first direction of the largest ratio is the witness."""
    levels = [entry for entry in found if isinstance(entry, DirectionLevel)]
    skipped = [entry for entry in found if not isinstance(entry, DirectionLevel)]
    witness = max(levels, key=lambda level: ratio_key(level.max_ratio), default=None)
    max_ratio: Ratio = witness.max_ratio if witness is not None else Fraction(0)
    result_ratio = max(Fraction(1), max_ratio) if max_ratio != INFINITY else INFINITY
    check = check_level(result_ratio, budget, not levels) if budget is not None else None
    return PufferfishResult(name, max_ratio, witness, tuple(levels), tuple(skipped), check)


def _direction(label: str, first, second, prior: str, laws: OutputLaws, mass_first: fmpq,
               mass_second: fmpq) -> DirectionLevel:
    screened = laws.ratio_candidates(first, second)
    if screened is not None:
        candidates = screened
        law_first = laws.exact_at(first, candidates)
        law_second = laws.exact_at(second, candidates)
    else:
        exact_first, exact_second = laws.exact(first), laws.exact(second)
        candidates = range(len(exact_first))
        law_first, law_second = dict(enumerate(exact_first)), dict(enumerate(exact_second))
    best = None  # (numerator, denominator, output index) of x_first/x_second, as integers
    for o in candidates:
        a, b = law_first[o], law_second[o]
        if not a:
            continue
        num, den = a.p * b.q, a.q * b.p
        if best is None or num * best[1] > best[0] * den:
            best = (num, den, o)
            if not den:
                break
    if best is None:
        return DirectionLevel(label, first.name, second.name, prior, Fraction(0))
    num, den, o = best
    ratio: Ratio = (INFINITY if not den else
                    Fraction(int(num), int(den)) * _fraction(mass_second / mass_first))
    return DirectionLevel(label, first.name, second.name, prior, ratio, laws.outputs[o],
                          _fraction(law_first[o] / mass_first),
                          _fraction(law_second[o] / mass_second))


def structured_leakage(model: PufferfishModel, mechanism: Mechanism,
                       laws: dict[str, OutputLaws]) -> LeakageResult:
    """Definition 4's check from structured laws: the worst ``|Pr[s|ω,θ] − Pr[s|θ]|`` over every
    declared secret, prior and output, compared exactly by cross-multiplication.  With balls, a
    first pass bounds every shift and exact values are computed only where a ball's upper bound
    reaches the largest lower bound."""
    worst = [(prior_name, prior_leakage(model, prior_laws))
             for prior_name, prior_laws in laws.items()]
    return leakage_from_priors(model, mechanism.name, worst)


def prior_leakage(model: PufferfishModel, laws: OutputLaws) -> tuple | None:
    """One prior's worst shift ``(|u|, v, secret, output, Pr[s|θ], posterior)`` (the shift is
    ``|u|/v``; the first secret and output attaining it), or ``None`` when no output moves a
    secret: the piece :func:`leakage_from_priors` reduces, computable in a separate task."""
    best = None
    for secret, prior_p, candidates in _leakage_candidates(model, laws):
        law = laws.exact_at(secret, candidates)
        total = laws.exact_at(None, candidates)
        for o in candidates:
            x, t = law[o], total[o]
            if not t:
                continue
            # x/t − π = (x.p·t.q·π.q − π.p·t.p·x.q) / (x.q·t.p·π.q)
            u = x.p * t.q * prior_p.q - prior_p.p * t.p * x.q
            v = x.q * t.p * prior_p.q
            size = abs(u)
            if size and (best is None or size * best[1] > best[0] * v):
                best = (size, v, secret.name, laws.outputs[o], prior_p, x / t)
    return best


def leakage_from_priors(model: PufferfishModel, name: str,
                        worst: Sequence[tuple[str, tuple | None]]) -> LeakageResult:
    """Mechanism ``name``'s leakage from each prior's worst shift in audit order
    (:func:`prior_leakage`): the first prior attaining the largest shift is the witness."""
    best = None
    for prior_name, found in worst:
        if found is not None and (best is None or found[0] * best[1] > best[0] * found[1]):
            best = found + (prior_name,)
    skipped = tuple(model.interval_families)
    if best is None:
        return LeakageResult(name, True, Fraction(0), not_evaluated=skipped)
    size, v, secret, output, prior_p, posterior, prior = best
    return LeakageResult(name, False, Fraction(int(size), int(v)), secret, prior, output,
                         _fraction(prior_p), _fraction(posterior), not_evaluated=skipped)


def _leakage_candidates(model: PufferfishModel, laws: OutputLaws):
    """``(secret, Pr[s|θ], outputs to compare exactly)`` for every declared secret: all outputs
    without balls; with balls, those whose shift's upper bound reaches the largest lower bound
    over all secrets (found in a first pass)."""
    secrets = [(secret, laws.mass(secret) / laws.total_mass) for secret in model.secrets.values()]
    everything = list(range(len(laws.outputs)))
    if not laws.screens:
        return [(secret, prior_p, everything) for secret, prior_p in secrets]
    total = laws.balls(None)
    bounds, best_lower = [], None
    for secret, prior_p in secrets:
        shifts = []
        prior_ball = arb(prior_p)
        for o, (x, t) in enumerate(zip(laws.balls(secret), total)):
            if 0 in t:
                shifts.append((o, None))
                continue
            shift = abs(x / t - prior_ball)
            lower = shift.lower()
            if best_lower is None or lower > best_lower:
                best_lower = lower
            shifts.append((o, shift.upper()))
        bounds.append((secret, prior_p, shifts))
    return [(secret, prior_p, [o for o, upper in shifts if upper is None or best_lower is None
                               or not upper < best_lower])
            for secret, prior_p, shifts in bounds]



__all__ = ["structured_reason", "structured_pufferfish", "structured_leakage", "directions_of",
           "prior_directions", "pufferfish_from_directions", "prior_leakage",
           "leakage_from_priors"]
