"""Bayesian networks and Markov chains with exact conditional probability tables.

Setting of Wang et al., Privacy-Preserving Analysis of Correlated Data, §4 ("The Setting"): data
``X = (X_1, ..., X_n)`` whose dependence is a known Bayesian network ``G = (X, E)``; each ``θ ∈ Θ``
is a set of CPTs over the same graph.  This module holds the nouns:

* :class:`BayesNet` — a networkx ``DiGraph`` plus, for every node, a finite domain and a CPT
  ``P(X_v | parents(v))`` of exact :class:`~fractions.Fraction` probabilities.  Marginals and
  conditionals are computed by **variable elimination** (:meth:`BayesNet.marginal`,
  :meth:`BayesNet.conditional`); :meth:`BayesNet.marginal_by_enumeration` sums the joint and exists
  on purpose as an independent cross-check for small networks.
* :class:`BayesNetFamily` — a finite family Θ of CPT sets over one graph.
* :class:`BayesNetPrior` — a network over a model's attributes as one prior θ of a Pufferfish
  model (the model file's ``bayesnet`` prior; networks in BIF are read by
  :mod:`pufferfish.models.bif`).
* :class:`MarkovChain` — the special case ``X_1 → ... → X_T`` with one transition matrix
  (§4.1, "The Setting"): exact k-step powers ``P^t`` (repeated squaring, cached) and the exact
  stationary distribution (a rational linear system solved by Gaussian elimination).  The authors'
  MATLAB code approximates the stationary distribution by a row of ``M^100``; here it is the exact
  solution of ``π P = π, Σ π = 1``.
* :func:`chain_from_markov_prior` — a :class:`MarkovChain` from a homogeneous
  :class:`pufferfish.models.priors.MarkovPrior` read from an ordinary model file, without enumerating the
  ``k^T`` datasets.

Complexity: variable elimination costs ``O(n · d^{w+1})`` for ``n`` nodes, domain size ``d`` and
induced width ``w`` of the greedy (min-neighbours) order; enumeration costs ``O(n · d^n)``.  Matrix
powers cost ``O(k^3 log t)`` exact operations.

Length: the network, its families, its use as a prior and the chain special case are one concept
sharing the factor code; splitting them would only add imports between the parts.

>>> net = BayesNet.from_cpts({"A": [], "B": ["A"]}, {"A": (0, 1), "B": (0, 1)},
...     {"A": {(): {0: "1/2", 1: "1/2"}}, "B": {(0,): {0: "3/4", 1: "1/4"}, (1,): {0: "1/4", 1: "3/4"}}})
>>> net.conditional(["A"], {"B": 0})[(0,)]
Fraction(3, 4)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from itertools import product as cartesian
from math import lcm, prod
from typing import TYPE_CHECKING, Hashable, NamedTuple

if TYPE_CHECKING:  # networkx is imported where a graph is built or searched
    import networkx as nx

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError, UnsupportedError
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.priors import MarkovPrior, Prior
from pufferfish.models.universe import Dataset, Value

Node = Hashable
Value = Hashable
Assignment = tuple

DEFAULT_MAX_JOINT = 1 << 20
"""Largest joint table :meth:`BayesNet.marginal_by_enumeration` builds (entries)."""


# ------------------------------------------------------------------------------------------------
# factors for variable elimination
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Factor:
    """A nonnegative function of the variables ``scope``: ``table[values] -> Fraction``.

    Missing assignments are zero.
    """

    scope: tuple
    table: Mapping[tuple, Fraction]

    def multiply(self, other: "Factor", domains: Mapping[Node, Sequence[Value]]) -> "Factor":
        """Pointwise product over the union of the scopes (``O(d^{|union|})``)."""
        scope = self.scope + tuple(v for v in other.scope if v not in self.scope)
        pos_self = [scope.index(v) for v in self.scope]
        pos_other = [scope.index(v) for v in other.scope]
        table: dict[tuple, Fraction] = {}
        rest = [v for v in other.scope if v not in self.scope]
        for key, p in self.table.items():
            for extra in cartesian(*(domains[v] for v in rest)):
                full = key + extra
                q = other.table.get(tuple(full[i] for i in pos_other))
                if q:
                    table[full] = p * q
        del pos_self
        return Factor(scope, table)

    def sum_out(self, variable: Node) -> "Factor":
        """Marginalise ``variable`` away."""
        k = self.scope.index(variable)
        table: dict[tuple, Fraction] = {}
        for key, p in self.table.items():
            reduced = key[:k] + key[k + 1:]
            table[reduced] = table.get(reduced, Fraction(0)) + p
        return Factor(self.scope[:k] + self.scope[k + 1:], table)

    def restrict(self, evidence: Mapping[Node, Value]) -> "Factor":
        """Keep only assignments consistent with ``evidence`` (scope unchanged)."""
        checks = [(i, evidence[v]) for i, v in enumerate(self.scope) if v in evidence]
        if not checks:
            return self
        return Factor(self.scope, {k: p for k, p in self.table.items()
                                   if all(k[i] == value for i, value in checks)})

    def reorder(self, scope: Sequence[Node]) -> dict[tuple, Fraction]:
        """The table keyed by ``scope`` order (``scope`` must be a permutation of ``self.scope``)."""
        positions = [self.scope.index(v) for v in scope]
        return {tuple(k[i] for i in positions): p for k, p in self.table.items()}


# ------------------------------------------------------------------------------------------------
# Bayesian networks
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BayesNet:
    """A Bayesian network with exact CPTs (Wang et al., Privacy-Preserving Analysis of Correlated
    Data, §4, "The Setting").

    ``cpts[v]`` maps a tuple of parent values (in ``parents(v)`` order, the order of
    ``graph.predecessors`` sorted by the node order given at construction) to the distribution of
    ``X_v``.  Build with :meth:`from_cpts`, which validates everything.  ``renormalised`` lists
    the CPT rows that an import divided by their sums (:func:`pufferfish.models.bif.parse_bif`
    with ``renormalise=True``: ``(variable, parent values, original sum)`` per row); it is empty
    for a network whose rows were exact distributions as given.
    """

    graph: nx.DiGraph = field(repr=False)
    domains: Mapping[Node, tuple]
    parents: Mapping[Node, tuple]
    cpts: Mapping[Node, Mapping[tuple, Distribution]] = field(repr=False)
    name: str = "θ"
    renormalised: tuple = field(default=(), repr=False)

    @classmethod
    def from_cpts(cls, parents: Mapping[Node, Sequence[Node]], domains: Mapping[Node, Sequence[Value]],
                  cpts: Mapping[Node, Mapping[tuple, Mapping[Value, object]]], name: str = "θ",
                  path: str = "") -> "BayesNet":
        """Validate and build a network from parent lists, domains and CPT rows.

        Every node needs a domain and a CPT row for every combination of its parents' values;
        rows must be distributions over the node's domain; the graph must be acyclic.
        """
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(parents)
        for node, ps in parents.items():
            for p in ps:
                if p not in parents:
                    raise ModelError(f"parent {p!r} of {node!r} is not a node",
                                     f"{path}parents.{node}")
                graph.add_edge(p, node)
        if not nx.is_directed_acyclic_graph(graph):
            cycle = nx.find_cycle(graph)
            raise ModelError(f"the graph has a cycle {cycle}; a Bayesian network is acyclic",
                             f"{path}parents")
        doms: dict[Node, tuple] = {}
        for node in parents:
            if node not in domains or not domains[node]:
                raise ModelError(f"node {node!r} needs a non-empty domain", f"{path}domains.{node}")
            doms[node] = tuple(domains[node])
            if len(set(doms[node])) != len(doms[node]):
                raise ModelError("the domain lists a value twice", f"{path}domains.{node}")
        tables: dict[Node, dict[tuple, Distribution]] = {}
        for node, ps in parents.items():
            rows = cpts.get(node)
            where = f"{path}cpts.{node}"
            if rows is None:
                raise ModelError(f"no CPT for node {node!r}", where)
            table = {}
            values = frozenset(doms[node])
            for key in cartesian(*(doms[p] for p in ps)):
                if key not in rows:
                    raise ModelError(f"no CPT row for parent values {list(key)}", where)
                row = rows[key]
                dist = row if isinstance(row, Distribution) else Distribution(row, f"{where}.{list(key)}")
                for value in dist.support:
                    if value not in values:
                        raise ModelError(f"value {value!r} is not in the domain of {node!r}",
                                         f"{where}.{list(key)}")
                table[key] = dist
            extra = set(rows) - set(table)
            if extra:
                raise ModelError(f"CPT rows for impossible parent values {sorted(map(list, extra))}",
                                 where)
            tables[node] = table
        return cls(graph, doms, {n: tuple(ps) for n, ps in parents.items()}, tables, name)

    # -- structure -------------------------------------------------------------------------------
    @property
    def nodes(self) -> tuple:
        """The nodes in the order given at construction."""
        return tuple(self.parents)

    def with_cpts(self, cpts: Mapping[Node, Mapping[tuple, Mapping[Value, object]]],
                  name: str) -> "BayesNet":
        """Another member of a family: same graph and domains, new CPTs."""
        return BayesNet.from_cpts(self.parents, self.domains, cpts, name)

    def probability(self, assignment: Mapping[Node, Value]) -> Fraction:
        """``P(X = assignment)`` for a full assignment (chain rule over the CPTs)."""
        p = Fraction(1)
        for node in self.nodes:
            key = tuple(assignment[q] for q in self.parents[node])
            p *= self.cpts[node][key].prob(assignment[node])
            if not p:
                break
        return p

    def factors(self) -> list[Factor]:
        """One factor per CPT, scope ``parents + (node,)``."""
        out = []
        for node in self.nodes:
            table = {}
            for key, dist in self.cpts[node].items():
                for value, p in dist.items():
                    table[key + (value,)] = p
            out.append(Factor(self.parents[node] + (node,), table))
        return out

    # -- inference -------------------------------------------------------------------------------
    def joint_factor(self, variables: Sequence[Node],
                     evidence: Mapping[Node, Value] | None = None) -> dict[tuple, Fraction]:
        """``P(X_vars = v, evidence)`` for every ``v`` by variable elimination (unnormalised).

        Non-query variables are eliminated greedily (fewest neighbours first in the interaction
        graph of the remaining factors).  Zero entries are omitted.
        """
        import networkx as nx

        variables = tuple(variables)
        evidence = dict(evidence or {})
        for v in list(variables) + list(evidence):
            if v not in self.domains:
                raise ModelError(f"unknown node {v!r}", "nodes")
        factors = [f.restrict(evidence) for f in self.factors()]
        # only ancestors of the query and evidence matter (barren nodes sum to one)
        relevant = set(variables) | set(evidence)
        for v in list(relevant):
            relevant |= nx.ancestors(self.graph, v)
        factors = [f for f in factors if f.scope[-1] in relevant]
        keep = set(variables)
        eliminate = [v for v in self.nodes if v in relevant and v not in keep]
        while eliminate:
            def cost(v: Node) -> int:
                scope = set()
                for f in factors:
                    if v in f.scope:
                        scope |= set(f.scope)
                return len(scope)
            var = min(eliminate, key=cost)
            eliminate.remove(var)
            involved = [f for f in factors if var in f.scope]
            factors = [f for f in factors if var not in f.scope]
            if not involved:
                continue
            product_factor = involved[0]
            for f in involved[1:]:
                product_factor = product_factor.multiply(f, self.domains)
            factors.append(product_factor.sum_out(var))
        result = Factor((), {(): Fraction(1)})
        for f in factors:
            result = result.multiply(f, self.domains)
        missing = [v for v in variables if v not in result.scope]
        for v in missing:  # query variables with no factor (cannot happen: each has its CPT)
            result = result.multiply(Factor((v,), {(x,): Fraction(1) for x in self.domains[v]}),
                                     self.domains)
        return {k: p for k, p in result.reorder(variables).items() if p}

    def marginal(self, variables: Sequence[Node]) -> dict[tuple, Fraction]:
        """``P(X_vars = v)`` by variable elimination; keys are value tuples in ``variables`` order."""
        return self.joint_factor(variables)

    def conditional(self, variables: Sequence[Node],
                    evidence: Mapping[Node, Value]) -> dict[tuple, Fraction]:
        """``P(X_vars = v | evidence)`` by variable elimination.

        Raises :class:`ModelError` when the evidence has probability zero.
        """
        table = self.joint_factor(variables, evidence)
        total = sum(table.values(), Fraction(0))
        if not total:
            raise ModelError(f"the evidence {dict(evidence)} has probability zero", "evidence")
        return {k: p / total for k, p in table.items()}

    def marginal_by_enumeration(self, variables: Sequence[Node],
                                limit: int = DEFAULT_MAX_JOINT) -> dict[tuple, Fraction]:
        """``P(X_vars = v)`` by summing the full joint (independent cross-check, ``O(n d^n)``)."""
        size = 1
        for node in self.nodes:
            size *= len(self.domains[node])
        if size > limit:
            raise TooLargeError(f"the joint of {len(self.nodes)} nodes has {size:,} entries, more "
                                f"than the limit of {limit:,}", "nodes")
        out: dict[tuple, Fraction] = {}
        nodes = self.nodes
        for values in cartesian(*(self.domains[n] for n in nodes)):
            assignment = dict(zip(nodes, values))
            p = self.probability(assignment)
            if p:
                key = tuple(assignment[v] for v in variables)
                out[key] = out.get(key, Fraction(0)) + p
        return out

    def to_dict(self) -> dict:
        return {"name": self.name,
                "nodes": {str(n): {"domain": list(self.domains[n]),
                                   "parents": [str(p) for p in self.parents[n]],
                                   "cpt": [[list(k), {str(v): fraction_str(p) for v, p in d.items()}]
                                           for k, d in self.cpts[n].items()]}
                          for n in self.nodes}}


@dataclass(frozen=True)
class BayesNetFamily:
    """A finite family Θ of CPT sets over one graph (Wang et al., Privacy-Preserving Analysis of
    Correlated Data, §4).

    All members share the graph, the parent order and the domains.
    """

    members: tuple[BayesNet, ...]

    def __post_init__(self) -> None:
        if not self.members:
            raise ModelError("a family needs at least one member", "members")
        first = self.members[0]
        names = set()
        for k, m in enumerate(self.members):
            if dict(m.parents) != dict(first.parents) or dict(m.domains) != dict(first.domains):
                raise ModelError("every member of a family must have the same graph and domains",
                                 f"members.{k}")
            if m.name in names:
                raise ModelError(f"two members are named {m.name!r}", f"members.{k}")
            names.add(m.name)

    @property
    def graph(self) -> nx.DiGraph:
        return self.members[0].graph

    @property
    def nodes(self) -> tuple:
        return self.members[0].nodes

    @property
    def domains(self) -> Mapping[Node, tuple]:
        return self.members[0].domains


# ------------------------------------------------------------------------------------------------
# a Bayesian network as the prior of a Pufferfish model
# ------------------------------------------------------------------------------------------------

class RenormalisedRow(NamedTuple):
    """A CPT row that did not sum to one as written and was divided by its sum (by
    :func:`pufferfish.models.bif.parse_bif` with ``renormalise=True``): the variable, its
    parents' values in the order of its parents (``()`` for a root) and the sum it had."""

    variable: str
    parent_values: tuple
    total: Fraction


