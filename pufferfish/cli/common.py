"""What every subcommand shares: the parser class, the option conventions, argument types and
the output helpers (``docs``: "Command line": one set of conventions).

Conventions, enforced by ``tests/cli/test_conventions.py``:

* ``--json`` prints the result (its ``to_dict()`` under a versioned envelope, see
  :func:`output_document`) on stdout and nothing else; ``--output FILE`` writes the same JSON
  atomically to a regular file (checked before any work starts);
* ``--out DIR`` is the one option for every further file a command writes (created if missing;
  every file written is listed on stderr);
* ``--quiet`` suppresses notes and progress on stderr, ``--debug`` shows tracebacks;
* ``--max-datasets`` / ``--max-outputs`` appear only on commands that enumerate datasets /
  mechanism outputs;
* ``--scheduler ADDRESS`` / ``--workers N`` appear on commands whose work is split into tasks
  (:func:`add_execution_options`): a Dask scheduler, a local cluster, or (default) this process;
* exit statuses: :data:`EXIT_OK` 0, :data:`EXIT_VIOLATED` 1, :data:`EXIT_BAD_INPUT` 2,
  :data:`EXIT_UNDECIDED` 3, :data:`EXIT_INTERNAL_ERROR` 4 (the toolkit failed: a bug or no
  memory left, never a verdict), :data:`EXIT_INTERRUPTED` 130 (Ctrl-C), :data:`EXIT_TERMINATED`
  143 (SIGTERM).

>>> positive_int("3")
3
>>> output_document("audit", {"check": "audit"})
{'pufferfish_output': 1, 'command': 'audit', 'check': 'audit'}
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

EXIT_OK, EXIT_VIOLATED, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_INTERNAL_ERROR = 0, 1, 2, 3, 4
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143

EXIT_CODES_HELP = """exit status:
  0    the property checked holds (or the command only computes)
  1    the property is violated
  2    bad input or usage (a one-paragraph message on stderr, no traceback unless --debug)
  3    undecided: a certified interval contains the budget
  4    internal error: the run failed (a bug, or out of memory); never a verdict
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM)
An interrupted or terminated run leaves no partial or temporary --output file."""

OUTPUT_VERSION = 1
"""Version of the ``--json`` output format (the ``"pufferfish_output"`` key); the schemas in
``pufferfish/cli/schemas/`` describe this version."""

EPSILON_FORMS = "a decimal (0.5), a fraction (1/2), log(R) with rational R >= 1 (log(3), " \
                "log(9/2)) or inf"
"""The accepted forms of a budget string (:func:`pufferfish.verify.numerics.certified.parse_budget`)."""

FINITE_EPSILON_FORMS = "a decimal (0.5), a fraction (1/2) or log(R) with rational R >= 1 " \
                       "(log(3), log(9/2))"
"""The accepted forms of a budget that must be finite (the commands that calibrate noise)."""

RATIONAL_EPSILON_FORMS = "a decimal (0.5) or a fraction (1/2)"
"""The accepted forms of a budget that must be rational (a noise scale divides by it)."""

RATIONAL_FORMS = "an exact rational: 0.25, 1/4 or 3"


class UsageError(Exception):
    """Bad command-line usage (exit 2)."""


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`UsageError` (exit 2 through ``main``) instead
    of exiting from inside argparse."""

    def error(self, message: str) -> None:
        raise UsageError(f"{self.prog}: {message}")


# --- argument types --------------------------------------------------------------------------

def positive_int(text: str) -> int:
    """An integer >= 1 (argparse type)."""
    return _bounded_int(text, 1, "a positive integer")


def nonnegative_int(text: str) -> int:
    """An integer >= 0 (argparse type)."""
    return _bounded_int(text, 0, "an integer >= 0")


def integer(text: str) -> int:
    """Any integer, negative ones included, of at most 30 characters (argparse type)."""
    return _bounded_int(text, None, "an integer")


