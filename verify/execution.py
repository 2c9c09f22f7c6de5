"""Where independent tasks run: in this process, or on a Dask cluster (``dask.distributed``).

Every long computation of the toolkit is a list of independent, deterministic tasks whose results
are combined exactly in a fixed order: the blocks of an exact audit
(:mod:`pufferfish.verify.privacy.blocks`), the claims of ``pufferfish theorems``.  An
:class:`Engine` runs such a list with :meth:`Engine.map` and returns the results *in the order of
the inputs*, whatever order they finished in, so a reduction over them gives the same answer, bit
for bit, on one process or on a cluster.

* :class:`InProcessEngine` (the default) calls the function in a loop: no start-up cost, no
  running service needed.
* :class:`DaskEngine` submits the tasks to a Dask scheduler: a local cluster of ``workers``
  processes started for the run, or an existing scheduler at ``address`` (a real cluster — SSH,
  Kubernetes, an HPC queue through dask-jobqueue — with no change to the code).  Tasks are pure
  functions of their arguments, so when a worker is lost Dask recomputes its tasks elsewhere and
  the answer is unchanged.

:func:`engine_from` picks one from the command line's ``--scheduler`` / ``--workers`` or the
environment variable ``PUFFERFISH_SCHEDULER``.

>>> with engine_from() as engine:
...     engine.map(pow, [(2, 3), (3, 2)])
[8, 9]
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from itertools import count
from typing import Any

from pufferfish.models.errors import require_extra

SCHEDULER_VARIABLE = "PUFFERFISH_SCHEDULER"
"""Environment variable naming a Dask scheduler address used when ``--scheduler`` is not given."""

CONNECT_TIMEOUT = 10.0
"""Seconds a Dask scheduler has to answer before it is declared unreachable."""

SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")
"""The protocols of a scheduler address (``tcp`` when none is written)."""

ProgressCallback = Callable[[int, int], None]
"""``progress(done, total)``, called after each finished task."""

_task_numbers = count()


class Engine(ABC):
    """Runs lists of independent tasks; a context manager that releases what it started."""

    description = "in-process"

    @abstractmethod
    def map(self, function: Callable[..., Any], argument_tuples: Iterable[Sequence[Any]],
            progress: ProgressCallback | None = None, shared: Any = None,
            in_flight: int | None = None,
            on_result: Callable[[int, Any], None] | None = None) -> list[Any]:
        """``[function(shared, *args) for args in argument_tuples]`` (``function(*args)`` when
        ``shared`` is None), results in input order.  ``shared`` is sent to each worker once.

        ``in_flight``: at most that many tasks are submitted and unfinished at once, and the
        arguments are taken from ``argument_tuples`` one at a time as earlier tasks finish — for
        tasks whose arguments are large and built on demand (a :class:`~collections.abc.Sequence`
        whose items are made when indexed), so that only ``in_flight`` of them exist at once.
        Without it every task is submitted at once.

        ``on_result(index, result)`` is called in this process as each task's result arrives
        (in the order they finish), for work that must not wait for the whole map."""

    @property
    def workers(self) -> int:
        """How many tasks may run at once."""
        return 1

    def close(self, quietly: bool = False) -> None:
        """Release the cluster this engine started (nothing for the in-process engine);
        ``quietly`` after an interruption: no warning or traceback of the shutdown."""

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.close(quietly=kind is not None and issubclass(kind, KeyboardInterrupt))


class InProcessEngine(Engine):
    """Run every task in this process, one after the other."""

    def map(self, function, argument_tuples, progress=None, shared=None, in_flight=None,
            on_result=None):
        arguments = _sized(argument_tuples)
        results = []
        for done, args in enumerate(arguments, start=1):
            results.append(function(*args) if shared is None else function(shared, *args))
            if on_result:
                on_result(done - 1, results[-1])
            if progress:
                progress(done, len(arguments))
        return results


class DaskEngine(Engine):
    """Run tasks on a Dask cluster: a local one of ``workers`` processes, or the scheduler at
    ``address``.  ``dashboard`` is the link to the cluster's dashboard (for progress)."""

    def __init__(self, address: str | None = None, workers: int | None = None) -> None:
        require_extra("distributed", "dask", "running tasks on a Dask cluster")
        import dask
        from dask.distributed import Client, LocalCluster

        self._cluster = self.client = None
        if address is not None:
            check_scheduler(address)
        # A Ctrl-C (or SIGTERM) while the cluster starts would leave it half started, and Dask
        # would fail to close it at exit with a traceback: it is held until the start is over,
        # then everything started is closed and the interruption goes on.  A Ctrl-C at the
        # terminal reaches every process of the group: the workers of a local cluster ignore it
        # (from their first line when the command line spawned them, pufferfish.cli.main; here
        # once they run), so that only this process acts on it and shuts them down, instead of
        # each worker dying with its own traceback.
        with _interruptions_held() as held:
            if address is None:
                # One thread per worker (the tasks are pure Python) and no statistical profiler
                # (it samples every thread and costs a few per cent of a CPU-bound task).  Dask
                # starts workers with MALLOC_TRIM_THRESHOLD_=65536, which turns off glibc's
                # adaptive mmap threshold: every NumPy array over 128 kB is then mapped and
                # unmapped afresh, and the array-heavy MQM search runs twice as slow as in this
                # process; it is left unset.
                with dask.config.set({"distributed.worker.profile.enabled": False,
                                      "distributed.nanny.pre-spawn-environ."
                                      "MALLOC_TRIM_THRESHOLD_": None}):
                    self._cluster = LocalCluster(n_workers=workers or 2, threads_per_worker=1,
                                                 processes=True, dashboard_address=":0")
                self.client = Client(self._cluster)
                self.client.run(_ignore_interruptions)
                self.description = f"local Dask cluster of {workers or 2} worker processes"
            else:
                self.client = Client(address, timeout=f"{CONNECT_TIMEOUT}s")
                self.description = f"Dask scheduler at {address}"
        if held:
            self.close(quietly=True)
            signal.raise_signal(held[0])
        self.dashboard = self.client.dashboard_link

    @property
    def workers(self) -> int:
        return max(1, len(self.client.scheduler_info(n_workers=-1)["workers"]))

    def map(self, function, argument_tuples, progress=None, shared=None, in_flight=None,
            on_result=None):
        from concurrent.futures import CancelledError

        from dask.distributed import as_completed

        arguments = _sized(argument_tuples)
        if not len(arguments):
            return []
        # sent once to every worker; each task receives it as its first argument
        first = () if shared is None else (
            self.client.scatter(shared, broadcast=True, hash=False),)
        # Unique keys: a task is never mistaken for an earlier one with equal arguments.
        run = next(_task_numbers)
        name = getattr(function, "__name__", "task")

        # Each result is fetched as its task finishes and the task is then forgotten, so a
        # worker holds a result only until this process has it.
        total = len(arguments)
        results: list[Any] = [None] * total
        index_of = {}
        running = as_completed(with_results=True)

        attempts = [0] * total

        def submit(k: int) -> None:
            future = self.client.submit(function, *first, *arguments[k], pure=False,
                                        key=f"{name}-{os.getpid()}-{run}-{k}-{attempts[k]}")
            index_of[future] = k
            running.add(future)

        submitted = min(total, in_flight or total)
        for k in range(submitted):
            submit(k)
        done = 0
        for future, result in running:
            k = index_of.pop(future)
            # A task cancelled when its worker died is handed back as its result: run it again
            # (tasks are pure), a few times at most.
            if isinstance(result, CancelledError) and attempts[k] < 3:
                attempts[k] += 1
                submit(k)
                continue
            if isinstance(result, CancelledError):
                raise result
            done += 1
            results[k] = result
            if on_result:
                on_result(k, result)
            if submitted < total:
                submit(submitted)
                submitted += 1
            if progress:
                progress(done, total)
        return results

    def close(self, quietly: bool = False) -> None:
        if not quietly:
            if self.client is not None:
                self.client.close()
            if self._cluster is not None:
                self._cluster.close()
            return
        # After an interruption: this process's Dask loggers and, on a cluster of our own, the
        # workers' are silenced first (cancelled tasks are logged as warnings), and whatever a
        # shutdown in the middle of the work raises is let go; the interruption is what matters.
        silenced = _silence_dask_logs()
        with contextlib.suppress(Exception):
            if self._cluster is not None and self.client is not None:
                self.client.run(_silence_dask_logs, wait=True)
        for part in (self.client, self._cluster):
            with contextlib.suppress(Exception):
                if part is not None:
                    part.close(timeout=5)
        for logger, disabled in silenced:
            logger.disabled = disabled


