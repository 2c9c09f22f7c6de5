"""Certified floating-point bounds of a quilt's max-influence, to screen quilts before the exact
search of the Markov Quilt Mechanism on a Bayesian network (Wang et al., Privacy-Preserving
Analysis of Correlated Data, §4, Algorithm 2).

The max-influence ``e(X_Q | X_i) = max log P(x_Q | a) / P(x_Q | b)`` (Definition 4.1) needs the
joint ``P(X_Q, X_i)``, which :meth:`FloatNetwork.joint` computes by variable elimination in
doubles (numpy) — the network's ancestors of ``Q ∪ {i}`` only, eliminated greedily as
:meth:`~pufferfish.models.bayesnet.BayesNet.joint_factor` does.  Every number is non-negative and
every operation a product or a sum, so each computed entry ``Ĵ`` of the joint satisfies
``|Ĵ − J| ≤ γ_D·J`` (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1, the bound of
a non-negative sum of products), ``D`` the number of roundings on any path from a CPT entry to the
result (counted generously: one for each CPT entry's rounding, and per elimination step the
number of factors multiplied plus the number of terms summed), provided nothing underflows.
Underflow is ruled out, not estimated: alongside each table the elimination carries its support
(the same elimination on 0/1 indicators, exact in doubles), and a table whose non-zero entries
are not all at least ``2^-900`` is refused (``None``: the caller computes exactly); a product term
that underflowed inside a sum whose result is at least ``2^-900`` changes it by at most
``2^-1074`` per term, which the bound adds relatively (``terms·2^-174``).  Exact zeros are known
from the support, so an infinite ratio is certified as such.

The ratios ``P(x_Q, a)·P(b) / (P(x_Q, b)·P(a))`` then carry a relative error of at most
``δ = 6(ρ + γ_M) + 8u`` (``ρ`` the joint's bound, ``M`` its entries, summed for ``P(a)``), so
the largest computed ratio ``r̂`` gives the certified ``r̂(1 − δ) ≤ max ratio ≤ r̂(1 + δ)``.

>>> from pufferfish.models.bayesnet import BayesNet
>>> net = BayesNet.from_cpts({"a": (), "b": ("a",)}, {"a": (0, 1), "b": (0, 1)},
...     {"a": {(): {0: "1/2", 1: "1/2"}}, "b": {(0,): {0: "3/4", 1: "1/4"},
...                                           (1,): {0: "1/4", 1: "3/4"}}})
>>> low, high = influence_ratio_bounds([FloatNetwork(net)], "a", ["b"])
>>> low <= 3 <= high and high - low < 1e-12
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import networkx as nx
import numpy as np

from pufferfish.models.bayesnet import BayesNet, Node
from pufferfish.verify.numerics.intervals import UNIT_ROUNDOFF

SMALLEST = 2.0 ** -900
"""Non-zero entries below this are refused (the elimination's bound assumes no underflow)."""

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _gamma(k: int) -> float:
    """``γ_k = k·u/(1 − k·u)`` (Higham, §3.1), rounded up generously."""
    return 2 * k * UNIT_ROUNDOFF / (1 - 2 * k * UNIT_ROUNDOFF)


class FloatNetwork:
    """A network's CPTs as arrays of doubles (each entry rounded to nearest), for
    :meth:`joint` by variable elimination with a certified relative error."""

    def __init__(self, net: BayesNet) -> None:
        self.net = net
        self.factors: list[tuple[tuple, np.ndarray]] = []
        for factor in net.factors():
            positions = [{x: k for k, x in enumerate(net.domains[v])} for v in factor.scope]
            table = np.zeros(tuple(len(net.domains[v]) for v in factor.scope))
            for key, p in factor.table.items():
                p = Fraction(p)
                table[tuple(positions[k][x] for k, x in enumerate(key))] = (p.numerator
                                                                             / p.denominator)
            self.factors.append((factor.scope, table))

    def joint(self, variables: Sequence[Node]) -> tuple[np.ndarray, np.ndarray, float] | None:
        """``(Ĵ, support, ρ)``: ``Ĵ[x]`` approximates ``P(X_variables = x)`` (axes in the order
        of ``variables``, values in domain order) with ``|Ĵ − J| ≤ ρ·J``; ``support`` is
        ``J > 0`` exactly.  ``None`` when some non-zero entry falls below :data:`SMALLEST`."""
        graph = self.net.graph
        relevant = set(variables)
        for v in list(relevant):
            relevant |= nx.ancestors(graph, v)
        factors = [(scope, table, (table > 0).astype(float)) for scope, table in self.factors
                   if scope[-1] in relevant]
        keep = set(variables)
        eliminate = [v for v in self.net.nodes if v in relevant and v not in keep]
        depth, terms = 1, 0
        while eliminate:
            def cost(v: Node) -> int:
                scope: set = set()
                for f in factors:
                    if v in f[0]:
                        scope |= set(f[0])
                return len(scope)
            var = min(eliminate, key=cost)
            eliminate.remove(var)
            involved = [f for f in factors if var in f[0]]
            factors = [f for f in factors if var not in f[0]]
            union = tuple(dict.fromkeys(v for f in involved for v in f[0]))
            result = tuple(v for v in union if v != var)
            table, support = _contract(involved, result)
            depth += len(involved) + len(self.net.domains[var])
            terms += table.size * len(self.net.domains[var])
            if not _clear_of_underflow(table, support):
                return None
            factors.append((result, table, support))
        target = tuple(variables)
        table, support = _contract(factors, target)
        depth += len(factors)
        if not _clear_of_underflow(table, support):
            return None
        return table, support > 0, 2 * _gamma(depth) + terms * 2.0 ** -174


def _contract(factors: list, result: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The product of ``factors`` summed down to the variables ``result`` (with supports)."""
    names = {v: _LETTERS[k] for k, v in enumerate(dict.fromkeys(
        [v for f in factors for v in f[0]] + list(result)))}
    inputs = ",".join("".join(names[v] for v in f[0]) for f in factors)
    formula = f"{inputs}->{''.join(names[v] for v in result)}"
    if not factors:
        return np.ones(()), np.ones(())
    return (np.einsum(formula, *(f[1] for f in factors)),
            np.einsum(formula, *(f[2] for f in factors)))


def _clear_of_underflow(table: np.ndarray, support: np.ndarray) -> bool:
    """Every entry of positive support is at least :data:`SMALLEST` (and none is infinite)."""
    positive = support > 0
    return bool(np.all(table[positive] >= SMALLEST)) and bool(np.all(np.isfinite(table)))


def influence_ratio_bounds(members: Sequence[FloatNetwork], node: Node,
                           quilt: Sequence[Node]) -> tuple[float, float] | None:
    """Certified ``(low, high)`` with ``low ≤ e^{e(X_Q | X_node)} ≤ high`` over the family's
    ``members`` (``high = inf`` when the ratio is certainly infinite, then ``low = inf`` too);
    ``None`` when a member's elimination is refused (:meth:`FloatNetwork.joint`)."""
    target = tuple(sorted(quilt, key=lambda v: (str(type(v)), v)))
    if not target:
        return 1.0, 1.0
    best = 1.0
    relative = 0.0
    for member in members:
        found = member.joint(list(target) + [node])
        if found is None:
            return None
        joint, support, rho = found
        values = joint.shape[-1]
        rows, rows_support = joint.reshape(-1, values), support.reshape(-1, values)
        marginal = rows.sum(axis=0)
        relative = max(relative, 6 * (rho + _gamma(rows.shape[0])) + 8 * UNIT_ROUNDOFF)
        present = [v for v in range(values) if rows_support[:, v].any()]
        for a in present:
            for b in present:
                if a == b:
                    continue
                if np.any(rows_support[:, a] & ~rows_support[:, b]):
                    return math.inf, math.inf
                both = rows_support[:, a]
                if not both.any():
                    continue
                ratios = (rows[both, a] * marginal[b]) / (rows[both, b] * marginal[a])
                best = max(best, float(ratios.max()))
    return best * (1 - relative), best * (1 + relative)


__all__ = ["FloatNetwork", "influence_ratio_bounds", "SMALLEST"]
