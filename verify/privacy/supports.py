"""The enumerated view of a model that audits share: each prior's support and the datasets to tabulate.

Computations that need every dataset of positive prior probability call :func:`prior_supports`
once per model; the supports are cached on the model (they are immutable), so auditing several
mechanisms of one model enumerates each prior once.  Enumeration respects the dataset limit.
"""

from __future__ import annotations

from fractions import Fraction

from pufferfish.models.model import PufferfishModel
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset

Support = list[tuple[Dataset, Fraction]]
"""A finite prior's support: its datasets of positive probability with their probabilities."""


def prior_supports(model: PufferfishModel, limit: int = DEFAULT_MAX_DATASETS) -> dict[str, Support]:
    """``{prior name: [(D, θ(D)), ...]}`` for the model's finite priors (cached per model state and limit)."""
    cache = _cache(model)
    key = ("supports", limit)
    if key not in cache:
        cache[key] = {name: [(d, p) for d, p in prior.support(limit) if d in model.universe]
                      for name, prior in model.finite_priors.items()}
    return cache[key]


def audited_datasets(model: PufferfishModel, limit: int = DEFAULT_MAX_DATASETS) -> list[Dataset]:
    """Every dataset an audit reads: the finite priors' supports and the interval families' blocks."""
    cache = _cache(model)
    key = ("datasets", limit)
    if key not in cache:
        seen: dict[Dataset, None] = {}
        for support in prior_supports(model, limit).values():
            for dataset, _ in support:
                seen.setdefault(dataset, None)
        for family in model.interval_families.values():
            for blocks in family.blocks.values():
                for block in blocks:
                    for dataset in block.datasets:
                        seen.setdefault(dataset, None)
        cache[key] = list(seen)
    return cache[key]


def _cache(model: PufferfishModel) -> dict:
    """The model's cache, emptied when its universe or any prior has been replaced since it was filled.

    ``PufferfishModel`` is a mutable container, so the cache remembers the identity of what it was
    computed from and is dropped when that changes.
    """
    fingerprint = (id(model.universe), tuple((n, id(p)) for n, p in model.priors.items()))
    stored = model.__dict__.get("_support_cache")
    if stored is None or stored[0] != fingerprint:
        stored = (fingerprint, {})
        model.__dict__["_support_cache"] = stored
    return stored[1]
