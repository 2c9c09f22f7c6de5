"""Optimal-transport calibration of Laplace noise: W∞ and the Wasserstein mechanism
(``002_e1f2e9a9937b8cda.txt`` §3), Kantorovich W1 (``001_3a97785a86d61e37.txt``), and the exact
privacy level of a query plus Laplace noise."""
