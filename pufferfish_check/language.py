"""The program language: the Python a mechanism's program may be written in, checked over ``ast``.

The toolkit computes a program's exact law by *replay*: it runs the program once per sequence of
decisions of its draws.  That law is the mechanism's only if the program is a deterministic
function of its arguments and its draws.  A program in this language is one, by construction.

The language is a whitelist over Python's :mod:`ast`, a hermetic, deterministic dialect in the
spirit of Starlark (The Starlark language specification, bazelbuild/starlark, spec.md: no global
state after loading, no I/O, no clock).  The rules are the tables below and docs/programs.md,
"The program language"; every refusal is a :class:`Refusal` naming the file, the line, the
construct, why it could make a verdict wrong and what to write instead.

Why not RestrictedPython: a whitelist over ``ast`` states in one screen what a program can reach,
each accepted construct plain Python; RestrictedPython rewrites code and guards attributes at run
time through hooks the host supplies, and admits classes, ``try`` and most of Python — each a
further argument to make.

THE DETERMINISM ARGUMENT.  A program's result can depend only on what its code reads.  (1) Its
module's bindings are immutable constants, checked functions and allowed imports (checked again
on the imported module), and no code can rebind them: there is no ``global``, ``nonlocal``,
attribute assignment (but the declaration at load), ``exec`` nor dunder access (``__dict__``,
``__globals__``, ``__defaults__``, ``__builtins__``).  (2) Defaults are immutable constants, so a
function holds no state between calls; locals and closures die with the call.  (3) No name
reaches the world: no I/O, clock, OS, thread, ``hash``, ``id``, reflection or module attribute
(``math`` is pure); helper modules obey the same rules.  (4) Iteration orders are fixed: dicts
keep insertion order, and sets — whose order of strings depends on the hash seed — cannot be
built (no set literal, ``set``, ``frozenset``, nor a dict view outside iteration, where ``&``
would make one).  (5) Integer, ``Fraction`` and IEEE float arithmetic are deterministic.  (6) The
primitives are the only source of randomness, and ``try`` is refused so no signal of the engine
can be swallowed.  Hence a run is a function of the arguments (frozen by the toolkit) and the
draws.  The one value left outside the argument is the text of an object whose ``repr`` is its
address (``str`` of a function or an iterator); a program that decides on it is out of the
language's promise.

>>> check_source("from pufferfish.models.programs import coin\\n"
...              "def f(data):\\n    return data[0] if coin('1/2') else 0\\n", "ok.py")
>>> try:
...     check_source("def f(data, seen=[]):\\n    seen.append(1)\\n", "bad.py")
... except Refusal as refusal:
...     print(refusal.line, refusal.construct, "--", refusal.instead)
1 a mutable default argument -- None and build the list inside the function
"""

from __future__ import annotations

import ast
import math
import sys
from pathlib import Path

__all__ = ["Refusal", "PRIMITIVES", "BUILTINS", "REFUSED", "ATTRIBUTES", "MATH", "ITERTOOLS",
           "check_file", "check_source", "check_function"]

PRIMITIVES = frozenset("coin choice uniform exponential_mechanism geometric one_sided_geometric "
                       "discrete_laplace laplace exponential gaussian discrete_gaussian "
                       "EpsilonSymbol EPSILON".split())
"""The names a program may import from ``pufferfish.models.programs``."""

_EXCEPTIONS = set("Exception ValueError TypeError ArithmeticError ZeroDivisionError IndexError "
                  "KeyError LookupError AssertionError RuntimeError NotImplementedError "
                  "OverflowError".split())
BUILTINS = frozenset("abs all any bool callable chr dict divmod enumerate filter float int "
                     "isinstance iter len list map max min next ord pow range repr reversed round "
                     "sorted str sum tuple zip True False None".split()) | _EXCEPTIONS
"""The builtins a program may name (pure functions and types, and exceptions to raise)."""

_SET = ("the iteration order of a set of strings depends on the hash seed",
        "a tuple, a sorted list or dict.fromkeys")
