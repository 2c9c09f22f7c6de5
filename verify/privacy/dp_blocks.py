"""Per-entry DP levels of a product universe split into blocks, neighbours compared as arrays.

Definition 2 (Bai et al., Composition for Pufferfish Privacy, §2.1) compares ``M(D)`` with ``M(D')``
for every pair of datasets that differ in one attribute.
:func:`~pufferfish.verify.privacy.dp.dp_level` walks the pairs one by one; on a product universe of
``N`` datasets the same scan is done here with NumPy arrays, in two passes of tasks whose memory is
bounded by a block, not by the universe.

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

Memory: a task holds one block's (or one slice's) key numbers and pair codes, at most
:data:`TASK_PAIRS` pairs where the universe allows (:data:`BYTES_PER_PAIR` each at the peak);
this process holds one key number per dataset and mechanism and the distinct pairs found, merged
as the tasks finish (:class:`_PairSet`: a pair of kernel rows recurs in every block, and is kept
once), and sends each column task only its slice, building the slices as earlier tasks finish
(``Engine.map(..., in_flight=)``).  A ``MemoryError`` is refused with the figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product as cartesian

import numpy as np

from pufferfish.models.errors import TooLargeError
from pufferfish.models.kernel import KernelTable
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.numbers import INFINITY, Ratio, exact_ratio
from pufferfish.models.universe import Dataset, Universe, size_text
from pufferfish.verify.execution import Engine, InProcessEngine, usable_memory
from pufferfish.verify.privacy.dp import DPResult

MAX_KEYS = 2**31
"""Above this many distinct kernel keys a pair code would not fit 64 bits."""

DP_BLOCK_DATASETS = 2**17
"""Most datasets per task: a task's arrays (one int64 per neighbour pair) stay near 20 MB, and a
task is long enough (a few hundred milliseconds) that scheduling costs little."""

TASK_PAIRS = 2**22
"""Most neighbour pairs per task where the universe allows it (datasets times the neighbours
each compares: with many values per attribute a block of :data:`DP_BLOCK_DATASETS` datasets
would hold far more pairs than its size suggests).  A task cannot hold fewer than one group of
prefixes' pairs for one suffix, so an attribute of ``d`` values costs ``d·(d − 1)`` pairs in one
task at least (:attr:`DPSplit.largest_pairs`)."""

BYTES_PER_PAIR = 48
"""Peak bytes per neighbour pair of a task: ``_distinct_pairs`` holds the codes, the stable
sort's order and the sorted codes (24 bytes), then the distinct codes and the index of each
(16 more when every pair is distinct), from which the scan positions are computed in place."""

BYTES_PER_TASK_DATASET = 256
"""Bytes per dataset and mechanism of a task besides its pairs: at worst (every dataset its own
kernel key) the key and its entry in the numbering, the first dataset of the key, and the key
number as a list item and as an array item."""

MERGE_PAIRS = 2**20
"""The driver merges the pairs tasks return into one set of distinct pairs whenever this many
(or as many as the set holds) are waiting (:class:`_PairSet`)."""

BYTES_PER_MERGED_PAIR = 48
"""Peak bytes per pair while the driver merges: the codes and positions waiting and merged
(16), the sort's order (8), the sorted codes and positions (16), the mask and the group
starts."""

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

    @property
    def largest_pairs(self) -> int:
        """The most neighbour pairs one task compares: a block's datasets times their suffix
        neighbours, or a slice's datasets times the neighbours within their prefix group."""
        row = self.suffixes * sum(size - 1 for size in self.domain_sizes[self.depth:])
        group_neighbours = [sum(self.domain_sizes[a] - 1 for a in group) for group in self.groups]
        slices = [len(self.group_offsets[group]) * (stop - start) * group_neighbours[group]
                  for group, _, start, stop in self.columns]
        return max([row, *slices])

    def prefixes(self, group: int, base: int) -> np.ndarray:
        """The prefix indices of one column task's sub-cube, increasing."""
        return base + self.group_offsets[group]


