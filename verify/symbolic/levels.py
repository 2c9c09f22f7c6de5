"""Closed-form privacy levels of parametric mechanisms: ``pufferfish audit MODEL --symbolic``.

For each mechanism (and the joint release of all of them, Bai et al., Composition for Pufferfish
Privacy, §4) the Pufferfish level (Definition 5) and the entry-DP level (Definition 1) are
``log max(1, max_k R_k)`` over the candidate ratios ``R_k = A_k/B_k`` of
:mod:`pufferfish.verify.symbolic.evaluate`, each a rational function of the parameters, shown
factored.  With one parameter the maximum is a piecewise expression: the box is cut at the real
roots of every ``numerator(R_a − R_b)`` and every pole (exact algebraic numbers, each a defining
polynomial and an isolating rational interval), the maximal ratio on each open cell is read
exactly at a rational point, and equal neighbours are merged.  The pieces are exact on their
open intervals; the value at a breakpoint is the common limit of its two pieces unless a pole or
a 0/0 candidate sits there (instantiate the model there for the exact point audit).

The leakage zero-set (Definition 4) is the set of parameter values where every posterior equals
its prior: the common zeros of the polynomials of
:meth:`~pufferfish.verify.symbolic.evaluate.SymbolicModel.leakage_conditions` — the whole box,
or (one parameter) the finitely many common roots, or (several) the zero set of their gcd when
it is not constant, reported as that polynomial.

A model with interval-family priors (Bai et al., Composition for Pufferfish Privacy, §4, Example
4.3, bounds possibly parametric) gets its Pufferfish level from :func:`family_level` (the maximum
over guarded vertex candidates, :mod:`pufferfish.verify.symbolic.families`); its leakage zero-set is
not computed.

Cost: for ``m`` distinct ratios, ``m(m−1)/2`` root isolations, then ``m`` exact evaluations per
cell.

>>> from pufferfish.models.parametric import load_parametric_model
>>> from pufferfish.examples import example_path
>>> model = load_parametric_model(example_path("quickstart_parametric.json")).restrict({"q": "9/10"})
>>> audit = symbolic_audit(model)
>>> [(str(piece.ratio), str(piece.low), str(piece.high)) for piece in audit.mechanisms[0].pufferfish.pieces]
[('p*(80*p**2 - 8*p + 9)/((1 - p)*(80*p**2 - 152*p + 81))', '1/2', '1')]
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

import sympy

from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.parametric import ParametricModel
from pufferfish.models.polynomials import (AlgebraicNumber, below, evaluate_terms, polynomial_terms,
                                           real_roots_in,
                                           sign_at)
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.report import Explained
from pufferfish.verify.symbolic.compare import Branch, Envelope, envelope_pieces
from pufferfish.verify.symbolic.evaluate import Candidate, SymbolicModel
from pufferfish.verify.symbolic.families import family_envelope
from pufferfish.verify.symbolic.univariate import as_poly, decompose, exact_point, rational_between

__all__ = ["Piece", "SymbolicLevel", "LeakageZeroSet", "MechanismSymbolic", "SymbolicAudit",
           "symbolic_audit", "symbolic_level", "family_level", "pufferfish_symbolic_level"]


def _factored(element, box) -> sympy.Expr:
    """``element`` factored over Q, each odd-power factor written with the sign it has inside
    the box (``p/(1 - p)`` rather than ``-p/(p - 1)``)."""
    numerator, denominator = (sympy.Poly(element.numer.as_expr(), *box.symbols),
                              sympy.Poly(element.denom.as_expr(), *box.symbols))
    middle = {s: sympy.Rational(v.numerator, v.denominator)
              for s, v in zip(box.symbols, box.midpoint().values())}
    constant_n, factors_n = numerator.factor_list()
    constant_d, factors_d = denominator.factor_list()
    constant = sympy.Rational(constant_n) / sympy.Rational(constant_d)
    parts: list[list] = [[], []]
    for side, factors in enumerate((factors_n, factors_d)):
        for factor, power in factors:
            expr = factor.as_expr()
            if power % 2 and expr.xreplace(middle) < 0:
                expr, constant = sympy.expand(-expr), -constant
            parts[side].append(expr ** power)
    return sympy.Mul(constant, *parts[0]) / sympy.Mul(*parts[1])


@dataclass(frozen=True)
class Piece:
    """On the open interval ``(low, high)`` the level is ``log(ratio)`` (``ratio`` ``None``: inf)."""

    low: AlgebraicNumber
    high: AlgebraicNumber
    ratio: sympy.Expr | None
    where: str

    def to_dict(self) -> dict:
        return {"from": self.low.to_dict(), "to": self.high.to_dict(),
                "max_ratio": "inf" if self.ratio is None else str(self.ratio),
                "epsilon": "inf" if self.ratio is None else
                ("0" if self.ratio == 1 else f"log({self.ratio})"), "where": self.where}

    def text(self, name: str) -> str:
        level = "inf" if self.ratio is None else ("0" if self.ratio == 1 else f"log({self.ratio})")
        return f"{self.low} < {name} < {self.high}:  ε = {level}"


@dataclass(frozen=True, repr=False)
class SymbolicLevel(Explained):
    """A level as the maximum of ``log`` of candidate ratios; ``pieces`` for one parameter."""

    definition: str
    ratios: tuple[tuple[sympy.Expr | None, str], ...]
    pieces: tuple[Piece, ...] | None
    parameter: str | None

    def to_dict(self) -> dict:
        data = {"definition": self.definition,
                "candidate_ratios": [{"ratio": "inf" if r is None else str(r), "where": w}
                                     for r, w in self.ratios]}
        if self.pieces is not None:
            data["parameter"] = self.parameter
            data["pieces"] = [p.to_dict() for p in self.pieces]
        return data

    def explain(self) -> str:
        if self.pieces is not None:
            return "\n".join(p.text(self.parameter or "") for p in self.pieces)
        shown = ", ".join("inf" if r is None else str(r) for r, _ in self.ratios[:8])
        more = f", ... ({len(self.ratios)} in all)" if len(self.ratios) > 8 else ""
        return f"ε = log max(1, {shown}{more})"


@dataclass(frozen=True)
class LeakageZeroSet:
    """Where Definition 4's leakage is exactly zero."""

    whole_box: bool
    points: tuple[AlgebraicNumber, ...] | None
    polynomial: sympy.Expr | None

    def to_dict(self) -> dict:
        data: dict = {"whole_box": self.whole_box}
        if self.points is not None:
            data["points"] = [p.to_dict() for p in self.points]
        if self.polynomial is not None:
            data["within_zero_set_of"] = str(self.polynomial)
        return data

    def text(self) -> str:
        if self.whole_box:
            return "zero on the whole box"
        if self.points is not None:
            return ("zero nowhere" if not self.points
                    else "zero only at " + ", ".join(str(p) for p in self.points))
        if self.polynomial is not None:
            return f"zero at most on {self.polynomial} = 0"
        return "zero at most on a set of lower dimension"


