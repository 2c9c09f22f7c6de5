"""Per-entry DP in row and column tasks (:mod:`pufferfish.verify.privacy.dp_blocks`): every
neighbour pair of the universe is compared exactly once, at its scan position; the level, witness
and count equal the one-by-one scan for every way of cutting the universe (down to single
datasets, more prefixes than suffixes, one-value domains); and no task receives more key numbers
than its own block or slice."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pufferfish.models.distribution import Distribution
from pufferfish.models.mechanisms import RandomizedResponse, TableMechanism
from pufferfish.models.universe import Universe
from pufferfish.verify.execution import InProcessEngine
from pufferfish.verify.privacy.dp import dp_level
from pufferfish.verify.privacy.dp_blocks import (DP_BLOCK_DATASETS, TASK_PAIRS,
                                                 dp_levels_blocked, dp_split)


class RecordingEngine(InProcessEngine):
    """Runs in this process and keeps, per task function, every task's arguments' arrays and
    its result."""

    def __init__(self) -> None:
        self.calls: dict[str, list] = {}

    def map(self, function, argument_tuples, progress=None, shared=None, in_flight=None,
            on_result=None):
        record = self.calls.setdefault(function.__name__, [])

        def recorded(shared_value, *args):
            result = function(shared_value, *args)
            record.append((args, copy.deepcopy(result)))  # the driver releases its parts
            return result
        return super().map(recorded, argument_tuples, progress, shared, in_flight, on_result)


def distinct_table(universe: Universe) -> TableMechanism:
    """A kernel whose every row differs: every ordered neighbour pair has its own key pair."""
    return TableMechanism("distinct", {
        dataset: Distribution({"hit": Fraction(1, k + 2), "miss": Fraction(k + 1, k + 2)})
        for k, dataset in enumerate(universe.datasets())})


@st.composite
def cut_universes(draw):
    """A product universe (one-value domains allowed), a way to cut it, and mechanisms with
    shared keys (randomized response on some attributes) and distinct keys (a table with zero
    probabilities, so infinite ratios stop the scan)."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    universe = Universe.product([f"x{k}" for k in range(len(sizes))],
                                [list(range(size)) for size in sizes])
    keep = draw(st.sampled_from([Fraction(1, 2), Fraction(3, 4), Fraction(1)]))
    reported = draw(st.lists(st.sampled_from(universe.attributes), min_size=1, unique=True))
    masses = draw(st.lists(st.lists(st.integers(0, 2), min_size=2, max_size=2).filter(any),
                           min_size=universe.size, max_size=universe.size))
    table = TableMechanism("table", {
        dataset: Distribution({o: Fraction(m, sum(row)) for o, m in enumerate(row) if m})
        for dataset, row in zip(universe.datasets(), masses)})
    mechanisms = [RandomizedResponse("rr", universe, keep, reported), table]
    max_block = draw(st.sampled_from([1, 2, 3, 5, 8, DP_BLOCK_DATASETS]))
    tasks = draw(st.sampled_from([1, 2, 3, 7]))
    return universe, mechanisms, max_block, tasks


@settings(max_examples=150, deadline=None)
@given(cut_universes())
def test_every_cut_gives_the_one_by_one_scan(case):
    universe, mechanisms, max_block, tasks = case
    blocked = dp_levels_blocked(universe, mechanisms, 10**6, tasks=tasks, max_block=max_block)
    for mechanism, result in zip(mechanisms, blocked):
        assert result.to_dict() == dp_level(universe, mechanism).to_dict()


@pytest.mark.parametrize("sizes, max_block, tasks", [
    ([2] * 8, 16, 1),        # 16 blocks of 16: one group of prefixes, slices of the suffixes
    ([2] * 8, 4, 1),         # 64 prefixes of 4 datasets: prefix groups of at most 4
    ([3, 1, 2, 4], 5, 3),    # mixed domains, a one-value attribute, uneven groups
    ([2] * 6, 1, 1),         # single datasets: every attribute is a prefix
    ([5, 2], DP_BLOCK_DATASETS, 1),  # one block: no column task
])
def test_every_pair_is_compared_once_at_its_scan_position(sizes, max_block, tasks):
    universe = Universe.product([f"x{k}" for k in range(len(sizes))],
                                [list(range(size)) for size in sizes])
    engine = RecordingEngine()
    mechanism = distinct_table(universe)
    result = dp_levels_blocked(universe, [mechanism], 10**6, engine, tasks, max_block)[0]
    positions = [part[0][4] for _, part in engine.calls["block_keys_and_pairs"]]
    positions += [part[0][1] for _, part in engine.calls.get("prefix_pairs", [])]
    found = np.sort(np.concatenate(positions))
    pairs = universe.size * sum(size - 1 for size in sizes)
    assert np.array_equal(found, np.arange(pairs))
    assert result.to_dict() == dp_level(universe, mechanism).to_dict()


