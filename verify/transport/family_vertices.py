"""The extreme members of an interval prior family, pushed forward through a query.

Source: the family of Bai et al., Composition for Pufferfish Privacy, §4, Example 4.3
(:class:`pufferfish.models.priors.IntervalFamily`): for a secret ``s`` its datasets are split into
blocks ``B_1..B_k`` and the conditional ``q = θ(·|s)`` is any distribution with
``l_j <= q(B_j) <= u_j``.  The conditionals of different secrets are chosen independently.

**The vertex argument.**  Write ``Q_s`` for the polytope of feasible conditionals.  Every ``q`` in
``Q_s`` is a convex combination of *extreme conditionals*: block masses ``m`` at a vertex of the
box ``[l, u]`` cut by ``Σ m = 1`` (every block but at most one at a bound), and each block's mass
on a single dataset of the block.  (Split ``q`` inside each block by ``q(D)/m_j``: the products of
these weights combine the single-dataset choices into ``q`` for fixed ``m``, and the choice is
linear in ``m``.)  A function ``f(P_1, P_2)`` of the two conditional query distributions that is
*jointly quasi-convex* — each sublevel set ``{f <= c}`` convex — takes its maximum over
``Q_{s_i} × Q_{s_j}`` at a pair of extreme conditionals.  This covers

* the Laplace-mixture level ``sup_w f_1(w)/f_2(w)``: ``{sup_w f_1/f_2 <= c} = ∩_w {f_1(w) − c
  f_2(w) <= 0}``, an intersection of half-spaces since each density is linear in its ``P``;
* ``W_∞(P_1, P_2) <= c`` iff ``F_1(t) <= F_2(t + c)`` and ``F_2(t) <= F_1(t + c)`` for every
  ``t`` (Wang et al., Privacy-Preserving Analysis of Correlated Data, §3, Definition 3.1 on the
  line), again half-spaces;
* every maximum of likelihood ratios of linear functionals, e.g. Definition 7's ``a†(L)``.

So the supremum over the whole infinite family is a maximum over finitely many pairs, each an
exact finite computation: the result is exact (or certified, when the per-pair quantity is).
Only the push-forward matters, so a block contributes one choice per distinct query value.

Complexity: ``O(k 2^{k−1})`` block-mass vertices times ``Π_j |F(B_j)|`` value choices for a
secret with ``k`` blocks (bounded by ``limit``, refused beyond it with the count).

>>> from fractions import Fraction as Q
>>> from pufferfish.models.priors import IntervalBlock, IntervalFamily
>>> family = IntervalFamily("box", {"s": (IntervalBlock(((0,), (1,)), Q(1, 4), Q(3, 4)),
...                                      IntervalBlock(((2,),), Q(1, 4), Q(3, 4)))})
>>> sorted(sorted(d.items()) for d in extreme_pushforwards(family, "s", lambda d: d[0]))[:2]
[[(0, Fraction(1, 4)), (2, Fraction(3, 4))], [(0, Fraction(3, 4)), (2, Fraction(1, 4))]]
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from itertools import product

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import TooLargeError
from pufferfish.models.priors import IntervalBlock, IntervalFamily
from pufferfish.models.universe import Dataset

DEFAULT_MAX_VERTICES = 100_000
"""The most vertices of an interval family's polytope that are enumerated (refused above)."""


def block_mass_vertices(blocks: tuple[IntervalBlock, ...]) -> list[tuple[Fraction, ...]]:
    """The vertices of ``{m : l_j <= m_j <= u_j, Σ m_j = 1}`` (every block but one at a bound).

    >>> from fractions import Fraction as Q
    >>> b = IntervalBlock(((0,),), Q(0), Q(1))
    >>> block_mass_vertices((b, b))
    [(Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1))]
    """
    k = len(blocks)
    seen: dict[tuple[Fraction, ...], None] = {}
    for free in range(k):
        others = [j for j in range(k) if j != free]
        for bounds in product((0, 1), repeat=len(others)):
            masses = [Fraction(0)] * k
            for j, upper in zip(others, bounds):
                masses[j] = blocks[j].upper if upper else blocks[j].lower
            rest = 1 - sum(masses, Fraction(0))
            if blocks[free].lower <= rest <= blocks[free].upper:
                masses[free] = rest
                seen.setdefault(tuple(masses), None)
    return list(seen)


def extreme_pushforwards(family: IntervalFamily, secret: str,
                         push: Callable[[Dataset], Hashable],
                         limit: int = DEFAULT_MAX_VERTICES) -> list[Distribution]:
    """The distinct distributions of ``push(X)`` under the extreme conditionals of ``secret``.

    Every feasible conditional's push-forward is a convex combination of these (module
    docstring), so a jointly quasi-convex function of two conditionals is maximised on them.
    """
    blocks = family.blocks[secret]
    values = []
    for block in blocks:
        distinct: dict[Hashable, None] = {}
        for dataset in block.datasets:
            distinct.setdefault(push(dataset), None)
        values.append(list(distinct))
    out: dict[tuple, Distribution] = {}
    for masses in block_mass_vertices(blocks):
        choices = [vals if m else vals[:1] for m, vals in zip(masses, values)]
        count = 1
        for vals in choices:
            count *= len(vals)
        if len(out) + count > limit:
            raise TooLargeError(f"the interval family {family.name!r} has more than {limit:,} "
                                f"extreme conditionals for secret {secret!r}",
                                f"priors.{family.name}.interval.{secret}")
        for picked in product(*choices):
            mass: dict[Hashable, Fraction] = {}
            for m, value in zip(masses, picked):
                if m:
                    mass[value] = mass.get(value, Fraction(0)) + m
            key = tuple(sorted(mass.items(), key=repr))
            if key not in out:
                out[key] = Distribution._trusted(mass)
    return list(out.values())


__all__ = ["DEFAULT_MAX_VERTICES", "block_mass_vertices", "extreme_pushforwards"]
