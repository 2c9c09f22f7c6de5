"""The JSON layer shared by every file kind of the toolkit: bounded reading, schema errors with
JSON paths, and atomic writing (DESIGN.md, "Model files").

Every reader (Pufferfish, DCP, multi-user and Bayesian-network model files) decodes its file with
:func:`read_json_file` and checks its structure with :func:`check_schema`, so every file kind
refuses bad input with the same located messages.  The limits, all refused with a
:class:`~pufferfish.models.errors.ModelError` that names the file or the JSON path:

* a file is a regular file (:func:`check_regular_file`, decided by :func:`os.stat` before the
  file is opened: a named pipe with no writer would block the reader forever, ``/dev/zero``
  never ends) and holds at most :data:`MAX_FILE_BYTES` bytes (64 MiB);
* arrays and objects nest at most :data:`MAX_DEPTH` levels (a model file needs fewer than 15);
* a JSON integer has at most :data:`~pufferfish.models.numbers.MAX_DIGITS` digits (exact numbers
  are read exactly, but not beyond that size: Python refuses to convert longer integers to text);
* ``NaN``, ``Infinity`` and numbers a float cannot hold (``1e400``) are refused with a rewrite
  hint; finite floats are decoded and refused with the same hint by the reader that expects an
  exact number (:func:`pufferfish.models.numbers.exact`) or by the schema;
* an object may not repeat a key;
* every string and key must be Unicode text: a lone UTF-16 surrogate (``"\\udfff"``) is refused
  with its JSON path (it would be read, then crash every output that writes it).

:func:`write_json_atomically` writes a regular file or nothing at all.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> target = os.path.join(folder, "out.json")
>>> write_json_atomically({"a": "1/2"}, target)
>>> read_json_file(target)
{'a': '1/2'}
>>> read_json_file("/dev/zero")
Traceback (most recent call last):
...
pufferfish.models.errors.ModelError: cannot read file '/dev/zero': it is a character device, not a regular file
"""

from __future__ import annotations

import json
import math
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import jsonschema

from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.numbers import MAX_DIGITS, exact
from pufferfish.models.values import json_value

__all__ = ["MAX_FILE_BYTES", "MAX_DEPTH", "check_regular_file", "open_regular_file",
           "read_json_file", "parse_json_text", "check_schema", "schema_validator",
           "validator_for", "schema_error", "reject_duplicate_keys", "json_text", "strict_json",
           "write_json_atomically"]

MAX_FILE_BYTES = 64 * 2**20
"""The largest file a reader accepts, in bytes (64 MiB; the largest example is under 20 KiB)."""

MAX_DEPTH = 100
"""The deepest nesting of arrays and objects a reader accepts."""


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

class JsonFloat(float):
    """A JSON number with a fraction or an exponent, keeping its text for the rewrite hint
    (``1e400`` becomes ``inf`` as a float, but ``"1e400"`` is an exact decimal string)."""

    text: str

    def __new__(cls, text: str) -> "JsonFloat":
        number = super().__new__(cls, text)
        number.text = text
        return number