def renormalised_note(subject: str, rows: Sequence[RenormalisedRow], shown: int = 3,
                      parents: Mapping[Node, Sequence[Node]] | None = None) -> str:
    """One sentence, about ``subject`` (a network or a prior, as the sentence names it), saying
    which CPT rows were renormalised (``""`` for none), as results built on such a network report
    it; with the network's ``parents``, each row's parent values are named.

    >>> renormalised_note("network 'alarm'", [RenormalisedRow("HR", ("LOW",), Fraction(9999, 10000))],
    ...                   parents={"HR": ("CATECHOL",)})
    "network 'alarm': 1 CPT row did not sum to 1 as written and was divided by its sum exactly: HR | CATECHOL=LOW (sum 9999/10000)"
    """
    if not rows:
        return ""

    def given(row: RenormalisedRow) -> str:
        names = (parents or {}).get(row.variable)
        if names is None or len(names) != len(row.parent_values):
            return ", ".join(map(str, row.parent_values)) or "(root)"
        return ", ".join(f"{n}={v}" for n, v in zip(names, row.parent_values)) or "(root)"

    parts = [f"{row.variable} | {given(row)} (sum {fraction_str(row.total)})"
             for row in rows[:shown]]
    more = f"; and {len(rows) - shown} more" if len(rows) > shown else ""
    if len(rows) == 1:
        head = "1 CPT row did not sum to 1 as written and was divided by its sum exactly"
    else:
        head = (f"{len(rows)} CPT rows did not sum to 1 as written and were each divided by "
                f"its sum exactly")
    return f"{subject}: {head}: {'; '.join(parts)}{more}"


