"""Markov quilts and the Markov Quilt Mechanism (Wang et al., Privacy-Preserving Analysis of
Correlated Data, §4, Appendix B)."""
