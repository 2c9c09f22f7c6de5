"""Group-DP sensitivity, the right-hand side of Theorem 3.3 (Wang et al., Privacy-Preserving
Analysis of Correlated Data, §3, Theorem 3.3; Appendix A.2.1, Definitions A.2–A.3; Appendix A.2.2).

Theorem 3.3 bounds the Wasserstein parameter ``W`` by the global sensitivity ``Δ_𝒢 F`` of the
query in the group-DP framework whose groups are the dependent sets of records:

* :func:`dependence_groups` — the groups as Appendix A.2.2 defines them: connected components of
  the graph with an edge ``i — j`` when ``X_i`` and ``X_j`` are not independent under some prior;
* :func:`groups_mutually_independent` — whether the groups are *mutually* independent (what the
  proof of A.2.2 actually uses);
* :func:`group_sensitivity` — ``Δ_𝒢 F = max_k max_{(x,y) ∈ D_k} |F(x) − F(y)|`` with a witness.

Example (two independent fair coins, the count query: each coin is its own group and changing one
coin changes the count by 1):

>>> from pufferfish.models.model import PufferfishModel
>>> from pufferfish.models.priors import UniformPrior
>>> from pufferfish.models.secrets import entry_pairs, entry_secrets
>>> from pufferfish.models.universe import Universe
>>> universe = Universe.product(["x1", "x2"], [[0, 1]] * 2)
>>> model = PufferfishModel(universe, {"uniform": UniformPrior("uniform", universe)},
...                         entry_secrets(universe), entry_pairs(universe))
>>> dependence_groups(model)
((0,), (1,))
>>> group_sensitivity(universe, sum, dependence_groups(model))[0]
Fraction(1, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from itertools import combinations, product

from pufferfish.models.model import PufferfishModel
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe
from pufferfish.verify.privacy.supports import prior_supports


def dependence_groups(model: PufferfishModel, max_datasets: int = DEFAULT_MAX_DATASETS
                      ) -> tuple[tuple[int, ...], ...]:
    """The groups of Theorem 3.3 as Appendix A.2.2 defines them: connected components of the graph
    with an edge ``i — j`` when ``X_i`` and ``X_j`` are not independent under some finite prior
    (pairwise independence, checked exactly).  Cost ``O(n^2 · |support|)`` per prior."""
    import networkx as nx

    n = model.universe.width
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for support in prior_supports(model, max_datasets).values():
        for i, j in combinations(range(n), 2):
            if graph.has_edge(i, j):
                continue
            joint: dict[tuple, Fraction] = {}
            left: dict[object, Fraction] = {}
            right: dict[object, Fraction] = {}
            for dataset, p in support:
                joint[(dataset[i], dataset[j])] = joint.get((dataset[i], dataset[j]), 0) + p
                left[dataset[i]] = left.get(dataset[i], 0) + p
                right[dataset[j]] = right.get(dataset[j], 0) + p
            if any(joint.get((a, b), 0) != pa * pb for a, pa in left.items()
                   for b, pb in right.items()):
                graph.add_edge(i, j)
    return tuple(sorted(tuple(sorted(c)) for c in nx.connected_components(graph)))


def groups_mutually_independent(model: PufferfishModel, groups: Sequence[Sequence[int]],
                                max_datasets: int = DEFAULT_MAX_DATASETS) -> bool:
    """Exactly: under every finite prior the joint law is the product of the groups' marginals.
    Cost ``O(Π_k |marginal_k|)`` per prior."""
    for support in prior_supports(model, max_datasets).values():
        marginals = []
        for group in groups:
            marginal: dict[tuple, Fraction] = {}
            for dataset, p in support:
                key = tuple(dataset[i] for i in group)
                marginal[key] = marginal.get(key, Fraction(0)) + p
            marginals.append(marginal)
        joint = dict(support)
        for combo in product(*(m.items() for m in marginals)):
            dataset = [None] * model.universe.width
            p = Fraction(1)
            for group, (key, q) in zip(groups, combo):
                for i, v in zip(group, key):
                    dataset[i] = v
                p *= q
            if joint.get(tuple(dataset), Fraction(0)) != p:
                return False
    return True


def group_sensitivity(universe: Universe, query: Callable[[Dataset], object],
                      groups: Sequence[Sequence[int]],
                      max_datasets: int = DEFAULT_MAX_DATASETS) -> tuple[Fraction, tuple | None]:
    """``Δ_𝒢 F = max_k max_{(x,y) ∈ D_k} |F(x) − F(y)|`` (Appendix A.2.1, Definitions A.2–A.3),
    ``D_k`` = pairs of datasets of the universe that differ only in the entries of group ``k``.
    Returns the value and a witness ``(group, x, y)``.  Cost ``O(|𝒰| · Σ_k |𝒰_k|)``."""
    datasets = list(universe.datasets(max_datasets))
    best, witness = Fraction(0), None
    for group in groups:
        members = set(group)
        classes: dict[tuple, list[Fraction]] = {}
        examples: dict[tuple, tuple[tuple, tuple]] = {}
        for dataset in datasets:
            rest = tuple(v for i, v in enumerate(dataset) if i not in members)
            value = Fraction(query(dataset))
            bucket = classes.setdefault(rest, [value, value])
            low, high = examples.setdefault(rest, (dataset, dataset))
            if value < bucket[0]:
                bucket[0], low = value, dataset
            if value > bucket[1]:
                bucket[1], high = value, dataset
            examples[rest] = (low, high)
        for rest, (low, high) in classes.items():
            if high - low > best:
                best = high - low
                witness = (tuple(group), examples[rest][0], examples[rest][1])
    return best, witness
