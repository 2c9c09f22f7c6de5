"""Instances of Wang et al., Privacy-Preserving Analysis of Correlated Data given in the paper
itself: the flu example of §3.

§3 (the flu example): Alice (``X_i``) and three others; ``N = Σ X_i`` is the number of infected
people.  Given Alice's status the paper states

    P(N = 0 | X_i = 0) = 1/2,  P(N = k | X_i = 0) = 1/6 (k = 1, 2, 3);
    P(N = j | X_i = 1) = 1/4 (j = 1, ..., 4),

and concludes ``W = 2`` while the group-DP sensitivity is 4.

>>> from pufferfish.verify.transport.w_infinity import w_infinity
>>> w_infinity(*flu_conditionals()).value
Fraction(2, 1)
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from pufferfish.models.distribution import Distribution
from pufferfish.models.model import PufferfishModel
from pufferfish.models.priors import TablePrior
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import Universe


def flu_conditionals() -> tuple[dict[Fraction, Fraction], dict[Fraction, Fraction]]:
    """§3: ``P(N = 0 | X_i = 0) = 1/2``, ``P(N = k | X_i = 0) = 1/6`` (k = 1, 2, 3);
    ``P(N = j | X_i = 1) = 1/4`` (j = 1..4)."""
    sixth, quarter = Fraction(1, 6), Fraction(1, 4)
    return ({Fraction(0): Fraction(1, 2), Fraction(1): sixth, Fraction(2): sixth, Fraction(3): sixth},
            {Fraction(j): quarter for j in range(1, 5)})


def flu_model() -> PufferfishModel:
    """A 4-person model in which Alice (``x1``) has exactly the §3 conditionals of ``N = Σ x_i``.

    ``Pr[x1 = 1] = 1/2``; given ``x1`` and ``N``, the other three statuses are uniform over the
    arrangements with that count.  (No prior gives these conditionals to *every* person at once —
    see :func:`flu_all_individuals_system`.)
    """
    universe = Universe.product(["x1", "x2", "x3", "x4"], [[0, 1]] * 4)
    given = dict(zip((0, 1), flu_conditionals()))
    table: dict[tuple, Fraction] = {}
    for alice in (0, 1):
        for n, p in given[alice].items():
            others = [d for d in product((0, 1), repeat=3) if sum(d) + alice == n]
            for rest in others:
                table[(alice, *rest)] = Fraction(1, 2) * p / len(others)
    prior = TablePrior("flu", Distribution(table))
    secrets = {"x1=0": Secret.where("x1=0", universe, {"x1": 0}),
               "x1=1": Secret.where("x1=1", universe, {"x1": 1})}
    return PufferfishModel(universe, {"flu": prior}, secrets,
                           [SecretPair(secrets["x1=0"], secrets["x1=1"])],
                           description="Wang et al., Privacy-Preserving Analysis of Correlated "
                                       "Data, §3, flu example: Alice = x1, N = x1 + x2 + x3 + x4")


def flu_all_individuals_system():
    """The linear system "every person i has the §3 conditionals" over the 16 dataset
    probabilities, solved exactly with sympy; returns the solution set (``EmptySet`` when no
    prior — not even a signed one — satisfies it)."""
    import sympy

    datasets = list(product((0, 1), repeat=4))
    p = {d: sympy.Symbol("p_" + "".join(map(str, d))) for d in datasets}
    conditionals = dict(zip((0, 1), flu_conditionals()))
    equations = [sum(p.values()) - 1]
    for i in range(4):
        for status in (0, 1):
            mass = sum(p[d] for d in datasets if d[i] == status)
            for n in range(5):
                target = conditionals[status].get(Fraction(n), Fraction(0))
                joint = sum(p[d] for d in datasets if d[i] == status and sum(d) == n)
                equations.append(joint - sympy.Rational(target.numerator, target.denominator) * mass)
    return sympy.linsolve(equations, list(p.values()))
