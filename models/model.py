"""The Pufferfish model: universe, prior family Θ, secrets, secret pairs 𝕊 and mechanisms.

This is the in-memory form of a model file (DESIGN.md, "Model files"), the instantiation of
Definition 5 of ``000_65109fe28ca61d17.txt`` §2.2: a set Θ of priors, a set 𝕊 of secret pairs, and
the mechanisms to audit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from models.errors import ModelError
from models.mechanisms import Mechanism
from models.priors import IntervalFamily, Prior, PriorLike
from models.secrets import Secret, SecretPair
from models.universe import DEFAULT_MAX_DATASETS, Universe


@dataclass
class PufferfishModel:
    """A complete finite Pufferfish instantiation plus the mechanisms under audit."""

    universe: Universe
    priors: dict[str, PriorLike]
    secrets: dict[str, Secret]
    pairs: list[SecretPair]
    mechanisms: dict[str, Mechanism] = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        if not self.priors:
            raise ModelError("the model needs at least one prior", "priors")
        if not self.pairs:
            raise ModelError("the model needs at least one secret pair", "pairs")
        for name, family in self.priors.items():
            if isinstance(family, IntervalFamily):
                for secret in family.blocks:
                    if secret not in self.secrets:
                        raise ModelError(f"unknown secret {secret!r}", f"priors.{name}.interval")

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
