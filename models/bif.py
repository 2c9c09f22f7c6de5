"""Exact import of Bayesian networks written in BIF, the Bayesian Interchange Format.

BIF is the text format in which the networks of the Bayesian Network Repository (bnlearn; M.
Scutari, *Learning Bayesian Networks with the bnlearn R Package*, Journal of Statistical Software
35(3), 2010) are distributed: ``asia``, ``sachs``, ``alarm`` and the others, also shipped by
pgmpy.  Such a network is the kind of prior that Wang et al., Privacy-Preserving Analysis of
Correlated Data, §4 ("The Setting") assumes: data ``X = (X_1, ..., X_n)`` whose dependence is a
known Bayesian network.  The format, as read here (version 0.15 of the interchange format, the
dialect of bnlearn and pgmpy)::

    network asia {
    }
    variable smoke {
      type discrete [ 2 ] { yes, no };
    }
    probability ( smoke ) {
      table 0.5, 0.5;
    }
    probability ( lung | smoke ) {
      (yes) 0.1, 0.9;
      (no) 0.01, 0.99;
    }

* ``variable NAME { type discrete [ k ] { v1, ..., vk }; }`` declares a node and its ``k``
  values (strings; a value written with spaces between commas is one value, and without commas
  the values are the words).  ``property ...;`` entries are skipped anywhere.
* ``probability ( X | P1, P2 ) { ... }`` (also the older ``probability ( X P1 P2 )``) gives the
  CPT of ``X`` given its parents, in that order: rows ``(p1, p2) q1, ..., qk;`` (the parents'
  values, then ``Pr[X = v_i | p1, p2]``), an optional ``default q1, ..., qk;`` for the parent
  values no row lists, or one ``table`` listing every entry with ``X``'s value varying slowest
  and the last parent fastest (for a root, ``table q1, ..., qk;``).
* Comments ``// ...`` and ``/* ... */``; names may be quoted (``"Dog-Problem"``).

**Exactness.**  Every probability is read as the exact decimal it is written as (``0.1`` is
``1/10``, ``1e-04`` is ``1/10000``), never through a float.  Many published tables do not sum to
one exactly as printed; such a row is refused by default, with the file, the line, the variable,
the parents' values and the sum it has.  With ``renormalise=True`` each row whose sum is within
:data:`RENORMALISE_TOLERANCE` (``1/100``) of one — the rounding of printed decimals: three
values printed as ``0.33`` sum to ``0.99``; the shipped bnlearn networks are off by at most
``3·10⁻⁷`` — is divided by its sum exactly, and the network records what was changed
(:attr:`BayesNet.renormalised`: ``(variable, parent values, original sum)`` per row), so that
every result built on it can say so (:func:`~pufferfish.models.bayesnet.renormalised_note`).  A
row further from one (``0.4``, ``1.8``: an error in the data, not rounding) is still refused,
with its sum, unless ``renormalise="any"`` asks for every row to be divided by its sum.

**Size.**  Every CPT is counted from the declared domains and parent lists before any row is
built: a network whose CPTs hold more than :data:`MAX_BIF_ENTRIES` probabilities together (a
``default`` row makes a node of 24 binary parents 2²⁵ entries in a file of 2 KB) is refused
with the figure and the largest CPT, located at its probability block.  A file may start with a
UTF-8 byte-order mark.

Cost: linear in the length of the text (one pass of a regular-expression tokenizer), plus one
exact conversion per probability and one exact sum per row.

Length: one recursive-descent parser whose scanning, grammar and meaning (sizes, sums, CPTs)
share its position and its error locations; split, each part would pass them all around.

>>> net = parse_bif('''
... network tiny { }
... variable rain { type discrete [ 2 ] { yes, no }; }
... variable wet { type discrete [ 2 ] { yes, no }; }
... probability ( rain ) { table 0.2, 0.8; }
... probability ( wet | rain ) { (yes) 0.9, 0.1; (no) 1e-01, 0.9; }
... ''')
>>> net.name, net.parents["wet"], net.cpts["wet"][("no",)].prob("yes")
('tiny', ('rain',), Fraction(1, 10))
>>> net.marginal(["wet"])[("yes",)]
Fraction(13, 50)
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import os
import re
from fractions import Fraction
from itertools import product as cartesian
from math import lcm
from pathlib import Path
from typing import NamedTuple

import networkx as nx

from pufferfish.models.bayesnet import BayesNet, RenormalisedRow, renormalised_note
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.files.json_io import open_regular_file
from pufferfish.models.numbers import MAX_DIGITS, fraction_str

__all__ = ["parse_bif", "load_bif", "RenormalisedRow", "renormalised_note", "MAX_BIF_BYTES",
           "MAX_BIF_ENTRIES", "RENORMALISE_TOLERANCE"]

MAX_BIF_BYTES = 64 * 1024 * 1024
"""The largest BIF file :func:`load_bif` reads (64 MiB, the model files' limit)."""

MAX_BIF_ENTRIES = 2**22
"""The most probabilities all the CPTs of a network may hold together (4,194,304: about eight
times the largest shipped bnlearn network, ``mildew``, whose CPTs hold 547,158; each entry is an
exact fraction in memory, about 100 bytes)."""

RENORMALISE_TOLERANCE = Fraction(1, 100)
"""How far from one a CPT row's sum may be for ``renormalise=True`` to divide it by its sum:
``|sum − 1| <= 1/100``."""


def load_bif(path: str | os.PathLike, name: str | None = None,
             renormalise: bool | str = False) -> BayesNet:
    """The network of the BIF file at ``path`` (a ``.bif`` file, or ``.bif.gz`` compressed), read
    exactly by :func:`parse_bif`; errors name the file and the line.  ``name`` defaults to the
    network's own name, else the file's stem (bnlearn writes ``network unknown`` for every
    network; that name is taken as none).  At most :data:`MAX_BIF_BYTES` are read (also after
    decompression); a leading UTF-8 byte-order mark is skipped.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "coin.bif")
    >>> _ = open(path, "w").write("variable c { type discrete [2] { h, t }; }\\n"
    ...                           "probability ( c ) { table 0.5, 0.5; }\\n")
    >>> load_bif(path).name, load_bif(path).cpts["c"][()].prob("h")
    ('coin', Fraction(1, 2))
    """
    path = Path(path)
    where = f"BIF file {str(path)!r}"
    with open_regular_file(path, "BIF file") as handle:
        try:
            raw = handle.read(MAX_BIF_BYTES + 1)
            if path.name.endswith(".gz") and len(raw) <= MAX_BIF_BYTES:
                with gzip.GzipFile(fileobj=io.BytesIO(raw)) as stream:
                    raw = stream.read(MAX_BIF_BYTES + 1)
        except (OSError, EOFError) as error:
            raise ModelError(f"cannot read {where}: {getattr(error, 'strerror', None) or error}"
                             ) from None
    if len(raw) > MAX_BIF_BYTES:
        raise ModelError(f"{where} is (or decompresses to) more than the limit of "
                         f"{MAX_BIF_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ModelError(f"{where} is not UTF-8 text: {error.reason} at byte {error.start}"
                         ) from None
    stem = path.name.removesuffix(".gz").removesuffix(".bif")
    return parse_bif(text, name=name, renormalise=renormalise, source=str(path), default_name=stem)


def parse_bif(text: str, name: str | None = None, renormalise: bool | str = False, *,
              source: str = "BIF", default_name: str = "network",
              max_entries: int = MAX_BIF_ENTRIES) -> BayesNet:
    """The Bayesian network written in BIF ``text`` (module docstring), with exact CPTs.

    The nodes keep the order of their ``variable`` declarations; a node's parents keep the order
    of its ``probability`` header; values are strings.  A CPT row that does not sum to one
    exactly is refused with its location (``source:LINE``) and its sum; with
    ``renormalise=True`` a row within :data:`RENORMALISE_TOLERANCE` of one is divided by its sum
    and listed in the result's :attr:`~BayesNet.renormalised` (a row further off is refused),
    and with ``renormalise="any"`` every row is.  CPTs holding more than ``max_entries``
    probabilities together are refused (:class:`~pufferfish.models.errors.TooLargeError`)
    before any is built.  Every other fault (a syntax error, an undeclared variable or value, a
    missing or repeated CPT row, a wrong count of numbers, a cycle) is a :class:`ModelError`
    located at ``source:LINE``.

    >>> parse_bif("variable a { type discrete [2] { x, y }; }\\n"
    ...           "probability ( a ) { table 0.33, 0.66; }", source="a.bif")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: a.bif:2: the row of 'a' sums to 99/100 (0.99), not 1; pass renormalise=True (a model file: "renormalise": true) to divide it by its sum
    >>> net = parse_bif("variable a { type discrete [2] { x, y }; }\\n"
    ...                 "probability ( a ) { table 0.33, 0.66; }", renormalise=True)
    >>> net.cpts["a"][()].prob("x"), net.renormalised
    (Fraction(1, 3), (RenormalisedRow(variable='a', parent_values=(), total=Fraction(99, 100)),))
    >>> parse_bif("variable a { type discrete [2] { x, y }; }\\n"
    ...           "probability ( a ) { table 0.3, 0.1; }", renormalise=True, source="a.bif")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: a.bif:2: the row of 'a' sums to 2/5 (0.4), more than 1/100 from 1: an error in the table rather than rounding; pass renormalise="any" (a model file: "renormalise": "any") to divide it by its sum all the same
    """
    if not (isinstance(renormalise, bool) or renormalise == "any"):
        raise ModelError(f"renormalise must be false, true or \"any\", not {renormalise!r}",
                         "renormalise")
    parser = _Parser(text.removeprefix("\ufeff"), source)
    parser.max_entries = max_entries
    return parser.network(name, renormalise, default_name)


# --------------------------------------------------------------------------------------------
# tokens
# --------------------------------------------------------------------------------------------

_SKIP = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_TOKEN = re.compile(r'"[^"\n]*"|[{}()\[\]|,;]|[^\s{}()\[\]|,;"]+')
_PLAIN_LIST = re.compile(r'[^"{}()\[\]|;]*')
_NUMBER = re.compile(r"\+?(?=\.?\d)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d{1,9}))?")
_SEPARATORS = frozenset("{}()[]|,;")


class _Token(NamedTuple):
    text: str
    position: int
    quoted: bool = False


class _Parser:
    """Recursive descent over the text, by position; errors are located at ``source:LINE``."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.pos = 0
        self.decimals: dict[str, Fraction] = {}
        self.max_entries = MAX_BIF_ENTRIES

    # -- error reporting -----------------------------------------------------------------------
    def line(self, position: int) -> int:
        return self.text.count("\n", 0, position) + 1

    def fail(self, message: str, position: int | None = None,
             kind: type[ModelError] = ModelError) -> None:
        if position is None:
            position = self.pos
        raise kind(message, f"{self.source}:{self.line(position)}")

    # -- scanning ------------------------------------------------------------------------------
    def skip(self) -> None:
        """Past white space and comments."""
        self.pos = _SKIP.match(self.text, self.pos).end()
        if self.text.startswith("/*", self.pos):
            self.fail("a comment opened with /* is never closed")

    def done(self) -> bool:
        self.skip()
        return self.pos >= len(self.text)

    def next(self, what: str) -> _Token:
        self.skip()
        match = _TOKEN.match(self.text, self.pos)
        if match is None:
            if self.pos >= len(self.text):
                self.fail(f"the text ends where {what} was expected")
            self.fail("a quoted name is not closed on its line")
        self.pos = match.end()
        text = match.group()
        if text.startswith('"'):
            return _Token(text[1:-1], match.start(), True)
        return _Token(text, match.start())

    def at(self, punct: str) -> bool:
        self.skip()
        return self.text.startswith(punct, self.pos)

    def advance(self) -> None:
        """Past the one-character separator :meth:`at` found."""
        self.pos += 1

    def expect(self, punct: str, what: str) -> _Token:
        token = self.next(f"'{punct}' ({what})")
        if token.text != punct or token.quoted:
            self.fail(f"expected '{punct}' ({what}), found {token.text!r}", token.position)
        return token

    def name(self, what: str) -> _Token:
        token = self.next(what)
        if token.text in _SEPARATORS and not token.quoted:
            self.fail(f"expected {what}, found {token.text!r}", token.position)
        return token

    def skip_property(self) -> None:
        """``property ... ;`` (the keyword is already read): everything up to the ``;``."""
        while not self.at(";"):
            self.next("';' ending the property")
        self.advance()

    def items(self, close: str, what: str) -> list[tuple[str, int]]:
        """``(item, position)`` for the items of a list up to ``close`` (consumed):
        comma-separated, the words between two commas being one item, or, with no comma at all,
        one item per word.  Unquoted lists without comments (all of the published files) are cut
        by one regular-expression match; anything else goes token by token."""
        self.skip()
        start = self.pos
        plain = _PLAIN_LIST.match(self.text, start)
        segment = plain.group()
        if (self.text.startswith(close, plain.end()) and "//" not in segment
                and "/*" not in segment):
            self.pos = plain.end() + 1
            items, offset = [], start
            parts = segment.split(",")
            if len(parts) == 1:
                for word in re.finditer(r"\S+", segment):
                    items.append((word.group(), start + word.start()))
                return items
            for k, part in enumerate(parts):
                stripped = part.strip()
                position = offset + len(part) - len(part.lstrip())
                if not stripped:
                    self.fail(f"{what} ends with a comma" if k == len(parts) - 1
                              else f"an empty item in {what}", position)
                items.append((" ".join(stripped.split()), position))
                offset += len(part) + 1
            return items
        return self.items_by_token(close, what)

    def items_by_token(self, close: str, what: str) -> list[tuple[str, int]]:
        groups: list[list[_Token]] = [[]]
        commas = False
        while not self.at(close):
            token = self.next(f"'{close}' closing {what}")
            if token.text == "," and not token.quoted:
                if not groups[-1]:
                    self.fail(f"an empty item in {what}", token.position)
                groups.append([])
                commas = True
            elif token.text in _SEPARATORS and not token.quoted:
                self.fail(f"unexpected {token.text!r} in {what}", token.position)
            else:
                groups[-1].append(token)
        end = self.pos
        self.advance()
        if not groups[-1]:
            if commas:
                self.fail(f"{what} ends with a comma", end)
            groups.pop()
        if commas:
            return [(" ".join(t.text for t in group), group[0].position) for group in groups]
        return [(t.text, t.position) for t in (groups[0] if groups else [])]

    def numbers(self, what: str) -> tuple[list[Fraction], int]:
        """Probabilities up to ``;`` (consumed), exact: ``([q, ...], position of the first)``.
        A plain comma-separated list is split at once; anything else (or a fault, to be located)
        goes through :meth:`items`."""
        self.skip()
        first = self.pos
        plain = _PLAIN_LIST.match(self.text, first)
        if self.text.startswith(";", plain.end()) and "/" not in plain.group():
            texts = [part.strip() for part in plain.group().split(",")]
            if all(texts) and (len(texts) > 1 or len(texts[0].split()) == 1):
                try:
                    values = [self.decimals.get(t) or self.decimal(t, first) for t in texts]
                except ModelError:
                    values = None
                if values is not None:
                    self.pos = plain.end() + 1
                    return values, first
        values = [self.decimal(text, position) for text, position in self.items(";", what)]
        if not values:
            self.fail(f"no probabilities in {what}", first)
        return values, first

    def decimal(self, text: str, position: int) -> Fraction:
        """The exact value of a decimal ``text`` (``0.25``, ``1e-04``; never a float)."""
        value = self.decimals.get(text)
        if value is not None:
            return value
        match = _NUMBER.fullmatch(text)
        if match is None:
            self.fail(f"{text!r} is not a probability; write a decimal such as 0.25 or 1e-04",
                      position)
        whole, fraction, exponent = match.group(1), match.group(2) or "", match.group(3)
        digits = (whole + fraction).lstrip("0") or "0"
        shift = (int(exponent) if exponent else 0) - len(fraction)
        if len(digits) + max(shift, 0) > MAX_DIGITS or -shift > MAX_DIGITS:
            self.fail(f"{text!r} has more than {MAX_DIGITS:,} digits written out", position)
        numerator = int(digits)
        value = (Fraction(numerator * 10**shift) if shift >= 0
                 else Fraction(numerator, 10**-shift))
        self.decimals[text] = value
        return value

    # -- the grammar ---------------------------------------------------------------------------
    def network(self, name: str | None, renormalise: bool, default_name: str) -> BayesNet:
        declared: dict[str, tuple[tuple[str, ...], int]] = {}
        blocks: dict[str, tuple] = {}
        network_name = None
        while not self.done():
            keyword = self.name("'network', 'variable' or 'probability'")
            word = keyword.text if not keyword.quoted else ""
            if word == "network":
                if network_name is not None:
                    self.fail("a second 'network' block", keyword.position)
                network_name = self.name("the network's name").text if not self.at("{") else ""
                self.block_of_properties("the network block")
            elif word == "variable":
                node = self.name("the variable's name")
                if node.text in declared:
                    self.fail(f"the variable {node.text!r} is declared twice", node.position)
                declared[node.text] = self.variable(node)
            elif word == "probability":
                self.probability(blocks, keyword)
            else:
                self.fail(f"expected 'network', 'variable' or 'probability', found "
                          f"{keyword.text!r}", keyword.position)
        if not declared:
            self.fail("no variable is declared", 0)
        if network_name == "unknown":  # what bnlearn writes for every network
            network_name = None
        return self.build(declared, blocks, name or network_name or default_name, renormalise)

    def block_of_properties(self, what: str) -> None:
        self.expect("{", f"opening {what}")
        while not self.at("}"):
            token = self.name(f"'property' or '}}' closing {what}")
            if token.text != "property" or token.quoted:
                self.fail(f"unexpected {token.text!r} in {what} (only 'property' entries)",
                          token.position)
            self.skip_property()
        self.advance()

    def variable(self, node: _Token) -> tuple[tuple[str, ...], int]:
        what = f"the declaration of {node.text!r}"
        self.expect("{", f"opening {what}")
        values = None
        while not self.at("}"):
            token = self.name(f"'type', 'property' or '}}' closing {what}")
            if token.text == "property" and not token.quoted:
                self.skip_property()
                continue
            if token.text != "type" or token.quoted:
                self.fail(f"unexpected {token.text!r} in {what}", token.position)
            if values is not None:
                self.fail(f"{what} has two types", token.position)
            kind = self.name("the variable's type ('discrete')")
            if kind.text != "discrete":
                self.fail(f"only discrete variables can be read, {node.text!r} is "
                          f"{kind.text!r}", kind.position)
            self.expect("[", "before the number of values")
            count = self.name("the number of values")
            self.expect("]", "after the number of values")
            self.expect("{", "opening the list of values")
            items = self.items("}", f"the values of {node.text!r}")
            if not count.text.isdigit() or int(count.text) != len(items):
                # a value list without commas whose values contain spaces cannot be split
                self.fail(f"{node.text!r} declares [{count.text}] values but lists "
                          f"{len(items)}: {[v for v, _ in items]}", count.position)
            seen: set[str] = set()
            for value, position in items:
                if value in seen:
                    self.fail(f"{node.text!r} lists the value {value!r} twice", position)
                seen.add(value)
            values = tuple(v for v, _ in items)
            if self.at(";"):
                self.advance()
        self.advance()
        if values is None:
            self.fail(f"{what} has no 'type discrete [k] {{...}}'", node.position)
        return values, node.position

    def probability(self, blocks: dict, keyword: _Token) -> None:
        self.expect("(", "opening the probability header")
        node = self.name("the variable of the probability block")
        parents: list[_Token] = []
        if self.at("|"):
            self.advance()
            for text, position in self.items(")", f"the parents of {node.text!r}"):
                parents.append(_Token(text, position))
        else:
            while not self.at(")"):
                parents.append(self.name(f"a parent of {node.text!r} or ')'"))
            self.advance()
        if node.text in blocks:
            self.fail(f"a second probability block for {node.text!r}", keyword.position)
        what = f"the probability block of {node.text!r}"
        self.expect("{", f"opening {what}")
        rows: list[tuple[tuple[str, ...], list[Fraction], int, int]] = []
        table = default = None
        while not self.at("}"):
            token = self.next(f"a row, 'table', 'default' or '}}' closing {what}")
            if token.text == "(" and not token.quoted:
                key = self.items(")", f"a row's parent values of {node.text!r}")
                numbers, _ = self.numbers(f"a row of {node.text!r}")
                rows.append((tuple(v for v, _ in key), numbers, token.position,
                             key[0][1] if key else token.position))
            elif token.text in ("table", "default") and not token.quoted:
                if (table if token.text == "table" else default) is not None:
                    self.fail(f"{what} has two '{token.text}' entries", token.position)
                entry = (*self.numbers(f"the {token.text} of {node.text!r}"), token.position)
                if token.text == "table":
                    table = entry
                else:
                    default = entry
            elif token.text == "property" and not token.quoted:
                self.skip_property()
            else:
                self.fail(f"unexpected {token.text!r} in {what}", token.position)
        self.advance()
        blocks[node.text] = (node, tuple(parents), rows, table, default)

    # -- meaning -------------------------------------------------------------------------------
    def build(self, declared: dict, blocks: dict, name: str, renormalise: bool) -> BayesNet:
        for node_name, (node, *_rest) in blocks.items():
            if node_name not in declared:
                self.fail(f"a probability block for {node_name!r}, which no 'variable' "
                          f"declares", node.position)
        parents: dict[str, tuple[str, ...]] = {}
        for node_name, (_, position) in declared.items():
            if node_name not in blocks:
                self.fail(f"the variable {node_name!r} has no probability block", position)
            _, tokens, *_ = blocks[node_name]
            seen = set()
            for token in tokens:
                if token.text not in declared:
                    self.fail(f"the parent {token.text!r} of {node_name!r} is not a declared "
                              f"variable", token.position)
                if token.text in seen or token.text == node_name:
                    self.fail(f"{node_name!r} lists {token.text!r} as its parent twice or as its "
                              f"own", token.position)
                seen.add(token.text)
            parents[node_name] = tuple(t.text for t in tokens)
        graph = nx.DiGraph()
        graph.add_nodes_from(declared)
        graph.add_edges_from((p, n) for n, ps in parents.items() for p in ps)
        if not nx.is_directed_acyclic_graph(graph):
            cycle = [edge[0] for edge in nx.find_cycle(graph)]
            self.fail(f"the parents form a cycle {' -> '.join(cycle + cycle[:1])}; a Bayesian "
                      f"network is acyclic", blocks[cycle[0]][0].position)
        domains = {n: values for n, (values, _) in declared.items()}
        self.check_size(domains, parents, blocks)
        cpts: dict[str, dict[tuple, Distribution]] = {}
        changed: list[RenormalisedRow] = []
        for node_name in declared:
            cpts[node_name] = self.cpt(node_name, blocks[node_name], parents[node_name], domains,
                                       renormalise, changed)
        net = BayesNet.from_cpts(parents, domains, cpts, name, f"{self.source}:")
        return dataclasses.replace(net, renormalised=tuple(changed))

    def check_size(self, domains: dict, parents: dict, blocks: dict) -> None:
        """Refuse CPTs holding more than :attr:`max_entries` probabilities together, counted
        from the domains and parent lists (nothing is built), at the largest one's block."""
        sizes = {}
        for node, node_parents in parents.items():
            combinations = 1
            for parent in node_parents:
                combinations *= len(domains[parent])
            sizes[node] = (len(domains[node]) * combinations, combinations)
        total = sum(entries for entries, _ in sizes.values())
        if total <= self.max_entries:
            return
        largest = max(sizes, key=lambda n: sizes[n][0])
        entries, combinations = sizes[largest]
        self.fail(f"the CPTs of this network hold {total:,} probabilities, more than the "
                  f"{self.max_entries:,} that are built exactly in memory; the largest, of "
                  f"{largest!r}, has {entries:,} ({len(domains[largest]):,} values × "
                  f"{combinations:,} combinations of its {len(parents[largest])} parents)",
                  blocks[largest][0].position, TooLargeError)

    def cpt(self, node: str, block: tuple, parents: tuple[str, ...], domains: dict,
            renormalise: bool | str, changed: list) -> dict:
        _, _, rows, table, default = block
        values = domains[node]
        k = len(values)
        entries: dict[tuple, tuple[list[Fraction], int]] = {}
        if table is not None:
            if rows:
                self.fail(f"the probability block of {node!r} has both a 'table' and rows",
                          rows[0][2])
            numbers, position, _ = table
            keys = list(cartesian(*(domains[p] for p in parents)))
            if len(numbers) != k * len(keys):
                self.fail(f"the table of {node!r} needs {k * len(keys)} probabilities ({k} "
                          f"values × {len(keys)} parent combinations), it has {len(numbers)}",
                          position)
            width = len(keys)
            for j, key in enumerate(keys):
                entries[key] = ([numbers[i * width + j] for i in range(k)], position)
        for key, numbers, position, key_position in rows:
            if len(key) != len(parents):
                self.fail(f"a row of {node!r} lists {len(key)} parent values, but {node!r} has "
                          f"{len(parents)} parents {list(parents)}", position)
            for value, parent in zip(key, parents):
                if value not in domains[parent]:
                    self.fail(f"{value!r} is not a value of {parent!r} (its values are "
                              f"{list(domains[parent])})", key_position)
            if key in entries:
                self.fail(f"{node!r} has two rows for {self.given(parents, key)}", position)
            if len(numbers) != k:
                self.fail(f"the row of {node!r} given {self.given(parents, key)} has "
                          f"{len(numbers)} probabilities, {node!r} has {k} values", position)
            entries[key] = (numbers, position)
        if default is not None:
            numbers, position, _ = default
            if len(numbers) != k:
                self.fail(f"the default row of {node!r} has {len(numbers)} probabilities, "
                          f"{node!r} has {k} values", position)
        cpt = {}
        for key in cartesian(*(domains[p] for p in parents)):
            found = entries.get(key)
            if found is None:
                if default is None:
                    self.fail(f"{node!r} has no row for {self.given(parents, key)} (and no "
                              f"'default')", block[0].position)
                found = (default[0], default[1])
            numbers, position = found
            total = _exact_sum(numbers)
            if total != 1:
                described = (f"the row of {node!r}" + (f" given {self.given(parents, key)}"
                                                         if parents else ""))
                if not total:
                    self.fail(f"{described} sums to 0; it is no distribution", position)
                if renormalise != "any" and abs(total - 1) > RENORMALISE_TOLERANCE:
                    self.fail(f"{described} sums to {fraction_str(total)} "
                              f"({_decimal_text(total)}), more than "
                              f"{fraction_str(RENORMALISE_TOLERANCE)} from 1: an error in the "
                              f"table rather than rounding; pass renormalise=\"any\" (a model "
                              f"file: \"renormalise\": \"any\") to divide it by its sum all the "
                              f"same", position)
                if not renormalise:
                    self.fail(f"{described} sums to {fraction_str(total)} "
                              f"({_decimal_text(total)}), not 1; pass renormalise=True (a model "
                              f"file: \"renormalise\": true) to divide it by its sum", position)
                changed.append(RenormalisedRow(node, tuple(key), total))
                numbers = [q / total for q in numbers]
            cpt[key] = Distribution._trusted({v: q for v, q in zip(values, numbers) if q})
        return cpt

    @staticmethod
    def given(parents: tuple[str, ...], key: tuple) -> str:
        return ", ".join(f"{p}={v}" for p, v in zip(parents, key)) or "()"


def _exact_sum(numbers: list[Fraction]) -> Fraction:
    """``sum(numbers)`` over one common denominator (one lcm, then integers only)."""
    common = lcm(*(q.denominator for q in numbers))
    return Fraction(sum(q.numerator * (common // q.denominator) for q in numbers), common)


def _decimal_text(value: Fraction) -> str:
    """A sum of decimals as the decimal it is (exact: its denominator divides a power of ten)."""
    denominator, twos, fives = value.denominator, 0, 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    if denominator != 1:
        return fraction_str(value)
    places = max(twos, fives)
    scaled = value.numerator * 10**places // value.denominator
    whole, part = divmod(scaled, 10**places)
    return f"{whole}.{str(part).rjust(places, '0')}" if places else str(whole)
