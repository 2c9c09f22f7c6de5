"""Mechanism design: the Pufferfish mechanism of least expected loss, exactly
(Bai et al., Composition for Pufferfish Privacy, §2.2 Definition 5; DP-style constraints for
composition §5–6).

* :mod:`~pufferfish.verify.design.problem` — the linear program with exact coefficients;
* :mod:`~pufferfish.verify.design.losses` — ``l1``, ``l2``, ``01`` and loss tables;
* :mod:`~pufferfish.verify.design.lp` — the floating-point solve (CVXPY/HiGHS), a candidate only;
* :mod:`~pufferfish.verify.design.exact` — the exact feasible mechanism and the dual lower bound;
* :mod:`~pufferfish.verify.design.report` — :func:`design_mechanism`, the result and the model
  file with the designed mechanism;
* :mod:`~pufferfish.verify.design.compare` — the papers' mechanisms at the same budget and the
  price of composability.
"""
