"""The ``pufferfish`` command: parser assembly, error handling and exit statuses.

Each subcommand lives in the module of the same name (``dcp-design`` in ``dcp_design.py``), which
has ``add_parser(subparsers)`` registering the parser with ``set_defaults(handler=run)``; ``run``
parses, calls the library, prints and returns the exit status (:mod:`pufferfish.cli.common`).

Errors: a :class:`~pufferfish.models.errors.ModelError`, a :class:`~pufferfish.cli.common.UsageError`
or an ``OSError`` prints one paragraph on stderr and exits 2 (the traceback only with
``--debug``).  Any other exception is a failure of the toolkit, never a verdict: one line on
stderr and exit 4 (a ``MemoryError`` says the run ran out of memory; a failure of the program
engine's own code, :class:`~pufferfish.models.programs.enumerate.EngineError`, is "internal error
in the engine", with the traceback of the worker process that met it under ``--debug``).
Ctrl-C exits 130 and SIGTERM 143, both without a traceback; an ``--output`` file
is written atomically, so an interruption leaves no partial or temporary file.  The module
imports only the standard library at load time; everything else is imported inside
:func:`main`, so a Ctrl-C that arrives while the toolkit is still loading also exits 130 quietly.

The command itself first re-executes with ``PYTHONHASHSEED=0`` if it does not run so
(:func:`fix_hash_seed`: a program's law must not depend on the hash seed) and makes its process
non-dumpable (a program cannot reach its stdout through ``/proc``): docs/programs.md, "What a
program may and may not do".

>>> build_parser().prog
'pufferfish'
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import traceback
from collections.abc import Sequence

EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_TERMINATED = 2, 4, 130, 143
"""The exit statuses :func:`main` itself returns (the same values as in
:mod:`pufferfish.cli.common`, which is imported only once :func:`main` runs)."""

COMMANDS = ("audit", "collapse", "theorems", "demo", "composes", "postprocess", "influence",
            "translate", "influence-figures", "quilts", "mqm", "mqm-figures", "mqm-price",
            "least-noise", "wasserstein", "multiuser", "dcp", "dcp-design", "design",
            "experiment", "region", "approximate-dp", "epsilon-range", "check-certificate")
"""Every subcommand, in the order of ``pufferfish --help``; the module of ``name`` is
``pufferfish.cli.<name with - replaced by _>``."""


def _spawned_by_multiprocessing() -> bool:
    """Whether this process is a child that ``multiprocessing`` spawned from the command line
    (a worker of a local Dask cluster, ``--workers N``): it runs the command line's main module
    (``python -m pufferfish.cli.main``, or the ``pufferfish`` script, which imports this module)
    again under the name ``__mp_main__`` before anything else."""
    return __name__ == "__mp_main__" or "__mp_main__" in sys.modules


if _spawned_by_multiprocessing():
    # A Ctrl-C at the terminal reaches every process of the group; the command line shuts its
    # workers down itself, so they ignore it rather than each die with a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def command_module(name: str):
    """The module that implements subcommand ``name``."""
    return importlib.import_module(f"pufferfish.cli.{name.replace('-', '_')}")


def build_parser() -> argparse.ArgumentParser:
    """The full ``pufferfish`` parser."""
    from pufferfish.cli.common import EXIT_CODES_HELP, CommandParser

    parser = CommandParser(prog="pufferfish",
                           description="Exact verification of Pufferfish privacy and its "
                                       "composition.",
                           epilog=EXIT_CODES_HELP,
                           formatter_class=_EpilogFormatter)
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the program's version number and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    sub.required = True
    for name in COMMANDS:
        command = command_module(name).add_parser(sub)
        command.set_defaults(command_name=name)
    from pufferfish.cli.help_texts import describe_all

    describe_all(sub)  # every command's description and examples in its --help
    return parser


class _Version(argparse.Action):
    """``--version``: the installed version, read (``importlib.metadata``, about 50 ms) only when
    asked, not each time the parser is built."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        import pufferfish

        print(f"pufferfish {pufferfish.__version__}")
        parser.exit()


class _EpilogFormatter(argparse.RawDescriptionHelpFormatter):
    """Keep the exit-status table of the epilog as written."""


class Terminated(KeyboardInterrupt):
    """Raised by the SIGTERM handler so that termination unwinds like Ctrl-C (``finally``
    blocks run, temporary files are removed)."""


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


