"""Parametric Pufferfish models: probabilities that are rational functions of a few parameters.

A model file may declare parameters with closed ranges, ``"parameters": {"p": ["1/2", "1"]}``
(both ends included; ``low <= high``, a point range is allowed), and write any probability of a
``table``/``independent``/``markov`` prior, of a ``table`` mechanism, of a ``postprocess`` map,
a randomized-response ``keep``, a geometric ``alpha`` or an interval family's block bounds
``"mass": [lower, upper]`` as a rational expression in them:
``"p"``, ``"1-p"``, ``"(1-q)/2"``, ``"p**2"``.  The grammar is ``+ - * /``, ``**`` with an integer
exponent, parentheses, integer and decimal numerals (read as exact rationals) and declared
parameter names; nothing else is parsed (no function calls, no floats).

Validation is symbolic, over the whole box of parameter values:

* every distribution (a prior's table, an attribute's values, a Markov row, a mechanism row, a
  post-processing row) sums to 1 *identically*, as a rational function;
* every interval of an interval family (Bai et al., Composition for Pufferfish Privacy, §4,
  Example 4.3) is nonempty on the whole box, ``lower <= upper``, and admits a distribution,
  ``Σ lower <= 1 <= Σ upper`` (proved as the entries are, its ends being entries in [0, 1]);
* every entry is defined and nonnegative on the whole box (``alpha`` strictly below 1):
  proved exactly for one parameter (real-root isolation of the numerator and denominator,
  :mod:`pufferfish.models.polynomials`), and for several by rational interval bounds on boxes
  bisected at most :data:`SUBDIVISION_DEPTH` times;
* otherwise a located :class:`ModelError` names the entry and a rational parameter value where
  it fails (or, for several parameters, the box where it could not be proved).

A parametric model is instantiated at a point of its box with :meth:`ParametricModel.instantiate`
(the ordinary exact model, validated as usual); the symbolic computations of
:mod:`pufferfish.verify.symbolic` read its expressions with :meth:`ParametricModel.expression`.
Cost of validation: one sympy ``cancel`` per distribution, one root isolation (one parameter) or
at most ``2^(depth·k)`` interval bounds (k parameters) per distinct entry.

>>> data = {"pufferfish_model": 1, "parameters": {"p": ["1/2", "1"]}, "attributes": ["x"],
...         "domain": [0, 1], "datasets": "all", "priors": {"u": {"uniform": True}},
...         "secrets": {"a": {"where": {"x": 0}}, "b": {"where": {"x": 1}}}, "pairs": [["a", "b"]],
...         "mechanisms": {"rr": {"per_entry": {"randomized_response": {"keep": "p"}}}}}
>>> model = parse_parametric_model(data)
>>> model.box.names, model.expression(("mechanisms", "rr", "per_entry", "randomized_response", "keep"))
(('p',), p)
>>> model.instantiate({"p": Fraction(3, 4)}).mechanisms["rr"].keep
Fraction(3, 4)
>>> data["mechanisms"]["rr"]["per_entry"]["randomized_response"]["keep"] = "2*p"
>>> parse_parametric_model(data)
Traceback (most recent call last):
...
pufferfish.models.errors.ModelError: mechanisms.rr.per_entry.randomized_response.keep: 1 - (2*p) is negative at p = 1, so this is not a probability over the whole range p in [1/2, 1]
"""

from __future__ import annotations

import ast
import copy
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # sympy is imported where it is used: a model without parameters never loads it
    import sympy

from pufferfish.models.errors import ModelError, join_path
from pufferfish.models.files.json_io import read_json_file
from pufferfish.models.files.pufferfish_file import parse_model
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import exact
from pufferfish.models.parameter_box import (PARAMETER_NAME, SUBDIVISION_DEPTH, ParameterBox,
                                            nonnegativity_failure, nonzero_point, parse_parameters,
                                            substitution)
