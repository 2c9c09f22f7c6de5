"""The least noise that makes a sum or a count ε-Pufferfish private, by a search whose every step
is a certified level comparison.

For a model whose priors have a factored form (chains, product priors, Bayesian networks), its
secret pairs, and a query ``S`` (a sum or a count),
:class:`~pufferfish.verify.structured.noise_level.NoiseLevels` gives the level of ``S + Z`` at
any noise:

* **geometric** — ``Pr[Z = z] ∝ α^{|z|}`` clamped to ``[low, high]`` (default the range of ``S``):
  :func:`least_geometric_noise` searches rational α and reports ``α_fail < α_ok`` with the
  level at ``α_ok`` proved ``<= ε`` and at ``α_fail`` proved ``> ε``, both *exact* (the level is the
  log of a rational, decided by :func:`~pufferfish.verify.numerics.certified.compare_ratio`), and
  the scale ``b = −1/log α`` of both as a certified interval;
* **Laplace** — ``Z ~ Lap(b)``, real outputs: :func:`least_laplace_scale` searches rational ``b``
  and reports ``b_fail < b_ok`` with the level at ``b_ok`` certified ``<= ε`` (upper end of the
  enclosure) and at ``b_fail`` certified ``> ε`` (lower end).

**What the bracket proves.**  The level is non-increasing in the noise (Laplace: always;
geometric: when the clamp contains the range of ``S``; the decomposition of the larger noise as the
smaller plus independent noise is in :mod:`~pufferfish.verify.structured.noise_level`), so the
private noises form an up-ray and *the least private noise lies in* ``(fail, ok]``
(``LeastNoise.least`` is true).  For a clamp narrower than the range no such argument is known and
the result says only what it proves: ``ok`` is private, ``fail`` is not.  Either way the bracket
is for this query, these secret pairs and these priors only — unlike the Markov Quilt Mechanism's
σ or the Wasserstein mechanism's ``W/ε`` (Wang et al., Privacy-Preserving Analysis of Correlated
Data, §3–4), which hold for any 1-Lipschitz query or against a whole class of priors.

The same threshold governs both noises: at an integer output the Laplace density is the geometric
law at ``α = e^{−1/b}`` up to a common factor, so with the default clamp the least Laplace scale
is ``b* = −1/log α*`` for the least geometric ``α*`` (the two brackets overlap; a test checks it).

**What to use.**  Each bracket ends in one plain sentence (:meth:`LeastNoise.advice`): ``use
α >= α_ok`` (and ``use b >= b_ok``) when every larger noise is proved private too — the level at
``α_ok`` is *exactly* at most ε and at ``α_fail`` exactly above it; for Laplace noise both are
*certified* (an interval enclosure decides them); the least noise itself, generally irrational,
is only known to lie in the certified bracket ``(fail, ok]``.  With a clamp narrower than the
range the sentence is ``use α = α_ok`` and says that a larger α is not proved private.
:func:`least_noise` with ``mechanism=NAME`` reads the query, its attributes, the counted value
and the clamp from that mechanism of the model, and also states whether the mechanism's own α is
private (:class:`MechanismNoise`, an exact level).

**The search** works in ``u = log b``.  Floats only choose where to look: the level behaves like
``K/b``, so from each evaluation ``b·level/ε`` estimates the threshold, and then a secant step on
``(log b, log level)`` between the two ends of the bracket; each probe lands just beyond the
estimate on the side that narrows the bracket, and the search stops when
``b_ok/b_fail − 1 <= tolerance``.  Geometric probes use the rational with the smallest
denominator near ``e^{−1/b}`` (small integers keep the exact arithmetic fast).  A Laplace level
that its enclosure cannot separate from ε is recomputed at 4× the precision, up to 2048 bits,
and is otherwise left undecided (never used as a bracket end).  With ``ends_only`` levels (a lower
bound: only the two clamp ends of each pair read) ``fail`` is still certified while ``ok`` is only
where the lower bound meets ε: the least noise is *at least* ``fail``.

Cost: one :class:`NoiseLevels` build, then about 4 to 8 evaluations (a geometric one is two exact
scalar sum-products over the tree, plus one polynomial product per secret of an unordered pair).

>>> from pufferfish.api import load
>>> levels = NoiseLevels(load("quickstart.json"), "sum")
>>> result = least_laplace_scale(levels, "1", tolerance=Fraction(1, 100))
>>> result.least, float(result.fail.parameter) < float(result.ok.parameter)
(True, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import fraction_str
from pufferfish.verify.numerics.certified import Budget, budget_float, parse_budget
from pufferfish.verify.numerics.intervals import (endpoints, float_down, float_up,
                                                  interval_context, log_interval)
from pufferfish.verify.report import Explained
from pufferfish.verify.structured.noise_level import NoiseLevel, NoiseLevels

MAX_BITS = 2048
"""The most bits a Laplace level is recomputed at before it is left undecided."""


def geometric_scale(alpha: Fraction) -> tuple[float, float]:
    """Certified doubles ``lo <= −1/log α <= hi`` (the Laplace-equivalent scale of α; 0 at 0).

    >>> lo, hi = geometric_scale(Fraction(1, 2))
    >>> lo <= 1 / math.log(2) <= hi
    True
    """
    if not alpha:
        return 0.0, 0.0
    context = interval_context(80)
    low, high = endpoints(-1 / log_interval(context, alpha))
    return float_down(low), float_up(high)


def simplest_between(low: Fraction, high: Fraction) -> Fraction:
    """The rational of smallest denominator in ``[low, high]`` (``0 <= low <= high``), by the
    continued-fraction walk of the Stern–Brocot tree.

    >>> simplest_between(Fraction(31, 100), Fraction(34, 100))
    Fraction(1, 3)
    """
    if low > high:
        raise ValueError("empty interval")
    whole = math.floor(low)
    if whole == low or whole + 1 <= high:
        return Fraction(whole if whole == low else whole + 1)
    rest = simplest_between(1 / (high - whole), 1 / (low - whole))
    return whole + 1 / rest


@dataclass(frozen=True)
class Probe:
    """One evaluation of the search: the noise, its scale as a float, the level's verdict."""

    parameter: Fraction
    scale: float
    verdict: str          # "ok", "fail" or "undecided"
    level: NoiseLevel

    def estimate(self) -> float | None:
        """The level as a float for steering (the lower end of its enclosure), ``None`` when 0."""
        ratio = self.level.ratio_lower
        if ratio == math.inf:
            return math.inf
        if ratio <= 1:
            return None
        if not isinstance(ratio, Fraction):
            level = math.log(ratio)
        elif ratio < 2:                      # log1p of the exact excess: no rounding to 0
            level = math.log1p(float(ratio - 1))
        else:                                # the logs of the integers: no float overflow
            level = math.log(ratio.numerator) - math.log(ratio.denominator)
        return level if level > 0 else None


