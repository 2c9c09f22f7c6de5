"""Certified masses of comparisons that form a genuine cycle, by conditioning on a cut set.

When a path's comparisons between integer noise values close a cycle that no comparison of it
implies (``x ≥ y``, ``y ≥ z``, ``z + 1 ≥ x``), the forest sums of
:mod:`~pufferfish.models.programs.constraints` do not apply.  The comparison is then kept as a
*chord*, and the path's mass is computed by conditioning: choose one endpoint of every chord (the
*cut set* ``C``); for each assignment of values to ``C`` inside a finite window, the chords become
bounds on single variables and the rest is a forest, whose mass is exact.  So

    mass = Σ_{values of C in the window} forest mass (exact)  +  the mass with some x_c outside,

and the second term lies in ``[0, Σ_c Pr[x_c outside its window]]`` (each ``x_c`` has a probability
law of its own; the tails are exact closed forms).  The result is a certified
:class:`~pufferfish.models.enclosures.Enclosure` ``[S, S + tail]``, never a silent truncation;
downstream every level and budget is decided with it as with Gaussian noise (undecided only when
an interval straddles the budget).  Windows are chosen so that each tail is below
:data:`TAIL` (a choice of width, not a verdict: a float estimate picks the window, the tail in
the enclosure is exact).

Continuous noise on a cycle is still refused (conditioning on a real value is an integral, not a
finite sum), as are cycles through a sum variable or a stepwise program's factors.

Cost: ``Π_c |window_c|`` forest masses per path (memoised across assignments: subtrees that do
not see a cut variable are summed once); refused past :data:`MAX_ASSIGNMENTS`.

>>> from pufferfish.models.programs import geometric, program_distribution
>>> def cyclic(data):
...     x, y, z = geometric("1/2"), geometric("1/2"), geometric("1/2")
...     return [x >= y, y >= z, z + 1 >= x]
>>> law = program_distribution(cyclic, (0,))
>>> p = law.prob([True, True, True])
>>> p.width < Fraction(1, 10**18)
True
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from pufferfish.models.enclosures import Enclosure

__all__ = ["conditioned_mass", "TAIL", "MAX_ASSIGNMENTS"]

TAIL = Fraction(1, 2 ** 60)
"""The target bound on the mass outside each cut variable's window."""

MAX_ASSIGNMENTS = 200_000
"""The most assignments of the cut set one path may need."""


class CycleTooLarge(ValueError):
    """The cut set of a path's cycles needs more assignments than :data:`MAX_ASSIGNMENTS`."""


def _tail(law, low, high, lo, hi):
    """``Pr[x ∈ [low, high] and x ∉ [lo, hi]]`` exactly (``None``: unbounded)."""
    total = Fraction(0)
    if low is None or low < lo:
        total += law.restrict(low, lo - 1).total()
    if high is None or high > hi:
        total += law.restrict(hi + 1, high).total()
    return total


def _window(law, low, high) -> tuple[int, int]:
    """A window ``[lo, hi]`` inside the bounds whose outside mass is below :data:`TAIL`
    (estimated in floats: the choice only sets the enclosure's width)."""
    if low is not None and high is not None:
        return low, high
    centre = max(low, 0) if low is not None else min(high, 0) if high is not None else 0
    width = 8
    while True:
        lo = centre - width if low is None else max(low, centre - width)
        hi = centre + width if high is None else min(high, centre + width)
        if float(_tail(law, low, high, lo, hi)) < float(TAIL) / 2 or width > 1 << 20:
            return lo, hi
        width *= 2


def _cut_set(chords) -> list[int]:
    """Variables covering every chord (each chord has an endpoint among them), chosen greedily:
    the variable on most uncovered chords first (ties: the smaller index), so a value several
    chords share is conditioned on once.  Fixing them leaves the forest, each chord a bound."""
    uncovered = [(u, v) for u, v, _, _ in chords]
    cut: list[int] = []
    while uncovered:
        counts: dict[int, int] = {}
        for u, v in uncovered:
            counts[u] = counts.get(u, 0) + 1
            counts[v] = counts.get(v, 0) + 1
        chosen = min(counts, key=lambda variable: (-counts[variable], variable))
        cut.append(chosen)
        uncovered = [(u, v) for u, v in uncovered if chosen not in (u, v)]
    return cut


def conditioned_mass(noise) -> Enclosure:
    """The certified mass of ``noise``'s constraints, chords included (module docstring)."""
    cut = _cut_set(noise.chords)
    windows, tail = [], Fraction(0)
    for c in cut:
        lo, hi = _window(noise.laws[c], noise.lows[c], noise.highs[c])
        windows.append(range(lo, hi + 1))
        tail = Enclosure.of(tail) + _tail(noise.laws[c], noise.lows[c], noise.highs[c], lo, hi)
    count = 1
    for window in windows:
        count *= len(window)
    if count > MAX_ASSIGNMENTS:
        raise CycleTooLarge(f"the comparisons between noise values form a cycle whose certified "
                            f"sum needs {count:,} assignments (more than {MAX_ASSIGNMENTS:,})")
    total = Fraction(0)
    for values in product(*windows):
        lows, highs = list(noise.lows), list(noise.highs)
        fixed = dict(zip(cut, values))
        for c, value in fixed.items():
            lows[c] = highs[c] = value
        feasible = True
        for u, v, low, high in noise.chords:  # x_u − x_v ∈ [low, high]
            if u in fixed and v in fixed:
                d = fixed[u] - fixed[v]
                feasible = (low is None or d >= low) and (high is None or d <= high)
            elif u in fixed:  # x_v ∈ [x_u − high, x_u − low]
                lows[v] = _max(lows[v], None if high is None else fixed[u] - high)
                highs[v] = _min(highs[v], None if low is None else fixed[u] - low)
            else:             # x_u ∈ [x_v + low, x_v + high]
                lows[u] = _max(lows[u], None if low is None else fixed[v] + low)
                highs[u] = _min(highs[u], None if high is None else fixed[v] + high)
            if not feasible or (lows[u] is not None and highs[u] is not None
                                and lows[u] > highs[u]) or \
                    (lows[v] is not None and highs[v] is not None and lows[v] > highs[v]):
                feasible = False
                break
        if feasible:
            total = total + noise.forest_mass(lows, highs)
    inside = Enclosure.of(total)
    return Enclosure(inside.lower, (inside + Enclosure.of(tail)).upper)


def _max(a, b):
    return b if a is None else a if b is None else max(a, b)


def _min(a, b):
    return b if a is None else a if b is None else min(a, b)
