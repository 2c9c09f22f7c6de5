"""The prior of the Top-K experiments: a stationary first-order chain fitted on training data.

Source: Bai et al., Composition for Pufferfish Privacy, §7.1.4 (fit "a Markov model with a
stationary transition matrix" on the training split: each user's category is a state, each change a
transition) and Appendix D.2 (smoothing with tolerance τ = 10⁻⁵, and the 5×5 example with the extra
"others" state).  Everything is exact (``Fraction``):

* :func:`transition_counts` — ``n[x][y]`` = number of steps ``x → y`` inside the training
  sequences (consecutive entries of one user; sequences are never joined).  ``O(entries)``.
* :func:`empirical_matrix` — ``P[x][y] = n[x][y] / Σ_y n[x][y]``.  A state never left in the
  training data has no row in the data; the paper does not say what it gets, and here it gets the
  uniform row (which smoothing leaves unchanged).
* :func:`add_others_state` — Appendix D.2's extra row/column: a new last state "others" that no
  state moves to (column of zeros) and that moves uniformly to every original state (row
  ``1/k, ..., 1/k, 0``).
* :func:`smooth` — Appendix D.2 exactly: in each row, (1) add τ to every zero entry, (2) subtract
  the total added mass ``z·τ`` (``z`` zeros) from the non-zero entries in proportion to their
  values, ``p ↦ p − zτ·p/S`` with ``S`` the row's non-zero mass, so the row still sums to 1 and
  stays non-negative (requires ``zτ < S``; otherwise :class:`ModelError`).  ``O(k²)``.
* :func:`fit_chain` — all of it, returning a :class:`pufferfish.models.bayesnet.MarkovChain` started from
  its exact stationary law (the "stationary" prior; exact Gaussian elimination, ``O(k³)``).

Example (Appendix D.2, first row: counts 9, 0, 3, 1, 5 out of 18)::

    >>> [str(p) for p in smooth([[Fraction(1, 2), 0, Fraction(1, 6), Fraction(1, 18),
    ...                           Fraction(5, 18), 0]])[0]]
    ['49999/100000', '1/100000', '49999/300000', '49999/900000', '49999/180000', '1/100000']
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from pufferfish.models.bayesnet import MarkovChain, solve_stationary
from pufferfish.models.errors import ModelError

TAU = Fraction(1, 100_000)
"""Appendix D.2's smoothing tolerance τ = 10⁻⁵."""

Matrix = tuple[tuple[Fraction, ...], ...]


def transition_counts(sequences: Sequence[Sequence[int]], k: int) -> np.ndarray:
    """``counts[x, y]`` = steps ``x → y`` within the sequences (integer array ``k×k``)."""
    counts = np.zeros((k, k), dtype=np.int64)
    for n, seq in enumerate(sequences):
        s = np.asarray(seq, dtype=np.int64)
        if len(s) and (s.min() < 0 or s.max() >= k):
            raise ModelError(f"a state index is outside 0..{k - 1}", f"sequences.{n}")
        if len(s) > 1:
            np.add.at(counts, (s[:-1], s[1:]), 1)
    return counts


def empirical_matrix(counts: Sequence[Sequence[int]] | np.ndarray) -> Matrix:
    """Row-normalised counts as exact fractions; an all-zero row becomes uniform."""
    rows = []
    for x, row in enumerate(np.asarray(counts, dtype=object)):
        values = [int(c) for c in row]
        if any(c < 0 for c in values):
            raise ModelError("counts must be non-negative", f"counts.{x}")
        total = sum(values)
        if total == 0:
            rows.append(tuple(Fraction(1, len(values)) for _ in values))
        else:
            rows.append(tuple(Fraction(c, total) for c in values))
    return tuple(rows)


def add_others_state(matrix: Sequence[Sequence[Fraction]]) -> Matrix:
    """Appendix D.2: append a state "others" (zero column; row uniform over the old states)."""
    k = len(matrix)
    rows = [tuple(row) + (Fraction(0),) for row in matrix]
    rows.append(tuple(Fraction(1, k) for _ in range(k)) + (Fraction(0),))
    return tuple(rows)


def smooth(matrix: Sequence[Sequence[object]], tau: Fraction = TAU) -> Matrix:
    """Appendix D.2's additive smoothing, exactly (see the module docstring)."""
    tau = Fraction(tau)
    if tau < 0:
        raise ModelError("τ must be non-negative", "tau")
    out = []
    for x, row in enumerate(matrix):
        values = [Fraction(p) for p in row]
        if any(p < 0 for p in values):
            raise ModelError("entries must be non-negative", f"matrix.{x}")
        zeros = sum(1 for p in values if p == 0)
        mass = sum(values, Fraction(0))
        added = zeros * tau
        if zeros and added >= mass:
            raise ModelError(f"row {x} has {zeros} zeros: adding τ = {tau} to each needs more mass "
                             f"than its non-zero entries hold ({mass})", f"matrix.{x}")
        factor = 1 - added / mass if mass else Fraction(1)
        out.append(tuple(tau if p == 0 else p * factor for p in values))
    return tuple(out)


def fit_chain(sequences: Sequence[Sequence[int]], states: Sequence[str], length: int,
              tau: Fraction = TAU, others: bool = False, name: str = "fitted") -> MarkovChain:
    """§7.1.4's prior: counts → empirical matrix → (optional "others" state) → smoothing (D.2) →
    a homogeneous chain of ``length`` entries started from its exact stationary distribution."""
    k = len(states)
    matrix = empirical_matrix(transition_counts(sequences, k))
    labels = tuple(states)
    if others:
        matrix = add_others_state(matrix)
        labels = labels + ("others",)
    matrix = smooth(matrix, tau)
    pi = solve_stationary(matrix)
    return MarkovChain(labels, matrix, length, pi, name)
