"""The box of parameter values of a parametric model, and proofs that a rational function keeps
its sign on it (:mod:`pufferfish.models.parametric`).

A :class:`ParameterBox` is the closed box ``low_i <= name_i <= high_i``.
:func:`nonnegativity_failure` proves a rational function defined and nonnegative (or positive) on
the whole box, or names a rational point where it fails: exactly for one parameter (real-root
isolation of the numerator and denominator, :mod:`pufferfish.models.polynomials`), and for several
by the box's corners and rational interval bounds on sub-boxes bisected at most
:data:`SUBDIVISION_DEPTH` times.  :func:`nonzero_point` finds a rational point where a nonzero
rational function does not vanish.  Cost: one root isolation (one parameter) or at most
``2^(depth·k)`` interval bounds (k parameters) per function.

>>> box = parse_parameters({"p": ["1/2", "1"]})
>>> p = box.symbols[0]
>>> nonnegativity_failure(1 - p, False, box) is None, nonnegativity_failure(1 - 2 * p, False, box)
(True, 'is negative at p = 1')
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # sympy is imported where it is used: a model without parameters never loads it
    import sympy

from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.numbers import exact
from pufferfish.models.polynomials import (evaluate_terms, fraction_text, interval_bounds,
                                           polynomial_terms, real_roots_in)

__all__ = ["ParameterBox", "parse_parameters", "nonnegativity_failure", "nonzero_point",
           "substitution", "SUBDIVISION_DEPTH", "PARAMETER_NAME"]

SUBDIVISION_DEPTH = 12
"""How many times a parameter box is bisected (per direction) to prove an entry nonnegative."""

PARAMETER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ParameterBox:
    """The closed box ``low_i <= name_i <= high_i`` of parameter values."""

    names: tuple[str, ...]
    low: tuple[Fraction, ...]
    high: tuple[Fraction, ...]

    @property
    def symbols(self) -> tuple[sympy.Symbol, ...]:
        import sympy
        return tuple(sympy.Symbol(n, real=True) for n in self.names)

    @property
    def bounds(self) -> tuple[tuple[Fraction, Fraction], ...]:
        return tuple(zip(self.low, self.high))

    def midpoint(self) -> dict[str, Fraction]:
        return {n: (a + b) / 2 for n, a, b in zip(self.names, self.low, self.high)}

    def text(self) -> str:
        """``p in [1/2, 1], q in [0, 1]``."""
        return ", ".join(f"{n} in [{fraction_text(a)}, {fraction_text(b)}]"
                         for n, a, b in zip(self.names, self.low, self.high))

    def point_text(self, point: Mapping[str, Fraction] | tuple) -> str:
        values = point if isinstance(point, Mapping) else dict(zip(self.names, point))
        return ", ".join(f"{n} = {fraction_text(values[n])}" for n in self.names)

    def to_dict(self) -> dict:
        return {n: [fraction_text(a), fraction_text(b)] for n, a, b in zip(self.names, self.low, self.high)}


def bisect_widest(box: tuple[tuple[Fraction, Fraction], ...], width: Fraction
                  ) -> tuple[tuple, tuple] | None:
    """The two halves of a box of closed intervals cut across its widest side, or ``None`` when
    that side is at most ``width`` (the box is as fine as the caller asked for).

    >>> bisect_widest(((Fraction(0), Fraction(1)), (Fraction(0), Fraction(2))), Fraction(1, 4))
    (((Fraction(0, 1), Fraction(1, 1)), (Fraction(0, 1), Fraction(1, 1))), ((Fraction(0, 1), Fraction(1, 1)), (Fraction(1, 1), Fraction(2, 1))))
    """
    widest = max(range(len(box)), key=lambda i: box[i][1] - box[i][0])
    a, b = box[widest]
    if b - a <= width:
        return None
    middle = (a + b) / 2
    return (box[:widest] + ((a, middle),) + box[widest + 1:],
            box[:widest] + ((middle, b),) + box[widest + 1:])


def parse_parameters(raw: object, path: str = "parameters") -> ParameterBox:
    """Read ``{"p": [low, high], ...}``; refuses bad names and empty ranges."""
    if not isinstance(raw, Mapping) or not raw:
        raise ModelError("declare at least one parameter as \"name\": [low, high]", path)
    names, lows, highs = [], [], []
    for name, bounds in raw.items():
        where = join_path(path, name)
        if not PARAMETER_NAME.match(name):
            raise ModelError(f"{name!r} is not a parameter name (letters, digits, _; not starting "
                             f"with a digit)", where)
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise ModelError("a parameter range is [low, high]", where)
        low, high = exact(bounds[0], f"{where}.0"), exact(bounds[1], f"{where}.1")
        if low > high:
            raise ModelError(f"the range [{fraction_text(low)}, {fraction_text(high)}] is empty "
                             f"(low > high)", where)
        names.append(name)
        lows.append(low)
        highs.append(high)
    return ParameterBox(tuple(names), tuple(lows), tuple(highs))



def substitution(box: ParameterBox, point: Mapping[str, Fraction]) -> dict:
    import sympy
    return {s: sympy.Rational(point[n].numerator, point[n].denominator)
            for n, s in zip(box.names, box.symbols)}


def nonzero_point(expr: sympy.Expr, box: ParameterBox) -> dict[str, Fraction]:
    """A rational point of the box where the nonzero rational function ``expr`` is defined and
    nonzero (it vanishes on a set of measure zero, so a grid of a few points finds one)."""
    import sympy

    steps = 2
    while True:
        for offsets in _grid(len(box.names), steps):
            point = {n: a + (b - a) * t for n, a, b, t in zip(box.names, box.low, box.high, offsets)}
            numerator, denominator = sympy.fraction(sympy.together(expr))
            sub = substitution(box, point)
            if denominator.xreplace(sub) != 0 and numerator.xreplace(sub) != 0:
                return point
        steps *= 2


def _grid(k: int, steps: int) -> Iterator[tuple[Fraction, ...]]:
    if k == 0:
        yield ()
        return
    for rest in _grid(k - 1, steps):
        for i in range(steps + 1):
            yield (Fraction(2 * i + 1, 2 * steps + 2),) + rest


def nonnegativity_failure(expr: sympy.Expr, strict: bool, box: ParameterBox) -> str | None:
    """``None`` when ``expr`` is defined and ``>= 0`` (``> 0`` if ``strict``) on the whole box,
    else the reason with a point where it fails."""
    import sympy

    symbols = box.symbols
    if not expr.free_symbols & set(symbols):
        value = sympy.Rational(expr)
        return None if value > 0 or (value == 0 and not strict) else (
            f"is {'negative' if value < 0 else '0'} (the constant {value})")
    numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(expr)))
    used = [i for i, s in enumerate(symbols) if s in expr.free_symbols]
    box = ParameterBox(tuple(box.names[i] for i in used), tuple(box.low[i] for i in used),
                       tuple(box.high[i] for i in used))
    symbols = tuple(symbols[i] for i in used)
    num = sympy.Poly(numerator, *symbols)
    den = sympy.Poly(denominator, *symbols)
    if len(symbols) == 1:
        return _failure_one(num, den, strict, box)
    return _failure_several(polynomial_terms(num), polynomial_terms(den), strict, box)


def _corners(bounds: tuple) -> Iterator[tuple[Fraction, ...]]:
    if not bounds:
        yield ()
        return
    for rest in _corners(bounds[1:]):
        for end in dict.fromkeys(bounds[0]):
            yield (end,) + rest


def _failure_one(num: sympy.Poly, den: sympy.Poly, strict: bool, box: ParameterBox) -> str | None:
    low, high = box.low[0], box.high[0]
    name = box.names[0]
    den_roots = real_roots_in([den], low, high)
    if den_roots:
        return f"is undefined at {name} = {den_roots[0]} (its denominator vanishes)"
    num_roots = real_roots_in([num], low, high)
    if strict and num_roots:
        return f"is 0 at {name} = {num_roots[0]}, must be positive"
    samples = [low, high]
    cuts = [low] + [r.refined(Fraction(1, 2 ** 20)) for r in num_roots] + [high]
    for left, right in zip(cuts, cuts[1:]):
        a = left if isinstance(left, Fraction) else left.high
        b = right if isinstance(right, Fraction) else right.low
        if a < b:
            samples.append((a + b) / 2)
    for x in samples:
        value = Fraction(_value(num, x)) / Fraction(_value(den, x))
        if value < 0:
            return f"is negative at {name} = {fraction_text(x)}"
    return None


def _value(polynomial: sympy.Poly, x: Fraction) -> Fraction:
    import sympy
    value = polynomial.eval(sympy.Rational(x.numerator, x.denominator))
    return Fraction(int(value.p), int(value.q))


def _failure_several(num: dict, den: dict, strict: bool, box: ParameterBox) -> str | None:
    # Sign of the denominator: constant on the box if it never vanishes; fixed by the midpoint.
    middle = tuple((a + b) / 2 for a, b in box.bounds)
    if evaluate_terms(den, middle) < 0:
        num = {e: -c for e, c in num.items()}
        den = {e: -c for e, c in den.items()}
    for corner in _corners(box.bounds):
        if evaluate_terms(den, corner) == 0:
            return f"is undefined at {box.point_text(corner)} (its denominator vanishes)"
        value = evaluate_terms(num, corner) / evaluate_terms(den, corner)
        if value < 0 or (strict and value == 0):
            return f"is {'negative' if value < 0 else '0'} at {box.point_text(corner)}"
    pending = [(box.bounds, 0)]
    while pending:
        cell, depth = pending.pop()
        centre = tuple((a + b) / 2 for a, b in cell)
        if evaluate_terms(den, centre) <= 0:
            return f"is undefined or changes sign near {box.point_text(centre)} (its denominator vanishes in the box)"
        value = evaluate_terms(num, centre)
        if value < 0 or (strict and value == 0):
            return f"is {'negative' if value < 0 else '0'} at {box.point_text(centre)}"
        den_low, _ = interval_bounds(den, cell)
        num_low, _ = interval_bounds(num, cell)
        if den_low > 0 and (num_low > 0 or (num_low == 0 and not strict)):
            continue
        if depth >= SUBDIVISION_DEPTH:
            corners = ", ".join(f"{n} in [{fraction_text(a)}, {fraction_text(b)}]"
                                for n, (a, b) in zip(box.names, cell))
            return (f"could not be proved nonnegative on the box {corners} (bounds after "
                    f"{SUBDIVISION_DEPTH} bisections); narrow the parameter ranges")
        widest = max(range(len(cell)), key=lambda i: cell[i][1] - cell[i][0])
        a, b = cell[widest]
        for half in ((a, (a + b) / 2), ((a + b) / 2, b)):
            pending.append((cell[:widest] + (half,) + cell[widest + 1:], depth + 1))
    return None
