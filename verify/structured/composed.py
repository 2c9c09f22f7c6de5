"""The output law of a joint release, one mechanism's noise at a time.

A composition ``M = (M_1, …, M_m)`` runs its mechanisms independently on one dataset (Bai et al.,
Composition for Pufferfish Privacy, §2.3), so given the packed statistic
(:mod:`~pufferfish.verify.structured.statistics`) ``code = (c_1, …, c_r)`` of the components the
mechanisms read,

    ``Pr[s ∧ M = (ω_1, …, ω_m) | θ] = Σ_code Pr[s ∧ code | θ] · Π_i Pr[M_i = ω_i | key_i(code)]``.

Summing the code's components out one mechanism at a time is variable elimination on this
product: with ``T_0[code] = Pr[s ∧ code | θ]`` (the law a calibrated junction tree gives,
:class:`~pufferfish.verify.structured.elimination.JunctionTree`), mechanism ``i`` replaces the
components it reads by its output,

    ``T_i[rest, ω_i] = Σ_{c_i} T_{i−1}[rest, c_i] · K_i[c_i, ω_i]``,

``K_i`` the mechanism's kernel over its own codes, keeping a component that a later mechanism
also reads (then ``T_i[rest, c_i, ω_i]``, with the rows of the other values of ``c_i`` set to
zero).  Each step is a matrix product: exact in integers (FLINT's ``fmpz_mat``, the law's
numerators times each kernel's numerators over one common denominator per kernel), or in
floating point for screening.  Two noisy queries with ``n_1`` and ``n_2`` codes and ``o_1``,
``o_2`` outputs cost ``n_2·n_1·o_1 + o_1·n_2·o_2`` products, instead of building a product
distribution for each of the ``n_1·n_2`` joint codes.

**Screening.**  A maximum over outputs (:meth:`ComposedMixture.ratio_candidates`) needs exact
masses only where it may be attained.  The float elimination runs on non-negative numbers only:
the law's numerators ``N_k`` scaled by one power of two (``⌊N_k / 2^h⌋`` converted to a double, so
at most one unit of the scaled law lost per code plus a relative ``u = 2^-53``), and kernels
rounded to nearest (relative ``u``, or an absolute ``2^-1075`` below the normal range).  With no
subtraction, every computed output ``x̂`` satisfies ``|x̂ − x| ≤ ρ·x + A`` for ``x`` the exact
scaled output, ``ρ = Σ_i dot_error_factor(n_i) + 8u·(m + 1)`` (Higham, *Accuracy and Stability
of Numerical Algorithms*, §3.1: a dot product of ``n`` non-negative terms in any order) and
``A = 4·(codes + 1)`` scaled units: the truncation error (at most 1 per code) is carried through
kernels whose entries are at most 1, so at most ``codes`` per output, and the underflows add
far less.  An output is dropped only when its ratio's certified upper bound is below the largest
certified lower bound of another output's ratio (both from ``[x̂(1 − ρ) − A, x̂(1 + ρ) + A]``,
widened by ``4u`` for the division's own rounding): a float never decides a level, it only
rules out outputs that provably cannot attain it, and the exact integers decide among the rest.

The outputs are listed as the mixture over joint codes lists them — the outputs of positive
probability, in the order in which they first appear when the codes of positive probability are
read in increasing order and each code's distribution in its own order
(:func:`~pufferfish.models.distribution.product_distribution`) — so that a maximum over outputs
finds the same witness on ties.

>>> from pufferfish.api import load
>>> from pufferfish.models.mechanisms import compose
>>> from pufferfish.verify.structured.laws import output_laws
>>> model = load("quickstart.json")
>>> joint = compose(list(model.mechanisms.values()))
>>> laws = output_laws(model, joint)["sticky"]
>>> type(laws._keys).__name__, len(laws.outputs), str(sum(laws.exact(None)))
('ComposedMixture', 32, '1')
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import product as cartesian
from math import lcm

import numpy as np
from flint import fmpq, fmpq_poly, fmpz, fmpz_mat

from pufferfish.models.errors import TooLargeError
from pufferfish.models.mechanisms import Composition, Mechanism, Repeated
from pufferfish.verify.numerics.intervals import UNIT_ROUNDOFF, dot_error_factor
from pufferfish.verify.structured.statistics import Statistic, part_reads, statistic_of

Mixture = object
"""A mechanism's mixture over its own codes: ``outputs`` and ``apply(law) -> [mass per output]``
(:class:`~pufferfish.verify.structured.laws.GeometricConvolution`, the generic key rows, or a
:class:`ComposedMixture`)."""

PartMixture = Callable[[Mechanism, Statistic, fmpq_poly, int], Mixture]

_SCALED_BITS = 990
"""The scaled law's largest numerator has at most this many bits (doubles reach 2^1024)."""


