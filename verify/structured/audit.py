"""Pufferfish level, leakage, joint release and per-entry DP from structured laws, never listing
the universe.

Definition 5 (Bai et al., Composition for Pufferfish Privacy, §2.2) needs, for every prior θ,
secret ``s`` and output ω, ``Pr[M = ω | s, θ]``; Definition 4 (ibid.) needs ``Pr[s | M = ω, θ]``.
When the mechanism reads a decomposable statistic (:mod:`~pufferfish.verify.structured.statistics`)
both follow from ``Pr[s ∧ code = k | θ]`` (:mod:`~pufferfish.verify.structured.elimination`) and the
mechanism's kernel on each code:

    ``Pr[s ∧ M = ω | θ] = Σ_k Pr[s ∧ code = k | θ] · Pr[M = ω | key(k)]``.

A query with two-sided geometric noise (``sum`` or ``count``, the noise clamped to ``[low, high]``)
takes this sum as one polynomial product with the noise's generating polynomial
``Σ_d α^{|d|} z^d`` and closed forms for the two clamped ends; any other mechanism sums over its
codes.  Every number is exact (python-flint ``fmpq``); levels are compared by
cross-multiplication.  Per-entry DP needs no prior: neighbours differ in one attribute ``v``, so
their codes are ``a + c_v(x)`` and ``a + c_v(x')`` for ``a`` in the set of codes of the other
attributes (a sumset, kept as a bit set), and the level is the worst ratio over those pairs of
codes.

:func:`structured_reason` says why an audit cannot take this path (``None`` when it can), and
:func:`structured_audit` runs it; :func:`pufferfish.verify.privacy.audit.audit_model` chooses.

>>> from pufferfish.api import load
>>> from pufferfish.verify.privacy.audit import audit_model
>>> model = load("quickstart.json")
>>> structured_reason(model, list(model.mechanisms.values()))
>>> audit_model(model, method="structured").mechanisms[1].pufferfish.epsilon
'log(706/137)'
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import fmpq, fmpq_poly

from pufferfish.models.errors import TooLargeError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.mechanisms import GeometricNoise, Mechanism, QueryMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import NeighbourRelation, StandardRelation
from pufferfish.models.numbers import INFINITY, Ratio
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.privacy.blocks import audited_secrets
from pufferfish.verify.privacy.dp import DPResult
from pufferfish.verify.privacy.leakage import LeakageResult
from pufferfish.verify.privacy.pufferfish import (DirectionLevel, PufferfishResult, check_level,
                                                  ratio_key)
from pufferfish.verify.structured.elimination import JunctionTree, prior_factors
from pufferfish.verify.structured.statistics import (DEFAULT_MAX_CODES, Additive, Statistic,
                                                     packed_weights, statistic_of)


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


# ------------------------------------------------------------------------------------------------
# the law of the output given each secret, for one prior
# ------------------------------------------------------------------------------------------------

class OutputLaws:
    """For one prior and one mechanism: ``Pr[s ∧ M = ω | θ]`` for each secret (on demand, cached)
    and for no secret, over a fixed list of ``outputs``."""

    def __init__(self, tree: JunctionTree, statistic: Statistic, mechanism: Mechanism,
                 max_outputs: int) -> None:
        self.tree, self.statistic, self.mechanism = tree, statistic, mechanism
        self.total_law = tree.law({})
        self._cache: dict[str, tuple[fmpq, list[fmpq]]] = {}
        self._convolution = _GeometricConvolution.of(mechanism, statistic)
        if self._convolution is not None:
            self.outputs = self._convolution.outputs
        else:
            self._keys = _key_rows(mechanism, statistic, self.total_law, max_outputs)
            self.outputs = self._keys.outputs
        self.total = self._laws(self.total_law)

    def of(self, name: str, conditions) -> tuple[fmpq, list[fmpq]]:
        """``(Pr[s | θ], [Pr[s ∧ M = ω | θ] for ω in outputs])``."""
        cached = self._cache.get(name)
        if cached is None:
            cached = self._cache[name] = self._laws(self.tree.law(conditions))
        return cached

    def _laws(self, law: fmpq_poly) -> tuple[fmpq, list[fmpq]]:
        mass = law(1) if law.degree() >= 0 else fmpq(0)
        if self._convolution is not None:
            return mass, self._convolution.apply(law)
        return mass, self._keys.apply(law)


@dataclass
class _KeyRows:
    """The generic mixture: each code's kernel row, grouped by kernel key."""

    outputs: list
    rows: list[tuple[list[int], list[tuple[int, fmpq]]]]  # (codes, [(output index, prob)])

    def apply(self, law: fmpq_poly) -> list[fmpq]:
        coefficients = law.coeffs()
        out = [fmpq(0)] * len(self.outputs)
        for codes, row in self.rows:
            weight = sum((coefficients[c] for c in codes if c < len(coefficients)), fmpq(0))
            if weight:
                for o, p in row:
                    out[o] += weight * p
        return out