@dataclass(frozen=True)
class MechanismSymbolic:
    """One mechanism's closed forms: its Pufferfish level, its DP level (when computed) and the
    parameter values where it leaks nothing."""

    name: str
    pufferfish: SymbolicLevel
    dp: SymbolicLevel | None
    leakage: LeakageZeroSet | None

    def to_dict(self) -> dict:
        return {"mechanism": self.name, "pufferfish": self.pufferfish.to_dict(),
                "dp": None if self.dp is None else self.dp.to_dict(),
                "leakage_zero_set": None if self.leakage is None else self.leakage.to_dict()}


@dataclass(frozen=True, repr=False)
class SymbolicAudit(Explained):
    """Every mechanism's closed-form levels, and the joint release's Pufferfish and DP levels."""

    box: dict
    mechanisms: tuple[MechanismSymbolic, ...]
    joint: SymbolicLevel | None
    joint_dp: SymbolicLevel | None = None

    def summary(self) -> str:
        return f"closed-form levels of {', '.join(m.name for m in self.mechanisms)}"

    def to_dict(self) -> dict:
        return {"check": "audit", "symbolic": True, "parameters": self.box,
                "mechanisms": [m.to_dict() for m in self.mechanisms],
                "composition": None if self.joint is None else self.joint.to_dict(),
                "composition_dp": None if self.joint_dp is None else self.joint_dp.to_dict()}

    def explain(self, source: str = "the model") -> str:
        ranges = ", ".join(f"{n} in [{a}, {b}]" for n, (a, b) in self.box.items())
        lines = [f"Closed-form audit of {source} over {ranges}"]
        for m in self.mechanisms:
            lines += ["", f"{m.name}: Pufferfish level", _indent(m.pufferfish.explain())]
            if m.dp is not None:
                lines += [f"{m.name}: DP level (entry neighbours)", _indent(m.dp.explain())]
            if m.leakage is not None:
                lines.append(f"{m.name}: leakage {m.leakage.text()}")
        if self.joint is not None:
            lines += ["", "joint release: Pufferfish level", _indent(self.joint.explain())]
        if self.joint_dp is not None:
            lines += ["joint release: DP level (entry neighbours)", _indent(self.joint_dp.explain())]
        return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def symbolic_level(symbolic: SymbolicModel, candidates: list[Candidate], definition: str) -> SymbolicLevel:
    """The level ``log max(1, max_k A_k/B_k)`` (see the module docstring)."""
    field = symbolic.field
    ratios: dict = {field.one: "max(1, ·): the level is never below 0"}
    infinite = None
    for c in candidates:
        if not c.denominator:
            infinite = infinite or c.where
        else:
            ratios.setdefault(c.ratio, c.where)
    shown = tuple([(None, infinite)] if infinite else []) + tuple(
        (_factored(r, symbolic.box), w) for r, w in ratios.items() if r != field.one)
    if len(symbolic.box.names) != 1:
        return SymbolicLevel(definition, shown, None, None)
    return SymbolicLevel(definition, shown, _pieces(symbolic, ratios, infinite), symbolic.box.names[0])