@dataclass(frozen=True, repr=False)
class LeastNoise(Explained):
    """The least noise of one kind: ``ok`` private, ``fail`` not (each a certified level; either
    may be ``None``: no noise needed, or no noise suffices), the scales between them, and what the
    bracket proves (``least``; ``lower_bound_only`` for an ends-only search)."""

    noise: str
    budget: Budget
    ok: NoiseLevel | None
    fail: NoiseLevel | None
    scale: tuple[float | None, float | None]
    least: bool
    lower_bound_only: bool
    probes: tuple[Probe, ...]
    seconds: float
    notes: tuple[str, ...] = field(default=())
    monotone: bool = False

    @property
    def use_at_least(self) -> Fraction | None:
        """The noise to use at least: ``ok`` when every larger noise is private too (the level
        is proved non-increasing: Laplace noise, or a clamp containing the query's range), else
        ``None``."""
        if self.ok is None or not self.monotone or self.lower_bound_only:
            return None
        return self.ok.parameter

    def advice(self) -> str:
        """What to use, said plainly, and how it is known: ``use α >= α_ok`` (the level at
        ``α_ok`` exactly, or for Laplace noise certifiedly, at most ε), or why no such
        sentence holds."""
        name = "α" if self.noise == "geometric" else "b"
        proof = "exactly" if self.noise == "geometric" else "certified"
        ok = None if self.ok is None else fraction_str(self.ok.parameter)
        fail = None if self.fail is None else fraction_str(self.fail.parameter)
        if self.lower_bound_only:
            return ("no noise is proved private by ends-only levels" if fail is None else
                    f"use {name} > {fail} at least: the level at {name} = {fail} is {proof} "
                    f"above ε (ends-only levels prove no {name} private)")
        if ok is None:
            return ("nothing to protect: no secret pair has positive probability" if fail is None
                    else f"no {name} was proved ε-private (the notes say why)")
        if fail is None:
            return (f"use any {name} >= 0: the query alone is within ε ({name} = 0 is no noise)"
                    if self.use_at_least is not None else
                    f"{name} = 0 (no noise) is ε-private; a larger {name} is not proved private "
                    f"(the clamp is narrower than the query's range)")
        bracket = (f"the level at {name} = {ok} is {proof} at most ε, at {name} = {fail} {proof} "
                   f"above it")
        if self.use_at_least is None:
            return (f"use {name} = {ok}: {bracket}; a larger {name} is not proved private (the "
                    f"clamp is narrower than the query's range)")
        return f"use {name} >= {ok} ({bracket})"

    def to_dict(self) -> dict:
        at_least = self.use_at_least
        return {"noise": self.noise, "epsilon": self.budget.text,
                "ok": None if self.ok is None else self.ok.to_dict(),
                "fail": None if self.fail is None else self.fail.to_dict(),
                "scale": {"lower": self.scale[0], "upper": self.scale[1], "certified": True},
                "least": self.least, "lower_bound_only": self.lower_bound_only,
                "use_at_least": None if at_least is None else fraction_str(at_least),
                "advice": self.advice(),
                "evaluations": len(self.probes), "seconds": round(self.seconds, 3),
                "notes": list(self.notes)}

    def explain(self) -> str:
        name = "α" if self.noise == "geometric" else "b"
        ok = "none" if self.ok is None else fraction_str(self.ok.parameter)
        fail = "none" if self.fail is None else fraction_str(self.fail.parameter)
        low, high = (("?" if x is None else f"{x:.6g}") for x in self.scale)
        claim = ("a certified bracket: the least private scale is in (fail, ok]" if self.least else
                 "ok is private, fail is not" if not self.lower_bound_only else
                 "the least private scale is at least fail (ends-only levels)")
        upper = (f"{name}_ok = {ok}" if not self.lower_bound_only else
                 f"the two ends are within ε from {ok}")
        lines = [f"{self.noise} noise, ε = {self.budget.text}: {name}_fail = {fail}, {upper}; "
                 f"scale b ∈ [{low}, {high}] ({claim})", f"  {self.advice()}"]
        return "\n".join(lines + list(self.notes))


