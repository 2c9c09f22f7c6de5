"""Optimal-transport calibration of Laplace noise (``002_e1f2e9a9937b8cda.txt`` §3 and Appendix A;
``001_3a97785a86d61e37.txt`` §2 and Appendix A), one module per job:

* :mod:`~pufferfish.verify.transport.couplings` — finite measures on the line (the one ``atoms``
  validator) and couplings (comonotone, greedy partial, exact verification);
* :mod:`~pufferfish.verify.transport.w_infinity` — ``W_∞`` with certificates (002 Definition 3.1);
* :mod:`~pufferfish.verify.transport.trimmed` — the δ-trimmed ``W_∞`` (002 Appendix A.4);
* :mod:`~pufferfish.verify.transport.parameter` — ``W`` of Algorithm 1 over a model's pairs and priors;
* :mod:`~pufferfish.verify.transport.wasserstein` — the Wasserstein mechanism and Theorem 3.2;
* :mod:`~pufferfish.verify.transport.epsilon_delta` — the (ε, δ) variant and Theorem A.8;
* :mod:`~pufferfish.verify.transport.groups` — group-DP sensitivity (Theorem 3.3);
* :mod:`~pufferfish.verify.transport.queries` — the query syntax ``sum``, ``count``, ``parity``,
  ``attribute:NAME``;
* :mod:`~pufferfish.verify.transport.kantorovich` — ``W_1``, the Kantorovich plan and Δ* (001);
* :mod:`~pufferfish.verify.transport.laplace_level` — the exact privacy level of a query plus
  Laplace noise.
"""
