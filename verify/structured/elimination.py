"""Exact joint laws of a secret and a statistic by sum-product on a junction tree.

For a prior θ given by factors (a Markov chain: the initial law and one kernel per step; a
Bayesian network: its CPTs; a product prior: its marginals) and an additive code
``code(D) = Σ_v c_v(D_v)`` (:mod:`~pufferfish.verify.structured.statistics`), the generating
polynomial

    ``F_s(z) = Σ_D θ(D) · [s holds in D] · z^{code(D)}``

has coefficient ``k`` equal to ``Pr[s ∧ code = k | θ]``.  Polynomials with rational coefficients
form a commutative semiring, so sum-product (variable elimination) computes ``F`` exactly with
polynomial-valued potentials: each potential entry is ``Π factors · z^{Σ c_v}``.  The prior's
moral graph is triangulated into a junction tree (a chain's is the path of its steps; a
network's from a greedy elimination order,
:mod:`~pufferfish.verify.structured.triangulation`), every factor and every ``z^{c_v}`` is put in
one clique containing its variables, and messages are passed to and from a root (Koller &
Friedman's two-pass calibration).  Then for every secret ``s`` that is a condition on variables
inside one separator or clique, ``F_s`` is read off the calibrated tree: the product of the two
messages across that separator (or the clique's belief), summed over the assignments that
satisfy ``s``.  A secret spread over several cliques is answered by one more collect pass with
its evidence.

Arithmetic is exact: polynomials are python-flint ``fmpq_poly`` (FLINT's rational polynomials,
a common denominator and integer numerators); a network's tree scales each factor to integers
(by the lcm of its denominators) and computes with ``fmpz_poly``, dividing each law by the
product of the scales.  A long path keeps its messages at checkpoints only
(:mod:`~pufferfish.verify.structured.checkpoints`).  Cost: ``O(Σ_C |table_C| · deg(C))`` coefficient
operations for the two passes, where ``deg`` is at most the number of codes, then one
polynomial product per secret read off a separator; for a binary chain of ``n`` attributes and a
sum (``n + 1`` codes) that is ``O(n)`` polynomial operations of degree ``≤ n``.  Enumeration
would cost ``O(d^n)``.

>>> from fractions import Fraction
>>> from pufferfish.models.priors import MarkovPrior
>>> from pufferfish.models.universe import Universe
>>> u = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
>>> chain = MarkovPrior.homogeneous("sticky", u, {0: "1/2", 1: "1/2"},
...                                 {0: {0: "9/10", 1: "1/10"}, 1: {0: "1/10", 1: "9/10"}})
>>> tree = JunctionTree.of_prior(chain, u, [{0: 0, 1: 1}] * 3)
>>> [Fraction(str(c)) for c in tree.law({1: frozenset([1])}).coeffs()]  # Pr[x2 = 1 ∧ sum = k]
[Fraction(0, 1), Fraction(1, 200), Fraction(9, 100), Fraction(81, 200)]
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from itertools import product as cartesian
from operator import itemgetter

from contextlib import nullcontext

from flint import arb, arb_poly, ctx, fmpq, fmpq_poly, fmpz, fmpz_poly

from pufferfish.models.errors import TooLargeError, UnsupportedError
from pufferfish.models.priors import IndependentPrior, MarkovPrior, Prior, UniformPrior
from pufferfish.models.universe import Universe
from pufferfish.verify.structured.checkpoints import CHECKPOINT_ABOVE, PathMessages
from pufferfish.verify.structured.triangulation import junction_tree

Table = dict[tuple, fmpq_poly]
"""A potential or message: assignment of its variables (in their order) -> polynomial."""

_ENTRY_BYTES = 120
"""The memory of one potential entry besides its coefficients: its key tuple, the dictionary slot
and the polynomial object."""

Conditions = Mapping[int, frozenset]
"""A secret as a conjunction ``D_v ∈ allowed`` over positions ``v``."""


def _fmpq(value: Fraction) -> fmpq:
    return fmpq(value.numerator, value.denominator)


def _getter(indices: Sequence[int]):
    """``assignment -> tuple(assignment[i] for i in indices)``, in C where it can be."""
    if len(indices) > 1:
        return itemgetter(*indices)
    if indices:
        (i,) = indices
        return lambda assignment: (assignment[i],)
    return lambda assignment: ()


class Ring:
    """The polynomials a tree computes with: ``EXACT`` (``fmpq_poly``, exact rationals) or
    ``balls(bits)`` (``arb_poly``: every coefficient a ball certified to contain the exact value,
    computed at ``bits`` bits of working precision).  Ball trees are cheap and let a search
    discard, rigorously, the outputs that cannot attain a maximum; the exact tree decides."""

    def __init__(self, name: str, poly, scalar, bits: int | None = None,
                 lift=None) -> None:
        self.name, self.poly, self.scalar, self.bits = name, poly, scalar, bits
        self.lift = lift
        """An exact ``fmpq`` as a coefficient of the ring's polynomials (``None``: the ring's
        monomials are made by :meth:`monomial` from a ``Fraction``)."""

    def monomial(self, coefficient: Fraction, exponent: int):
        """``coefficient · z^exponent``."""
        return self.poly([0] * exponent + [self.scalar(coefficient)])

    def precision(self):
        """A context that sets FLINT's working precision for ball arithmetic (none if exact)."""
        return ctx.workprec(self.bits) if self.bits else nullcontext()

    def __repr__(self) -> str:
        return self.name


