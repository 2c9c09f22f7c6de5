"""``W_∞`` between finite distributions on the line, with certificates
(Wang et al., Privacy-Preserving Analysis of Correlated Data, §3, Definition 3.1).

Definition 3.1: for probability measures μ, ν on the line, ``W_∞(μ, ν)`` is the least ``d`` such
that some coupling γ of μ and ν puts no mass on pairs ``(t, s)`` with ``|t − s| > d`` — "the
maximum distance any probability mass moves while transforming μ into ν".

* :func:`w_infinity` — ``W_∞`` with the **comonotone coupling**
  (:func:`pufferfish.verify.transport.couplings.comonotone_coupling`) as the upper-bound
  certificate and a **half-line** as the lower-bound certificate: a point ``a`` with
  ``μ((−∞, a]) > ν((−∞, a + d))`` (or the mirror image) forces every coupling to move mass by at
  least ``d`` (Strassen's criterion).  :meth:`WInfinityResult.verify` checks both exactly.
  Cost ``O((m + n) log(m + n))`` for supports of sizes ``m, n``.
* :func:`w_infinity_by_max_flow` — an independent cross-check: for each candidate distance (the
  ``m·n`` values ``|a − b|``) an exact integer max-flow (networkx) decides whether a coupling
  within that distance exists.  Cost ``O(mn · maxflow)``.

Example (§3, the flu example: Alice's count given ``X_i = 0`` and ``X_i = 1``):

>>> first = {0: "1/2", 1: "1/6", 2: "1/6", 3: "1/6"}
>>> second = {1: "1/4", 2: "1/4", 3: "1/4", 4: "1/4"}
>>> result = w_infinity(first, second)
>>> result.value, result.verify()
(Fraction(2, 1), True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from pufferfish.models.numbers import fraction_str
from pufferfish.verify.transport.couplings import (Atoms, Coupling, atoms, atoms_text,
                                                   comonotone_coupling, coupling_text,
                                                   verify_coupling)
from pufferfish.verify.report import Explained


@dataclass(frozen=True)
class HalfLine:
    """Lower-bound certificate: ``μ((−∞, point]) > ν((−∞, point + d))`` (side ``left``) or
    ``μ([point, ∞)) > ν((point − d, ∞))`` (side ``right``): some mass of μ must move by ``>= d``."""

    point: Fraction
    side: str

    def to_dict(self) -> dict:
        return {"point": fraction_str(self.point), "side": self.side}


@dataclass(repr=False, frozen=True)
class WInfinityResult(Explained):
    """``W_∞(first, second)`` with the comonotone coupling and a half-line lower bound."""

    value: Fraction
    coupling: Coupling
    lower_certificate: HalfLine | None
    first: Atoms
    second: Atoms

    @property
    def witness(self) -> tuple[Fraction, Fraction, Fraction] | None:
        """A coupled pair ``(t, s, mass)`` that moves mass by exactly ``value``."""
        for a, b, m in self.coupling:
            if abs(a - b) == self.value:
                return (a, b, m)
        return None

    def verify(self) -> bool:
        """Check the certificates exactly: the coupling has the right marginals, its largest
        displacement is ``value``, and (if ``value > 0``) the half-line forces ``>= value``."""
        return verify_coupling(self.coupling, self.first, self.second, self.value) and \
            verify_lower_certificate(self.lower_certificate, self.first, self.second, self.value)

    def to_dict(self) -> dict:
        witness = self.witness
        return {"w_infinity": fraction_str(self.value), "w_infinity_float": float(self.value),
                "first": atoms_text(self.first), "second": atoms_text(self.second),
                "coupling": coupling_text(self.coupling),
                "farthest_move": None if witness is None else coupling_text((witness,))[0],
                "lower_certificate": None if self.lower_certificate is None
                else self.lower_certificate.to_dict(), "certificate_verified": self.verify()}

    def explain(self) -> str:
        witness = self.witness
        text = f"W∞ = {fraction_str(self.value)}"
        if witness is not None and self.value:
            text += (f": the comonotone coupling moves mass {fraction_str(witness[2])} from "
                     f"{fraction_str(witness[0])} to {fraction_str(witness[1])}")
        return text


def verify_lower_certificate(certificate: HalfLine | None, first: Atoms, second: Atoms,
                             value: Fraction) -> bool:
    """Exactly: the half-line proves that every coupling moves some mass by ``>= value``."""
    if value == 0:
        return True
    if certificate is None:
        return False
    a = certificate.point
    if certificate.side == "left":
        return sum((p for v, p in first if v <= a), Fraction(0)) > \
            sum((p for v, p in second if v < a + value), Fraction(0))
    return sum((p for v, p in first if v >= a), Fraction(0)) > \
        sum((p for v, p in second if v > a - value), Fraction(0))


def w_infinity(first: Mapping, second: Mapping) -> WInfinityResult:
    """``W_∞`` between two finite distributions on the rationals, with certificates.

    >>> w_infinity({0: 1}, {"1/2": "1/2", 3: "1/2"}).value
    Fraction(3, 1)
    """
    p1, p2 = atoms(first, "first"), atoms(second, "second")
    coupling = comonotone_coupling(p1, p2)
    value = max((abs(a - b) for a, b, _ in coupling), default=Fraction(0))
    certificate = None
    if value:
        a, b, _ = next(c for c in coupling if abs(c[0] - c[1]) == value)
        certificate = HalfLine(a, "left" if b > a else "right")
    return WInfinityResult(value, coupling, certificate, p1, p2)


def w_infinity_by_max_flow(first: Mapping, second: Mapping) -> Fraction:
    """Independent cross-check of :func:`w_infinity`: least candidate ``d = |a − b|`` for which an
    exact integer max-flow saturates the bipartite graph with edges ``|a − b| <= d``.

    >>> w_infinity_by_max_flow({0: 1}, {"1/2": "1/2", 3: "1/2"})
    Fraction(3, 1)
    """
    import networkx as nx

    p1, p2 = atoms(first, "first"), atoms(second, "second")
    scale = lcm(*(p.denominator for _, p in p1 + p2))
    for d in sorted({abs(a - b) for a, _ in p1 for b, _ in p2}):
        graph = nx.DiGraph()
        for a, p in p1:
            graph.add_edge("source", ("L", a), capacity=int(p * scale))
        for b, q in p2:
            graph.add_edge(("R", b), "sink", capacity=int(q * scale))
        for a, _ in p1:
            for b, _ in p2:
                if abs(a - b) <= d:
                    graph.add_edge(("L", a), ("R", b), capacity=scale)
        if nx.maximum_flow_value(graph, "source", "sink") == scale:
            return d
    raise AssertionError("the largest distance always admits a coupling")  # pragma: no cover