@dataclass(frozen=True, repr=False)
class MechanismNoise(Explained):
    """The mechanism of the model whose query the search read (``least_noise(...,
    mechanism=NAME)``): its geometric noise (``alpha`` ``None``: it adds none), clamp, and the
    level of that noise (of the query alone without noise) against ``budget``."""

    name: str
    alpha: Fraction | None
    low: int | None
    high: int | None
    level: NoiseLevel
    budget: Budget

    @property
    def verdict(self) -> str:
        """``private``, ``not private`` or ``undecided`` (an ends-only lower bound within ε)."""
        relation = self.level.relation(self.budget)
        return {"below": "private", "tight": "private", "above": "not private"}.get(relation,
                                                                                   "undecided")

    def to_dict(self) -> dict:
        alpha = None if self.alpha is None else fraction_str(self.alpha)
        return {"name": self.name, "alpha": alpha, "min": self.low, "max": self.high, "verdict": self.verdict,
                "level": self.level.to_dict()}

    def explain(self) -> str:
        how = "exact level" if self.level.exact else "a lower bound on the level"
        if self.alpha is None:
            return (f"mechanism {self.name} adds no noise: the query alone is {self.verdict} at "
                    f"ε = {self.budget.text} ({how})")
        return (f"mechanism {self.name}: geometric noise α = {fraction_str(self.alpha)} on "
                f"[{self.low}, {self.high}] is {self.verdict} at ε = {self.budget.text} ({how})")