_STATE = "it reaches state outside the run (the interpreter, the process or the toolkit)"
REFUSED = {
    "hash": ("the hash of a string changes with the process's hash seed", "a comparison or "
             "a sort of the values, or a dict keyed by them"),
    "id": ("an object's identity is its address, which changes between runs", "=="),
    "print": ("it is output the toolkit does not see", "return it instead (a program's output "
              "is what it returns)"),
    "input": ("it reads the terminal", "an argument of the program"),
    "open": ("it reads or writes files (/dev/urandom is random)", "an argument of the program"),
    "set": _SET, "frozenset": _SET,
    "format": ("a format can read attributes of a value", "an f-string"),
    **{name: (_STATE, "the values themselves") for name in (
        "exec eval compile getattr setattr delattr hasattr globals locals vars dir __import__ "
        "breakpoint type object super memoryview classmethod staticmethod property help exit "
        "quit issubclass bytearray aiter anext").split()}}
MATH = frozenset(name for name in dir(math) if not name.startswith("_"))
"""The names of :mod:`math` a program may use: all public ones (pure functions, constants)."""
ITERTOOLS = frozenset("product combinations combinations_with_replacement permutations accumulate "
                      "chain islice starmap groupby zip_longest pairwise compress dropwhile "
                      "takewhile filterfalse".split())
"""The functions of :mod:`itertools` a program may import (not ``count``, ``cycle``,
``repeat``: a shared one is a counter)."""
ATTRIBUTES = frozenset(
    "append extend insert pop remove clear index count get items keys values setdefault update "
    "copy sort reverse popitem fromkeys join split rsplit strip lstrip rstrip startswith endswith "
    "lower upper replace find rfind partition rpartition zfill ljust rjust center isdigit isalpha "
    "isalnum isspace title capitalize splitlines numerator denominator limit_denominator "
    "bit_length bit_count as_integer_ratio is_integer real imag conjugate".split())
"""The attributes of values a program may read (pure methods and properties)."""
_VIEW_USES = set("list tuple sorted enumerate zip len dict min max sum any all map filter "
                 "reversed".split())
_STATEMENTS = tuple(getattr(ast, n) for n in "FunctionDef Return Assign AugAssign AnnAssign For "
                    "While If Break Continue Pass Expr Assert Raise Delete".split())
_EXPRESSIONS = tuple(getattr(ast, n) for n in (
    "BoolOp BinOp UnaryOp Lambda IfExp Dict List Tuple ListComp DictComp GeneratorExp Compare Call "
    "Constant Attribute Subscript Starred Name Slice JoinedStr FormattedValue NamedExpr "
    "expr_context operator boolop unaryop cmpop comprehension keyword arguments arg").split())
_GENERATOR = ("a generator keeps a suspended run the engine cannot replay",
              "a function that returns a list")
_RULES = {  # construct -> (its name, why it could make a verdict wrong, what to write instead)
    ast.Global: ("global", "a global keeps state between runs", "a return of the value"),
    ast.Nonlocal: ("nonlocal", "a nonlocal keeps state between calls", "a return of the value"),
    ast.Try: ("try", "it could catch the engine's signals and hide a refused draw", "an if that "
              "tests the condition"),
    ast.With: ("with", "a context manager reaches state outside the run", "plain calls"),
    ast.ClassDef: ("a class", "a class and its instances can keep state between runs",
                   "functions, tuples and dicts"),
    ast.Import: ("import inside a function", "a module can hold state", "the import at the top"),
    ast.ImportFrom: ("import inside a function", "a module can hold state", "the import at the "
                     "top"),
    ast.Yield: ("yield", *_GENERATOR), ast.YieldFrom: ("yield from", *_GENERATOR),
    ast.Await: ("await", "a coroutine runs outside the replay", "a plain function"),
    ast.Set: ("a set literal", *_SET), ast.SetComp: ("a set comprehension", *_SET),
}


class Refusal(Exception):
    """A construct outside the language (``file``, ``line``, ``construct``, ``why``, ``instead``);
    ``str()``: ``FILE, line N: CONSTRUCT is not allowed in a program: WHY; write INSTEAD``."""

    def __init__(self, file: str, line: int, construct: str, why: str, instead: str) -> None:
        self.file, self.line, self.construct, self.why, self.instead = file, line, construct, \
            why, instead
        super().__init__(f"{file}, line {line}: {construct} is not allowed in a program: {why}; "
                         f"write {instead}")