def fix_hash_seed() -> None:
    """Re-execute this command with ``PYTHONHASHSEED=0`` unless it already runs so: a program's
    law must not depend on the process's hash seed (``hash("abc")``, the order of a set of
    strings), and a running interpreter cannot change its seed.  ``os.execve`` of the same
    interpreter and arguments (``sys.orig_argv``) before the toolkit is imported; the figure is
    in ``benchmarks/README.md`` (a second interpreter start-up, about 20 ms).  Nothing happens
    where ``execve`` or ``sys.orig_argv`` is missing, in a process that ``multiprocessing``
    spawned, or when the re-execution fails (the command then runs with its own seed)."""
    if os.environ.get("PYTHONHASHSEED") == "0" or _spawned_by_multiprocessing():
        return
    arguments = getattr(sys, "orig_argv", None)
    if not arguments or not sys.executable or not hasattr(os, "execve"):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, arguments, dict(os.environ, PYTHONHASHSEED="0"))
    except OSError:
        return


def _protect_output() -> None:
    """Make this process non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``): a program's worker,
    which drops ``CAP_SYS_PTRACE``, then cannot open ``/proc/<pid>/fd/1`` of this process to
    write into its stdout (``--json``), even as root
    (:func:`pufferfish.models.programs.sandbox.protect_parent`)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); returns the exit status.
    As the command itself (``argv`` not given) it first fixes the hash seed
    (:func:`fix_hash_seed`) and protects its output from programs (``_protect_output``)."""
    if argv is None:
        fix_hash_seed()
        _protect_output()
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    previous = _install_sigterm_handler()
    visible = None  # the progress setting before this run's --quiet, restored at the end
    try:
        from pufferfish.cli.common import UsageError, apply_quiet, check_scheduler_option
        from pufferfish.models.errors import ModelError
        from pufferfish.verify.report import progress_visible

        visible = progress_visible()
        try:
            args = build_parser().parse_args(arguments)
            apply_quiet(args)
            check_scheduler_option(args)
            return args.handler(args)
        except (ModelError, UsageError) as error:
            return _fail(debug, str(error))
        except OSError as error:
            where = f": {error.filename}" if error.filename else ""
            return _fail(debug, f"{error.strerror or error}{where}")
        except MemoryError:
            return _fail(debug, "the run ran out of memory (MemoryError); lower --max-datasets "
                                "(audit: --block-datasets) or --max-outputs where the command "
                                "has them, use a smaller "
                                "model, or give the process more memory; rerun with --debug "
                                "for the traceback", EXIT_INTERNAL_ERROR)
        except Exception as error:  # a failure of the toolkit: never read as a verdict
            if _engine_error(error):
                if debug and getattr(error, "details", ""):
                    print(error.details.rstrip(), file=sys.stderr)  # where, in the worker
                return _fail(debug, f"internal error in the engine: {_one_line(error)}; rerun "
                                    f"with --debug for the traceback", EXIT_INTERNAL_ERROR)
            return _fail(debug, f"internal error ({type(error).__name__}: "
                                f"{_one_line(error)}); rerun with --debug for the traceback",
                         EXIT_INTERNAL_ERROR)
    except KeyboardInterrupt as interruption:
        terminated = isinstance(interruption, Terminated)
        if debug:
            traceback.print_exc()
        print("terminated" if terminated else "interrupted", file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if visible is not None:  # an in-process run leaves the progress setting as it found it
            from pufferfish.verify.report import set_progress_visible
            set_progress_visible(visible)


def _engine_error(error: BaseException) -> bool:
    """Whether ``error`` is the program engine's
    :class:`~pufferfish.models.programs.enumerate.EngineError` (without importing the engine:
    when it is not loaded, no such error was raised)."""
    engine = sys.modules.get("pufferfish.models.programs.enumerate")
    return engine is not None and isinstance(error, engine.EngineError)


def _fail(debug: bool, message: str, status: int = EXIT_BAD_INPUT) -> int:
    if debug:
        traceback.print_exc()
    print(f"error: {message}", file=sys.stderr)
    return status


def _one_line(error: BaseException, limit: int = 300) -> str:
    """The message of ``error`` on one line of at most ``limit`` characters (the traceback, with
    the full message, is for ``--debug``)."""
    try:
        text = " ".join(str(error).split())
    except Exception:  # a broken __str__ must not hide the error itself
        text = ""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _install_sigterm_handler():
    """Make SIGTERM raise :class:`Terminated` (main thread only); returns the previous handler."""
    try:
        return signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not in the main thread
        return None


if __name__ == "__main__":
    sys.exit(main())
