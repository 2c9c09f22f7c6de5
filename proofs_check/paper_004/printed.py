"""Claims about the printed experimental results of Zhang et al., Differential Confounding Privacy
and Inverse Composition (§IV-A, Fig. 1; App. N, Table VIII): their targets must agree with each
other.

=====================  =========================================================================
``004.tableVIII.rows`` Table VIII: every "Single" row has the targets (ε_g, ε_i) of the
                       "Composition" row it is compared with
``004.fig1.targets``   Fig. 1 (a) (independent perturbation, the "single-shot re-design" of
                       Table VIII): its caption lists the targets of Table VIII's rows
=====================  =========================================================================

The AUC values themselves come from neural-network attacks on the iDASH 2016 genomic data, which
the project does not have; only the printed parameters can be checked.  Table VIII's rows are
copied from the paper text (a Single row without its own target label repeats the row above).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.proofs_check.registry import Claim, ClaimOutcome, Instance, Mutant, register

PAPER = paper("004").key
Q = Fraction
TABLE_VIII = (
    ("Composition", Q("0.4"), Q("0.05")), ("Single", Q("0.4"), Q("0.05")),
    ("Composition", Q("0.6"), Q("0.1")), ("Single", Q("0.0"), Q("0.1")),
    ("Composition", Q(1), Q("0.18")), ("Single", Q(1), Q("0.18")),
    ("Composition", Q(2), Q("0.3")), ("Single", Q(2), Q("0.3")),
    ("Composition", Q(4), Q("0.6")), ("Single", None, None),
    ("Composition", Q(6), Q(1)), ("Single", None, None),
)
"""Table VIII as printed: (type, ε_g, ε_i); None where the row prints no target."""
FIG1_A = ((Q("0.25"), Q("0.05")), (Q("0.25"), Q("0.1")), (Q("1.5"), Q("0.3")),
          (Q(3), Q("0.6")), (Q(5), Q(1)))
"""Fig. 1 (a)'s caption: ε_g = {0.25, 0.25, 1.5, 3, 5} with ε_i = {0.05, 0.1, 0.3, 0.6, 1}."""
FIG1_B = ((Q("0.4"), Q("0.05")), (Q("0.6"), Q("0.1")), (Q(1), Q("0.18")), (Q(2), Q("0.3")),
          (Q(4), Q("0.6")), (Q(6), Q(1)))
"""Fig. 1 (b)'s caption: ε_g = {0.4, 0.6, 1, 2, 4, 6} with ε_i = {0.05, 0.1, 0.18, 0.3, 0.6, 1}."""


def _table() -> Iterator[Instance]:
    yield Instance("Table VIII and Fig. 1 as printed", {"table": TABLE_VIII})


def _resolved(table):
    rows, last = [], None
    for kind, eps_g, eps_i in table:
        target = (eps_g, eps_i) if eps_g is not None else last
        rows.append((kind, target))
        last = target
    return rows


def _text(target) -> str:
    return "(" + ", ".join(str(float(v)) for v in target) + ")"


def rows_check(instance: Instance) -> ClaimOutcome:
    """Each Single row (odd position) has the targets of the Composition row before it."""
    rows = _resolved(instance.params["table"])
    wrong = [f"row {k + 2}: Single (ε_g, ε_i) = {_text(rows[k + 1][1])} after Composition "
             f"{_text(rows[k][1])}" for k in range(0, len(rows), 2) if rows[k][1] != rows[k + 1][1]]
    text = "; ".join(wrong) or "every Single row repeats its targets"
    if wrong:
        return ClaimOutcome(False, text, {"description": f"counterexample ({cite(PAPER)}, "
                                          f"Table VIII): {text}"})
    return ClaimOutcome(True, text)


def fig1_check(caption=FIG1_A, label: str = "(a)"):
    """Fig. 1 ``label``'s caption targets equal the Composition targets of Table VIII."""
    def check(instance: Instance) -> ClaimOutcome:
        table = [t for kind, t in _resolved(instance.params["table"]) if kind == "Composition"]
        text = (f"Fig. 1 {label}: {', '.join(_text(t) for t in caption)}; Table VIII: "
                f"{', '.join(_text(t) for t in table)}")
        if list(caption) == table:
            return ClaimOutcome(True, text)
        return ClaimOutcome(False, text, {"description": f"counterexample ({cite(PAPER)}, Fig. 1): "
                                          f"{text}"})
    return check


register(Claim("004.tableVIII.rows", PAPER, "App. N, Table VIII",
               "every Single row of Table VIII has the targets (ε_g, ε_i) of its Composition "
               "row", _table, rows_check, False,
               (Mutant.checking("a Composition row's ε_i changed",
                                rows_check, lambda: iter([Instance("mutated", {"table": (
                                    ("Composition", Q("0.4"), Q("0.1")),
                                    ("Single", Q("0.4"), Q("0.05")))})])),)))
register(Claim("004.fig1.targets", PAPER, "§IV-A, Fig. 1 (a); App. N, Table VIII",
               "Fig. 1 (a) (independent perturbation) lists the targets of Table VIII "
               "(single-shot re-design)", _table, fig1_check(), False,
               (Mutant.checking("Fig. 1 (b)'s caption compared with Table VIII with its last "
                                "row dropped",
                                fig1_check(FIG1_B[:-1], "(b) without its last target"),
                                _table),)))