def _key_rows(mechanism: Mechanism, statistic: Statistic, total: fmpq_poly,
              max_outputs: int) -> _KeyRows:
    codes_of: dict[Hashable, list[int]] = {}
    for code, coefficient in enumerate(total.coeffs()):
        if coefficient:
            codes_of.setdefault(statistic.key(code), []).append(code)
    outputs: dict = {}
    rows = []
    for key, codes in codes_of.items():
        row = []
        for output, p in mechanism.key_distribution(key).items():
            if output not in outputs:
                outputs[output] = len(outputs)
                if len(outputs) > max_outputs:
                    raise TooLargeError(f"mechanism {mechanism.name!r} has more than "
                                        f"{max_outputs:,} outputs; raise the limit with "
                                        f"--max-outputs", f"mechanisms.{mechanism.name}")
            row.append((outputs[output], fmpq(p.numerator, p.denominator)))
        rows.append((codes, row))
    return _KeyRows(list(outputs), rows)


class _GeometricConvolution:
    """``clamp(S + Z, low, high)`` with two-sided geometric ``Z`` for an additive ``S``: the
    interior outputs are one polynomial product, the two ends closed forms evaluated at α."""

    def __init__(self, noise: GeometricNoise, offset: int, codes: int) -> None:
        self.noise, self.offset, self.codes = noise, offset, codes
        a = noise.alpha
        self.alpha = fmpq(a.numerator, a.denominator)
        self.outputs = list(range(noise.low, noise.high + 1))
        low, high = noise.low - offset, noise.high - offset   # in code units
        self.low, self.high = low, high
        self.reach = max(high, codes - 1 - low, 0)
        if self.alpha and high > low + 1:
            powers = [fmpq(1)]
            for _ in range(self.reach):
                powers.append(powers[-1] * self.alpha)
            # G(z) = Σ_{d=-R}^{R} α^{|d|} z^{d+R}, times the interior scale (1-α)/(1+α)
            scale = (1 - self.alpha) / (1 + self.alpha)
            self.kernel = fmpq_poly([p * scale for p in powers[:0:-1]] + [p * scale for p in powers])

    @classmethod
    def of(cls, mechanism: Mechanism, statistic: Statistic) -> "_GeometricConvolution | None":
        if not (isinstance(mechanism, QueryMechanism) and mechanism.noise is not None
                and mechanism.query.kind in ("sum", "count") and len(statistic.components) == 1
                and isinstance(statistic.components[0], Additive)):
            return None
        return cls(mechanism.noise, statistic.offsets[0], statistic.codes)

    def apply(self, law: fmpq_poly) -> list[fmpq]:
        low, high = self.low, self.high
        width = len(self.outputs)
        if law.degree() < 0:
            return [fmpq(0)] * width
        if not self.alpha or width == 1:   # the clamped answer itself
            coefficients = law.coeffs()
            out = [fmpq(0)] * width
            for c, p in enumerate(coefficients):
                out[min(max(c, low), high) - low] += p
            return out
        a = self.alpha
        out = [fmpq(0)] * width
        if high > low + 1:
            interior = (law * self.kernel).coeffs()[low + 1 + self.reach:high + self.reach]
            out[1:1 + len(interior)] = interior
        out[0] = self._below(law, low)
        out[-1] = self._above(law, high)
        return out

    def _below(self, law: fmpq_poly, low: int) -> fmpq:
        """``Σ_c F[c]·Pr[Z <= low - c]``: ``α^{c-low}/(1+α)`` for ``c >= low``, else
        ``1 - α^{low-c+1}/(1+α)``."""
        a = self.alpha
        if low <= 0:
            return a ** (-low) * law(a) / (1 + a)
        part = law.truncate(low)          # codes below low
        upper = (law - part)              # codes from low on, shifted down by low
        value = upper.right_shift(low)(a) / (1 + a) if upper.degree() >= 0 else fmpq(0)
        if part.degree() >= 0:
            # Σ_{c<low} F[c] α^{low-c+1} = α^{low+1} · part(1/α)
            value += part(1) - a ** (low + 1) * part(1 / a) / (1 + a)
        return value

    def _above(self, law: fmpq_poly, high: int) -> fmpq:
        """``Σ_c F[c]·Pr[Z >= high - c]``, the mirror image of :meth:`_below`."""
        a = self.alpha
        part = law.truncate(high + 1) if high >= 0 else fmpq_poly()  # codes up to high
        value = a ** high * part(1 / a) / (1 + a) if part.degree() >= 0 else fmpq(0)
        rest = law - part                                             # codes above high
        if rest.degree() >= 0:
            shifted = rest.right_shift(high + 1)
            value += shifted(1) - a * a * shifted(a) / (1 + a)
        return value


