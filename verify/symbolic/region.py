"""The set of parameter values where a privacy budget holds: ``pufferfish region``.

For a budget ε and the candidates ``(A_k, B_k)`` of :mod:`pufferfish.verify.symbolic.evaluate`
(Definition 5 of Bai et al., Composition for Pufferfish Privacy; the chosen mechanism, or every
mechanism and their joint release as ``pufferfish audit --epsilon`` checks), the budget holds at a
parameter value exactly when ``g_k = A_k − e^ε·B_k <= 0`` for every k (and ``1 <= e^ε``: the level
is never below 0).  Each ``g_k`` is a rational function whose denominator keeps one sign on the box,
so the region is a semi-algebraic set ``{x : P_k(x) <= 0 for all k}`` for polynomials ``P_k``.

* **One parameter, ε = log r with r rational** (or ε = 0): the region is computed exactly, as a
  union of closed intervals whose endpoints are real algebraic numbers (each a defining
  polynomial and an isolating rational interval): the range is cut at the roots of the ``P_k``
  (:mod:`pufferfish.verify.symbolic.univariate`) and each cell and cut point is decided exactly.
* **One parameter, ε rational and nonzero**: ``e^ε`` is transcendental, so it is enclosed in
  rational ``[r_lo, r_hi]`` (a certified interval evaluation at 64 bits) and the exact regions for
  ``r_lo`` (inside the true region) and ``r_hi`` (containing it) are returned; each endpoint of
  the true region lies between the corresponding endpoints of the two.
* **Several parameters**: a certified map.  A box is *inside* when exact rational interval bounds
  prove ``P_k <= 0`` for every k on it (with ``r_lo``), *outside* when they prove some
  ``P_k > 0`` on all of it (with ``r_hi``); other boxes are bisected along their widest side until
  narrower than ``width`` and then reported as the boundary layer.  Cost: at most
  ``O((extent/width)^d)`` boxes, typically ``O((extent/width)^(d−1))`` near the boundary, each
  needing ``O(Σ_k terms(P_k))`` rational operations.

>>> from pufferfish.models.parametric import load_parametric_model
>>> from pufferfish.examples import example_path
>>> model = load_parametric_model(example_path("quickstart_parametric.json")).restrict({"q": "9/10"})
>>> print(budget_region(model, "log(3)", mechanism="rr").explain().splitlines()[2])
  [1/2, root of 320*p**3 - 704*p**2 + 708*p - 243 in [1/2, 2/3]]  (≈ [0.5000, 0.6122])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy

from pufferfish.models.parameter_box import bisect_widest
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.parametric import ParametricModel
from pufferfish.models.polynomials import (AlgebraicNumber, BoundedPolynomial, evaluate_terms,
                                           fraction_text, polynomial_terms, sign_at)
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.numerics.certified import Budget, parse_budget
from pufferfish.verify.numerics.intervals import endpoints, exp_interval, interval_context
from pufferfish.verify.report import Explained
from pufferfish.verify.symbolic.evaluate import Candidate, SymbolicModel
from pufferfish.verify.symbolic.univariate import decompose, exact_point

__all__ = ["RegionInterval", "RegionResult", "budget_region", "region_candidates",
           "ENCLOSURE_BITS"]

ENCLOSURE_BITS = 64
"""Precision of the enclosure of ``e^ε`` for a rational ε ≠ 0."""


@dataclass(frozen=True)
class RegionInterval:
    """The closed interval ``[low, high]`` (a single point when they are equal)."""

    low: AlgebraicNumber
    high: AlgebraicNumber

    def to_dict(self) -> dict:
        return {"low": self.low.to_dict(), "high": self.high.to_dict()}

    def text(self) -> str:
        return f"[{self.low}, {self.high}]  (≈ [{self.low.approx():.4f}, {self.high.approx():.4f}])"


Box = tuple[tuple[Fraction, Fraction], ...]


def _box_dict(box: Box, names: tuple[str, ...]) -> dict:
    return {n: [fraction_text(a), fraction_text(b)] for n, (a, b) in zip(names, box)}


def _volume(boxes: list[Box]) -> Fraction:
    total = Fraction(0)
    for box in boxes:
        size = Fraction(1)
        for a, b in box:
            size *= b - a
        total += size
    return total


@dataclass(frozen=True, repr=False)
class RegionResult(Explained):
    """Where the budget holds.  ``method`` is ``"exact"`` (``intervals``), ``"enclosed"``
    (``intervals`` inside the region, ``outer`` containing it) or ``"map"`` (boxes)."""

    names: tuple[str, ...]
    ranges: dict
    budget: Budget
    scope: str
    method: str
    intervals: tuple[RegionInterval, ...] = ()
    outer: tuple[RegionInterval, ...] = ()
    ratio_bounds: tuple[Fraction, Fraction] | None = None
    inside: tuple[Box, ...] = ()
    outside: tuple[Box, ...] = ()
    boundary: tuple[Box, ...] = ()
    width: Fraction | None = None

    def summary(self) -> str:
        return f"region where {self.scope} meets ε = {self.budget.text}"

    def to_dict(self) -> dict:
        data: dict = {"check": "region", "parameters": self.ranges, "budget": self.budget.text,
                      "scope": self.scope, "method": self.method}
        if self.ratio_bounds is not None:
            data["exp_epsilon"] = [fraction_text(x) for x in self.ratio_bounds]
        if self.method in ("exact", "enclosed"):
            data["intervals"] = [i.to_dict() for i in self.intervals]
        if self.method == "enclosed":
            data["outer_intervals"] = [i.to_dict() for i in self.outer]
        if self.method == "map":
            data["width"] = fraction_text(self.width)
            data["area"] = {"inside": fraction_text(_volume(list(self.inside))),
                            "outside": fraction_text(_volume(list(self.outside))),
                            "boundary": fraction_text(_volume(list(self.boundary)))}
            data["boxes"] = {kind: [_box_dict(b, self.names) for b in boxes] for kind, boxes in
                             (("inside", self.inside), ("outside", self.outside),
                              ("boundary", self.boundary))}
        return data

    def explain(self, source: str = "the model") -> str:
        ranges = ", ".join(f"{n} in [{a}, {b}]" for n, (a, b) in self.ranges.items())
        lines = [f"Region of {source} where {self.scope} meets ε = {self.budget.text}, "
                 f"over {ranges}"]
        if self.method == "exact":
            lines.append("exact: " + ("empty" if not self.intervals else
                                      f"{len(self.intervals)} closed interval(s)"))
            lines += ["  " + i.text() for i in self.intervals]
        elif self.method == "enclosed":
            low, high = self.ratio_bounds  # type: ignore[misc]
            lines.append(f"certified: e^ε is transcendental; with rationals r_lo < e^ε < r_hi "
                         f"(r_hi − r_lo ≈ {float(high - low):.1e}) the region contains the exact "
                         f"region for r_lo and is contained in the one for r_hi")
            lines.append("contains (r_lo):" + (" empty" if not self.intervals else ""))
            lines += ["  " + i.text() for i in self.intervals]
            lines.append("within (r_hi):" + (" empty" if not self.outer else ""))
            lines += ["  " + i.text() for i in self.outer]
        else:
            total = _volume([tuple(zip(*(self.ranges_fractions())))]) or Fraction(1)
            parts = [(k, _volume(list(b))) for k, b in (("inside", self.inside),
                                                        ("outside", self.outside),
                                                        ("boundary", self.boundary))]
            lines.append(f"certified map, boundary boxes narrower than "
                         f"{fraction_text(self.width)}:")  # type: ignore[arg-type]
            for kind, volume in parts:
                boxes = {"inside": self.inside, "outside": self.outside,
                         "boundary": self.boundary}[kind]
                lines.append(f"  {kind:<8} {len(boxes):>6} boxes, {float(volume / total):.2%} of "
                             f"the parameter box")
        return "\n".join(lines)

    def ranges_fractions(self) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
        lows = tuple(Fraction(a) for a, _ in self.ranges.values())
        highs = tuple(Fraction(b) for _, b in self.ranges.values())
        return lows, highs


def region_candidates(symbolic: SymbolicModel, mechanism: str | None,
                      joint: tuple[str, ...] | None = None) -> tuple[list[Candidate], str]:
    """The constraints of ``mechanism``, of the joint release of the mechanisms ``joint``
    (Bai et al., Composition for Pufferfish Privacy, §4: independent runs, outputs are tuples), or
    of every mechanism and their joint release."""
    names = list(symbolic.model.data.get("mechanisms") or {})
    if not names:
        raise ModelError("the model has no mechanisms, so there is no budget to check",
                         "mechanisms")
    if symbolic.interval_families:
        name = symbolic.interval_families[0]
        raise UnsupportedError(f"prior {name!r} is an interval family; regions are computed for "
                               f"table, independent, markov and uniform priors (`pufferfish audit "
                               f"--symbolic` gives an interval family's level)", f"priors.{name}")
    if joint is not None:
        if mechanism is not None:
            raise ModelError("give --mechanism or --joint, not both", "--joint")
        unknown = [n for n in joint if n not in names]
        if unknown or len(joint) < 2:
            raise ModelError(f"--joint names two or more of the model's mechanisms "
                             f"({', '.join(names)})" + (f"; no mechanism {unknown[0]!r}"
                                                         if unknown else ""), "--joint")
        return (symbolic.pufferfish_candidates(tuple(joint)),
                f"the joint release of {', '.join(joint)}")
    if mechanism is not None:
        if mechanism not in names:
            raise ModelError(f"no mechanism {mechanism!r}; the model has {', '.join(names)}",
                             "--mechanism")
        return symbolic.pufferfish_candidates(mechanism), f"mechanism {mechanism!r}"
    candidates: dict = {}
    targets: list = names + ([tuple(names)] if len(names) >= 2 else [])
    for target in targets:
        for c in symbolic.pufferfish_candidates(target):
            candidates.setdefault((c.numerator, c.denominator), c)
    scope = "every mechanism" + (" and their joint release" if len(names) >= 2 else "")
    return list(candidates.values()), scope


def _ratio_bounds(budget: Budget) -> tuple[Fraction, Fraction] | None:
    if budget.infinite:
        return None
    if budget.ratio is not None:
        return budget.ratio, budget.ratio
    if budget.epsilon == 0:
        return Fraction(1), Fraction(1)
    return endpoints(exp_interval(interval_context(ENCLOSURE_BITS), budget.epsilon))


def _constraints(symbolic: SymbolicModel, candidates: list[Candidate], r: Fraction) -> list[dict]:
    """The polynomials ``P_k`` (as terms) with ``g_k <= 0  <=>  P_k <= 0`` on the box."""
    field = symbolic.field
    middle = tuple((a + b) / 2 for a, b in symbolic.box.bounds)
    out: dict = {}
    unit = Candidate(field.one, field.one, "the level is never below 0")
    for c in [unit, *candidates]:
        gap = c.gap(r)
        if not gap:
            continue
        numerator = polynomial_terms(gap.numer)
        if evaluate_terms(polynomial_terms(gap.denom), middle) < 0:
            numerator = {e: -v for e, v in numerator.items()}
        out.setdefault(tuple(sorted(numerator.items())), numerator)
    return list(out.values())


def _exact_intervals(symbolic: SymbolicModel, constraints: list[dict]) -> tuple[RegionInterval, ...]:
    symbol = symbolic.box.symbols[0]
    polys = [sympy.Poly.from_dict({e: sympy.Rational(v.numerator, v.denominator)
                                   for e, v in terms.items()}, symbol) for terms in constraints]
    cells = decompose(polys, symbolic.box.low[0], symbolic.box.high[0])
    point_ok = [True] * len(cells.points)
    cell_ok = [True] * len(cells.samples)
    for poly in polys:
        for i, s in enumerate(cells.cell_signs(poly)):
            cell_ok[i] = cell_ok[i] and s <= 0
        for i, point in enumerate(cells.points):
            if point_ok[i]:
                point_ok[i] = sign_at(poly, point) <= 0
    intervals: list[RegionInterval] = []
    start = None
    for i, point in enumerate(cells.points):
        if point_ok[i] and start is None:
            start = point
        inside_next = i < len(cell_ok) and cell_ok[i]
        if start is not None and not inside_next:
            intervals.append(RegionInterval(start, point))
            start = None
    return tuple(intervals)


def _map(symbolic: SymbolicModel, inner: list[dict], outer: list[dict], width: Fraction
         ) -> tuple[list[Box], list[Box], list[Box]]:
    inside: list[Box] = []
    outside: list[Box] = []
    boundary: list[Box] = []
    inner_bounded = [BoundedPolynomial.of(p) for p in inner]
    outer_bounded = [BoundedPolynomial.of(p) for p in outer]
    pending: list[Box] = [symbolic.box.bounds]
    while pending:
        box = pending.pop()
        centre = tuple((a + b) / 2 for a, b in box)
        # A bound over the box contains the value at its centre: only constraints that are
        # <= 0 there can be proved <= 0 on the box, only those > 0 there can be proved > 0.
        violated = [p for p in outer_bounded if evaluate_terms(p.terms, centre) > 0]
        if not violated and all(p.bounds(box)[1] <= 0 for p in inner_bounded):
            inside.append(box)
            continue
        if any(p.bounds(box)[0] > 0 for p in violated):
            outside.append(box)
            continue
        halves = bisect_widest(box, width)
        if halves is None:
            boundary.append(box)
            continue
        pending.extend(halves)
    key = lambda box: tuple(a for a, _ in box)  # noqa: E731
    return sorted(inside, key=key), sorted(outside, key=key), sorted(boundary, key=key)


def budget_region(model: ParametricModel, epsilon: str | Budget, mechanism: str | None = None,
                  width: Fraction | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
                  max_outputs: int = DEFAULT_MAX_OUTPUTS, joint: tuple[str, ...] | None = None
                  ) -> RegionResult:
    """Where ``mechanism`` (default: every mechanism and their joint release; ``joint``: the
    joint release of those mechanisms) meets ``epsilon`` (see the module docstring).
    ``width``: the boundary layer of a map (default 1/64 of the widest range)."""
    budget = epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon)
    symbolic = SymbolicModel(model, max_datasets, max_outputs)
    candidates, scope = region_candidates(symbolic, mechanism, joint)
    box = model.box
    common = dict(names=box.names, ranges=box.to_dict(), budget=budget, scope=scope)
    bounds = _ratio_bounds(budget)
    if bounds is None:
        if len(box.names) == 1:
            ends = (exact_point(box.low[0], box.symbols[0]), exact_point(box.high[0], box.symbols[0]))
            return RegionResult(**common, method="exact", intervals=(RegionInterval(*ends),))
        return RegionResult(**common, method="map", inside=(box.bounds,), width=width or Fraction(0))
    r_low, r_high = bounds
    if len(box.names) == 1:
        inner = _exact_intervals(symbolic, _constraints(symbolic, candidates, r_low))
        if r_low == r_high:
            return RegionResult(**common, method="exact", intervals=inner)
        outer = _exact_intervals(symbolic, _constraints(symbolic, candidates, r_high))
        return RegionResult(**common, method="enclosed", intervals=inner, outer=outer,
                            ratio_bounds=bounds)
    if width is None:
        width = max(b - a for a, b in box.bounds) / 64
    if width <= 0:
        raise ModelError("the boundary width must be positive", "--width")
    inside, outside, boundary = _map(symbolic, _constraints(symbolic, candidates, r_low),
                                     _constraints(symbolic, candidates, r_high), width)
    return RegionResult(**common, method="map", inside=tuple(inside), outside=tuple(outside),
                        boundary=tuple(boundary), width=width,
                        ratio_bounds=None if r_low == r_high else bounds)
