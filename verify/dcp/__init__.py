"""Differential confounding privacy: levels, composition and inverse composition
(``004_acc5641f8e5f8c79.txt``)."""
