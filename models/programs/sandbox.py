"""The fault boundary of programs: user code runs in worker processes with limits.

A program is the user's code; the toolkit's verdict and exit status must not depend on what that
code does to the process it runs in.  :class:`ProgramWorker` runs it behind a boundary of two
kinds of process:

* a **zygote**, forked from this process when the program is first needed and kept for its later
  requests: it resolves the program (for a file: imports it, under the limits below) and never
  runs it;
* for each request — one dataset's law — a **fresh process forked from the zygote**, which
  computes the law, reports it and exits.  Whatever a run of the program changes in its process
  (a module-level counter, a mutable default argument, a cache, the engine's memo) dies with it:
  no state survives from one dataset's law into the next, so the laws do not depend on the order
  in which the datasets are asked for.  The cost is one fork per law, 10–20 ms
  (``benchmarks/bench_program_isolation.py``: 3–4× on laws of milliseconds), and what the
  engine computed once per process is now computed once per law: the memo of stepwise programs
  (the steps of a prefix shared by datasets) and the cells of each Gaussian law (about 0.2 s).

What the boundary guarantees:

* **limits** (:class:`Limits`), per request and for the import of the program's file:
  ``cpu_seconds`` of CPU time (``RLIMIT_CPU``: its ``SIGXCPU`` ends even a loop inside C code
  such as ``sum(itertools.count())``, and its hard limit, ``grace_seconds`` later, a ``SIGKILL``
  the program cannot ignore; the parent also reads the process's CPU time and kills it past the
  same budget), ``wall_seconds`` of wall-clock time (4 × the CPU limit, at least 60 s, by
  default: a program that sleeps or blocks on a pipe or a lock uses no CPU), ``memory_bytes``
  of address space beyond what the process inherited (``RLIMIT_AS``), and the step limit of the engine.  At a limit the
  parent kills the whole **process group** of the request with ``SIGKILL`` (each request's
  process leads a group of its own, and dies with the zygote: ``PR_SET_PDEATHSIG``), so processes
  the program started die too;
* **death reported for what it was**: "used more than N CPU seconds" only when the parent killed
  the process at the CPU budget or the kernel's CPU limit did (``SIGXCPU``, or ``SIGKILL`` at the
  hard limit, read from the dead process's CPU time); "ran for more than N seconds" at the
  wall-clock limit; a ``MemoryError`` (the address-space limit) is "used more than N bytes of
  memory"; any other signal is named as such ("was killed by signal SIGKILL, not by the
  toolkit's limits": the system's out-of-memory killer, or a user), as is an exit status;
* **captured output**: the processes' file descriptors 1 and 2 are a temporary file, never the
  toolkit's stdout or stderr; what the program printed is quoted (its end) in an error message
  and otherwise discarded.  Every other descriptor the toolkit had open is closed in the zygote.
  The command line also makes its own process non-dumpable (``PR_SET_DUMPABLE``) and the
  workers drop ``CAP_SYS_PTRACE``, so a program cannot reach the toolkit's stdout through
  ``/proc/<pid>/fd/1`` either, even as root (:func:`protect_parent`);
* **errors located, never an exit status**: ``SystemExit``, ``KeyboardInterrupt`` (the workers
  ignore Ctrl-C, so it is the program's own) and any other exception of the program come back as
  a :class:`~pufferfish.models.programs.enumerate.ProgramError` naming the program, the dataset
  and the line; a failure of the engine's own code comes back as an
  :class:`~pufferfish.models.programs.enumerate.EngineError` with the traceback where it happened
  (the command line's exit 4).

The **hash seed**: a program whose output depends on ``hash(str)`` (or on the order of a set of
strings) would have a law that changes with ``PYTHONHASHSEED``.  The command line re-executes
itself with ``PYTHONHASHSEED=0`` when it is not already so (``pufferfish.cli.main``), before it
imports the toolkit, and the workers inherit it; a library user who calls
:class:`ProgramWorker` or ``ProgramMechanism`` from Python fixes the seed by starting Python
with ``PYTHONHASHSEED=0`` (a running interpreter cannot change it).

The workers are *forked* (``os.fork``), not spawned: they inherit the program as a Python object,
so a function defined in a notebook or a test (a lambda, a closure) runs behind the boundary
exactly as a program file does.  Forking needs a POSIX system; the process groups, the
parent-death signal, ``/proc`` and the capabilities are Linux's (elsewhere the CPU limit and the
parent's wall-clock kill remain).  This is a fault boundary against a program's mistakes, not a
security sandbox: the workers have the user's rights and can read and write files
(docs/programs.md, "What a program may and may not do").

>>> from pufferfish.models.programs import coin
>>> worker = ProgramWorker(lambda: (lambda data: data[0] if coin("3/4") else 1 - data[0]), "rr")
>>> worker.law((1,), {}, "rr")
Distribution({1: 3/4, 0: 1/4})
>>> worker.close()

Length: about 740 lines; the zygote, the request's process and the parent's reading of their
messages share the message format and the limits, and read best together.
"""