from pufferfish.models.polynomials import fraction_text
from pufferfish.models.universe import DEFAULT_MAX_DATASETS

__all__ = ["ParameterBox", "ParametricModel", "parse_parameters", "parse_expression",
           "parse_parametric_model", "load_parametric_model", "load_model_at", "load_free_parameters",
           "parse_assignments",
           "SYMBOLIC_COMMANDS", "SUBDIVISION_DEPTH"]

SYMBOLIC_COMMANDS = "`pufferfish audit MODEL --symbolic` and `pufferfish region MODEL --epsilon E`"
"""The commands that accept a parametric model as it is."""


def parse_expression(text: object, box: ParameterBox, path: str) -> sympy.Expr:
    """A probability: an exact number (as :func:`exact` reads it) or a rational expression in the
    box's parameters, as a sympy expression with exact rational numbers.

    >>> box = parse_parameters({"p": [0, 1]})
    >>> parse_expression("(1-p)/2", box, "x"), parse_expression("0.5*p", box, "x")
    (1/2 - p/2, p/2)
    >>> parse_expression("q", box, "x")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: x: parameter 'q' is used but not declared; declare it under "parameters" (declared: p)
    """
    import sympy

    if not isinstance(text, str):
        value = exact(text, path)
        return sympy.Rational(value.numerator, value.denominator)
    try:
        value = exact(text, path)
        return sympy.Rational(value.numerator, value.denominator)
    except ModelError:
        pass
    if len(text) > 10_000:
        raise ModelError("an expression may have at most 10,000 characters", path)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise ModelError(f"{text!r} is neither an exact number nor an expression in the "
                         f"parameters", path) from None
    symbols = dict(zip(box.names, box.symbols))
    return _expression(tree.body, text.strip(), symbols, path)