def _bounded_int(text: str, low: int | None, what: str) -> int:
    stripped = text.strip()
    if len(stripped) > 30:
        raise argparse.ArgumentTypeError(f"expected {what}, got a {len(stripped)}-character value")
    try:
        value = int(stripped)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if low is not None and value < low:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def input_file(text: str) -> str:
    """A file a command reads (a model, a map, a curve, a data file): it must exist and be a
    regular file, decided by ``os.stat`` at parse time
    (:func:`~pufferfish.models.files.json_io.check_regular_file`), so a named pipe (which would
    block the reader), a device or a folder fails at once, before any work starts."""
    from pufferfish.models.errors import ModelError
    from pufferfish.models.files.json_io import check_regular_file

    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty string")
    try:
        check_regular_file(text)
    except ModelError as error:
        raise argparse.ArgumentTypeError(error.reason) from None
    return text


def model_file(text: str) -> str:
    """A model file a command reads, checked like :func:`input_file`; a name that is no existing
    file but names a shipped example (``quickstart.json``) reads that example, as the Python API
    does (:func:`pufferfish.examples.path_or_example`), so the documented commands work outside
    a clone of the repository."""
    from pufferfish.examples import example_names, path_or_example

    try:
        return input_file(str(path_or_example(text)) if text else text)
    except argparse.ArgumentTypeError as error:
        if text and os.sep not in text and not os.path.lexists(text):
            raise argparse.ArgumentTypeError(
                f"{error}; nor is it the name of a shipped example "
                f"({', '.join(example_names())})") from None
        raise


def model_help(what: str = "model file (JSON)") -> str:
    """The help of a model argument: ``what``, and that a shipped example's name is read too."""
    return f"{what}; or the name of a shipped example, e.g. quickstart.json, read when no " \
           "such file exists"


def input_folder(text: str) -> str:
    """A folder a command reads files from: it must exist and be a folder (``os.stat``, at parse
    time); the files read in it are each checked like :func:`input_file`."""
    if not text:
        raise argparse.ArgumentTypeError("expected a folder name, got an empty string")
    try:
        mode = os.stat(text).st_mode
    except (OSError, ValueError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise argparse.ArgumentTypeError(f"cannot read the folder {text!r}: {reason}") from None
    if not stat.S_ISDIR(mode):
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return text


def output_file(text: str) -> str:
    """A path ``--output`` may write: not empty, not an existing non-regular file (device, FIFO,
    directory, symlink to one), in an existing folder where a file can be created (tried), not
    on a special file system (:func:`special_file_system`: ``/proc``, ``/sys``, ``/dev``).
    Checked at parse time, so a bad target fails before any work is done."""
    if not text:
        raise argparse.ArgumentTypeError("expected a file name, got an empty string")
    path = Path(text)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot use {text!r}: {error.strerror}") from None
    if mode is not None and not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise argparse.ArgumentTypeError(f"{text!r} is {kind}; --output writes regular files only")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"the folder of {text!r} does not exist")
    special = special_file_system(folder)
    if special:
        raise argparse.ArgumentTypeError(f"{text!r} is on a {special} file system (a view of the "
                                         f"system, not storage); write the result elsewhere")
    if not os.access(folder, os.W_OK | os.X_OK) or not _can_create_in(folder):
        raise argparse.ArgumentTypeError(f"the folder of {text!r} is not writable")
    return text


SPECIAL_FILE_SYSTEMS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
    "securityfs", "pstore", "bpf", "configfs", "fusectl", "mqueue", "efivarfs", "binfmt_misc",
    "autofs", "rpc_pipefs", "nsfs"})
"""File systems that are views of the kernel or of devices, where no result belongs."""


