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
:func:`dp_level_blocked` compares them in order of first appearance, exactly as the one-by-one
scan does (same strict-improvement rule, same stop at the first infinite ratio, same count of
pairs checked), and returns the same :class:`~pufferfish.verify.privacy.dp.DPResult`, bit for bit.
Key numbers are ``int64``: this module is used when the number of distinct keys is below
:data:`MAX_KEYS` (so that a pair code fits); otherwise the one-by-one scan runs.
"""

from __future__ import annotations

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


def kernel_key_block(mechanism: Mechanism, universe: Universe, prefix: tuple
                     ) -> tuple[list, list[Dataset], np.ndarray]:
    """``(keys, first datasets, numbers)``: the block's distinct keys in order of first
    appearance, the first dataset of each, and each dataset's key number (a task)."""
    numbers: dict = {}
    firsts: list[Dataset] = []
    column = []
    for rest in cartesian(*universe.domains[len(prefix):]):
        dataset = prefix + rest
        key = mechanism.kernel_key(dataset)
        number = numbers.get(key)
        if number is None:
            number = numbers[key] = len(numbers)
            firsts.append(dataset)
        column.append(number)
    return list(numbers), firsts, np.asarray(column, dtype=np.int64)


def neighbour_pair_block(key_numbers: np.ndarray, keys: int, domain_sizes: tuple[int, ...],
                         start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct key-pair codes of the block's one-attribute neighbour pairs and the scan position
    of each one's first appearance (a task).  ``code = key(D)·keys + key(D')``."""
    index = np.arange(start, stop, dtype=np.int64)
    own = key_numbers[start:stop] * keys
    columns = []
    stride = 1
    strides = []
    for size in reversed(domain_sizes):
        strides.append(stride)
        stride *= size
    strides.reverse()
    for size, step in zip(domain_sizes, strides):
        value = (index // step) % size
        for rank in range(size - 1):  # the other values in domain order, skipping D's own
            other_value = rank + (rank >= value)
            columns.append(own + key_numbers[index + (other_value - value) * step])
    if not columns:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    codes = np.stack(columns, axis=1).ravel()  # row-major: the one-by-one scan order
    distinct, first = np.unique(codes, return_index=True)
    return distinct, first + start * len(columns)


def dp_level_blocked(universe: Universe, mechanism: Mechanism, max_outputs: int,
                     engine: Engine | None = None, tasks: int = 1) -> DPResult | None:
    """The per-entry DP level of ``mechanism`` (Definition 2) as :func:`dp_level` computes it,
    or ``None`` when this method does not apply (an explicit universe, or too many keys).

    Cost: ``O(N·Σ(d_i − 1))`` array operations plus ``O(P·|Ω|)`` exact comparisons for the ``P``
    distinct key pairs; memory ``O(N)`` for the key numbers plus one block's pairs.
    """
    if universe.explicit is not None:
        return None
    engine = engine or InProcessEngine()
    blocks = universe_blocks(universe, max(tasks, universe.size // 2**15))
    parts = engine.map(kernel_key_block, [(mechanism, universe, prefix) for *_, prefix in blocks])
    numbering: dict = {}
    firsts: list[Dataset] = []
    columns = []
    for keys, block_firsts, column in parts:
        renumber = np.empty(len(keys), dtype=np.int64)
        for k, (key, dataset) in enumerate(zip(keys, block_firsts)):
            number = numbering.get(key)
            if number is None:
                number = numbering[key] = len(numbering)
                firsts.append(dataset)
            renumber[k] = number
        columns.append(renumber[column])
    if len(numbering) >= MAX_KEYS:
        return None
    key_numbers = np.concatenate(columns)
    sizes = tuple(len(d) for d in universe.domains)
    count = len(numbering)
    pair_parts = engine.map(neighbour_pair_block,
                            [(count, sizes, start, stop) for start, stop, _ in blocks],
                            shared=key_numbers)
    codes = np.concatenate([c for c, _ in pair_parts])
    positions = np.concatenate([p for _, p in pair_parts])
    distinct, where = np.unique(codes, return_index=True)  # blocks are in scan order
    order = np.argsort(positions[where], kind="stable")
    pairs_total = universe.size * sum(size - 1 for size in sizes)
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