from __future__ import annotations

import ctypes
import fcntl
import math
import os
import pickle
import resource
import select
import signal
import struct
import sys
import tempfile
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.programs import enumerate as engine

__all__ = ["Limits", "ProgramWorker", "protect_parent", "DEFAULT_CPU_SECONDS",
           "DEFAULT_MEMORY_BYTES", "WALL_FACTOR", "MIN_WALL_SECONDS"]

DEFAULT_CPU_SECONDS = 120.0
"""CPU seconds a program may use for one request (importing its file, or one dataset's law)."""

DEFAULT_MEMORY_BYTES = 4 << 30
"""Address space (bytes) a program's worker may add to what it inherited."""

WALL_FACTOR = 4
"""The default wall-clock limit of a request, in multiples of its CPU limit (and at least
:data:`MIN_WALL_SECONDS`)."""

MIN_WALL_SECONDS = 60.0
"""The least default wall-clock limit: a small CPU limit on a loaded machine (CPU time accrues
at a fraction of the wall clock there) must still be the limit that ends a loop."""


@dataclass(frozen=True)
class Limits:
    """The limits of a program's workers (module docstring): ``cpu_seconds`` per request,
    ``memory_bytes`` added to the inherited address space, ``grace_seconds`` between the CPU
    limit and the ``SIGKILL`` (the kernel's hard limit and the parent's), ``wall_seconds`` of
    wall-clock time per request (``None``: :data:`WALL_FACTOR` × ``cpu_seconds``, at least
    :data:`MIN_WALL_SECONDS`).

    >>> Limits().wall_seconds, Limits(cpu_seconds=1).wall_seconds
    (480.0, 60.0)
    """

    cpu_seconds: float = field(default_factory=lambda: DEFAULT_CPU_SECONDS)
    memory_bytes: int = field(default_factory=lambda: DEFAULT_MEMORY_BYTES)
    grace_seconds: float = 2.0
    wall_seconds: float | None = None

    def __post_init__(self) -> None:
        if self.wall_seconds is None:
            object.__setattr__(self, "wall_seconds",
                               max(float(WALL_FACTOR * self.cpu_seconds), MIN_WALL_SECONDS))