EXACT = Ring("exact", fmpq_poly, _fmpq, lift=lambda value: value)
"""Exact rational polynomials."""


_INTEGER = Ring("integer", fmpz_poly, lambda value: fmpz(value.numerator),
                lift=lambda value: value.p)
"""Integer polynomials: a network's exact tree computes with its factors scaled to integers."""


def _integer_factors(factors) -> tuple[list, int]:
    """Each factor times the lcm of its denominators, and the product of those scales."""
    out, total = [], 1
    for scope, table in factors:
        scale = math.lcm(*(p.denominator for p in table.values())) if table else 1
        out.append((scope, {key: p * scale for key, p in table.items()}))
        total *= scale
    return out, total


def balls(bits: int = 128) -> Ring:
    """Ball polynomials at ``bits`` bits of working precision."""
    return Ring(f"balls({bits})", arb_poly, lambda value: arb(_fmpq(value)), bits, arb)


def prior_factors(prior: Prior, universe: Universe
                  ) -> tuple[list[tuple[tuple[int, ...], dict[tuple, Fraction]]],
                             list[tuple[int, ...]], list[tuple[int, int]]]:
    """The prior as factors ``(scope, table)`` over attribute positions, with a junction tree
    (``cliques`` and tree ``edges`` between clique indices) in which every factor's scope lies
    in a clique.  Chains, product priors (independent, uniform over a product universe) and
    Bayesian networks (a prior with a ``network``) have one; other priors raise
    :class:`UnsupportedError` with the reason."""
    n = universe.width
    if isinstance(prior, MarkovPrior):
        factors = [((0,), {(x,): p for x, p in prior.initial.items()})]
        for t, kernel in enumerate(prior.transitions):
            factors.append(((t, t + 1), {(x, y): p for x, row in kernel.items()
                                         for y, p in row.items()}))
        cliques = [(t, t + 1) for t in range(n - 1)] or [(0,)]
        return factors, cliques, [(k, k + 1) for k in range(len(cliques) - 1)]
    if isinstance(prior, IndependentPrior):
        factors = [((t,), {(x,): p for x, p in marginal.items()})
                   for t, marginal in enumerate(prior.marginals)]
        return factors, [(t,) for t in range(n)], [(t, t + 1) for t in range(n - 1)]
    if isinstance(prior, UniformPrior) and universe.explicit is None:
        factors = [((t,), {(x,): Fraction(1, len(domain)) for x in domain})
                   for t, domain in enumerate(universe.domains)]
        return factors, [(t,) for t in range(n)], [(t, t + 1) for t in range(n - 1)]
    network = getattr(prior, "network", None)
    if network is not None:
        return _network_factors(network, universe)
    raise UnsupportedError(f"prior {prior.name!r} ({type(prior).__name__}) has no factored form "
                           f"(a chain, a product prior or a Bayesian network)", f"priors.{prior.name}")


