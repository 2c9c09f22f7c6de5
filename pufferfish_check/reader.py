"""The checker's own reader of Pufferfish model files (docs/model-files.md: universe; table,
independent, markov, uniform and bayesnet priors, BIF included; secrets, pairs, entry pairs;
neighbour relations).  Numbers are exact ``Fraction``; a float is refused."""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import stat
from fractions import Fraction
from pathlib import Path


class BadInput(Exception):
    """A file the checker cannot read (exit 2)."""


class Rejected(Exception):
    """The certificate is not accepted (exit 1); the message says which claim and why."""


MAX_FILE_BYTES = 256 * 2 ** 20  # a certificate, model, BIF or program file
MAX_DEPTH = 64  # nesting of JSON arrays and objects
MAX_NUMBER_CHARS = 20_000  # an exact number's text (digits of numerator and denominator)
MAX_EXPONENT = 400  # |e| of a decimal "1.5e-3" in a model file
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE]([+-]?\d{1,6}))?(/\d+)?")


def key(value) -> str:
    """One text per JSON value: values that print the same are the same (``true`` is not ``1``)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def number(value, where: str) -> Fraction:
    """An exact number of a model file: an integer or a text ``"3/8"``, ``"0.25"``, ``"1e-3"``;
    its size is bounded before it is parsed (``"1e999999999"`` is refused, not computed)."""
    if isinstance(value, int) and not isinstance(value, bool) and -10 ** 100 < value < 10 ** 100:
        return Fraction(value)
    match = _NUMBER.fullmatch(value.strip()) if isinstance(value, str) else None
    if not match or len(value) > MAX_NUMBER_CHARS or abs(int(match[4] or 0)) > MAX_EXPONENT:
        raise BadInput(f"{where}: {value!r:.80} is not an exact number the checker reads "
                       f"(an integer, p/q or a decimal, |exponent| <= {MAX_EXPONENT}, at most "
                       f"{MAX_NUMBER_CHARS} characters)")
    try:
        return Fraction(value.strip())
    except (ValueError, ZeroDivisionError):
        raise BadInput(f"{where}: {value!r} is not an exact number") from None


def regular_file(path: Path, what: str) -> Path:
    """``path`` if it names a regular file of at most :data:`MAX_FILE_BYTES`, decided by
    ``os.stat`` before it is opened (a named pipe would block the reader)."""
    try:
        info = os.stat(path)
    except (OSError, ValueError) as error:
        raise BadInput(f"cannot read the {what} {path}: {error}") from None
    if not stat.S_ISREG(info.st_mode):
        raise BadInput(f"the {what} {path} is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise BadInput(f"the {what} {path} has {info.st_size} bytes, more than the checker's "
                       f"{MAX_FILE_BYTES}")
    return path


def read_bytes(path: Path, what: str) -> bytes:
    try:
        with open(regular_file(Path(path), what), "rb") as stream:
            return stream.read(MAX_FILE_BYTES)
    except OSError as error:
        raise BadInput(f"cannot read the {what} {path}: {error}") from None


def read_text(path: Path, what: str, encoding: str = "utf-8-sig") -> str:
    try:
        return read_bytes(path, what).decode(encoding)
    except UnicodeDecodeError as error:
        raise BadInput(f"cannot read the {what} {path}: {error}") from None


def depth(text: str) -> int:
    """The deepest nesting of arrays and objects in a JSON text (strings skipped), counted
    without recursion so that a deep text is refused before it is parsed."""
    deepest = level = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', text):
        c = token[0]
        level += 1 if c in "[{" else -1 if c in "]}" else 0
        deepest = max(deepest, level)
    return deepest


def parse_json(text: str, where: str):
    """A JSON text with exact numbers: a float is refused, nesting and sizes are bounded."""
    def no_float(token):
        raise BadInput(f"{where}: a float ({token:.40}) where exact numbers are required")

    def bounded_int(token):
        if len(token) > 100:
            raise BadInput(f"{where}: an integer of {len(token)} digits; write it as a text")
        return int(token)
    if depth(text) > MAX_DEPTH:
        raise BadInput(f"{where}: JSON nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_float=no_float, parse_constant=no_float,
                          parse_int=bounded_int)
    except (json.JSONDecodeError, RecursionError) as error:
        raise BadInput(f"cannot read {where}: {error}") from None


def read_json(path: Path, what: str = "model file"):
    return parse_json(read_text(path, what), str(path))


class Model:
    """A model file as the checker reads it."""

    def __init__(self, path: Path, data: dict) -> None:
        if not isinstance(data, dict) or data.get("pufferfish_model") != 1:
            raise BadInput(f"{path}: not a Pufferfish model file (\"pufferfish_model\": 1)")
        if "parameters" in data:
            raise BadInput(f"{path}: a parametric model; certificates cover models at a point")
        self.path, self.data = path, data
        self.attributes = list(data["attributes"])
        domain = data["domain"]
        self.domains = [list(domain[a]) if isinstance(domain, dict) else list(domain)
                        for a in self.attributes]
        self.product = data.get("datasets", "all") == "all"
        self.records = [[self.attributes.index(a) for a in r] for r in data.get("records", [])] \
            or [[i] for i in range(len(self.attributes))]
        self.size = math.prod(map(len, self.domains)) if self.product else len(data["datasets"])
        self.priors = {name: self._prior(name, spec) for name, spec in data["priors"].items()}
        self.secrets = {name: self._secret(spec) for name, spec in data.get("secrets", {}).items()}
        self.directions = []
        for pair in data.get("pairs", []):
            first, second = pair["pair"] if isinstance(pair, dict) else pair
            directed = isinstance(pair, dict) and pair.get("directed")
            self.directions += [(first, second)] + ([] if directed else [(second, first)])
        if data.get("entry_pairs"):
            for i, (attribute, domain) in enumerate(zip(self.attributes, self.domains)):
                for k, a in enumerate(domain):
                    for b in domain[k + 1:]:
                        names = f"{attribute}={_text(a)}", f"{attribute}={_text(b)}"
                        self.secrets.setdefault(names[0], ("where", {i: {key(a)}}))
                        self.secrets.setdefault(names[1], ("where", {i: {key(b)}}))
                        self.directions += [names, names[::-1]]
        self.directions = list(dict.fromkeys(self.directions))
        self.mechanisms = data.get("mechanisms", {})

    # --- datasets ---------------------------------------------------------------------------
    def datasets(self, limit: int = 2 ** 20):
        """Every dataset (a list of values) of the universe, in order."""
        if self.size > limit:
            raise BadInput(f"the universe has {self.size} datasets, more than the checker lists")
        return [list(d) for d in (itertools.product(*self.domains) if self.product
                                  else self.data["datasets"])]

    def value(self, position: int, text: str):
        """The domain value a prior's key text names (``"0"`` names ``0``, ``"yes"`` ``"yes"``)."""
        for v in self.domains[position]:
            if text == _text(v) or text == key(v):
                return v
        raise BadInput(f"{text!r} is not a value of {self.attributes[position]}")

    # --- priors -----------------------------------------------------------------------------
    def _prior(self, name: str, spec: dict):
        where = f"priors.{name}"
        kind, body = next(iter(spec.items()))
        if kind == "table":
            return "table", {key(d): number(p, where) for d, p in body}
        if kind == "uniform":
            return "uniform", None
        if kind == "independent":
            return "independent", [self._row(i, body[a], where) for i, a in enumerate(self.attributes)]
        if kind == "markov":
            steps = len(self.attributes) - 1
            kernels = body.get("transitions") or [body["transition"]] * steps
            return "markov", (self._row(0, body["initial"], where),
                              [{key(self.value(i, a)): self._row(i + 1, row, where)
                                for a, row in k.items()} for i, k in enumerate(kernels)])
        if kind == "bayesnet":
            nodes = body.get("nodes") or read_bif(self.path.parent / body["bif"])
            net = {}
            for attribute, node in nodes.items():
                i = self.attributes.index(attribute)
                parents = [self.attributes.index(p) for p in node["parents"]]
                net[i] = (parents, {tuple(r.split(",")) if r else (): self._row(i, row, where)
                                    for r, row in node["cpt"].items()})
            return "bayesnet", net
        raise BadInput(f"{where}: the checker does not read {kind!r} priors")

    def _row(self, position: int, row: dict, where: str) -> dict:
        return {key(self.value(position, text)): number(p, where) for text, p in row.items()}

    def weight(self, prior, dataset: list) -> Fraction:
        """``θ(D)`` of a dataset of the universe."""
        kind, body = prior
        keys = [key(v) for v in dataset]
        if kind == "table":
            return body.get(key(dataset), Fraction(0))
        if kind == "uniform":
            return Fraction(1, self.size)
        if kind == "independent":
            return math.prod(row.get(k, 0) for row, k in zip(body, keys))
        if kind == "markov":
            return body[0].get(keys[0], 0) * math.prod(
                kernel.get(a, {}).get(b, 0) for kernel, a, b in zip(body[1], keys, keys[1:]))
        return math.prod(cpt.get(tuple(_text(dataset[j]) for j in parents), {}).get(keys[i], 0)
                         for i, (parents, cpt) in body.items())

    # --- secrets ----------------------------------------------------------------------------
    def _secret(self, spec: dict):
        if "datasets" in spec:
            return "datasets", {key(d) for d in spec["datasets"]}
        return "where", {self.attributes.index(a): {key(v) for v in (
            allowed if isinstance(allowed, list) else [allowed])} for a, allowed in spec["where"].items()}

    def holds(self, secret: str, dataset: list) -> bool:
        kind, body = self.secrets[secret]
        return (key(dataset) in body if kind == "datasets"
                else all(key(dataset[i]) in allowed for i, allowed in body.items()))


