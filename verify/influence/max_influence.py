"""Max-influence of one variable on a set of variables, exactly over a finite prior class.

Source: Bai et al., Composition for Pufferfish Privacy, §6.1 Definition 6, which is Wang et al.,
Privacy-Preserving Analysis of Correlated Data, §4 Definition 4.1 (the Markov Quilt Mechanism's
``e(X_Q | X_i)``):

    ``e_Θ(X_A | X_i) = sup_θ max_{a, b, x_A} log P(X_A = x_A | X_i = a, θ) / P(X_A = x_A | X_i = b, θ)``

over values ``a ≠ b`` with ``P(X_i = a | θ), P(X_i = b | θ) > 0`` (a value of probability 0 under
a prior imposes nothing for it).  ``x_A`` with ``P(x_A | a, θ) = 0`` imposes nothing;
``P(x_A | a, θ) > 0 = P(x_A | b, θ)`` gives an infinite ratio.  The value is ``log(max_ratio)`` for
an exact rational ``max_ratio >= 1`` (or :data:`~pufferfish.models.numbers.INFINITY`).

One computation, :func:`max_influence_of_joints`, works on the joint tables
``P(X_A = x_A, X_i = a | θ)`` of each member θ of the class; the two front ends build those
tables from the class they are given:

* :func:`pufferfish.verify.influence.curves.max_influence` — a Pufferfish model's finite priors
  over data sets (marginalised onto ``A ∪ {i}``);
* :func:`network_max_influence` — a Bayesian network or a finite family of them (variable
  elimination, :meth:`pufferfish.models.bayesnet.BayesNet.joint_factor`).

Cost: ``O(|Θ| · d² · |joint|)`` exact operations after the joint tables, ``d`` the number of
values of ``X_i`` and ``|joint|`` the number of positive entries of a table.

>>> from fractions import Fraction as F
>>> joint = {(0, 0): F(3, 8), (1, 0): F(1, 8), (0, 1): F(1, 8), (1, 1): F(3, 8)}
>>> result = max_influence_of_joints("x1", ("x2",), [("chain", joint, (0, 1))])
>>> result.epsilon, result.witness.values, result.witness.target_values
('log(3)', (0, 1), (0,))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from pufferfish.models.bayesnet import BayesNet, BayesNetFamily, Node
from pufferfish.models.mechanisms import jsonable_output
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.verify.report import Explained

JointTable = Mapping[tuple, Fraction]
"""``{(x_A, a): P(X_A = x_A, X_i = a | θ)}`` with ``x_A`` a tuple in target order."""


@dataclass(repr=False, frozen=True)
class InfluenceWitness(Explained):
    """The member ``prior``, values ``(a, b)`` of the source and ``x_A`` attaining the maximum,
    with ``p_first = P(x_A | a)`` and ``p_second = P(x_A | b)`` under that member."""

    prior: str
    values: tuple
    target_values: tuple
    p_first: Fraction
    p_second: Fraction

    def to_dict(self) -> dict:
        return {"prior": self.prior, "values": jsonable_output(self.values),
                "target_values": jsonable_output(self.target_values),
                "p_given_first": fraction_str(self.p_first),
                "p_given_second": fraction_str(self.p_second)}

    def explain(self) -> str:
        return (f"under {self.prior}: X_i = {self.values[0]!r} vs {self.values[1]!r}, "
                f"x_A = {self.target_values} ({fraction_str(self.p_first)} vs "
                f"{fraction_str(self.p_second)})")


@dataclass(repr=False, frozen=True)
class MaxInfluence(Explained):
    """``e_Θ(X_A | X_i) = log(max_ratio)`` exactly, with the worst case as witness (``None`` when
    the maximum is the trivial ratio 1)."""

    source: Node
    target: tuple
    max_ratio: Ratio
    witness: InfluenceWitness | None

    @property
    def epsilon(self) -> str:
        """``max_ratio`` as the text ``log(r)`` (``"0"``, ``"inf"``)."""
        return epsilon_str(self.max_ratio)

    def to_dict(self) -> dict:
        return {"check": "max_influence", "source": _json_node(self.source),
                "target": [_json_node(v) for v in self.target],
                "max_ratio": fraction_str(self.max_ratio), "epsilon": self.epsilon,
                "epsilon_float": epsilon_float(self.max_ratio),
                "witness": None if self.witness is None else self.witness.to_dict()}

    def explain(self) -> str:
        text = f"e(X_{list(self.target)} | X_{self.source}) = {self.epsilon}"
        return text + (f"; {self.witness.explain()}" if self.witness else "")


def _json_node(node: Node) -> int | str:
    return node if isinstance(node, int) and not isinstance(node, bool) else str(node)


def max_influence_of_joints(source: Node, target: Sequence[Node],
                            members: Iterable[tuple[str, JointTable, Sequence[object]]]
                            ) -> MaxInfluence:
    """Definition 6 / Definition 4.1 from each member's joint table of ``(X_A, X_i)``.

    ``members`` yields ``(name, joint, source_values)``; ``source_values`` orders the values of
    ``X_i`` (ties keep the first case found: members, then ``a``, ``b``, then the table's order).
    ``P(x_A|a)/P(x_A|b) = P(x_A, a) P(b) / (P(x_A, b) P(a))``.  An empty target has influence 0.
    """
    target = tuple(target)
    best = (1, 1)      # the largest ratio so far, as integers (numerator, denominator)
    witness: InfluenceWitness | None = None
    if not target:
        return MaxInfluence(source, target, Fraction(1), None)
    for name, joint, source_values in members:
        # the member's joint scaled to integers: every ratio below is one of integers (the scale
        # cancels), compared by cross-multiplication, without normalising a Fraction
        scale = math.lcm(*(Fraction(p).denominator for p in joint.values() if p))
        p_source: dict = {}
        rows: dict = {}
        for key, p in joint.items():
            if not p:
                continue
            x_target, value = key[:-1], key[-1]
            mass = int(p * scale)
            p_source[value] = p_source.get(value, 0) + mass
            rows.setdefault(x_target, {})[value] = mass
        values = [v for v in source_values if p_source.get(v)]
        for a in values:
            for b in values:
                if a == b:
                    continue
                source_a, source_b = p_source[a], p_source[b]
                for x_target, row in rows.items():
                    p_a = row.get(a)
                    if not p_a:
                        continue
                    p_b = row.get(b, 0)
                    numerator, denominator = p_a * source_b, p_b * source_a
                    if numerator * best[1] > best[0] * denominator:
                        best = (numerator, denominator)
                        witness = InfluenceWitness(name, (a, b), x_target,
                                                   Fraction(p_a, source_a), Fraction(p_b, source_b))
                        if not denominator:
                            return MaxInfluence(source, target, INFINITY, witness)
    return MaxInfluence(source, target, Fraction(*best), witness)


def network_max_influence(family: BayesNetFamily | BayesNet, node: Node,
                          quilt: Iterable[Node]) -> MaxInfluence:
    """``e(X_Q | X_node)`` over a Bayesian network or a finite family of them (Definition 4.1).

    The target is ``quilt`` in sorted order; each member's ``P(X_Q, X_node)`` comes from variable
    elimination.  ``O(|Θ| · VE + |Θ| d² d^{|Q|})``.
    """
    members = family.members if isinstance(family, BayesNetFamily) else (family,)
    target = tuple(sorted(quilt, key=lambda v: (str(type(v)), v)))
    if not target:
        return MaxInfluence(node, target, Fraction(1), None)
    return max_influence_of_joints(
        node, target, ((net.name, net.joint_factor(list(target) + [node]), net.domains[node])
                       for net in members))


__all__ = ["InfluenceWitness", "MaxInfluence", "max_influence_of_joints", "network_max_influence"]