@pytest.mark.parametrize("sizes, max_block", [([2] * 10, 32), ([2] * 10, 1000), ([3, 2, 4, 2, 3], 7)])
def test_no_task_holds_more_than_its_block_or_slice(sizes, max_block):
    universe = Universe.product([f"x{k}" for k in range(len(sizes))],
                                [list(range(size)) for size in sizes])
    mechanisms = [RandomizedResponse("rr", universe, Fraction(3, 4), ["x0", "x1"]),
                  distinct_table(universe)]
    split = dp_split(universe, 2, max_block, len(mechanisms))
    assert split.largest_task <= max(max_block, max(sizes))
    engine = RecordingEngine()
    dp_levels_blocked(universe, mechanisms, 10**6, engine, 2, max_block)
    blocks = engine.calls["block_keys_and_pairs"]
    assert len(blocks) == len(split.blocks)
    assert max(len(part[0][2]) for _, part in blocks) <= split.largest_task
    slices = [numbers for (_, _, _, arrays), _ in engine.calls["prefix_pairs"]
              for numbers in arrays]
    assert len(slices) == len(split.columns) * len(mechanisms)
    assert max(numbers.size for numbers in slices) <= split.largest_task < universe.size


def test_the_split_covers_each_suffix_of_each_sub_cube_once():
    universe = Universe.product([f"x{k}" for k in range(7)], [[0, 1, 2]] * 7)
    split = dp_split(universe, 4, 20)
    assert split.largest_task <= 20
    for group, offsets in enumerate(split.group_offsets):
        assert len(offsets) <= 20
        cells = [(base + offset, suffix) for number, base, start, stop in split.columns
                 if number == group for offset in offsets for suffix in range(start, stop)]
        assert sorted(cells) == [(p, s) for p in range(len(split.blocks))
                                 for s in range(split.suffixes)]
    attributes = sorted(a for group in split.groups for a in group)
    assert attributes == list(range(split.depth))


@pytest.mark.parametrize("sizes", [[2000, 2000], [40] * 4, [1000, 1000, 3], [2] * 24])
def test_a_task_holds_at_most_its_share_of_neighbour_pairs(sizes):
    """Many values per attribute make many neighbours per dataset: tasks are cut by pairs, not
    only by datasets, down to one prefix group for one suffix."""
    universe = Universe.product([f"x{k}" for k in range(len(sizes))],
                                [list(range(size)) for size in sizes])
    split = dp_split(universe, 4, 10**6, 2)
    smallest_column = min(len(offsets) * sum(sizes[a] - 1 for a in group)
                          for offsets, group in zip(split.group_offsets, split.groups))
    assert split.largest_pairs <= max(TASK_PAIRS, smallest_column)


@pytest.mark.parametrize("sizes", [[150, 150], [11] * 4, [2] * 14, [5, 7, 9, 11]])
def test_the_memory_of_a_task_is_within_the_plans_estimate(sizes):
    """What a row task and a column task allocate (NumPy reports to tracemalloc) stays within
    what the audit plan counts for one task (verify/privacy/audit_plan.py)."""
    import tracemalloc

    from pufferfish.verify.privacy.dp_blocks import (BYTES_PER_PAIR, BYTES_PER_TASK_DATASET,
                                                     ColumnSlices, RowNumbering,
                                                     block_keys_and_pairs, prefix_pairs)

    universe = Universe.product([f"x{k}" for k in range(len(sizes))],
                                [list(range(size)) for size in sizes])
    mechanisms = [RandomizedResponse("rr", universe, Fraction(3, 4), ["x0"]),
                  distinct_table(universe)]
    split = dp_split(universe, 4, 10**6, len(mechanisms))
    estimate = (BYTES_PER_PAIR * split.largest_pairs
                + BYTES_PER_TASK_DATASET * len(mechanisms) * split.largest_task)
    rows = RowNumbering(len(mechanisms), len(split.blocks))
    for k, (start, _, prefix) in enumerate(split.blocks):
        tracemalloc.start()
        part = block_keys_and_pairs((mechanisms, universe, split), prefix, start)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= estimate, (k, peak, estimate)
        rows.add(k, part)
    numbered = [rows.number_globally(m) for m in range(len(mechanisms))]
    slices = ColumnSlices(split, [blocks for _, _, blocks, _ in numbered])
    counts = [count for count, *_ in numbered]
    for k in range(len(slices)):
        arguments = slices[k]
        tracemalloc.start()
        prefix_pairs((counts, split), *arguments)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak <= estimate, (k, peak, estimate)


def test_the_distinct_pairs_kept_are_checked_against_the_memory_available(monkeypatch):
    from pufferfish.models.errors import TooLargeError
    from pufferfish.verify.privacy import dp_blocks

    universe = Universe.product(["a", "b"], [list(range(30))] * 2)
    monkeypatch.setattr(dp_blocks, "MERGE_PAIRS", 10)
    monkeypatch.setattr(dp_blocks, "usable_memory", lambda: 1000)
    with pytest.raises(TooLargeError, match="pairs of kernel rows to compare"):
        dp_levels_blocked(universe, [distinct_table(universe)], 10**6, tasks=4)