@dataclass(frozen=True, repr=False)
class LeastNoiseReport(Explained):
    """The least geometric noise and the least Laplace scale of one query on one model (either
    may be ``None`` when not asked for), with the pairs the model's priors leave unconstrained
    and, when the query was read from a mechanism of the model, that mechanism's own noise."""

    query: str
    geometric: LeastNoise | None
    laplace: LeastNoise | None
    skipped: tuple[tuple[str, str, str], ...] = ()
    mechanism: MechanismNoise | None = None

    def to_dict(self) -> dict:
        return {"query": self.query,
                "mechanism": None if self.mechanism is None else self.mechanism.to_dict(),
                "geometric": None if self.geometric is None else self.geometric.to_dict(),
                "laplace": None if self.laplace is None else self.laplace.to_dict(),
                "skipped": [{"pair": p, "prior": q, "reason": r} for p, q, r in self.skipped]}

    def explain(self) -> str:
        parts = [r.explain() for r in (self.mechanism, self.geometric, self.laplace)
                 if r is not None]
        return f"least noise of {self.query}:\n" + "\n".join("  " + line for part in parts
                                                         for line in part.splitlines())


def mechanism_query(model, name: str) -> tuple:
    """``(query, noise)`` of the model's mechanism ``name``: a sum or a count
    (:class:`~pufferfish.models.mechanisms.Query`) with geometric noise
    (:class:`~pufferfish.models.mechanisms.GeometricNoise`) or without (``None``); any other
    mechanism is a :class:`ModelError` at ``mechanisms.NAME``.

    >>> from pufferfish.api import load
    >>> query, noise = mechanism_query(load("quickstart.json"), "sum")
    >>> query.kind, noise.alpha, (noise.low, noise.high)
    ('sum', Fraction(1, 2), (0, 3))
    """
    from pufferfish.models.mechanisms import QueryMechanism

    if name not in model.mechanisms:
        raise ModelError(f"no mechanism {name!r}; the model's are "
                         f"{', '.join(model.mechanisms) or 'none'}", "--mechanism")
    mechanism = model.mechanisms[name]
    if not isinstance(mechanism, QueryMechanism) or mechanism.query.kind not in ("sum", "count"):
        raise ModelError("the least noise is searched for a sum or a count query with geometric "
                         "noise (or none); this mechanism is not one", f"mechanisms.{name}")
    return mechanism.query, mechanism.noise


def least_noise(model, epsilon: Budget | str, query="sum", *, attributes=None, value: object = 1,
                low: int | None = None, high: int | None = None, noise: str = "both",
                tolerance: Fraction | str = Fraction(1, 1000),
                ends_only: bool = False, mechanism: str | None = None) -> LeastNoiseReport:
    """Both searches on one :class:`NoiseLevels` of ``query`` (``"sum"``, ``"count"`` or a
    :class:`~pufferfish.models.mechanisms.Query`; ``attributes``, ``value``: what it reads and
    counts) on ``model``; ``noise``: ``"geometric"``, ``"laplace"`` or ``"both"``.
    ``mechanism``: the name of a mechanism of the model (:func:`mechanism_query`) whose query,
    attributes, counted value and clamp are read instead (``query`` and the rest left at their
    defaults); the report then also gives the exact level of that mechanism's own noise
    (:class:`MechanismNoise`).  Cost: one :class:`NoiseLevels` build and the searches (module
    docstring), plus one evaluation for the mechanism's own noise."""
    if noise not in ("geometric", "laplace", "both"):
        raise ModelError(f"unknown noise {noise!r}; use geometric, laplace or both", "noise")
    epsilon = search_budget(epsilon, zero=True)
    own = None
    if mechanism is not None:
        if (query, attributes, value, low, high) != ("sum", None, 1, None, None):
            raise ModelError("the mechanism gives the query, its attributes, the counted value "
                             "and the clamp: leave them out", "mechanism")
        query, own = mechanism_query(model, mechanism)
        if own is not None:
            low, high = own.low, own.high
    levels = NoiseLevels(model, query, attributes=attributes, value=value, low=low, high=high,
                         ends_only=ends_only)
    name = levels.query.kind if isinstance(query, str) else getattr(query, "kind", str(query))
    if levels.query.attribute_names != tuple(model.universe.attributes):
        name += f" of {', '.join(levels.query.attribute_names)}"
    geometric = (least_geometric_noise(levels, epsilon, tolerance=tolerance)
                 if noise in ("geometric", "both") else None)
    laplace = (least_laplace_scale(levels, epsilon, tolerance=tolerance)
               if noise in ("laplace", "both") else None)
    described = None
    if mechanism is not None:
        described = MechanismNoise(mechanism, None if own is None else own.alpha, low, high,
                                   levels.noiseless() if own is None
                                   else levels.geometric(own.alpha), epsilon)
    return LeastNoiseReport(name, geometric, laplace, tuple(levels.skipped), described)


