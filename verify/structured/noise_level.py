"""The Pufferfish level of a sum or a count released with geometric or Laplace noise, as a function
of the noise, from the prior's structure.

The release is ``S(D) + Z`` for an additive query ``S`` (a ``sum`` or a ``count`` over all or some
attributes) and either two-sided geometric noise ``Pr[Z = z] ∝ α^{|z|}`` clamped to ``[low, high]``
(integer outputs) or Laplace noise ``Z ~ Lap(b)`` (real outputs).  The level (Definition 5 of Bai
et al., Composition for Pufferfish Privacy, §2.2) is the largest, over finite priors θ, ordered
secret pairs ``(s1, s2)`` with ``Pr[s1|θ], Pr[s2|θ] > 0`` and outputs ω, of
``Pr[ω | s1, θ] / Pr[ω | s2, θ]``.

**Laws.**  In code units ``k = S − min S ∈ [0, n]``, ``F_s(z) = Σ_k Pr[s ∧ S = k | θ] z^k`` comes
from the calibrated junction tree of :mod:`~pufferfish.verify.structured.elimination`, with each
prior factor scaled by the lcm of its denominators, so that every coefficient is an integer (one
constant ``C`` times the probability; it cancels from every ratio).  The output law given ``s`` is
``O_s[ω] = Σ_k F_s[k] · κ(ω − k)`` with ``κ(d) = α^{|d|}`` (times ``(1 − α)/(1 + α)``, which cancels)
for an output strictly inside ``[low, high]``, and the clamped tails at ``low``/``high``.

**Only the range of the query matters.**  When ``low <= min S`` and ``high >= max S`` (the default
clamp is ``[min S, max S]``), the clamped end ``low`` has ``Pr[low | s] = Σ_k F_s[k] α^{k − low} /
(1 + α)``, proportional (by a factor that does not depend on ``s``) to the unclamped value at
``low``, and every unclamped output below ``min S`` has the ratio of ``min S``; so the level is
the maximum over the integers ``ω ∈ [0, n]`` of ``Σ_k F_1[k] α^{|ω−k|} / Σ_k F_2[k] α^{|ω−k|}``
(normalised by the masses).  *Laplace noise* has the same level at ``α = e^{−1/b}``: the density
``Σ_k P(k) e^{−|ω−k|/b}/2b`` has its supremum ratio at a support point (the theorem of
:mod:`pufferfish.verify.transport.laplace_mixture`: between consecutive support points the ratio
is a Möbius function of ``e^{2ω/b}``, hence monotone, and on each tail it is constant, equal to
its value at the extreme support point, which is the limit at ±∞, ``Σ_k P_1(k) e^{±k/b} /
Σ_k P_2(k) e^{±k/b}``), and at an integer ``ω`` that density is the geometric law at
``α = e^{−1/b}`` up to a factor common to both secrets.

**The likelihood-ratio shortcut.**  If ``F_1[k]/F_2[k]`` is monotone in ``k`` over the union of the
supports (``(s, k) ↦ F_s[k]`` is TP2; checked exactly, :func:`likelihood_order`), then so is the
ratio of the noisy laws, for every α: ``κ(ω − k) = α^{|ω−k|}`` is TP2 in ``(k, ω)`` (``|·|`` is
convex), and a composition of TP2 kernels is TP2 (Karlin, *Total Positivity*, 1968, the basic
composition formula); clamping is a monotone map and keeps the order.  The level of such a pair
is then read at the two ends, ``F_s(α)`` and ``Σ_k F_s[k] α^{n−k}`` — two scalar sum-products on
the tree at ``z = α`` (exact integers for a rational α, arb balls for ``α = e^{−1/b}``), O(size of
the tree) each, whatever the number of outputs.  A pair that is not so ordered (an anti-correlated
chain has such pairs; a sticky one usually none) takes every output: one polynomial product
``F_s · Σ_{|d|<=n} α^{|d|} z^{d+n}`` per secret.

**Monotone in the noise.**  For ``α < α'`` the unclamped geometric noise of ``α'`` is that of ``α``
plus an independent ``W``: ``W = 0`` with probability ``r = α(1 − α')² / (α'(1 − α)²) ∈ [0, 1)``,
else geometric of ``α'`` (compare the characteristic functions ``(1 − α)²/(1 − 2α cos t + α²)``).
Likewise ``Lap(b') = Lap(b) + W`` with ``W = 0`` with probability ``(b/b')²``, else ``Lap(b')``
(``1/(1 + b²t²)``).  So the larger noise is a post-processing of the smaller, and its level is at
most as large: the level is non-increasing in ``α`` (for a clamp containing ``[min S, max S]``,
whose level is the unclamped one) and in ``b``.  For a narrower clamp no such argument is known;
:attr:`NoiseLevels.monotone` says which case holds.

Decisions: a geometric level is an exact rational ratio (integers throughout); a Laplace level
is a certified enclosure ``[lower, upper]`` (arb balls; the pairs without the shortcut in fixed
point with outward rounding), compared with a budget through exact rationals
(:func:`pufferfish.verify.numerics.certified.compare_ratio`).  The laws are not taken as
``arb_poly`` balls (``Ring`` ``balls``): their coefficients span thousands of binary orders of
magnitude, and at ``T = 1000`` a ball tree kept about 40 of 128 bits and a product took 125 ms,
where the integer laws are exact and the noisy outputs need only absolute precision (every
noisy output is at least ``α^n`` times the largest).  With ``ends_only=True`` no
polynomial is formed and every pair is read at its two ends only: a certified *lower* bound on the
level (exact when every pair is ordered, which is then not checked), for lengths where the
polynomials do not fit in memory.

>>> from pufferfish.api import load
>>> from pufferfish.verify.numerics.certified import parse_budget
>>> levels = NoiseLevels(load("quickstart.json"), "sum")
>>> levels.geometric(Fraction(1, 2)).ratio_upper     # as the structured audit of "sum"
Fraction(706, 137)
>>> levels.laplace(Fraction(1)).relation(parse_budget("3"))
'below'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx, fmpz, fmpz_poly

from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.mechanisms import Query, QueryMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio, fraction_str
from pufferfish.verify.numerics.certified import Budget, compare_ratio
from pufferfish.verify.report import Explained
from pufferfish.verify.structured.elimination import JunctionTree, Ring, prior_factors
from pufferfish.verify.structured.noise_tools import (INTEGER, PointRing, Quotient,
                                                      ball_quotients, clamped_above,
                                                      clamped_below, fixed_point, integer_factors,
                                                      keep_extremes, likelihood_order, padded,
                                                      w_infinity_of)
from pufferfish.verify.structured.statistics import (DEFAULT_MAX_CODES, Additive, packed_weights,
                                                     statistic_of)

@dataclass(frozen=True)
class LevelWitness:
    """Where a level is attained: prior, ordered pair and output (a query value; for Laplace the
    support point, whose ratio equals the tail limit when it is an extreme one)."""

    prior: str
    pair: str
    first: str
    second: str
    output: int
    ratio_lower: Ratio
    ratio_upper: Ratio

    def to_dict(self) -> dict:
        return {"prior": self.prior, "pair": self.pair, "direction": [self.first, self.second],
                "output": self.output, "ratio": [fraction_str(self.ratio_lower),
                                                 fraction_str(self.ratio_upper)]}


@dataclass(frozen=True, repr=False)
class NoiseLevel(Explained):
    """The level of the noisy query at one noise: ``ratio_lower <= e^level <= ratio_upper``
    (equal and exact for geometric noise; ``ratio_upper`` is ``None`` after an ends-only
    evaluation of pairs not known to be ordered: then only the lower bound is certified)."""

    noise: str
    parameter: Fraction
    ratio_lower: Ratio
    ratio_upper: Ratio | None
    witness: LevelWitness | None
    exact: bool
    vacuous: bool = False

    def relation(self, budget: Budget) -> str:
        """``below``/``tight`` (level <= ε proved), ``above`` (level > ε proved) or
        ``undecided``; a vacuous level is ``undecided``."""
        if self.vacuous:
            return "undecided"
        if compare_ratio(self.ratio_lower, budget).relation == "above":
            return "above"
        if self.ratio_upper is None:
            return "undecided"
        upper = compare_ratio(self.ratio_upper, budget).relation
        if upper == "below":
            return "below"
        if upper == "tight":
            return "tight" if self.ratio_lower == self.ratio_upper else "below"
        return "undecided"

    def to_dict(self) -> dict:
        return {"noise": self.noise, "parameter": fraction_str(self.parameter),
                "ratio": {"lower": fraction_str(self.ratio_lower),
                          "upper": None if self.ratio_upper is None
                          else fraction_str(self.ratio_upper)},
                "exact": self.exact, "vacuous": self.vacuous,
                "witness": None if self.witness is None else self.witness.to_dict()}

    def explain(self) -> str:
        name = "α" if self.noise == "geometric" else "b"
        upper = "?" if self.ratio_upper is None else _float_text(self.ratio_upper)
        text = (f"{self.noise} noise, {name} = {fraction_str(self.parameter)}: e^level ∈ "
                f"[{_float_text(self.ratio_lower)}, {upper}]")
        if self.witness is not None:
            w = self.witness
            text += f"; worst {w.first} vs {w.second} under {w.prior} at output {w.output}"
        return text


def _float_text(ratio: Ratio) -> str:
    return "inf" if ratio == INFINITY else f"{float(ratio):.10g}"


@dataclass
class _Prior:
    """One prior's tree data and the secrets' masses."""

    name: str
    factors: list
    cliques: list
    edges: list
    top: int
    masses: dict            # secret name -> integer mass (scale C)
    polys: dict             # secret name -> fmpz_poly (kept for the pairs that need every output)


@dataclass
class _Pair:
    """An unordered pair of secrets with positive masses under one prior."""

    prior: str
    label: str
    first: object
    second: object
    order: int | None = None        # likelihood_order(F_first, F_second); None: not ordered
    level_zero: tuple | None = None  # (lower, upper, direction, output) without noise
    w_infinity: int | None = None


class NoiseLevels:
    """The level of ``query + noise`` on ``model`` as a function of the noise (module docstring).

    ``query``: ``"sum"``, ``"count"`` or a :class:`~pufferfish.models.mechanisms.Query`
    (``attributes``: the attributes it reads, default all; ``value``: what a count counts,
    default 1).  ``low``/``high``: the clamp of the geometric noise, in query units (default the
    query's range).  Built once (the trees, every secret's law, the order of every pair:
    ``O(T)`` polynomial products for a chain of ``T`` attributes), then :meth:`geometric` and
    :meth:`laplace` evaluate a noise in ``O(T)`` scalar operations plus one polynomial product per
    secret of an unordered pair.  ``ends_only=True`` builds no polynomial (module docstring).
    """

    def __init__(self, model: PufferfishModel, query: Query | str = "sum", *,
                 attributes: Sequence[str] | None = None, value: object = 1,
                 low: int | None = None, high: int | None = None, ends_only: bool = False,
                 max_codes: int = DEFAULT_MAX_CODES) -> None:
        universe = model.universe
        if model.interval_families:
            raise UnsupportedError("interval families constrain only conditionals, which have no "
                                   "factored form", "priors")
        if isinstance(query, str):
            query = Query(query, universe, attributes, value, "query")
        if query.kind not in ("sum", "count"):
            raise UnsupportedError(f"the noisy query must be a sum or a count, not "
                                   f"{query.kind!r}", "query")
        statistic = statistic_of(QueryMechanism("query", universe, query), universe, max_codes)
        if len(statistic.components) != 1 or not isinstance(statistic.components[0], Additive):
            raise UnsupportedError("the query is not one additive statistic", "query")
        self.model, self.query, self.ends_only = model, query, ends_only
        self.offset, self.n = statistic.offsets[0], statistic.codes - 1
        self.low = self.offset if low is None else int(low)
        self.high = self.offset + self.n if high is None else int(high)
        if self.low > self.high:
            raise ModelError(f"the clamp [{self.low}, {self.high}] is empty", "low")
        self.wide = self.low <= self.offset and self.high >= self.offset + self.n
        self.weights = packed_weights(statistic)
        self.reversed = [{x: max(w.values()) - c for x, c in w.items()} for w in self.weights]
        self._kernel: tuple = (None, None)
        self.priors: list[_Prior] = []
        self.pairs: list[_Pair] = []
        self.skipped: list[tuple[str, str, str]] = []
        for secret in {s.name: s for p in model.pairs for s in (p.first, p.second)}.values():
            if secret.conditions is None:
                raise UnsupportedError(f"secret {secret.name!r} is a set of datasets or a "
                                       f"predicate, not a condition on attributes", "secrets")
        for name, prior in model.finite_priors.items():
            factors, cliques, edges = prior_factors(prior, universe)
            factors = integer_factors(factors)
            top = max(sum(max(self.weights[v].values()) for v in clique) for clique in cliques)
            record = _Prior(name, factors, cliques, edges, top, {}, {})
            if ends_only:
                self._check_ends_memory(record, 0, "the secrets' masses")
            self.priors.append(record)
            self._digest(record)

    @property
    def monotone(self) -> bool:
        """Whether the level is proved non-increasing in α (the clamp contains the query's range;
        always for Laplace noise)."""
        return self.wide

    @property
    def vacuous(self) -> bool:
        return not self.pairs

    # -- construction ------------------------------------------------------------------------------
    def _tree(self, record: _Prior, ring: Ring, weights) -> JunctionTree:
        return JunctionTree(self.model.universe.domains, record.factors, record.cliques,
                            record.edges, weights, ring)

    def _digest(self, record: _Prior) -> None:
        """Masses, and unless ``ends_only`` every pair's order, level without noise and ``W_∞``
        from the exact integer laws; the laws of the pairs that need every output are kept."""
        pairs = [(pair.label, pair.first, pair.second) for pair in self.model.pairs]
        if self.ends_only:
            tree = self._tree(record, PointRing((1, 1), record.top), self.weights)
            for _, first, second in pairs:
                for secret in (first, second):
                    if secret.name not in record.masses:
                        record.masses[secret.name] = tree.law(_conditions(secret))
        else:
            tree = self._tree(record, INTEGER, self.weights)
        uses: dict[str, int] = {}
        for _, first, second in pairs:
            for secret in (first, second):
                uses[secret.name] = uses.get(secret.name, 0) + 1
        needed: set[str] = set()     # the secrets of the pairs that need every output
        for label, first, second in pairs:
            if not self.ends_only:
                for secret in (first, second):
                    if secret.name not in record.masses:
                        law = tree.law(_conditions(secret))
                        record.polys[secret.name] = law
                        record.masses[secret.name] = law(1) if law.degree() >= 0 else fmpz(0)
            self._pair_digest(record, label, first, second, needed)
            for secret in (first, second):
                uses[secret.name] -= 1
                if not uses[secret.name] and secret.name not in needed:
                    record.polys.pop(secret.name, None)

    def _pair_digest(self, record: _Prior, label: str, first, second, needed: set) -> None:
        zero = [s.name for s in (first, second) if not record.masses[s.name]]
        if zero:
            for a, b in ((first, second), (second, first)):
                self.skipped.append((f"{a.name} -> {b.name}", record.name,
                                     f"Pr[{zero[0]} | {record.name}] = 0"))
            return
        pair = _Pair(record.name, label, first, second)
        if not self.ends_only:
            f1, f2 = (record.polys[s.name].coeffs() for s in (first, second))
            m1, m2 = record.masses[first.name], record.masses[second.name]
            pair.order = likelihood_order(f1, f2)
            pair.w_infinity = w_infinity_of(f1, f2, m1, m2)
            if pair.order is not None and self.wide:   # the worst is at an end of the supports
                pair.level_zero = _ends_of_supports(f1, f2, m1, m2, self.offset)
            else:
                pair.level_zero = self._pair_outputs(record, pair, Fraction(0))
            if pair.order is None or not self.wide:
                needed.update((first.name, second.name))
        self.pairs.append(pair)

    # -- sizes ---------------------------------------------------------------------------------
    def ends_bytes(self, record: _Prior, point_bits: int) -> int:
        """An estimate of the memory of the exact integers of an ends-only reading of one prior
        at a rational ``z`` whose numerator and denominator have ``point_bits`` bits (0: the
        masses at ``z = 1``), before any is computed.  Each integer has at most the bits of the
        product of the integer factors' sums (a sum over datasets of products of nonnegative
        entries is at most the product of the factors' sums, times the domain sizes of the
        attributes no factor reads) plus ``point_bits`` per unit of each clique's degree: one
        mass per secret and four per clique's messages (half that size on average),
        and at a noise two trees' messages, two ends per secret and the products of the ratios
        of the pair at hand (only the largest ratios are kept across pairs).  The masses of a
        chain of ``10^5`` binary attributes with its entry pairs are ``4·10^5`` integers of
        about ``5·10^5`` bits: some 25 GB."""
        domains = self.model.universe.domains
        covered = {v for scope, _ in record.factors for v in scope}
        bits = sum(int(sum(table.values())).bit_length() for _, table in record.factors)
        bits += sum(len(domains[v]).bit_length() for v in range(len(domains)) if v not in covered)
        bits += point_bits * record.top * len(record.cliques)
        secrets = len({s.name for pair in self.model.pairs for s in (pair.first, pair.second)})
        count = secrets + 2 * len(record.cliques)          # masses, one tree (half size on average)
        if point_bits:      # and two trees' messages, two ends per secret, one pair's products
            count += 2 * secrets + 4 * len(record.cliques) + 32
        return count * (bits // 8 + 16)

    def _check_ends_memory(self, record: _Prior, point_bits: int, what: str,
                           hint: str = "fewer pairs or attributes fit") -> None:
        """Refuse (:class:`~pufferfish.models.errors.TooLargeError`, with the figure) an
        ends-only reading (:meth:`ends_bytes`) that would not fit in three quarters of the
        memory this process may use."""
        from pufferfish.verify.execution import usable_memory

        need, limit = self.ends_bytes(record, point_bits), usable_memory()
        if limit is not None and need > limit * 3 // 4:
            raise TooLargeError(
                f"{what} of prior {record.name!r} at the two ends ({len(self.model.pairs):,} "
                f"secret pairs, {len(self.model.universe.attributes):,} attributes) need about "
                f"{need / 2**30:.1f} GB of exact integers, more than three quarters of the "
                f"{limit / 2**30:.1f} GB this process may use; {hint}", "priors")

    # -- evaluation --------------------------------------------------------------------------------
    def geometric(self, alpha: Fraction | str) -> NoiseLevel:
        """The exact level with two-sided geometric noise of parameter ``alpha`` in ``[0, 1)``,
        clamped to ``[low, high]`` (:class:`~pufferfish.models.mechanisms.GeometricNoise`)."""
        alpha = Fraction(alpha)
        if not 0 <= alpha < 1:
            raise ModelError(f"alpha must satisfy 0 <= alpha < 1, got {fraction_str(alpha)}",
                             "alpha")
        best: list = []   # (ratio_lower, ratio_upper, witness)
        by_ends = self.wide and (alpha or self.ends_only)
        if by_ends:
            point_bits = max(alpha.numerator.bit_length(), alpha.denominator.bit_length())
            for record in self.priors:
                self._check_ends_memory(record, point_bits,
                                        f"the exact levels at α = {fraction_str(alpha)}",
                                        "Laplace levels (balls of fixed precision) need far "
                                        "less")
        ends = self._end_values(alpha) if by_ends else {}
        for pair in self.pairs:
            record = self._record(pair.prior)
            if by_ends and (pair.order is not None or self.ends_only):
                candidates = self._end_ratios(record, pair, ends)
            elif not alpha and not self.ends_only:
                candidates = [pair.level_zero]
            else:
                candidates = [self._pair_outputs(record, pair, alpha)]
            best = keep_extremes(best, [(lower, upper, pair, direction, output)
                                    for lower, upper, direction, output in candidates])
        unbounded = self.ends_only and any(p.order is None for p in self.pairs)
        return self._combine("geometric", alpha, best, True, unbounded)

    def laplace(self, scale: Fraction | str, bits: int = 128) -> NoiseLevel:
        """The certified level of ``query + Lap(scale)`` with real outputs (``scale > 0``)."""
        scale = Fraction(scale)
        if scale <= 0:
            raise ModelError(f"the Laplace scale must be > 0, got {fraction_str(scale)}", "scale")
        working = bits + 2 * max(self.n, len(self.model.universe.attributes)).bit_length() + 16
        with ctx.workprec(working):
            alpha = (-arb(scale.denominator) / arb(scale.numerator)).exp()
            ends = self._end_values(alpha, working)
            best = []
            for pair in self.pairs:
                record = self._record(pair.prior)
                if pair.order is not None or self.ends_only:
                    found = self._end_ratios(record, pair, ends)
                else:
                    found = self._fixed_point_outputs(record, pair, alpha, scale, bits)
                best = keep_extremes(best, [(lower, upper, pair, direction, output)
                                        for lower, upper, direction, output in found])
        unbounded = self.ends_only and any(p.order is None for p in self.pairs)
        return self._combine("laplace", scale, best, False, unbounded)

    def noiseless(self) -> NoiseLevel:
        """The exact level of the query itself, unclamped (the limit of Laplace noise as
        ``b → 0``; :meth:`geometric` at ``α = 0`` is the clamped query)."""
        if self.wide or self.ends_only:
            level = self.geometric(Fraction(0))
            return NoiseLevel("laplace", Fraction(0), level.ratio_lower, level.ratio_upper,
                              level.witness, level.exact, level.vacuous)
        best = []
        for pair in self.pairs:
            found = self._pair_outputs(self._record(pair.prior), pair, Fraction(0), True)
            best.append((found[0], found[1], pair, found[2], found[3]))
        return self._combine("laplace", Fraction(0), best, True, False)

    def _record(self, name: str) -> _Prior:
        return next(r for r in self.priors if r.name == name)

    def _end_values(self, alpha, bits: int | None = None) -> dict:
        """``(prior, secret) -> (F_s(α), Σ_k F_s[k] α^{n−k})`` by two scalar sum-products per
        prior (exact integers for a rational α, balls for an arb α)."""
        out = {}
        for record in self.priors:
            if bits is None:
                point = (alpha.numerator, alpha.denominator)
                rings = [PointRing(point, record.top), PointRing(point, record.top)]
                if not alpha:    # z^0 = 1 at z = 0: the homogenised powers are 0^0 q^top
                    rings = [PointRing((0, 1), record.top), PointRing((0, 1), record.top)]
            else:
                rings = [PointRing(alpha, bits=bits), PointRing(alpha, bits=bits)]
            trees = [self._tree(record, rings[0], self.weights),
                     self._tree(record, rings[1], self.reversed)]
            for pair in self.pairs:
                if pair.prior != record.name:
                    continue
                for secret in (pair.first, pair.second):
                    key = (record.name, secret.name)
                    if key not in out:
                        with rings[0].precision():
                            out[key] = tuple(t.law(_conditions(secret)) for t in trees)
        return out

    def _end_ratios(self, record: _Prior, pair: _Pair, ends: dict) -> list:
        """Both directions' ratios at the two ends: ``[(lower, upper, direction, output)]``
        (the outputs ``min S`` and ``max S``, whose ratios every output beyond them shares)."""
        m1, m2 = record.masses[pair.first.name], record.masses[pair.second.name]
        e1, e2 = ends[(record.name, pair.first.name)], ends[(record.name, pair.second.name)]
        out = []
        for end, output in ((0, self.offset), (1, self.offset + self.n)):
            for direction, (a, b, ma, mb) in ((0, (e1[end], e2[end], m1, m2)),
                                              (1, (e2[end], e1[end], m2, m1))):
                if isinstance(a, arb):
                    lower, upper = ball_quotients(a * mb / (b * ma))
                else:
                    lower = upper = Quotient(a * mb, b * ma)
                out.append((lower, upper, direction, output))
        return out

    def _combine(self, noise: str, parameter: Fraction, found: list, exact: bool,
                 unbounded: bool) -> NoiseLevel:
        """The level from ``[(lower, upper, pair, direction, output)]`` (:class:`Quotient` s):
        the largest lower bound, and the largest upper bound with its witness."""
        if not found:
            return NoiseLevel(noise, parameter, Fraction(1), Fraction(1), None, exact, True)
        worst = max(found, key=lambda f: f[1])
        low, high, pair, direction, output = worst
        lower = high.value if exact else max(f[0] for f in found).value
        first, second = (pair.first, pair.second) if direction == 0 else (pair.second, pair.first)
        witness = LevelWitness(pair.prior, pair.label, first.name, second.name, output,
                               low.value, high.value)
        upper = None if unbounded else high.value
        return NoiseLevel(noise, parameter, lower, upper, witness, exact and not unbounded)

    # -- every output of one pair --------------------------------------------------------------
    def _outputs(self, law: fmpz_poly, alpha: Fraction,
                 unclamped: bool = False) -> list[tuple[int, int, int]]:
        """``[(output, numerator, denominator)]``: ``Pr[ω | s]`` up to a factor common to all
        secrets at each output, exactly."""
        n, p, q = self.n, alpha.numerator, alpha.denominator
        L, H = self.low - self.offset, self.high - self.offset
        wide = self.wide or unclamped
        if L == H and not wide:   # one output: its probability is the secret's mass
            return [(self.low, law(1) if law.degree() >= 0 else fmpz(0), fmpz(1))]
        if p:
            if self._kernel[0] != alpha:     # Σ_{|d|<=n} p^{|d|} q^{n−|d|} z^{d+n}, once per α
                powers, cofactors = [fmpz(1)], [fmpz(1)]
                for _ in range(n):
                    powers.append(powers[-1] * p)
                    cofactors.append(cofactors[-1] * q)
                self._kernel = (alpha, fmpz_poly([powers[abs(d)] * cofactors[n - abs(d)]
                                                  for d in range(-n, n + 1)]))
            product = (law * self._kernel[1]).coeffs() if law.degree() >= 0 else []
        else:   # no noise: the kernel is z^n
            product = [fmpz(0)] * n + law.coeffs()

        zero, one = fmpz(0), fmpz(1)

        def at(k: int) -> fmpz:
            return product[k + n] if k + n < len(product) else zero

        if wide:   # every output beyond [0, n] has the ratio of 0 or n
            return [(k + self.offset, at(k), one) for k in range(n + 1)]
        out = []
        if L + 1 <= H - 1:   # interior outputs, each beyond [0, n] read at 0 or n
            first, last = min(max(L + 1, 0), n), max(min(H - 1, n), 0)
            out = [(min(max(k, L + 1), H - 1) + self.offset, at(k), one)
                   for k in range(first, last + 1)]
        for end, value in ((L, clamped_below(law, L, alpha)), (H, clamped_above(law, H, alpha))):
            out.append((end + self.offset, value.p, value.q))
        return out

    def _pair_outputs(self, record: _Prior, pair: _Pair, alpha: Fraction,
                      unclamped: bool = False) -> tuple:
        """``(ratio, direction, output)`` of the worst output of both directions, exactly."""
        m1, m2 = record.masses[pair.first.name], record.masses[pair.second.name]
        o1 = self._outputs(record.polys[pair.first.name], alpha, unclamped)
        o2 = self._outputs(record.polys[pair.second.name], alpha, unclamped)
        best = None   # (ratio, direction, output)
        for (output, a, da), (_, b, db) in zip(o1, o2):
            for direction, num, den in ((0, a * db * m2, b * da * m1), (1, b * da * m1, a * db * m2)):
                if num:
                    ratio = Quotient(num, den)
                    if best is None or best[0] < ratio:
                        best = (ratio, direction, output)
        if best is None:
            return Quotient(0, 1), Quotient(0, 1), 0, self.low
        return best[0], best[0], best[1], best[2]

    def _fixed_point_outputs(self, record: _Prior, pair: _Pair, alpha: arb, scale: Fraction,
                             bits: int) -> list:
        """Both directions' worst outputs with Laplace noise for an unordered pair: the laws in
        fixed point (outward rounded, ``P`` bits below their largest coefficient) times the
        kernel's balls in fixed point; ``[(lower, upper, direction, output)]``."""
        n = self.n
        extra = math.ceil(n / (float(scale) * math.log(2))) + max(1, int(scale)).bit_length()
        P = bits + extra + n.bit_length() + 32
        powers, x = [], arb(1)
        for _ in range(n + 1):
            powers.append(x)
            x *= alpha
        kernel = [powers[abs(d)] for d in range(-n, n + 1)]
        k_lo = fmpz_poly([fixed_point(v.lower(), P, floor=True) for v in kernel])
        k_hi = fmpz_poly([fixed_point(v.upper(), P, floor=False) for v in kernel])
        laws = [record.polys[pair.first.name], record.polys[pair.second.name]]
        shift = max(max(abs(int(c)) for c in law.coeffs()).bit_length() for law in laws) - P
        shift = max(shift, 0)
        bounds = []
        for law in laws:
            coeffs = [int(c) for c in law.coeffs()]
            lo = fmpz_poly([c >> shift for c in coeffs]) * k_lo
            hi = fmpz_poly([-((-c) >> shift) for c in coeffs]) * k_hi
            bounds.append((padded(lo, 3 * n + 1), padded(hi, 3 * n + 1)))
        m = [int(record.masses[pair.first.name]), int(record.masses[pair.second.name])]
        out = []
        for direction, (a, b) in ((0, (0, 1)), (1, (1, 0))):
            lowest, highest, where = Quotient(0, 1), Quotient(0, 1), 0
            for k in range(n + 1):
                lower = Quotient(bounds[a][0][k + n] * m[b], bounds[b][1][k + n] * m[a])
                upper = Quotient(bounds[a][1][k + n] * m[b], bounds[b][0][k + n] * m[a])
                lowest = max(lowest, lower)
                if highest < upper:
                    highest, where = upper, k
            out.append((lowest, highest, direction, where + self.offset))
        return out

    # -- Wasserstein --------------------------------------------------------------------------
    def w_infinity(self) -> tuple[int, _Pair | None]:
        """``W = max W_∞`` over priors and pairs of the query's conditional laws (Algorithm 1 of
        Wang et al., Privacy-Preserving Analysis of Correlated Data, §3), exact, with its pair."""
        if self.ends_only:
            raise UnsupportedError("W_∞ needs the laws; build without ends_only", "ends_only")
        worst = max(self.pairs, key=lambda p: p.w_infinity, default=None)
        return (0 if worst is None else worst.w_infinity), worst


def _ends_of_supports(f1, f2, m1, m2, offset: int) -> tuple:
    """Without noise, for laws in likelihood-ratio order: the worst of both directions at the
    first and last point of the union of the supports ``(lower, upper, direction, output)``."""
    support = [k for k in range(max(len(f1), len(f2)))
               if (k < len(f1) and f1[k]) or (k < len(f2) and f2[k])]
    best = None
    for k in (support[0], support[-1]):
        a, b = (f1[k] if k < len(f1) else 0), (f2[k] if k < len(f2) else 0)
        for direction, num, den in ((0, a * m2, b * m1), (1, b * m1, a * m2)):
            ratio = Quotient(num, den)
            if num and (best is None or best[0] < ratio):
                best = (ratio, ratio, direction, k + offset)
    return best


def _conditions(secret) -> dict[int, frozenset]:
    return {position: frozenset(allowed) for position, allowed in secret.conditions}


__all__ = ["NoiseLevels", "NoiseLevel", "LevelWitness"]