def _rule(node: ast.AST, where: str) -> tuple[str, str, str]:
    return _RULES.get(type(node), (f"'{type(node).__name__.lower()}'",
                                   "it is outside the language", f"plain {where}"))


class _Checker:
    """One module (``bindings``: name -> kind) or one function (``resolve``: a free name -> its
    kind)."""

    def __init__(self, file: str, bindings: dict | None = None, resolve=None) -> None:
        self.file, self.bindings, self.resolve, self.future = file, bindings or {}, resolve, False

    def refuse(self, node, *reason):
        raise Refusal(self.file, getattr(node, "lineno", 0), *reason)

    def kind(self, name, node, scopes):
        if any(name in scope for scope in scopes):
            return "local"
        if name.startswith("__") and name.endswith("__"):
            self.refuse(node, f"the name {name}", "a dunder name reaches the interpreter's "
                        "internals (the module, its builtins, the loader)", "plain names")
        if name in self.bindings:
            return self.bindings[name]
        if self.resolve is not None:
            return self.resolve(name, node)
        if name in BUILTINS:
            return "builtin"
        if name in REFUSED:
            self.refuse(node, f"{name}()", *REFUSED[name])
        self.refuse(node, f"the name {name}", "it is not the program's, an import's or an "
                    "allowed builtin's", "a name the program defines or imports")

    def function(self, node, scopes):
        if getattr(node, "decorator_list", None):
            self.refuse(node, "a decorator", "it can replace the function by an object that "
                        "keeps state (functools.lru_cache caches runs)", "a plain def")
        args = node.args
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.default(default)
        arguments = args.posonlyargs + args.args + args.kwonlyargs + [
            a for a in (args.vararg, args.kwarg) if a is not None]
        params = {a.arg for a in arguments}
        for annotation in [a.annotation for a in arguments] + [getattr(node, "returns", None)]:
            if annotation is not None and not self.future:  # evaluated when the def runs
                self.expression(annotation, scopes)
        body = node.body if isinstance(node.body, list) else [node.body]
        scope = params | _bound(body)
        for statement in body:
            if isinstance(node, ast.Lambda):
                self.expression(statement, scopes + [scope])
            else:
                self.statement(statement, scopes + [scope])

    def default(self, node):
        if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                             ast.SetComp)) or (isinstance(node, ast.Call) and isinstance(
                                 node.func, ast.Name) and node.func.id in ("list", "dict", "set")):
            self.refuse(node, "a mutable default argument", "it is created once and shared by "
                        "every run, so it keeps state between runs", "None and build the list "
                        "inside the function")
        if not self.constant(node):
            self.refuse(node, "this default argument", "a default is evaluated once and shared "
                        "by every run", "a constant (a number, a string, a tuple of them)")

    def constant(self, node) -> bool:
        if isinstance(node, (ast.Constant, ast.Tuple, ast.UnaryOp, ast.BinOp)):
            return all(map(self.constant, [c for c in ast.iter_child_nodes(node)
                                           if isinstance(c, ast.expr)]))
        if isinstance(node, ast.Name):
            return self.bindings.get(node.id) == "constant" or (
                self.resolve is not None and self.resolve(node.id, node) == "constant")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            return self.bindings.get(node.value.id) == "math" and node.attr in MATH
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and self.bindings.get(node.func.id) == "Fraction" and not node.keywords
                and all(map(self.constant, node.args)))

    def statement(self, node, scopes):
        if not isinstance(node, _STATEMENTS):
            self.refuse(node, *_rule(node, "statements"))
        if isinstance(node, ast.FunctionDef):
            return self.function(node, scopes)
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for target in getattr(node, "targets", None) or [node.target]:
                self.target(target, scopes)
        if isinstance(node, ast.Delete):
            for target in node.targets:
                if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                        and self.kind(target.value.id, target, scopes) == "local"):
                    self.refuse(node, "del of this target", "only a subscript of a local may be "
                                "deleted", "del items[i] on a local list or dict")
                self.expression(target.slice, scopes)
            return
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if not (isinstance(exc, ast.Name) and exc.id in _EXCEPTIONS):
                self.refuse(node, "raise of this exception", "only the builtin exceptions "
                            "Exception, ValueError, ... may be raised (the engine's signals "
                            "must stay its own)", f"raise ValueError(...)")
        if isinstance(node, ast.For):
            self.target(node.target, scopes)
        for field, value in ast.iter_fields(node):
            if field in ("targets", "target", "annotation"):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.stmt):
                    self.statement(child, scopes)
                elif isinstance(child, ast.expr):
                    self.expression(child, scopes, node)

    def target(self, node, scopes):
        if isinstance(node, ast.Attribute):
            self.refuse(node, f"assignment to the attribute .{node.attr}", "an attribute of an "
                        "object outlives the run and keeps state", "a local variable")
        if isinstance(node, (ast.Tuple, ast.List)):
            for element in node.elts:
                self.target(element, scopes)
        elif isinstance(node, ast.Starred):
            self.target(node.value, scopes)
        elif isinstance(node, ast.Subscript):
            self.expression(node, scopes)

    def expression(self, node, scopes, parent=None):
        if not isinstance(node, _EXPRESSIONS):
            self.refuse(node, *_rule(node, "expressions"))
        if isinstance(node, ast.Lambda):
            return self.function(node, scopes)
        if isinstance(node, (ast.ListComp, ast.DictComp, ast.GeneratorExp)):
            inner = scopes + [set()]
            for generator in node.generators:
                self.expression(generator.iter, inner, generator)
                inner[-1] |= {n.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
                self.target(generator.target, inner)
                for condition in generator.ifs:
                    self.expression(condition, inner)
            for part in ([node.key, node.value] if isinstance(node, ast.DictComp)
                         else [node.elt]):
                self.expression(part, inner)
            return
        if isinstance(node, ast.Name):
            self.kind(node.id, node, scopes)
            return
        if isinstance(node, ast.Attribute):
            return self.attribute(node, scopes, parent)
        if isinstance(node, ast.Compare):
            for op, right in zip(node.ops, node.comparators):
                if isinstance(op, (ast.Is, ast.IsNot)) and not any(
                        isinstance(side, ast.Constant) and side.value in (None, True, False)
                        for side in (node.left, right)):
                    self.refuse(node, "'is' between values", "identity depends on how the "
                                "interpreter allocated the values", "==")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("keys", "items"):
            self.attribute(node.func, scopes, parent, call=True)
            for child in node.args + [k.value for k in node.keywords]:
                self.expression(child, scopes, node)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expression(child, scopes, node)
            elif isinstance(child, ast.keyword):
                self.expression(child.value, scopes, node)

    def attribute(self, node, scopes, parent, call=False):
        name, base = node.attr, node.value
        if not isinstance(base, ast.Name):  # the inner expression first: its refusal is the cause
            self.expression(base, scopes, node)
        if name.startswith("__"):
            self.refuse(node, f"the attribute .{name}", "a dunder attribute reaches the "
                        "interpreter's internals (defaults, globals, wrapped original, class)",
                        "plain values")
        kind = self.kind(base.id, base, scopes) if isinstance(base, ast.Name) else "value"
        if kind == "math":
            return name in MATH or self.refuse(node, f"math.{name}", "it is not in math", "a "
                                               "function of math")
        if kind not in ("local", "value", "constant", "builtin"):  # dict.fromkeys, str.join
            self.refuse(node, f"the attribute .{name} of {base.id}", "an attribute of an "
                        "imported module, class or function can reach state outside the run",
                        "the imported name itself (from MODULE import NAME)")
        if name in ("format", "format_map"):
            self.refuse(node, f".{name}", "a format string can read any attribute of its "
                        "arguments ('{0.__class__}')", "an f-string")
        if name not in ATTRIBUTES:
            self.refuse(node, f"the attribute .{name}", "only the pure methods and properties "
                        "of values are allowed (append, get, items, join, numerator, ...)",
                        "one of those, or a function")
        if name in ("keys", "items") and not (call and (
                isinstance(parent, (ast.comprehension, ast.For)) or (
                    isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name)
                    and parent.func.id in _VIEW_USES
                    and self.kind(parent.func.id, parent, scopes) == "builtin"))):
            self.refuse(node, f".{name}() outside a loop", "a dict view makes a set with & | ^ "
                        "-, whose order of strings depends on the hash seed", "for k in "
                        f"d.{name}(), or list(d.{name}())")