def least_geometric_noise(levels: NoiseLevels, epsilon: Budget | str, *,
                          tolerance: Fraction | str = Fraction(1, 1000), max_steps: int = 60,
                          progress: Callable[[str], None] | None = None) -> LeastNoise:
    """The least two-sided geometric noise α with an exact level ``<= ε`` (module docstring):
    a bracket ``α_fail < α_ok`` whose scales ``−1/log α`` differ by at most ``tolerance``
    (relative)."""
    budget = _budget(epsilon)

    def evaluate(alpha: Fraction) -> NoiseLevel:
        return levels.geometric(alpha)

    def choose(target: float, fail: Fraction | None, ok: Fraction | None, width: float) -> Fraction:
        centre = math.exp(-1 / target)
        spread = centre * width / (8 * target)
        return _inside(Fraction(max(centre - spread, 0.0)), Fraction(min(centre + spread, 1.0)),
                       fail, ok if ok is not None else Fraction(1))

    return _search("geometric", levels, budget, evaluate, choose, geometric_scale, Fraction(0),
                   _tolerance(tolerance), max_steps, progress, levels.monotone)


def least_laplace_scale(levels: NoiseLevels, epsilon: Budget | str, *,
                        tolerance: Fraction | str = Fraction(1, 1000), bits: int = 128,
                        max_steps: int = 60,
                        progress: Callable[[str], None] | None = None) -> LeastNoise:
    """The least Laplace scale ``b`` with a certified level ``<= ε`` (module docstring): a
    bracket ``b_fail < b_ok`` with ``b_ok/b_fail − 1 <= tolerance``."""
    budget = _budget(epsilon)

    def evaluate(scale: Fraction) -> NoiseLevel:
        if not scale:
            return levels.noiseless()              # Lap(0): the query itself
        precision = bits
        while True:
            level = levels.laplace(scale, precision)
            if level.relation(budget) != "undecided" or level.ratio_upper is None \
                    or precision >= MAX_BITS:
                return level
            precision *= 4

    def choose(target: float, fail: Fraction | None, ok: Fraction | None, width: float) -> Fraction:
        return _inside(Fraction(target * (1 - width / 8)), Fraction(target * (1 + width / 8)),
                       fail, ok if ok is not None else Fraction(math.ceil(target * 4) + 1))

    return _search("laplace", levels, budget, evaluate, choose,
                   lambda b: (float_down(b), float_up(b)), Fraction(0), _tolerance(tolerance),
                   max_steps, progress, True)


def _inside(low: Fraction, high: Fraction, fail: Fraction | None, ok: Fraction) -> Fraction:
    """The simplest rational of ``[low, high]`` strictly inside ``(fail, ok)`` (``fail`` None:
    0 allowed), else the simplest of the middle half of ``(fail, ok)``."""
    bottom = fail if fail is not None else Fraction(-1)
    low, high = max(low, bottom), min(high, ok)
    if low < high:
        choice = simplest_between(max(low, Fraction(0)), high)
        if bottom < choice < ok:
            return choice
        quarter = (high - low) / 4
        return simplest_between(low + quarter, high - quarter)
    bottom = max(bottom, Fraction(0))
    quarter = (ok - bottom) / 4
    return simplest_between(bottom + quarter, ok - quarter)