def special_file_system(folder: str | os.PathLike) -> str | None:
    """The type of the file system holding ``folder`` when it is one of
    :data:`SPECIAL_FILE_SYSTEMS` (``/proc``, ``/sys``, ``/dev``), read from
    ``/proc/self/mountinfo`` (the mount with the longest matching path); ``None`` otherwise or
    where the system does not say."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            lines = handle.read(1 << 20).splitlines()
    except OSError:
        return None
    target = os.path.realpath(folder)
    best, kind = "", None
    for line in lines:
        fields = line.split(" - ", 1)
        parts, after = fields[0].split(), fields[1].split() if len(fields) > 1 else []
        if len(parts) < 5 or not after:
            continue
        mount = parts[4].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, kind = mount, after[0]
    return kind if kind in SPECIAL_FILE_SYSTEMS else None


def _can_create_in(folder: Path) -> bool:
    """Whether a file can be created in ``folder``: one is created and removed at once (the
    permission bits do not tell for the superuser, nor on a read-only file system)."""
    import tempfile

    try:
        descriptor, probe = tempfile.mkstemp(prefix=".pufferfish-probe-", dir=folder)
    except OSError:
        return False
    os.close(descriptor)
    try:
        os.unlink(probe)
    except OSError:
        pass
    return True


def output_folder(text: str) -> str:
    """A folder ``--out`` may write into: not empty, a folder or not yet existing (then created
    by :func:`prepare_folder`), in a place where files can be created (tried) and not on a
    special file system (:func:`special_file_system`).  Checked at parse time."""
    if not text:
        raise argparse.ArgumentTypeError("expected a folder name, got an empty string")
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not a folder")
    existing = Path(os.path.abspath(text))
    while not existing.is_dir() and existing != existing.parent:
        existing = existing.parent  # the folder the missing ones will be created in
    special = special_file_system(existing)
    if special:
        raise argparse.ArgumentTypeError(f"{text!r} is on a {special} file system (a view of the "
                                         f"system, not storage); write the files elsewhere")
    if not os.access(existing, os.W_OK | os.X_OK) or not _can_create_in(existing):
        raise argparse.ArgumentTypeError(f"the folder {str(existing)!r} is not writable")
    return text


# --- options ---------------------------------------------------------------------------------

MAX_DATASETS_HELP = "refuse to enumerate more datasets than this"
"""The one meaning of ``--max-datasets`` (``audit``'s block size is ``--block-datasets``)."""


def add_common_options(parser: argparse.ArgumentParser, *, datasets: bool = False,
                       outputs: bool = False) -> None:
    """``--json``, ``--output``, ``--quiet``, ``--debug`` on every command, and the enumeration
    limits only where they apply (``datasets``: the command enumerates a model's datasets and
    refuses more than ``--max-datasets``; ``outputs``: it enumerates mechanism outputs)."""
    from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
    from pufferfish.models.universe import DEFAULT_MAX_DATASETS

    parser.add_argument("--json", action="store_true",
                        help="print the full result as JSON on stdout (nothing else)")
    parser.add_argument("--output", metavar="FILE", type=output_file,
                        help="also write the JSON result to FILE, a regular file (atomically: a "
                             "failure or an interruption never leaves a partial file)")
    parser.add_argument("--quiet", action="store_true",
                        help="no notes or progress on stderr (errors are still printed)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    if datasets:
        parser.add_argument("--max-datasets", type=positive_int, default=DEFAULT_MAX_DATASETS,
                            help=f"{MAX_DATASETS_HELP} (default {DEFAULT_MAX_DATASETS:,})")
    if outputs:
        parser.add_argument("--max-outputs", type=positive_int, default=DEFAULT_MAX_OUTPUTS,
                            help=f"refuse mechanisms with more outputs "
                                 f"(default {DEFAULT_MAX_OUTPUTS:,})")


def add_mechanisms_and_relations(parser: argparse.ArgumentParser) -> None:
    """``--mechanism NAME`` and ``--neighbours RELATION`` (both repeatable) and the common and
    enumeration options, for a command that checks each named mechanism under each relation;
    :func:`mechanisms_and_relations` reads them."""
    from pufferfish.models.neighbours import RELATION_FORMS

    add_mechanism_option(parser, "only these (default: every mechanism)", old=())
    parser.add_argument("--neighbours", action="append", metavar="RELATION",
                        help=f"neighbour relation (repeatable; default: the model's "
                             f"\"neighbours\", else entry): {RELATION_FORMS}")
    add_common_options(parser, datasets=True, outputs=True)


def mechanisms_and_relations(args: argparse.Namespace, model) -> tuple[list[str], list]:
    """The mechanisms named (all by default) and the relations (the model's, else entry)."""
    from pufferfish.verify.privacy.audit import selected_mechanisms

    chosen = selected_mechanisms(model, args.mechanism, "--mechanism")
    return chosen, args.neighbours or [model.neighbours or "entry"]


def add_execution_options(parser: argparse.ArgumentParser) -> None:
    """``--scheduler`` / ``--workers``: where the command's independent tasks run
    (:mod:`pufferfish.verify.execution`); the answer is the same wherever they run."""
    from pufferfish.verify.execution import SCHEDULER_VARIABLE

    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help=f"run the tasks on the Dask scheduler at ADDRESS (e.g. "
                            f"tcp://10.0.0.5:8786); default ${SCHEDULER_VARIABLE} if set, else "
                            f"this process")
    where.add_argument("--workers", type=positive_int, metavar="N",
                       help="run the tasks on a local Dask cluster of N worker processes "
                            "started for this run")


class execution_engine:
    """``with execution_engine(args) as engine:`` the engine the options ask for, its
    description and dashboard link noted on stderr; a malformed or unreachable scheduler
    address (``--scheduler`` or ``$PUFFERFISH_SCHEDULER``, checked by
    :func:`~pufferfish.verify.execution.check_scheduler`) is a :class:`UsageError` (exit 2)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.engine = None

    def __enter__(self):
        from pufferfish.verify.execution import SCHEDULER_VARIABLE, engine_from

        scheduler = getattr(self.args, "scheduler", None)
        address = scheduler or os.environ.get(SCHEDULER_VARIABLE)
        try:
            self.engine = engine_from(scheduler, getattr(self.args, "workers", None))
        except ValueError as error:
            source = "--scheduler" if scheduler else f"${SCHEDULER_VARIABLE}"
            raise UsageError(f"{source}: {_malformed_scheduler(address, error)}") from None
        except (OSError, TimeoutError) as error:
            if address is None:
                raise UsageError(f"cannot start a local Dask cluster for --workers ({error})") \
                    from None
            raise UsageError(_unreachable_scheduler(address, error)) from None
        dashboard = getattr(self.engine, "dashboard", None)
        if dashboard:
            note(self.args, f"running on a {self.engine.description}; dashboard {dashboard}")
        return self.engine

    def __exit__(self, *exc_info) -> None:
        if self.engine is not None:
            self.engine.__exit__(*exc_info)  # quietly after Ctrl-C or SIGTERM


def check_scheduler_option(args: argparse.Namespace) -> None:
    """Check the address given to ``--scheduler``, if any: well formed and accepting connections
    (:func:`~pufferfish.verify.execution.check_scheduler`).  :func:`pufferfish.cli.main.main`
    calls it right after parsing, so a bad address fails before any work starts, on every
    command alike (whether or not the command would have reached its tasks)."""
    address = getattr(args, "scheduler", None)
    if address is None:
        return
    from pufferfish.verify.execution import check_scheduler

    try:
        check_scheduler(address)
    except ValueError as error:
        raise UsageError(f"--scheduler: {_malformed_scheduler(address, error)}") from None
    except (OSError, TimeoutError) as error:
        raise UsageError(f"--scheduler: {_unreachable_scheduler(address, error)}") from None


def _malformed_scheduler(address: str, error: Exception) -> str:
    return f"{address!r} is not a Dask scheduler address ({error})"


def _unreachable_scheduler(address: str, error: Exception) -> str:
    from pufferfish.verify.execution import SCHEDULER_VARIABLE

    reason = error.strerror if isinstance(error, OSError) and error.strerror else error
    return (f"cannot reach the Dask scheduler at {address!r} ({reason}); start one (`dask "
            f"scheduler`) or drop --scheduler / ${SCHEDULER_VARIABLE}")


def refuse_execution_options(args: argparse.Namespace, where: str) -> None:
    """Refuse ``--scheduler`` / ``--workers`` on an invocation that runs no tasks (``where`` says
    which invocations do), so that a scheduler given is never silently ignored."""
    if getattr(args, "scheduler", None) or getattr(args, "workers", None):
        raise UsageError(f"--scheduler / --workers run the tasks of {where}; this invocation "
                         f"runs in this process: drop them")


def add_out_folder(parser: argparse.ArgumentParser, what: str, *, required: bool = False,
                   default: str | None = None) -> None:
    """``--out DIR``: the folder for the files the command writes (``what`` names them)."""
    tail = " (required)" if required else f" (default: {default})" if default else ""
    parser.add_argument("--out", metavar="DIR", type=output_folder, required=required,
                        default=default, help=f"folder for {what}; created if missing, every "
                                              f"file written is listed on stderr{tail}")


def budget_text(text: str) -> str:
    """The text of a budget option (argparse type of every ``--epsilon``-like option): refused at
    parse time when empty or blank, so that no command can read an empty budget as an absent
    one; the value itself is read by :func:`parse_epsilon`."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a budget, got an empty string (accepted "
                                         f"forms: {EPSILON_FORMS})")
    return text