def _expression(node: ast.AST, source: str, symbols: dict, path: str) -> sympy.Expr:
    import sympy
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        left = _expression(node.left, source, symbols, path)
        right = _expression(node.right, source, symbols, path)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if right == 0:
            raise ModelError(f"{source!r} divides by zero", path)
        return left / right
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exponent = node.right
        negative = isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub)
        literal = exponent.operand if negative else exponent
        if not (isinstance(literal, ast.Constant) and type(literal.value) is int and literal.value <= 64):
            raise ModelError(f"in {source!r}, an exponent must be an integer between -64 and 64",
                             path)
        return _expression(node.left, source, symbols, path) ** (-literal.value if negative
                                                                  else literal.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _expression(node.operand, source, symbols, path)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        literal = ast.get_source_segment(source, node) or ""
        value = exact(literal, path)
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(node, ast.Name):
        if node.id not in symbols:
            raise ModelError(f"parameter {node.id!r} is used but not declared; declare it under "
                             f"\"parameters\" (declared: {', '.join(symbols)})", path)
        return symbols[node.id]
    raise ModelError(f"{source!r} is not a rational expression: only numbers, declared "
                     f"parameters, + - * /, ** with an integer exponent and parentheses are "
                     f"allowed", path)


# --------------------------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------------------------

Path = tuple
"""A location in the model file, as a tuple of keys and list indices."""


@dataclass(frozen=True)
class ParametricModel:
    """A model file whose probabilities may depend on the parameters of ``box``.

    ``data`` is the decoded file (without ``"parameters"``), ``expressions`` every probability
    slot (parametric or not) as a sympy expression, keyed by its location.
    """

    data: dict
    box: ParameterBox
    expressions: dict = field(repr=False)

    def expression(self, location: Path) -> sympy.Expr:
        """The probability written at ``location``."""
        return self.expressions[tuple(location)]

    @property
    def parametric_locations(self) -> list[Path]:
        symbols = set(self.box.symbols)
        return [loc for loc, e in self.expressions.items() if e.free_symbols & symbols]

    def instantiate(self, values: Mapping[str, object], *,
                    max_datasets: int = DEFAULT_MAX_DATASETS) -> PufferfishModel:
        """The exact model at a point of the box (every parameter given, inside its range)."""
        import sympy

        point = self.check_point(values)
        substitution = {s: sympy.Rational(point[n].numerator, point[n].denominator)
                        for n, s in zip(self.box.names, self.box.symbols)}
        data = copy.deepcopy(self.data)
        for location in self.expressions:
            value = self.expressions[location].xreplace(substitution)
            _assign(data, location, fraction_text(Fraction(int(value.p), int(value.q))))
        return parse_model(data, max_datasets=max_datasets)

    def restrict(self, values: Mapping[str, object]) -> "ParametricModel":
        """The model with some parameters fixed (each inside its range); the others stay free.
        Fixing all of them is :meth:`instantiate`."""
        import sympy

        fixed = {}
        for name, value in values.items():
            if name not in self.box.names:
                raise ModelError(f"the model has no parameter {name!r} (its parameters: "
                                 f"{', '.join(self.box.names)})", "--set")
            index = self.box.names.index(name)
            number = exact(value, f"--set {name}")
            if not self.box.low[index] <= number <= self.box.high[index]:
                raise ModelError(f"{name} = {fraction_text(number)} is outside its range "
                                 f"[{fraction_text(self.box.low[index])}, "
                                 f"{fraction_text(self.box.high[index])}]", "--set")
            fixed[name] = number
        keep = [i for i, n in enumerate(self.box.names) if n not in fixed]
        if not keep:
            raise ModelError("every parameter is fixed by --set; the model has no parameter left",
                             "--set")
        box = ParameterBox(tuple(self.box.names[i] for i in keep), tuple(self.box.low[i] for i in keep),
                           tuple(self.box.high[i] for i in keep))
        substitution = {s: sympy.Rational(fixed[n].numerator, fixed[n].denominator)
                        for n, s in zip(self.box.names, self.box.symbols) if n in fixed}
        expressions = {loc: e.xreplace(substitution) for loc, e in self.expressions.items()}
        return ParametricModel(self.data, box, expressions)

    def check_point(self, values: Mapping[str, object]) -> dict[str, Fraction]:
        """``values`` as Fractions, after checking every parameter is given and in its range."""
        point = {}
        for name in values:
            if name not in self.box.names:
                raise ModelError(f"the model has no parameter {name!r} (its parameters: "
                                 f"{', '.join(self.box.names)})", "--set")
        for name, low, high in zip(self.box.names, self.box.low, self.box.high):
            if name not in values:
                raise ModelError(f"no value given for parameter {name!r}; add --set {name}=VALUE",
                                 "--set")
            value = exact(values[name], f"--set {name}")
            if not low <= value <= high:
                raise ModelError(f"{name} = {fraction_text(value)} is outside its range "
                                 f"[{fraction_text(low)}, {fraction_text(high)}]", "--set")
            point[name] = value
        return point


def _assign(data: object, location: Path, value: str) -> None:
    for key in location[:-1]:
        data = data[key]  # type: ignore[index]
    data[location[-1]] = value  # type: ignore[index]


def parse_parametric_model(data: object) -> ParametricModel:
    """Read a decoded model file that declares ``"parameters"``, validating it symbolically."""
    if not isinstance(data, dict) or "parameters" not in data:
        raise ModelError("the model declares no \"parameters\"; audit it as an ordinary model",
                         "parameters")
    box = parse_parameters(data["parameters"])
    body = {k: v for k, v in data.items() if k != "parameters"}
    expressions: dict = {}
    groups: list[tuple[str, list[Path]]] = []
    for location, group in _probability_slots(body):
        expressions[location] = parse_expression(_get(body, location), box, join_path(*location))
        if group is not None:
            if not groups or groups[-1][0] != group:
                groups.append((group, []))
            groups[-1][1].append(location)
    model = ParametricModel(body, box, expressions)
    _validate(model, groups)
    _validate_interval_families(model)
    model.instantiate(box.midpoint())  # the structure: names, domains, references, cycles
    return model


def load_parametric_model(path: str | os.PathLike) -> ParametricModel:
    """Read and validate the parametric model file at ``path``."""
    return parse_parametric_model(read_json_file(path, "model file"))


def parse_assignments(texts: list[str] | None) -> dict[str, Fraction]:
    """``["p=3/4", "q=1/2"]`` -> ``{"p": 3/4, "q": 1/2}`` (the ``--set`` option)."""
    values: dict[str, Fraction] = {}
    for text in texts or []:
        name, sep, value = text.partition("=")
        if not sep or not PARAMETER_NAME.match(name.strip()):
            raise ModelError(f"{text!r}: write --set NAME=VALUE, e.g. --set p=3/4", "--set")
        values[name.strip()] = exact(value.strip(), f"--set {name.strip()}")
    return values


def load_model_at(path: str | os.PathLike, assignments: list[str] | None, *,
                  max_datasets: int = DEFAULT_MAX_DATASETS) -> PufferfishModel:
    """The exact model of the file at ``path``; a parametric one instantiated at ``--set`` values."""
    data, values = _read_at(path, assignments)
    if values:
        return parse_parametric_model(data).instantiate(values, max_datasets=max_datasets)
    return parse_model(data, max_datasets=max_datasets, base=os.path.dirname(os.fspath(path)))


def model_data_at(path: str | os.PathLike, assignments: list[str] | None, *,
                  max_datasets: int = DEFAULT_MAX_DATASETS) -> object:
    """The decoded model file at ``path`` for commands that read the file's JSON themselves: as
    written, or — for a parametric file with ``--set`` values — the exact instance written back
    as a model file dict (:func:`pufferfish.models.files.pufferfish_file.model_to_dict`)."""
    from pufferfish.models.files.pufferfish_file import model_to_dict

    data, values = _read_at(path, assignments)
    if values:
        instance = parse_parametric_model(data).instantiate(values, max_datasets=max_datasets)
        return model_to_dict(instance, max_datasets=max_datasets)
    return data


def _read_at(path: str | os.PathLike, assignments: list[str] | None) -> tuple[object, dict]:
    """The decoded file and the ``--set`` values; a parametric file needs values, and values
    need a parametric file."""
    data = read_json_file(path, "model file")
    values = parse_assignments(assignments)
    if isinstance(data, dict) and "parameters" in data:
        if not values:
            names = ", ".join(data["parameters"]) if isinstance(data["parameters"], dict) else ""
            raise ModelError(f"this model declares parameters ({names}); {SYMBOLIC_COMMANDS} "
                             f"accept it as it is, or instantiate it at a point with --set, "
                             f"e.g. --set NAME=VALUE for each parameter", "parameters")
    elif values:
        raise ModelError("--set was given but the model declares no parameters", "--set")
    return data, values


def add_postprocessed(data: object, mechanism: str, mapping: object) -> tuple[dict, str]:
    """A copy of the decoded model file ``data`` with one more mechanism: ``mechanism`` followed
    by the post-processor of the decoded map file ``mapping`` (``{"map": [[output, [[new output,
    p], ...]], ...]}``; in a parametric model the ``p`` may be expressions in its parameters).
    Returns the copy and the new mechanism's name (``postprocessed``, with ``_`` appended until
    it is free).

    >>> data, name = add_postprocessed({"mechanisms": {"m": {}}}, "m", {"map": [[0, [[0, "1"]]]]})
    >>> name, data["mechanisms"][name]["postprocess"]["mechanism"]
    ('postprocessed', 'm')
    """
    if not isinstance(mapping, dict) or set(mapping) != {"map"}:
        raise ModelError("the map file is {\"map\": [[output, [[new output, p], ...]], ...]}",
                         "--map")
    if not isinstance(data, dict) or not isinstance(data.get("mechanisms"), dict):
        raise ModelError("the model has no mechanisms", "mechanisms")
    data = copy.deepcopy(data)
    name = "postprocessed"
    while name in data["mechanisms"]:
        name += "_"
    data["mechanisms"][name] = {"postprocess": {"mechanism": mechanism, "map": mapping["map"]}}
    return data, name


def load_free_parameters(path: str | os.PathLike, assignments: list[str] | None,
                         data: object = None) -> ParametricModel:
    """The parametric model of the file at ``path`` (or of its decoded contents ``data`` when
    given) with the ``--set`` parameters fixed (at least one parameter must stay free)."""
    if data is None:
        data = read_json_file(path, "model file")
    if not (isinstance(data, dict) and "parameters" in data):
        raise ModelError("this model declares no \"parameters\"; closed forms and regions need a "
                         "parametric model (add \"parameters\": {\"p\": [low, high]} and write "
                         "probabilities in p), or use `pufferfish audit` for an exact model",
                         "parameters")
    model = parse_parametric_model(data)
    values = parse_assignments(assignments)
    return model.restrict(values) if values else model


def _get(data: object, location: Path) -> object:
    for key in location:
        data = data[key]  # type: ignore[index]
    return data


def _probability_slots(body: dict) -> Iterator[tuple[Path, str | None]]:
    """Every probability slot of a (schema-shaped) file and the distribution it belongs to
    (``None`` for ``keep``/``alpha``, which are single numbers)."""
    for name, prior in (body.get("priors") or {}).items():
        if not isinstance(prior, dict):
            continue
        base = ("priors", name)
        if isinstance(prior.get("table"), list):
            for i, row in enumerate(prior["table"]):
                if isinstance(row, list) and len(row) == 2:
                    yield base + ("table", i, 1), join_path(*base, "table")
        if isinstance(prior.get("independent"), dict):
            for attribute, values in prior["independent"].items():
                for value in values if isinstance(values, dict) else ():
                    yield base + ("independent", attribute, value), join_path(*base, "independent", attribute)
        for secret, blocks in (prior["interval"].items() if isinstance(prior.get("interval"), dict)
                               else ()):
            for k, block in enumerate(blocks if isinstance(blocks, list) else ()):
                mass = block.get("mass") if isinstance(block, dict) else None
                if isinstance(mass, list) and len(mass) == 2:
                    yield base + ("interval", secret, k, "mass", 0), None
                    yield base + ("interval", secret, k, "mass", 1), None
        markov = prior.get("markov")
        if isinstance(markov, dict):
            for value in markov.get("initial") or {}:
                yield base + ("markov", "initial", value), join_path(*base, "markov", "initial")
            kernels = [(("transition",), markov["transition"])] if isinstance(markov.get("transition"), dict) else []
            kernels += [(("transitions", k), kernel) for k, kernel in enumerate(markov.get("transitions") or [])]
            for prefix, kernel in kernels:
                for source, row in (kernel.items() if isinstance(kernel, dict) else ()):
                    for target in row if isinstance(row, dict) else ():
                        yield (base + ("markov",) + prefix + (source, target),
                               join_path(*base, "markov", *prefix, source))
    for name, mechanism in (body.get("mechanisms") or {}).items():
        if not isinstance(mechanism, dict):
            continue
        base = ("mechanisms", name)
        rows = [("table", mechanism.get("table"))]
        post = mechanism.get("postprocess")
        if isinstance(post, dict):
            rows.append(("postprocess", post.get("map")))
        for kind, table in rows:
            prefix = base + (kind,) + (("map",) if kind == "postprocess" else ())
            for i, row in enumerate(table if isinstance(table, list) else []):
                if isinstance(row, list) and len(row) == 2 and isinstance(row[1], list):
                    for j, pair in enumerate(row[1]):
                        if isinstance(pair, list) and len(pair) == 2:
                            yield prefix + (i, 1, j, 1), join_path(*prefix, i)
        rr = (mechanism.get("per_entry") or {}).get("randomized_response") \
            if isinstance(mechanism.get("per_entry"), dict) else None
        if isinstance(rr, dict) and "keep" in rr:
            yield base + ("per_entry", "randomized_response", "keep"), None
        noise = mechanism.get("noise")
        if isinstance(noise, dict) and isinstance(noise.get("geometric"), dict) and \
                "alpha" in noise["geometric"]:
            yield base + ("noise", "geometric", "alpha"), None


# --------------------------------------------------------------------------------------------
# Symbolic validation
# --------------------------------------------------------------------------------------------

def _validate(model: ParametricModel, groups: list[tuple[str, list[Path]]]) -> None:
    import sympy
    box = model.box
    for group, locations in groups:
        exprs = [model.expressions[loc] for loc in locations]
        if not any(e.free_symbols for e in exprs):
            continue
        excess = sympy.cancel(sympy.Add(*exprs) - 1)
        if excess != 0:
            point = nonzero_point(excess, box)
            total = sympy.Add(*exprs).xreplace(substitution(box, point))
            raise ModelError(f"the probabilities sum to {sympy.factor(sympy.Add(*exprs))}, not "
                             f"identically 1: at {box.point_text(point)} they sum to {total}",
                             group)
    checked: dict = {}
    for location, expr in model.expressions.items():
        if not expr.free_symbols:
            continue
        path = join_path(*location)
        conditions = [(expr, False)]
        if location[-1] == "keep":
            conditions.append((1 - expr, False))
        if location[-1] == "alpha":
            conditions.append((1 - expr, True))
        if location[-2:] == ("mass", 1):
            conditions.append((1 - expr, False))
        for condition, strict in conditions:
            key = (condition, strict)
            if key not in checked:
                checked[key] = nonnegativity_failure(condition, strict, box)
            failure = checked[key]
            if failure is not None:
                shown = str(expr) if condition is expr else f"1 - ({expr})"
                raise ModelError(f"{shown} {failure}, so this is not a probability over the "
                                 f"whole range {box.text()}", path)


def _validate_interval_families(model: ParametricModel) -> None:
    """Every block interval of an interval family (Bai et al., Composition for Pufferfish Privacy,
    §4, Example 4.3) is nonempty on the whole box (``upper − lower >= 0``) and every secret's
    intervals admit a distribution there (``Σ lower <= 1 <= Σ upper``), each proved like the entries
    (ends in [0, 1] are entries)."""
    import sympy

    box = model.box
    for name, prior in (model.data.get("priors") or {}).items():
        if not (isinstance(prior, dict) and isinstance(prior.get("interval"), dict)):
            continue
        for secret, blocks in prior["interval"].items():
            base = ("priors", name, "interval", secret)
            ends = [(model.expressions[base + (k, "mass", 0)], model.expressions[base + (k, "mass", 1)])
                    for k in range(len(blocks))]
            if not any(low.free_symbols or high.free_symbols for low, high in ends):
                continue
            conditions = [(high - low, join_path(*base, k, "mass"),
                           f"the interval [{low}, {high}] must be nonempty: {high} - ({low})")
                          for k, (low, high) in enumerate(ends)]
            lower = sympy.Add(*(low for low, _ in ends))
            upper = sympy.Add(*(high for _, high in ends))
            conditions.append((1 - lower, join_path(*base),
                               f"the lower bounds must sum to at most 1: 1 - ({lower})"))
            conditions.append((upper - 1, join_path(*base),
                               f"the upper bounds must sum to at least 1: {upper} - 1"))
            for condition, path, reason in conditions:
                failure = nonnegativity_failure(condition, False, box)
                if failure is not None:
                    raise ModelError(f"{reason} {failure}, so no prior of the family meets the "
                                     f"intervals there (range {box.text()})", path)
