"""The numbered statements of Bai et al., Composition for Pufferfish Privacy and how the toolkit
checks each one (``pufferfish theorems --coverage``;
:class:`pufferfish.proofs_check.coverage.Statement`).

Read from the paper, in its order: every Definition, Theorem, Example, Algorithm, Figure and Table.
A statement lists the registered claims that check it; one without a claim says why no finite
instance decides it and what is done instead.  Definitions have no truth value: a definition is
listed with the claims that compute it independently of the toolkit's implementation, if any.

>>> names = [s.name for s in STATEMENTS]
>>> names[:3]
['Table 1', 'Definition 1', 'Definition 2']
>>> all(s.claims or s.reason for s in STATEMENTS)
True
"""

from __future__ import annotations

from pufferfish.proofs_check.coverage import Statement

_DEFINITION = "a definition (no truth value); implemented in "
_STATISTICAL = ("the table's values on the paper's data ({data} are not available here); "
                "the ordering the text draws from the table is a STATISTICAL check on SYNTHETIC "
                "data: decided cell by cell on the synthetic reproduction "
                "(proofs_check/paper_000/tables.py, `experiment topk`'s data and calibrations) "
                "with a Hoeffding bound at 95% simultaneous confidence, cells the bound cannot "
                "decide reported undecided")
_FOURSQUARE = _STATISTICAL.format(data="Foursquare check-ins")
_CAPTURE24 = _STATISTICAL.format(data="Capture24 activities")

STATEMENTS: tuple[Statement, ...] = (
    Statement("Table 1", "§2", reason="table of notation: nothing to check", checkable=False),
    Statement("Definition 1", "§2.1", reason=_DEFINITION + "pufferfish.verify.privacy.dp "
              "(dp_level, neighbours differing in one record)", checkable=False),
    Statement("Definition 2", "§2.1", claims=("000.thm4.dp_one_hot",),
              reason=_DEFINITION + "pufferfish.verify.privacy.dp (per-entry); 000.thm4.dp_one_hot "
              "recomputes it by brute force and compares"),
    Statement("Definition 3", "§2.1", claims=("000.def3.group_dp",)),
    Statement("Definition 4", "§2.2", claims=("000.thm1.zero_leakage", "000.thm2.zero_leakage"),
              reason=_DEFINITION + "pufferfish.verify.privacy.leakage (posteriors vs priors)"),
    Statement("Definition 5", "§2.2", claims=("000.thm5.pufferfish_dp_invariance",),
              reason=_DEFINITION + "pufferfish.verify.privacy.pufferfish; its post-processing "
              "invariance (§2) is checked"),
    Statement("Example 4.1", "§4", claims=("000.ex41.two_runs", "000.ex41.symbolic")),
    Statement("Theorem 1", "§4", claims=("000.thm1.zero_leakage", "000.thm1.expected_runs_bound",
                                        "000.thm1.expected_runs_formula")),
    Statement("Example 4.2", "§4", claims=("000.ex42.two_runs", "000.ex42.prior")),
    Statement("Theorem 2", "§4", claims=("000.thm2.zero_leakage", "000.thm2.expected_runs")),
    Statement("Example 4.3", "§4", claims=("000.ex43.two_runs", "000.ex43.symbolic")),
    Statement("Theorem 3", "§4", claims=("000.thm3.epsilon", "000.thm3.expected_runs",
                                        "000.thm3.epsilon_tight", "000.thm3.symbolic")),
    Statement("Theorem 4", "§5.1; Appendix C", claims=(
        "000.thm4.dp_one_hot", "000.thm4.collapse_fails", "000.thm4.limit",
        "000.thm4.strong_duality")),
    Statement("Theorem 5", "§5.2; Appendix C", claims=(
        "000.thm5.one_hot_invariant", "000.thm5.mixed_not_invariant",
        "000.thm5.every_constraint_invariant")),
    Statement("Figure 1", "§6.1", reason="an illustration of X_R, X_Q, X_N on a chain (the quilt "
              "sets are checked for paper 002 by 002.lemB2.chain_quilts)", checkable=False),
    Statement("Definition 6", "§6.1", reason=_DEFINITION + "pufferfish.verify.influence.max_influence",
              checkable=False),
    Statement("Definition 7", "§6.1", claims=("000.def7.curve",)),
    Statement("Theorem 6", "§6.2", claims=("000.thm6.translation",)),
    Statement("Theorem 7", "§6.2", claims=("000.thm7.composition",)),
    Statement("Example 6.1", "§6.3", claims=("000.thm8.closed_form", "000.thm8.boundary")),
    Statement("Theorem 8", "§6.3; Appendix C", claims=("000.thm8.closed_form", "000.thm8.boundary",
                                                       "000.thm8.symbolic")),
    Statement("Figure 2", "§6.3", claims=("000.fig2a.correlation",),
              reason="panel (a)'s reading is checked exactly; panel (b) (Gaussian priors) is "
              "numerical and drawn by proofs_check/paper_000/figures.py, its reading (stronger "
              "decay ℓ, farther curve) is not a registered claim"),
    Statement("Example 6.2", "§6.3", claims=("000.thm9.centre", "000.thm9.farthest_low")),
    Statement("Theorem 9", "§6.3", claims=("000.thm9.centre", "000.thm9.farthest_low"),
              reason="the centre claim and part (1) are decided with certified enclosures of "
              "a†(L) over the whole region range; part (2), the reduction to a sweep over the "
              "conditional mean, is the quantity those enclosures bound (not checked "
              "independently)"),
    Statement("Table 2", "§7.2", claims=("000.table2.ordering",), reason=_FOURSQUARE),
    Statement("Table 3", "§7.2", claims=("000.table3.ordering",), reason=_FOURSQUARE),
    Statement("Table 4", "§7.3", claims=("000.table4.ordering",), reason=_CAPTURE24),
    Statement("Table 5", "§7.3", claims=("000.table5.ordering",), reason=_CAPTURE24),
    Statement("Table 6", "Appendix A", reason="an overview of privacy definitions in the "
              "literature: nothing to check", checkable=False),
    Statement("Algorithm 1", "Appendix B", claims=("000.alg1.printed_private",
                                                   "000.alg1.best_point_private"),
              reason="as printed ε_DP is the minimum over the curve points, so it never adds less "
              "noise than group DP; §6.4.1's best-point reading (used by topk/mechanisms.py) is "
              "registered as its own claim"),
    Statement("Algorithm 2", "Appendix B; §6.4.2", claims=(
        "000.alg2.printed_private", "000.alg2.best_point_private", "000.sec642.exponential_dp"),
              reason="priors and utilities beyond the instances (binary chains, three utilities "
              "of the count); the output probabilities exp(u·ε_DP/2L) are transcendental, so the "
              "Pufferfish and DP levels are enclosed by certified interval arithmetic; as printed "
              "ε_DP is the minimum over the curve points (never less noise than group DP), "
              "§6.4.2's best-point reading (used by topk/mechanisms.py) is its own claim"),
    Statement("Figure 3", "Appendix C", reason="an illustration of the proof of Theorem 4",
              checkable=False),
    Statement("Table 7", "Appendix D.3", claims=("000.table7.ordering",),
              reason=_FOURSQUARE),
    Statement("Table 8", "Appendix D.3", claims=("000.table8.ordering",),
              reason=_FOURSQUARE + "; the caption says Top-3, the values and §D.3 are the "
              "Top-5 run's, checked as Top-5"),
)
"""The paper's numbered statements, in order."""

__all__ = ["STATEMENTS"]
