"""Claims of Bai, He, Gu, Kifer, Maeng, Composition for Pufferfish Privacy, one module per part of
the paper; also the paper's collapse examples, Figure 2 and the Top-K experiments of §7
(``topk/``), the claims' mutants (``mutation``) and the inventory of the paper's numbered
statements (``statements``)."""

CLAIM_MODULES = (
    "collapse",  # §4, Theorems 1–3
    "nfc",  # §5.1, Theorem 4
    "postprocessing",  # §5.2, Theorem 5
    "influence",  # §6, Theorems 6–9
    "group_dp",  # §2.1, Definition 3
    "algorithms",  # Appendix B, Algorithm 1
    "influence_curve",  # §6.1, Definition 7
    "figure2",  # §6.3, Figure 2(a)
    "symbolic_claims",  # §4, Examples 4.1–4.2 as functions of a prior parameter
    "tables",  # §7.2–7.3, Appendix D.3, Tables 2–5 and 7–8 (statistical, synthetic data)
    "exponential",  # Appendix B, Algorithm 2; §6.4.2
)
"""The modules that register this paper's claims when imported (in this order)."""