# ------------------------------------------------------------------------------------------------
# the audit
# ------------------------------------------------------------------------------------------------

def output_laws(model: PufferfishModel, mechanism: Mechanism,
                max_outputs: int = DEFAULT_MAX_OUTPUTS,
                max_codes: int = DEFAULT_MAX_CODES) -> dict[str, OutputLaws]:
    """Each finite prior's :class:`OutputLaws` of ``mechanism`` (calibrated once per prior)."""
    statistic = statistic_of(mechanism, model.universe, max_codes)
    weights = packed_weights(statistic)
    return {name: OutputLaws(JunctionTree.of_prior(prior, model.universe, weights), statistic,
                             mechanism, max_outputs)
            for name, prior in model.finite_priors.items()}


def _conditions(secret) -> dict[int, frozenset]:
    return {position: frozenset(allowed) for position, allowed in secret.conditions}


def structured_pufferfish(model: PufferfishModel, mechanism: Mechanism,
                          laws: dict[str, OutputLaws], budget: Budget | None = None
                          ) -> PufferfishResult:
    """Definition 5's exact level from structured laws: for every prior and ordered pair, the
    output maximising ``Pr[ω|s_i]/Pr[ω|s_j]`` by cross-multiplication.  Cost ``O(|𝕊|·|Ω|)``
    big-integer products per prior."""
    levels: list[DirectionLevel] = []
    skipped: list[tuple[str, str, str]] = []
    for prior_name, prior_laws in laws.items():
        for pair in model.pairs:
            for first, second in pair.directions():
                mass_first, law_first = prior_laws.of(first.name, _conditions(first))
                mass_second, law_second = prior_laws.of(second.name, _conditions(second))
                if not mass_first or not mass_second:
                    zero = first.name if not mass_first else second.name
                    skipped.append((f"{first.name} -> {second.name}", prior_name,
                                    f"Pr[{zero} | {prior_name}] = 0"))
                    continue
                levels.append(_direction(pair.label, first.name, second.name, prior_name,
                                         mass_first, law_first, mass_second, law_second,
                                         prior_laws.outputs))
    witness = max(levels, key=lambda level: ratio_key(level.max_ratio), default=None)
    max_ratio: Ratio = witness.max_ratio if witness is not None else Fraction(0)
    result_ratio = max(Fraction(1), max_ratio) if max_ratio != INFINITY else INFINITY
    check = check_level(result_ratio, budget, not levels) if budget is not None else None
    return PufferfishResult(mechanism.name, max_ratio, witness, tuple(levels), tuple(skipped),
                            check)


def _direction(label: str, first: str, second: str, prior: str, mass_first: fmpq,
               law_first: list[fmpq], mass_second: fmpq, law_second: list[fmpq],
               outputs: list) -> DirectionLevel:
    best = None  # (numerator, denominator, output index) of x_first/x_second, as integers
    for o, (a, b) in enumerate(zip(law_first, law_second)):
        if not a:
            continue
        num, den = a.p * b.q, a.q * b.p
        if best is None or num * best[1] > best[0] * den:
            best = (num, den, o)
            if not den:
                break
    if best is None:
        return DirectionLevel(label, first, second, prior, Fraction(0))
    num, den, o = best
    ratio: Ratio = (INFINITY if not den else
                    Fraction(int(num), int(den)) * _fraction(mass_second / mass_first))
    return DirectionLevel(label, first, second, prior, ratio, outputs[o],
                          _fraction(law_first[o] / mass_first),
                          _fraction(law_second[o] / mass_second))


def structured_leakage(model: PufferfishModel, mechanism: Mechanism,
                       laws: dict[str, OutputLaws]) -> LeakageResult:
    """Definition 4's check from structured laws: the worst ``|Pr[s|ω,θ] − Pr[s|θ]|`` over every
    declared secret, prior and output, by cross-multiplication."""
    best = None  # (|u|, v, secret, prior, output index, prior probability, posterior)
    for prior_name, prior_laws in laws.items():
        total_mass, total = prior_laws.total
        for secret in model.secrets.values():
            mass, law = prior_laws.of(secret.name, _conditions(secret))
            prior_p = mass / total_mass
            for o, (x, t) in enumerate(zip(law, total)):
                if not t:
                    continue
                # x/t − π = (x.p·t.q·π.q − π.p·t.p·x.q) / (x.q·t.p·π.q)
                u = x.p * t.q * prior_p.q - prior_p.p * t.p * x.q
                v = x.q * t.p * prior_p.q
                size = abs(u)
                if size and (best is None or size * best[1] > best[0] * v):
                    best = (size, v, secret.name, prior_name, o, prior_p, x / t)
    skipped = tuple(model.interval_families)
    if best is None:
        return LeakageResult(mechanism.name, True, Fraction(0), not_evaluated=skipped)
    size, v, secret, prior, o, prior_p, posterior = best
    outputs = laws[prior].outputs
    return LeakageResult(mechanism.name, False, Fraction(int(size), int(v)), secret, prior,
                         outputs[o], _fraction(prior_p), _fraction(posterior),
                         not_evaluated=skipped)