class _LongInteger:
    """A JSON integer with more digits than :data:`MAX_DIGITS` (refused, with its path, after
    decoding: Python cannot convert it)."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _json_integer(text: str) -> int | _LongInteger:
    digits = len(text.lstrip("-"))
    return _LongInteger(digits) if digits > MAX_DIGITS else int(text)


def read_json_file(path: str | os.PathLike, kind: str = "file") -> object:
    """Decode the JSON document at ``path`` for one of the toolkit's readers.

    Every failure is a :class:`ModelError` saying which file and what is wrong: unreadable, not a
    regular file (:func:`check_regular_file`), larger than :data:`MAX_FILE_BYTES`, not UTF-8, not
    JSON (with line and column), nested deeper than :data:`MAX_DEPTH`, an over-long integer, a
    non-finite number, a string that is not text, or an object with a repeated key.  Cost:
    O(file size).
    """
    where = f"{kind} {str(path)!r}"
    with open_regular_file(path, kind) as handle:
        try:
            raw = _read_at_most(handle, MAX_FILE_BYTES, os.fstat(handle.fileno()).st_size, where)
        except OSError as error:
            raise ModelError(f"cannot read {where}: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ModelError(f"{where} is not UTF-8 text: {error.reason}") from None
    return parse_json_text(text, where)


def check_regular_file(path: str | os.PathLike, kind: str = "file") -> None:
    """Refuse ``path`` unless it names an existing regular file (a symbolic link to one is
    followed), deciding with :func:`os.stat` alone: opening a named pipe with no writer would
    block forever, and a device (``/dev/zero``, ``/dev/urandom``) never ends.  The
    :class:`ModelError` names ``kind`` and the path as the user gave it."""
    where = f"{kind} {os.fspath(path)!r}"
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as error:  # ValueError: a NUL byte in the path
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ModelError(f"cannot read {where}: {reason}") from None
    if not stat.S_ISREG(mode):
        raise ModelError(f"cannot read {where}: it is {_file_type(mode)}, not a regular file")


def open_regular_file(path: str | os.PathLike, kind: str = "file", text: bool = False):
    """The regular file at ``path`` opened for reading (binary, or UTF-8 text with ``text``),
    after :func:`check_regular_file`; it is opened without blocking and checked again through
    its descriptor, so a file swapped for a pipe in between is refused too, never waited on."""
    check_regular_file(path, kind)
    where = f"{kind} {os.fspath(path)!r}"
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise ModelError(f"cannot read {where}: {error.strerror or error}") from None
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        raise ModelError(f"cannot read {where}: it is {_file_type(mode)}, not a regular file")
    os.set_blocking(descriptor, True)
    if text:
        return open(descriptor, encoding="utf-8", newline="")
    return open(descriptor, "rb")


def _read_at_most(handle, limit: int, size: int, where: str) -> bytes:
    """The whole content of ``handle``, refused as soon as it exceeds ``limit`` bytes (``size`` is
    what ``fstat`` says; a file that grows while it is read is read in chunks up to the limit)."""
    refusal = ModelError(f"{where} is larger than the limit of {limit:,} bytes "
                         f"({limit / 2**20:g} MiB)")
    if size > limit:
        raise refusal
    chunks, total = [], 0
    while True:
        chunk = handle.read(min(max(size, 2**16), limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise refusal


def parse_json_text(text: str, where: str = "the JSON text") -> object:
    """Decode JSON ``text`` (from ``where``, named in errors) with the limits of this module."""
    try:
        data = json.loads(text, object_pairs_hook=reject_duplicate_keys, parse_int=_json_integer,
                          parse_float=JsonFloat, parse_constant=JsonFloat)
    except json.JSONDecodeError as error:
        raise ModelError(f"{where} is not valid JSON: {error.msg} at line "
                         f"{error.lineno}, column {error.colno}") from None
    except RecursionError:
        raise ModelError(f"{where} nests arrays and objects more than {MAX_DEPTH} levels deep") \
            from None
    _check_decoded(data, where)
    return data


def _check_decoded(data: object, where: str) -> None:
    """Walk the document once (iteratively, in reading order) for the limits the decoder cannot
    check itself, and for strings that are not text (:func:`_check_text`)."""
    stack: list[tuple[object, tuple]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            for key in node:
                _check_text(key, path, "key")
            children: Iterator = iter(node.items())
        elif isinstance(node, list):
            children = enumerate(node)
        else:
            if isinstance(node, str):
                _check_text(node, path, "string")
            elif isinstance(node, _LongInteger):
                raise ModelError(f"the integer has {node.digits:,} digits; an exact number may "
                                 f"have at most {MAX_DIGITS:,} digits", join_path(*path))
            if isinstance(node, JsonFloat) and node - node != 0:  # NaN, Infinity or overflow
                exact(node, join_path(*path))
            continue
        if len(path) >= MAX_DEPTH:
            raise ModelError(f"{where} nests arrays and objects more than {MAX_DEPTH} levels deep",
                             join_path(*path))
        stack.extend(reversed([(child, path + (key,)) for key, child in children]))


def _check_text(text: str, path: tuple, what: str) -> None:
    """Refuse a string or key that is not Unicode text: JSON's ``\\udfff`` escapes decode to lone
    UTF-16 surrogates, which no output can encode (a name holding one would be read, then crash
    the writing of the result).  The message shows the text with the surrogates escaped."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ModelError(f"the {what} \"{shown}\" holds a lone UTF-16 surrogate (an unpaired "
                         f"\\ud800-\\udfff escape), which is not text; write the character "
                         f"itself or a valid surrogate pair", join_path(*path)) from None


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a named pipe"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def reject_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` for :func:`json.loads` that refuses a key given twice."""
    result: dict = {}
    for key, value in pairs:
        if key in result:
            raise ModelError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