class ProgramWorker:
    """The zygote of one program and the processes of its requests (module docstring).
    ``resolve()`` is called in the zygote and returns the program function (it imports the
    program's file there); ``label`` names the program in messages.  ``arguments``, when given,
    are the program's arguments for every request, inherited by the workers rather than sent (so
    they need not be picklable)."""

    def __init__(self, resolve: Callable[[], Callable], label: str,
                 limits: Limits | None = None, arguments: dict | None = None) -> None:
        self.resolve, self.label, self.arguments = resolve, label, arguments
        self.limits = limits or Limits()
        self._process: _Zygote | None = None
        self._lock = threading.Lock()  # one request at a time on the pipes

    def check(self) -> None:
        """Run ``resolve()`` in the zygote (for a file: import it under the limits)."""
        self._request(("resolve",))

    def law(self, key: tuple, arguments: dict | None, name: str, **limits: int) -> Distribution:
        """:func:`~pufferfish.models.programs.enumerate.program_distribution` of the program on
        ``key`` with ``arguments`` (``None``: the worker's own), computed in a process forked
        from the zygote for this request (``limits``: ``max_steps``, ``max_runs``,
        ``max_depth``)."""
        probabilities = self._request(("law", key, arguments, name, limits))
        return Distribution._trusted(probabilities)

    def close(self) -> None:
        """End the zygote and any request in progress (a later request starts a new zygote)."""
        if self._process is not None:
            self._process.stop()
            self._process = None

    def _request(self, request: tuple) -> object:
        with self._lock:
            return self._ask(request)

    def _ask(self, request: tuple) -> object:
        if self._process is not None and not self._process.running():
            self._process = None  # ended between requests (killed from outside): a new one
        if self._process is None or not self._process.alive:
            self._process = _Zygote(self.resolve, self.limits, self.arguments)
        process = self._process
        try:
            return process.ask(request, self.label)
        except BaseException:
            if not process.idle:  # interrupted, or the zygote itself died: never reused
                self.close()
            raise


