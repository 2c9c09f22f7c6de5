"""Per-entry DP of a mechanism that reads a decomposable statistic, without listing the universe
(Bai et al., Composition for Pufferfish Privacy, §2.1, Definition 2).

>>> from pufferfish.api import load
>>> model = load("quickstart.json")
>>> structured_entry_dp(model.universe, model.mechanisms["sum"]).epsilon
'log(2)'
"""

from __future__ import annotations

from fractions import Fraction

from flint import fmpq

from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.numbers import INFINITY, Ratio
from pufferfish.models.universe import Universe
from pufferfish.verify.privacy.dp import DPResult
from pufferfish.verify.structured.elimination import EXACT
from pufferfish.verify.structured.laws import GeometricConvolution
from pufferfish.verify.structured.statistics import (DEFAULT_MAX_CODES, Statistic,
                                                     packed_weights, statistic_of)


def _fraction(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def structured_entry_dp(universe: Universe, mechanism: Mechanism, label: str = "entry",
                        max_codes: int = DEFAULT_MAX_CODES) -> DPResult:
    """Per-entry DP (Bai et al., Composition for Pufferfish Privacy, §2.1, Definition 2) without
    listing the universe: neighbours differ at one attribute ``v``, so their codes are
    ``c = a + c_v(x)`` and ``c + δ`` with ``δ = c_v(x') − c_v(x)`` and ``a`` a code of the other
    attributes.  The codes of the other attributes are a sumset, kept as a bit set
    (``O(n · codes²/64)`` to build for ``n`` attributes); the pairs ``(c, c + δ)`` are collected
    per ``δ`` as bit sets too, and each distinct pair of kernel keys is compared once over its
    outputs (a geometric noise's rows read off its kernel).  The witness datasets are
    rebuilt from the sumsets.  ``pairs_checked`` counts the ordered neighbour pairs the level
    covers (``|𝒰|·Σ_v (d_v − 1)``)."""
    statistic = statistic_of(mechanism, universe, max_codes)
    weights = packed_weights(statistic)
    n = universe.width
    prefix = [1]                      # prefix[v]: codes of attributes < v, as a bit set
    for v in range(n):
        prefix.append(_sumset(prefix[-1], set(weights[v].values())))
    suffix = [1] * (n + 1)            # suffix[v]: codes of attributes >= v
    for v in range(n - 1, -1, -1):
        suffix[v] = _sumset(suffix[v + 1], set(weights[v].values()))
    starts: dict[int, int] = {}       # δ -> the codes c with a neighbour at c + δ
    for v in range(n):
        others = _combine(prefix[v], suffix[v + 1])
        for x, wx in weights[v].items():
            for y, wy in weights[v].items():
                if x != y:
                    starts[wy - wx] = starts.get(wy - wx, 0) | (others << wx)
    pairs: dict[tuple, tuple[int, int]] = {}
    for delta, codes in starts.items():
        for code in _bits(codes):
            key, other = statistic.key(code), statistic.key(code + delta)
            if key != other:
                pairs.setdefault((key, other), (code, delta))
    rows = _DPRows(mechanism, statistic)
    best = None  # (numerator, denominator, output, code, δ) of the worst ratio
    for key, other in pairs:
        row, other_row = rows.of(key), rows.of(other)
        for output, p in row.items():
            q = other_row.get(output, 0)
            if q and type(p) is type(q) is fmpq:  # the common case, without conversions
                num, den = p.p * q.q, p.q * q.p
            else:
                num, den = _cross(p, q)
            if best is None or num * best[1] > best[0] * den:
                best = (num, den, output, *pairs[(key, other)], p, q)
                if not den:
                    break
        if best is not None and not best[1]:
            break
    neighbours = universe.size * sum(len(d) - 1 for d in universe.domains)
    if best is None:
        return DPResult(mechanism.name, label, Fraction(1), pairs_checked=neighbours)
    num, den, output, code, delta, p, q = best
    v, x, y, a = _neighbours_at(weights, prefix, suffix, code, delta)
    dataset = _dataset_with(universe, weights, prefix, suffix, v, x, a)
    neighbour = dataset[:v] + (y,) + dataset[v + 1:]
    ratio: Ratio = INFINITY if not den else max(Fraction(1), Fraction(int(num), int(den)))
    return DPResult(mechanism.name, label, ratio, dataset, neighbour, output, _as_fraction(p),
                    _as_fraction(q), neighbours)


class _DPRows:
    """Kernel rows by key, as ``{output: probability}``: a geometric noise's row read off its
    kernel (exact ``fmpq``, :meth:`GeometricConvolution.point_mass`), any other mechanism's from
    its key."""

    def __init__(self, mechanism: Mechanism, statistic: Statistic) -> None:
        self.mechanism, self.statistic = mechanism, statistic
        self.convolution = GeometricConvolution.of(mechanism, statistic, EXACT)
        self.rows: dict = {}

    def of(self, key) -> dict:
        row = self.rows.get(key)
        if row is None:
            if self.convolution is not None:
                law = self.convolution.point_mass(key - self.statistic.offsets[0])
                row = {y: p for y, p in zip(self.convolution.outputs, law) if p}
            else:
                row = dict(self.mechanism.key_distribution(key).items())
            self.rows[key] = row
        return row


def _cross(p, q) -> tuple:
    """``p/q`` as a pair of integers (``fmpq`` or ``Fraction``)."""
    if isinstance(p, Fraction) or isinstance(q, Fraction | int):
        p, q = Fraction(_as_fraction(p)), Fraction(_as_fraction(q))
        return p.numerator * q.denominator, p.denominator * q.numerator
    return p.p * q.q, p.q * q.p


def _as_fraction(value) -> Fraction:
    return value if isinstance(value, Fraction | int) else _fraction(value)


def _neighbours_at(weights, prefix, suffix, code: int, delta: int) -> tuple:
    """An attribute ``v``, values ``x → y`` with ``c_v(y) − c_v(x) = δ``, and the code ``a`` of
    the other attributes, with ``a + c_v(x) = code``."""
    for v in range(len(weights)):
        others = _combine(prefix[v], suffix[v + 1])
        for x, wx in weights[v].items():
            for y, wy in weights[v].items():
                if x != y and wy - wx == delta and code >= wx and others >> (code - wx) & 1:
                    return v, x, y, code - wx
    raise AssertionError("a pair of codes without neighbours")


def _sumset(codes: int, steps: set[int]) -> int:
    out = 0
    for step in steps:
        out |= codes << step
    return out


def _combine(first: int, second: int) -> int:
    """The sumset of two bit sets of codes."""
    if first.bit_count() > second.bit_count():
        first, second = second, first
    return _sumset(second, set(_bits(first)))


def _bits(codes: int):
    """The codes in a bit set, in increasing order."""
    for position, bit in enumerate(bin(codes)[:1:-1]):
        if bit == "1":
            yield position


def _dataset_with(universe: Universe, weights, prefix, suffix, v: int, x, code: int) -> tuple:
    """A dataset with ``D_v = x`` whose other attributes have code ``code`` (from the sumsets:
    attributes before ``v`` take a part in ``prefix[v]``, the rest in ``suffix[v + 1]``)."""
    values = [None] * universe.width
    values[v] = x
    split = next(a for a in _bits(prefix[v]) if code - a >= 0 and suffix[v + 1] >> (code - a) & 1)
    remaining = code - split
    for u in range(v + 1, universe.width):     # walk forward through the suffix
        for value, w in weights[u].items():
            if remaining - w >= 0 and suffix[u + 1] >> (remaining - w) & 1:
                values[u], remaining = value, remaining - w
                break
    remaining = split
    for u in range(v - 1, -1, -1):             # and backward through the prefix
        for value, w in weights[u].items():
            if remaining - w >= 0 and prefix[u] >> (remaining - w) & 1:
                values[u], remaining = value, remaining - w
                break
    return tuple(values)


__all__ = ["structured_entry_dp"]
