"""Finite measures on the line and couplings between them (Wang et al., Privacy-Preserving Analysis
of Correlated Data, §3, Definition 3.1; Ding et al., Multi-user Pufferfish Privacy, §2, equation
(6)).

A finite measure on the rationals is represented as :data:`Atoms`: a sorted tuple
``((value, mass), ...)`` with positive masses.  :func:`atoms` is the one validator that turns a
user's mapping ``value -> probability`` into that form (exact numbers, JSON-path errors); every
transport computation (W∞, trimmed W∞, W1, Δ*, the Laplace-mixture level) reads its input through
it.

A coupling of μ and ν is a finite list of ``(t, s, mass)`` triples (:data:`Coupling`): mass moved
from ``t`` (under μ) to ``s`` (under ν).  This module provides

* :func:`comonotone_coupling` — the north-west-corner coupling, pairing the ``q``-quantiles of μ
  and ν for every level ``q`` (on the line it is optimal for every ``W_p``, ``p = ∞`` included);
  cost ``O(m + n)`` for sorted supports of sizes ``m, n``;
* :func:`greedy_partial_coupling` — a largest partial coupling moving no mass farther than a
  given distance (left atoms in increasing order, each matched to the leftmost unexhausted right
  atoms within ``[a − d, a + d]``; optimal because both ends of these windows increase with
  ``a``); cost ``O(m + n)``;
* :func:`verify_coupling` — an exact check of a coupling's marginals and largest displacement.

>>> mu, nu = atoms({0: "1/2", 2: "1/2"}), atoms({1: 1})
>>> comonotone_coupling(mu, nu)
((Fraction(0, 1), Fraction(1, 1), Fraction(1, 2)), (Fraction(2, 1), Fraction(1, 1), Fraction(1, 2)))
>>> verify_coupling(comonotone_coupling(mu, nu), mu, nu, Fraction(1))
True
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import exact, fraction_str

Atoms = tuple[tuple[Fraction, Fraction], ...]
"""A finite measure on the rationals: sorted ``((value, mass), ...)``, every mass positive."""

Coupling = tuple[tuple[Fraction, Fraction, Fraction], ...]
"""A (partial) coupling: ``((t, s, mass), ...)``, mass moved from ``t`` to ``s``."""


def atoms(raw: Mapping, name: str = "distribution", normalized: bool = True) -> Atoms:
    """Sorted ``((value, mass), ...)`` with positive masses, validated exactly.

    Values and probabilities are exact numbers (:func:`pufferfish.models.numbers.exact`: integers,
    Fractions, strings such as ``"3/8"``; floats are refused with a hint); equal values are merged
    and zero masses dropped.  With ``normalized`` the masses must sum to 1, otherwise they must
    have a positive total.  Errors are :class:`ModelError` located at ``name.value``.

    >>> atoms({"1/2": "1/4", 0: "3/4"})
    ((Fraction(0, 1), Fraction(3, 4)), (Fraction(1, 2), Fraction(1, 4)))
    >>> atoms({0: 2}, "mu", normalized=False)
    ((Fraction(0, 1), Fraction(2, 1)),)
    """
    if not isinstance(raw, Mapping):
        raise ModelError("expected a mapping from value to probability", name)
    merged: dict[Fraction, Fraction] = {}
    for value, weight in raw.items():
        v, p = exact(value, f"{name}.{value}"), exact(weight, f"{name}.{value}")
        if p < 0:
            raise ModelError(f"probability {fraction_str(p)} is negative", f"{name}.{value}")
        if p:
            merged[v] = merged.get(v, Fraction(0)) + p
    total = sum(merged.values(), Fraction(0))
    if normalized and total != 1:
        raise ModelError(f"probabilities sum to {fraction_str(total)}, must sum to 1", name)
    if not merged:
        raise ModelError("the distribution has no mass", name)
    return tuple(sorted(merged.items()))


def atoms_text(measure: Atoms) -> list[list[str]]:
    """``[[value, mass], ...]`` as exact strings (the JSON form of :data:`Atoms`)."""
    return [[fraction_str(v), fraction_str(p)] for v, p in measure]


def coupling_text(coupling: Coupling) -> list[list[str]]:
    """``[[t, s, mass], ...]`` as exact strings (the JSON form of :data:`Coupling`)."""
    return [[fraction_str(a), fraction_str(b), fraction_str(m)] for a, b, m in coupling]


def marginal(coupling: Coupling, index: int) -> dict[Fraction, Fraction]:
    """The first (``index`` 0) or second (``index`` 1) marginal of a coupling."""
    out: dict[Fraction, Fraction] = {}
    for entry in coupling:
        out[entry[index]] = out.get(entry[index], Fraction(0)) + entry[2]
    return out


def verify_coupling(coupling: Coupling, first: Atoms, second: Atoms, value: Fraction,
                    mass: Fraction | None = None) -> bool:
    """Exactly: ``coupling`` has marginals ``first``/``second`` (or, with ``mass``, marginals
    bounded by them and total ``mass``), positive entries, and largest displacement ``value``."""
    if any(m <= 0 for _, _, m in coupling):
        return False
    left, right = marginal(coupling, 0), marginal(coupling, 1)
    largest = max((abs(a - b) for a, b, _ in coupling), default=Fraction(0))
    if largest != value:
        return False
    if mass is None:
        return left == dict(first) and right == dict(second)
    f, s = dict(first), dict(second)
    return (all(m <= f.get(a, 0) for a, m in left.items())
            and all(m <= s.get(b, 0) for b, m in right.items())
            and sum(left.values(), Fraction(0)) == mass)


def comonotone_coupling(first: Atoms, second: Atoms) -> Coupling:
    """The north-west-corner coupling of two sorted atom lists of equal total mass."""
    out: list[tuple[Fraction, Fraction, Fraction]] = []
    i = j = 0
    rest_a = first[0][1] if first else Fraction(0)
    rest_b = second[0][1] if second else Fraction(0)
    while i < len(first) and j < len(second):
        m = min(rest_a, rest_b)
        if m:
            out.append((first[i][0], second[j][0], m))
        rest_a -= m
        rest_b -= m
        if rest_a == 0:
            i += 1
            rest_a = first[i][1] if i < len(first) else Fraction(0)
        if rest_b == 0:
            j += 1
            rest_b = second[j][1] if j < len(second) else Fraction(0)
    return tuple(out)


def greedy_partial_coupling(first: Atoms, second: Atoms, distance: Fraction) -> Coupling:
    """A largest partial coupling of ``first`` and ``second`` moving no mass farther than
    ``distance`` (greedy sweep; see the module docstring)."""
    rest = [p for _, p in second]
    out: list[tuple[Fraction, Fraction, Fraction]] = []
    start = 0
    for a, p in first:
        while start < len(second) and (second[start][0] < a - distance or rest[start] == 0):
            start += 1
        j = start
        while p and j < len(second) and second[j][0] <= a + distance:
            m = min(p, rest[j])
            if m:
                out.append((a, second[j][0], m))
                p -= m
                rest[j] -= m
            j += 1
    return tuple(out)
