"""Two closed-form levels compared *as functions* of the parameters: the exact set where they
differ (one parameter) or a certified map of it (two or more).

A level here is an :class:`Envelope`: ``max`` over :class:`Branch` es, each a quotient ``A/B`` of
rational functions that counts only where its *guards* hold (a guard ``g >= 0``, or ``g > 0``
when strict).  At a parameter value a feasible branch is worth ``A/B`` if ``B > 0``, infinity if
``B = 0 < A``, and nothing if ``A = B = 0`` (the convention of the point audit,
:mod:`pufferfish.verify.symbolic.evaluate`).  The envelope of a paper's closed form has no
guards; the envelope of an interval family's level (:mod:`pufferfish.verify.symbolic.families`)
has the feasibility conditions of the vertex priors as guards.

* **One parameter** (:func:`differing_set`): the range is cut at the real roots of every
  numerator and denominator of the branches and guards and of every difference of two distinct
  ratios (:mod:`pufferfish.verify.symbolic.univariate`); on each open cell every guard has a
  constant sign and every ratio a constant order, so each envelope *is* one ratio there, read
  exactly at a rational sample; two envelopes differ on a cell exactly when those ratios differ
  as rational functions.  Each cut point (a real algebraic number) is decided exactly with
  :func:`pufferfish.models.polynomials.sign_at`.  The result is a union of intervals with
  algebraic endpoints, each end open or closed.
* **Several parameters** (:func:`differing_map`): a box is *equal* when every branch of either
  envelope that may be feasible on it is proved ``<=`` a branch of the other that is proved
  feasible (or is the same function), *differing* when a branch proved feasible is proved ``>``
  every branch of the other that may be feasible, using the exact rational bounds of
  :class:`pufferfish.models.polynomials.BoundedPolynomial`; other boxes are bisected down to
  ``width`` and reported as the boundary layer.

Cost: one parameter, root isolation of ``O((b + c)^2)`` polynomials for ``b + c`` branches, then
``O(b + c)`` exact evaluations per cell and point; several parameters, ``O((b·c))`` bounds per box.

>>> import sympy
>>> from sympy import QQ
>>> p = sympy.Symbol("p", real=True)
>>> F = QQ.frac_field(p)
>>> one = Branch(F.one, F.one)
>>> first = Envelope((one, Branch(F.from_sympy(p), F.from_sympy(1 - p))))
>>> second = Envelope((one, Branch(F.from_sympy(p), F.one)))
>>> result = differing_set(first, second, (p,), (Fraction(0),), (Fraction(1),))
>>> [interval.text() for interval in result.intervals]
['(1/2, 1]']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from pufferfish.models.parameter_box import bisect_widest
from pufferfish.models.polynomials import (AlgebraicNumber, BoundedPolynomial, evaluate_terms,
                                           below, fraction_text, polynomial_terms, sign_at)
from pufferfish.verify.symbolic.univariate import as_poly, decompose

__all__ = ["Branch", "Envelope", "DifferingInterval", "DifferingSet", "DifferingMap", "merge_pieces",
           "envelope_pieces",
           "differing_set", "differing_map"]

INFINITE = None
"""The value of a feasible branch with ``B = 0 < A``."""


@dataclass(frozen=True)
class Branch:
    """``A/B`` where every guard ``(g, strict)`` holds (``g >= 0``, or ``g > 0``)."""

    numerator: object
    denominator: object
    guards: tuple = ()
    where: str = ""

    @property
    def ratio(self):
        """``A/B`` reduced, ``None`` when ``B`` is identically 0."""
        return None if not self.denominator else self.numerator / self.denominator


@dataclass(frozen=True)
class Envelope:
    """``max`` over the feasible branches (see the module docstring)."""

    branches: tuple[Branch, ...]

    def maximal_branch(self, point: tuple[Fraction, ...]) -> Branch | None:
        """The feasible branch of largest value at a rational point (an infinite one first;
        ``None`` when no branch is feasible)."""
        best: tuple = (Fraction(-1), None)
        for branch in self.branches:
            if not all(_holds(_sign_at_point(g, point), strict) for g, strict in branch.guards):
                continue
            a, b = _evaluate(branch.numerator, point), _evaluate(branch.denominator, point)
            if b == 0:
                if a > 0:
                    return branch
                continue
            if a / b > best[0]:
                best = (a / b, branch)
        return best[1]

    def value_at(self, point: tuple[Fraction, ...]):
        """The exact value at a rational point: ``(value, ratio)``, value a Fraction or ``None``
        for infinity, ``ratio`` the maximal branch's function (``None``: infinite; ``False``: no
        branch is feasible)."""
        branch = self.maximal_branch(point)
        if branch is None:
            return Fraction(-1), False
        if branch.ratio is None or _evaluate(branch.denominator, point) == 0:
            return None, branch.ratio
        return _evaluate(branch.ratio, point), branch.ratio


def _holds(sign: int, strict: bool) -> bool:
    return sign > 0 or (sign == 0 and not strict)


def _evaluate(element, point: tuple[Fraction, ...]) -> Fraction:
    numerator = evaluate_terms(polynomial_terms(element.numer), point)
    return numerator / evaluate_terms(polynomial_terms(element.denom), point)


def _sign_at_point(element, point: tuple[Fraction, ...]) -> int:
    value = _evaluate(element, point)
    return (value > 0) - (value < 0)


# --------------------------------------------------------------------------------------------
# One parameter: exact
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DifferingInterval:
    """An interval of the parameter from ``low`` to ``high`` (ends open or closed; a point when
    ``low == high``, both closed), with both envelopes' functions at a rational ``sample``."""

    low: AlgebraicNumber
    high: AlgebraicNumber
    low_closed: bool
    high_closed: bool
    sample: Fraction
    first: object
    second: object

    def contains(self, x: Fraction) -> bool:
        left, right = _compare(self.low, x), _compare(self.high, x)
        return ((left < 0 or (left == 0 and self.low_closed))
                and (right > 0 or (right == 0 and self.high_closed)))

    def text(self) -> str:
        if self.low == self.high:
            return f"{{{self.low}}}"
        return (f"{'[' if self.low_closed else '('}{self.low}, {self.high}"
                f"{']' if self.high_closed else ')'}")

    def to_dict(self) -> dict:
        return {"from": self.low.to_dict(), "to": self.high.to_dict(),
                "closed": [self.low_closed, self.high_closed], "sample": fraction_text(self.sample),
                "first": _shown(self.first), "second": _shown(self.second)}