def epsilon_help(what: str, forms: str = EPSILON_FORMS) -> str:
    """Help text of a budget option: ``what`` it does, then the accepted ``forms``
    (:data:`EPSILON_FORMS`, or :data:`FINITE_EPSILON_FORMS` / :data:`RATIONAL_EPSILON_FORMS`
    where the command refuses the others)."""
    return f"{what}; accepted forms: {forms}"


def parse_epsilon(text: str, option: str = "--epsilon", forms: str = EPSILON_FORMS):
    """The budget given to ``option``
    (:func:`~pufferfish.verify.numerics.certified.parse_budget`); an unreadable one is a usage
    error that lists the accepted ``forms`` — the ones the option's help lists
    (:func:`epsilon_help`), so a command that refuses ``inf`` never suggests it."""
    from pufferfish.models.errors import ModelError
    from pufferfish.verify.numerics.certified import parse_budget

    try:
        return parse_budget(text, option)
    except ModelError as error:
        # the reader's hint ("write 0.5, ... or inf") lists every form: kept only if all are
        reason = str(error) if forms == EPSILON_FORMS else str(error).split("; write ")[0]
        raise UsageError(f"{reason} (accepted forms: {forms})") from None


def prepare_folder(args: argparse.Namespace) -> Path:
    """Create ``--out`` if missing and return it."""
    folder = Path(args.out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"--out: cannot create the folder {args.out!r}: "
                         f"{error.strerror or error}") from None
    return folder