# --------------------------------------------------------------------------------------------
# Structure: JSON Schema with JSON paths
# --------------------------------------------------------------------------------------------

def _is_json_integer(checker, instance: object) -> bool:
    """``"type": "integer"`` as the toolkit reads it: a JSON integer written without a fraction
    or an exponent (``3``), never a float (``3.0``, which JSON Schema would count as an integer)
    nor a boolean."""
    return isinstance(instance, int) and not isinstance(instance, bool)


ExactValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer",
                                                                       _is_json_integer))
"""Draft 2020-12 validation where ``"integer"`` admits no float (``0.0``) and no boolean: an
integer field of a file (a noise range, ``repeat.times``, a domain value) is exact as written."""


def validator_for(schema: dict) -> jsonschema.protocols.Validator:
    """A validator of ``schema`` (draft 2020-12) with the toolkit's integers (:data:`ExactValidator`)."""
    return ExactValidator(schema)


@lru_cache(maxsize=None)
def schema_validator(path: Path) -> jsonschema.protocols.Validator:
    """A (cached) validator for the schema file at ``path`` (:func:`validator_for`)."""
    return validator_for(json.loads(path.read_text(encoding="utf-8")))


def check_schema(data: object, validator: jsonschema.protocols.Validator) -> None:
    """Raise the first schema violation in reading order as a :class:`ModelError` with its path.

    Shared by every reader of the toolkit's file kinds, so their messages read the same.
    """
    errors = list(validator.iter_errors(data))
    if errors:
        raise schema_error(min(errors, key=lambda e: _document_position(data, e.absolute_path)))


def _document_position(data: object, path: Sequence) -> tuple:
    """Where a JSON path sits in the document (so the first error in reading order wins)."""
    position = []
    node = data
    for part in path:
        if isinstance(node, dict):
            keys = list(node)
            position.append(keys.index(part) if part in node else len(keys))
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int):
            position.append(part)
            node = node[part] if part < len(node) else None
        else:
            break
    return tuple(position)


_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer",
               float: "number", JsonFloat: "number", type(None): "null"}


def schema_error(error: jsonschema.ValidationError) -> ModelError:
    """One schema violation as a located, readable :class:`ModelError`.  A float where a schema
    node described as an ``exact number`` is expected gets the hint of
    :func:`~pufferfish.models.numbers.exact` (write ``"0.5"``); a float where an integer is
    expected (a count, a noise range, a domain value) is told to write an integer."""
    path = join_path(*error.absolute_path)
    instance = error.instance
    if error.validator == "type":
        wanted = error.validator_value
        wanted = [wanted] if isinstance(wanted, str) else list(wanted)
        if isinstance(instance, float) and "integer" in wanted and \
                "exact number" not in error.schema.get("description", ""):
            text = _short(instance)
            also = f", or as a string such as {json.dumps(text)}" if "string" in wanted else ""
            return ModelError(f"expected {' or '.join(wanted)}, got the float {text}; write it "
                              f"as an integer without a fraction or an exponent{also}", path)
        if isinstance(instance, float):
            try:
                exact(instance, path)
            except ModelError as refusal:
                return refusal
        return ModelError(f"expected {' or '.join(wanted)}, got {_JSON_TYPES.get(type(instance), 'value')} "
                          f"{_short(instance)}", path)
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        allowed = list(error.schema.get("properties", {}))
        unknown = [k for k in instance if k not in allowed]
        names = ", ".join(repr(k) for k in unknown)
        noun = "key" if len(unknown) == 1 else "keys"
        return ModelError(f"unknown {noun} {names}; the allowed keys are "
                          f"{', '.join(repr(k) for k in allowed)}", path)
    if error.validator == "required":
        return ModelError(error.message.replace("is a required property",
                                                "is required but missing"), path)
    if error.validator == "const":
        return ModelError(f"expected {json.dumps(error.validator_value)}, got {_short(instance)}", path)
    if error.validator == "pattern" and error.validator_value == "^all$":
        return ModelError(f"expected \"all\" or a list of datasets, got {_short(instance)}", path)
    if error.validator == "pattern":
        return ModelError(f"{_short(instance)} is not one of the known names "
                          f"{error.validator_value[2:-2].split('|')}", path)
    if error.validator in ("minItems", "minProperties") and not instance:
        noun = "list" if isinstance(instance, list) else "object"
        return ModelError(f"the {noun} is empty; it needs at least {error.validator_value} "
                          f"{'entry' if error.validator_value == 1 else 'entries'}", path)
    if error.validator == "maxProperties":
        return ModelError(f"expected exactly one of the keys {list(error.schema.get('properties', {}))}, "
                          f"got {list(instance)}", path)
    return ModelError(error.message, path)


