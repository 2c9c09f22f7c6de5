"""Structured a*(b) for Markov-chain priors, without enumerating the ``k^T`` datasets.

Source: Bai et al., Composition for Pufferfish Privacy, §6.2 Definition 7, §6.3 Example 6.1 and the
proof of Theorem 8 (Appendix C), which uses the same reduction for binary homogeneous chains.  Here
it is made exact and general: any finite family of :class:`~pufferfish.models.priors.MarkovPrior`
(any number of states, inhomogeneous transitions, any initial distribution, zero probabilities
allowed) and secret pairs ``X_i = a`` vs ``X_i = b`` on single entries.

**The argument.**  Fix an ordered pair ``(X_i = a, X_i = b)`` and a prior θ with
``Pr[X_i = a] > 0`` and ``Pr[X_i = b] > 0``.

1. If ``i ∈ L`` then ``Pr[X_i = a | X_i = a] / Pr[X_i = a | X_i = b] = 1/0``: ``a†(L) = ∞``.
2. Let ``i − d_L`` and ``i + d_R`` be the nearest entries of ``L`` left and right of ``i`` (either
   may not exist).  Given ``X_i`` the past and the future of a Markov chain are independent, and
   the entries of ``L`` beyond ``i − d_L`` depend on ``X_i`` only through ``X_{i−d_L}`` (likewise
   on the right), so for every ``D_L`` with ``Pr[D_L | X_i = b] > 0``
   ``Pr[D_L | X_i = a] / Pr[D_L | X_i = b] = R_left(u) · R_right(v)`` where ``u, v`` are the values
   of the two nearest entries, ``R_left(u) = Pr[X_{i−d_L} = u | X_i = a] / Pr[X_{i−d_L} = u | X_i = b]``
   and ``R_right`` likewise (a missing side contributes the factor 1).  The factors of the far
   entries cancel; when they vanish, numerator and denominator vanish together.
3. Hence ``a†(L) = log(max_u R_left(u) · max_v R_right(v))`` under θ: both maxima are ``>= 1``
   (the conditional distributions have equal total mass) and are attained at values of positive
   probability under ``X_i = a``, so their product is attained by a valid ``D_L``; a value ``u``
   impossible under ``X_i = b`` but possible under ``a`` makes the factor infinite.
   With ``R_left(u) = P(u → a) Pr[X_i = b] / (P(u → b) Pr[X_i = a])`` (``P`` the ``d_L``-step
   transition probability, ``u`` ranging over the support of ``X_{i−d_L}``) and
   ``R_right(v) = Pr[X_{i+d_R} = v | X_i = a] / Pr[X_{i+d_R} = v | X_i = b]``.
4. ``max_u R_left`` is non-increasing in ``d_L`` (data processing: ``X_{i−d−1}`` is a noisy
   function of ``X_{i−d}`` given ``X_i``), and likewise on the right; so for ``|H| <= b`` an optimal
   ``H`` is a contiguous window ``[i − c_L, i + c_R]`` with ``c_L + c_R = min(b − 1, T − 1)``
   (extra entries of ``H`` elsewhere never help).  Over a family the value of a split is the maximum
   over θ of the product, so
   ``a*(b) = min_{c_L + c_R = b − 1} max_θ FL_θ[c_L] · FR_θ[c_R]`` with ``FL[c] = max_u R_left`` at
   ``d_L = c + 1`` (``= 1`` when ``c = i``: no low entry on the left), ``FR`` likewise.

**Cost.**  Per prior and position: ``O(b_max · k²)`` exact operations for the ``FL, FR`` tables
plus ``O(T k²)`` once for the marginals; the min-max over splits is ``O(|Θ| · b_max²)`` per
position and value pair.  When every prior is homogeneous and starts in its stationary
distribution, every position at distance ``>= b_max`` from both ends has the same tables, so only
position-dependent work is only the truncation at the two ends: the side tables are computed once
per value pair and the min-max once per distinct truncation (``O(b_max)`` of them), so a chain of
length 10^4 with ``b <= 100`` takes seconds.
The tests check this against :func:`pufferfish.verify.influence.curves.pair_curve` (brute force) on small chains.

Length: the exact curve, its split into engine tasks by shared side tables, and the certified
float bounds for large stationary chains all rest on the side tables of the argument above.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import INFINITY, Ratio
from pufferfish.models.priors import IndependentPrior, MarkovPrior
from pufferfish.verify.quilts.prior_networks import independent_as_chain
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.numerics.intervals import UNIT_ROUNDOFF, dot_error_factor
from pufferfish.verify.influence.curves import (InfluenceCurve, InfluencePoint, ProgressCallback, combine_pairs,
                              directed_pairs)
from pufferfish.verify.privacy.pufferfish import ratio_key
from pufferfish.verify.report import Explained


@dataclass(frozen=True)
class _SideTable:
    """``factors[c]`` = worst ratio through the nearest low entry at distance ``c+1`` (1 if none),
    with the worst value there (``None`` when the side has no low entry)."""

    factors: tuple[Ratio, ...]
    values: tuple[object, ...]


def _ratio(num: Fraction, den: Fraction) -> Ratio:
    return INFINITY if not den else num / den


def _times(x: Ratio, y: Ratio) -> Ratio:
    return INFINITY if INFINITY in (x, y) else x * y


def _worst(pairs: Mapping[object, tuple[Fraction, Fraction]]) -> tuple[Ratio, object]:
    """``max`` over values of ``num/den`` for values with ``num > 0`` (den 0: infinite)."""
    best: Ratio = Fraction(0)
    arg = None
    for value, (num, den) in pairs.items():
        if not num:
            continue
        r = _ratio(num, den)
        if arg is None or ratio_key(r) > ratio_key(best):
            best, arg = r, value
            if r == INFINITY:
                break
    return best, arg


class _Chain:
    """Exact marginals and multi-step transitions of one chain prior."""

    def __init__(self, prior: MarkovPrior, length: int) -> None:
        self.prior = prior
        self.length = length
        kernel0 = prior.transitions[0] if prior.transitions else None
        self.homogeneous = all(k is kernel0 or k == kernel0 for k in prior.transitions)
        self.stationary = kernel0 is not None and self.homogeneous and (
            self._step(dict(prior.initial.items()), 0) == dict(prior.initial.items()))
        self._marginals: dict[int, dict] = {0: dict(prior.initial.items())}

    def kernel(self, t: int) -> Mapping[object, Distribution]:
        """Transition from entry ``t`` to entry ``t+1`` (any ``t`` for a homogeneous chain)."""
        return self.prior.transitions[0] if self.homogeneous else self.prior.transitions[t]

    def _step(self, dist: Mapping, t: int) -> dict:
        out: dict = {}
        kernel = self.kernel(t)
        for w, p in dist.items():
            if not p:
                continue
            row = kernel.get(w)
            if row is None:
                continue
            for v, q in row.items():
                out[v] = out.get(v, Fraction(0)) + p * q
        return {v: p for v, p in out.items() if p}

    def marginal(self, t: int) -> dict:
        """``Pr[X_t = ·]`` (computed forward and cached; constant for a stationary chain)."""
        if self.stationary:
            return self._marginals[0]
        known = max(k for k in self._marginals if k <= t)
        dist = self._marginals[known]
        for s in range(known, t):
            dist = self._step(dist, s)
            self._marginals[s + 1] = dist
        return dist

    def right(self, i: int, a, b, cap: int, unbounded: bool = False) -> _SideTable:
        """``FR[c]`` for ``c = 0..cap``: forward laws of ``X_{i+c+1}`` from ``X_i = a`` and ``= b``.

        ``unbounded``: ignore the chain's end (stationary chains, where ``FR`` does not depend on
        the position; callers truncate)."""
        n = self.length if not unbounded else i + cap + 2
        fa, fb = {a: Fraction(1)}, {b: Fraction(1)}
        factors, values = [], []
        for c in range(cap + 1):
            if i + c + 1 > n - 1:   # no low entry on the right: every right entry is in H
                factors.append(Fraction(1))
                values.append(None)
                continue
            fa, fb = self._step(fa, i + c), self._step(fb, i + c)
            keys = set(fa) | set(fb)
            r, v = _worst({k: (fa.get(k, Fraction(0)), fb.get(k, Fraction(0))) for k in keys})
            factors.append(r)
            values.append(v)
        return _SideTable(tuple(factors), tuple(values))

    def left(self, i: int, a, b, cap: int, unbounded: bool = False) -> _SideTable:
        """``FL[c]`` for ``c = 0..cap`` via backward ``d``-step probabilities ``P(u → a)``
        (``unbounded``: as for :meth:`right`)."""
        pi = self.marginal(i)
        va: dict = {a: Fraction(1)}
        vb: dict = {b: Fraction(1)}
        factors, values = [], []
        for c in range(cap + 1):
            t = i - c - 1                       # position of the nearest low entry on the left
            if t < 0 and not unbounded:
                factors.append(Fraction(1))
                values.append(None)
                continue
            kernel = self.kernel(t)
            va = {u: sum((q * va.get(w, 0) for w, q in row.items()), Fraction(0))
                  for u, row in kernel.items()}
            vb = {u: sum((q * vb.get(w, 0) for w, q in row.items()), Fraction(0))
                  for u, row in kernel.items()}
            support = self.marginal(t)
            r, v = _worst({u: (va.get(u, Fraction(0)) * pi[b], vb.get(u, Fraction(0)) * pi[a])
                           for u in support})
            factors.append(r)
            values.append(v)
        return _SideTable(tuple(factors), tuple(values))


def _entry_value(secret: Secret) -> tuple[int, object]:
    conditions = secret.conditions
    if not conditions or len(conditions) != 1 or len(conditions[0][1]) != 1:
        raise UnsupportedError(
            f"secret {secret.name!r} is not of the form 'attribute = value'; the structured chain "
            "computation handles single-entry secrets only (use the brute force for others)")
    index, values = conditions[0]
    return index, next(iter(values))


def chain_priors(model: PufferfishModel) -> list[MarkovPrior]:
    """The model's priors, all of which must be Markov chains over the attributes in order.

    An independent prior is the chain whose every row at step ``t`` is the marginal of attribute
    ``t+1`` (:func:`independent_as_chain`).
    """
    priors = []
    for name, prior in model.priors.items():
        if isinstance(prior, IndependentPrior):
            prior = independent_as_chain(prior, model.universe.domains)
        if not isinstance(prior, MarkovPrior):
            raise UnsupportedError(f"prior {name!r} is not a Markov chain; the structured "
                                   "computation needs every prior to be one", f"priors.{name}")
        priors.append(prior)
    if model.universe.explicit is not None:
        raise UnsupportedError("the structured chain computation needs the product universe "
                               "(\"datasets\": \"all\")")
    return priors


def _pair_keys(model: PufferfishModel, first: Secret, second: Secret, max_b: int, cache: dict
               ) -> tuple[tuple, tuple, int, object, object]:
    """``(tables key, choices key, i, a, b)`` of one ordered pair: pairs with equal keys share
    their side tables / their best splits (``cache`` keeps the chains)."""
    priors = chain_priors(model)
    n = model.universe.width
    i, a = _entry_value(first)
    j, b = _entry_value(second)
    if i != j:
        raise UnsupportedError(f"secrets {first.name!r} and {second.name!r} are about different "
                               "entries; the structured chain computation needs one entry")
    chains = cache.get("chains")
    if chains is None:
        chains = cache["chains"] = [_Chain(p, n) for p in priors]
    cap = max(0, min(max_b, n) - 1)
    # stationary chains: the side tables do not depend on the position (only their truncation at
    # the chain's ends does), so they are computed once per value pair
    if all(c.stationary for c in chains):
        key = ("stationary", a, b, cap)
        return key, ("choices",) + key + (min(i, cap + 1), min(n - 1 - i, cap + 1)), i, a, b
    key = (i, a, b, cap)
    return key, ("choices",) + key, i, a, b


def _pair_choices(model: PufferfishModel, first: Secret, second: Secret, max_b: int,
                  cache: dict) -> tuple[tuple, list]:
    """``(choices key, best split per b)`` of one ordered pair, through ``cache``."""
    key, choices_key, i, a, b = _pair_keys(model, first, second, max_b, cache)
    n = model.universe.width
    cap = max(0, min(max_b, n) - 1)
    stationary = key[0] == "stationary"
    tables = cache.get(key)
    if tables is None:
        tables = []
        for chain in cache["chains"]:
            pi = chain.marginal(i)
            if not pi.get(a) or not pi.get(b):
                continue
            tables.append((chain.prior.name, chain.left(i, a, b, cap, stationary),
                           chain.right(i, a, b, cap, stationary)))
        cache[key] = tables
    choices = cache.get(choices_key)
    if choices is None:
        choices = cache[choices_key] = _best_splits(tables, i, n, cap, max_b)
    return choices_key, choices


def chain_pair_curve(model: PufferfishModel, first: Secret, second: Secret, max_b: int,
                     _cache: dict | None = None) -> list[InfluencePoint]:
    """``a*_{(first, second)}(b)`` for ``b = 0..max_b`` on a chain family (see the module)."""
    _, choices = _pair_choices(model, first, second, max_b, _cache if _cache is not None else {})
    i, a = _entry_value(first)
    return _points(choices, f"{first.name} -> {second.name}", i, a, model.universe.width)


def _choices_task(model: PufferfishModel, pairs: Sequence[tuple[Secret, Secret]], max_b: int
                  ) -> list[tuple[tuple, list]]:
    """:func:`_pair_choices` of each pair, through one cache (an engine task)."""
    cache: dict = {}
    return [_pair_choices(model, first, second, max_b, cache) for first, second in pairs]


def _points(choices: list, label: str, i: int, a, n: int) -> list[InfluencePoint]:
    points = []
    for budget, choice in enumerate(choices):
        if choice is None:            # no prior constrains this direction
            points.append(InfluencePoint(budget, Fraction(1), label, tuple(range(min(budget, n)))))
            continue
        value, name, c_left, c_right, u, v = choice
        if budget == 0:
            points.append(InfluencePoint(0, INFINITY, label, (), name, ((i, a),)))
            continue
        witness = []
        if c_left < i:
            witness.append((i - c_left - 1, u))
        if c_right < n - 1 - i:
            witness.append((i + c_right + 1, v))
        points.append(InfluencePoint(budget, value, label,
                                     tuple(range(i - c_left, i + c_right + 1)), name,
                                     tuple(witness)))
    return points


def _as_pair(r: Ratio) -> tuple[int, int]:
    return (1, 0) if r == INFINITY else (r.numerator, r.denominator)


def _best_splits(tables, i: int, n: int, cap: int, max_b: int) -> list:
    """For each ``b``: ``(value, prior, c_left, c_right, u, v)`` of the best window (or ``None``).

    Products and comparisons use unreduced integer pairs ``(num, den)`` (``den = 0``: infinite;
    every factor is ``>= 1`` so numerators are positive), which is exact and avoids gcds.
    """
    pairs = [(name, [_as_pair(f) for f in left.factors], [_as_pair(f) for f in right.factors],
              left, right) for name, left, right in tables]
    out: list = []
    for budget in range(max_b + 1):
        if not tables:
            out.append(None)
            continue
        if budget == 0:
            out.append((INFINITY, tables[0][0], 0, 0, None, None))
            continue
        spend = min(budget, n) - 1
        best = None
        for c_left in range(max(0, spend - (n - 1 - i)), min(spend, i) + 1):
            c_right = spend - c_left
            worst = None
            for name, lp, rp, left, right in pairs:
                ln, ld = lp[c_left] if c_left < i else (1, 1)
                rn, rd = rp[c_right] if c_right < n - 1 - i else (1, 1)
                num, den = ln * rn, ld * rd
                if worst is None or num * worst[1] > worst[0] * den:
                    worst = (num, den, name, left, right)
            if best is None or worst[0] * best[1] < best[0] * worst[1]:
                best = (worst[0], worst[1], worst[2], c_left, c_right, worst[3], worst[4])
        num, den, name, c_left, c_right, left, right = best
        value: Ratio = INFINITY if not den else Fraction(num, den)
        out.append((value, name, c_left, c_right,
                    left.values[c_left] if c_left < i else None,
                    right.values[c_right] if c_right < n - 1 - i else None))
    return out


def chain_influence_curve(model: PufferfishModel, pairs: Sequence[SecretPair] | None = None,
                          max_b: int | None = None, progress: ProgressCallback | None = None,
                          per_pair_limit: int = 512, engine: Engine | None = None
                          ) -> InfluenceCurve:
    """The exact a(b)-influence curve of a Markov-chain family, structured (see the module).

    Every ordered pair of ``pairs`` (default: the model's) must be ``X_i = a`` vs ``X_i = b``.
    With more than ``per_pair_limit`` ordered pairs, ``per_pair`` keeps one representative per
    group of pairs with identical curves (interior nodes of a stationary chain share one).

    On a Dask ``engine`` (:mod:`pufferfish.verify.execution`) the pairs are grouped by the side
    tables they share (one group per value pair for stationary chains, per position and value pair
    otherwise) and contiguous runs of groups are the tasks, so no table is computed twice; the
    curve is identical to the in-process one.
    """
    n = model.universe.width
    max_b = n if max_b is None else max_b
    if max_b < 0:
        raise ModelError(f"max b must be >= 0, got {max_b}", "--max-b")
    directed = directed_pairs(model, pairs)
    cache: dict = {}
    if engine is None or isinstance(engine, InProcessEngine):
        found = []
        for k, (first, second) in enumerate(directed):
            if progress is not None and k % 64 == 0:
                progress(k, len(directed), f"{first.name} -> {second.name}")
            found.append(_pair_choices(model, first, second, max_b, cache))
    else:
        found = _choices_on(engine, model, directed, max_b, cache, progress)
    if progress is not None:
        progress(len(directed), len(directed), "done")
    groups: dict[tuple, tuple] = {}   # pairs with identical computations share one choices list
    for (first, second), (key, choices) in zip(directed, found):
        if key not in groups:
            groups[key] = (choices, f"{first.name} -> {second.name}", *_entry_value(first))
    if len(directed) <= per_pair_limit:
        per_pair = {f"{first.name} -> {second.name}":
                    _points(choices, f"{first.name} -> {second.name}", *_entry_value(first), n)
                    for (first, second), (_, choices) in zip(directed, found)}
    else:
        per_pair = {label: _points(choices, label, i, a, n)
                    for choices, label, i, a in groups.values()}
    notes = ("structured Markov-chain computation: leakage through L passes through the nearest "
             "low-influence entries on each side of the secret entry",)
    return combine_pairs(per_pair, n, "markov chain", model.universe.attributes, notes)


def _choices_on(engine: Engine, model: PufferfishModel, directed: list, max_b: int, cache: dict,
                progress: ProgressCallback | None) -> list[tuple[tuple, list]]:
    """:func:`_pair_choices` of every pair, as tasks on ``engine`` (results in ``directed``
    order): pairs sharing side tables go to one task, about four tasks per worker."""
    groups: dict[tuple, list[int]] = {}
    for k, (first, second) in enumerate(directed):
        groups.setdefault(_pair_keys(model, first, second, max_b, cache)[0], []).append(k)
    members = list(groups.values())
    size = -(-len(members) // (4 * engine.workers))
    batches = [[k for group in members[start:start + size] for k in group]
               for start in range(0, len(members), size)]
    tick = None if progress is None else (lambda done, total: progress(done, total, "groups"))
    results = engine.map(_choices_task, [([directed[k] for k in batch], max_b)
                                         for batch in batches], tick, shared=model)
    found: list = [None] * len(directed)
    for batch, answers in zip(batches, results):
        for k, answer in zip(batch, answers):
            found[k] = answer
    return found


# --------------------------------------------------------------------------------------------
# certified float bounds for large stationary chains (many states)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BoundedPoint:
    """``a(b)`` enclosed in ``[lower, upper]`` (natural log), with the worst ordered value pair
    ``first -> second``, its best window (``d_left``, ``d_right``: distances of the nearest low
    entries; ``None`` for a side whose window reaches the chain's end)."""

    b: int
    lower: float
    upper: float
    first: object = None
    second: object = None
    d_left: int | None = None
    d_right: int | None = None

    def to_dict(self) -> dict:
        return {"b": self.b, "a_bounds": [self.lower, self.upper],
                "pair": None if self.first is None else [self.first, self.second],
                "window": None if self.d_left is None else {"d_left": self.d_left,
                                                            "d_right": self.d_right}}


@dataclass(repr=False, frozen=True)
class ChainCurveBounds(Explained):
    """Certified enclosures of the a(b)-influence curve of a stationary chain family.

    ``points`` covers ``b = 0..max_b`` (default ``T − 1``) plus ``b = T`` (``a = 0``: every entry of the chain is in ``H``).  :meth:`curve_points` turns the
    upper ends into exact :class:`~pufferfish.verify.influence.translation.CurvePoint` values for Theorem 6 (an upper
    bound on ``a*(b)`` is a valid curve point).
    """

    length: int
    states: int
    points: tuple[BoundedPoint, ...]
    notes: tuple[str, ...] = ()

    def curve_points(self):
        from pufferfish.verify.influence.translation import CurvePoint, LogValue
        out = []
        for p in self.points:
            a = LogValue.log(INFINITY) if p.upper == float("inf") else LogValue.rational(
                Fraction(p.upper))
            out.append(CurvePoint(p.b, a))
        return out

    def to_dict(self) -> dict:
        return {"check": "influence_curve", "method": "stationary chain, certified float bounds",
                "entries": self.length, "states": self.states,
                "points": [p.to_dict() for p in self.points], "notes": list(self.notes)}

    def explain(self) -> str:
        return ("a(b) bounds: " + "; ".join(f"a({p.b}) ∈ [{p.lower:.6g}, {p.upper:.6g}]"
                                            for p in self.points))


def _member_max(stacks, tables):
    """Elementwise max over the family's members of their (masked) arrays."""
    import numpy as np
    out = None
    for stack, (_, _, _, m) in zip(stacks, tables):
        masked = np.where(m[None], stack, -np.inf)
        out = masked if out is None else np.maximum(out, masked)
    return out


def _no_nan(array):
    """``nan`` (from ``−∞ − (−∞)``, a pair with no constraint) becomes ``−∞``; infinities stay."""
    import numpy as np
    return np.where(np.isnan(array), -np.inf, array)


def float_log_error(t: int, k: int) -> float:
    """Bound on ``|log(computed) − log(exact)|`` for one table entry after ``t`` nonnegative
    matrix products of size ``k`` (module docstring): ``η = ((1+u)(1+γ_{k+1}))^{t+1} − 1`` gives
    ``−log(1−η)``, plus a few ulps of a logarithm of magnitude at most 745.  ``O(1)``.

    >>> 0 < float_log_error(10, 2) < 1e-12
    True
    """
    gamma = dot_error_factor(k) / 2          # γ_{k+1}
    eta = ((1 + UNIT_ROUNDOFF) * (1 + gamma)) ** (t + 1) - 1
    return -math.log1p(-eta) + 4 * UNIT_ROUNDOFF * 800


def stationary_chain_curve_bounds(chains, max_b: int | None = None) -> ChainCurveBounds:
    """Certified ``[lower, upper]`` on the a(b)-influence curve of single-entry secrets
    ``X_i = x`` vs ``X_i = x'`` for a family of homogeneous chains started stationary, in float64
    with a-priori rounding-error bounds — for chains too large for the exact Fractions path of
    :func:`chain_influence_curve` (e.g. the 78-state priors of Bai et al., Composition for
    Pufferfish Privacy, §7.1.4).

    ``chains``: :class:`pufferfish.models.bayesnet.MarkovChain` objects with the same states and length ``T``,
    each with ``initial`` equal to its exact stationary law (checked exactly).  Same reduction as
    the module docstring: for an interior position (every position gives the same tables when the
    chain is stationary, and positions near the ends never give more, by the monotonicity of step 4)
    ``a*(b) = min_{d_L + d_R = b + 1} max_θ log FL_θ[d_L] + log FR_θ[d_R]`` with
    ``FL[d] = max_u P^d(u,x) π(x') / (P^d(u,x') π(x))`` over ``π(u) > 0`` and
    ``FR[d] = max_z P^d(x,z) / P^d(x',z)``; ``a(b) = max_{x ≠ x'}`` of it over values of positive
    stationary probability.  For ``(T−1)/2 < b < T`` every window touches an end of the chain and
    each position ``i`` is evaluated (a side that reaches the end contributes the factor 1).
    ``max_b`` caps the points computed (omitting points keeps a valid curve; it only costs
    utility); ``b = T`` (``a = 0``) is always included.

    Rounding: ``P^d`` is computed by repeated multiplication, so each entry is within relative
    ``((1+u)(1+γ_{k+1}))^d − 1`` of the exact value (the bound of :func:`float_log_error`, which
    also covers the rounding of ``log``); the enclosure is the float value ± twice the sum of the
    six terms' bounds.  Zero patterns are checked against exact boolean reachability (an underflow
    raises ``ArithmeticError`` rather than giving a wrong infinity).

    Cost: ``O(b_max k³)`` for the powers and tables, ``O(b_max² k² |Θ|)`` for the min over windows,
    and ``O(T b k² |Θ|)`` for each ``b > (T−1)/2``.
    """
    import numpy as np

    chains = list(chains)
    if not chains:
        raise ModelError("the family needs at least one chain", "priors")
    first = chains[0]
    k, n = first.k, first.length
    for c in chains:
        if c.states != first.states or c.length != n:
            raise ModelError("every chain needs the same states and length", f"priors.{c.name}")
        if c.initial is None:
            raise UnsupportedError("the chain needs its stationary law as initial distribution",
                                   f"priors.{c.name}.initial")
        pi = c.initial
        moved = tuple(sum((pi[x] * c.matrix[x][y] for x in range(k) if pi[x]), Fraction(0))
                      for y in range(k))
        if moved != tuple(pi):
            raise UnsupportedError("the chain does not start in its stationary distribution; use "
                                   "chain_influence_curve", f"priors.{c.name}.initial")
    interior = (n - 1) // 2
    top = n - 1 if max_b is None else max(0, min(max_b, n - 1))
    tables = []
    for c in chains:
        P = np.array([[float(p) for p in row] for row in c.matrix])
        pattern = np.array([[p > 0 for p in row] for row in c.matrix], dtype=np.int64)
        pi = np.array([float(p) for p in c.initial])
        pos = pi > 0
        with np.errstate(divide="ignore"):
            lpi = np.where(pos, np.log(np.where(pos, pi, 1.0)), -np.inf)
        power, reach = np.eye(k), np.eye(k, dtype=np.int64)
        logL, logF = [None], [None]
        for d in range(1, top + 1):
            power = power @ P
            reach = np.minimum(reach @ pattern, 1)
            if not np.array_equal(power > 0, reach > 0):
                raise ArithmeticError(f"underflow in P^{d}: a positive entry rounded to 0")
            with np.errstate(divide="ignore", invalid="ignore"):
                lm = np.log(power)
                # FR[x, x'] = max_z lm[x,z] − lm[x',z] over z with P^d(x,z) > 0
                diff = lm[:, None, :] - lm[None, :, :]
                diff = np.where(np.isneginf(lm)[:, None, :], -np.inf, diff)
                logF.append(_no_nan(diff).max(axis=2))
                # FL[x, x'] = max_u lm[u,x] − lm[u,x'] over u with π(u) > 0, P^d(u,x) > 0
                lt = lm.T
                diff = lt[:, None, :] - lt[None, :, :]
                keep = (~np.isneginf(lt))[:, None, :] & pos[None, None, :]
                left = np.where(keep, _no_nan(diff), -np.inf).max(axis=2)
                left = left + (lpi[None, :] - lpi[:, None])
            logL.append(left)
        mask = pos[:, None] & pos[None, :] & ~np.eye(k, dtype=bool)
        tables.append((c.name, logL, logF, mask))
    mask = np.zeros((k, k), dtype=bool)
    for _, _, _, m in tables:
        mask |= m
    states = first.states
    points = []
    any_pair = bool(mask.any())
    points.append(BoundedPoint(0, float("inf") if any_pair else 0.0,
                               float("inf") if any_pair else 0.0))
    for b in range(1, top + 1):
        if not any_pair:
            points.append(BoundedPoint(b, 0.0, 0.0))
            continue
        # windows d_L = 1..b, d_R = b + 1 − d_L; value[w, x, x'] = max over members
        value = _member_max([np.stack([logL[d] + logF[b + 1 - d] for d in range(1, b + 1)])
                             for _, logL, logF, _ in tables], tables)
        margin = 2 * (4 * float_log_error(b, k) + 2 * float_log_error(0, k))
        if b <= interior:
            # an interior position exists and no position near the ends does worse (step 4)
            best_window = value.argmin(axis=0)
            per_pair = np.take_along_axis(value, best_window[None], axis=0)[0]
            per_pair = np.where(mask, per_pair, -np.inf)
            flat = int(per_pair.argmax())
            x, y = divmod(flat, k)
            w = int(best_window[x, y])
            d_left, d_right = w + 1, b - w
        else:
            # every window touches an end: position i has i entries on its left, n-1-i on its
            # right; a window side reaching the end has no low entry there (factor 1)
            worst, where = None, None
            for i in range(n):
                options, labels = [], []
                lo, hi = max(0, b - n + i + 1), min(b - 1, i - 1)
                if lo <= hi:
                    part = value[lo:hi + 1]
                    arg = part.argmin(axis=0)
                    options.append(np.take_along_axis(part, arg[None], axis=0)[0])
                    labels.append(("window", lo, arg))
                if i <= b - 1:                    # window reaches the left end
                    options.append(_member_max([lf[b - i][None] for _, _, lf, _ in tables],
                                               tables)[0])
                    labels.append(("left end", None, None))
                if b - n + i >= 0:                # window reaches the right end
                    options.append(_member_max([ll[b - n + i + 1][None] for _, ll, _, _ in tables],
                                               tables)[0])
                    labels.append(("right end", None, None))
                stack = np.stack(options)
                pick = stack.argmin(axis=0)
                here = np.where(mask, np.take_along_axis(stack, pick[None], axis=0)[0], -np.inf)
                if worst is None or here.max() > worst.max():
                    worst, where = here, (i, pick, labels)
            per_pair = worst
            flat = int(per_pair.argmax())
            x, y = divmod(flat, k)
            i, pick, labels = where
            kind, lo, arg = labels[int(pick[x, y])]
            if kind == "window":
                c_left = lo + int(arg[x, y])
                d_left, d_right = c_left + 1, b - c_left
            elif kind == "left end":
                d_left, d_right = None, b - i
            else:
                d_left, d_right = b - n + i + 1, None
        a_float = float(per_pair[x, y])
        if a_float == float("inf"):
            lower = upper = float("inf")
        else:
            a_float = max(a_float, 0.0)
            lower, upper = max(0.0, a_float - margin), a_float + margin
        points.append(BoundedPoint(b, lower, upper, states[x], states[y], d_left, d_right))
    points.append(BoundedPoint(n, 0.0, 0.0))
    notes = (f"points with {top} < b < {n} not computed (a valid curve without them)",) \
        if top + 1 < n else ()
    notes += ("enclosures: float64 with a-priori rounding-error bounds (certified)",)
    return ChainCurveBounds(n, k, tuple(points), notes)