def _text(value) -> str:
    """A domain value as prior keys and secret names write it (``0``, ``yes``, ``True``)."""
    return value if isinstance(value, str) else str(value)


def read_bif(path: Path) -> dict:
    """The nodes of a BIF network (variables, and tables as exact decimals), as the written-out
    ``bayesnet`` form: ``{node: {"parents": [...], "cpt": {"a,b": {value: p}}}}``."""
    text = re.sub(r"//[^\n]*", "", read_text(path, "BIF file"))
    values = {m[1]: [v.strip() for v in m[2].split(",")] for m in re.finditer(
        r"variable\s+(\S+)\s*\{[^}]*?\{([^}]*)\}", text)}
    nodes = {}
    for m in re.finditer(r"probability\s*\(\s*([^|)]+?)\s*(?:\|\s*([^)]*))?\)\s*\{([^}]*)\}", text):
        node, parents = m[1].strip(), [p.strip() for p in (m[2] or "").split(",") if p.strip()]
        cpt = {}
        for line in filter(None, map(str.strip, m[3].split(";"))):
            row, numbers = re.fullmatch(r"(?:table|\(([^)]*)\))(.*)", line, re.S).groups()
            cpt[",".join(v.strip() for v in (row or "").split(",") if v.strip())] = {
                v: str(number(n.strip(), str(path))) for v, n in zip(values[node], numbers.split(","))}
        nodes[node] = {"parents": parents, "cpt": cpt}
    return nodes