def apply_quiet(args: argparse.Namespace) -> None:
    """Hide progress lines when ``--quiet`` is given (off a terminal they are plain lines every
    few seconds on long work: :class:`~pufferfish.verify.report.Progress`);
    :func:`~pufferfish.cli.main.main` restores the setting when the command ends."""
    from pufferfish.verify.report import set_progress_visible

    set_progress_visible(not getattr(args, "quiet", False))


def note(args: argparse.Namespace, message: str) -> None:
    """A note on stderr (suppressed by ``--quiet``)."""
    if not getattr(args, "quiet", False):
        print(message, file=sys.stderr)


def wrote(args: argparse.Namespace, path: Path | str) -> None:
    """List a written file on stderr."""
    note(args, f"wrote {path}")


# --- output ----------------------------------------------------------------------------------

def output_document(command: str, data: dict) -> dict:
    """The ``--json`` document: the result's ``to_dict()`` after the format version and the
    command name."""
    return {"pufferfish_output": OUTPUT_VERSION, "command": command, **data}


def emit(args: argparse.Namespace, data: dict, text: str) -> None:
    """Write ``--output`` (atomically), then print ``text``, or the JSON document with
    ``--json``; both state ``args.assumptions`` (the model's trusted programs), if any."""
    from pufferfish.models.files.json_io import json_text, write_json_atomically
    from pufferfish.verify.report import assumption_lines

    if lines := assumption_lines(getattr(args, "assumptions", ())):  # a trusted program's
        data = {**data, "assumptions": list(args.assumptions)}
        text = text if all(line in text for line in lines) else "\n".join([text, ""] + lines)
    document = output_document(args.command_name, data)
    if getattr(args, "output", None):
        write_json_atomically(document, args.output)
        wrote(args, args.output)
    if getattr(args, "json", False):
        sys.stdout.write(json_text(document) + "\n")
    else:
        print(text)
    sys.stdout.flush()


def verdict(holds: bool | None) -> int:
    """Exit status of a check: 1 when violated, else 0 (``None`` means only computed)."""
    return EXIT_VIOLATED if holds is False else EXIT_OK


def relation_status(holds: bool | None) -> int:
    """Exit status of a certified comparison: 0 proved, 1 refuted, 3 undecided (``None``)."""
    return EXIT_OK if holds is True else EXIT_VIOLATED if holds is False else EXIT_UNDECIDED


def names_option(text: str | None, option: str) -> list[str] | None:
    """A comma-separated list of names (``None`` when the option is absent); empty names are
    refused."""
    if text is None:
        return None
    names = [n.strip() for n in text.split(",")]
    if not names or any(not n for n in names):
        raise UsageError(f"{option}: expected comma-separated names, got {text!r}")
    return names


MECHANISM_HELP = "a mechanism of the model, by name (repeatable)"
"""The start of every ``--mechanism`` help: one option, one meaning, on every command."""


