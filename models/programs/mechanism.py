"""A program as a mechanism, and programs named by model files.

:class:`ProgramMechanism` is a :class:`~pufferfish.models.mechanisms.Mechanism` whose kernel row
for a dataset is the exact output law of a Python program on it
(:func:`~pufferfish.models.programs.enumerate.program_distribution`), so every analysis of the
toolkit (Pufferfish and DP levels under any neighbour relation, leakage, joint releases,
``composes``, ``design``'s comparisons) reads it like any other mechanism.

A model file names a program as ``{"program": {"file": "svt.py", "function": "svt1",
"arguments": {...}}}``; the file is resolved relative to the model file and **its code runs**
when the model is read and audited, with the rights of the user running the toolkit: a model file
that names a program is code, to be trusted as such.

Both run the program behind a fault boundary (:mod:`~pufferfish.models.programs.sandbox`): the
file is imported, and every dataset's law computed, in a worker process with CPU, memory and step
limits, its output captured, its exits and exceptions turned into located errors.
:func:`~pufferfish.models.programs.enumerate.program_distribution` itself is the in-process
engine, for a library user who calls a trusted function directly.

>>> from pufferfish.models.programs import coin
>>> def randomized_bit(data, keep):
...     return data[0] if coin(keep) else 1 - data[0]
>>> m = ProgramMechanism("rr", randomized_bit, {"keep": "3/4"})
>>> m.distribution((1,))
Distribution({1: 3/4, 0: 1/4})
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.programs import checks
from pufferfish.models.programs import language
from pufferfish.models.programs import enumerate as engine
from pufferfish.models.programs.enumerate import (DEFAULT_MAX_DEPTH, DEFAULT_MAX_RUNS,
                                                  DEFAULT_MAX_STEPS, program_distribution)
from pufferfish.models.programs.guards import HiddenRandomness, deterministic
from pufferfish.models.programs.sandbox import Limits, ProgramWorker
from pufferfish.models.universe import Dataset

__all__ = ["ProgramMechanism", "ProgramFile", "load_program", "DEFAULT_IMPORT_STEPS"]

DEFAULT_IMPORT_STEPS = 1_000_000
"""Executed lines allowed while a program file is imported (a module-level loop that never
ends is refused)."""


class ProgramMechanism(Mechanism):
    """The mechanism ``D ↦ law of program(D, **arguments)`` (module docstring).

    ``reads`` (attribute positions, optional; ``read_names`` their names, for writing the model
    back) restricts what the program sees: it is given only those values, in that order, so
    datasets that agree on them share one run of the enumeration (they are the mechanism's
    :meth:`kernel_key`) — by construction, not by the author's word.  ``source`` is
    ``(file, function)`` when the program was named by a model file (it is then written back the
    same way, and a worker process reloads it from the file); a function given from Python
    cannot be written to a model file.

    Each law is computed in the program's worker process (``limits``:
    :class:`~pufferfish.models.programs.sandbox.Limits`); ``isolate=False`` computes it in this
    process instead (no CPU or memory limit, no captured output: for a trusted function).
    ``max_steps``, ``max_runs`` and ``max_depth`` are the engine's limits
    (:func:`~pufferfish.models.programs.enumerate.program_distribution`).

    >>> from pufferfish.models.programs import coin
    >>> first = ProgramMechanism("first", lambda data: data[0] if coin("3/4") else 1 - data[0],
    ...                          reads=[0])
    >>> first.kernel_key((1, 0, 1)), first.distribution((1, 0, 1)) is first.distribution((1, 1, 0))
    ((1,), True)
    """

    def __init__(self, name: str, program: Callable, arguments: Mapping[str, object] | None = None,
                 *, reads: Sequence[int] | None = None, read_names: Sequence[str] | None = None,
                 source: tuple[str, str] | None = None,
                 max_steps: int = DEFAULT_MAX_STEPS, max_runs: int = DEFAULT_MAX_RUNS,
                 max_depth: int = DEFAULT_MAX_DEPTH, limits: Limits | None = None,
                 isolate: bool = True, trusted: bool = False) -> None:
        super().__init__(name)
        if not callable(program):
            raise ModelError(f"a program must be a Python function, got {program!r}",
                             f"mechanisms.{name}")
        self.program = program
        self.trusted = trusted
        self.arguments = dict(arguments or {})
        if not trusted:  # the program language (models/programs/language.py)
            if isinstance(program, ProgramFile):
                program.check_language()
            else:
                language.check_callable(program, f"mechanisms.{name}")
            self.arguments = language.frozen_arguments(self.arguments,
                                                       f"mechanisms.{name}.arguments")
        self.source = source
        self.reads = None if reads is None else tuple(reads)
        self.read_names = read_names
        self.max_steps, self.max_runs, self.max_depth = max_steps, max_runs, max_depth
        self.limits, self.isolate = limits or Limits(), isolate
        self._worker: ProgramWorker | None = None

    def kernel_key(self, dataset: Dataset) -> Dataset:
        """The values the program reads (all of the dataset unless ``reads`` says otherwise)."""
        return dataset if self.reads is None else tuple(dataset[i] for i in self.reads)

    def _compute(self, dataset: Dataset) -> Distribution:
        return self._from_key(self.kernel_key(dataset))

    def _from_key(self, key: Dataset) -> Distribution:
        name = f"{self.name} ({self._label()})"
        counts = {"max_steps": self.max_steps, "max_runs": self.max_runs,
                  "max_depth": self.max_depth}
        if not self.isolate:
            return program_distribution(self.program, key, self.arguments, name=name, **counts)
        if self._worker is None:
            if isinstance(self.program, ProgramFile):
                self._worker = self.program.worker(self.limits)
            else:
                program = self.program
                self._worker = ProgramWorker(lambda: program, name, self.limits, self.arguments)
        arguments = None if self._worker.arguments is not None else self.arguments
        return self._worker.law(tuple(key), arguments, name, **counts)

    def _label(self) -> str:
        if self.source is not None:
            return f"{os.path.basename(self.source[0])}:{self.source[1]}"
        return getattr(self.program, "__qualname__", "a Python function")

    def assumptions(self) -> tuple[str, ...]:
        """A trusted program's assumption (:meth:`Mechanism.assumptions`): its law is exact only
        if it is a deterministic function of its arguments and its draws, which the language
        check would have guaranteed and was told not to."""
        if not getattr(self, "trusted", False):
            return ()
        return (f"the trusted program {self.name} ({self._label()}) is taken to be a "
                f"deterministic function of its arguments and its draws; it was not checked "
                f"by the program language",)

    def to_dict(self) -> dict:
        if self.source is None:
            raise ModelError(f"mechanism {self.name!r} is a Python function; put it in a file and "
                             "name it as {\"program\": {\"file\": ..., \"function\": ...}} to "
                             "write the model to a file")
        body: dict = {"file": self.source[0], "function": self.source[1]}
        if self.arguments:
            body["arguments"] = self.arguments
        if self.reads is not None:
            body["reads"] = list(self.read_names or self.reads)
        if self.trusted:
            body["trusted"] = True
        return {"program": body}

    def __reduce__(self):
        options = {"max_steps": self.max_steps, "max_runs": self.max_runs,
                   "max_depth": self.max_depth, "limits": self.limits, "isolate": self.isolate,
                   "trusted": self.trusted}
        # The laws computed so far travel with the mechanism (each is an enumeration of the
        # program's paths; sending it costs far less than computing it again on a worker).
        laws = dict(self._cache)
        if self.source is None:
            return (_rebuilt, (self.name, self.program, self.arguments, self.reads, options, laws))
        return (_reloaded, (self.name, self.source, self.arguments, self.reads, options, laws))


def _rebuilt(name: str, program: Callable, arguments: dict, reads: tuple[int, ...] | None,
             options: dict, laws: dict | None = None) -> ProgramMechanism:
    # checked where it was built: a function sent to another process may have lost its source
    mechanism = ProgramMechanism(name, program, arguments, reads=reads,
                                 **{**options, "trusted": True})
    mechanism.trusted = options.get("trusted", False)
    mechanism._cache.update(laws or {})
    return mechanism


def _reloaded(name: str, source: tuple[str, str], arguments: dict,
              reads: tuple[int, ...] | None, options: dict,
              laws: dict | None = None) -> ProgramMechanism:
    program = load_program(source[0], source[1], limits=options["limits"],
                           trusted=options.get("trusted", False))
    mechanism = ProgramMechanism(name, program, arguments, reads=reads, source=source, **options)
    mechanism._cache.update(laws or {})
    return mechanism


class ProgramFile:
    """The function ``function`` of the Python file ``real`` (an absolute path), imported where
    it runs: in a worker process for a :class:`ProgramMechanism` (:meth:`worker`), in this
    process when it is called directly.  The import runs under the step limit ``import_steps``
    and with the sources of randomness and time refused
    (:mod:`~pufferfish.models.programs.guards`); any file name is read as Python source.
    Unless ``trusted``, the file and its helper modules are first checked by the program
    language (:meth:`check_language`), and the import runs the texts checked."""

    def __init__(self, real: str, function: str, location: str, path: str = "",
                 import_steps: int = DEFAULT_IMPORT_STEPS, trusted: bool = False) -> None:
        self.real, self.function_name, self.location, self.path = real, function, location, path
        self.import_steps, self.trusted = import_steps, trusted
        self.__qualname__ = self.__name__ = function
        self._sources: dict[str, str] | None = None

    def check_language(self) -> None:
        """Check the file and its helpers by the program language (once; a refusal is a
        :class:`ModelError` at ``PATH.file``)."""
        if self._sources is None:
            self._sources = language.checked_sources(self.real, self.function_name, self.path)

    def function(self) -> Callable:
        """The program function, importing the file in this process if it was not yet."""
        if self.trusted and self._sources is None:
            module = _import(self.real, self.location, self.path, self.import_steps)
        else:
            self.check_language()
            where = f"{self.path}.file" if self.path else ""
            with language.checked_import(self.real, self._sources) as loader:
                module = _import(self.real, self.location, self.path, self.import_steps,
                                 loader)
            language.check_module(module, self._sources, where)
        program = getattr(module, self.function_name, None)
        if not callable(program):
            names = sorted(n for n, v in vars(module).items()
                           if callable(v) and getattr(v, "__module__", None) == module.__name__)
            raise ModelError(f"program file {self.location!r} has no function "
                             f"{self.function_name!r}; its functions are {names}",
                             f"{self.path}.function" if self.path else "")
        return program

    @property
    def __wrapped__(self) -> Callable:
        return self.function()

    def __call__(self, *args, **kwargs):
        return self.function()(*args, **kwargs)

    def worker(self, limits: Limits | None = None) -> ProgramWorker:
        """The worker process that has imported this file (one per file, function and limits in
        this process, kept for later mechanisms)."""
        limits = limits or Limits()
        key = (self.real, self.function_name, self.import_steps, limits, self.trusted)
        worker = _WORKERS.get(key)
        if worker is None:
            worker = _WORKERS[key] = ProgramWorker(
                self.function, f"{os.path.basename(self.real)}:{self.function_name}", limits)
        return worker


_WORKERS: dict[tuple, ProgramWorker] = {}
_MODULES: dict[str, object] = {}


def load_program(file: str | os.PathLike, function: str, base: str | os.PathLike | None = None,
                 path: str = "", *, limits: Limits | None = None,
                 import_steps: int = DEFAULT_IMPORT_STEPS, trusted: bool = False) -> ProgramFile:
    """The function ``function`` of the Python file ``file`` (relative to the folder ``base``),
    checked — unless ``trusted`` — by the program language before anything of it runs
    (:mod:`~pufferfish.models.programs.language`: the file and the helper modules it imports),
    then by importing the file in its worker process (:meth:`ProgramFile.worker`).  Errors (no
    such file, a construct outside the language, a syntax error, an exception, an exit, a source
    of randomness or a loop past ``import_steps`` lines while the file runs, no such function)
    are a :class:`ModelError` at ``path``."""
    location = Path(base or ".") / file
    real = os.path.realpath(location)
    if not os.path.isfile(real):
        raise ModelError(f"no program file {str(location)!r} (resolved relative to the model "
                         f"file's folder)", f"{path}.file" if path else "")
    program = ProgramFile(real, function, str(location), path, import_steps, trusted)
    if not trusted:
        program.check_language()
    program.worker(limits).check()
    return program


class _ImportSteps(BaseException):
    pass


def _import(real: str, location: str, path: str, steps: int,
            loader_of: Callable | None = None) -> object:
    """The module of the file ``real``, imported once per process (:class:`ProgramFile`), by the
    loader ``loader_of(name)`` (the checked text: :func:`language.checked_import`) if given."""
    module = _MODULES.get(real)
    if module is not None:
        return module
    where = f"{path}.file" if path else ""
    name = f"pufferfish_program_{len(_MODULES)}"
    loader = (loader_of or (lambda n: importlib.machinery.SourceFileLoader(n, real)))(name)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    sys.modules[name] = module
    try:
        with deterministic(real):
            _counted(loader.exec_module, module, real, steps)
    except SyntaxError as error:
        sys.modules.pop(name, None)
        raise ModelError(f"program file {location!r} has a syntax error at line {error.lineno}: "
                         f"{error.msg}", where) from None
    except _ImportSteps:
        sys.modules.pop(name, None)
        raise ModelError(f"program file {location!r} ran more than {steps:,} lines while "
                         f"loading{checks.error_line(real)}; does a loop at module level never "
                         f"end?", where) from None
    except HiddenRandomness as hidden:
        sys.modules.pop(name, None)
        raise ModelError(f"program file {location!r} while loading: {hidden}{hidden.line}",
                         where) from None
    except KeyboardInterrupt:
        sys.modules.pop(name, None)
        if not engine._PROGRAM_OWNS_INTERRUPTS:
            raise  # the user's Ctrl-C
        raise ModelError(f"program file {location!r} raised KeyboardInterrupt while loading"
                         f"{checks.error_line(real)}", where) from None
    except BaseException as error:  # SystemExit too: the file's own error, located
        sys.modules.pop(name, None)
        text = checks.safe_text(error)
        raise ModelError(f"program file {location!r} raised {type(error).__name__}"
                         f"{': ' if text else ''}{text} while loading"
                         f"{checks.error_line(real)}", where) from None
    _MODULES[real] = module
    return module


def _counted(run: Callable, module: object, real: str, steps: int) -> None:
    """``run(module)`` with the executed lines of the file ``real`` counted up to ``steps``."""
    if sys.gettrace() is not None:  # a debugger or coverage owns the trace function
        run(module)
        return
    count = 0

    def count_lines(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count > steps:
                raise _ImportSteps()
        return count_lines

    sys.settrace(lambda frame, event, arg: count_lines if frame.f_code.co_filename == real
                 else None)
    try:
        run(module)
    finally:
        sys.settrace(None)