def dp_split(universe: Universe, tasks: int = 1, max_block: int = DP_BLOCK_DATASETS,
             mechanisms: int = 1) -> DPSplit:
    """The tasks of :func:`dp_levels_blocked` on a product universe: at least ``tasks`` blocks
    (and, when there are enough suffixes, column tasks) of at most ``min(max_block,
    DP_BLOCK_DATASETS)`` datasets and :data:`TASK_PAIRS` neighbour pairs each — single datasets
    at worst, and a column task never smaller than one group of prefixes for one suffix — with at
    most :data:`SLICE_BYTES` of key numbers of ``mechanisms`` mechanisms per column task.  Cost
    ``O(number of tasks)``."""
    largest = min(max_block, DP_BLOCK_DATASETS)
    target = max(tasks, -(-universe.size // largest))
    sizes = tuple(len(domain) for domain in universe.domains)
    depth, count = 0, 1
    while depth < universe.width and (
            count < target
            or universe.size // count * sum(size - 1 for size in sizes[depth:]) > TASK_PAIRS):
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
        pairs = cube * max(1, sum(sizes[a] - 1 for a in group))  # per suffix
        widest = max(1, min(suffixes, largest // cube, TASK_PAIRS // pairs,
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


def _neighbour_indices(count: int, sizes: Sequence[int]) -> Iterator[np.ndarray]:
    """For the ``count`` indices of a mixed-radix cube of digit ``sizes``: for each digit and
    each other value of it in increasing order (skipping the index's own), the index of the
    changed element — the one-by-one scan's order of neighbours.  Made one array at a time
    (``Σ(size − 1)`` of them), so that only the pair codes of a task are held at once."""
    index = np.arange(count, dtype=np.int64)
    stride = count
    for size in sizes:
        stride //= size
        value = (index // stride) % size
        for rank in range(size - 1):
            yield index + (rank + (rank >= value) - value) * stride


def _distinct_pairs(numbers: np.ndarray, keys: int, neighbours: Iterable[np.ndarray],
                    columns: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct codes ``numbers[i]·keys + numbers[j]`` over every ``i`` and each of its
    ``columns`` neighbours ``j`` (given one array per column), and the flat index
    ``i·columns + column`` where each first appears, as ``np.unique(..., return_index=True)``
    gives them.  ``O(n·c·log(n·c))`` for ``n`` numbers and ``c`` columns; memory
    :data:`BYTES_PER_PAIR` per pair at the peak (the codes, the stable sort's order and the
    sorted codes)."""
    if not columns:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    codes = np.empty((len(numbers), columns), dtype=np.int64)
    scaled = numbers * keys
    for column, other in enumerate(neighbours):
        np.add(scaled, numbers[other], out=codes[:, column])
    codes = codes.ravel()  # row-major: the scan order
    order = np.argsort(codes, kind="stable")  # equal codes keep their scan order
    ordered = codes[order]
    del codes
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first], order[first]


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
    suffix_sizes = split.domain_sizes[split.depth:]
    count = sum(size - 1 for size in suffix_sizes)
    # the scan offset of a suffix change comes after every prefix attribute's changes
    offsets = sum(size - 1 for size in split.domain_sizes[:split.depth]) + np.arange(
        count, dtype=np.int64)
    parts = []
    for numbers, first, column in zip(numberings, firsts, columns):
        column_array = np.asarray(column, dtype=np.int64)
        codes, flat = _distinct_pairs(column_array, len(numbers),
                                      _neighbour_indices(split.suffixes, suffix_sizes), count)
        rows, offset = np.divmod(flat, max(1, count))
        del flat
        rows += start  # the scan position, in place: a task holds few arrays of its pairs
        rows *= split.neighbours
        rows += offsets[offset]
        parts.append([list(numbers), first, column_array, codes, rows])
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
    count = sum(size - 1 for size in sizes)
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
        neighbours = ((other[:, None] * width + across[None, :]).ravel()
                      for other in _neighbour_indices(len(prefixes), sizes))
        codes, flat = _distinct_pairs(rows.ravel(), keys, neighbours, count)
        dataset, offset = np.divmod(flat, max(1, count))
        del flat
        cube, suffix = np.divmod(dataset, width)
        del dataset
        index = prefixes[cube]  # the scan position, in place: few arrays of the pairs at once
        del cube
        index *= split.suffixes
        index += suffix
        index += first
        del suffix
        index *= split.neighbours
        index += offsets[offset]
        results.append((codes, index))
    return results


class ColumnSlices(Sequence):
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
    try:
        return _dp_levels(universe, mechanisms, max_outputs, engine, tasks, split, first_row)
    except MemoryError:
        raise TooLargeError(
            f"per-entry DP over {size_text(universe.size)} datasets ran out of memory: a task "
            f"compares up to {size_text(split.largest_pairs)} neighbour pairs (about "
            f"{BYTES_PER_PAIR} bytes each) and this process keeps the distinct pairs of kernel "
            f"rows found; {_memory_text()}", "datasets") from None


def _memory_text() -> str:
    available = usable_memory()
    return ("give the process more memory or audit a smaller universe" if available is None else
            f"this process may use {available / 2**30:.1f} GB (the smallest of the machine's "
            f"memory and the limits set on the process)")


def _dp_levels(universe: Universe, mechanisms: list[Mechanism], max_outputs: int, engine: Engine,
               tasks: int, split: DPSplit, first_row: list[list] | None
               ) -> list[DPResult | None]:
    """:func:`dp_levels_blocked` once the universe is split: the row tasks' results are merged
    as they arrive (:class:`RowNumbering`), then the column tasks' (:class:`_PairSet`)."""
    rows = RowNumbering(len(mechanisms), len(split.blocks))
    done = 0
    if first_row is not None:
        rows.add(0, first_row)
        done = 1
    engine.map(block_keys_and_pairs,
               [(prefix, start) for start, _, prefix in split.blocks[done:]],
               shared=(mechanisms, universe, split),
               on_result=lambda k, part: rows.add(done + k, part))
    numbered = [rows.number_globally(m) for m in range(len(mechanisms))]
    del rows
    counts = [count if count < MAX_KEYS else 0 for count, *_ in numbered]
    block_numbers = [blocks if count else None for (_, _, blocks, _), count in zip(numbered, counts)]

    def add_columns(k: int, result: list) -> None:
        for m, pairs in enumerate(result):
            if pairs is not None:
                numbered[m][3].add(*pairs)
                result[m] = None

    engine.map(prefix_pairs, ColumnSlices(split, block_numbers), shared=(counts, split),
               in_flight=2 * engine.workers + 2, on_result=add_columns)
    del block_numbers
    return [None if not counts[m] else
            _first_worst_pair(universe, mechanism, [numbered[m][3].merged()], counts[m],
                              numbered[m][1], max_outputs)
            for m, mechanism in enumerate(mechanisms)]


class _PairSet:
    """Distinct pair codes, each with the smallest scan position it was found at (its first
    appearance in the one-by-one scan).  The pairs of a task are added as the task finishes and
    merged in whenever more are waiting than :data:`MERGE_PAIRS` or the set's own size, so the
    driver holds about the distinct pairs, not every task's (a pair of kernel rows recurs in
    every block).  A merge that would need more memory than this process may use is refused."""

    def __init__(self) -> None:
        self.codes = np.zeros(0, np.int64)
        self.positions = np.zeros(0, np.int64)
        self.waiting: list[tuple[np.ndarray, np.ndarray]] = []
        self.waiting_size = 0

    def add(self, codes: np.ndarray, positions: np.ndarray) -> None:
        """Add pairs (codes and the scan position of each)."""
        if len(codes):
            self.waiting.append((codes, positions))
            self.waiting_size += len(codes)
            if self.waiting_size > max(MERGE_PAIRS, len(self.codes)):
                self._merge()

    def merged(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct codes, increasing, and the first position of each."""
        self._merge()
        return self.codes, self.positions

    def _merge(self) -> None:
        if not self.waiting:
            return
        size = len(self.codes) + self.waiting_size
        available = usable_memory()
        if available is not None and BYTES_PER_MERGED_PAIR * size > available:
            raise TooLargeError(
                f"per-entry DP has found {size_text(size)} pairs of kernel rows to compare; "
                f"keeping them needs about {BYTES_PER_MERGED_PAIR * size / 2**30:.1f} GB, more "
                f"than the {available / 2**30:.1f} GB this process may use", "datasets")
        codes = np.concatenate([self.codes, *(c for c, _ in self.waiting)])
        positions = np.concatenate([self.positions, *(p for _, p in self.waiting)])
        self.codes = self.positions = None
        self.waiting, self.waiting_size = [], 0
        order = np.argsort(codes, kind="stable")  # sorted runs (merged, tasks') merge fast
        codes, positions = codes[order], positions[order]
        del order
        first = np.empty(len(codes), dtype=bool)
        first[:1] = True
        np.not_equal(codes[1:], codes[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        self.codes, self.positions = codes[starts], np.minimum.reduceat(positions, starts)


class RowNumbering:
    """The row tasks' results, taken in as they arrive (in any order) and released: each
    mechanism's keys get provisional numbers in order of arrival, each block keeps its keys'
    numbers and first datasets and its datasets' numbers, and the row pairs go into one
    :class:`_PairSet` per mechanism coded over the provisional numbers (``a·MAX_KEYS + b``).
    :meth:`number_globally` then numbers the keys in order of first appearance over the blocks,
    as the one-by-one scan meets them."""

    def __init__(self, mechanisms: int, blocks: int) -> None:
        self.numberings: list[dict] = [{} for _ in range(mechanisms)]
        self.blocks: list[list] = [[None] * mechanisms for _ in range(blocks)]
        self.pairs: list[_PairSet | None] = [_PairSet() for _ in range(mechanisms)]

    def add(self, block: int, part: list[list]) -> None:
        """Take in the result of row task ``block`` (:func:`block_keys_and_pairs`)."""
        for m, (keys, firsts, column, codes, positions) in enumerate(part):
            numbering = self.numberings[m]
            own = np.fromiter((numbering.setdefault(key, len(numbering)) for key in keys),
                              dtype=np.int64, count=len(keys))
            self.blocks[block][m] = (own, firsts, own[column])
            if len(numbering) < MAX_KEYS:  # otherwise the pairs go unused
                first, second = np.divmod(codes, max(1, len(keys)))
                self.pairs[m].add(own[first] * MAX_KEYS + own[second], positions)
            part[m] = None

    def number_globally(self, m: int) -> tuple[int, list[Dataset], list[np.ndarray], _PairSet]:
        """Mechanism ``m``'s keys numbered in order of first appearance over the blocks: the
        count, the first dataset of each key, each block's key numbers, and the row pairs in the
        global numbering (a :class:`_PairSet` the column pairs are added to)."""
        renumber = [-1] * len(self.numberings[m])
        firsts: list[Dataset] = []
        for block in self.blocks:
            own, block_firsts, _ = block[m]
            for number, dataset in zip(own.tolist(), block_firsts):
                if renumber[number] < 0:
                    renumber[number] = len(firsts)
                    firsts.append(dataset)
        count = len(firsts)
        renumbered = np.asarray(renumber, dtype=np.int64)
        blocks = []
        for block in self.blocks:
            blocks.append(renumbered[block[m][2]])
            block[m] = None
        pairs = _PairSet()
        if count < MAX_KEYS:
            codes, positions = self.pairs[m].merged()
            first, second = np.divmod(codes, MAX_KEYS)
            pairs.add(renumbered[first] * count + renumbered[second], positions)
        self.pairs[m] = None
        self.numberings[m] = {}
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
    rows, exceeds = table.rows, table.ratio_test()
    best_num, best_den, witness = 0, 1, None
    checked = pairs_total
    for k in order:
        code, position = int(distinct[k]), int(first_positions[k])
        row, other_row = rows[code // count], rows[code % count]
        for o, (a, b) in enumerate(zip(row, other_row)):
            if a and (a * best_den > best_num * b if exceeds is None
                      else exceeds(a, best_den, best_num, b)):
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
    ratio: Ratio = INFINITY if not best_den else max(Fraction(1), exact_ratio(best_num, best_den))
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
