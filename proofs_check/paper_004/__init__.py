"""Claims of ``004_acc5641f8e5f8c79.txt`` (Zhang, Malin, Raviv, Vorobeychik — Differential
Confounding Privacy and Inverse Composition): §III composition, §IV inverse composition."""

from pufferfish.proofs_check.paper_004 import composition  # noqa: F401  (Theorems 1, 2, 3, 5; Props 1, 4; Lemmas 4, 7)
