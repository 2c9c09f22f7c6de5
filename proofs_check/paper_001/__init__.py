"""Claims of ``001_3a97785a86d61e37.txt`` (Ding, Yang, Lu, Zhang — Multi-user Pufferfish Privacy)."""

from pufferfish.proofs_check.paper_001 import multiuser  # noqa: F401  (§2–4 and Appendix A)
