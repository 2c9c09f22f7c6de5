"""Where a transcendental inequality between functions of parameters holds: a certified map by
interval arithmetic and bisection.

A statement "``gap(x) <= 0`` wherever ``hypothesis(x) >= 0``" over a box of parameter values is
decided box by box.  ``gap`` and ``hypothesis`` take a private mpmath interval context
(:func:`pufferfish.verify.numerics.intervals.interval_context`) and a box of exact rational
ranges, and return an interval enclosing the function's values on the whole box.  A box is

* *outside* when the hypothesis is proved ``< 0`` on all of it (the statement says nothing),
* *holds* when the hypothesis is proved ``>= 0`` and the gap ``<= 0`` on all of it,
* *violated* when the hypothesis is proved ``>= 0`` and the gap ``> 0`` on all of it; the first
  violated box also gives a *certified counterexample*: a rational point (its centre) where the
  enclosure of the gap, evaluated on that single point, lies above 0,
* otherwise bisected along its widest side, down to ``width``, and then *boundary* (the
  hypothesis could not be decided on it) or *undecided* (the hypothesis holds but the gap's sign
  could not be decided).

No float decides anything: enclosures are outward-rounded intervals and exact rationals.  For one
parameter the kinds are merged into intervals with rational endpoints (each maximal run of boxes
of one kind).  Cost: ``O((extent/width)^(d−1))`` boxes near the boundaries between kinds (``d``
parameters), each one evaluation of ``gap`` and ``hypothesis``.

>>> def gap(ctx, box):       # e^x − 2 <= 0: holds for x <= log 2 ≈ 0.693
...     return ctx.exp(box_interval(ctx, box[0])) - 2
>>> result = certified_sign_map(gap, ("x",), ((Fraction(0), Fraction(1)),), Fraction(1, 64))
>>> [(str(a), str(b)) for a, b in result.intervals("holds")], result.intervals("violated")[0][0]
([('0', '11/16')], Fraction(45, 64))
>>> result.counterexample              # e^(7/8) > 2, certified
(Fraction(7, 8),)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.parameter_box import bisect_widest
from pufferfish.models.polynomials import BoundedPolynomial, fraction_text
from pufferfish.verify.numerics.intervals import interval_context, rational_interval

__all__ = ["SignMap", "certified_sign_map", "box_interval", "polynomial_interval",
           "MAP_BITS", "KINDS"]

MAP_BITS = 96
"""Working precision of the enclosures."""

KINDS = ("holds", "violated", "outside", "boundary", "undecided")
"""What a box of the map is: the statement holds on all of it, is violated, the box is outside
the statement's hypothesis, it lies on the boundary (narrower than the width), or it stayed
undecided."""

Box = tuple[tuple[Fraction, Fraction], ...]


def box_interval(ctx, side: tuple[Fraction, Fraction]):
    """The interval ``[a, b]`` of one side of a box, outward rounded."""
    low, high = rational_interval(ctx, side[0]), rational_interval(ctx, side[1])
    return ctx.mpf([low.a, high.b])


def polynomial_interval(ctx, polynomial: BoundedPolynomial, box: Box):
    """An interval containing the polynomial's values on the box (exact rational bounds,
    :meth:`BoundedPolynomial.bounds`, rounded outward)."""
    low, high = polynomial.bounds(box)
    return box_interval(ctx, (low, high))


@dataclass(frozen=True)
class SignMap:
    """Boxes of each kind (see the module docstring) and the certified counterexample."""

    names: tuple[str, ...]
    boxes: dict
    width: Fraction
    counterexample: tuple[Fraction, ...] | None

    def area(self, kind: str) -> Fraction:
        total = Fraction(0)
        for box in self.boxes[kind]:
            size = Fraction(1)
            for a, b in box:
                size *= b - a
            total += size
        return total

    def intervals(self, kind: str) -> list[tuple[Fraction, Fraction]]:
        """One parameter: the maximal runs of boxes of ``kind`` as closed intervals."""
        runs: list[tuple[Fraction, Fraction]] = []
        for (a, b), in sorted(self.boxes[kind]):
            if runs and runs[-1][1] == a:
                runs[-1] = (runs[-1][0], b)
            else:
                runs.append((a, b))
        return runs

    def kind_at(self, point: tuple[Fraction, ...]) -> set[str]:
        """The kinds of the boxes containing ``point`` (two on a shared face)."""
        return {kind for kind, boxes in self.boxes.items()
                if any(all(a <= x <= b for x, (a, b) in zip(point, box)) for box in boxes)}

    def text(self) -> str:
        if len(self.names) == 1:
            parts = []
            for kind in KINDS:
                runs = self.intervals(kind)
                if runs:
                    parts.append(f"{kind} on " + " ∪ ".join(
                        f"[{fraction_text(a)}, {fraction_text(b)}]" for a, b in runs))
            return "; ".join(parts)
        total = sum((self.area(k) for k in KINDS), Fraction(0)) or Fraction(1)
        return ", ".join(f"{kind} {len(self.boxes[kind])} boxes ({float(self.area(kind) / total):.1%})"
                         for kind in KINDS if self.boxes[kind])

    def to_dict(self) -> dict:
        return {"parameters": list(self.names), "width": fraction_text(self.width),
                "boxes": {kind: [[[fraction_text(a), fraction_text(b)] for a, b in box]
                                 for box in boxes] for kind, boxes in self.boxes.items()},
                "counterexample": None if self.counterexample is None else
                [fraction_text(x) for x in self.counterexample]}


def certified_sign_map(gap: Callable, names: tuple[str, ...], bounds: Box, width: Fraction,
                       hypothesis: Callable | None = None, bits: int = MAP_BITS) -> SignMap:
    """Decide ``gap <= 0`` where ``hypothesis >= 0`` on ``bounds`` (see the module docstring)."""
    ctx = interval_context(bits)
    found: dict[str, list[Box]] = {kind: [] for kind in KINDS}
    witness = None
    pending = [bounds]
    while pending:
        box = pending.pop()
        kind = None
        applies = True
        if hypothesis is not None:
            h = hypothesis(ctx, box)
            if h.b < 0:
                kind = "outside"
            applies = bool(h.a >= 0)
        if kind is None and applies:
            g = gap(ctx, box)
            if g.b <= 0:
                kind = "holds"
            elif g.a > 0:
                kind = "violated"
                if witness is None:
                    centre = tuple((a + b) / 2 for a, b in box)
                    if gap(ctx, tuple((x, x) for x in centre)).a > 0:
                        witness = centre
        if kind is not None:
            found[kind].append(box)
            continue
        halves = bisect_widest(box, width)
        if halves is None:
            found["undecided" if applies else "boundary"].append(box)
            continue
        pending.extend(halves)
    return SignMap(names, {k: tuple(sorted(v)) for k, v in found.items()}, width, witness)
