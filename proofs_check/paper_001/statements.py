"""Every numbered statement of Ding et al., Multi-user Pufferfish Privacy (Propositions 1–2,
Theorems 1–4, Lemmas 1–3, Remarks 1–2, Example 1, Tables 1–6, Figures 1–9) with the claims that
check it or the reason it cannot be checked on a finite instance
(:mod:`pufferfish.proofs_check.coverage`).

The paper numbers no definitions; its Pufferfish definition (§2.1, equation (1)) is what every
level computation decides.

>>> len(STATEMENTS), sum(s.checkable for s in STATEMENTS), sum(s.covered for s in STATEMENTS)
(27, 23, 21)
"""

from __future__ import annotations

from pufferfish.proofs_check.coverage import Statement

STATEMENTS: tuple[Statement, ...] = (
    Statement("Proposition 1", "§2, equation (5)", ("001.prop1.kantorovich",)),
    Statement("Table 1", "§3.1",
              reason="a glossary of the secrets s_a, s_⊥, s_P, s_Q; it states nothing checkable "
                     "(the secrets it defines are those of every 001 claim)", checkable=False),
    Statement("Theorem 1", "§4.1, equation (10)", ("001.thm1.values", "001.appA1.shift")),
    Statement("Figure 1", "§4.1", ("001.fig1.shift",)),
    Statement("Table 2", "§4.1",
              reason="input data (users 1–3); it is the system of every figure claim "
                     "(001.fig1.shift ... 001.fig8.lemma2)", checkable=False),
    Statement("Theorem 2", "§4.2, equation (12)", ("001.thm2.presence", "001.appA1.shift")),
    Statement("Remark 1", "§4.2", ("001.remark1.zero",)),
    Statement("Figure 2", "§4.2", ("001.fig2.presence",)),
    Statement("Theorem 3", "§4.3, equations (13)-(15)",
              ("001.thm3.eq13", "001.thm3.eq14", "001.eq15.bernoulli", "001.thm3.eq13_tight",
               "001.eq15.symbolic")),
    Statement("Remark 2", "§4.3", ("001.remark2.relaxed",)),
    Statement("Figure 3", "§4.3.1", ("001.fig3.absent",)),
    Statement("Table 3", "§4.3.1",
              reason="input data (P_4, Q_4); it is the system of 001.fig3.absent, "
                     "001.fig4.eq13 and 001.fig6.user_only", checkable=False),
    Statement("Figure 4", "§4.3.1", ("001.fig4.eq13",)),
    Statement("Figure 5", "§4.3.2",
              reason="θ of (13) and (14) on three UCI data sets (adult, bank marketing, student "
                     "performance), which the project does not ship; the statement it "
                     "illustrates (Remark 2) is checked by 001.remark2.relaxed on generated "
                     "distributions"),
    Statement("Theorem 4", "§4.4, equations (16)-(17)",
              ("001.thm4.user_only", "001.thm4.bound")),
    Statement("Figure 6", "§4.4", ("001.fig6.user_only",)),
    Statement("Lemma 1", "§4.4.1, equation (18)", ("001.lemma1.bernoulli",)),
    Statement("Figure 7", "§4.4.1", ("001.fig7.bernoulli",)),
    Statement("Lemma 2", "§4.4.1, equations (19)-(23)",
              ("001.lemma2.relaxed", "001.lemma2.condition20")),
    Statement("Figure 8", "§4.4.1", ("001.lemma2.smaller", "001.fig8.lemma2")),
    Statement("Figure 9", "§4.4.1",
              reason="θ of Lemmas 1 and 2 on binary features of three UCI data sets, which the "
                     "project does not ship; the comparison it illustrates (θ21 < 1/ε) is "
                     "checked by 001.lemma2.smaller on generated Bernoulli pairs"),
    Statement("Lemma 3", "Appendix A, equation (25)",
              ("001.lemma3.lattice", "001.lemma3.support_points")),
    Statement("Proposition 2", "Appendix A, equation (28)", ("001.prop2.delta_star",)),
    Statement("Example 1", "Appendix A", ("001.ex1.delta_star", "001.ex1.equal_deltas")),
    Statement("Table 4", "Appendix A, Example 1",
              reason="input data (the two priors of Example 1); it is the instance of the "
                     "Example 1 claims", checkable=False),
    Statement("Table 5", "Appendix A, Example 1", ("001.table5.printed",)),
    Statement("Table 6", "Appendix A, Example 1", ("001.table6.printed",)),
)
"""Paper 001's numbered statements in the order of the paper."""