SEARCH_BUDGETS = (Fraction(1, 10**9), Fraction(100))
"""The budgets the searches take, ``10⁻⁹ <= ε <= 100``: the least scale is about ``K/ε`` for the
query's range ``K``, and the floats that steer the search (scales, ``e^{−1/b}``) and the exact
rationals probed stay in a workable range only there (``ε = 10⁶`` asks for ``α`` near
``e^{−10⁶}``; ``ε = 10⁻³⁰`` for scales near ``10³⁰``)."""


def search_budget(epsilon: Budget | str, where: str = "epsilon", zero: bool = False) -> Budget:
    """``epsilon`` as a :class:`~pufferfish.verify.numerics.certified.Budget` the searches take
    (:data:`SEARCH_BUDGETS`; with
    ``zero=True`` also ``ε = 0``, which the searches answer without steering: no noise makes
    different query laws equal), else a :class:`~pufferfish.models.errors.ModelError` at
    ``where`` naming the range.

    >>> search_budget("1/2").text
    '1/2'
    >>> search_budget("1e-30", "--epsilon")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: --epsilon: ε must be in [1e-9, 100] for the least-noise searches, got 1e-30
    """
    budget = epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon, where)
    low, high = SEARCH_BUDGETS
    if budget.infinite:
        inside = False
    elif budget.epsilon is not None:            # exact: no float for 10^-1000 or 10^1000
        inside = low <= budget.epsilon <= high or (zero and budget.epsilon == 0)
    else:                                       # ε = log(ratio): the ratio's integers' logs
        inside = (float(low) <= budget_float(budget) <= float(high)
                  or (zero and budget.ratio == 1))
    if not inside:
        raise ModelError(f"ε must be in [1e-9, 100] for the least-noise searches, got "
                         f"{budget.text}", where)
    return budget


def _budget(epsilon: Budget | str) -> Budget:
    return search_budget(epsilon, zero=True)


def _tolerance(value: Fraction | str) -> Fraction:
    value = Fraction(value)
    if not 0 < value < 1:
        raise ModelError(f"the tolerance must be in (0, 1), got {fraction_str(value)}",
                         "tolerance")
    return value


def _verdict(level: NoiseLevel, budget: Budget, ends_only: bool) -> str:
    relation = level.relation(budget)
    if relation in ("below", "tight"):
        return "ok"
    if relation == "above":
        return "fail"
    if ends_only and level.ratio_upper is None and not level.vacuous:
        return "ok"     # the lower bound is within ε: provisional, reported as such
    return "undecided"


