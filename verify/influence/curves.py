"""Max-influence, leakage through a set of entries, and the exact a(b)-influence curve.

Source: Bai et al., Composition for Pufferfish Privacy, §6.1 Definition 6 and §6.2 Definition 7.

* **Max-influence** (Definition 6):
  ``e_Θ(X_A | X_i) = sup_θ max_{a,b,x_A} log Pr(X_A = x_A | X_i = a, θ) / Pr(X_A = x_A | X_i = b, θ)``
  (:func:`max_influence`; computed by :mod:`pufferfish.verify.influence.max_influence`).
* **Leakage through L** (Definition 7): for an ordered secret pair ``(s_i, s_j)`` and a set
  ``L`` of entries (attribute indices), ``a†(L) = sup_θ max_{D_L} log Pr[Data_L = D_L | s_i, θ] /
  Pr[Data_L = D_L | s_j, θ]``.  Max-influence is ``a†`` for the pairs "X_i = a" vs "X_i = b".
* **a*(b)** ``= inf_{L : |H| <= b} a†(L)`` with ``H = I \\ L``, and the curve
  ``a(b) = max_{(s_i,s_j) ∈ 𝕊} a*_{(s_i,s_j)}(b)`` (the tightest curve the definition allows).

Everything is exact over the model's finite priors: each value is ``log r`` for an exact rational
``r`` (``max_ratio``; ``epsilon`` is the text ``"log(r)"``), and all comparisons are
cross-multiplications of integers.  Zero conventions follow Definition 5: a prior under which
``Pr[s_i|θ] = 0`` or ``Pr[s_j|θ] = 0`` imposes nothing (skipped); ``D_L`` with
``Pr[D_L|s_i,θ] = 0`` imposes nothing; ``Pr[D_L|s_i,θ] > 0 = Pr[D_L|s_j,θ]`` gives an infinite ratio.
A direction that no prior constrains has ``a† = 0`` (ratio 1).  Interval families (Example 4.3)
enter exactly: for each ``D_L`` the supremum over the family is the largest conditional mass of
``D_L`` given ``s_i`` over the smallest given ``s_j`` (the two conditionals are independent and
each mass is linear in its conditional, so an extreme member attains it; ``_FamilyConditionals``);
the point's ``prior`` names the family and ``p_given_first``/``p_given_second`` are those extremes.
Max-influence (Definition 6) conditions on ``X_i = a``, which an interval family fixes only for its
own secrets, so :func:`max_influence` refuses families.

**Brute force over splits.**  ``a†`` is monotone in ``L`` (marginalising ``Data_L`` to a subset
can only lower the maximal ratio: a ratio of sums is at most the largest ratio of terms), so
``a*(b)`` is attained with ``|H| = min(b, n)`` and only ``C(n, b)`` splits are searched per ``b``.
Pruning: the search for ``b`` starts from the best split of ``b − 1`` extended by one entry, and
skips every ``L`` that contains an entry ``j`` whose own leakage ``a†({j})`` already reaches the
best value (monotonicity again).  Cost: ``O(Σ_b C(n,b) · |support|)`` per direction and prior in
the worst case, i.e. ``O(2^n · |support|)``; a ``progress(done, total, what)`` callback reports
the splits examined.  Structured chains: :mod:`pufferfish.verify.influence.chains`.

>>> from pufferfish.models.files.pufferfish_file import parse_model
>>> model = parse_model({"pufferfish_model": 1, "attributes": ["x1", "x2"], "domain": [0, 1],
...     "datasets": "all", "priors": {"chain": {"markov": {"initial": {"0": "1/2", "1": "1/2"},
...     "transition": {"0": {"0": "3/4", "1": "1/4"}, "1": {"0": "1/4", "1": "3/4"}}}}},
...     "secrets": {"a": {"where": {"x1": 0}}, "b": {"where": {"x1": 1}}}, "pairs": [["a", "b"]]})
>>> [p.epsilon for p in influence_curve(model).points]
['inf', 'log(3)', '0']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from math import comb
from operator import itemgetter

from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.kernel import integer_weights
from pufferfish.models.model import PufferfishModel
from pufferfish.models.mechanisms import jsonable_output
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.models.priors import IntervalFamily
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.influence.max_influence import MaxInfluence, max_influence_of_joints
from pufferfish.verify.privacy.pufferfish import ratio_key
from pufferfish.verify.privacy.supports import prior_supports
from pufferfish.verify.report import Explained

ProgressCallback = Callable[[int, int, str], None]
"""``progress(done, total, what)``: called while splits are searched."""


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------

@dataclass(repr=False, frozen=True)
class LeakageThrough(Explained):
    """``a†_{(first, second)}(L)`` (Definition 7) with the ``D_L`` and prior attaining it."""

    first: str
    second: str
    low: tuple[int, ...]
    max_ratio: Ratio
    prior: str | None = None
    values: tuple | None = None
    p_first: Fraction | None = None
    p_second: Fraction | None = None

    @property
    def epsilon(self) -> str:
        return epsilon_str(self.max_ratio)

    def to_dict(self) -> dict:
        data = {"direction": [self.first, self.second], "low": list(self.low),
                "max_ratio": fraction_str(self.max_ratio), "epsilon": self.epsilon,
                "epsilon_float": epsilon_float(self.max_ratio), "prior": self.prior}
        if self.values is not None:
            data["low_values"] = jsonable_output(self.values)
            data["p_given_first"] = fraction_str(self.p_first)
            data["p_given_second"] = fraction_str(self.p_second)
        return data

    def explain(self) -> str:
        if self.values is None:
            return f"{self.first} vs {self.second} through L={list(self.low)}: a† = {self.epsilon}"
        return (f"{self.first} vs {self.second} through L={list(self.low)}: a† = {self.epsilon} "
                f"at D_L={jsonable_output(self.values)} under {self.prior} "
                f"({fraction_str(self.p_first)} vs {fraction_str(self.p_second)})")


@dataclass(frozen=True)
class InfluencePoint:
    """One point ``(b, a*(b))`` with the split and the worst case that attain it.

    ``high`` is the set ``H`` (attribute indices) of the minimising split; ``low_values`` is the
    worst ``D_L`` as ``((index, value), ...)`` — all of ``L`` for brute force, the nearest
    low-influence entries for chains (through which all leakage passes, see
    :mod:`pufferfish.verify.influence.chains`).
    """

    b: int
    max_ratio: Ratio
    pair: str
    high: tuple[int, ...]
    prior: str | None = None
    low_values: tuple[tuple[int, object], ...] | None = None
    p_first: Fraction | None = None
    p_second: Fraction | None = None

    @property
    def epsilon(self) -> str:
        return epsilon_str(self.max_ratio)

    def to_dict(self) -> dict:
        data = {"b": self.b, "a": self.epsilon, "a_ratio": fraction_str(self.max_ratio),
                "a_float": epsilon_float(self.max_ratio), "pair": self.pair,
                "high": list(self.high), "prior": self.prior}
        if self.low_values is not None:
            data["low_values"] = [[i, jsonable_output(v)] for i, v in self.low_values]
        if self.p_first is not None:
            data["p_given_first"] = fraction_str(self.p_first)
            data["p_given_second"] = fraction_str(self.p_second)
        return data


@dataclass(repr=False, frozen=True)
class InfluenceCurve(Explained):
    """The a(b)-influence curve ``b ↦ max_pairs a*(b)`` with a witness per point.

    ``per_pair`` holds each ordered pair's own curve ``a*_{(s_i,s_j)}``.
    """

    entries: int
    points: tuple[InfluencePoint, ...]
    per_pair: dict = field(default_factory=dict)
    method: str = "brute force"
    attributes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def at(self, b: int) -> InfluencePoint:
        """The point for ``b`` (``b`` beyond the computed range: the last point, by monotonicity
        only if that point is 0)."""
        for point in self.points:
            if point.b == b:
                return point
        raise KeyError(b)

    def to_dict(self) -> dict:
        return {"check": "influence_curve", "method": self.method, "entries": self.entries,
                "points": [p.to_dict() for p in self.points],
                "per_pair": {label: [p.to_dict() for p in pts]
                             for label, pts in self.per_pair.items()},
                "notes": list(self.notes)}

    def explain(self) -> str:
        parts = [f"a({p.b}) = {p.epsilon}" + (f" ≈ {epsilon_float(p.max_ratio):.6g}"
                                              if p.max_ratio not in (INFINITY, 1) else "")
                 for p in self.points]
        return f"a(b)-influence curve ({self.method}, |I| = {self.entries}): " + "; ".join(parts)


# --------------------------------------------------------------------------------------------
# exact conditional tables
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Conditionals:
    """``Pr[D, s_i | θ]`` and ``Pr[D, s_j | θ]`` as integers over one denominator, per prior."""

    prior: str
    rows: tuple[tuple[Dataset, int, int], ...]
    mass_first: int
    mass_second: int
    denominator: int


@dataclass(frozen=True)
class _FamilyConditionals:
    """An interval family's conditionals for one ordered pair (Bai et al., Composition for
    Pufferfish Privacy, §4, Example 4.3).

    For a fixed ``D_L``, ``Pr[D_L | s, θ]`` is linear in ``θ(·|s)`` and the two secrets'
    conditionals are chosen independently, so ``sup_θ Pr[D_L|s_i,θ] / Pr[D_L|s_j,θ]`` is the
    family's largest ``Pr[D_L|s_i]`` over its smallest ``Pr[D_L|s_j]``, each found exactly by
    :meth:`~pufferfish.models.priors.IntervalFamily.extreme_conditional` (greedy over the blocks)
    and attained by an extreme member; the maximum over ``D_L`` then commutes with the supremum.
    """

    prior: str
    family: IntervalFamily
    first: str
    second: str

    def extremes(self, low: Sequence[int], key: tuple) -> tuple[Fraction, Fraction]:
        """``(max_θ Pr[D_L = key | first], min_θ Pr[D_L = key | second])``."""
        def indicator(secret: str) -> dict:
            return {d: Fraction(int(tuple(d[k] for k in low) == key))
                    for block in self.family.blocks[secret] for d in block.datasets}

        top, _ = self.family.extreme_conditional(self.first, indicator(self.first), True)
        bottom, _ = self.family.extreme_conditional(self.second, indicator(self.second), False)
        return top, bottom

    def leak(self, low: Sequence[int]) -> tuple[int, int, tuple | None]:
        """As :func:`_leak_one`, over the whole family.  Cost ``O(|keys| · |datasets|)``."""
        keys = dict.fromkeys(tuple(d[k] for k in low) for block in self.family.blocks[self.first]
                             for d in block.datasets)
        best_num, best_den, best_key = 0, 1, None
        for key in keys:
            top, bottom = self.extremes(low, key)
            if not top:
                continue
            num = top.numerator * bottom.denominator
            den = bottom.numerator * top.denominator
            if best_key is None or num * best_den > best_num * den:
                best_num, best_den, best_key = num, den, key
                if not den:
                    break
        return best_num, best_den, best_key


def _conditionals(model: PufferfishModel, first: Secret, second: Secret, max_datasets: int
                  ) -> tuple[list[_Conditionals | _FamilyConditionals], list[str]]:
    tables: list[_Conditionals | _FamilyConditionals] = []
    skipped = []
    for name, support in prior_supports(model, max_datasets).items():
        ints, denominator = integer_weights([p for _, p in support])
        rows = []
        mass_first = mass_second = 0
        for (dataset, _), w in zip(support, ints):
            wi = w if first.holds(dataset) else 0
            wj = w if second.holds(dataset) else 0
            if wi or wj:
                rows.append((dataset, wi, wj))
                mass_first += wi
                mass_second += wj
        if not mass_first or not mass_second:
            skipped.append(name)
            continue
        tables.append(_Conditionals(name, tuple(rows), mass_first, mass_second, denominator))
    for name, family in model.interval_families.items():
        family.require_blocks((first.name, second.name), f"{first.name} -> {second.name}", name)
        tables.append(_FamilyConditionals(name, family, first.name, second.name))
    return tables, skipped


def _leak_one(cond: _Conditionals, low: Sequence[int]) -> tuple[int, int, tuple | None]:
    """Largest ``Pr[D_L|s_i]/Pr[D_L|s_j]`` under one prior as ``(num, den, D_L)`` (den 0: inf)."""
    if low:
        getter = itemgetter(*low)
        single = len(low) == 1
        acc: dict = {}
        for dataset, wi, wj in cond.rows:
            key = getter(dataset)
            if single:
                key = (key,)
            old = acc.get(key)
            acc[key] = (wi, wj) if old is None else (old[0] + wi, old[1] + wj)
    else:
        acc = {(): (cond.mass_first, cond.mass_second)}
    best_num, best_den, best_key = 0, 1, None
    for key, (ni, nj) in acc.items():
        if not ni:
            continue
        num, den = ni * cond.mass_second, nj * cond.mass_first
        if best_key is None or num * best_den > best_num * den:
            best_num, best_den, best_key = num, den, key
            if not den:
                break
    return best_num, best_den, best_key


def _leak(tables: Sequence[_Conditionals], low: Sequence[int], bound: Ratio | None = None):
    """``max_θ`` of :func:`_leak_one`; stops early once the value reaches ``bound``.

    Returns ``(ratio, conditionals, D_L)``.
    """
    best: Ratio = Fraction(1) if not tables else Fraction(0)
    witness = (None, None)
    for cond in tables:
        num, den, key = (cond.leak(low) if isinstance(cond, _FamilyConditionals)
                         else _leak_one(cond, low))
        if key is None:
            continue
        value: Ratio = INFINITY if not den else Fraction(num, den)
        if witness[0] is None or ratio_key(value) > ratio_key(best):
            best, witness = value, (cond, key)
        if bound is not None and ratio_key(best) >= ratio_key(bound):
            break
    if tables and witness[0] is None:
        best = Fraction(1)
    return best, witness[0], witness[1]


def _marginal_prob(cond: _Conditionals | _FamilyConditionals, low: Sequence[int], key: tuple
                   ) -> tuple[Fraction, Fraction]:
    if isinstance(cond, _FamilyConditionals):
        return cond.extremes(low, key)
    ni = nj = 0
    for dataset, wi, wj in cond.rows:
        if tuple(dataset[k] for k in low) == key:
            ni += wi
            nj += wj
    return Fraction(ni, cond.mass_first), Fraction(nj, cond.mass_second)


def _indices(model: PufferfishModel, entries: Iterable[int | str], what: str) -> tuple[int, ...]:
    out = []
    for entry in entries:
        if isinstance(entry, str):
            out.append(model.universe.index(entry, what))
        elif isinstance(entry, int) and not isinstance(entry, bool) and 0 <= entry < model.universe.width:
            out.append(entry)
        else:
            raise ModelError(f"entry {entry!r} is not an attribute index in "
                             f"0..{model.universe.width - 1} or name", what)
    if len(set(out)) != len(out):
        raise ModelError("an entry is listed twice", what)
    return tuple(sorted(out))


# --------------------------------------------------------------------------------------------
# Definition 7 and Definition 6
# --------------------------------------------------------------------------------------------

def leakage_through(model: PufferfishModel, first: Secret, second: Secret,
                    low: Iterable[int | str], max_datasets: int = DEFAULT_MAX_DATASETS
                    ) -> LeakageThrough:
    """``a†_{(first, second)}(L)`` of Definition 7, exactly, with its witness.

    Cost ``O(|Θ| · |support|)``.
    """
    low_idx = _indices(model, low, "low")
    tables, _ = _conditionals(model, first, second, max_datasets)
    value, cond, key = _leak(tables, low_idx)
    if cond is None:
        return LeakageThrough(first.name, second.name, low_idx, value)
    p_first, p_second = _marginal_prob(cond, low_idx, key)
    return LeakageThrough(first.name, second.name, low_idx, value, cond.prior, key,
                          p_first, p_second)


def max_influence(model: PufferfishModel, target: Iterable[int | str], source: int | str,
                  max_datasets: int = DEFAULT_MAX_DATASETS) -> MaxInfluence:
    """``e_Θ(X_A | X_i)`` of Definition 6 (Bai et al., Composition for Pufferfish Privacy, §6.1),
    exactly.

    Each finite prior's support is marginalised onto ``(X_A, X_i)`` and the maximum is taken by
    :func:`pufferfish.verify.influence.max_influence.max_influence_of_joints` (the one
    implementation of Definition 6, shared with the Markov Quilt Mechanism).  Cost
    ``O(|Θ| · |support| + |Θ| d² |support|)``.
    """
    if model.interval_families:
        raise UnsupportedError("max-influence conditions on X_i = a, but an interval family fixes "
                               "only the conditionals of its own secrets; use finite priors, or "
                               "the a(b)-influence curve with the family's secrets as the pair",
                               "priors")
    (src,) = _indices(model, [source], "source")
    target_idx = _indices(model, target, "target")
    domain = model.universe.domains[src]

    def joints():
        for name, support in prior_supports(model, max_datasets).items():
            joint: dict = {}
            for dataset, p in support:
                key = tuple(dataset[t] for t in target_idx) + (dataset[src],)
                joint[key] = joint.get(key, Fraction(0)) + p
            yield name, joint, domain

    return max_influence_of_joints(src, target_idx, joints())


def directed_pairs(model: PufferfishModel, pairs: Sequence[SecretPair] | None = None
                   ) -> list[tuple[Secret, Secret]]:
    """The ordered pairs ``(s_i, s_j)`` of ``pairs`` (default: the model's), without repeats."""
    out, seen = [], set()
    for pair in (pairs if pairs is not None else model.pairs):
        for first, second in pair.directions():
            if (first.name, second.name) not in seen:
                seen.add((first.name, second.name))
                out.append((first, second))
    return out


def pair_curve(model: PufferfishModel, first: Secret, second: Secret, max_b: int | None = None,
               progress: ProgressCallback | None = None,
               max_datasets: int = DEFAULT_MAX_DATASETS) -> list[InfluencePoint]:
    """``a*_{(first, second)}(b)`` for ``b = 0..max_b`` by brute force over splits (see module)."""
    n = model.universe.width
    max_b = n if max_b is None else max_b
    if max_b < 0:
        raise ModelError(f"max b must be >= 0, got {max_b}", "--max-b")
    label = f"{first.name} -> {second.name}"
    tables, _ = _conditionals(model, first, second, max_datasets)
    singles = [_leak(tables, (j,))[0] for j in range(n)]
    order = sorted(range(n), key=lambda j: ratio_key(singles[j]), reverse=True)
    total = sum(comb(n, min(b, n)) for b in range(max_b + 1))
    done = 0
    points: list[InfluencePoint] = []
    previous_high: tuple[int, ...] | None = None
    for b in range(max_b + 1):
        size = min(b, n)
        candidates: Iterable[tuple[int, ...]] = combinations(range(n), size)
        best = None
        if previous_high is not None and len(previous_high) < size:
            extra = next(j for j in order if j not in previous_high)
            seed = tuple(sorted(previous_high + (extra,)))
        else:
            seed = previous_high
        if seed is not None and len(seed) == size:
            low = tuple(j for j in range(n) if j not in seed)
            best = (_leak(tables, low), seed)
        if best is not None and best[0][0] == 1:
            candidates = ()   # a* = 0 (ratio 1) is the least possible value: the seed is optimal
        for high in candidates:
            done += 1
            if progress is not None and done % 64 == 0:
                progress(done, total, f"{label}, b={b}")
            if best is not None:
                bound = best[0][0]
                top = next((j for j in order if j not in high), None)
                if top is not None and ratio_key(singles[top]) >= ratio_key(bound):
                    continue
            else:
                bound = None
            low = tuple(j for j in range(n) if j not in high)
            value = _leak(tables, low, bound)
            if best is None or ratio_key(value[0]) < ratio_key(best[0][0]):
                best = (value, high)
        (value, cond, key), high = best
        previous_high = high
        if cond is None:
            points.append(InfluencePoint(b, value, label, high))
            continue
        low = tuple(j for j in range(n) if j not in high)
        p_first, p_second = _marginal_prob(cond, low, key)
        points.append(InfluencePoint(b, value, label, high, cond.prior, tuple(zip(low, key)),
                                     p_first, p_second))
    if progress is not None:
        progress(total, total, label)
    return points


def combine_pairs(per_pair: dict[str, list[InfluencePoint]], entries: int, method: str,
                  attributes: tuple[str, ...] = (), notes: tuple[str, ...] = ()) -> InfluenceCurve:
    """The curve ``a(b) = max_pairs a*(b)`` from each ordered pair's own curve."""
    if not per_pair:
        raise ModelError("no secret pair to compute an influence curve for", "pairs")
    length = min(len(points) for points in per_pair.values())
    points = []
    for k in range(length):
        worst = max((pts[k] for pts in per_pair.values()), key=lambda p: ratio_key(p.max_ratio))
        points.append(worst)
    return InfluenceCurve(entries, tuple(points), dict(per_pair), method, attributes, notes)


def _pair_curve_task(model: PufferfishModel, first: Secret, second: Secret, max_b: int | None,
                     max_datasets: int) -> list[InfluencePoint]:
    """One ordered pair's curve as an engine task (the model is the shared argument)."""
    return pair_curve(model, first, second, max_b, None, max_datasets)


def influence_curve(model: PufferfishModel, pairs: Sequence[SecretPair] | None = None,
                    max_b: int | None = None, progress: ProgressCallback | None = None,
                    max_datasets: int = DEFAULT_MAX_DATASETS,
                    engine: Engine | None = None) -> InfluenceCurve:
    """The exact a(b)-influence curve (Definition 7) by brute force over splits.

    Every ordered pair of ``pairs`` (default: the model's secret pairs) gets its own curve
    ``a*_{(s_i,s_j)}``; the curve is their pointwise maximum, each point with its witness.

    On a Dask ``engine`` (:mod:`pufferfish.verify.execution`) each ordered pair is one task (the
    model is shipped to each worker once): the pruning runs across ``b`` inside a pair, so a task
    keeps all of it, and the curves come back in the pairs' order — the curve is identical.
    """
    directed = directed_pairs(model, pairs)
    labels = [f"{f.name} -> {s.name}" for f, s in directed]
    if engine is None or isinstance(engine, InProcessEngine):
        curves = [pair_curve(model, f, s, max_b, progress, max_datasets) for f, s in directed]
    else:
        if max_b is not None and max_b < 0:
            raise ModelError(f"max b must be >= 0, got {max_b}", "--max-b")
        tick = None if progress is None else (lambda done, total: progress(done, total, "pairs"))
        curves = engine.map(_pair_curve_task, [(f, s, max_b, max_datasets) for f, s in directed],
                            tick, shared=model)
    return combine_pairs(dict(zip(labels, curves)), model.universe.width, "brute force",
                         model.universe.attributes)