class _Step:
    """One mechanism's elimination step: the components it reads (indices into the
    composition's statistic, in the order of its own statistic), those a later mechanism reads
    too (kept), and its kernel over its own codes — exact (integers over ``denominator``) and
    rounded to doubles — one matrix per assignment of the kept components."""

    def __init__(self, reads: tuple[int, ...], kept: tuple[int, ...], own: Statistic,
                 rows: Sequence[Sequence[fmpq] | None], outputs: int) -> None:
        self.reads, self.kept, self.codes, self.outputs = reads, kept, own.codes, outputs
        self.denominator = 1
        for row in rows:
            for p in row or ():
                self.denominator = lcm(self.denominator, int(p.q))
        zero_row = [0] * outputs
        integers = [[int(p.p) * (self.denominator // int(p.q)) for p in row] if row else zero_row
                    for row in rows]
        floats = np.array([[int(p.p) / int(p.q) for p in row] if row else zero_row
                           for row in rows], dtype=float).reshape(self.codes, outputs)
        positions = [reads.index(j) for j in kept]
        self.kept_shape = tuple(own.ranges[k] for k in positions)
        self._columns: dict = {}    # (kept assignment, columns) -> the restricted fmpz_mat
        self.exact: list[list[list[int]]] = []
        self.rounded: list[np.ndarray] = []
        for assignment in cartesian(*(range(own.ranges[k]) for k in positions)):
            inside = [all((code // own.radices[k]) % own.ranges[k] == v
                          for k, v in zip(positions, assignment)) for code in range(self.codes)]
            self.exact.append([row if keep else zero_row for row, keep in zip(integers, inside)])
            self.rounded.append(floats * np.array(inside, dtype=float)[:, None])

    def exact_product(self, rows: np.ndarray | fmpz_mat, columns: Sequence[int]) -> np.ndarray:
        """``rows · K`` over the kept assignments, in integers, for the output ``columns``."""
        left = (rows if isinstance(rows, fmpz_mat)
                else fmpz_mat(rows.shape[0], self.codes, rows.reshape(-1).tolist()))
        result = np.empty((left.nrows(), len(self.exact), len(columns)), dtype=object)
        for k, matrix in enumerate(self.exact):
            right = self._columns.get((k, tuple(columns)))
            if right is None:
                right = fmpz_mat(self.codes, len(columns),
                                 [row[c] for row in matrix for c in columns])
                if len(self._columns) > 64:
                    self._columns.clear()
                self._columns[(k, tuple(columns))] = right
            result[:, k, :] = np.array((left * right).entries(), dtype=object).reshape(
                left.nrows(), len(columns))
        return result

    def rounded_product(self, rows: np.ndarray) -> np.ndarray:
        """``rows · K`` in doubles (numpy's own loops: a threaded BLAS spins on a loaded
        machine for products this small)."""
        return np.stack([np.einsum("ij,jk->ik", rows, matrix) for matrix in self.rounded],
                        axis=1)


class ComposedMixture:
    """``Pr[s ∧ M = ω | θ]`` for every output ``ω`` of a composition, from the law of its
    packed statistic, by eliminating the statistic's components one mechanism at a time (see the
    module's docstring).  Built by :meth:`of`; ``apply(law)`` maps a law over the composition's
    codes (an ``fmpq_poly``) to the exact masses of ``outputs``; :meth:`exact_at` computes some
    of them, :meth:`bounds` certified floating-point bounds of all of them."""

    def __init__(self, statistic: Statistic, steps: list[_Step], parts: list[Mechanism],
                 repeated: bool) -> None:
        self.statistic, self.steps, self.parts, self.repeated = statistic, steps, parts, repeated
        self.part_outputs: list[list] = []
        self.outputs: list = []
        self._flat = np.zeros(0, dtype=np.int64)  # each output's index in the parts' product
        self.strides = [1] * len(steps)
        for i in reversed(range(len(steps) - 1)):
            self.strides[i] = self.strides[i + 1] * steps[i + 1].outputs
        self.denominator = 1
        for step in steps:
            self.denominator *= step.denominator
        self.relative = (sum(dot_error_factor(step.codes) for step in steps)
                         + 8 * UNIT_ROUNDOFF * (len(steps) + 1))
        self.absolute = 4.0 * (statistic.codes + 1)
        self._recent: list[tuple[fmpq_poly, list]] = []
        self._rows: list[tuple[fmpq_poly, fmpz_mat]] = []

    @classmethod
    def of(cls, mechanism: Composition, statistic: Statistic, total: fmpq_poly,
           max_outputs: int, part_mixture: PartMixture) -> "ComposedMixture | None":
        """The mixture of ``mechanism`` (whose packed statistic is ``statistic`` and whose law
        under the prior is ``total``), each part's kernel from its own mixture
        ``part_mixture(part, its statistic, its law, max_outputs)``; ``None`` when eliminating
        one mechanism at a time would hold more than ``max_outputs`` values at once (then the
        mixture over the joint codes, which refuses more than ``max_outputs`` outputs,
        applies)."""
        if isinstance(mechanism, Repeated) and mechanism.times > max_outputs:
            return None
        universe = statistic.universe
        reads = part_reads(mechanism, universe)
        parts = list(mechanism.mechanisms)
        coefficients = total.coeffs()
        last_reader = {j: i for i, components in enumerate(reads) for j in components}
        own_cache: dict[int, tuple[Statistic, Mixture, list]] = {}
        remaining = list(statistic.ranges)
        done: list[int] = []
        steps: list[_Step] = []
        part_outputs = []
        for i, (part, components) in enumerate(zip(parts, reads)):
            if id(part) not in own_cache:
                own = statistic_of(part, universe, statistic.codes)
                if tuple(own.ranges) != tuple(statistic.ranges[j] for j in components):
                    return None
                used = _used_codes(coefficients, statistic, components, own)
                mixture = part_mixture(part, own, fmpq_poly([int(u) for u in used]),
                                       max_outputs)
                if own.codes * len(mixture.outputs) > max_outputs + statistic.codes:
                    return None
                own_cache[id(part)] = (own, mixture, [_row(mixture, code) if u else None
                                                      for code, u in enumerate(used)])
            own, mixture, rows = own_cache[id(part)]
            kept = tuple(j for j in components if last_reader[j] > i)
            held = len(mixture.outputs)
            for j, size in enumerate(remaining):
                if j not in components or j in kept:
                    held *= size
            for size in done:
                held *= size
            if held > max_outputs + statistic.codes:
                return None
            steps.append(_Step(components, kept, own, rows, len(mixture.outputs)))
            part_outputs.append(mixture.outputs)
            for j in components:
                if j not in kept:
                    remaining[j] = 1
            done.append(len(mixture.outputs))
        composed = cls(statistic, steps, parts, isinstance(mechanism, Repeated))
        composed.part_outputs = part_outputs
        composed._list_outputs(mechanism, total, max_outputs)
        return composed

    # -------------------------------------------------------------------------------- exact

    def apply(self, law: fmpq_poly) -> list[fmpq]:
        """Every output's exact mass ``Σ_code law[code] · Pr[M = ω | key(code)]``."""
        values = self._exact_products(law, [list(range(s.outputs)) for s in self.steps])
        denominator = fmpz(self.denominator) * law.denom()
        return [fmpq(values[k], denominator) for k in self._flat]

    def exact_at(self, law: fmpq_poly, indices: Sequence[int]) -> dict[int, fmpq]:
        """The exact masses of the outputs at ``indices`` (into ``outputs``): each mechanism's
        kernel restricted to the outputs of its own that those outputs use."""
        flats = [int(self._flat[o]) for o in indices]
        digits = [[(flat // stride) % step.outputs for flat in flats]
                  for stride, step in zip(self.strides, self.steps)]
        columns = [sorted(set(d)) for d in digits]
        values = self._exact_products(law, columns)
        places = [{c: k for k, c in enumerate(cs)} for cs in columns]
        widths = [len(cs) for cs in columns]
        denominator = fmpz(self.denominator) * law.denom()
        found = {}
        for n, o in enumerate(indices):
            flat = 0
            for i, width in enumerate(widths):
                flat = flat * width + places[i][digits[i][n]]
            found[o] = fmpq(values[flat], denominator)
        return found

    def _exact_products(self, law: fmpq_poly, columns: list[list[int]]) -> np.ndarray:
        """The numerators (over ``law.denom() · denominator``) on the product of each
        mechanism's output ``columns``, flat in C order."""
        numerators = self._numerators(law)
        first = self.steps[0]
        if first.reads == tuple(range(len(first.reads))):
            # the first mechanism reads the fastest components: its rows are the law's
            # numerators as they are, one integer matrix per law (kept for both directions)
            left = self._first_rows(law, numerators)
            return self._eliminate(None, lambda step, i, rows: step.exact_product(
                left if i == 0 else rows, columns[i]), [len(c) for c in columns])
        return self._eliminate(np.array(numerators, dtype=object), lambda step, i, rows:
                               step.exact_product(rows, columns[i]),
                               [len(c) for c in columns])

    def _first_rows(self, law: fmpq_poly, numerators: list) -> fmpz_mat:
        for held, rows in self._rows:
            if held is law:
                return rows
        codes = self.steps[0].codes
        rows = fmpz_mat(len(numerators) // codes, codes, numerators)
        self._rows = [(law, rows)] + self._rows[:3]
        return rows

    def _numerators(self, law: fmpq_poly) -> list:
        """The law's numerators over its denominator, one per code (kept for the last few
        laws: screening and the exact values of both directions of a pair read them)."""
        for held, numerators in self._recent:
            if held is law:
                return numerators
        numerators = law.numer().coeffs()
        numerators += [0] * (self.statistic.codes - len(numerators))
        self._recent = [(law, numerators)] + self._recent[:3]
        return numerators

    # -------------------------------------------------------------------------------- screening

    def bounds(self, law: fmpq_poly) -> tuple[np.ndarray, np.ndarray, int]:
        """Certified ``(lower, upper, h)``: bounds of every output's mass in units of
        ``2^h / law.denom()``, one ``h`` per law (common to all outputs, so that ratios of two
        outputs of one law, and comparisons of such ratios, need no unit)."""
        numerators = self._numerators(law)
        shift = max(0, int(max(numerators)).bit_length() - _SCALED_BITS)
        scaled = np.array([float(c) for c in numerators] if not shift
                          else [float(c >> shift) for c in numerators], dtype=float)
        values = self._eliminate(scaled, lambda step, i, rows: step.rounded_product(rows),
                                 [s.outputs for s in self.steps])[self._flat]
        lower = np.maximum(values * (1 - self.relative) - self.absolute, 0.0)
        upper = values * (1 + self.relative) + self.absolute
        return lower, upper, shift

    @staticmethod
    def ratio_candidates(first: tuple[np.ndarray, np.ndarray, int],
                         second: tuple[np.ndarray, np.ndarray, int]) -> list[int]:
        """The outputs whose ratio ``first/second`` may be the largest, from :meth:`bounds` of
        two laws: every output except those whose ratio's upper bound is below the largest
        lower bound of a ratio.  An output whose ``second`` lower bound is 0 stays (its ratio
        may be infinite)."""
        low_first, high_first, _ = first
        low_second, high_second, _ = second
        bounded = low_second > 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            lower = np.where(bounded, low_first / high_second, 0.0) * (1 - 4 * UNIT_ROUNDOFF)
            upper = np.where(bounded, high_first / np.where(bounded, low_second, 1.0),
                             np.inf) * (1 + 4 * UNIT_ROUNDOFF)
        best = lower.max(initial=0.0)
        return [int(o) for o in np.nonzero(~bounded | (upper >= best))[0]]

    # -------------------------------------------------------------------------------- shared

    def _eliminate(self, values: np.ndarray | None, product, widths: list[int]) -> np.ndarray:
        """The elimination of the module's docstring on a flat vector over the codes, with
        ``product(step, i, rows)`` for each mechanism's matrix product (``values`` ``None``:
        the first product holds its rows already); flat over the product of the mechanisms'
        outputs (``widths`` of them each), in C order."""
        ranges = self.statistic.ranges
        # axis a holds component r-1-a: the packed code's first component varies fastest
        shape = tuple(reversed(ranges))
        tensor = values.reshape(shape) if values is not None else None  # None: rows in product
        axes: list[tuple[str, int]] = [("component", j) for j in reversed(range(len(ranges)))]
        for i, step in enumerate(self.steps):
            moved = [("component", j) for j in reversed(step.reads)]
            others = [a for a in axes if a not in moved]
            if tensor is None:
                other_shape = shape[:len(others)]
                mixed = product(step, i, None)
            else:
                tensor = tensor.transpose([axes.index(a) for a in others + moved])
                other_shape = tensor.shape[:len(others)]
                mixed = product(step, i, tensor.reshape(-1, step.codes))
            tensor = mixed.reshape(other_shape + step.kept_shape + (widths[i],))
            axes = others + [("component", j) for j in step.kept] + [("output", i)]
        return tensor.reshape(-1)

    def _list_outputs(self, mechanism: Composition, total: fmpq_poly, max_outputs: int) -> None:
        """The outputs of positive mass under ``total``, in the order of first appearance over
        the codes of positive mass (each code's product distribution in its own order)."""
        everything = [list(range(s.outputs)) for s in self.steps]
        positive = {int(k) for k, mass in enumerate(self._exact_products(total, everything))
                    if mass}
        if len(positive) > max_outputs:
            raise TooLargeError(f"mechanism {mechanism.name!r} has more than "
                                f"{max_outputs:,} outputs; raise the limit with --max-outputs",
                                f"mechanisms.{mechanism.name}")
        index_of = [{output: k for k, output in enumerate(outputs)}
                    for outputs in self.part_outputs]
        seen: set[int] = set()
        order: list[int] = []
        for code, coefficient in enumerate(total.coeffs()):
            if len(order) == len(positive):
                break
            if not coefficient:
                continue
            key = self.statistic.key(code)
            keys: tuple[Hashable, ...] = ((key,) * len(self.parts) if self.repeated else key)
            supports = [[index_of[i][output] * self.strides[i]
                         for output in part.key_distribution(part_key)]
                        for i, (part, part_key) in enumerate(zip(self.parts, keys))]
            for combination in cartesian(*supports):
                flat = sum(combination)
                if flat not in seen:
                    seen.add(flat)
                    order.append(flat)
        self._flat = np.array(order, dtype=np.int64)
        self.outputs = [tuple(self.part_outputs[i][(flat // self.strides[i])
                                                   % self.steps[i].outputs]
                              for i in range(len(self.steps))) for flat in order]


def _row(mixture: Mixture, code: int) -> list[fmpq]:
    """The mixture's kernel row of one code: the masses of the law ``z^code``."""
    point_mass = getattr(mixture, "point_mass", None)
    if point_mass is not None:
        return list(point_mass(code))
    return list(mixture.apply(fmpq_poly([0] * code + [1])))


def _used_codes(coefficients: list, statistic: Statistic, components: tuple[int, ...],
                own: Statistic) -> list[bool]:
    """Which of a part's own codes some joint code of positive mass maps to."""
    used = [False] * own.codes
    for code, coefficient in enumerate(coefficients):
        if coefficient:
            own_code = 0
            for k, j in enumerate(components):
                own_code += ((code // statistic.radices[j]) % statistic.ranges[j]) * own.radices[k]
            used[own_code] = True
    return used


__all__ = ["ComposedMixture"]