def _bound(body) -> set:
    """The names a function body binds (not entering nested functions nor comprehensions)."""
    bound, todo = set(), list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.Lambda, ast.comprehension)):
            bound |= {node.name} if isinstance(node, ast.FunctionDef) else set()
            todo += [node.iter, *node.ifs] if isinstance(node, ast.comprehension) else []
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return bound


_IMPORTS = {"fractions": {"Fraction"}, "math": MATH, "itertools": ITERTOOLS,
            "functools": {"reduce"}, "__future__": {"annotations"},
            "pufferfish.models.programs": PRIMITIVES}
_OUTSIDE = (" is outside the language: it can hold state, read the clock or the system, or draw "
            "randomness the engine does not see")
_INSTEAD_IMPORT = ("from pufferfish.models.programs import coin (the primitives), from fractions "
                   "import Fraction, import math, from itertools import product, or from HELPER "
                   "import NAME of a HELPER.py next to the program")


def _module(source: str, filename: str, sibling_bindings) -> dict:
    """Check one module; its bindings (name -> kind).  ``sibling_bindings(module, line)`` gives
    a helper module's bindings (checking it) or refuses."""
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as error:
        raise Refusal(filename, error.lineno or 0, "a syntax error", error.msg,
                      "valid Python") from None
    checker = _Checker(filename)
    bindings, functions = checker.bindings, []
    refuse = checker.refuse
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(getattr(node.value, "value", 0), str):
            continue  # a docstring
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name != "math":
                    refuse(node, f"import {alias.name}", f"module {alias.name}{_OUTSIDE}",
                           _INSTEAD_IMPORT)
                bindings[alias.asname or "math"] = "math"
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level or any(alias.name == "*" for alias in node.names):
                refuse(node, f"this import from {module or '.'}", "a relative or star import "
                       "hides what the program names", _INSTEAD_IMPORT)
            allowed = _IMPORTS.get(module)
            if allowed is None and ("." in module or module in sys.stdlib_module_names
                                    or module.split(".")[0] == "pufferfish"):
                refuse(node, f"from {module} import ...", f"module {module}{_OUTSIDE}",
                       _INSTEAD_IMPORT)
            theirs = sibling_bindings(module, node.lineno) if allowed is None else None
            for alias in node.names:
                if allowed is not None and alias.name not in allowed:
                    why = ("it is not a primitive: a program reaches the engine only through "
                           "its draws" if module == "pufferfish.models.programs" else
                           "it is not in the language's list of pure names of that module")
                    refuse(node, f"from {module} import {alias.name}", why,
                           f"one of {', '.join(sorted(allowed))}")
                if module == "__future__":
                    checker.future = True
                    continue
                if theirs is not None and alias.name not in theirs:
                    refuse(node, f"from {module} import {alias.name}", f"{module} defines no "
                           f"constant or function {alias.name}", "a name the helper defines")
                kind = (theirs[alias.name] if theirs is not None else "primitive"
                        if module.startswith("pufferfish") else "Fraction"
                        if alias.name == "Fraction" else "constant"
                        if alias.name in ("pi", "e", "inf", "nan", "tau") else "import")
                bindings[alias.asname or alias.name] = kind
        elif isinstance(node, ast.FunctionDef):
            if node.decorator_list:
                checker.function(node, [])
            bindings[node.name] = "function"
            functions.append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], ast.Attribute):
            target = node.targets[0]
            if not (target.attr == "stepwise" and isinstance(target.value, ast.Name)
                    and bindings.get(target.value.id) == "function"
                    and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 3
                    and all(isinstance(e, ast.Name) and bindings.get(e.id) in
                            ("function",) for e in node.value.elts)):
                refuse(node, f"assignment to the attribute .{target.attr}", "an attribute "
                       "outlives the run and keeps state (but the stepwise declaration)",
                       "f.stepwise = (start, step, finish) of three functions of the module")
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            names = [t.id for t in node.targets]
            if names == ["__all__"] and isinstance(node.value, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str)
                    for e in node.value.elts):
                continue
            for name in names:
                if name.startswith("__"):
                    checker.kind(name, node, [])  # refuses: a dunder binding
            if not checker.constant(node.value):
                mutable = isinstance(node.value, (ast.List, ast.Dict, ast.Set, ast.ListComp))
                refuse(node, "a module-level " + ("list, dict or set" if mutable else "value that "
                       "is not a constant"), "module bindings outlive the run: a mutable one (a "
                       "counter, a cache) keeps state between runs, a call at import reaches "
                       "anything", "a tuple or another constant, or build it in the function")
            bindings.update(dict.fromkeys(names, "constant"))
        else:
            refuse(node, *_RULES.get(type(node), (
                f"a module-level {type(node).__name__.lower()}", "only imports, constants, "
                "functions and the stepwise declaration may be at the top of a program; code "
                "there runs once, outside the replay", "it inside a function")))
    for node in functions:
        checker.function(node, [])
    return bindings


