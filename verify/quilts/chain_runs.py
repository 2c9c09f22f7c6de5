"""MQMExact's node-by-node search as engine tasks: runs of nodes cut by estimated cost, each
searched by one task, with answers identical to the search in one process.

The search (Wang et al., Privacy-Preserving Analysis of Correlated Data, Algorithm 3 with Algorithm
4 per node, as implemented by :func:`pufferfish.verify.quilts.chain_search.mqm_chain_exact`) visits
the nodes in order and carries state from one node to the next: the previous node's quilt is the
first candidate (a *warm start*: the pruning ``score ≥ card/ε`` then examines only the quilts that
can beat it), and the previous answer is reused when the node's float inputs (``ev.key``) are
bitwise equal and both ends are out of reach.  Cut into runs:

* **Lead node.**  Each run but the first is preceded by its *lead*, the last node of the run
  before.  The task searches the lead from :func:`line_candidate` (a start that depends on no
  other node and costs one pass over the quilts of one line), then its run exactly as the
  one-process search continues from the lead.  The search's state entering a node is the
  previous node's answer and key, so when the task's answer at the lead equals the final answer
  there (the previous run's, already checked), every answer of the run is the one-process answer:
  the driver compares one tuple per run and searches nothing.  A lead answered differently (a tie
  of score and cardinality resolved by another first candidate) makes the driver search that run
  again from the final answer at its lead, so the result is identical in every case.
* **Runs by cost.**  A reused node costs almost nothing, a searched node about the share of the
  pruned grid of quilts that fits between the ends.  :func:`node_costs` predicts both from the
  keys and the reach ``ε σ̂ + 2`` of a line candidate's score ``σ̂`` at the middle node, and
  :func:`cut_runs` cuts the nodes into runs of about equal predicted cost, a run's lead
  included.  On a chain that does not start stationary the searched nodes are the first few
  hundred (until the float marginals stop changing) and the last ``ε σ + 2``; equal numbers of
  nodes per run left almost all the work in the first two runs.
* **Shipping.**  The workers receive the float tables as built, not as extended by the driver's
  estimate (thousands of small arrays that take Dask about a second to scatter); each worker
  extends its own copy and keeps it from one run to the next.

Complexity, on top of the one-process search that the runs share: ``O(T k²)`` for the keys and
``O(ε σ k²)`` per line candidate (one for the estimate, one per lead), per family member.

>>> cut_runs([1, 2, 3, 4, 5, 6], [1.0, 1.0, 1.0, 0.001, 0.001, 1.0], 3)
[[1, 2], [3, 4], [5, 6]]
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence

import numpy as np

from pufferfish.verify.execution import Engine

RUNS_PER_WORKER = 4
"""Runs per worker: enough for the scheduler to even out misestimated costs, few enough that the
leads (one node searched twice per run) stay a small share."""

REUSED_COST = 0.001
"""Predicted cost of a node whose previous answer is reused, relative to a searched node
(a key comparison against a pruned grid search: measured below a thousandth)."""


_allocator_lifted = False


def lift_allocator_threshold() -> None:
    """Free one 16 MiB block in this process, once.

    glibc's malloc serves every block of 128 kB or more by ``mmap`` (fresh pages, faulted in on
    first use) until it frees such a block, and then raises that threshold to the freed size
    (at most 32 MiB).  The search's grid arrays reach 8 MB: the one-process search frees
    blocks that large at its first, cold node, but a worker whose runs start from line
    candidates may never do, and then maps and unmaps its arrays afresh — measured 25% slower
    on the benchmark's runs.  (Not with ``MALLOC_TRIM_THRESHOLD_`` or ``MALLOC_MMAP_THRESHOLD_``
    set, which fix both thresholds.)
    """
    global _allocator_lifted
    if not _allocator_lifted:
        np.empty(2 << 20)  # 16 MiB, allocated and freed at once
        _allocator_lifted = True


def line_candidate(ev, i: int, eps: float) -> tuple[float, int, int] | None:
    """A first candidate ``(score, a, b)`` for node ``i`` that depends on no other node: the best
    quilt ``{X_{i−min(t, i−1)}, X_{i+min(t, T−i)}}`` over ``t = 1, 2, …`` (both sides present, as
    balanced as the ends allow) of the float evaluator ``ev``; ``None`` at an end or when none of
    these has a finite score.  The cardinality grows with ``t``, and a quilt of cardinality
    ``c`` scores at least ``c/ε``, so ``t`` stops once ``2t − 1 ≥ ε·best``: ``O(ε σ k²)`` per
    family member, ``O(T k²)`` when nothing scores finitely.

    A search started from it examines about as few quilts as one started from the previous
    node's quilt: the best quilt of a node away from the ends lies near the diagonal ``a = b``.
    """
    if i <= 1 or i >= ev.T:
        return None
    best, first, last, width = None, 1, max(i - 1, ev.T - i), 64
    while first <= last and (best is None or 2 * first - 1 < eps * best[0]):
        t = np.arange(first, min(last, first + width - 1) + 1)
        as_, bs = np.minimum(t, i - 1), np.minimum(t, ev.T - i)
        es = ev.pairs(i, as_, bs)
        with np.errstate(divide="ignore"):
            scores = np.where(es < eps, (as_ + bs - 1) / np.maximum(eps - es, 1e-300), np.inf)
        j = int(np.argmin(scores))
        if scores[j] < (math.inf if best is None else best[0]):
            best = (float(scores[j]), int(as_[j]), int(bs[j]))
        first, width = int(t[-1]) + 1, 2 * width
    return best


def node_costs(ev, T: int, eps: float, nodes: Sequence[int]) -> list[float]:
    """Predicted search cost of each of the increasing ``nodes``, relative to a searched node
    away from both ends, with the reach ``r = ε σ̂ + 2`` (``σ̂`` the score of the line candidate
    at the middle node):

    * :data:`REUSED_COST` for a node whose previous answer the search will reuse: its key equals
      the previous node's and both ends lie beyond ``r``;
    * 1 for a node within ``r`` of the start (the search also scans the quilts without a left
      side there, and a previous answer without a left side is no warm start: at this node that
      side is present), or away from both ends with a changed key;
    * ``max(min(T−i, r)/r, 1/20)`` within ``r`` of the end, the share of the pruned grid of
      quilts that fits before the end.

    Without a line candidate every node costs 1.  ``O(T k²)``.
    """
    middle = line_candidate(ev, nodes[len(nodes) // 2], eps)
    reach = math.inf if middle is None else eps * middle[0] + 2
    costs, previous, previous_key = [], None, None
    for i in nodes:
        key = ev.key(i)
        if (previous == i - 1 and key == previous_key and min(i - 1, T - i) >= reach
                and i - reach >= ev.stable_from):
            costs.append(REUSED_COST)
        elif i <= reach or reach == math.inf:
            costs.append(1.0)
        else:
            costs.append(max(min(T - i, reach) / reach, 1 / 20))
        previous, previous_key = i, key
    return costs


def cut_runs(nodes: Sequence[int], costs: Sequence[float], count: int) -> list[list[int]]:
    """``nodes`` cut, in order, into about ``count`` runs of about equal total cost, a run after
    the first also paying 1 for its lead node; a node goes to the next run when the middle of its
    cost would pass the target, and a last run under half the target joins the one before.
    ``O(len(nodes))``."""
    target = (sum(costs) + count - 1) / count
    runs: list[list[int]] = [[]]
    spent = 0.0
    for i, cost in zip(nodes, costs):
        if runs[-1] and spent + cost / 2 > target:
            runs.append([])
            spent = 1.0
        runs[-1].append(i)
        spent += cost
    if len(runs) > 1 and spent < target / 2:
        last = runs.pop()
        runs[-1] += last
    return runs


def search_in_runs(engine: Engine, ev, T: int, eps: float, nodes: list[int],
                   run_task: Callable, search: Callable,
                   progress: Callable[[int, int], None] | None = None) -> dict[int, tuple]:
    """The answers ``{node: (σ, a, b, e)}`` of ``search(ev, T, eps, nodes)`` for increasing
    ``nodes``, computed as runs on ``engine`` (the float tables ``ev`` sent to each worker once):
    ``run_task(ev, T, eps, lead, run) -> (answer at lead, answers of run)`` is the task and
    ``search(ev, T, eps, run, after=(lead, answer))`` redoes a run whose lead was answered
    differently (module docstring).  Identical to the one-process search.

    The workers receive ``ev`` as it was passed in: the cost estimate extends the driver's tables
    to long distances, thousands of small arrays that Dask would take about a second to scatter,
    while a worker extends its own copy as its searches need it (and keeps it between runs)."""
    if not nodes:
        return {}
    shipped = copy.deepcopy(ev)
    runs = cut_runs(nodes, node_costs(ev, T, eps, nodes), RUNS_PER_WORKER * engine.workers)
    leads = [None] + [run[-1] for run in runs[:-1]]
    found = engine.map(run_task, [(T, eps, lead, run) for lead, run in zip(leads, runs)],
                       progress, shared=shipped)
    out: dict[int, tuple] = {}
    for lead, run, (lead_answer, answers) in zip(leads, runs, found):
        if lead is not None and lead_answer != out[lead]:
            answers = search(ev, T, eps, run, after=(lead, out[lead]))
        out.update(answers)
    return out


__all__ = ["lift_allocator_threshold", "line_candidate", "node_costs", "cut_runs",
           "search_in_runs", "RUNS_PER_WORKER", "REUSED_COST"]
