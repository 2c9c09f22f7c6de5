"""Claims of Ding, Yang, Lu, Zhang, Multi-user Pufferfish Privacy, and the paper's tables as
instances."""

CLAIM_MODULES = (
    "multiuser",  # §2–4 and Appendix A
    "example1",  # Appendix A: Example 1, Tables 4–6, Lemma 3 as printed
    "figures",  # §4: Figures 1–4 and 6–8 on the paper's systems
    "symbolic_claims",  # §4.3.2: equation (15) as a function of p and ε
)
"""The modules that register this paper's claims when imported (in this order)."""