def relation(text) -> tuple:
    """A neighbour relation's model-file form as ``(kind, parameter)``."""
    if isinstance(text, dict):
        if "pairs" in text:
            return "pairs", {frozenset((key(a), key(b))) for a, b in text["pairs"]}
        return "add_remove", key(text["add_remove"]["absent"])
    kind, _, k = str(text).partition(":")
    if kind not in ("entry", "record", "group", "linf", "l1"):
        raise BadInput(f"unknown neighbour relation {text!r}")
    return kind, number(k, "neighbours") if k else None


def adjacent(model: Model, rel: tuple, first: list, second: list) -> bool:
    """Whether two datasets are neighbours, from the relation's definition."""
    kind, k = rel
    changed = [i for i, (a, b) in enumerate(zip(first, second)) if key(a) != key(b)]
    if not changed or kind in ("entry", "group"):
        return 0 < len(changed) <= (1 if kind == "entry" else k)
    if kind == "record":
        return any(set(changed) <= set(r) for r in model.records)
    if kind in ("linf", "l1"):
        moves = [abs(a - b) for a, b in zip(first, second)]
        return (max(moves) if kind == "linf" else sum(moves)) <= k
    if kind == "pairs":
        return frozenset((key(first), key(second))) in k
    for r in (r for r in model.records if set(changed) <= set(r)):  # add_remove: one record
        absent = [all(key(d[i]) == k for i in r) for d in (first, second)]  # absent in one,
        present = [all(key(d[i]) != k for i in r) for d in (first, second)]  # present in the other
        return (absent[0] and present[1]) or (absent[1] and present[0])
    return False
