"""The program language in the toolkit: program files and functions checked before they run.

The language itself — what a program may write and why every accepted program is a deterministic
function of its arguments and its draws — is :mod:`pufferfish_check.language` (the standard
library only, so that the independent certificate checker reads programs by the same rules).
This module applies it:

* **program files** (:func:`checked_sources`): a model file's program and the helper modules it
  imports are checked before the file is imported; a :class:`~pufferfish_check.language.Refusal`
  becomes a :class:`~pufferfish.models.errors.ModelError` at ``mechanisms.NAME.program.file``.
  The import then compiles the very texts that were checked (:func:`checked_import`: no bytecode
  cache, helpers resolved to the checked files next to the program), and every global of the
  imported module is checked again (:func:`check_module`: an immutable constant, a function of
  the checked files, a primitive or an allowed import);
* **functions given from Python** (:func:`check_callable`): the function's source
  (:func:`inspect.getsource` of its code, the ``lambda`` found on its first line) is checked by
  the same rules, its free names resolved at run time — closure cells, then ``__globals__``, then
  the builtins — to immutable constants, primitives, allowed modules and builtins, or functions
  checked the same way; its defaults must be immutable.  A function whose source is unavailable
  is refused with the way out, ``trusted=True``;
* **arguments** (:func:`frozen_arguments`): lists become tuples and dicts read-only dicts, so a
  run cannot leave state in them for the next.

``trusted=True`` (``"trusted": true`` in a model file) skips all of this: the program runs as
written, behind the fault boundary only.  The engine
:func:`~pufferfish.models.programs.enumerate.program_distribution` is not checked: it is the
engine, called by a library user on a function they trust (:doc:`/programs`, "The program
language").

>>> from pufferfish.models.programs import coin
>>> def honest(data):
...     return data[0] if coin("3/4") else 1 - data[0]
>>> check_callable(honest, "mechanisms.rr")
>>> seen = []
>>> def counting(data):
...     seen.append(1)
...     return len(seen) % 2
>>> check_callable(counting, "mechanisms.c")
Traceback (most recent call last):
...
pufferfish.models.errors.ModelError: mechanisms.c: ..., line 2: the name seen (a list defined \
outside the program) is not allowed in a program: ...
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import itertools
import math
import os
import sys
import textwrap
import types
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

from pufferfish_check import language
from pufferfish_check.language import Refusal

from pufferfish.models.errors import ModelError

__all__ = ["checked_sources", "checked_import", "check_module", "check_callable",
           "frozen_arguments", "FrozenDict", "immutable", "Refusal"]

_DUNDERS = {"__name__", "__doc__", "__file__", "__loader__", "__spec__", "__package__",
            "__cached__", "__builtins__", "__all__", "__annotations__"}
_TRUSTED = ("; a program you trust may skip the check: \"trusted\": true in the model file, or "
            "trusted=True")


def _primitives() -> dict[int, str]:
    import pufferfish.models.programs as programs
    return {id(getattr(programs, name)): name for name in language.PRIMITIVES}


def _imports() -> dict[int, str]:
    allowed = {id(getattr(math, n)): f"math.{n}" for n in language.MATH}
    allowed.update({id(getattr(itertools, n)): n for n in language.ITERTOOLS
                    if hasattr(itertools, n)})
    allowed[id(functools.reduce)] = "reduce"
    return allowed


def immutable(value: object) -> bool:
    """Whether ``value`` is an immutable constant: ``None``, a bool, number, string, bytes,
    ``Fraction``, or a tuple of such (recursively).

    >>> immutable((1, "a", Fraction(1, 2))), immutable((1, [2]))
    (True, False)
    """
    if type(value) is tuple:
        return all(map(immutable, value))
    return type(value) in (type(None), bool, int, float, complex, str, bytes, Fraction,
                           type(Ellipsis))


def _describe(value: object) -> str:
    return f"a {type(value).__name__}"


# -- program files ---------------------------------------------------------------------------
def checked_sources(real: str, function: str, path: str) -> dict[str, str]:
    """The texts of the program file ``real`` and of its helper modules (real path -> text),
    each checked by the language; a refusal is a :class:`ModelError` at ``PATH.file``."""
    where = f"{path}.file" if path else ""
    try:  # whether the file defines ``function`` is the import's error (with the names it has)
        files = language.check_file(real)
        texts = {os.path.realpath(f): Path(f).read_text(encoding="utf-8") for f in files}
        for file, text in texts.items():  # the texts that will run are the texts checked
            language.check_source(text, file)
    except Refusal as refusal:
        if refusal.construct == "a syntax error":
            raise ModelError(f"program file {refusal.file!r} has a syntax error at line "
                             f"{refusal.line}: {refusal.why}", where) from None
        raise ModelError(f"{refusal}{_TRUSTED}", where) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ModelError(f"program file {real!r} cannot be read: {error}", where) from None
    return texts


class _Loader(importlib.machinery.SourceFileLoader):
    """Loads a module from its checked text (never from a bytecode cache)."""

    def __init__(self, name: str, path: str, text: str) -> None:
        super().__init__(name, path)
        self.text = text

    def get_code(self, fullname):
        return compile(self.text, self.path, "exec", dont_inherit=True)


class _Helpers(importlib.abc.MetaPathFinder):
    def __init__(self, helpers: dict[str, tuple[str, str]]) -> None:
        self.helpers = helpers

    def find_spec(self, name, path=None, target=None):
        if name in self.helpers:
            real, text = self.helpers[name]
            return importlib.util.spec_from_loader(name, _Loader(name, real, text))
        return None


@contextmanager
def checked_import(real: str, sources: dict[str, str]):
    """Inside the block, the helper modules of the program ``real`` are imported from their
    checked ``sources``; yields the loader of the program itself (for a module ``name``)."""
    helpers = {Path(f).stem: (f, text) for f, text in sources.items() if f != real}
    saved = {name: sys.modules.pop(name) for name in helpers if name in sys.modules}
    finder = _Helpers(helpers)
    sys.meta_path.insert(0, finder)
    try:
        yield lambda name: _Loader(name, real, sources[real])
    finally:
        sys.meta_path.remove(finder)
        for name in helpers:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def check_module(module: types.ModuleType, sources: dict[str, str], where: str) -> None:
    """Every global of the imported program is an immutable constant, a function of the checked
    files (with immutable defaults and at most its ``stepwise`` declaration), a primitive or an
    allowed import; else a :class:`ModelError` (the static check should make this impossible)."""
    primitives, imports = _primitives(), _imports()
    for name, value in vars(module).items():
        if name in _DUNDERS or immutable(value) or id(value) in primitives or \
                id(value) in imports or value is math or value is Fraction or (
                    name == "annotations" and type(value).__name__ == "_Feature"):
            continue
        if isinstance(value, types.FunctionType) and os.path.realpath(
                value.__code__.co_filename) in sources and _plain(value, sources):
            continue
        raise ModelError(f"program file {module.__file__!r}: after loading, its global {name!r} "
                         f"is {_describe(value)}, which a program may not hold (only constants, "
                         f"functions of the program and its helpers, primitives and allowed "
                         f"imports){_TRUSTED}", where)


def _plain(function: types.FunctionType, sources: dict[str, str]) -> bool:
    declared = function.__dict__.get("stepwise", ())
    return (set(function.__dict__) <= {"stepwise"} and immutable(function.__defaults__)
            and all(map(immutable, (function.__kwdefaults__ or {}).values()))
            and function.__closure__ is None and type(declared) is tuple
            and all(isinstance(f, types.FunctionType) and os.path.realpath(
                f.__code__.co_filename) in sources for f in declared))


# -- functions given from Python -------------------------------------------------------------
def check_callable(function: object, where: str) -> None:
    """Check the function ``function`` given from Python (module docstring); a refusal is a
    :class:`ModelError` at ``where``."""
    try:
        _Functions().check(function)
    except Refusal as refusal:
        raise ModelError(f"{refusal}{_TRUSTED}", where) from None


class _Functions:
    def __init__(self) -> None:
        self.done: set[int] = set()
        self.primitives, self.imports = _primitives(), _imports()

    def check(self, function: object, name: str = "the program") -> None:
        if id(function) in self.done:
            return
        if not isinstance(function, types.FunctionType):
            raise Refusal("<python>", 0, f"{name} ({_describe(function)})", "only a plain Python "
                          "function can be checked (a wrapper, a method or a callable object "
                          "can keep state)", "a def or a lambda")
        self.done.add(id(function))
        code = function.__code__
        extra = set(function.__dict__) - {"stepwise"}
        if extra:
            raise Refusal(code.co_filename, code.co_firstlineno, f"the attribute "
                          f".{sorted(extra)[0]} of {code.co_name}", "an attribute of a function "
                          "outlives the run and can keep state or hide the function it wraps",
                          "a plain function")
        for value in list(function.__defaults__ or ()) + list(
                (function.__kwdefaults__ or {}).values()):
            if not immutable(value):
                raise Refusal(code.co_filename, code.co_firstlineno, "a mutable default "
                              f"argument of {code.co_name}", "it is created once and shared by "
                              "every run, so it keeps state between runs", "None and build it "
                              "inside the function")
        declared = function.__dict__.get("stepwise")
        if declared is not None:
            parts = declared if type(declared) is tuple else tuple(
                getattr(declared, part, None) for part in ("start", "step", "finish"))
            for part in parts:
                self.check(part, "a function of the stepwise declaration")
        node, offset = _node(function)
        for decorator in getattr(node, "decorator_list", ()):
            self._decorator(decorator, function)
        cells = dict(zip(code.co_freevars, function.__closure__ or ()))
        language.check_function(_shifted(node, offset), code.co_filename,
                                lambda n, at: self._free(n, at, function, cells))

    def _decorator(self, decorator, function):
        from pufferfish.models.programs.steps import stepwise
        head = decorator.func if isinstance(decorator, ast.Call) else decorator
        if not (isinstance(head, ast.Name) and function.__globals__.get(head.id) is stepwise):
            raise Refusal(function.__code__.co_filename, decorator.lineno, "a decorator",
                          "it can replace the function by an object that keeps state "
                          "(functools.lru_cache caches runs)", "a plain def (or the toolkit's "
                          "stepwise declaration)")

    def _free(self, name: str, at, function, cells) -> str:
        file = function.__code__.co_filename
        if name in cells:
            try:
                value = cells[name].cell_contents
            except ValueError:
                raise Refusal(file, at.lineno, f"the name {name}", "it is not bound yet when "
                              "the program is given", "a name defined before") from None
        elif name in function.__globals__:
            value = function.__globals__[name]
        elif name in language.BUILTINS:
            return "builtin"
        elif name in language.REFUSED:
            raise Refusal(file, at.lineno, f"{name}()", *language.REFUSED[name])
        else:
            raise Refusal(file, at.lineno, f"the name {name}", "it is not defined where the "
                          "program is", "a name the program defines or imports")
        if immutable(value):
            return "constant"
        if id(value) in self.primitives:
            return "primitive"
        if value is math:
            return "math"
        if value is Fraction:
            return "Fraction"
        if id(value) in self.imports:
            return "import"
        if name in language.BUILTINS and value is getattr(builtins, name, None):
            return "builtin"
        if isinstance(value, types.FunctionType):
            self.check(value, name)
            return "function"
        kind = "a module" if isinstance(value, types.ModuleType) else _describe(value)
        raise Refusal(file, at.lineno, f"the name {name} ({kind} defined outside the program)",
                      "a value that is not an immutable constant, a primitive or a checked "
                      "function can hold state that outlives a run, or reach the process",
                      "it as an argument of the program (arguments are frozen), or a tuple")


def _node(function: types.FunctionType) -> tuple[ast.AST, int]:
    """The ``def`` or ``lambda`` node of ``function`` and the line offset of its tree."""
    code = function.__code__
    try:
        lines, _ = inspect.findsource(code)
    except (OSError, TypeError):
        raise Refusal(code.co_filename, code.co_firstlineno, f"the function {code.co_name}",
                      "its source is not available (built by exec, or typed where no source "
                      "is kept), so it cannot be checked", "it in a file, or pass trusted=True "
                      "if you trust it") from None
    candidates = [("".join(lines), 0)]
    try:
        block, start = inspect.getsourcelines(code)
        candidates.append((textwrap.dedent("".join(block)), start - 1))
    except (OSError, TypeError):
        pass
    wanted = [a for a in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]]
    for text, offset in candidates:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        found = [n for n in ast.walk(tree) if _is(n, code, offset, wanted)]
        if len(found) == 1:
            return found[0], offset
    raise Refusal(code.co_filename, code.co_firstlineno, f"the function {code.co_name}",
                  "its source could not be told apart from others on its line", "it as a def")


def _is(node, code, offset, wanted) -> bool:
    if code.co_name == "<lambda>":
        if not isinstance(node, ast.Lambda) or node.lineno + offset != code.co_firstlineno:
            return False
    elif not isinstance(node, ast.FunctionDef) or node.name != code.co_name or min(
            [node.lineno] + [d.lineno for d in node.decorator_list]) + offset != \
            code.co_firstlineno:
        return False
    args = node.args
    return [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs] == wanted


def _shifted(node, offset: int):
    if offset:
        for child in ast.walk(node):
            if hasattr(child, "lineno"):
                child.lineno += offset
    return node


# -- arguments -------------------------------------------------------------------------------
class FrozenDict(dict):
    """A dict a program cannot change (an argument of a checked program).

    >>> FrozenDict({"a": 1})["a"]
    1
    """

    def _refused(self, *args, **kwargs):
        """Refused: a change of a program's argument would outlive the run."""
        raise TypeError("an argument of a program cannot be changed: a change would outlive "
                        "the run (copy it with dict(...) first)")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refused
    __ior__ = _refused

    def __reduce__(self):
        return (FrozenDict, (dict(self),))


def frozen_arguments(arguments: dict, where: str) -> dict:
    """``arguments`` with every list a tuple and every dict a :class:`FrozenDict` (recursively);
    a set, or an object that is not a constant, a primitive or a checked function, is a
    :class:`ModelError` at ``where``.

    >>> frozen_arguments({"xs": [1, [2]]}, "m")
    {'xs': (1, (2,))}
    """
    primitives = _primitives()

    def frozen(value, name):
        if type(value) in (list, tuple):
            return tuple(frozen(v, name) for v in value)
        if type(value) in (dict, FrozenDict):
            return FrozenDict({k: frozen(v, name) for k, v in value.items()})
        if immutable(value) or id(value) in primitives or type(value).__name__ == \
                "EpsilonSymbol":
            return value
        if isinstance(value, types.FunctionType):
            check_callable(value, f"{where}.{name}")
            return value
        why = ("the iteration order of a set of strings depends on the hash seed; pass a "
               "sorted list" if isinstance(value, (set, frozenset)) else "a program's arguments "
               "must be constants (numbers, strings, lists and dicts of them) or functions")
        raise ModelError(f"argument {name!r} is {_describe(value)}: {why}{_TRUSTED}", where)

    return {name: frozen(value, name) for name, value in arguments.items()}
