"""Certified comparison of two minima of ``a†`` (Example 6.2): the decisions of Theorem 9.

Source: Bai et al., Composition for Pufferfish Privacy, §6.3, Example 6.2 and Theorem 9.  Both parts
of Theorem 9 compare minima of ``a†`` over families of low-influence sets ``(i, L)``:

* "the centre has the largest ``a*(b)``": ``min_{L ∌ i*} a†_{i*}(L) >= min_{L ∌ i} a†_i(L)``;
* (1) "the farthest ``L`` is optimal": ``min_{all L} a†_{i*}(L) >= min_{farthest L} a†_{i*}(L)``.

:func:`compare_minima` decides ``min_{x ∈ X} a†(x) >= min_{y ∈ Y} a†(y)`` from the certified
enclosures of :mod:`pufferfish.verify.influence.gaussian_bound`:

* **holds** when every ``x`` has a ``y`` with the same offset class (then ``a†(y) = a†(x)``
  exactly, by translation and reflection invariance) or with ``upper(y) <= lower(x)``;
* **violated** when some ``x`` has ``upper(x) < lower(y)`` for every ``y`` (a certified
  counterexample: ``a†(x)`` is below the other minimum);
* otherwise the enclosures that can still hold either minimum are refined (their width divided
  by 8, round after round) until one of the two is proved, and the comparison is **undecided**
  (with the intervals) when no enclosure can be refined any more (``max_cells`` reached, or the
  cells at the finest lattice step).

Cost: one enclosure per offset class (shared through a
:class:`~pufferfish.verify.influence.gaussian_bound.LeakageCache`), refined only where the two
minima are not yet separated.

>>> from fractions import Fraction
>>> from pufferfish.verify.influence.gaussian import GaussianSetting
>>> from pufferfish.verify.influence.gaussian_bound import LeakageCache
>>> cache = LeakageCache(GaussianSetting(3, Fraction(2)))
>>> compare_minima(cache, [(1, (0,)), (1, (2,))], [(0, (2,))]).verdict
'holds'
>>> compare_minima(cache, [(0, (2,))], [(1, (0,))]).verdict
'violated'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.verify.influence.gaussian_bound import (MAX_CELLS, LeakageCache,
                                                        LeakageEnclosure)
from pufferfish.verify.report import Explained

_SHRINK = 8


@dataclass(frozen=True, repr=False)
class MinimumComparison(Explained):
    """The verdict on ``min_X a†(x) >= min_Y a†(y)`` with the certified bounds of both minima
    and, for a violation, the witness ``x`` (``(coordinate, L)``, 0-based)."""

    verdict: str
    left: tuple[Fraction, Fraction]
    right: tuple[Fraction, Fraction]
    left_best: tuple[int, tuple[int, ...]]
    right_best: tuple[int, tuple[int, ...]]
    witness: tuple[int, tuple[int, ...]] | None = None

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "certified": True,
                "left_min": [str(x) for x in self.left], "right_min": [str(x) for x in self.right],
                "left_best": _pair_dict(self.left_best), "right_best": _pair_dict(self.right_best),
                "witness": _pair_dict(self.witness) if self.witness else None}

    def explain(self) -> str:
        return (f"min over the left sets ∈ {_interval(self.left)} (L={_pair_text(self.left_best)}), "
                f"min over the right sets ∈ {_interval(self.right)} "
                f"(L={_pair_text(self.right_best)}): {self.verdict}")


def _pair_dict(pair: tuple[int, tuple[int, ...]]) -> dict:
    return {"coordinate": pair[0] + 1, "low": [j + 1 for j in pair[1]]}


def _pair_text(pair: tuple[int, tuple[int, ...]]) -> str:
    return f"{[j + 1 for j in pair[1]]} for x_{pair[0] + 1}"


def _interval(bounds: tuple[Fraction, Fraction]) -> str:
    return f"[{float(bounds[0]):.8g}, {float(bounds[1]):.8g}]"


def compare_minima(cache: LeakageCache, left: Iterable[tuple[int, Sequence[int]]],
                   right: Iterable[tuple[int, Sequence[int]]],
                   max_cells: int = MAX_CELLS) -> MinimumComparison:
    """Decide ``min_{x ∈ left} a†(x) >= min_{y ∈ right} a†(y)`` (module docstring); the pairs are
    ``(coordinate, L)``, 0-based, of the cache's setting.  ``left`` and ``right`` are not empty."""
    left_named, right_named = _distinct(cache, left), _distinct(cache, right)
    xs = [enclosure for enclosure, _ in left_named.values()]
    ys = [enclosure for enclosure, _ in right_named.values()]
    names = (left_named, right_named)
    while True:
        if all(any(y.key == x.key or y.upper <= x.lower for y in ys) for x in xs):
            return _result("holds", xs, ys, names)
        for x in xs:
            if all(y.key != x.key and x.upper < y.lower for y in ys):
                return _result("violated", xs, ys, names, x)
        threshold = max(min(x.upper for x in xs), min(y.upper for y in ys))
        candidates = [e for e in {id(e): e for e in xs + ys}.values()
                      if e.lower <= threshold and e.width > 0]
        progressed = False
        for enclosure in candidates:
            before = (enclosure.cells, enclosure.lower, enclosure.upper)
            enclosure.refine(enclosure.width / _SHRINK, max_cells)
            progressed |= before != (enclosure.cells, enclosure.lower, enclosure.upper)
        if not progressed:
            return _result("undecided", xs, ys, names)


def _distinct(cache: LeakageCache, pairs) -> dict:
    """One enclosure per offset class, with the first pair that asked for it."""
    found: dict[tuple[int, ...], tuple[LeakageEnclosure, tuple[int, tuple[int, ...]]]] = {}
    for coordinate, low in pairs:
        low = tuple(sorted(low))
        enclosure = cache.enclosure(coordinate, low)
        found.setdefault(enclosure.key, (enclosure, (coordinate, low)))
    if not found:
        raise ValueError("compare_minima needs at least one set on each side")
    return found


def _result(verdict: str, xs: list[LeakageEnclosure], ys: list[LeakageEnclosure],
            names: tuple[dict, dict], witness: LeakageEnclosure | None = None
            ) -> MinimumComparison:
    def minimum(side: list[LeakageEnclosure], named: dict):
        best = min(side, key=lambda e: (e.upper, e.lower))
        return (min(e.lower for e in side), best.upper), named[best.key][1]

    left, left_best = minimum(xs, names[0])
    right, right_best = minimum(ys, names[1])
    return MinimumComparison(verdict, left, right, left_best, right_best,
                             names[0][witness.key][1] if witness else None)


__all__ = ["MinimumComparison", "compare_minima"]
