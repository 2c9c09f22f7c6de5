"""Multi-user Pufferfish privacy and its Laplace calibrators (Ding et al., Multi-user Pufferfish
Privacy, §4), one module per job:

* :mod:`~pufferfish.verify.multiuser.pairs` — the pairs of a pair set with the conditionals of the
  aggregate; empty pair sets refused;
* :mod:`~pufferfish.verify.multiuser.thetas` — the calibrators' θ, exact or certified
  (equations (13), (15), (21));
* :mod:`~pufferfish.verify.multiuser.levels` — the certified level of ``X + Lap(θ)``, the decision
  at a transcendental θ, and the minimal θ;
* :mod:`~pufferfish.verify.multiuser.relaxed` — the relaxed sufficient condition (20);
* :mod:`~pufferfish.verify.multiuser.calibration` — every calibrator on a pair set
  (:func:`~pufferfish.verify.multiuser.calibration.calibrate`).

The multi-user system itself is :mod:`pufferfish.models.multiuser`.
"""
