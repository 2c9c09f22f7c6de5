"""Parametric models in closed form: every exact quantity of a model whose
probabilities are rational functions of parameters is itself a rational function.

``evaluate``    the model's probabilities and Definitions 1, 4, 5 as rational functions
``univariate``  exact cell decomposition of a parameter range by real roots
``levels``      closed-form (piecewise) Pufferfish and DP levels, leakage zero-sets
``region``      where a budget holds: exact intervals (one parameter), certified maps (several)
``postprocess`` closed-form levels of a mechanism before and after a post-processor
``nfc_region``  where Theorem 4's NfC value is <= ε: boxes certified numerically (LP certificates)
``plot``        the picture of a two-parameter map
``families``    the level over an interval family with parametric bounds (a guarded envelope)
``compare``     two levels compared as functions: exact differing sets, certified maps
``certified_map`` where a transcendental inequality holds: interval arithmetic and bisection
"""