def _search(noise: str, levels: NoiseLevels, budget: Budget, evaluate, choose, scale_of,
            none: Fraction, tolerance: Fraction, max_steps: int, progress,
            monotone: bool) -> LeastNoise:
    start = time.perf_counter()
    eps = budget_float(budget)
    probes: list[Probe] = []
    notes: list[str] = []
    best = {"ok": None, "fail": None}      # the probes at the two ends of the bracket

    def probe(parameter: Fraction) -> Probe:
        level = evaluate(parameter)
        scale = scale_of(parameter)
        found = Probe(parameter, (scale[0] + scale[1]) / 2, _verdict(level, budget,
                                                                     levels.ends_only), level)
        probes.append(found)
        if found.verdict == "ok" and (best["ok"] is None or found.scale < best["ok"].scale):
            best["ok"] = found
        if found.verdict == "fail" and (best["fail"] is None or found.scale > best["fail"].scale):
            best["fail"] = found
        if progress is not None:
            progress(f"{noise} {fraction_str(parameter)}: {found.verdict}")
        return found

    def finish(least: bool) -> LeastNoise:
        ok, fail = best["ok"], best["fail"]
        low = None if fail is None else scale_of(fail.parameter)[0]
        high = None if ok is None or levels.ends_only else scale_of(ok.parameter)[1]
        if levels.ends_only:
            notes.append("ends-only levels: fail is certified; ok bounds only the two clamp ends "
                         "of each pair, so the least scale is at least fail")
        return LeastNoise(noise, budget, None if ok is None else ok.level,
                          None if fail is None else fail.level, (low, high),
                          least and not levels.ends_only and monotone, levels.ends_only,
                          tuple(probes), time.perf_counter() - start, tuple(notes),
                          monotone and not levels.ends_only)

    if levels.vacuous:
        notes.append("no secret pair has positive probability under any prior: nothing to protect")
        return finish(False)
    zero = probe(none)                 # no noise at all
    if zero.verdict == "ok" and levels.ends_only:
        notes.append("without noise the two clamp ends are within ε: ends-only levels give no "
                     "lower bound here")
        return finish(False)
    if zero.verdict == "ok":
        notes.append("the query alone is within ε: no noise is needed")
        return finish(True)
    if eps == 0:
        notes.append("ε = 0 needs equal output laws, which noise cannot give to different "
                     "query laws")
        return finish(False)
    width = math.log1p(float(tolerance))
    guess = (levels.w_infinity()[0] or 1) / eps if not levels.ends_only else 1 / eps
    target = math.log(max(guess, 1e-9))
    undecided = 0
    for _ in range(max_steps):
        ok, fail = best["ok"], best["fail"]
        if ok is not None and fail is not None and fail.scale > 0 \
                and math.log(ok.scale) - math.log(fail.scale) <= width:
            return finish(True)
        u = _estimate(target, probes, ok, fail, eps)
        if ok is not None and fail is not None and fail.scale > 0:
            lo, hi = math.log(fail.scale), math.log(ok.scale)
            u = min(max(u, lo + (hi - lo) / 20), hi - (hi - lo) / 20)
            u += width / 3 if hi - u > u - lo else -width / 3
            u = min(max(u, lo + (hi - lo) / 20), hi - (hi - lo) / 20)
        elif ok is None:
            u += width / 3
            if fail is not None and fail.scale > 0:
                u = max(u, math.log(fail.scale) + width)
        else:
            u = min(u - width / 3, math.log(ok.scale) - width)
        found = probe(choose(math.exp(u), None if fail is None else fail.parameter,
                             None if ok is None else ok.parameter, float(tolerance)))
        if found.verdict == "undecided":
            undecided += 1
            target = u + width
            if undecided > 5:
                notes.append("the level stayed within its enclosure's width of ε near the "
                             "threshold: the bracket is left wider than the tolerance")
                break
    else:
        notes.append(f"stopped after {max_steps} evaluations")
    return finish(False)


def _estimate(default: float, probes: list[Probe], ok: Probe | None, fail: Probe | None,
              eps: float) -> float:
    """``log b`` where the level should be ε: a secant step on ``(log b, log level)`` between
    the two ends of the bracket (or the last two evaluations), else ``b·level/ε`` from the last
    finite evaluation."""
    def finite(p: Probe | None) -> bool:
        return p is not None and p.scale > 0 and p.estimate() not in (None, math.inf)

    usable = [p for p in (fail, ok) if finite(p)]
    if len(usable) < 2:    # the last two evaluations with a finite level
        usable = [p for p in probes if finite(p)][-2:]
    if len(usable) == 2 and usable[0].scale != usable[1].scale:
        (u1, l1), (u2, l2) = ((math.log(p.scale), math.log(p.estimate())) for p in usable)
        if l1 != l2:
            return u1 + (math.log(eps) - l1) * (u2 - u1) / (l2 - l1)
    for p in reversed(probes):
        level = p.estimate()
        if p.scale > 0 and level not in (None, math.inf):
            return math.log(p.scale) + math.log(level) - math.log(eps)
        if p.scale > 0 and level is None:       # level 0: far too much noise
            return math.log(p.scale / 4)
    return default


__all__ = ["LeastNoise", "LeastNoiseReport", "MechanismNoise", "Probe", "least_noise",
           "mechanism_query", "least_geometric_noise",
           "least_laplace_scale",
           "geometric_scale", "simplest_between", "search_budget", "MAX_BITS", "SEARCH_BUDGETS"]