class _OldNamesSpelling(argparse.Action):
    """``--mechanisms A,B`` (and ``region --joint A,B``): the old spellings of
    ``--mechanism A --mechanism B``, still read, with a note on stderr."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        names = [n.strip() for n in values.split(",")]
        if any(not n for n in names):
            raise UsageError(f"{option_string}: expected comma-separated names, got {values!r}")
        print(f"note: {option_string} A,B is deprecated; write --mechanism A --mechanism B",
              file=sys.stderr)
        setattr(namespace, self.dest, (getattr(namespace, self.dest, None) or []) + names)


def add_mechanism_option(parser: argparse.ArgumentParser, what: str,
                         old: tuple[str, ...] = ("--mechanisms",)) -> None:
    """``--mechanism NAME`` (repeatable, ``args.mechanism`` a list or ``None``): ``what`` the
    command does with the named mechanisms; the ``old`` comma-separated spellings are read too
    (hidden from the help, with a deprecation note)."""
    parser.add_argument("--mechanism", action="append", metavar="NAME",
                        help=f"{MECHANISM_HELP}: {what}")
    for spelling in old:
        parser.add_argument(spelling, action=_OldNamesSpelling, dest="mechanism",
                            help=argparse.SUPPRESS)


def single_mechanism(args: argparse.Namespace, why: str) -> str | None:
    """The one mechanism ``--mechanism`` names (``None`` when absent); several are refused with
    ``why`` (what takes one mechanism)."""
    names = args.mechanism or []
    if len(names) > 1:
        raise UsageError(f"--mechanism: {why}, got {len(names)} ({', '.join(names)})")
    return names[0] if names else None


__all__ = ["EXIT_OK", "EXIT_VIOLATED", "EXIT_BAD_INPUT", "EXIT_UNDECIDED", "EXIT_INTERNAL_ERROR",
           "EXIT_INTERRUPTED", "EXIT_TERMINATED", "EXIT_CODES_HELP", "OUTPUT_VERSION",
           "EPSILON_FORMS", "FINITE_EPSILON_FORMS", "RATIONAL_EPSILON_FORMS", "RATIONAL_FORMS",
           "UsageError", "CommandParser", "positive_int", "nonnegative_int", "input_file",
           "model_file", "model_help", "input_folder", "output_file", "output_folder",
           "add_common_options", "MAX_DATASETS_HELP", "add_out_folder", "budget_text",
           "epsilon_help",
           "parse_epsilon",
           "check_scheduler_option", "refuse_execution_options",
           "prepare_folder", "apply_quiet", "note", "wrote", "output_document", "emit", "verdict",
           "relation_status", "names_option", "MECHANISM_HELP", "add_mechanism_option",
           "add_mechanisms_and_relations", "mechanisms_and_relations",
           "single_mechanism"]


def add_parameter_options(parser: argparse.ArgumentParser) -> None:
    """``--set NAME=VALUE`` (repeatable): fix a parameter of a parametric model; the
    commands that read a Pufferfish model file then work on the exact model at that point."""
    parser.add_argument("--set", action="append", metavar="NAME=VALUE", dest="assignments",
                        help="parametric models: fix parameter NAME to the exact VALUE "
                             "(repeatable; e.g. --set p=3/4)")


def load_pufferfish_model(args: argparse.Namespace, *, dp_only: bool = False):
    """The exact Pufferfish model of ``args.model``: a parametric model instantiated at the
    ``--set`` values (:func:`pufferfish.models.parametric.load_model_at`).  What a prior says
    about itself (a ``bayesnet`` prior's renormalised CPT rows:
    :attr:`pufferfish.models.bayesnet.BayesNetPrior.notes`) is noted on stderr.  A DP-only
    model (no priors, no secret pairs) is refused unless ``dp_only`` (the command computes DP
    levels alone)."""
    from pufferfish.models.parametric import load_model_at

    model = load_model_at(args.model, getattr(args, "assignments", None),
                          max_datasets=args.max_datasets)
    if not dp_only:
        model.require_priors(f"`pufferfish {args.command_name}`")
    args.assumptions = model.assumptions()  # what every verdict takes on trust (emit says it)
    for prior in model.priors.values():
        for text in getattr(prior, "notes", ()):
            note(args, f"note: {text}")
    return model
