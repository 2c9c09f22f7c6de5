"""Exact audits whose cost follows the prior's structure, not the size of the universe.

A mechanism that reads the data through a decomposable statistic (a sum, a count, the values of a
few attributes) has an output law ``Pr[ω | s, θ]`` that depends on θ only through the joint law of
the secret and the statistic.  For a chain or a Bayesian network that joint law is computed by
sum-product on a junction tree whose potentials are polynomials in a formal variable ``z`` (the
exponent of ``z`` carries the statistic), exactly, without listing the datasets.

* :mod:`~pufferfish.verify.structured.statistics` — which statistic a mechanism reads, packed into
  one integer code, and the mechanism's kernel key as a function of that code;
* :mod:`~pufferfish.verify.structured.elimination` — the prior as factors on a junction tree, and
  the polynomial sum-product that gives ``Pr[s ∧ statistic = k | θ]`` for every secret;
* :mod:`~pufferfish.verify.structured.laws` — the law of the output given each secret (exact, and
  as certified balls that screen outputs before exact comparisons);
* :mod:`~pufferfish.verify.structured.audit` — Pufferfish level and leakage from those laws, and
  the decision whether an audit can take this path;
* :mod:`~pufferfish.verify.structured.dp` — per-entry DP from sumsets of codes;
* :mod:`~pufferfish.verify.structured.noise_level` (with
  :mod:`~pufferfish.verify.structured.noise_tools`) — the level of a sum or count with geometric or
  Laplace noise as a function of the noise;
* :mod:`~pufferfish.verify.structured.least_noise` — the least such noise, as a certified bracket;
* :mod:`~pufferfish.verify.structured.mqm_price` — the least scale beside the Markov Quilt
  Mechanism's and the Wasserstein mechanism's on the chains of Wang et al., §5
  (``pufferfish mqm-price``).
"""
