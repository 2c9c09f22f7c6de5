"""Linear forms of noise variables: what a noisy value of a program is, and how the engine
brings every form it must decide on to a shape its forest of comparisons can hold.

A noisy value is ``Σ_i c_i·x_i + offset`` over the run's noise variables.  The engine decides
comparisons of, and enumerates the values of, three shapes only: a number (the noise cancelled),
``c·x_u`` (one variable, any nonzero multiple) and ``c·(x_u − x_v)`` (a difference: a comparison
is then a window on an edge of the forest).  Any other form — a sum ``x + y``, a running sum
``x₁ + … + x_k`` (Smart Sum, Partial Sum), ``x − y + z`` — is brought to one of them by changes
of variables: a draw ``x_p`` that no comparison links to another value yet (*free*) and any other
variable ``x_r`` of the form are replaced by a fresh variable ``w`` for their sum
(:meth:`~pufferfish.models.programs.constraints.NoiseConstraints.add_sum`); ``x_p``'s law becomes
the factor of the new edge ``w — x_r``, and every later use of ``x_p`` reads
``x_p = s·(w − x_r)`` (:func:`resolved`).  Each replacement removes one term, so a form of
``k`` terms needs ``k − 2`` of them at most.  The change of variables is a bijection with unit
Jacobian, so the law is unchanged: the sums are exact, not approximated.

Refused (``CycleError``: the law is not a forest of comparisons, which the exact engine does not
sum): a form with no free variable left, such as ``x + y`` after both were compared with other
noise values; and (``TypeError``) different multiples inside one sum (``x + 2·y``: the law of
``2·y`` lives on the even integers, outside the engine's class).

>>> from pufferfish.models.programs import program_distribution, geometric
>>> def running(data):
...     total = data[0] + geometric("1/2")
...     total = total + geometric("1/2")        # a sum of two draws: a convolution
...     return total >= 2
>>> program_distribution(running, (0,)).prob(True)
Fraction(7, 27)
"""

from __future__ import annotations

from pufferfish.models.programs.constraints import CycleError, NoiseConstraints

__all__ = ["resolved", "reduced", "shape"]


def resolved(terms: dict[int, int], noise: NoiseConstraints) -> dict[int, int]:
    """``terms`` with every replaced draw written as its form (one level suffices: a draw is
    replaced only while free, and the variables of its form are never free again)."""
    if not noise.replaced or not any(v in noise.replaced for v in terms):
        return terms
    result: dict[int, int] = {}
    for variable, coefficient in terms.items():
        for inner, factor in noise.replaced.get(variable, {variable: 1}).items():
            result[inner] = result.get(inner, 0) + coefficient * factor
    return {v: c for v, c in result.items() if c}


def _is_shape(terms: dict[int, int]) -> bool:
    if len(terms) <= 1:
        return True
    first, second = terms.values() if len(terms) == 2 else (0, 0)
    return len(terms) == 2 and first == -second


def reduced(terms: dict[int, int], noise: NoiseConstraints) -> dict[int, int]:
    """``terms`` resolved and brought to a shape (module docstring), introducing sum variables
    as needed.  Deterministic (a replay of the run makes the same variables): the free variable
    with the largest index is the hidden summand, the smallest other index its partner."""
    terms = dict(resolved(terms, noise))
    while not _is_shape(terms):
        sizes = {abs(c) for c in terms.values()}
        if len(sizes) > 1:
            raise TypeError("a sum of noisy values with different multiples (such as x + 2·y) is "
                            "not supported by the exact engine: sum values with coefficients ±1, "
                            "or multiply a single noisy value")
        free = [v for v in terms if noise.is_free(v)]
        if not free:
            raise CycleError("a sum of noisy values that are each linked to other noise values by "
                             "comparisons already: its law is not a forest of comparisons, which "
                             "the exact engine does not sum")
        pivot = max(free)
        partner = min(v for v in terms if v != pivot)
        size = sizes.pop()
        pivot_sign = 1 if terms[pivot] > 0 else -1
        partner_sign = 1 if terms[partner] > 0 else -1
        w = noise.add_sum(pivot, pivot_sign, partner, partner_sign)
        del terms[pivot], terms[partner]
        terms[w] = size * partner_sign
    return terms


def shape(terms: dict[int, int], noise: NoiseConstraints) -> tuple:
    """``("number",)``, ``("single", c, u)`` for ``c·x_u``, or ``("difference", c, u, v)`` for
    ``c·(x_u − x_v)`` with ``c > 0``: the reduced form of ``terms``."""
    terms = reduced(terms, noise)
    if not terms:
        return ("number",)
    if len(terms) == 1:
        (u, c), = terms.items()
        return ("single", c, u)
    (u, c), (v, _) = sorted(terms.items(), key=lambda item: -item[1])
    return ("difference", c, u, v)