def _program(path: Path, source: str | None = None) -> tuple[dict, list[Path]]:
    """Check the module ``path`` (its text ``source``, or the file's) and its helpers; the
    module's bindings and the files checked."""
    done: dict[Path, dict] = {}
    order: list[Path] = []

    def visit(file: Path, text: str | None) -> dict:
        real = file.resolve()
        if text is None and not real.is_file():  # a named pipe would block the read forever
            raise Refusal(str(file), 0, "a program that is not a regular file", "its text "
                          "could change or never end while it is read", "a .py file")
        if real not in done:
            done[real] = {}  # an import cycle sees no names yet (and fails to import)
            order.append(file)
            done[real] = _module(file.read_text(encoding="utf-8") if text is None else text,
                                 str(file), lambda module, line: visit(
                                     _sibling(file, module, line), None))
        return done[real]

    def _sibling(file: Path, module: str, line: int) -> Path:
        if not (file.parent / f"{module}.py").is_file():
            raise Refusal(str(file), line, f"from {module} import ...", f"there is no "
                          f"{module}.py next to the program, and other modules are outside the "
                          "language", _INSTEAD_IMPORT)
        return file.parent / f"{module}.py"

    return visit(path, source), order


def check_source(source: str, filename: str) -> None:
    """Check the program text ``source`` named ``filename`` (its helper modules are the files
    ``NAME.py`` next to ``filename``, checked too).  Raises :class:`Refusal`."""
    _program(Path(filename), source)


def check_file(path, function: str | None = None) -> list[Path]:
    """Check the program file ``path`` and, recursively, the helper modules it imports (files
    ``NAME.py`` in its folder); the files checked, ``path`` first.  With ``function``, the module
    must define that function.  Raises :class:`Refusal`."""
    bindings, files = _program(Path(path))
    if function is not None and bindings.get(function) != "function":
        raise Refusal(str(path), 1, f"a program without {function}()", "the model names a "
                      "function the file does not define", f"def {function}(...) in the file")
    return files


def check_function(node, filename: str, resolve) -> None:
    """Check a function given from Python (a ``def`` or ``lambda`` node, decorators left to the
    caller): its free names by ``resolve(name, node)``, the kind of the name's value
    (``"constant"``, ``"function"``, ``"primitive"``, ``"math"``, ``"import"``, ``"builtin"``) or
    a :class:`Refusal`."""
    checker = _Checker(filename, {}, resolve)
    checker.future = True  # annotations of a function given from Python were evaluated already
    if isinstance(node, ast.FunctionDef):
        node = ast.FunctionDef(node.name, node.args, node.body, [], node.returns,
                               lineno=node.lineno)
    checker.function(node, [])
