"""Markov quilts and the Markov Quilt Mechanism (``002_e1f2e9a9937b8cda.txt`` §4, Appendix B)."""
