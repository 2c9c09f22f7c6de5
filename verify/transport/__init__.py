"""Optimal-transport calibration of Laplace noise (Wang et al., Privacy-Preserving Analysis of
Correlated Data, §3 and Appendix A; Ding et al., Multi-user Pufferfish Privacy, §2 and Appendix A),
one module per job:

* :mod:`~pufferfish.verify.transport.couplings` — finite measures on the line (the one ``atoms``
  validator) and couplings (comonotone, greedy partial, exact verification);
* :mod:`~pufferfish.verify.transport.w_infinity` — ``W_∞`` with certificates (Wang et al.,
  Privacy-Preserving Analysis of Correlated Data, Definition 3.1);
* :mod:`~pufferfish.verify.transport.trimmed` — the δ-trimmed ``W_∞`` (Wang et al.,
  Privacy-Preserving Analysis of Correlated Data, Appendix A.4);
* :mod:`~pufferfish.verify.transport.parameter` — ``W`` of Algorithm 1 over a model's pairs and priors;
* :mod:`~pufferfish.verify.transport.wasserstein` — the Wasserstein mechanism and Theorem 3.2;
* :mod:`~pufferfish.verify.transport.epsilon_delta` — the (ε, δ) variant and Theorem A.8;
* :mod:`~pufferfish.verify.transport.groups` — group-DP sensitivity (Theorem 3.3);
* :mod:`~pufferfish.verify.transport.queries` — the query syntax ``sum``, ``count``, ``parity``,
  ``attribute:NAME``;
* :mod:`~pufferfish.verify.transport.kantorovich` — ``W_1``, the Kantorovich plan and Δ*
  (Ding et al., Multi-user Pufferfish Privacy);
* :mod:`~pufferfish.verify.transport.laplace_level` — the exact privacy level of a query plus
  Laplace noise.
"""