def _network_factors(network, universe: Universe):
    position = {name: k for k, name in enumerate(universe.attributes)}
    if set(network.nodes) != set(position):
        raise UnsupportedError("the network's nodes are not the model's attributes", "priors")
    factors = []
    for node in network.nodes:
        scope = tuple(position[p] for p in network.parents[node]) + (position[node],)
        table = {key + (x,): p for key, row in network.cpts[node].items() for x, p in row.items()}
        factors.append((scope, table))
    cliques, edges = junction_tree(network.graph,
                                   {name: len(universe.domains[k]) for name, k in position.items()})
    cliques = [tuple(sorted(position[v] for v in clique)) for clique in cliques]
    return factors, cliques, edges


class JunctionTree:
    """A calibrated junction tree of one prior with polynomial potentials (module docstring).

    ``law(conditions)`` is ``F_s(z)`` for the secret ``s = ∧_v (D_v ∈ conditions[v])``; ``law({})``
    is the law of the code alone.
    """

    def __init__(self, domains: Sequence[Sequence[Hashable]],
                 factors: Sequence[tuple[tuple[int, ...], Mapping[tuple, Fraction]]],
                 cliques: Sequence[tuple[int, ...]], edges: Sequence[tuple[int, int]],
                 weights: Sequence[Mapping[Hashable, int]], ring: Ring = EXACT) -> None:
        self.ring = ring
        self.domains = [tuple(d) for d in domains]
        self.cliques = [tuple(c) for c in cliques]
        self.neighbours: list[list[int]] = [[] for _ in self.cliques]
        for a, b in edges:
            self.neighbours[a].append(b)
            self.neighbours[b].append(a)
        self._arith, self._scale = ring, None
        if ring is EXACT and not self._is_path():   # integers over one denominator
            factors, scale = _integer_factors(factors)
            self._arith, self._scale = _INTEGER, fmpq(scale)
        holding: dict[int, list[int]] = {}   # variable -> the cliques holding it, in order
        for k, clique in enumerate(self.cliques):
            for v in clique:
                holding.setdefault(v, []).append(k)
        home = {}
        for scope, _ in factors:  # the first of the smallest cliques containing each scope
            for k in holding.get(scope[0], ()) if scope else range(len(self.cliques)):
                if set(scope) <= set(self.cliques[k]) and (
                        scope not in home or len(self.cliques[k]) < len(self.cliques[home[scope]])):
                    home[scope] = k
        assigned: list[list] = [[] for _ in self.cliques]
        for scope, table in factors:
            if scope not in home:
                raise UnsupportedError(f"no clique holds the factor on {scope}", "priors")
            assigned[home[scope]].append((scope, table))
        owner = {}
        for k, clique in enumerate(self.cliques):
            for v in clique:
                owner.setdefault(v, k)
        counted = [[v for v in self.cliques[k] if owner[v] == k] for k in range(len(self.cliques))]
        self._entry_bits = [0] * len(self.cliques)
        self._degrees = [sum(max(weights[v].values(), default=0) for v in counted[k])
                         for k in range(len(self.cliques))]
        self._check_memory(self.potential_bytes(), "potentials")
        self.potentials = [self._potential(k, assigned[k], counted[k], weights)
                           for k in range(len(self.cliques))]
        self.messages: dict[tuple[int, int], Table] | PathMessages = {}
        if isinstance(ring.poly, type) and self._is_path():
            sizes = self._message_sizes()
            if sum(sizes.values()) > CHECKPOINT_ABOVE:
                self.messages = PathMessages(self, len(self.cliques) - 1)
        self._check_memory(self.message_bytes(), "messages")
        with ring.precision():
            self._calibrate()
        self._places: dict[frozenset, tuple[str, object]] = {}
        self._products: tuple = (None, {})     # the last separator read: its message products
        self._single: dict[int, list[tuple[int, int]]] = {}
        for a, others in enumerate(self.neighbours):
            for b in others:
                if a < b:
                    for v in self._separator(a, b):
                        self._single.setdefault(v, []).append((a, b))

    @classmethod
    def of_prior(cls, prior: Prior, universe: Universe,
                 weights: Sequence[Mapping[Hashable, int]], ring: Ring = EXACT
                 ) -> "JunctionTree":
        """The calibrated tree of ``prior`` for the code with per-attribute ``weights``."""
        factors, cliques, edges = prior_factors(prior, universe)
        return cls(universe.domains, factors, cliques, edges, weights, ring)

    # -- construction ----------------------------------------------------------------------------
    def _potential(self, k: int, factors: list, counted: list[int],
                   weights: Sequence[Mapping[Hashable, int]]) -> Table:
        clique = self.cliques[k]
        where = {v: i for i, v in enumerate(clique)}
        lookups = [(_getter([where[v] for v in scope]),
                    {key: fmpq(p.numerator, p.denominator) for key, p in values.items()})
                   for scope, values in factors]
        codes = [(where[v], weights[v]) for v in counted]
        ring, one = self._arith, fmpq(1)
        lift = ring.lift if type(ring) is Ring else None
        table: Table = {}
        bits = 0
        for assignment in cartesian(*(self.domains[v] for v in clique)):
            p = one
            for key, values in lookups:
                q = values.get(key(assignment))
                if not q:
                    break
                p *= q
            else:
                exponent = sum(weight[assignment[i]] for i, weight in codes)
                table[assignment] = (ring.poly([0] * exponent + [lift(p)]) if lift else
                                     ring.monomial(Fraction(int(p.p), int(p.q)), exponent))
                bits = max(bits, p.p.bit_length() + p.q.bit_length())
        self._entry_bits[k] = bits
        return table

    def message_bytes(self) -> int:
        """An estimate of the memory of the calibrated messages the tree keeps
        (``_message_sizes``: all of them, or on a long path the checkpoints and one block
        per direction, :class:`PathMessages`).  Exact polynomials only; balls and scalars are
        small."""
        if not isinstance(self._arith.poly, type) or self._arith.bits:
            return 0
        return self._kept_bytes(self._message_sizes())

    def _message_sizes(self) -> dict[tuple[int, int], int]:
        """Each message's estimated bytes, from each clique's share of the code's degree and the
        bits of its potential's entries: a message from one side of a separator is, per
        separator assignment, a polynomial of that side's degree whose coefficients have about
        as many bits as that side's entries together (a ball: 48 bytes), ``O(cliques)``."""
        order = self._order()                         # (child, parent), leaves first
        below_degree, below_bits = list(self._degrees), list(self._entry_bits)
        for child, parent in order:
            below_degree[parent] += below_degree[child]
            below_bits[parent] += below_bits[child]
        total_degree, total_bits = below_degree[0], below_bits[0]
        sizes = {}
        for child, parent in order:
            assignments = 1
            for v in self._separator(child, parent):
                assignments *= len(self.domains[v])
            for key, degree, bits in (((child, parent), below_degree[child], below_bits[child]),
                                      ((parent, child), total_degree - below_degree[child],
                                       total_bits - below_bits[child])):
                word = 48 if self._arith.bits else bits // 8 + 16
                sizes[key] = assignments * (degree + 1) * word
        return sizes

    def _kept_bytes(self, sizes: dict[tuple[int, int], int]) -> int:
        if not isinstance(self.messages, PathMessages):
            return sum(sizes.values())
        return self.messages.kept_bytes(sizes)

    def potential_bytes(self) -> int:
        """An upper estimate of the memory of the potentials, from the cliques' sizes and their
        shares of the code's degree alone, before any is built: per assignment of a clique's
        variables a key and, for a polynomial ring, a dense polynomial of up to the clique's
        degree plus one coefficients (a word each, exact; a ball each, :func:`balls`).  A
        variable of ``10^5`` values whose value is the statistic (an ``identity`` query) makes
        ``10^5`` monomials of degree up to ``10^5``: ``10^10`` coefficients."""
        dense = isinstance(self._arith.poly, type)
        word = 48 if self._arith.bits else 8
        size = 0
        for clique, degree in zip(self.cliques, self._degrees):
            assignments = 1
            for v in clique:
                assignments *= len(self.domains[v])
            size += assignments * (_ENTRY_BYTES + (word * (degree + 1) if dense else word))
        return size

    def _check_memory(self, need: int, what: str) -> None:
        """Refuse (:class:`~pufferfish.models.errors.TooLargeError`) a tree whose ``what``
        (``need`` bytes: :meth:`potential_bytes`, :meth:`message_bytes`) would not fit in the
        memory this process may use."""
        from pufferfish.verify.execution import usable_memory

        limit = usable_memory()
        if limit is not None and need > limit * 3 // 4:
            largest = max(len(c) for c in self.cliques)
            raise TooLargeError(
                f"the exact sum-product over this prior's junction tree ({len(self.cliques)} "
                f"cliques of up to {largest} attributes, codes up to {sum(self._degrees):,}) "
                f"needs about {need / 2**30:.1f} GB for its {what}, more than three quarters of "
                f"the {limit / 2**30:.1f} GB this process may use", "priors")

    def _separator(self, a: int, b: int) -> tuple[int, ...]:
        return tuple(v for v in self.cliques[a] if v in self.cliques[b])

    def _message(self, source: int, target: int, evidence: Conditions | None = None) -> Table:
        """``Σ_{clique \\ separator} potential · Π messages from the other neighbours``."""
        clique = self.cliques[source]
        where = {v: i for i, v in enumerate(clique)}
        separator = _getter([where[v] for v in self._separator(source, target)])
        incoming = [(_getter([where[v] for v in self._separator(other, source)]),
                     self.messages[(other, source)])
                    for other in self.neighbours[source] if other != target]
        entries = self.potentials[source].items()
        if evidence:
            checks = [(where[v], allowed) for v, allowed in evidence.items() if v in where]
            entries = [(assignment, value) for assignment, value in entries
                       if all(assignment[i] in allowed for i, allowed in checks)]
        out: Table = {}
        for assignment, value in entries:
            for key, message in incoming:
                factor = message.get(key(assignment))
                if factor is None:
                    break
                value = value * factor
            else:
                key = separator(assignment)
                known = out.get(key)
                out[key] = value if known is None else known + value
        return out

    def _order(self) -> list[tuple[int, int]]:
        """Edges ``(child, parent)`` of the tree rooted at clique 0, leaves first."""
        order, seen, stack = [], {0}, [0]
        while stack:
            node = stack.pop()
            for other in self.neighbours[node]:
                if other not in seen:
                    seen.add(other)
                    order.append((other, node))
                    stack.append(other)
        return order[::-1]

    def _is_path(self) -> bool:
        """Whether the tree is the path ``0 — 1 — … — m`` (a chain's, a product prior's)."""
        return all(set(others) <= {k - 1, k + 1} for k, others in enumerate(self.neighbours)) \
            and sum(map(len, self.neighbours)) == 2 * (len(self.cliques) - 1)

    def _calibrate(self) -> None:
        order = self._order()
        for child, parent in order:          # collect towards the root
            self.messages[(child, parent)] = self._message(child, parent)
        for child, parent in reversed(order):  # distribute from it
            self.messages[(parent, child)] = self._message(parent, child)

    # -- laws -------------------------------------------------------------------------------------
    def law(self, conditions: Conditions):
        """``F_s(z)``: coefficient ``k`` is ``Pr[s ∧ code = k | θ]`` (an ``fmpq_poly``, or an
        ``arb_poly`` of balls for a ball tree)."""
        kind, where = self._where(conditions)
        with self.ring.precision():
            if kind == "separator":
                law = self._across(where, conditions)
            else:
                law = self._belief(where, conditions, evidence=kind == "evidence")
        return law if self._scale is None else fmpq_poly(law) / self._scale

    def terms(self, conditions: Conditions) -> list[tuple]:
        """``F_s`` as a sum of products ``Σ_k A_k·B_k`` left unmultiplied: the two messages across
        a separator for each of its assignments that satisfy the secret (or ``[(F_s, 1)]`` when
        the secret is read elsewhere).  Evaluating ``F_s`` at a point, or its low terms, then
        costs evaluations and truncated products instead of whole products."""
        kind, where = self._where(conditions)
        if kind != "separator":
            return [(self.law(conditions), self.ring.poly([1]))]
        a, b = where
        separator = self._separator(a, b)
        backward = self.messages[(b, a)]
        terms = [(value, backward[assignment])
                 for assignment, value in self.messages[(a, b)].items()
                 if assignment in backward and all(assignment[separator.index(v)] in allowed
                                                   for v, allowed in conditions.items())]
        if self._scale is None:
            return terms
        return [(fmpq_poly(first) / self._scale, fmpq_poly(second)) for first, second in terms]

    def mass(self, conditions: Conditions):
        """``F_s(1) = Pr[s | θ]`` (a separator's two messages evaluated at 1, not multiplied)."""
        total = self.ring.scalar(Fraction(0))
        with self.ring.precision():
            for first, second in self.terms(conditions):
                total += first(1) * second(1)
        return total

    def _where(self, conditions: Conditions) -> tuple[str, object]:
        variables = frozenset(conditions)
        place = self._places.get(variables)
        if place is None:
            place = self._places[variables] = self._place(variables)
        return place

    def _place(self, variables: frozenset) -> tuple[str, object]:
        """Where a secret on ``variables`` is read: a separator holding them (one product per
        assignment), else a clique, else the root after a collect pass with the evidence."""
        if len(variables) == 1:
            (v,) = variables
            for (a, b) in self._single.get(v, ()):
                return "separator", (a, b)
        for a, others in enumerate(self.neighbours):
            for b in others:
                if a < b and variables <= set(self._separator(a, b)):
                    return "separator", (a, b)
        for k, clique in enumerate(self.cliques):
            if variables <= set(clique):
                return "clique", k
        return "evidence", 0

    def _across(self, edge: tuple[int, int], conditions: Conditions) -> fmpq_poly:
        """``Σ`` over the separator's assignments that satisfy ``conditions`` of the product of
        the two messages across it; the products of the last separator read are kept, so the
        secrets on one variable (read in turn) multiply each pair of messages once."""
        a, b = edge
        separator = self._separator(a, b)
        forward, backward = self.messages[(a, b)], self.messages[(b, a)]
        if self._products[0] != edge:
            self._products = (edge, {})
        products = self._products[1]
        checks = [(separator.index(v), allowed) for v, allowed in conditions.items()]
        total = self._arith.poly()
        for assignment, value in forward.items():
            if all(assignment[i] in allowed for i, allowed in checks):
                product = products.get(assignment)
                if product is None:
                    other = backward.get(assignment)
                    if other is None:
                        continue
                    product = products[assignment] = value * other
                total += product
        return total

    def _belief(self, k: int, conditions: Conditions, evidence: bool = False) -> fmpq_poly:
        """The clique's potential times its incoming messages, summed over the assignments that
        satisfy ``conditions`` (with ``evidence``, messages are recomputed under them)."""
        messages = self.messages
        if evidence:        # a collect pass towards k = 0 (the root): only its messages
            messages = {}
            saved, self.messages = self.messages, messages
            try:
                for child, parent in self._order():
                    messages[(child, parent)] = self._message(child, parent, conditions)
                    for other in self.neighbours[child]:    # the child's inputs are spent
                        if other != parent:
                            del messages[(other, child)]
            finally:
                self.messages = saved
        clique = self.cliques[k]
        where = {v: i for i, v in enumerate(clique)}
        total = self._arith.poly()
        for assignment, value in self.potentials[k].items():
            if not all(assignment[where[v]] in allowed
                       for v, allowed in conditions.items() if v in where):
                continue
            for other in self.neighbours[k]:
                factor = messages[(other, k)].get(
                    tuple(assignment[where[v]] for v in self._separator(other, k)))
                if factor is None:
                    break
                value = value * factor
            else:
                total += value
        return total


__all__ = ["JunctionTree", "PathMessages", "CHECKPOINT_ABOVE", "junction_tree", "prior_factors",
           "Ring", "EXACT", "balls"]