def _short(value: object) -> str:
    text = value.text if isinstance(value, JsonFloat) else \
        json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------

def json_text(data: object) -> str:
    """``data`` as the toolkit's JSON output text (indented, UTF-8 characters kept), valid for
    every strict JSON parser: canonical values are written as JSON holds them
    (:func:`pufferfish.models.values.json_value`: ``true``, never ``1``) and a non-finite float —
    only ever a reading aid beside an exact field, such as ``epsilon_float`` beside
    ``"epsilon": "inf"`` — as ``null`` (``Infinity`` is not JSON)."""
    return json.dumps(strict_json(data), indent=2, ensure_ascii=False)


def strict_json(data: object) -> object:
    """``data`` with canonical values as JSON holds them and non-finite floats as ``None``
    (what :func:`json_text` writes)."""
    if isinstance(data, dict):
        return {key: strict_json(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [strict_json(item) for item in data]
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, str | int) or data is None:
        return data
    converted = json_value(data)
    return data if converted is data else strict_json(converted)


def write_json_atomically(data: object, path: str | os.PathLike, option: str = "") -> None:
    """Write ``data`` as JSON to the regular file ``path`` without ever leaving a partial file.

    The JSON goes to a temporary file in the target's folder, which then replaces the target with
    :func:`os.replace`; a failure or an interrupt (``KeyboardInterrupt``, and ``SIGTERM`` while
    the default handler is in force, which is turned into ``SystemExit(143)`` for the duration)
    removes the temporary file and leaves the previous file, if any, untouched.  A symbolic link
    to a regular file (or to a new path) is written through: its target is replaced.  An empty
    path, and an existing target that is not a regular file (a device such as ``/dev/full``, a
    named pipe, a directory, a socket), are refused with a :class:`ModelError` located at
    ``option`` (the command-line option, e.g. ``"--output"``) that names ``path``; system errors
    (missing or unwritable folder, full disk) are re-raised as :class:`OSError` whose
    ``filename`` is ``path`` as the user gave it, never the temporary file.
    """
    text = os.fspath(path)
    if not text:
        raise ModelError("the output path is empty; give a file name", option)
    target = Path(os.path.realpath(text))
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise OSError(error.errno, error.strerror, text) from None
    if mode is not None and not stat.S_ISREG(mode):
        raise ModelError(f"cannot write {text!r}: it is {_file_type(mode)}; the JSON output is "
                         f"written to regular files only", option)
    temporary = None
    try:
        with _termination_as_exit():
            descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                                     dir=target.parent)
            with open(descriptor, "w", encoding="utf-8") as handle:
                json.dump(strict_json(data), handle, indent=2, ensure_ascii=False)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, _file_mode(target))
            os.replace(temporary, target)
            temporary = None
    except OSError as error:
        raise OSError(error.errno, error.strerror or str(error), text) from None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


@contextmanager
def _termination_as_exit() -> Iterator[None]:
    """While active, ``SIGTERM`` raises ``SystemExit(143)`` (so ``finally`` clauses run) when it
    would otherwise kill the process outright; other handlers are left alone."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def terminate(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _file_mode(target: Path) -> int:
    """The permissions the written file gets: those of the file it replaces, else the usual ones."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