def check_scheduler(address: str, timeout: float | None = None) -> None:
    """Refuse ``address`` before a Dask client is made for it: ``ValueError`` unless it reads
    ``[PROTOCOL://]HOST:PORT`` with a known protocol and a port in 1..65535 (a client made for a
    malformed address fails with a traceback when it is collected), and ``OSError`` when a
    TCP-based address does not accept a connection within ``timeout`` seconds (default
    :data:`CONNECT_TIMEOUT`; a closed port is refused at once instead of retried until then)."""
    import socket

    require_extra("distributed", "dask", "a Dask scheduler (--scheduler)")
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port

    expected = "expected [PROTOCOL://]HOST:PORT, e.g. tcp://10.0.0.5:8786"
    try:
        scheme, location = parse_address(address)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{error}; {expected}") from None
    if scheme not in SCHEDULER_SCHEMES:
        raise ValueError(f"unknown protocol {scheme!r} (known: {', '.join(SCHEDULER_SCHEMES)}); "
                         f"{expected}")
    if scheme in ("inproc", "ucx"):
        return
    try:
        host, port = parse_host_port(location)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{error}; {expected}") from None
    if not host or not 1 <= port <= 65535:
        raise ValueError(f"expected a host and a port in 1..65535, got {location!r}; {expected}")
    with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT if timeout is None
                                  else timeout):
        pass


