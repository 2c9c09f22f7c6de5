"""Certified numerics: the one place for interval arithmetic, certified logarithms, sign decisions
and the comparison of exact ratios with budgets (exactness policy in :doc:`/design`)."""
