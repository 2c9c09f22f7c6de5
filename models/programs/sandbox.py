"""The fault boundary of programs: user code runs in a worker process with limits.

A program is the user's code; the toolkit's verdict and exit status must not depend on what that
code does to the process it runs in.  :class:`ProgramWorker` runs it in a child process, forked
from this one when first needed and kept for the program's later requests (one dataset's law
each; the child keeps the engine's memo between them):

* **limits** (:class:`Limits`): CPU seconds per request (``RLIMIT_CPU`` in the child, whose
  signal ends even a loop inside C code such as ``sum(itertools.count())``; the parent also
  reads the child's CPU time and sends ``SIGKILL`` after a grace period, for a program that
  ignores the signal), address space the child may add to what it inherited (``RLIMIT_AS``),
  and the step limit of the engine, from the import of the program's file on;
* **captured output**: the child's file descriptors 1 and 2 are a temporary file, never the
  toolkit's stdout or stderr; what the program printed is quoted (its end) in an error message
  and otherwise discarded;
* **errors located, never an exit status**: ``SystemExit``, ``KeyboardInterrupt`` (the child
  ignores Ctrl-C, so it is the program's own) and any other exception of the program come back
  as a :class:`~pufferfish.models.programs.enumerate.ProgramError` naming the program, the
  dataset and the line; a child that dies (killed at a limit, a crash in C code) is a
  ``ProgramError`` naming the cause; a failure of the engine inside the child comes back as an
  :class:`~pufferfish.models.programs.enumerate.EngineError` (the command line's exit 4).

The child is *forked* (``os.fork``), not spawned: it inherits the program as a Python object, so
a function defined in a notebook or a test (a lambda, a closure) runs behind the boundary
exactly as a program file does, and starting a worker costs a few milliseconds instead of a new
interpreter.  Forking needs a POSIX system.  This is a fault boundary against a program's
mistakes, not a security sandbox: the child has the user's rights and can read and write files
(docs/programs.md, "What a program may and may not do").

>>> from pufferfish.models.programs import coin
>>> worker = ProgramWorker(lambda: (lambda data: data[0] if coin("3/4") else 1 - data[0]), "rr")
>>> worker.law((1,), {}, "rr")
Distribution({1: 3/4, 0: 1/4})
>>> worker.close()
"""

from __future__ import annotations

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
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.programs import enumerate as engine

__all__ = ["Limits", "ProgramWorker", "DEFAULT_CPU_SECONDS", "DEFAULT_MEMORY_BYTES"]

DEFAULT_CPU_SECONDS = 120.0
"""CPU seconds a program may use for one request (importing its file, or one dataset's law)."""

DEFAULT_MEMORY_BYTES = 4 << 30
"""Address space (bytes) a program's worker may add to what it inherited."""


@dataclass(frozen=True)
class Limits:
    """The limits of a program's worker (module docstring): ``cpu_seconds`` per request,
    ``memory_bytes`` added to the inherited address space, ``grace_seconds`` between the CPU
    limit and the parent's ``SIGKILL``."""

    cpu_seconds: float = field(default_factory=lambda: DEFAULT_CPU_SECONDS)
    memory_bytes: int = field(default_factory=lambda: DEFAULT_MEMORY_BYTES)
    grace_seconds: float = 2.0


_PARENT_ENDS: set[int] = set()  # this process's ends of every worker's pipes (closed in a child)


class ProgramWorker:
    """A child process that runs one program's code (module docstring).  ``resolve()`` is called
    in the child and returns the program function (it imports the program's file there);
    ``label`` names the program in messages.  ``arguments``, when given, are the program's
    arguments for every request, inherited by the child rather than sent (so they need not be
    picklable)."""

    def __init__(self, resolve: Callable[[], Callable], label: str,
                 limits: Limits | None = None, arguments: dict | None = None) -> None:
        self.resolve, self.label, self.arguments = resolve, label, arguments
        self.limits = limits or Limits()
        self._process: _Process | None = None
        self._lock = threading.Lock()  # one request at a time on the pipes

    def check(self) -> None:
        """Run ``resolve()`` in the child (for a file: import it under the limits)."""
        self._request(("resolve",))

    def law(self, key: tuple, arguments: dict | None, name: str, **limits: int) -> Distribution:
        """:func:`~pufferfish.models.programs.enumerate.program_distribution` of the program on
        ``key`` with ``arguments`` (``None``: the worker's own), computed in the child
        (``limits``: ``max_steps``, ``max_runs``, ``max_depth``)."""
        probabilities = self._request(("law", key, arguments, name, limits))
        return Distribution._trusted(probabilities)

    def close(self) -> None:
        """End the child (a later request starts a new one)."""
        if self._process is not None:
            self._process.stop()
            self._process = None

    def _request(self, request: tuple) -> object:
        with self._lock:
            return self._ask(request)

    def _ask(self, request: tuple) -> object:
        if self._process is None or not self._process.alive:
            self._process = _Process(self.resolve, self.limits, self.arguments)
        process = self._process
        try:
            return process.ask(request, self.label)
        except BaseException:
            if not process.idle:  # interrupted or killed mid-request: never reused
                self.close()
            raise


