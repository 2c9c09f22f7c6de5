"""What an exact audit will enumerate, checked before it starts: blocks, the largest block, and
an estimate of the memory it needs.

An audit (:func:`pufferfish.verify.privacy.audit.audit_model`) never holds a whole prior's support:
each prior is cut into blocks (:func:`~pufferfish.verify.privacy.blocks.block_plan`) and per-entry
DP runs over blocks of the universe (:mod:`pufferfish.verify.privacy.dp_blocks`). So the limit a
user sets with ``pufferfish audit --block-datasets`` applies to **one block** — the most datasets
one task holds at once — and the size of the whole universe is not refused by a count but *stated*:
the plan says how many datasets and blocks there are and estimates the memory of the run; only a
run whose estimate exceeds the memory this process may use is refused before it starts. The time is
not guessed from a formula: when the universe is larger than one block, the audit first runs the
first block of each prior and the first DP row block (as one map, their results kept) and states
their times multiplied by the number of such blocks over the workers (``AuditPlan.seconds``); the
progress line then states the time left as blocks finish.

Memory model (bytes; ``N`` datasets of a product universe, ``M`` mechanisms, ``B`` datasets in
the largest DP task (a block or a column slice, :func:`~pufferfish.verify.privacy.dp_blocks.dp_split`)
with ``C = Σ(d_i − 1)`` neighbours each, ``P`` datasets in the largest prior block):

* this process: ``BASE + 8·N·M`` (each mechanism's kernel-key number per dataset, int64, held
  between the two DP passes) ``+ (16·M + 48)·W`` (the pairs the tasks return, waiting to be
  merged into the distinct pairs: ``W = min(2^20, N·C)``) ``+ TASK``;
* each Dask worker: ``BASE + TASK`` — a task receives only its block's or its slice's numbers;
* ``TASK = max(48·Q + 256·B·M, 200·P)``: a DP task's ``Q`` neighbour pairs (codes, the sort's
  order and sorted copy, the distinct codes and their positions; ``Q`` is at most ``2^22`` where
  the universe allows, :attr:`~pufferfish.verify.privacy.dp_blocks.DPSplit.largest_pairs`) and
  its datasets' keys and key numbers, or a prior block's datasets with their integer weights
  (about 200 bytes each); ``tests/verify/privacy/test_dp_blocks.py`` checks it against what the
  tasks allocate.

The distinct pairs of kernel rows the driver keeps depend on the mechanisms (at most the square
of their keys) and are checked as they grow; the memory available is the smallest of the
machine's physical memory and the limits set on the process (``ulimit -v`` / ``prlimit --as``,
a cgroup's limit: :func:`pufferfish.verify.execution.process_memory_limit`).

Explicit universes and the record and group relations scan pairs one by one; their block is the
whole universe, so ``--block-datasets`` bounds the universe for them.

>>> from pufferfish.examples import example_path
>>> from pufferfish.models.files.pufferfish_file import load_model
>>> plan = plan_audit(load_model(example_path("quickstart.json")))
>>> plan.datasets, plan.prior_blocks, plan.dp_blocks, plan.dp_columns, plan.largest_block
(8, 8, 4, 2, 4)
"""

from __future__ import annotations

from dataclasses import dataclass

from pufferfish.models.errors import TooLargeError
from pufferfish.models.model import PufferfishModel
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, size_text
from pufferfish.verify.privacy.blocks import BLOCK_DATASETS, block_plan
from pufferfish.verify.execution import physical_memory, process_memory_limit
from pufferfish.verify.privacy.dp_blocks import (BYTES_PER_MERGED_PAIR, BYTES_PER_PAIR,
                                                 BYTES_PER_TASK_DATASET, MERGE_PAIRS, dp_split)

BASE_BYTES = 150 * 2**20
"""Memory of a process that has imported the toolkit (Python, NumPy, SymPy, Dask's client)."""

BYTES_PER_PRIOR_DATASET = 200
"""A dataset of a prior block as enumerated: its tuple of values and its integer weight."""


@dataclass(frozen=True)
class AuditPlan:
    """The work of one audit: ``datasets`` in the universe, ``prior_blocks``, ``dp_blocks`` (DP
    row tasks) and ``dp_columns`` (DP column tasks), ``largest_block`` datasets in one task, the
    estimated peak memory of this process and of each worker (bytes), and, once measured, the
    estimated time of the run (``seconds``: the time of one block of each prior and of one DP row
    block, run first, times the number of such blocks, over the workers; the DP column tasks, a
    few per cent of the DP pass, are left out)."""

    datasets: int
    prior_blocks: int
    dp_blocks: int
    dp_columns: int
    largest_block: int
    memory_bytes: int
    worker_memory_bytes: int
    seconds: float | None = None
    note: str = ""

    @property
    def is_split(self) -> bool:
        """Whether the universe is larger than one prior block: the run is then announced and
        its time estimated."""
        return self.datasets > BLOCK_DATASETS

    def explain(self, workers: int = 1) -> str:
        """One line for the audit's stderr notes."""
        where = (f"memory about {_size(self.memory_bytes)}" if workers <= 1 else
                 f"memory about {_size(self.memory_bytes)} here and "
                 f"{_size(self.worker_memory_bytes)} per worker")
        when = "" if self.seconds is None else (
            f"; time {duration_text(self.seconds)} on {workers} "
            f"{'process' if workers <= 1 else 'workers'} (from one block of each kind, run first)")
        note = f" ({self.note})" if self.note else ""
        return (f"audit plan: {self.datasets:,} datasets in {self.prior_blocks:,} prior "
                f"blocks, {self.dp_blocks:,} DP blocks and {self.dp_columns:,} DP columns of at "
                f"most {self.largest_block:,} datasets each; {where}{when}{note}")


