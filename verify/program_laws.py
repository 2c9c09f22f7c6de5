"""The output laws of program mechanisms as tasks of an engine (a Dask cluster).

A :class:`~pufferfish.models.programs.mechanism.ProgramMechanism`'s law on one dataset is an
exhaustive enumeration of the program's paths (:mod:`pufferfish.models.programs.enumerate`), and
the laws on different datasets are independent: :func:`program_laws` computes those of the
distinct kernel keys an analysis will read as tasks of an :class:`~pufferfish.verify.execution.Engine`,
a few batches per worker, and keeps each in its mechanism
(:meth:`~pufferfish.models.mechanisms.Mechanism.keep_distribution`), so the analysis that follows
reads them instead of computing them one after the other in this process.

On a worker each law is computed exactly as here: behind the program's fault boundary
(:mod:`~pufferfish.models.programs.sandbox`: a process forked from the worker with the same CPU,
memory and step limits, the sources of randomness refused), and returned by pickling, which keeps
every exact number (:class:`~fractions.Fraction`, and
:class:`~pufferfish.models.programs.exp_numbers.ExpNumber` through its ``__reduce__``).  A key
whose computation fails on a worker (the program's error, a limit, a failure of the engine) is
not kept: the analysis then computes it in this process, where it fails as it would have without
a cluster — the same message and exit status, at the same first failing dataset.  The results are
therefore identical, bit for bit, with and without workers; the in-process engine computes
nothing ahead (the analysis does it, as before).

Cost: the laws of ``K`` distinct keys in about ``K / workers`` law-times, plus sending the
mechanism to each worker once and one result per key back.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from itertools import product

from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.programs.mechanism import ProgramMechanism
from pufferfish.models.universe import Universe
from pufferfish.verify.execution import Engine, InProcessEngine

__all__ = ["program_laws", "universe_keys", "BATCHES_PER_WORKER", "MAX_SCANNED_DATASETS"]

BATCHES_PER_WORKER = 4
"""Tasks per worker: enough to even out laws of unequal cost, few enough that the per-task
overhead of the scheduler (milliseconds) stays small next to a law."""

MAX_SCANNED_DATASETS = 10**6
"""The most datasets listed to find a mechanism's distinct keys (a program that reads every
attribute on a larger universe is left to the analysis, which refuses or computes it as before)."""


def universe_keys(mechanism: Mechanism, universe: Universe,
                  limit: int = MAX_SCANNED_DATASETS) -> list[Hashable]:
    """The distinct kernel keys of ``mechanism`` on ``universe``, in the universe's order: for
    a program that ``reads`` some attributes of a product universe, the product of their domains
    (without listing the universe); else the keys of the datasets, listed when there are at most
    ``limit`` (none otherwise).

    >>> from pufferfish.models.programs import ProgramMechanism, coin
    >>> u = Universe.product(["a", "b", "c"], [[0, 1], [0, 1, 2], [5]])
    >>> universe_keys(ProgramMechanism("m", lambda data: data[0], reads=[2, 0]), u)
    [(5, 0), (5, 1)]
    """
    reads = getattr(mechanism, "reads", None)
    if reads is not None and universe.explicit is None:
        return list(product(*(universe.domains[i] for i in reads)))
    if universe.size > limit:
        return []
    return list(dict.fromkeys(mechanism.kernel_key(d) for d in universe.datasets(limit)))


def program_laws(engine: Engine | None, mechanisms: Iterable[Mechanism],
                 keys_of) -> int:
    """Compute, as tasks of ``engine``, the law of every program mechanism among
    ``mechanisms`` on each of its kernel keys ``keys_of(mechanism)`` not yet known, and keep
    them in the mechanism (module docstring); the number of laws kept.  Nothing is done on the
    in-process engine (or ``None``), nor for mechanisms that are not programs.

    >>> from pufferfish.models.programs import ProgramMechanism
    >>> program_laws(None, [ProgramMechanism("m", lambda data: data[0])], lambda m: [(0,)])
    0
    """
    if engine is None or isinstance(engine, InProcessEngine):
        return 0
    wanted = {}
    for mechanism in mechanisms:
        if isinstance(mechanism, ProgramMechanism):
            keys = [k for k in dict.fromkeys(keys_of(mechanism)) if not mechanism.is_known(k)]
            if keys:
                wanted[mechanism] = keys
    total = sum(len(keys) for keys in wanted.values())
    if not total:
        return 0
    # one map for every mechanism, sent to each worker once: batches in proportion to each
    # one's keys
    programs = list(wanted)
    tasks = [(k, batch) for k, mechanism in enumerate(programs)
             for batch in _batches(wanted[mechanism],
                                   -(-BATCHES_PER_WORKER * engine.workers
                                     * len(wanted[mechanism]) // total))]
    kept = 0
    for (k, batch), laws in zip(tasks, engine.map(_laws, tasks, shared=tuple(programs))):
        for key, law in zip(batch, laws):
            if law is not None:
                programs[k].keep_distribution(key, law)
                kept += 1
    return kept


def _batches(keys: Sequence[Hashable], wanted: int) -> list[tuple[Hashable, ...]]:
    """``keys`` cut into at most ``wanted`` consecutive batches of near-equal sizes."""
    count = max(1, min(wanted, len(keys)))
    size, extra = divmod(len(keys), count)
    cuts = [0]
    for k in range(count):
        cuts.append(cuts[-1] + size + (k < extra))
    return [tuple(keys[a:b]) for a, b in zip(cuts, cuts[1:])]


def _laws(programs: tuple[ProgramMechanism, ...], index: int, keys: tuple) -> list:
    """The task: the law of each key of ``programs[index]``, ``None`` for a key whose
    computation fails (computed again, and reported, by the analysis in the process that
    asked)."""
    mechanism = programs[index]
    laws = []
    for key in keys:
        try:
            laws.append(mechanism.key_distribution(key))
        except Exception:  # the program's error or a limit: reported where it is asked for
            laws.append(None)
    return laws
