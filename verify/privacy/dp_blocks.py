"""Per-entry DP levels of a product universe split into blocks, neighbours compared as arrays.

Definition 2 (``000_65109fe28ca61d17.txt`` §2.1) compares ``M(D)`` with ``M(D')`` for every pair
of datasets that differ in one attribute.  :func:`~pufferfish.verify.privacy.dp.dp_level` walks
the pairs one by one; on a product universe of ``N`` datasets the same scan is done here with
NumPy arrays, in two passes of tasks whose memory is bounded by a block, not by the universe.

The universe is a matrix: a dataset is a *prefix* (its first ``depth`` attributes) followed by a
*suffix* (the others), and its index in the universe's order is ``prefix index · S + suffix
index`` (``S`` suffixes).  A pair that changes a suffix attribute stays in one row; a pair that
changes a prefix attribute stays in one column.

1. **Rows** (:func:`block_keys_and_pairs`, one task per block = one prefix): the kernel key of
   every dataset of the block, numbered in order of first appearance, and the distinct pairs of
   key numbers over the block's pairs that change a suffix attribute.  The driver renumbers the
   keys globally, in block order.
2. **Columns** (:func:`prefix_pairs`, one task per slice of suffixes): the distinct pairs of
   global key numbers over the pairs that change a prefix attribute, from the key numbers of the
   slice's datasets in every prefix (the prefix attributes are grouped so that a slice stays
   within a block's size when there are more prefixes than that; each group's changes are found
   within the datasets that agree on the other attributes).

A pair is coded as one integer, ``key(D)·keys + key(D')``, with the position of its first
appearance in the one-by-one scan order (dataset by dataset, attribute by attribute, value by
value).  Datasets with equal keys share one kernel row, so only distinct key pairs need their
rows compared; :func:`dp_levels_blocked` (every mechanism of a model in the same passes) compares
them in order of first appearance, exactly as the one-by-one scan does (same strict-improvement
rule, same stop at the first infinite ratio, same count of pairs checked), and returns the same
:class:`~pufferfish.verify.privacy.dp.DPResult`, bit for bit.  Key numbers are ``int64``: a
mechanism with :data:`MAX_KEYS` distinct keys or more is left to the one-by-one scan.

Memory: a task holds one block's (or one slice's) key numbers and pair codes; this process holds
one key number per dataset and mechanism, and sends each column task only its slice, building
the slices as earlier tasks finish (``Engine.map(..., in_flight=)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
"""Most datasets per task: a task's arrays (one int64 per neighbour pair) stay near 20 MB, and a
task is long enough (a few hundred milliseconds) that scheduling costs little."""

SLICE_BYTES = 2**22
"""Most bytes of key numbers sent with one column task (below Dask's large-task warning)."""


@dataclass(frozen=True)
class DPSplit:
    """How :func:`dp_levels_blocked` cuts a product universe into tasks.

    ``blocks``: ``(start, stop, prefix)`` of each row task (consecutive datasets, the first
    ``depth`` attributes fixed); ``suffixes``: datasets per block (``S``); ``groups``: the prefix
    attributes whose changes one column task compares, with ``group_offsets`` the prefix indices
    of one group's sub-cube relative to its base; ``columns``: ``(group, base prefix index, first
    suffix, end suffix)`` of each column task.
    """

    domain_sizes: tuple[int, ...]
    depth: int
    suffixes: int
    blocks: list[tuple[int, int, tuple]]
    groups: list[tuple[int, ...]]
    group_offsets: list[np.ndarray]
    columns: list[tuple[int, int, int, int]]

    @property
    def neighbours(self) -> int:
        """``C = Σ(d_i − 1)``: the neighbours of one dataset."""
        return sum(size - 1 for size in self.domain_sizes)

    @property
    def largest_task(self) -> int:
        """The most datasets one task holds (a block or a column slice)."""
        slices = [len(self.group_offsets[group]) * (stop - start)
                  for group, _, start, stop in self.columns]
        return max([self.suffixes, *slices])

    def prefixes(self, group: int, base: int) -> np.ndarray:
        """The prefix indices of one column task's sub-cube, increasing."""
        return base + self.group_offsets[group]


def dp_split(universe: Universe, tasks: int = 1, max_block: int = DP_BLOCK_DATASETS,
             mechanisms: int = 1) -> DPSplit:
    """The tasks of :func:`dp_levels_blocked` on a product universe: at least ``tasks`` blocks
    (and, when there are enough suffixes, column tasks) of at most ``min(max_block,
    DP_BLOCK_DATASETS)`` datasets each — single datasets at worst, and a column task never smaller
    than one group of prefixes — with at most :data:`SLICE_BYTES` of key numbers of ``mechanisms``
    mechanisms per column task.  Cost ``O(number of tasks)``."""
    largest = min(max_block, DP_BLOCK_DATASETS)
    target = max(tasks, -(-universe.size // largest))
    sizes = tuple(len(domain) for domain in universe.domains)
    depth, count = 0, 1
    while depth < universe.width and count < target:
        count *= sizes[depth]
        depth += 1
    suffixes = universe.size // count
    blocks = [(k * suffixes, (k + 1) * suffixes, prefix)
              for k, prefix in enumerate(cartesian(*universe.domains[:depth]))]
    # prefix attributes in groups of at most `largest` prefixes (an attribute alone if larger)
    groups: list[list[int]] = []
    product = 0
    for attribute in range(depth):
        if groups and product * sizes[attribute] <= largest:
            groups[-1].append(attribute)
            product *= sizes[attribute]
        else:
            groups.append([attribute])
            product = sizes[attribute]
    strides = [int(np.prod(sizes[a + 1:depth], dtype=np.int64)) for a in range(depth)]
    offsets, columns = [], []
    for number, group in enumerate(groups):
        offsets.append(_digit_sums([(sizes[a], strides[a]) for a in group]))
        others = [(sizes[a], strides[a]) for a in range(depth) if a not in group]
        bases = _digit_sums(others)
        cube = len(offsets[-1])
        widest = max(1, min(suffixes, largest // cube,
                            SLICE_BYTES // (8 * cube * max(1, mechanisms)),
                            -(-suffixes * len(bases) // tasks)))
        width = -(-suffixes // -(-suffixes // widest))  # slices of equal width, none wider
        columns += [(number, int(base), start, min(start + width, suffixes))
                    for base in bases for start in range(0, suffixes, width)]
    return DPSplit(sizes, depth, suffixes, blocks, [tuple(g) for g in groups], offsets, columns)


def _digit_sums(digits: list[tuple[int, int]]) -> np.ndarray:
    """``Σ digit·stride`` over every combination of digits (``(size, stride)`` each), in
    lexicographic order of the digits — increasing when the strides decrease."""
    sums = np.zeros(1, dtype=np.int64)
    for size, stride in digits:
        sums = (sums[:, None] + np.arange(size, dtype=np.int64)[None, :] * stride).ravel()
    return sums


def _neighbour_indices(count: int, sizes: Sequence[int]) -> list[np.ndarray]:
    """For the ``count`` indices of a mixed-radix cube of digit ``sizes``: for each digit and
    each other value of it in increasing order (skipping the index's own), the index of the
    changed element — the one-by-one scan's order of neighbours."""
    index = np.arange(count, dtype=np.int64)
    neighbours, stride = [], count
    for size in sizes:
        stride //= size
        value = (index // stride) % size
        for rank in range(size - 1):
            neighbours.append(index + (rank + (rank >= value) - value) * stride)
    return neighbours


def _distinct_pairs(numbers: np.ndarray, keys: int, neighbours: list[np.ndarray]
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The distinct codes ``numbers[i]·keys + numbers[j]`` over every ``i`` and each of its
    ``neighbours`` ``j``, and the flat index ``i·len(neighbours) + column`` where each first
    appears.  ``O(n·c·log(n·c))`` for ``n`` numbers and ``c`` neighbours."""
    if not neighbours:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    codes = np.stack([numbers * keys + numbers[other] for other in neighbours], axis=1).ravel()
    return np.unique(codes, return_index=True)  # row-major: the scan order


def block_keys_and_pairs(shared: tuple[Sequence[Mechanism], Universe, DPSplit], prefix: tuple,
                         start: int) -> list[list]:
    """A row task: for each mechanism, ``[keys, first datasets, numbers, codes, positions]`` —
    the block's distinct keys in order of first appearance, the first dataset of each, each
    dataset's key number, and the distinct codes (in the block's numbering) of the pairs that
    change a suffix attribute with the scan position of each one's first appearance."""
    mechanisms, universe, split = shared
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
    neighbours = _neighbour_indices(split.suffixes, split.domain_sizes[split.depth:])
    # the scan offset of a suffix change comes after every prefix attribute's changes
    offsets = sum(size - 1 for size in split.domain_sizes[:split.depth]) + np.arange(
        len(neighbours), dtype=np.int64)
    parts = []
    for numbers, first, column in zip(numberings, firsts, columns):
        column_array = np.asarray(column, dtype=np.int64)
        codes, flat = _distinct_pairs(column_array, len(numbers), neighbours)
        rows, offset = np.divmod(flat, max(1, len(neighbours)))
        parts.append([list(numbers), first, column_array, codes,
                      (start + rows) * split.neighbours + offsets[offset]])
    return parts


def prefix_pairs(shared: tuple[Sequence[int], DPSplit], group: int, base: int, first: int,
                 numbers: Sequence[np.ndarray | None]) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """A column task: for each mechanism, the distinct codes of the pairs that change an
    attribute of prefix group ``group`` among the datasets whose prefix is in the group's
    sub-cube at ``base`` and whose suffix is in ``first, first + width``, and the scan position of
    each one's first appearance.  ``numbers``: each mechanism's global key numbers of those
    datasets, one row per prefix (``None`` to skip a mechanism); ``shared``: the key counts and
    the split."""
    counts, split = shared
    attributes = split.groups[group]
    prefixes = split.prefixes(group, base)
    sizes = [split.domain_sizes[a] for a in attributes]
    cube_neighbours = _neighbour_indices(len(prefixes), sizes)
    offsets = np.asarray([sum(size - 1 for size in split.domain_sizes[:a]) + rank
                          for a in attributes for rank in range(split.domain_sizes[a] - 1)],
                         dtype=np.int64)
    results: list[tuple[np.ndarray, np.ndarray] | None] = []
    for keys, rows in zip(counts, numbers):
        if rows is None:
            results.append(None)
            continue
        width = rows.shape[1]
        across = np.arange(width, dtype=np.int64)
        neighbours = [(other[:, None] * width + across[None, :]).ravel()
                      for other in cube_neighbours]
        codes, flat = _distinct_pairs(rows.ravel(), keys, neighbours)
        dataset, offset = np.divmod(flat, max(1, len(neighbours)))
        cube, suffix = np.divmod(dataset, width)
        index = prefixes[cube] * split.suffixes + first + suffix
        results.append((codes, index * split.neighbours + offsets[offset]))
    return results


class _ColumnSlices(Sequence):
    """The arguments of the column tasks, each slice of key numbers made when asked for."""

    def __init__(self, split: DPSplit, block_numbers: Sequence[list[np.ndarray] | None]) -> None:
        self.split, self.block_numbers = split, block_numbers

    def __len__(self) -> int:
        return len(self.split.columns)

    def __getitem__(self, k):
        if not 0 <= k < len(self):
            raise IndexError(k)
        group, base, start, stop = self.split.columns[k]
        prefixes = self.split.prefixes(group, base)
        return (group, base, start,
                [None if blocks is None else np.stack([blocks[p][start:stop] for p in prefixes])
                 for blocks in self.block_numbers])


def first_row(universe: Universe, mechanisms: Sequence[Mechanism], tasks: int = 1,
              max_block: int = DP_BLOCK_DATASETS) -> list[list] | None:
    """The first row task of :func:`dp_levels_blocked` with the same arguments, run in this
    process (``None`` on an explicit universe): timing it estimates the pass, and passing it back
    as ``dp_levels_blocked(..., first_row=)`` keeps it from being computed twice."""
    if universe.explicit is not None:
        return None
    split = dp_split(universe, tasks, max_block, len(mechanisms))
    start, _, prefix = split.blocks[0]
    return block_keys_and_pairs((list(mechanisms), universe, split), prefix, start)


def dp_levels_blocked(universe: Universe, mechanisms: Sequence[Mechanism], max_outputs: int,
                      engine: Engine | None = None, tasks: int = 1,
                      max_block: int = DP_BLOCK_DATASETS,
                      first_row: list[list] | None = None) -> list[DPResult | None]:
    """The per-entry DP level of each mechanism (Definition 2) as :func:`dp_level` computes it,
    or ``None`` for a mechanism where this method does not apply (too many keys; every entry is
    ``None`` on an explicit universe).  All mechanisms share each pass: one row task per block,
    then one column task per slice (:func:`dp_split`; at least ``tasks`` of each where the
    universe allows, at most ``max_block`` datasets each); ``first_row``: the result of
    :func:`first_row` with the same arguments, already computed.

    Cost: ``O(N·Σ(d_i − 1))`` array operations per mechanism plus ``O(P·|Ω|)`` exact comparisons
    for the ``P`` distinct key pairs; memory ``O(N)`` per mechanism here for the key numbers, and
    one block's or one slice's arrays per task.

    >>> from fractions import Fraction
    >>> from pufferfish.models.mechanisms import RandomizedResponse
    >>> from pufferfish.models.universe import Universe
    >>> universe = Universe.product(["a", "b", "c"], [[0, 1]] * 3)
    >>> flip = RandomizedResponse("flip", universe, Fraction(3, 4), ["a", "b"])
    >>> dp_levels_blocked(universe, [flip], 10, tasks=4)[0].epsilon
    'log(3)'
    """
    if universe.explicit is not None:
        return [None] * len(mechanisms)
    engine = engine or InProcessEngine()
    mechanisms = list(mechanisms)
    split = dp_split(universe, tasks, max_block, len(mechanisms))
    done = [] if first_row is None else [first_row]
    parts = done + engine.map(block_keys_and_pairs,
                              [(prefix, start) for start, _, prefix in split.blocks[len(done):]],
                              shared=(mechanisms, universe, split))
    numbered = [_number_globally(parts, m) for m in range(len(mechanisms))]
    del parts
    counts = [count if count < MAX_KEYS else 0 for count, *_ in numbered]
    block_numbers = [blocks if count else None for (_, _, blocks, _), count in zip(numbered, counts)]
    columns = engine.map(prefix_pairs, _ColumnSlices(split, block_numbers),
                         shared=(counts, split), in_flight=2 * engine.workers + 2)
    del block_numbers
    return [None if not counts[m] else
            _first_worst_pair(universe, mechanism, numbered[m][3] + [c[m] for c in columns],
                              counts[m], numbered[m][1], max_outputs)
            for m, mechanism in enumerate(mechanisms)]


def _number_globally(parts: list[list[list]], m: int
                     ) -> tuple[int, list[Dataset], list[np.ndarray], list[tuple]]:
    """Mechanism ``m``'s keys numbered in order of first appearance over the blocks: the count,
    the first dataset of each key, each block's key numbers, and each block's row pairs in the
    global numbering.  Each block's own numbers are released as they are replaced."""
    numbering: dict = {}
    firsts: list[Dataset] = []
    renumbers, blocks = [], []
    for part in parts:
        keys, block_firsts, column, _, _ = part[m]
        renumber = np.empty(len(keys), dtype=np.int64)
        for k, (key, dataset) in enumerate(zip(keys, block_firsts)):
            number = numbering.get(key)
            if number is None:
                number = numbering[key] = len(numbering)
                firsts.append(dataset)
            renumber[k] = number
        blocks.append(renumber[column])
        renumbers.append(renumber)
        part[m][:3] = [None, None, None]
    count = len(numbering)
    pairs = []
    for part, renumber in zip(parts, renumbers):
        codes, positions = part[m][3:]
        if count < MAX_KEYS:  # otherwise a global code would not fit; the pairs go unused
            own, other = np.divmod(codes, len(renumber))
            pairs.append((renumber[own] * count + renumber[other], positions))
        part[m] = None
    return count, firsts, blocks, pairs


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
    by_position = np.argsort(positions, kind="stable")  # a code's first appearance over the parts
    distinct, where = np.unique(codes[by_position], return_index=True)
    first_positions = positions[by_position][where]
    order = np.argsort(first_positions, kind="stable")
    pairs_total = universe.size * sum(len(d) - 1 for d in universe.domains)
    table = KernelTable.build(mechanism, firsts, max_outputs)
    rows = table.rows
    best_num, best_den, witness = 0, 1, None
    checked = pairs_total
    for k in order:
        code, position = int(distinct[k]), int(first_positions[k])
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
