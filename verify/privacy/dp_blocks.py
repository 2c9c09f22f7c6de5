"""Per-entry DP levels of a product universe split into blocks, neighbours compared as arrays.

Definition 2 (``000_65109fe28ca61d17.txt`` §2.1) compares ``M(D)`` with ``M(D')`` for every pair
of datasets that differ in one attribute.  :func:`~pufferfish.verify.privacy.dp.dp_level` walks
the pairs one by one; on a product universe of ``N`` datasets the same scan is done here in two
passes over blocks of consecutive datasets (a prefix of the attributes fixed):

1. :func:`kernel_key_block`: the kernel key of every dataset of the block, numbered in order of
   first appearance (a task per block; the driver renumbers them globally, in block order);
2. :func:`neighbour_pair_block`: for every dataset ``D`` of the block (index ``i`` in the
   universe's order) and every one-attribute change ``D'`` (index ``i + (v' − v)·stride``), the
   pair of key numbers, as one integer code per pair, with the position of its first appearance
   in the one-by-one scan order (dataset by dataset, attribute by attribute, value by value) —
   NumPy arrays, ``O(|block|·Σ(d_i − 1))`` per block.

Datasets with equal keys share one kernel row, so only distinct key pairs need their rows compared;
:func:`dp_levels_blocked` (every mechanism of a model in the same two passes) compares them in order of first appearance, exactly as the one-by-one
scan does (same strict-improvement rule, same stop at the first infinite ratio, same count of
pairs checked), and returns the same :class:`~pufferfish.verify.privacy.dp.DPResult`, bit for bit.
Key numbers are ``int64``: this module is used when the number of distinct keys is below
:data:`MAX_KEYS` (so that a pair code fits); otherwise the one-by-one scan runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from itertools import product as cartesian

import numpy as np

from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.numbers import INFINITY, Ratio
from pufferfish.models.universe import Dataset, Universe
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.privacy.dp import DPResult

MAX_KEYS = 2**31
"""Above this many distinct kernel keys a pair code would not fit 64 bits."""

DP_BLOCK_DATASETS = 2**17
"""Most datasets per block: a block's arrays (one int64 per neighbour pair) stay near 20 MB, and a
task is long enough (a few hundred milliseconds) that scheduling costs little."""


def universe_blocks(universe: Universe, target: int) -> list[tuple[int, int, tuple]]:
    """``(start, stop, prefix)``: the product universe cut by its first attributes into at least
    ``target`` blocks of consecutive datasets (or single datasets if there are fewer)."""
    depth, count = 0, 1
    while depth < universe.width and count < target:
        count *= len(universe.domains[depth])
        depth += 1
    size = universe.size // count
    return [(k * size, (k + 1) * size, prefix)
            for k, prefix in enumerate(cartesian(*universe.domains[:depth]))]


def dp_block_count(universe: Universe, tasks: int = 1, max_block: int = DP_BLOCK_DATASETS) -> int:
    """How many blocks :func:`dp_levels_blocked` cuts a product universe into: at least ``tasks``,
    and at most ``min(max_block, DP_BLOCK_DATASETS)`` datasets each (single datasets at worst)."""
    return len(_blocks(universe, tasks, max_block))


def _blocks(universe: Universe, tasks: int, max_block: int) -> list[tuple[int, int, tuple]]:
    largest = min(max_block, DP_BLOCK_DATASETS)
    return universe_blocks(universe, max(tasks, -(-universe.size // largest)))


def kernel_key_block(shared: tuple[Sequence[Mechanism], Universe], prefix: tuple
                     ) -> list[tuple[list, list[Dataset], np.ndarray]]:
    """For each mechanism, ``(keys, first datasets, numbers)``: the block's distinct keys in order
    of first appearance, the first dataset of each, and each dataset's key number (a task;
    ``shared`` is ``(mechanisms, universe)``)."""
    mechanisms, universe = shared
    numberings: list[dict] = [{} for _ in mechanisms]
    firsts: list[list[Dataset]] = [[] for _ in mechanisms]
    columns: list[list[int]] = [[] for _ in mechanisms]
    for rest in cartesian(*universe.domains[len(prefix):]):
        dataset = prefix + rest
        for mechanism, numbers, first, column in zip(mechanisms, numberings, firsts, columns):
            key = mechanism.kernel_key(dataset)
            number = numbers.get(key)
            if number is None:
                number = numbers[key] = len(numbers)
                first.append(dataset)
            column.append(number)
    return [(list(numbers), first, np.asarray(column, dtype=np.int64))
            for numbers, first, column in zip(numberings, firsts, columns)]


def neighbour_pair_block(shared: tuple[np.ndarray, Sequence[int], tuple[int, ...]], start: int,
                         stop: int) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """For each mechanism, the distinct key-pair codes of the block's one-attribute neighbour
    pairs and the scan position of each one's first appearance (a task; ``shared`` is the key
    numbers of every mechanism, one row each, their key counts — 0 to skip a mechanism — and the
    domain sizes).  ``code = key(D)·keys + key(D')``."""
    key_numbers, key_counts, domain_sizes = shared
    index = np.arange(start, stop, dtype=np.int64)
    strides, stride = [], 1
    for size in reversed(domain_sizes):
        strides.append(stride)
        stride *= size
    strides.reverse()
    neighbours = []  # (index of D' for each D of the block), in scan order per D
    for size, step in zip(domain_sizes, strides):
        value = (index // step) % size
        for rank in range(size - 1):  # the other values in domain order, skipping D's own
            neighbours.append(index + (rank + (rank >= value) - value) * step)
    results: list[tuple[np.ndarray, np.ndarray] | None] = []
    for numbers, keys in zip(key_numbers, key_counts):
        if not keys:
            results.append(None)
        elif not neighbours:
            results.append((np.zeros(0, np.int64), np.zeros(0, np.int64)))
        else:
            own = numbers[start:stop] * keys
            codes = np.stack([own + numbers[other] for other in neighbours], axis=1).ravel()
            distinct, first = np.unique(codes, return_index=True)  # row-major: the scan order
            results.append((distinct, first + start * len(neighbours)))
    return results


def dp_levels_blocked(universe: Universe, mechanisms: Sequence[Mechanism], max_outputs: int,
                      engine: Engine | None = None, tasks: int = 1,
                      max_block: int = DP_BLOCK_DATASETS) -> list[DPResult | None]:
    """The per-entry DP level of each mechanism (Definition 2) as :func:`dp_level` computes it,
    or ``None`` for a mechanism where this method does not apply (too many keys; every entry is
    ``None`` on an explicit universe).  All mechanisms share each pass over the blocks: one task
    per block computes every mechanism's keys, then one task per block every mechanism's pairs;
    at least ``tasks`` blocks of at most ``max_block`` datasets (:func:`dp_block_count`).

    Cost: ``O(N·Σ(d_i − 1))`` array operations per mechanism plus ``O(P·|Ω|)`` exact comparisons
    for the ``P`` distinct key pairs; memory ``O(N)`` per mechanism for the key numbers plus one
    block's pairs per task.
    """
    if universe.explicit is not None:
        return [None] * len(mechanisms)
    engine = engine or InProcessEngine()
    mechanisms = list(mechanisms)
    blocks = _blocks(universe, tasks, max_block)
    parts = engine.map(kernel_key_block, [(prefix,) for *_, prefix in blocks],
                       shared=(mechanisms, universe))
    key_numbers = np.empty((len(mechanisms), universe.size), dtype=np.int64)
    key_counts, first_datasets = [], []
    for m in range(len(mechanisms)):
        numbering: dict = {}
        firsts: list[Dataset] = []
        for (start, stop, _), block in zip(blocks, parts):
            keys, block_firsts, column = block[m]
            renumber = np.empty(len(keys), dtype=np.int64)
            for k, (key, dataset) in enumerate(zip(keys, block_firsts)):
                number = numbering.get(key)
                if number is None:
                    number = numbering[key] = len(numbering)
                    firsts.append(dataset)
                renumber[k] = number
            key_numbers[m, start:stop] = renumber[column]
        key_counts.append(len(numbering) if len(numbering) < MAX_KEYS else 0)
        first_datasets.append(firsts)
    del parts
    sizes = tuple(len(d) for d in universe.domains)
    pair_parts = engine.map(neighbour_pair_block, [(start, stop) for start, stop, _ in blocks],
                            shared=(key_numbers, key_counts, sizes))
    del key_numbers
    return [None if not key_counts[m] else
            _first_worst_pair(universe, mechanism, [block[m] for block in pair_parts],
                              key_counts[m], first_datasets[m], max_outputs)
            for m, mechanism in enumerate(mechanisms)]


def dp_level_blocked(universe: Universe, mechanism: Mechanism, max_outputs: int,
                     engine: Engine | None = None, tasks: int = 1) -> DPResult | None:
    """:func:`dp_levels_blocked` for one mechanism."""
    return dp_levels_blocked(universe, [mechanism], max_outputs, engine, tasks)[0]


def _first_worst_pair(universe: Universe, mechanism: Mechanism,
                      pair_parts: Sequence[tuple[np.ndarray, np.ndarray]], count: int,
                      firsts: list[Dataset], max_outputs: int) -> DPResult:
    """Compare the distinct key pairs in order of first appearance, as the one-by-one scan does
    (same strict-improvement rule, same stop at the first infinite ratio, same count)."""
    codes = np.concatenate([c for c, _ in pair_parts])
    positions = np.concatenate([p for _, p in pair_parts])
    distinct, where = np.unique(codes, return_index=True)  # blocks are in scan order
    order = np.argsort(positions[where], kind="stable")
    pairs_total = universe.size * sum(len(d) - 1 for d in universe.domains)
    table = KernelTable.build(mechanism, firsts, max_outputs)
    rows = table.rows
    best_num, best_den, witness = 0, 1, None
    checked = pairs_total
    for k in order:
        code, position = int(distinct[k]), int(positions[where[k]])
        row, other_row = rows[code // count], rows[code % count]
        for o, (a, b) in enumerate(zip(row, other_row)):
            if a and a * best_den > best_num * b:
                best_num, best_den, witness = a, b, (position, o)
                if not b:
                    break
        if witness is not None and not best_den:
            checked = position + 1
            break
    if witness is None:
        return DPResult(mechanism.name, "entry", Fraction(1), pairs_checked=checked)
    position, o = witness
    dataset, other = _pair_at(universe, position)
    ratio: Ratio = INFINITY if not best_den else max(Fraction(1), Fraction(best_num, best_den))
    output = table.outputs[o]
    return DPResult(mechanism.name, "entry", ratio, dataset, other, output,
                    mechanism.prob(dataset, output), mechanism.prob(other, output), checked)


def _pair_at(universe: Universe, position: int) -> tuple[Dataset, Dataset]:
    """The ``position``-th pair of the one-by-one scan: (dataset, its neighbour)."""
    per_dataset = sum(len(d) - 1 for d in universe.domains)
    index, offset = divmod(position, per_dataset)
    values = []
    for domain in reversed(universe.domains):
        index, digit = divmod(index, len(domain))
        values.append(digit)
    values.reverse()
    dataset = tuple(domain[v] for domain, v in zip(universe.domains, values))
    for attribute, domain in enumerate(universe.domains):
        if offset < len(domain) - 1:
            other_value = offset + (offset >= values[attribute])
            other = list(dataset)
            other[attribute] = domain[other_value]
            return dataset, tuple(other)
        offset -= len(domain) - 1
    raise ValueError(f"no pair at position {position}")