def _pieces(symbolic: SymbolicModel, ratios: dict, infinite: str | None) -> tuple[Piece, ...]:
    """The upper envelope of ``ratios`` over the parameter's range, by covering: a rational
    sample ``t`` of a stretch not yet covered has a strict maximum ``f``; ``f`` stays maximal up to
    the nearest roots (around ``t``) of ``f − g`` for every other ``g`` and of every denominator,
    which bound its piece.  Each round isolates the roots of ``m`` polynomials and covers one
    piece of the envelope, so the cost is ``O(m · pieces)`` root isolations."""
    symbol = symbolic.box.symbols[0]
    low, high = symbolic.box.low[0], symbolic.box.high[0]
    start, end = exact_point(low, symbol), exact_point(high, symbol)
    if low == high:
        return ()
    if infinite:
        return (Piece(start, end, None, infinite),)
    items = list(ratios.items())
    terms = [(polynomial_terms(r.numer), polynomial_terms(r.denom)) for r, _ in items]
    poles = [as_poly(r.denom, symbol) for r, _ in items]
    events: dict[int, list[AlgebraicNumber]] = {}
    pieces: list[Piece] = []
    uncovered = [(start, end)]
    while uncovered:
        left, right = uncovered.pop()
        t = rational_between(left, right)
        while True:
            denominators = [evaluate_terms(d, (t,)) for _, d in terms]
            if all(denominators):
                values = [evaluate_terms(n, (t,)) / d for (n, _), d in zip(terms, denominators)]
                best = max(values)
                if values.count(best) == 1:
                    break
            t = rational_between(exact_point(t, symbol), right)
        k = values.index(best)
        if k not in events:
            polys = poles + [as_poly((items[k][0] - g).numer, symbol)
                             for j, (g, _) in enumerate(items) if j != k]
            events[k] = real_roots_in(polys, low, high)
        before = [e for e in events[k] if below(e, t)]
        after = [e for e in events[k] if not below(e, t)]
        piece_low = before[-1] if before and not (before[-1].is_rational and before[-1].value == low) else start
        piece_high = after[0] if after and not (after[0].is_rational and after[0].value == high) else end
        pieces.append(Piece(piece_low, piece_high, _factored(items[k][0], symbolic.box), items[k][1]))
        if left < piece_low:
            uncovered.append((left, piece_low))
        if piece_high < right:
            uncovered.append((piece_high, right))
    pieces.sort(key=lambda piece: piece.low)
    merged: list[Piece] = []
    for piece in pieces:
        if merged and merged[-1].ratio == piece.ratio and merged[-1].high == piece.low:
            merged[-1] = Piece(merged[-1].low, piece.high, piece.ratio, merged[-1].where)
        else:
            merged.append(piece)
    return tuple(merged)