def duration_text(seconds: float) -> str:
    """``about 40 s``, ``about 7 min``, ``about 2.5 h``.

    >>> duration_text(41.7), duration_text(400), duration_text(9000)
    ('about 42 s', 'about 7 min', 'about 2.5 h')
    """
    if seconds < 120:
        return f"about {seconds:.0f} s"
    if seconds < 7200:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.1f} h"


def plan_audit(model: PufferfishModel, workers: int = 1,
               max_datasets: int = DEFAULT_MAX_DATASETS, group: bool = False) -> AuditPlan:
    """The plan of ``audit_model(model, max_datasets=max_datasets)`` on ``workers`` workers
    (``group``: group DP is asked for, a scan of the whole universe).

    Raises :class:`TooLargeError` when one block would enumerate more than ``max_datasets``
    datasets (located at the prior, or at the universe for scans that cannot be split), or when
    the estimated memory exceeds the memory this process may use (the machine's, or a limit set
    on the process).  Cost: ``O(blocks)``, no
    enumeration.
    """
    universe = model.universe
    mechanisms = len(model.mechanisms)
    whole_scan = (group or universe.explicit is not None
                  or any(len(record) > 1 for record in universe.records))
    if whole_scan and universe.size > max_datasets:
        raise TooLargeError(
            f"the universe has {size_text(universe.size)} datasets, more than the limit of "
            f"{size_text(max_datasets)} per block, and this audit reads it as one block (an "
            f"explicit universe, records, group DP or a scanned relation); raise the limit with "
            f"--block-datasets", "datasets")
    keys = 8 * universe.size * mechanisms
    # the memory that does not depend on the blocks is checked before any block is listed
    _require_memory(universe.size, BASE_BYTES + keys)
    plan = block_plan(model, 4 * workers, max_datasets)
    prior_block = 0
    for name, prefix, _ in plan:
        bound = model.finite_priors[name].block_bound(len(prefix))
        if bound > max_datasets:
            raise TooLargeError(
                f"a block of prior {name!r} may give positive probability to {bound:,} "
                f"datasets, more than the limit of {max_datasets:,} per block; the prior cannot "
                f"be cut finer (only product, chain and uniform priors are split by their first "
                f"attributes); raise the limit with --block-datasets", f"priors.{name}")
        prior_block = max(prior_block, bound)
    neighbours = sum(len(domain) - 1 for domain in universe.domains)
    if universe.explicit is None:
        split = dp_split(universe, 4 * workers, max_datasets, mechanisms)
        dp_blocks, dp_columns, dp_task = len(split.blocks), len(split.columns), split.largest_task
        dp_pairs = split.largest_pairs
    else:
        dp_blocks, dp_columns, dp_task = 1, 0, universe.size
        dp_pairs = universe.size * neighbours
    task = max(BYTES_PER_PAIR * dp_pairs + BYTES_PER_TASK_DATASET * mechanisms * dp_task,
               BYTES_PER_PRIOR_DATASET * prior_block)
    waiting = min(MERGE_PAIRS, universe.size * neighbours)  # pairs the driver holds to merge
    merging = (16 * mechanisms + BYTES_PER_MERGED_PAIR) * waiting
    result = AuditPlan(universe.size, len(plan), dp_blocks, dp_columns,
                       max(prior_block, universe.size if whole_scan else dp_task),
                       BASE_BYTES + keys + merging + task, BASE_BYTES + task)
    _require_memory(universe.size, result.memory_bytes, dp_pairs)
    return result


def _require_memory(datasets: int, needed: int, pairs: int = 0) -> None:
    """Refuse a run whose estimate exceeds the memory this process may use: the smallest of the
    machine's physical memory and the limits set on the process (``RLIMIT_AS``, a cgroup)."""
    machine, limit = physical_memory(), process_memory_limit()
    known = [m for m in (machine, limit) if m is not None]
    if not known or needed <= min(known):
        return
    available = min(known)
    where = ("this machine's" if available == machine else
             "the limit set on this process (ulimit -v / prlimit --as, or its cgroup) of")
    task = (f"; one per-entry DP task compares up to {size_text(pairs)} neighbour pairs (an "
            f"attribute of d values gives d·(d − 1) of them)" if pairs > MERGE_PAIRS else "")
    raise TooLargeError(
        f"auditing {size_text(datasets)} datasets needs about {_size(needed)} of memory in this "
        f"process (one int64 per dataset and mechanism for per-entry DP, and one task's "
        f"arrays{task}), more than {where} {_size(available)}; --block-datasets bounds one "
        f"block, not this", "datasets")


def _size(count: int) -> str:
    return f"{count / 2**30:.1f} GB" if count >= 2**30 else f"{count / 2**20:.0f} MB"
