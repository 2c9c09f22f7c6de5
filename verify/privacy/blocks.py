"""An exact audit split into blocks of datasets, each block a task (``pufferfish audit`` on 2^20
datasets, on one process or a Dask cluster).

Definitions 4 and 5 (Bai et al., Composition for Pufferfish Privacy, §2.2) need, for each finite
prior θ and each mechanism, the masses ``Pr[s ∧ M(Data) = ω | θ]``
(:mod:`pufferfish.verify.privacy.joint`).  These are sums over the prior's support, so they split
over any partition of it:

* a prior is cut into blocks by a prefix of its attributes (:meth:`Prior.prefix_blocks
  <pufferfish.models.priors.Prior.prefix_blocks>`: independent priors and Markov chains; any other
  prior is one block);
* a block task (:func:`support_block_sums`) enumerates only its datasets and returns, for every
  mechanism and for their joint release, the integer-scaled prior mass of each
  (signature, kernel key) — the secrets a dataset satisfies and what of it the mechanism reads
  (:meth:`Mechanism.kernel_key <pufferfish.models.mechanisms.Mechanism.kernel_key>`) — with the
  block's own common denominator, and the first dataset of each key;
* the reduction (:func:`merge_block_sums`) rescales every block to the least common multiple of
  their denominators and adds: exact integer arithmetic, so the result does not depend on how
  the support was cut or where the blocks ran.

The order of first appearance of kernel keys over the blocks (in prior order, then block order) is
the order in which a one-pass audit meets them, so the kernel table built from one representative
dataset per key has the same outputs in the same order and the same denominator, and every level,
witness and tie-break is the same, bit for bit, as
:func:`~pufferfish.verify.privacy.pufferfish.pufferfish_level` and
:func:`~pufferfish.verify.privacy.leakage.leakage` on the whole universe
(tests compare them on many models).  Memory per task is bounded by its block; the driver keeps
``O(#signatures·#keys)`` integers per prior and mechanism.

Cost per block: ``O(|block|·(#secrets + #mechanisms))`` key and signature evaluations.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from pufferfish.models.model import PufferfishModel
from pufferfish.models.universe import Dataset
from pufferfish.verify.privacy.pufferfish import pair_secrets

BLOCK_DATASETS = 2**15
"""Target number of datasets per block: large enough that a task's overhead is small, small enough
that a block's memory (a few MB) is negligible."""


@dataclass(frozen=True)
class BlockSums:
    """One block's exact partial sums.

    ``groups[slot][(signature, key)] / denominator`` is the prior mass of the block's datasets
    that satisfy exactly the secrets ``signature`` and have kernel key ``key`` for mechanism
    ``slot`` (the model's mechanisms in order, then their joint release); ``first[slot]`` maps each
    key to its first dataset in the block.
    """

    prior: str
    denominator: int
    groups: tuple[dict, ...]
    first: tuple[dict, ...]


def shippable(model: PufferfishModel) -> PufferfishModel:
    """The model without the caches an in-process audit may have filled (the enumerated
    supports), so that sending it to workers costs its description, not the universe."""
    shipped = copy.copy(model)
    shipped.__dict__.pop("_support_cache", None)
    return shipped


def audited_secrets(model: PufferfishModel) -> list:
    """Every secret an audit reads: the declared secrets, then those only named in pairs."""
    secrets = {s.name: s for s in model.secrets.values()}
    for secret in pair_secrets(model):
        secrets.setdefault(secret.name, secret)
    return list(secrets.values())


def block_plan(model: PufferfishModel, tasks_wanted: int = 1,
               max_block: int = BLOCK_DATASETS) -> list[tuple[str, tuple, Fraction]]:
    """The blocks of every finite prior, ``(prior name, prefix, Pr[prefix])`` in audit order: each
    prior cut at the shallowest depth giving at least ``tasks_wanted`` blocks and at most
    ``min(max_block, BLOCK_DATASETS)`` datasets per block (as far as its structure allows:
    :meth:`~pufferfish.models.priors.Prior.block_bound`)."""
    target = min(max_block, BLOCK_DATASETS)
    plan = []
    for name, prior in model.finite_priors.items():
        depth, blocks = 0, [((), Fraction(1))]
        while blocks and depth < model.universe.width and (
                len(blocks) < tasks_wanted or prior.block_bound(depth) > target):
            deeper = prior.prefix_blocks(depth + 1)
            if deeper == [((), Fraction(1))]:
                break  # the prior is not split into blocks
            depth, blocks = depth + 1, deeper
        plan.extend((name, prefix, probability) for prefix, probability in blocks)
    return plan


def support_block_sums(model: PufferfishModel, prior_name: str, prefix: tuple,
                       probability: Fraction) -> BlockSums:
    """The partial sums of one block (a task: a pure function of its arguments)."""
    prior = model.finite_priors[prior_name]
    universe = model.universe
    denominator, support = prior.scaled_support_under(prefix, probability)
    if universe.explicit is not None or not prior.values_within(universe.domains):
        support = ((d, w) for d, w in support if d in universe)
    secrets = [(s.name, s.holds) for s in audited_secrets(model)]
    mechanisms = list(model.mechanisms.values())
    slots = len(mechanisms) + (1 if len(mechanisms) >= 2 else 0)
    groups: list[dict] = [{} for _ in range(slots)]
    first: list[dict] = [{} for _ in range(slots)]
    for dataset, weight in support:
        signature = tuple(name for name, holds in secrets if holds(dataset))
        keys = [m.kernel_key(dataset) for m in mechanisms]
        if slots > len(mechanisms):
            keys.append(tuple(keys))  # the joint release's key: its parts' keys
        for slot, key in enumerate(keys):
            group = groups[slot]
            entry = (signature, key)
            group[entry] = group.get(entry, 0) + weight
            first[slot].setdefault(key, dataset)
    return BlockSums(prior_name, denominator, tuple(groups), tuple(first))


def merge_block_sums(blocks: Sequence[BlockSums], priors: Sequence[str], slots: int
                     ) -> tuple[dict[str, list[dict]], list[dict[object, Dataset]]]:
    """Exact reduction: ``({prior: [groups per slot]}, [first dataset per key, per slot])``.

    Each prior's blocks are rescaled to one common denominator (the lcm of theirs); keys keep
    their order of first appearance over the blocks in order.
    """
    by_prior: dict[str, list[BlockSums]] = {name: [] for name in priors}
    for block in blocks:
        by_prior.setdefault(block.prior, []).append(block)
    merged: dict[str, list[dict]] = {}
    first: list[dict] = [{} for _ in range(slots)]
    for prior, parts in by_prior.items():
        scale = lcm(*(part.denominator for part in parts)) if parts else 1
        groups: list[dict] = [{} for _ in range(slots)]
        for part in parts:
            factor = scale // part.denominator
            for slot in range(slots):
                target = groups[slot]
                for entry, weight in part.groups[slot].items():
                    target[entry] = target.get(entry, 0) + weight * factor
                for key, dataset in part.first[slot].items():
                    first[slot].setdefault(key, dataset)
        merged[prior] = groups
    return merged, first