def leakage_zero_set(symbolic: SymbolicModel, name: str) -> LeakageZeroSet:
    """Where the leakage of ``name`` is exactly zero (see the module docstring)."""
    conditions = [c.numer for c in symbolic.leakage_conditions(name)]
    if not conditions:
        return LeakageZeroSet(True, None, None)
    symbols = symbolic.box.symbols
    if len(symbols) == 1:
        polys = [as_poly(c, symbols[0]) for c in conditions]
        common = reduce(sympy.gcd, polys)
        cells = decompose([common], symbolic.box.low[0], symbolic.box.high[0])
        points = tuple(p for p in cells.points if sign_at(common, p) == 0)
        return LeakageZeroSet(False, points, None)
    common = reduce(sympy.gcd, [sympy.Poly(c.as_expr(), *symbols) for c in conditions])
    return LeakageZeroSet(False, None, None if common.total_degree() <= 0 else
                          sympy.factor(common.as_expr()))


def pufferfish_symbolic_level(symbolic: SymbolicModel, name) -> SymbolicLevel:
    """The Pufferfish level of mechanism ``name`` (a tuple of names: their joint release)."""
    candidates = symbolic.pufferfish_candidates(name)
    if not symbolic.interval_families:
        return symbolic_level(symbolic, candidates, "Pufferfish")
    return family_level(symbolic, name, candidates)


def family_level(symbolic: SymbolicModel, name, candidates: list[Candidate]) -> SymbolicLevel:
    """The Pufferfish level when some priors are interval families: the maximum over the finite
    priors' candidates and every family's guarded envelope
    (:func:`pufferfish.verify.symbolic.families.family_envelope`); each listed ratio says where it
    counts (its guards), and with one parameter the exact pieces are read on the cells of
    :func:`pufferfish.verify.symbolic.compare.envelope_pieces`."""
    branches = [Branch(c.numerator, c.denominator, (), c.where) for c in candidates]
    for family in symbolic.interval_families:
        branches += family_envelope(symbolic, name, family).branches
    envelope = Envelope(tuple(dict.fromkeys(branches)))
    shown = []
    for branch in envelope.branches:
        if branch.ratio == symbolic.field.one:
            continue
        guards = "".join(f"; where {g.as_expr()} {'>' if strict else '>='} 0"
                         for g, strict in branch.guards)
        shown.append((None if branch.ratio is None else _factored(branch.ratio, symbolic.box),
                       branch.where + guards))
    shown = list(dict.fromkeys(shown))
    if len(symbolic.box.names) != 1:
        return SymbolicLevel("Pufferfish", tuple(shown), None, None)
    pieces = []
    for low, high, branch in envelope_pieces(envelope, symbolic.box.symbols, symbolic.box.low,
                                             symbolic.box.high):
        ratio = None if branch.ratio is None else _factored(branch.ratio, symbolic.box)
        pieces.append(Piece(low, high, ratio, branch.where))
    return SymbolicLevel("Pufferfish", tuple(shown), tuple(pieces), symbolic.box.names[0])


def symbolic_audit(model: ParametricModel, max_datasets: int = DEFAULT_MAX_DATASETS,
                   max_outputs: int = DEFAULT_MAX_OUTPUTS, progress=None) -> SymbolicAudit:
    """Closed-form Pufferfish, DP and leakage levels of every mechanism, and the Pufferfish and
    DP levels of the joint release."""
    symbolic = SymbolicModel(model, max_datasets, max_outputs)
    names = list(model.data.get("mechanisms") or {})
    results = []
    families = symbolic.interval_families
    for name in names:
        if progress:
            progress(name)
        results.append(MechanismSymbolic(
            name, pufferfish_symbolic_level(symbolic, name),
            symbolic_level(symbolic, symbolic.dp_candidates(name), "DP"),
            None if families else leakage_zero_set(symbolic, name)))
    joint = joint_dp = None
    if len(names) >= 2:
        if progress:
            progress("joint release")
        joint = pufferfish_symbolic_level(symbolic, tuple(names))
        joint_dp = symbolic_level(symbolic, symbolic.dp_candidates(tuple(names)), "DP")
    return SymbolicAudit(model.box.to_dict(), tuple(results), joint, joint_dp)
