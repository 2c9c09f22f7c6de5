"""Fixtures of the execution tests (:mod:`pufferfish.verify.execution`): a local Dask cluster of
2 worker processes, and a cluster that kills one of its workers in the middle of a run."""

from __future__ import annotations

import os
import signal

import pytest

from pufferfish.verify.execution import DaskEngine, engine_from


class KillingEngine(DaskEngine):
    """A local cluster that kills one worker process (SIGKILL) after ``after`` tasks of the
    first map (of function ``task``, if given) have finished; the nanny restarts it and Dask
    recomputes its lost results.  ``tasks`` is the number of tasks of the map it killed in."""

    def __init__(self, after: int, task: str | None = None) -> None:
        super().__init__(workers=2)
        self.after, self.task, self.killed, self.tasks = after, task, None, None

    def map(self, function, argument_tuples, progress=None, shared=None, in_flight=None,
            on_result=None):
        name = function.__name__

        def kill_one(done: int, total: int) -> None:
            if self.killed is None and done == self.after and self.task in (None, name):
                pids = self.client.run(os.getpid)
                self.killed, self.tasks = sorted(pids.values())[0], total
                os.kill(self.killed, signal.SIGKILL)
            if progress:
                progress(done, total)
        return super().map(function, argument_tuples, kill_one, shared, in_flight, on_result)


@pytest.fixture(scope="module")
def cluster():
    """A local cluster of 2 worker processes, shared by the tests of one module."""
    with engine_from(workers=2) as engine:
        yield engine


@pytest.fixture
def killing_engine():
    """``killing_engine(after=N, task=NAME)``: a :class:`KillingEngine` (close it with
    ``with``)."""
    return KillingEngine
