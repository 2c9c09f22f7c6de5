"""Claims of Wang, Song, Chaudhuri, Privacy-Preserving Analysis of Correlated Data, one module per
part of the paper; also the flu example and Figures 1, 3, 4."""

CLAIM_MODULES = (
    "wasserstein",  # §3 and Appendix A
    "quilts",  # §4 and Appendix B
    "appendix_lemmas",  # Appendix A.2 Lemma A.6, B.9 Lemma B.12
    "optimality",  # Appendix A.3
    "inferential",  # Appendix B.10, spectral-norm condition
    "vector_release",  # Appendix B.2: vector-valued F (Proposition 1 of [7] as used)
    "figure_readings",  # Appendix B.12: Figure 4's qualitative readings
    "figure_comparisons",  # §5 and Appendix B.11: Figures 1 and 3's readings
    "symbolic_claims",  # Lemma B.4 as a function of a two-state chain's parameters
)
"""The modules that register this paper's claims when imported (in this order)."""