@dataclass(frozen=True)
class BayesNetPrior(Prior):
    """A prior θ over datasets given by a Bayesian network whose nodes are the attributes: the
    setting of Wang et al., Privacy-Preserving Analysis of Correlated Data, §4 ("The Setting"),
    as one prior of a Pufferfish model (Bai et al., Composition for Pufferfish Privacy, §2).

    ``Pr[D | θ] = Π_v P(X_v = D_v | X_parents(v) = D_parents(v))`` (the chain rule of the
    network).  ``network`` is a :class:`BayesNet` whose node names are exactly ``attributes``
    (any node order); ``renormalised`` lists the CPT rows an import divided by their sums
    (default: the network's own :attr:`BayesNet.renormalised`), and :attr:`notes` says so in
    words for the results built on it.

    The support is enumerated ancestrally (nodes in a topological order, only rows of positive
    probability followed) and listed in attribute order, sorted by the positions of the values in
    the nodes' domains; the blocks of an audit (:meth:`prefix_blocks`) are the values of the
    first attributes with their exact marginal (variable elimination), and a block enumerates
    only its datasets, with the first attributes held as evidence.  Cost: ``O(n)`` per
    probability; enumeration ``O(n · S)`` for ``S`` the datasets visited (at most
    :meth:`support_bound`), plus the sort.

    >>> net = BayesNet.from_cpts({"rain": [], "wet": ["rain"]},
    ...     {"rain": ("yes", "no"), "wet": ("yes", "no")},
    ...     {"rain": {(): {"yes": "1/5", "no": "4/5"}},
    ...      "wet": {("yes",): {"yes": "9/10", "no": "1/10"}, ("no",): {"yes": "1/10", "no": "9/10"}}})
    >>> prior = BayesNetPrior("weather", ("wet", "rain"), net)
    >>> prior.probability(("yes", "no")), list(prior.support())[0]
    (Fraction(2, 25), (('yes', 'yes'), Fraction(9, 50)))
    >>> prior.to_dict()["bayesnet"]["nodes"]["wet"]["cpt"]["no"]
    {'yes': '1/10', 'no': '9/10'}
    """

    name: str
    attributes: tuple[str, ...]
    network: BayesNet
    renormalised: tuple = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", tuple(self.attributes))
        nodes = set(self.network.nodes)
        missing = [a for a in self.attributes if a not in nodes]
        extra = [n for n in self.network.nodes if n not in set(self.attributes)]
        if missing or extra or len(set(self.attributes)) != len(self.attributes):
            raise ModelError(f"the network's nodes must be exactly the attributes: "
                             f"{'no node for ' + str(missing) if missing else ''}"
                             f"{'; ' if missing and extra else ''}"
                             f"{'nodes that are no attribute: ' + str(extra) if extra else ''}",
                             f"priors.{self.name}.bayesnet")
        if not self.renormalised and self.network.renormalised:
            object.__setattr__(self, "renormalised", tuple(self.network.renormalised))

    @property
    def notes(self) -> tuple[str, ...]:
        """What a result built on this prior should report about it: the renormalised rows."""
        text = renormalised_note(f"prior {self.name!r}", self.renormalised,
                                 parents=self.network.parents)
        return (text,) if text else ()

    # -- the chain rule --------------------------------------------------------------------------
    def probability(self, dataset: Dataset) -> Fraction:
        assignment = dict(zip(self.attributes, dataset))
        p = Fraction(1)
        for node in self.network.nodes:
            row = self.network.cpts[node].get(tuple(assignment[q] for q in self.network.parents[node]))
            if row is None:
                return Fraction(0)
            p *= row.prob(assignment[node])
            if not p:
                break
        return p

    # -- sizes -----------------------------------------------------------------------------------
    @cached_property
    def _branching(self) -> dict:
        """Per node, the most values of positive probability in one of its CPT rows."""
        return {n: max((len(row) for row in self.network.cpts[n].values()), default=0)
                for n in self.network.nodes}

    def support_bound(self) -> int:
        return self.block_bound(0)

    def block_bound(self, depth: int) -> int:
        held = set(self.attributes[:max(0, depth)])
        return prod(self._branching[n] for n in self.network.nodes if n not in held)

    def values_within(self, domains: Sequence[Sequence[Value]]) -> bool:
        return len(domains) == len(self.attributes) and all(
            set(self.network.domains[a]) <= set(domain)
            for a, domain in zip(self.attributes, domains))

    # -- enumeration -----------------------------------------------------------------------------
    @cached_property
    def _plan(self) -> tuple:
        """``(order, parent slots, scaled rows, denominator, sort ranks)``: the nodes in a
        topological order (ties by attribute position), for each the slots of its parents in
        that order, its CPT rows as integers over one denominator per node, the product of those
        denominators, and per attribute the rank of each value in its node's domain."""
        import networkx as nx

        position = {a: i for i, a in enumerate(self.attributes)}
        order = tuple(nx.lexicographical_topological_sort(self.network.graph,
                                                          key=lambda n: position[n]))
        slot = {n: i for i, n in enumerate(order)}
        parents = tuple(tuple(slot[q] for q in self.network.parents[n]) for n in order)
        rows, denominator = [], 1
        for n in order:
            scale = lcm(*(p.denominator for row in self.network.cpts[n].values()
                          for p in row.values()))
            rows.append({key: [(v, p.numerator * (scale // p.denominator)) for v, p in row.items()]
                         for key, row in self.network.cpts[n].items()})
            denominator *= scale
        ranks = tuple({v: k for k, v in enumerate(self.network.domains[a])}
                      for a in self.attributes)
        back = tuple(slot[a] for a in self.attributes)
        return order, parents, tuple(rows), denominator, ranks, back

    def _enumerate(self, prefix: tuple) -> tuple[int, list[tuple[Dataset, int]]]:
        """The datasets starting with ``prefix`` of positive probability, in support order, with
        integer weights over the returned denominator (``weight / denominator = Pr[D | θ]``)."""
        order, parents, rows, denominator, ranks, back = self._plan
        fixed = {self.attributes[i]: value for i, value in enumerate(prefix)}
        layer: list[tuple[tuple, int]] = [((), 1)]
        for node, slots, table in zip(order, parents, rows):
            grown = []
            held = node in fixed
            for values, weight in layer:
                row = table.get(tuple(values[s] for s in slots), ())
                if held:
                    value = fixed[node]
                    grown.extend((values + (value,), weight * q) for v, q in row if v == value)
                else:
                    grown.extend((values + (v,), weight * q) for v, q in row)
            layer = grown
        datasets = [(tuple(values[s] for s in back), weight) for values, weight in layer]
        datasets.sort(key=lambda item: tuple(rank[v] for rank, v in zip(ranks, item[0])))
        return denominator, datasets

    def _support(self) -> Iterator[tuple[Dataset, Fraction]]:
        return self.support_under((), Fraction(1))

    def prefix_blocks(self, depth: int) -> list[tuple[tuple, Fraction]]:
        depth = max(0, min(depth, len(self.attributes)))
        if depth == 0:
            return [((), Fraction(1))]
        ranks = self._plan[4]
        marginal = self.network.marginal(self.attributes[:depth])
        return sorted(marginal.items(),
                      key=lambda item: tuple(rank[v] for rank, v in zip(ranks, item[0])))

    def support_under(self, prefix: tuple, probability: Fraction) -> Iterator[tuple[Dataset, Fraction]]:
        """The datasets of the block ``prefix`` with ``Pr[D | θ]`` (the joint probability, computed
        from the network: ``probability``, the block's mass, is not needed)."""
        denominator, datasets = self._enumerate(tuple(prefix))
        return iter([(d, Fraction(w, denominator)) for d, w in datasets])

    def scaled_support_under(self, prefix, probability):
        denominator, datasets = self._enumerate(tuple(prefix))
        return denominator, iter(datasets)

    # -- the model-file form ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The inline model-file form: node -> parents and CPT rows keyed by the parents' values
        joined with commas (``""`` for a root), as the ``"bayesnet": 1`` family files write them;
        ``renormalised`` rows are listed for the record."""
        net = self.network
        nodes = {str(n): {"parents": [str(p) for p in net.parents[n]],
                          "cpt": {",".join(map(str, key)): {str(v): fraction_str(p)
                                                            for v, p in row.items()}
                                  for key, row in net.cpts[n].items()}}
                 for n in net.nodes}
        body: dict = {"nodes": nodes}
        if self.renormalised:
            body["renormalised"] = [{"node": str(r.variable),
                                     "parents": ",".join(map(str, r.parent_values)),
                                     "sum": fraction_str(r.total)} for r in self.renormalised]
        return {"bayesnet": body}


# ------------------------------------------------------------------------------------------------
# Markov chains
# ------------------------------------------------------------------------------------------------

Matrix = tuple  # tuple of tuples of Fraction


def mat_mul(left: Matrix, right: Matrix) -> Matrix:
    """Exact product of two square rational matrices (``O(k^3)``)."""
    k = len(left)
    cols = list(zip(*right))
    return tuple(tuple(sum((left[i][m] * cols[j][m] for m in range(k)), Fraction(0))
                       for j in range(k)) for i in range(k))


def identity(k: int) -> Matrix:
    return tuple(tuple(Fraction(int(i == j)) for j in range(k)) for i in range(k))


def solve_stationary(matrix: Matrix) -> tuple[Fraction, ...]:
    """The unique ``π`` with ``π P = π``, ``Σ π = 1`` by exact Gaussian elimination.

    Raises :class:`ModelError` if the solution is not unique (a reducible chain with several
    closed classes).  ``O(k^3)`` exact operations.
    """
    k = len(matrix)
    # rows: (P^T - I) π = 0 for k-1 equations, plus Σπ = 1
    rows = [[matrix[j][i] - (1 if i == j else 0) for j in range(k)] + [Fraction(0)]
            for i in range(k)]
    rows.append([Fraction(1)] * k + [Fraction(1)])
    n_rows = len(rows)
    pivot_row = 0
    pivots = []
    for col in range(k):
        sel = next((r for r in range(pivot_row, n_rows) if rows[r][col] != 0), None)
        if sel is None:
            continue
        rows[pivot_row], rows[sel] = rows[sel], rows[pivot_row]
        pv = rows[pivot_row][col]
        rows[pivot_row] = [x / pv for x in rows[pivot_row]]
        for r in range(n_rows):
            if r != pivot_row and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[pivot_row])]
        pivots.append(col)
        pivot_row += 1
    if len(pivots) < k:
        raise ModelError("the chain has more than one stationary distribution (it is reducible "
                         "with several closed classes)", "transition")
    return tuple(rows[i][k] for i in range(k))


@dataclass(frozen=True)
class MarkovChain:
    """A homogeneous Markov chain ``X_1 → ... → X_T`` (Wang et al., Privacy-Preserving Analysis of
    Correlated Data, §4.1).

    ``matrix[x][y] = P(X_{t+1} = states[y] | X_t = states[x])``.  ``initial`` is the distribution
    of ``X_1`` as a tuple over ``states``, or ``None`` for "any initial distribution" (the §5
    family, where the initial distribution is drawn from the whole simplex).
    """

    states: tuple
    matrix: Matrix
    length: int
    initial: tuple | None = None
    name: str = "θ"
    _powers: dict = field(default_factory=dict, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        k = len(self.states)
        if k < 1 or len(self.matrix) != k or any(len(r) != k for r in self.matrix):
            raise ModelError(f"the transition matrix must be {k}x{k}", f"{self.name}.transition")
        for i, row in enumerate(self.matrix):
            if any(p < 0 for p in row) or sum(row) != 1:
                raise ModelError(f"row {self.states[i]!r} must be a distribution (sums to "
                                 f"{fraction_str(sum(row))})", f"{self.name}.transition.{i}")
        if self.initial is not None and (len(self.initial) != k or sum(self.initial) != 1
                                         or any(p < 0 for p in self.initial)):
            raise ModelError("the initial distribution must be a distribution over the states",
                             f"{self.name}.initial")
        if self.length < 1:
            raise ModelError("a chain needs at least one node", f"{self.name}.length")

    @classmethod
    def binary(cls, p0: object, p1: object, length: int, initial: Sequence[object] | None = None,
               name: str | None = None) -> "MarkovChain":
        """The two-state chain of §5: ``p0 = P(0→0)``, ``p1 = P(1→1)`` (exact rationals)."""
        a, b = exact(p0, "p0"), exact(p1, "p1")
        if not (0 <= a <= 1 and 0 <= b <= 1):
            raise ModelError("p0 and p1 must lie in [0, 1]", "p0")
        init = None if initial is None else tuple(exact(x, "initial") for x in initial)
        return cls((0, 1), ((a, 1 - a), (1 - b, b)), length, init,
                   name or f"p0={fraction_str(a)},p1={fraction_str(b)}")

    @property
    def k(self) -> int:
        return len(self.states)

    def power(self, t: int) -> Matrix:
        """``P^t`` exactly (repeated squaring, cached): ``P^t[x][y] = P(X_{s+t}=y | X_s=x)``."""
        if t < 0:
            raise ValueError("t must be >= 0")
        if t in self._powers:
            return self._powers[t]
        if t == 0:
            result = identity(self.k)
        elif t == 1:
            result = self.matrix
        else:
            half = self.power(t // 2)
            result = mat_mul(half, half)
            if t % 2:
                result = mat_mul(result, self.matrix)
        self._powers[t] = result
        return result

    def stationary(self) -> tuple[Fraction, ...]:
        """The exact stationary distribution (see :func:`solve_stationary`)."""
        if "pi" not in self._powers:
            self._powers["pi"] = solve_stationary(self.matrix)
        return self._powers["pi"]

    def marginal(self, position: int) -> tuple[Fraction, ...]:
        """``P(X_position = ·)`` for 1-based ``position`` (needs a given initial distribution)."""
        if self.initial is None:
            raise UnsupportedError("the chain's initial distribution is 'any'; it has no single "
                                   "marginal", f"{self.name}.initial")
        row = self.initial
        if position > 2 and row == self.stationary_or_none():
            return row
        power = self.power(position - 1)
        return tuple(sum((row[x] * power[x][y] for x in range(self.k)), Fraction(0))
                     for y in range(self.k))

    def stationary_or_none(self) -> tuple | None:
        """The stationary distribution, or ``None`` when it is not unique."""
        try:
            return self.stationary()
        except ModelError:
            return None

    def is_reversible(self) -> bool:
        """Detailed balance ``π(x)P(x,y) = π(y)P(y,x)`` with the exact stationary distribution."""
        pi = self.stationary()
        return all(pi[x] * self.matrix[x][y] == pi[y] * self.matrix[y][x]
                   for x in range(self.k) for y in range(self.k))

    def with_initial(self, initial: tuple | None, name: str | None = None) -> "MarkovChain":
        return MarkovChain(self.states, self.matrix, self.length, initial, name or self.name)

    def stationary_start(self) -> "MarkovChain":
        """The same chain started from its stationary distribution."""
        return self.with_initial(self.stationary(), f"{self.name} (stationary start)")

    def to_bayesnet(self) -> BayesNet:
        """The chain as a :class:`BayesNet` over nodes ``1..T`` (needs a given initial)."""
        if self.initial is None:
            raise UnsupportedError("a Bayesian network needs a given initial distribution",
                                   f"{self.name}.initial")
        parents = {1: []}
        parents.update({t: [t - 1] for t in range(2, self.length + 1)})
        domains = {t: self.states for t in range(1, self.length + 1)}
        cpts: dict = {1: {(): dict(zip(self.states, self.initial))}}
        rows = {(s,): dict(zip(self.states, self.matrix[i])) for i, s in enumerate(self.states)}
        for t in range(2, self.length + 1):
            cpts[t] = rows
        return BayesNet.from_cpts(parents, domains, cpts, self.name)

    def to_dict(self) -> dict:
        return {"name": self.name, "states": list(self.states), "length": self.length,
                "transition": [[fraction_str(p) for p in row] for row in self.matrix],
                "initial": "any" if self.initial is None else [fraction_str(p) for p in self.initial]}


def reversible_chain(weights: Sequence[Sequence[object]], length: int,
                     initial: Sequence[object] | None = None, name: str = "θ") -> MarkovChain:
    """The random walk on a weighted undirected graph: ``P(x,y) = w(x,y) / Σ_z w(x,z)``.

    ``weights`` must be symmetric and nonnegative with positive row sums; the chain is reversible
    with ``π(x) ∝ Σ_z w(x,z)`` (detailed balance ``π(x)P(x,y) ∝ w(x,y)``).  Used to generate the
    reversible chains of Lemmas B.4–B.7.
    """
    W = [[exact(x, f"weights.{i}.{j}") for j, x in enumerate(row)] for i, row in enumerate(weights)]
    k = len(W)
    for i in range(k):
        for j in range(k):
            if W[i][j] < 0 or W[i][j] != W[j][i]:
                raise ModelError("weights must be symmetric and nonnegative", f"weights.{i}.{j}")
    sums = [sum(row) for row in W]
    if any(s <= 0 for s in sums):
        raise ModelError("every row of weights needs a positive sum", "weights")
    matrix = tuple(tuple(W[i][j] / sums[i] for j in range(k)) for i in range(k))
    init = None if initial is None else tuple(exact(x, "initial") for x in initial)
    return MarkovChain(tuple(range(k)), matrix, length, init, name)


def chain_from_markov_prior(prior: MarkovPrior) -> MarkovChain:
    """A :class:`MarkovChain` from a homogeneous :class:`MarkovPrior` (no dataset enumeration).

    Raises :class:`UnsupportedError` for a chain whose kernel changes from step to step or whose
    attributes have different domains.
    """
    kernels = prior.transitions
    if not kernels:
        states = tuple(prior.initial.support)
        return MarkovChain(states, identity(len(states)), 1,
                           tuple(prior.initial.prob(s) for s in states), prior.name)
    first = kernels[0]
    if any(k is not first and k != first for k in kernels[1:]):
        raise UnsupportedError("the chain algorithms need a homogeneous chain (one transition "
                               "kernel for every step)", f"priors.{prior.name}.markov")
    states = tuple(first)
    for s in prior.initial.support:
        if s not in first:
            raise UnsupportedError("the initial distribution uses a value with no transition row",
                                   f"priors.{prior.name}.markov.initial")
    matrix = tuple(tuple(first[s].prob(t) for t in states) for s in states)
    initial = tuple(prior.initial.prob(s) for s in states)
    return MarkovChain(states, matrix, len(prior.attributes), initial, prior.name)


def _parse_matrix(raw: Sequence[Sequence[object]], path: str) -> Matrix:
    return tuple(tuple(exact(x, f"{path}.{i}.{j}") for j, x in enumerate(row))
                 for i, row in enumerate(raw))


__all__ = ["BayesNet", "BayesNetFamily", "BayesNetPrior", "RenormalisedRow", "renormalised_note",
           "Factor", "MarkovChain", "chain_from_markov_prior",
           "reversible_chain",
           "mat_mul", "identity", "solve_stationary", "DEFAULT_MAX_JOINT"]
