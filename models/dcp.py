"""The finite model of Differential Confounding Privacy (DCP).

Source: Zhang et al., Differential Confounding Privacy and Inverse Composition, §II (the pair
``{θ, G}``, equation (2), Definition 1).  A secret ``S`` and a dataset ``X`` are jointly
distributed, ``P_θ(s, x)``; a mechanism sees only the dataset, ``γ(y | x)``; two secrets are
*adjacent* when the metric ``D(s, s' | θ) <= d`` — here the adjacency ``Q`` is given directly as a
list of secret pairs, the word ``"all"``, or a networkx graph whose edges are the pairs.  Every pair
is checked in both directions (equation (3) takes the supremum over ``Q``, and a metric is
symmetric), and only secrets with ``P_θ(s) > 0`` are constrained (§II: "for any s, s' with P_θ(s) >
0 and P_θ(s') > 0").

Everything is exact: the joint is a :class:`~pufferfish.models.distribution.Distribution` over ``(s, x)``
pairs, each mechanism row a :class:`Distribution` over outputs.  The randomized mapping ``G`` of
the paper is implicit: ``Pr[G(x) = s] = P_θ(s | x)``.

>>> model = DCPModel.build({"s0": {"a": "1/2"}, "s1": {"b": "1/4", "a": "1/4"}},
...                        [("s0", "s1")],
...                        {"id": {"a": {"A": 1}, "b": {"B": 1}}})
>>> model.dataset_given("s1").prob("b")
Fraction(1, 2)
>>> model.directions()
(('s0', 's1'), ('s1', 's0'))
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, join_path

SecretLabel = Hashable
DatasetLabel = Hashable
Output = Hashable


@dataclass(frozen=True, eq=False)
class DatasetKernel:
    """A mechanism ``M(γ): X -> Y`` given by one exact output distribution per dataset.

    ``rows[x]`` is ``γ(· | x)`` (Zhang et al., Differential Confounding Privacy and Inverse
    Composition, §II, the density ``γ: X -> Δ(Y)``).  Cost of a lookup: O(1).

    >>> k = DatasetKernel.build("coin", {"a": {0: "3/4", 1: "1/4"}, "b": {0: "1/4", 1: "3/4"}})
    >>> k.row("b").prob(1), k.outputs
    (Fraction(3, 4), (0, 1))
    """

    name: str
    rows: Mapping[DatasetLabel, Distribution]

    @classmethod
    def build(cls, name: str, rows: Mapping[DatasetLabel, object], path: str = "") -> "DatasetKernel":
        """Build from ``{x: Distribution | {y: p}}``, validating every row (exact, sums to 1)."""
        built: dict = {}
        for x, row in rows.items():
            built[x] = row if isinstance(row, Distribution) else Distribution(
                row, join_path(path, str(x)))  # type: ignore[arg-type]
        return cls(name, built)

    def row(self, dataset: DatasetLabel) -> Distribution:
        """``γ(· | dataset)``; a missing row is a :class:`ModelError`."""
        try:
            return self.rows[dataset]
        except KeyError:
            raise ModelError(f"mechanism {self.name!r} has no row for dataset {dataset!r}",
                             f"mechanisms.{self.name}") from None

    @property
    def outputs(self) -> tuple[Output, ...]:
        """Every output of positive probability for some dataset, in first-seen order."""
        seen: dict = {}
        for row in self.rows.values():
            for y in row.support:
                seen.setdefault(y, None)
        return tuple(seen)

    def to_dict(self) -> dict:
        return {str(x): {str(y): str(p) for y, p in row.items()} for x, row in self.rows.items()}


def adjacency_pairs(adjacency: object, secrets: Iterable[SecretLabel],
                    path: str = "adjacency") -> tuple[tuple[SecretLabel, SecretLabel], ...]:
    """The unordered adjacent pairs ``Q`` from a list of pairs, ``"all"`` or a networkx graph.

    Pairs are de-duplicated ignoring order; self-pairs and unknown secrets are refused.
    """
    known = list(secrets)
    if isinstance(adjacency, str):
        if adjacency != "all":
            raise ModelError(f"adjacency must be a list of pairs or \"all\", got {adjacency!r}", path)
        raw = [(a, b) for i, a in enumerate(known) for b in known[i + 1:]]
    elif hasattr(adjacency, "edges") and hasattr(adjacency, "nodes"):
        raw = list(adjacency.edges())  # a networkx graph
    else:
        raw = list(adjacency)  # type: ignore[call-overload]
    pairs: list = []
    seen: set = set()
    for k, pair in enumerate(raw):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise ModelError("an adjacent pair is a list of two secrets", join_path(path, k))
        a, b = pair
        for side, value in enumerate((a, b)):
            if value not in known:
                raise ModelError(f"unknown secret {value!r}; the secrets are {known}",
                                 join_path(path, k, side))
        if a == b:
            raise ModelError(f"a secret is not adjacent to itself ({a!r})", join_path(path, k))
        key = frozenset((a, b))
        if key not in seen:
            seen.add(key)
            pairs.append((a, b))
    if not pairs:
        raise ModelError("the adjacency has no pair of distinct secrets", path)
    return tuple(pairs)


@dataclass(frozen=True, eq=False)
class DCPModel:
    """A finite ``{θ, G}`` with its adjacency ``Q`` and the mechanisms under audit (Zhang et al.,
    Differential Confounding Privacy and Inverse Composition, §II).

    ``joint`` is ``P_θ`` over ``(secret, dataset)`` tuples; ``secrets`` and ``datasets`` fix the
    order used in reports (they may include labels of probability zero); ``pairs`` are unordered.
    """

    secrets: tuple[SecretLabel, ...]
    datasets: tuple[DatasetLabel, ...]
    joint: Distribution
    pairs: tuple[tuple[SecretLabel, SecretLabel], ...]
    mechanisms: Mapping[str, DatasetKernel] = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        secrets, datasets = set(self.secrets), set(self.datasets)
        if len(secrets) != len(self.secrets):
            raise ModelError("a secret is listed twice", "secrets")
        if len(datasets) != len(self.datasets):
            raise ModelError("a dataset is listed twice", "datasets")
        for outcome in self.joint.support:
            if not (isinstance(outcome, tuple) and len(outcome) == 2):
                raise ModelError(f"joint outcomes are (secret, dataset) pairs, got {outcome!r}",
                                 "joint")
            s, x = outcome
            if s not in secrets:
                raise ModelError(f"unknown secret {s!r}", join_path("joint", s))
            if x not in datasets:
                raise ModelError(f"unknown dataset {x!r}", join_path("joint", s, x))
        adjacency_pairs(self.pairs, self.secrets)
        live = {x for _, x in self.joint.support}
        for name, kernel in self.mechanisms.items():
            for x in self.datasets:
                if x in live and x not in kernel.rows:
                    raise ModelError(f"no output distribution for dataset {x!r}, which has "
                                     f"positive probability", join_path("mechanisms", name))
            for x in kernel.rows:
                if x not in datasets:
                    raise ModelError(f"unknown dataset {x!r}", join_path("mechanisms", name, x))

    @classmethod
    def build(cls, joint: Mapping[SecretLabel, Mapping[DatasetLabel, object]],
              adjacency: object,
              mechanisms: Mapping[str, object] | None = None,
              description: str = "",
              secrets: Iterable[SecretLabel] | None = None,
              datasets: Iterable[DatasetLabel] | None = None) -> "DCPModel":
        """Build from ``{s: {x: P_θ(s, x)}}``, an adjacency, and ``{name: {x: {y: p}}}`` kernels."""
        cells = {(s, x): p for s, row in joint.items() for x, p in row.items()}
        dist = Distribution(cells, "joint")
        secret_order = tuple(secrets) if secrets is not None else tuple(joint)
        if datasets is not None:
            dataset_order = tuple(datasets)
        else:
            dataset_order = tuple(dict.fromkeys(x for row in joint.values() for x in row))
        kernels = {}
        for name, kernel in (mechanisms or {}).items():
            kernels[name] = kernel if isinstance(kernel, DatasetKernel) else DatasetKernel.build(
                name, kernel, join_path("mechanisms", name))  # type: ignore[arg-type]
        return cls(secret_order, dataset_order, dist, adjacency_pairs(adjacency, secret_order),
                   kernels, description)

    # --- marginals and conditionals of P_θ ------------------------------------------------
    def secret_prior(self) -> Distribution:
        """``P_θ(s)``, the marginal of the secret."""
        return self.joint.marginal(0)

    def dataset_marginal(self) -> Distribution:
        """``P_θ(x)``, the marginal of the dataset."""
        return self.joint.marginal(1)

    def prior(self, secret: SecretLabel) -> Fraction:
        """``P_θ(secret)``."""
        return self.secret_prior().prob(secret)

    def dataset_given(self, secret: SecretLabel) -> Distribution:
        """``P_θ(x | secret)``; raises :class:`ModelError` if ``P_θ(secret) = 0``."""
        if not self.prior(secret):
            raise ModelError(f"P(secret {secret!r}) = 0, so P(x | {secret!r}) is undefined", "joint")
        return self.joint.condition(lambda o: o[0] == secret).marginal(1)

    def secret_given(self, dataset: DatasetLabel) -> Distribution:
        """``P_θ(s | dataset)`` = ``Pr[G(dataset) = s]``."""
        return self.joint.condition(lambda o: o[1] == dataset).marginal(0)

    def directions(self) -> tuple[tuple[SecretLabel, SecretLabel], ...]:
        """Ordered adjacent pairs ``(s, s')``, both directions, with ``P_θ(s), P_θ(s') > 0``."""
        prior = self.secret_prior()
        ordered = []
        for a, b in self.pairs:
            if prior.prob(a) and prior.prob(b):
                ordered.extend([(a, b), (b, a)])
        return tuple(ordered)

    def skipped_pairs(self) -> tuple[tuple[SecretLabel, SecretLabel], ...]:
        """Adjacent pairs left unconstrained because a secret has probability zero (§II)."""
        prior = self.secret_prior()
        return tuple(p for p in self.pairs if not (prior.prob(p[0]) and prior.prob(p[1])))

    def mechanism(self, name: str) -> DatasetKernel:
        """The mechanism called ``name``, or a :class:`ModelError` listing the known ones."""
        try:
            return self.mechanisms[name]
        except KeyError:
            raise ModelError(f"unknown mechanism {name!r}; the model has {sorted(self.mechanisms)}",
                             "--mechanism") from None

    def with_mechanisms(self, mechanisms: Mapping[str, DatasetKernel]) -> "DCPModel":
        """The same ``{θ, G}`` and adjacency with other mechanisms."""
        return DCPModel(self.secrets, self.datasets, self.joint, self.pairs, dict(mechanisms),
                        self.description)
