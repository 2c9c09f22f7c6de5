"""Differential confounding privacy: levels, composition and inverse composition
(Zhang et al., Differential Confounding Privacy and Inverse Composition)."""
