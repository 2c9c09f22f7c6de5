"""The Pufferfish model: universe, prior family Θ, secrets, secret pairs 𝕊 and mechanisms.

This is the in-memory form of a model file (DESIGN.md, "Model files"), the instantiation of
Definition 5 of Bai et al., Composition for Pufferfish Privacy, §2.2: a set Θ of priors, a set 𝕊 of
secret pairs, and the mechanisms to audit; optionally the neighbour relation their DP levels are
taken under (Definitions 1–3, §2.1; :mod:`pufferfish.models.neighbours`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.neighbours import NeighbourRelation, parse_neighbours
from pufferfish.models.priors import IntervalFamily, Prior, PriorLike
from pufferfish.models.secrets import Secret, SecretPair
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Universe, size_text


@dataclass(repr=False)
class PufferfishModel:
    """A complete finite Pufferfish instantiation plus the mechanisms under audit.

    ``neighbours``: the neighbour relation the model's DP levels are taken under (``None``: the
    audit's default, per-entry and, with multi-attribute records, per-record), checked against
    the universe.  Its ``repr`` is one line; notebooks show a summary table (``_repr_html_``).

    A model with neither priors nor secret pairs is a *DP-only* model (:attr:`dp_only`): DP
    (Bai et al., Composition for Pufferfish Privacy, §2.1, Definitions 1–3) needs only the
    datasets, the neighbour relation and the mechanisms, so no prior need be invented to check
    it; an audit then computes the DP levels alone, and the analyses that need priors refuse it
    (:meth:`require_priors`).

    >>> from pufferfish.api import load
    >>> load("quickstart.json")
    <PufferfishModel: 3 attributes, 8 datasets, priors fair, sticky; 1 secret pair; mechanisms rr, sum>
    """

    universe: Universe
    priors: dict[str, PriorLike]
    secrets: dict[str, Secret]
    pairs: list[SecretPair]
    mechanisms: dict[str, Mechanism] = field(default_factory=dict)
    description: str = ""
    neighbours: NeighbourRelation | None = None

    def __post_init__(self) -> None:
        if self.pairs and not self.priors:
            raise ModelError("the model has secret pairs but no prior: Pufferfish privacy needs "
                             "at least one prior; for DP alone leave out the priors, secrets and "
                             "pairs", "priors")
        if self.priors and not self.pairs:
            raise ModelError("the model needs at least one secret pair", "pairs")
        for name, family in self.priors.items():
            if isinstance(family, IntervalFamily):
                self._check_interval_family(name, family)
        if self.neighbours is not None:
            self.neighbours.check(self.universe, "neighbours")

    @classmethod
    def build(cls, universe: Universe, priors: Sequence[PriorLike], pairs: Sequence[SecretPair],
              mechanisms: Sequence[Mechanism] = (), *, description: str = "",
              neighbours: object = None) -> "PufferfishModel":
        """A model from lists: ``priors`` and ``mechanisms`` are keyed by their own names (which
        must differ), the secrets are those of the ``pairs``, and ``neighbours`` is a relation in
        any form :func:`~pufferfish.models.neighbours.parse_neighbours` reads (``"linf:1"``).

        >>> from fractions import Fraction
        >>> from pufferfish.models import (IndependentPrior, MarkovPrior, RandomizedResponse,
        ...                                Universe, entry_pairs)
        >>> u = Universe.product(["x1", "x2", "x3"], [[0, 1]] * 3)
        >>> fair = IndependentPrior.iid("fair", u, {0: "1/2", 1: "1/2"})
        >>> sticky = MarkovPrior.homogeneous("sticky", u, {0: "1/2", 1: "1/2"},
        ...                                  {0: {0: "9/10", 1: "1/10"}, 1: {0: "1/10", 1: "9/10"}})
        >>> PufferfishModel.build(u, [fair, sticky], entry_pairs(u)[:1],
        ...                       [RandomizedResponse("rr", u, Fraction(3, 4))])
        <PufferfishModel: 3 attributes, 8 datasets, priors fair, sticky; 1 secret pair; mechanisms rr>
        """
        named_priors: dict[str, PriorLike] = {}
        for prior in priors:
            if prior.name in named_priors:
                raise ModelError(f"two priors are called {prior.name!r}", "priors")
            named_priors[prior.name] = prior
        named_mechanisms: dict[str, Mechanism] = {}
        for mechanism in mechanisms:
            if mechanism.name in named_mechanisms:
                raise ModelError(f"two mechanisms are called {mechanism.name!r}", "mechanisms")
            named_mechanisms[mechanism.name] = mechanism
        secrets: dict[str, Secret] = {}
        for pair in pairs:
            for secret in (pair.first, pair.second):
                if secrets.setdefault(secret.name, secret) != secret:
                    raise ModelError(f"two different secrets are called {secret.name!r}",
                                     "secrets")
        relation = None if neighbours is None else parse_neighbours(neighbours, universe)
        return cls(universe, named_priors, secrets, list(pairs), named_mechanisms, description,
                   relation)

    def _check_interval_family(self, name: str, family: IntervalFamily) -> None:
        """Blocks hold only datasets of their secret, cover them all, and the secrets are disjoint.

        The model-file reader reports these with the JSON path of the offending block while it
        resolves the blocks; this check guards families built in code.  Coverage needs the
        universe enumerated, so it is skipped beyond the default dataset limit.
        """
        path = f"priors.{name}.interval"
        for secret_name, blocks in family.blocks.items():
            secret = self.secrets.get(secret_name)
            if secret is None:
                raise ModelError(f"unknown secret {secret_name!r}", path)
            for k, block in enumerate(blocks):
                for dataset in block.datasets:
                    if not secret.holds(dataset):
                        raise ModelError(f"dataset {list(dataset)} of block {k} does not satisfy "
                                         f"the secret {secret_name!r}", f"{path}.{secret_name}")
                    for other in family.blocks:
                        if other != secret_name and self.secrets[other].holds(dataset):
                            raise ModelError(f"the secrets {secret_name!r} and {other!r} of one "
                                             f"interval family must be disjoint, but both hold on "
                                             f"dataset {list(dataset)}", path)
        if self.universe.size > DEFAULT_MAX_DATASETS:
            return
        covered = {secret_name: {d for b in blocks for d in b.datasets}
                   for secret_name, blocks in family.blocks.items()}
        for dataset in self.universe.datasets():
            for secret_name, members in covered.items():
                if dataset not in members and self.secrets[secret_name].holds(dataset):
                    raise ModelError(f"the blocks of secret {secret_name!r} do not cover dataset "
                                     f"{list(dataset)}, where it holds", f"{path}.{secret_name}")

    @property
    def dp_only(self) -> bool:
        """Whether the model has neither priors nor secret pairs: only DP levels apply.

        >>> from pufferfish.api import load
        >>> load("quickstart.json").dp_only
        False
        """
        return not self.priors and not self.pairs

    def require_priors(self, what: str) -> None:
        """Refuse a DP-only model for ``what``, an analysis that needs priors and secret pairs."""
        if self.dp_only:
            raise ModelError(f"{what} needs priors and secret pairs, and this model has none "
                             f"(a DP-only model): add \"priors\", \"secrets\" and \"pairs\", "
                             f"or compute its DP levels with `pufferfish audit`", "priors")

    def __repr__(self) -> str:
        universe = self.universe
        mechanisms = f"mechanisms {_names(self.mechanisms)}" if self.mechanisms \
            else "no mechanisms"
        priors = ("no priors, no secret pairs (DP only)" if self.dp_only else
                  f"priors {_names(self.priors)}; {_count(len(self.pairs), 'secret pair')}")
        return (f"<PufferfishModel: {_count(universe.width, 'attribute')}, "
                f"{size_text(universe.size)} datasets, {priors}; {mechanisms}>")

    def _repr_html_(self) -> str:
        universe = self.universe
        domains = ("; ".join(f"{a} ∈ {{{', '.join(map(str, d))}}}"
                             for a, d in zip(universe.attributes, universe.domains)))
        rows = [("attributes", domains),
                ("datasets", f"{size_text(universe.size)} "
                             f"({'the product of the domains' if universe.explicit is None else 'listed'})"),
                ("priors Θ", ", ".join(f"{n} ({_KINDS.get(type(p).__name__, type(p).__name__)})"
                                       for n, p in self.priors.items())),
                ("secret pairs 𝕊", ", ".join(pair.label for pair in self.pairs)),
                ("mechanisms", ", ".join(self.mechanisms) or "none"),
                ("neighbours", self.neighbours.label if self.neighbours is not None
                 else "default (entry, and record with multi-attribute records)")]
        cells = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(_shorten(v))}</td></tr>"
                        for k, v in rows)
        title = html.escape(self.description or "Pufferfish model")
        return f"<table><caption>{title}</caption><tbody>{cells}</tbody></table>"

    def assumptions(self) -> tuple[str, ...]:
        """What every verdict on this model takes on trust, in words: the trusted programs among
        its mechanisms (:meth:`pufferfish.models.mechanisms.Mechanism.assumptions`)."""
        return tuple(dict.fromkeys(text for mechanism in self.mechanisms.values()
                                   for text in mechanism.assumptions()))

    @property
    def finite_priors(self) -> dict[str, Prior]:
        """The ordinary (single) priors of Θ."""
        return {n: p for n, p in self.priors.items() if isinstance(p, Prior)}

    @property
    def interval_families(self) -> dict[str, IntervalFamily]:
        """The interval families of Θ."""
        return {n: p for n, p in self.priors.items() if isinstance(p, IntervalFamily)}

    def mechanism(self, name: str) -> Mechanism:
        """The mechanism called ``name``, with a clear error listing the known names."""
        try:
            return self.mechanisms[name]
        except KeyError:
            raise ModelError(f"unknown mechanism {name!r}; the model has "
                             f"{sorted(self.mechanisms)}", "mechanisms") from None

    def check_secrets_match(self, limit: int = DEFAULT_MAX_DATASETS) -> None:
        """Every secret used in a pair must hold on at least one dataset of the universe."""
        used = {s.name: s for pair in self.pairs for s in (pair.first, pair.second)}
        if self.universe.size > limit:
            return
        matched = {name: False for name in used}
        for dataset in self.universe.datasets(limit):
            for name, secret in used.items():
                if not matched[name] and secret.holds(dataset):
                    matched[name] = True
            if all(matched.values()):
                return
        missing = [n for n, ok in matched.items() if not ok]
        raise ModelError(f"secret {missing[0]!r} matches no dataset of the universe",
                         f"secrets.{missing[0]}")


_KINDS = {"TablePrior": "table", "IndependentPrior": "independent", "MarkovPrior": "Markov chain",
          "UniformPrior": "uniform", "IntervalFamily": "interval family"}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _names(names: Sequence[str], limit: int = 4) -> str:
    """``a, b`` or, beyond ``limit`` names, ``a, b, c, d, … (9)``."""
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown}, … ({len(names)})"


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