class _Zygote:
    """One zygote and the parent's ends of its pipes; reads the messages of a request and
    enforces the limits (module docstring)."""

    def __init__(self, resolve: Callable[[], Callable], limits: Limits,
                 arguments: dict | None) -> None:
        self.limits = limits
        request_read, self.request_write = os.pipe()
        self.response_read, response_write = os.pipe()
        self.capture = tempfile.TemporaryFile()
        fcntl.fcntl(self.capture.fileno(), fcntl.F_SETFL,
                    fcntl.fcntl(self.capture.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        self.pid = os.fork()
        if self.pid == 0:  # the zygote: never returns into the parent's code
            status = 0
            try:
                _zygote(resolve, request_read, response_write, self.capture.fileno(), limits,
                        arguments)
            except BaseException as error:  # the worker's own failure: an internal error
                status = 70
                try:
                    _write_message(response_write, ("engine", f"the worker process failed: "
                                                    f"{type(error).__name__}: {error}",
                                                    traceback.format_exc()))
                except BaseException:
                    pass
            finally:
                os._exit(status)
        os.close(request_read)
        os.close(response_write)
        self.alive, self.idle = True, True
        self.current = [0]  # the process group of the request in progress (0: none)
        self.progress: _ProgressLine | None = None
        self._finalizer = weakref.finalize(self, _end, self.pid, self.request_write,
                                           self.response_read, self.current)

    def running(self) -> bool:
        """Whether the zygote is alive (one that ended between requests is reaped here)."""
        if not self.alive:
            return False
        try:
            done, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            done = self.pid
        if done:
            self.alive = False
            self._finalizer.detach()
            _close(self.request_write, self.response_read)
        return not done

    def ask(self, request: tuple, label: str) -> object:
        if self.progress is None:
            self.progress = _ProgressLine(label)
        self.capture.truncate(0)
        self.idle = False
        self.killed: str | None = None  # why the parent killed the request's process
        self.started = time.monotonic()
        self.cpu_base = _cpu_seconds(self.pid) or 0.0  # the zygote's, before this request
        try:
            _write_message(self.request_write, request)
        except BrokenPipeError:  # the zygote ended just now
            raise self._zygote_died(label) from None
        progress = self.progress
        progress.begin()
        done = False
        answer: tuple | None = None
        forked = False  # whether the request's process started (else the zygote answers)
        try:
            while True:
                message = self._next_message(label)
                kind = message[0]
                if kind == "started":
                    self.current[0] = message[1]
                    forked = True
                elif kind == "progress":
                    progress.show(*message[1:])
                elif kind == "ended":  # the request's process was reaped by the zygote
                    self.current[0] = 0
                    self.idle = True
                    status, cpu = message[1:]
                    if answer is not None and status == 0:
                        break
                    raise self._death(label, status, cpu)
                else:
                    answer = message
                    if not forked:  # answered by the zygote itself (its import failed)
                        self.idle = True
                        break
            if answer[0] == "ok":
                done = request[0] == "law"
                return answer[1]
            raise _rebuilt(answer, self._printed())
        finally:
            progress.end(done)

    def _next_message(self, label: str) -> tuple:
        """The next message of the zygote or of the request's process; kills the request's
        process group at the CPU budget or the wall-clock limit."""
        limits = self.limits
        budget = limits.cpu_seconds + limits.grace_seconds
        while True:
            ready, _, _ = select.select([self.response_read], [], [], 0.1)
            if ready:
                message = _read_message(self.response_read)
                if message is not None:
                    return message
                raise self._zygote_died(label)
            if self.killed is not None:
                if time.monotonic() - self.killed_at > 5:  # the zygote does not report it
                    self._kill(self.pid)
                    raise self._zygote_died(label)
                continue
            target = self.current[0] or self.pid
            used = _cpu_seconds(target)
            if used is not None and used - (self.cpu_base if target == self.pid else 0) > budget:
                self._kill(target, "cpu")
            elif time.monotonic() - self.started > limits.wall_seconds:
                self._kill(target, "wall")
            if target == self.pid and self.killed is not None:
                raise self._zygote_died(label)

    def _kill(self, group: int, reason: str | None = None) -> None:
        """``SIGKILL`` to the process group ``group`` (the request's, or the zygote's)."""
        self.killed, self.killed_at = reason or self.killed, time.monotonic()
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(group, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _zygote_died(self, label: str) -> engine.ProgramError:
        """The error of a zygote that ended during a request (it is reaped here)."""
        self.alive = False
        group = self.current[0]
        if group:  # a request's process outlives its zygote by the parent-death signal only
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(self.pid, 0)
        self._finalizer.detach()
        _close(self.request_write, self.response_read)
        return self._death(label, status, None)  # the zygote has no hard CPU limit

    def _death(self, label: str, status: int, cpu: float | None) -> engine.ProgramError:
        """The error of a process that ended without answering (module docstring)."""
        limits = self.limits
        number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        hard = math.ceil(limits.cpu_seconds) + math.ceil(limits.grace_seconds)
        if self.killed == "cpu" or number == signal.SIGXCPU or (
                number == signal.SIGKILL and self.killed is None and cpu is not None
                and cpu >= hard - 0.05):
            cause = (f"used more than {limits.cpu_seconds:g} CPU seconds and was stopped (a "
                     f"loop that never ends, or a computation too long for the limit)")
        elif self.killed == "wall":
            cause = (f"ran for more than {limits.wall_seconds:g} seconds of wall-clock time and "
                     f"was stopped (it waits: a sleep, a pipe or a lock that never ends — or the "
                     f"machine is overloaded)")
        elif number is not None:
            name = signal.Signals(number).name
            cause = (f"was killed by signal {name}, not by the toolkit's limits (from outside: "
                     f"the system's out-of-memory killer, or a user)" if number == signal.SIGKILL
                     else f"was ended by signal {name}" + (
                         " (a crash in C code)" if number in (signal.SIGSEGV, signal.SIGBUS,
                                                               signal.SIGABRT, signal.SIGILL,
                                                               signal.SIGFPE) else ""))
        else:
            cause = f"ended its process with status {os.WEXITSTATUS(status)}"
        return engine.ProgramError(f"program {label} {cause}{self._printed()}")

    def _printed(self) -> str:
        self.capture.seek(0, os.SEEK_END)
        size = self.capture.tell()
        self.capture.seek(max(size - 300, 0))
        text = self.capture.read().decode("utf-8", "replace").strip()
        return f" (it printed: {'…' if size > 300 else ''}{text})" if text else ""

    def stop(self) -> None:
        self.alive = False
        self._finalizer()


def _end(pid: int, request_write: int, response_read: int, current: list) -> None:
    """Stop a zygote: end of its requests (it exits, and kills a request in progress), then
    ``SIGKILL`` to the request's group and the zygote's if they do not end at once."""
    _close(request_write, response_read)
    for _ in range(20):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        time.sleep(0.005)
    for group in (current[0], pid):
        if group:
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _close(*ends: int) -> None:
    for end in ends:
        try:
            os.close(end)
        except OSError:
            pass


def _rebuilt(message: tuple, printed: str) -> Exception:
    kind, text, detail = message
    if kind == "engine":
        return engine.EngineError(text, detail)
    if kind == "program":
        return engine.ProgramError(text + printed, detail)
    return ModelError(text, detail)


# --- this process ------------------------------------------------------------------------------

_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_CAPBSET_DROP = 1, 4, 24
_CAP_SYS_PTRACE = 19


def _libc():
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def protect_parent() -> bool:
    """Make this process non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``, Linux): its
    ``/proc/<pid>/fd`` can then be opened only with ``CAP_SYS_PTRACE``, which the workers drop,
    so a program cannot write to the toolkit's stdout through ``/proc/<pid>/fd/1`` (the command
    line calls it before it runs a program; it also turns off core dumps of this process).
    Returns whether it took effect."""
    libc = _libc()
    return libc is not None and sys.platform.startswith("linux") and \
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _drop_ptrace(libc) -> None:
    """Drop ``CAP_SYS_PTRACE`` from this process (it matters only when it has it: root)."""
    header, data = _CapHeader(0x20080522, 0), (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        return
    bit = ~(1 << _CAP_SYS_PTRACE)
    data[0].effective &= bit
    data[0].permitted &= bit
    data[0].inheritable &= bit
    libc.capset(ctypes.byref(header), data)
    libc.prctl(_PR_CAPBSET_DROP, _CAP_SYS_PTRACE, 0, 0, 0)  # needs CAP_SETPCAP; else unchanged


# --- the zygote --------------------------------------------------------------------------------

def _zygote(resolve: Callable[[], Callable], requests: int, responses: int, capture: int,
            limits: Limits, inherited: dict | None) -> None:
    """The zygote's loop: it resolves the program and forks one process per law request; it
    ends when the parent closes the requests."""
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in _open_descriptors():  # the toolkit's others: its outputs, other workers'
        if descriptor > 2 and descriptor not in (requests, responses, capture, null):
            try:  # replaced rather than closed: a stale file object never closes a new file
                os.dup2(null, descriptor, inheritable=False)
            except OSError:
                pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in (signal.SIGTERM, signal.SIGXCPU, signal.SIGXFSZ, signal.SIGCHLD,
                   signal.SIGPIPE):
        signal.signal(number, signal.SIG_DFL)
    os.dup2(null, 0)
    os.dup2(capture, 1)
    os.dup2(capture, 2)
    os.close(null)
    sys.stdin = sys.__stdin__ = open(0, closefd=False)
    sys.stdout = sys.__stdout__ = open(1, "w", closefd=False, errors="backslashreplace")
    sys.stderr = sys.__stderr__ = open(2, "w", closefd=False, errors="backslashreplace")
    engine._PROGRAM_OWNS_INTERRUPTS = True
    libc = _libc()
    if libc is not None and sys.platform.startswith("linux"):
        _drop_ptrace(libc)
    program = None
    while True:
        request = _read_message(requests)
        if request is None:
            return
        if program is None or request[0] == "resolve":
            response, program = _resolve(resolve, program, limits)
            if request[0] == "resolve" or response[0] != "ok":
                _flush()
                _write_message(responses, response)
                continue
        _fork_request(program, request, requests, responses, limits, inherited, libc)


def _open_descriptors() -> list[int]:
    """This process's open file descriptors (``/proc/self/fd``; else the first 1,024)."""
    try:
        return sorted(int(name) for name in os.listdir("/proc/self/fd"))
    except OSError:
        return list(range(1024))


def _resolve(resolve: Callable[[], Callable], program, limits: Limits) -> tuple:
    """``(response, program)``: ``resolve()`` run once under the CPU and memory limits."""
    if program is not None:
        return ("ok", None), program
    cpu, memory = resource.getrlimit(resource.RLIMIT_CPU), resource.getrlimit(resource.RLIMIT_AS)
    _limit_cpu(limits.cpu_seconds, None)
    _limit_memory(limits.memory_bytes)
    try:
        program = resolve()
        response = ("ok", None)
    except BaseException as error:  # noqa: BLE001 — every failure is a message
        response = _failure(error, "file", limits)
    finally:
        resource.setrlimit(resource.RLIMIT_CPU, cpu)
        resource.setrlimit(resource.RLIMIT_AS, memory)
    return response, program


def _fork_request(program: Callable, request: tuple, requests: int, responses: int,
                  limits: Limits, inherited: dict | None, libc) -> None:
    """Fork the process of one law request, wait for it (or for the parent's end) and report
    its end: ``("ended", wait status, its CPU seconds)``."""
    zygote = os.getpid()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.setpgid(0, 0)
            if libc is not None and sys.platform.startswith("linux"):
                libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
                if os.getppid() != zygote:  # the zygote died before the signal was armed
                    os._exit(71)
            _write_message(responses, ("started", os.getpid()))
            _serve(program, request, responses, limits, inherited)
        except BaseException:  # noqa: BLE001 — the request's process ends here, whatever happens
            status = 70
        finally:
            os._exit(status)
    _, status, usage = _wait_or_parent_end(pid, requests)
    _write_message(responses, ("ended", status, usage.ru_utime + usage.ru_stime))


def _wait_or_parent_end(pid: int, requests: int):
    """``os.wait4(pid)``; if the parent closes the requests meanwhile (it ended, or stopped the
    worker), the request's group is killed and the zygote exits."""
    opener = getattr(os, "pidfd_open", None)
    try:
        watched = opener(pid) if opener is not None else None
    except OSError:
        watched = None
    try:
        while True:
            ready, _, _ = select.select([requests] + ([watched] if watched is not None else []),
                                        [], [], None if watched is not None else 0.01)
            if requests in ready:  # nothing but the end of the requests can come now
                os.killpg(pid, signal.SIGKILL)
                os.wait4(pid, 0)
                os._exit(0)
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return done, status, usage
    finally:
        if watched is not None:
            os.close(watched)


def _serve(program: Callable, request: tuple, responses: int, limits: Limits,
           inherited: dict | None) -> None:
    """The request's process: one law under the limits, its answer, then the end."""
    _limit_cpu(limits.cpu_seconds, limits.grace_seconds)
    _limit_memory(limits.memory_bytes)
    _, key, arguments, name, counts = request
    try:
        law = engine.program_distribution(
            program, key, inherited if arguments is None else arguments, name=name, **counts,
            progress=lambda runs, mass: _write_message(responses,
                                                       ("progress", runs, float(mass))))
        response = ("ok", dict(law.items()))
    except BaseException as error:  # noqa: BLE001 — every failure is a message
        response = _failure(error, name, limits)
    _flush()
    _write_message(responses, response)


def _failure(error: BaseException, name: str, limits: Limits) -> tuple:
    """The message of a failure in a worker (``(kind, text, path or traceback)``)."""
    if isinstance(error, engine.ProgramError):
        return ("program", error.reason, error.path)
    if isinstance(error, ModelError):
        return ("model", error.reason, error.path)
    if isinstance(error, engine.EngineError):
        return ("engine", str(error), error.details or "".join(
            traceback.format_exception(type(error), error, error.__traceback__)))
    if isinstance(error, MemoryError):
        return ("program", f"program {name} used more than {limits.memory_bytes:,} bytes of "
                f"memory (beyond the toolkit's process) and was stopped", "")
    try:  # the engine's own failure, never the program's
        text = f"{type(error).__name__}: {error}"
    except BaseException:  # noqa: BLE001
        text = type(error).__name__
    return ("engine", text, "".join(traceback.format_exception(type(error), error,
                                                               error.__traceback__)))


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 — the program may have broken its streams
            pass


def _limit_cpu(seconds: float, grace: float | None) -> None:
    """``RLIMIT_CPU`` at this process's CPU time plus ``seconds`` (rounded up: the kernel counts
    whole seconds); with ``grace``, the hard limit that many seconds later (a ``SIGKILL``)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    wanted = hard if grace is None else soft + math.ceil(grace)
    if hard != resource.RLIM_INFINITY:
        wanted, soft = min(wanted, hard), min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, wanted))


def _limit_memory(extra: int) -> None:
    try:
        with open("/proc/self/statm") as statm:
            current = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return  # the inherited address space is unknown: no limit rather than a wrong one
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = current + extra
    if soft != resource.RLIM_INFINITY:
        wanted = min(wanted, soft)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time of process ``pid`` (Linux ``/proc``), or ``None`` when it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- messages: a length, then a pickle ---------------------------------------------------------

def _write_message(end: int, message: tuple) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    data = struct.pack("<Q", len(data)) + data
    view = memoryview(data)
    while view:
        view = view[os.write(end, view):]


def _read_message(end: int) -> tuple | None:
    header = _read_exactly(end, 8)
    if header is None:
        return None
    body = _read_exactly(end, struct.unpack("<Q", header)[0])
    return None if body is None else pickle.loads(body)


def _read_exactly(end: int, size: int) -> bytes | None:
    chunks, left = [], size
    while left:
        chunk = os.read(end, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


# --- progress ----------------------------------------------------------------------------------

class _ProgressLine:
    """The progress of a program's worker on stderr — the datasets whose law it has computed and
    the paths of the current one — with the conventions of the toolkit's progress lines
    (``pufferfish.verify.report.Progress``): redrawn in place on a terminal (and cleared at the
    end of each request), a plain line at most every 5 seconds elsewhere, the first once the
    worker has worked that long; nothing when progress is hidden (``--quiet``)."""

    INTERVAL = 5.0

    def __init__(self, label: str) -> None:
        self.label, self.datasets = label, 0
        self.start: float | None = None
        self.enabled = self.terminal = self.drawn = False

    def begin(self) -> None:
        report = sys.modules.get("pufferfish.verify.report")  # the setting, without importing it
        self.enabled = report is None or report.progress_visible()
        self.terminal = self.enabled and sys.stderr.isatty()
        if self.start is None:
            self.start = self.last = time.monotonic()
        if self.terminal and time.monotonic() - self.start >= 1:  # a computation that lasts
            self.show()

    def show(self, runs: int = 0, explored: float = 0.0) -> None:
        if not self.enabled:
            return
        text = f"{self.label}: {self.datasets:,} dataset{'' if self.datasets == 1 else 's'} done"
        if runs:
            text += f", {runs:,} paths of the next ({explored:.1%} of its probability)"
        if self.terminal:
            sys.stderr.write(f"\r{text[:100]:<100}")
            sys.stderr.flush()
            self.drawn = True
        elif time.monotonic() - self.last >= self.INTERVAL:
            self.last = time.monotonic()
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def end(self, law: bool) -> None:
        self.datasets += law
        if self.drawn:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()
            self.drawn = False
        elif law and not self.terminal:
            self.show()
