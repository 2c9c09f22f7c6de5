"""Claims of Zhang, Malin, Raviv, Vorobeychik, Differential Confounding Privacy and Inverse
Composition: §III composition, §IV inverse composition."""

CLAIM_MODULES = (
    "composition",  # Theorems 1, 2, 3, 5; Props 1, 4; Lemmas 4, 7
    "reduction",  # App. C.3: DCP as Pufferfish privacy
    "inverse_claims",  # §IV: Theorem 2 (iii), Π[τ, δ] and the Tasks' convexity; Lemma 6
    "printed",  # §IV-A Fig. 1 and Table VIII: the printed targets
    "profiles",  # App. K: Lemmas 2 and 3 (δ(ε) = 1 + f*(−e^ε))
    "attack_lemmas",  # App. L, M: Lemma 5 (every attack model σ) and Lemma 8
    "gaussian_copula",  # App. G–I: Theorem 4, Proposition 3, Lemma 1 (certified continuous)
)
"""The modules that register this paper's claims when imported (in this order)."""