def _shown(ratio) -> str:
    return "inf" if ratio is None else "undefined" if ratio is False else str(ratio.as_expr())


def _compare(number: AlgebraicNumber, x: Fraction) -> int:
    """The sign of ``number − x``, exactly."""
    if number.is_rational:
        return (number.value > x) - (number.value < x)
    if number.low <= x <= number.high and number.polynomial.eval(
            sympy.Rational(x.numerator, x.denominator)) == 0:
        return 0
    return -1 if below(number, x) else 1


@dataclass(frozen=True)
class DifferingSet:
    """The exact set of parameter values where two envelopes differ (one parameter)."""

    intervals: tuple[DifferingInterval, ...]
    cut_points: tuple[AlgebraicNumber, ...] = ()
    samples: tuple[Fraction, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.intervals

    @property
    def whole(self) -> bool:
        """Whether the envelopes differ on the whole range."""
        return (len(self.intervals) == 1 and self.intervals[0].low is self.cut_points[0]
                and self.intervals[0].high is self.cut_points[-1]
                and self.intervals[0].low_closed and self.intervals[0].high_closed)

    def equal_point(self) -> Fraction | None:
        """A rational point where the envelopes are equal (``None`` if they differ everywhere):
        a rational cut point or a cell sample outside the set."""
        for x in [p.value for p in self.cut_points if p.is_rational] + list(self.samples):
            if not self.contains(x):
                return x
        return None

    def contains(self, x: Fraction) -> bool:
        return any(i.contains(x) for i in self.intervals)

    def text(self) -> str:
        return "nowhere" if self.empty else " ∪ ".join(i.text() for i in self.intervals)


def _point_value(envelope: Envelope, point: AlgebraicNumber, symbol):
    """The envelope's value at an algebraic point, as the maximal branch's function (``None``:
    infinite, ``False``: no branch feasible), decided by exact signs."""
    def sign(element) -> int:
        n = sign_at(as_poly(element.numer.as_expr(), symbol), point)
        d = sign_at(as_poly(element.denom.as_expr(), symbol), point)
        return n * d

    best = None
    for branch in envelope.branches:
        if not all(_holds(sign(g), strict) for g, strict in branch.guards):
            continue
        a_sign, b_sign = sign(branch.numerator), sign(branch.denominator)
        if b_sign == 0:
            if a_sign > 0:
                return None
            continue
        ratio = branch.ratio
        if best is None or sign(ratio - best) > 0:
            best = ratio
    return False if best is None else best


def _same_at(first, second, point: AlgebraicNumber, symbol) -> bool:
    if first is None or second is None or first is False or second is False:
        return first is second
    difference = first - second
    return not difference or sign_at(as_poly(difference.numer.as_expr(), symbol), point) == 0


def differing_set(first: Envelope, second: Envelope, symbols: tuple, low: tuple[Fraction, ...],
                  high: tuple[Fraction, ...]) -> DifferingSet:
    """Where ``first`` and ``second`` differ on ``[low, high]`` (one parameter; see the module
    docstring)."""
    symbol = symbols[0]
    cells = decompose(_cut_polynomials(first.branches + second.branches, symbol), low[0], high[0])
    pieces: list[DifferingInterval] = []
    for i, point in enumerate(cells.points):
        a, b = _point_value(first, point, symbol), _point_value(second, point, symbol)
        if not _same_at(a, b, point, symbol):
            sample = point.value if point.is_rational else point.refined(Fraction(1, 2**20)).low
            pieces.append(DifferingInterval(point, point, True, True, sample, a, b))
        if i < len(cells.samples):
            t = cells.samples[i]
            (_, a), (_, b) = first.value_at((t,)), second.value_at((t,))
            if not (a == b if a is not None and a is not False and b is not None and b is not False
                    else a is b):
                pieces.append(DifferingInterval(point, cells.points[i + 1], False, False, t, a, b))
    return DifferingSet(tuple(merge_pieces(pieces)), cells.points, cells.samples)


def _cut_polynomials(branches: tuple[Branch, ...], symbol) -> list:
    """Every numerator and denominator of the branches and guards, and the numerator of every
    difference of two distinct ratios: on the cells between their roots nothing changes."""
    elements = [e for b in branches for e in (b.numerator, b.denominator, *(g for g, _ in b.guards))]
    polys = [as_poly(part.as_expr(), symbol) for e in elements for part in (e.numer, e.denom)]
    ratios = list(dict.fromkeys(b.ratio for b in branches if b.ratio is not None))
    for i, f in enumerate(ratios):
        polys += [as_poly((f - g).numer.as_expr(), symbol) for g in ratios[i + 1:]]
    return polys


def envelope_pieces(envelope: Envelope, symbols: tuple, low: tuple[Fraction, ...],
                    high: tuple[Fraction, ...]) -> list[tuple]:
    """One parameter: ``(from, to, branch)`` — on each open interval the envelope is that
    branch's ratio (exact; neighbours with the same ratio merged; the value at a cut point is not
    given)."""
    symbol = symbols[0]
    cells = decompose(_cut_polynomials(envelope.branches, symbol), low[0], high[0])
    pieces: list[list] = []
    for i, t in enumerate(cells.samples):
        branch = envelope.maximal_branch((t,))
        if pieces and branch is not None and pieces[-1][2] is not None and \
                pieces[-1][2].ratio == branch.ratio:
            pieces[-1][1] = cells.points[i + 1]
        else:
            pieces.append([cells.points[i], cells.points[i + 1], branch])
    return [tuple(piece) for piece in pieces]


def merge_pieces(pieces: list[DifferingInterval]) -> list[DifferingInterval]:
    """Join consecutive pieces that share an endpoint included in one of them."""
    merged: list[DifferingInterval] = []
    for piece in pieces:
        last = merged[-1] if merged else None
        if last is not None and last.high is piece.low and (last.high_closed or piece.low_closed):
            cell = last if last.low is not last.high else piece
            merged[-1] = DifferingInterval(last.low, piece.high, last.low_closed, piece.high_closed,
                                           cell.sample, cell.first, cell.second)
        else:
            merged.append(piece)
    return merged


# --------------------------------------------------------------------------------------------
# Several parameters: certified map
# --------------------------------------------------------------------------------------------

Box = tuple[tuple[Fraction, Fraction], ...]


@dataclass(frozen=True)
class DifferingMap:
    """Boxes proved equal, proved differing, and the boundary layer narrower than ``width``."""

    names: tuple[str, ...]
    equal: tuple[Box, ...]
    differing: tuple[Box, ...]
    boundary: tuple[Box, ...]
    width: Fraction

    def areas(self) -> dict[str, Fraction]:
        return {kind: sum((_volume(b) for b in boxes), Fraction(0)) for kind, boxes in
                (("equal", self.equal), ("differing", self.differing),
                 ("boundary", self.boundary))}

    def locate(self, point: tuple[Fraction, ...]) -> str | None:
        """``"equal"``/``"differing"``/``"boundary"`` for the first box containing ``point``."""
        for kind, boxes in (("equal", self.equal), ("differing", self.differing),
                            ("boundary", self.boundary)):
            if any(all(a <= x <= b for x, (a, b) in zip(point, box)) for box in boxes):
                return kind
        return None

    def text(self) -> str:
        areas = self.areas()
        total = sum(areas.values()) or Fraction(1)
        return ", ".join(f"{kind} {len(getattr(self, kind))} boxes ({float(area / total):.1%})"
                         for kind, area in areas.items())


def _volume(box: Box) -> Fraction:
    size = Fraction(1)
    for a, b in box:
        size *= b - a
    return size


@dataclass
class _Bounder:
    """Rational bounds of field elements over boxes (cached per element)."""

    cache: dict = field(default_factory=dict)

    def sign(self, element, box: Box) -> int | None:
        """The sign of ``element`` on the whole box if proved (0: identically zero), else None."""
        if not element:
            return 0
        if element not in self.cache:
            self.cache[element] = (BoundedPolynomial.of(polynomial_terms(element.numer)),
                                   BoundedPolynomial.of(polynomial_terms(element.denom)))
        numerator, denominator = self.cache[element]
        n_low, n_high = numerator.bounds(box)
        d_low, d_high = denominator.bounds(box)
        d_sign = 1 if d_low > 0 else -1 if d_high < 0 else 0
        if not d_sign:
            return None
        if n_low > 0:
            return d_sign
        if n_high < 0:
            return -d_sign
        return None


def _status(branch: Branch, box: Box, bounder: _Bounder) -> str:
    """``"yes"`` (feasible, finite or proved infinite), ``"no"`` or ``"maybe"`` on the box."""
    status = "yes"
    for guard, strict in branch.guards:
        s = bounder.sign(guard, box)
        if s is None or (s == 0 and strict):
            if s == 0:
                return "no"
            status = "maybe"
        elif s < 0:
            return "no"
    if branch.ratio is None:
        return status if bounder.sign(branch.numerator, box) == 1 else (
            "no" if bounder.sign(branch.numerator, box) == 0 else "maybe")
    if bounder.sign(branch.denominator, box) != 1:
        return "maybe"
    return status


def _at_most(f: Branch, g: Branch, box: Box, bounder: _Bounder) -> bool:
    if g.ratio is None:
        return True
    if f.ratio is None:
        return False
    s = bounder.sign(f.ratio - g.ratio, box)
    return s is not None and s <= 0


def _above(f: Branch, g: Branch, box: Box, bounder: _Bounder) -> bool:
    if f.ratio is None:   # infinite above g: g must be finite on the whole box
        return g.ratio is not None and bounder.sign(g.denominator, box) == 1
    if g.ratio is None:
        return False
    return bounder.sign(f.ratio - g.ratio, box) == 1


def _classify(first: Envelope, second: Envelope, box: Box, bounder: _Bounder) -> str | None:
    status = {id(b): _status(b, box, bounder) for b in first.branches + second.branches}
    for x, y in ((first, second), (second, first)):
        possible = [g for g in y.branches if status[id(g)] != "no"]
        for f in x.branches:
            if status[id(f)] == "yes" and all(_above(f, g, box, bounder) for g in possible):
                return "differing"
    for x, y in ((first, second), (second, first)):
        proved = [g for g in y.branches if status[id(g)] == "yes"]
        for f in x.branches:
            if status[id(f)] != "no" and not any(_at_most(f, g, box, bounder) for g in proved):
                return None
    return "equal"


def differing_map(first: Envelope, second: Envelope, names: tuple[str, ...], bounds: Box,
                  width: Fraction) -> DifferingMap:
    """A certified map of where ``first`` and ``second`` differ (see the module docstring)."""
    bounder = _Bounder()
    found: dict[str, list[Box]] = {"equal": [], "differing": [], "boundary": []}
    pending = [bounds]
    while pending:
        box = pending.pop()
        kind = _classify(first, second, box, bounder)
        if kind is not None:
            found[kind].append(box)
            continue
        halves = bisect_widest(box, width)
        if halves is None:
            found["boundary"].append(box)
            continue
        pending.extend(halves)
    key = lambda box: tuple(a for a, _ in box)  # noqa: E731
    return DifferingMap(names, *(tuple(sorted(found[k], key=key)) for k in
                              ("equal", "differing", "boundary")), width)