def structured_entry_dp(universe: Universe, mechanism: Mechanism, label: str = "entry",
                        max_codes: int = DEFAULT_MAX_CODES) -> DPResult:
    """Per-entry DP (Bai et al., Composition for Pufferfish Privacy, §2.1, Definition 2) without
    listing the universe: neighbours differ at one attribute ``v``, so their codes are
    ``a + c_v(x)`` and ``a + c_v(x')`` with ``a`` a code of the other attributes.  The codes of
    the other attributes are a sumset, kept as a bit set (``O(n · codes²/64)`` to build for
    ``n`` attributes); each distinct pair of kernel keys is compared once over its outputs.
    The witness datasets are rebuilt from the sumsets.  ``pairs_checked`` counts the ordered
    neighbour pairs the level covers (``|𝒰|·Σ_v (d_v − 1)``)."""
    statistic = statistic_of(mechanism, universe, max_codes)
    weights = packed_weights(statistic)
    n = universe.width
    prefix = [1]                      # prefix[v]: codes of attributes < v, as a bit set
    for v in range(n):
        prefix.append(_sumset(prefix[-1], set(weights[v].values())))
    suffix = [1] * (n + 1)            # suffix[v]: codes of attributes >= v
    for v in range(n - 1, -1, -1):
        suffix[v] = _sumset(suffix[v + 1], set(weights[v].values()))
    compared: dict[tuple, tuple] = {}
    for v in range(n):
        others = _combine(prefix[v], suffix[v + 1])
        for x, wx in weights[v].items():
            for y, wy in weights[v].items():
                if x == y:
                    continue
                for a in _bits(others):
                    pair = (statistic.key(a + wx), statistic.key(a + wy))
                    if pair not in compared:
                        compared[pair] = (v, x, y, a)
    best = None
    for (key, other_key), where in compared.items():
        row, other = mechanism.key_distribution(key), mechanism.key_distribution(other_key)
        for output, p in row.items():
            q = other.prob(output)
            if best is None or p * best[1] > best[0] * q:
                best = (p, q, output, where)
                if not q:
                    break
        if best is not None and not best[1]:
            break
    neighbours = universe.size * sum(len(d) - 1 for d in universe.domains)
    if best is None:
        return DPResult(mechanism.name, label, Fraction(1), pairs_checked=neighbours)
    p, q, output, (v, x, y, a) = best
    dataset = _dataset_with(universe, weights, prefix, suffix, v, x, a)
    neighbour = dataset[:v] + (y,) + dataset[v + 1:]
    ratio: Ratio = INFINITY if not q else max(Fraction(1), p / q)
    return DPResult(mechanism.name, label, ratio, dataset, neighbour, output, p, q, neighbours)


def _sumset(codes: int, steps: set[int]) -> int:
    out = 0
    for step in steps:
        out |= codes << step
    return out


def _combine(first: int, second: int) -> int:
    """The sumset of two bit sets of codes."""
    if first.bit_count() > second.bit_count():
        first, second = second, first
    return _sumset(second, set(_bits(first)))


def _bits(codes: int):
    """The codes in a bit set, in increasing order."""
    for position, bit in enumerate(bin(codes)[:1:-1]):
        if bit == "1":
            yield position


def _dataset_with(universe: Universe, weights, prefix, suffix, v: int, x, code: int) -> tuple:
    """A dataset with ``D_v = x`` whose other attributes have code ``code`` (from the sumsets:
    attributes before ``v`` take a part in ``prefix[v]``, the rest in ``suffix[v + 1]``)."""
    values = [None] * universe.width
    values[v] = x
    split = next(a for a in _bits(prefix[v]) if code - a >= 0 and suffix[v + 1] >> (code - a) & 1)
    remaining = code - split
    for u in range(v + 1, universe.width):     # walk forward through the suffix
        for value, w in weights[u].items():
            if remaining - w >= 0 and suffix[u + 1] >> (remaining - w) & 1:
                values[u], remaining = value, remaining - w
                break
    remaining = split
    for u in range(v - 1, -1, -1):             # and backward through the prefix
        for value, w in weights[u].items():
            if remaining - w >= 0 and prefix[u] >> (remaining - w) & 1:
                values[u], remaining = value, remaining - w
                break
    return tuple(values)


__all__ = ["OutputLaws", "output_laws", "structured_reason", "structured_pufferfish",
           "structured_leakage", "structured_entry_dp"]