class _Process:
    """One forked child and the parent's ends of its pipes."""

    def __init__(self, resolve: Callable[[], Callable], limits: Limits,
                 arguments: dict | None) -> None:
        self.limits = limits
        request_read, self.request_write = os.pipe()
        self.response_read, response_write = os.pipe()
        self.capture = tempfile.TemporaryFile()
        fcntl.fcntl(self.capture.fileno(), fcntl.F_SETFL,
                    fcntl.fcntl(self.capture.fileno(), fcntl.F_GETFL) | os.O_APPEND)
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into the parent's code
            status = 0
            try:
                os.close(self.request_write)
                os.close(self.response_read)
                _serve(resolve, request_read, response_write, self.capture.fileno(), limits,
                       arguments)
            except BaseException as error:  # the worker's own failure: an internal error
                status = 70
                try:
                    _write_message(response_write, ("engine", f"the worker process failed: "
                                                    f"{type(error).__name__}: {error}", ""))
                except BaseException:
                    pass
            finally:
                os._exit(status)
        os.close(request_read)
        os.close(response_write)
        _PARENT_ENDS.update((self.request_write, self.response_read))
        self.alive, self.idle = True, True
        self.progress: _ProgressLine | None = None
        self._finalizer = weakref.finalize(self, _end, self.pid, self.request_write,
                                           self.response_read)

    def ask(self, request: tuple, label: str) -> object:
        if self.progress is None:
            self.progress = _ProgressLine(label)
        self.capture.truncate(0)
        self.idle = False
        _write_message(self.request_write, request)
        progress = self.progress
        progress.begin()
        done = False
        try:
            while True:
                message = self._next_message(label)
                if message[0] == "progress":
                    progress.show(*message[1:])
                    continue
                self.idle = True
                if message[0] == "ok":
                    done = request[0] == "law"
                    return message[1]
                raise _rebuilt(message, self._printed())
        finally:
            progress.end(done)

    def _next_message(self, label: str) -> tuple:
        budget = self.limits.cpu_seconds + self.limits.grace_seconds
        while True:
            ready, _, _ = select.select([self.response_read], [], [], 0.2)
            if ready:
                message = _read_message(self.response_read)
                if message is not None:
                    return message
                raise self._died(label)
            used = _cpu_seconds(self.pid)
            if used is not None and used > budget:  # the program ignored SIGXCPU
                os.kill(self.pid, signal.SIGKILL)
                raise self._died(label)

    def _died(self, label: str) -> engine.ProgramError:
        """The error of a child that ended during a request (it is reaped here)."""
        self.alive = False
        _, status = os.waitpid(self.pid, 0)
        self._finalizer.detach()
        _close(self.request_write, self.response_read)
        number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        if number in (signal.SIGXCPU, signal.SIGKILL):
            cause = (f"used more than {self.limits.cpu_seconds:g} CPU seconds and was stopped "
                     f"(a loop that never ends, or a computation too long for the limit)")
        elif number is not None:
            cause = f"was ended by signal {signal.Signals(number).name}"
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


def _end(pid: int, request_write: int, response_read: int) -> None:
    """Stop a child: end of its requests (it exits), then ``SIGKILL`` if it is busy."""
    _close(request_write, response_read)
    for _ in range(20):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        time.sleep(0.005)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def _close(*ends: int) -> None:
    for end in ends:
        _PARENT_ENDS.discard(end)
        try:
            os.close(end)
        except OSError:
            pass


def _rebuilt(message: tuple, printed: str) -> Exception:
    kind, text, path = message
    if kind == "engine":
        return engine.EngineError(text)
    if kind == "program":
        return engine.ProgramError(text + printed, path)
    return ModelError(text, path)


# --- the child ---------------------------------------------------------------------------------

def _serve(resolve: Callable[[], Callable], requests: int, responses: int, capture: int,
           limits: Limits, inherited: dict | None) -> None:
    """The child's loop: one response per request until the parent closes the requests."""
    for end in list(_PARENT_ENDS):  # other workers' pipes: they must see their parent's EOF
        _close(end)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for number in (signal.SIGTERM, signal.SIGXCPU, signal.SIGXFSZ):
        signal.signal(number, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(capture, 1)
    os.dup2(capture, 2)
    sys.stdin = sys.__stdin__ = open(0, closefd=False)
    sys.stdout = sys.__stdout__ = open(1, "w", closefd=False, errors="backslashreplace")
    sys.stderr = sys.__stderr__ = open(2, "w", closefd=False, errors="backslashreplace")
    engine._PROGRAM_OWNS_INTERRUPTS = True
    _limit_memory(limits.memory_bytes)
    program = None
    while True:
        request = _read_message(requests)
        if request is None:
            return
        _limit_cpu(limits.cpu_seconds)
        name = request[3] if request[0] == "law" else "file"
        try:
            if program is None:
                program = resolve()
            if request[0] == "resolve":
                response = ("ok", None)
            else:
                _, key, arguments, name, counts = request
                law = engine.program_distribution(
                    program, key, inherited if arguments is None else arguments, name=name,
                    **counts,
                    progress=lambda runs, mass: _write_message(
                        responses, ("progress", runs, float(mass))))
                response = ("ok", dict(law.items()))
        except engine.ProgramError as error:
            response = ("program", error.reason, error.path)
        except ModelError as error:
            response = ("model", error.reason, error.path)
        except engine.EngineError as error:
            response = ("engine", str(error), "")
        except MemoryError:
            response = ("program", f"program {name} ran out of memory (its worker may use "
                        f"{limits.memory_bytes >> 20:,} MB more than the toolkit's process)", "")
        except BaseException as error:  # the engine's own failure, never the program's
            response = ("engine", f"{type(error).__name__}: {error}", "")
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        _write_message(responses, response)


def _limit_cpu(seconds: float) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY
                                             else min(soft, hard), hard))


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