def physical_memory() -> int | None:
    """This machine's physical memory in bytes, or ``None`` where the system does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def process_memory_limit() -> int | None:
    """The smallest memory limit set on this process, in bytes, or ``None`` when none is set:
    its address-space limit (``prlimit --as``, ``ulimit -v``: ``RLIMIT_AS``) and the memory
    limit of its control group (cgroup v2 ``memory.max``, v1 ``memory.limit_in_bytes``)."""
    limits = [_address_space_limit(), _cgroup_memory_limit()]
    known = [limit for limit in limits if limit is not None]
    return min(known) if known else None


def usable_memory() -> int | None:
    """The memory this process may use, in bytes: the smaller of :func:`physical_memory` and
    :func:`process_memory_limit`, or ``None`` when neither is known."""
    known = [m for m in (physical_memory(), process_memory_limit()) if m is not None]
    return min(known) if known else None


_UNLIMITED = 2**60
"""Limits at least this large are the systems' ways of writing "no limit"."""


def _address_space_limit() -> int | None:
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, AttributeError, ValueError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY or soft < 0 or soft >= _UNLIMITED else soft


def _cgroup_memory_limit() -> int | None:
    """The memory limit of this process's cgroup (v2, else v1), read from ``/sys/fs/cgroup``;
    ``None`` when there is none or it cannot be read cheaply."""
    try:
        with open("/proc/self/cgroup", encoding="ascii", errors="replace") as handle:
            lines = handle.read(1 << 16).splitlines()
    except OSError:
        return None
    candidates = []
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":
            candidates += [f"/sys/fs/cgroup{path.rstrip('/')}/memory.max",
                           "/sys/fs/cgroup/memory.max"]
        elif "memory" in controllers.split(","):
            candidates += [f"/sys/fs/cgroup/memory{path.rstrip('/')}/memory.limit_in_bytes",
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"]
    for candidate in candidates:
        try:
            with open(candidate, encoding="ascii") as handle:
                text = handle.read(64).strip()
        except (OSError, ValueError):
            continue
        if text.isdigit():
            value = int(text)
            return value if 0 < value < _UNLIMITED else None
        if text == "max":
            return None
    return None


def _ignore_interruptions() -> None:
    """Run on each worker of a local cluster: SIGINT (a Ctrl-C at the terminal, which reaches
    the whole process group) is left to the process that started the cluster."""
    with contextlib.suppress(ValueError):  # not the main thread: nothing to change
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _silence_dask_logs() -> list[tuple[logging.Logger, bool]]:
    """Turn off the logs of Dask and its event loop in this process (this one, and each worker
    of a local cluster being shut down after an interruption): every logger under
    ``distributed``, ``tornado`` and ``asyncio``, whatever level it was given.  Returns each
    logger with its previous state, for the caller to restore."""
    roots = ("distributed", "tornado", "asyncio")
    names = [name for name in list(logging.root.manager.loggerDict)
             if name.split(".")[0] in roots] + list(roots)
    previous = []
    for name in dict.fromkeys(names):
        logger = logging.getLogger(name)
        previous.append((logger, logger.disabled))
        logger.disabled = True
    return previous


@contextlib.contextmanager
def _interruptions_held():
    """While active (in the main thread only), SIGINT and SIGTERM are recorded, not acted on;
    yields the list of the signals received, in order, for the caller to deliver again once the
    work that must not be cut in the middle is done.  A signal this process ignores stays
    ignored."""
    held: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield held
        return

    def hold(signum, frame) -> None:
        held.append(signum)

    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    for number, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(number, hold)
    try:
        yield held
    finally:
        for number, handler in previous.items():
            if handler is not None:
                signal.signal(number, handler)


def _sized(argument_tuples: Iterable[Sequence[Any]]) -> Sequence[Sequence[Any]]:
    """The arguments as a sequence: a sequence is kept as it is (its items may be made on
    demand), any other iterable is listed."""
    return argument_tuples if isinstance(argument_tuples, Sequence) else list(argument_tuples)


def engine_from(scheduler: str | None = None, workers: int | None = None) -> Engine:
    """The engine the options ask for: ``scheduler`` (else ``$PUFFERFISH_SCHEDULER``) is an
    existing Dask scheduler's address; ``workers`` starts a local cluster of that many processes;
    neither gives the in-process engine.  Both at once is refused (``ValueError``)."""
    if scheduler and workers:
        raise ValueError("give either a scheduler address or a number of local workers, not both")
    address = scheduler or (None if workers else os.environ.get(SCHEDULER_VARIABLE) or None)
    if address is None and not workers:
        return InProcessEngine()
    return DaskEngine(address, workers)
