"""Instances of Ding et al., Multi-user Pufferfish Privacy given in the paper itself: the users of
Table 2, the distributions of Table 3, and the multi-user systems of Figures 1–4 and 6–8 (§4).

Table 2 lists three always-present users on {1, ..., 5}; user 4 is the protected user, with value
secrets (Figures 1–2), the distributions ``P_4``, ``Q_4`` of Table 3 (Figures 3, 4, 6) or
Bernoulli distributions (Figures 7–8).  The paper gives no presence probability ``ζ_4``; it must
be in (0, 1) for the pairs with ``s_{⊥_4}`` to constrain anything, so it defaults to 1/2.

>>> from pufferfish.models.multiuser import conditional_pair
>>> model = paper_value_model()
>>> first, second = conditional_pair(model, model.pairs("ab")[0])
>>> min(first.support), min(second.support)
(Fraction(8, 1), Fraction(6, 1))
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from pufferfish.models.distribution import Distribution
from pufferfish.models.multiuser import MultiUserModel, User, bernoulli
from pufferfish.models.numbers import exact


def _dist(values: Mapping) -> Distribution:
    return Distribution({exact(v, "values"): p for v, p in values.items()}, "distribution")


def paper_table2_users() -> tuple[User, User, User]:
    """Table 2: users 1–3 on {1, ..., 5}, always present (the paper gives no ζ for them)."""
    rows = {"u1": ["0.01", "0.04", "0.1", "0.2", "0.65"],
            "u2": ["0.7", "0.2", "0.05", "0.04", "0.01"],
            "u3": ["0.2", "0.2", "0.2", "0.2", "0.2"]}
    return tuple(User(name, Fraction(1), _dist({k + 1: p for k, p in enumerate(row)}))
                 for name, row in rows.items())


def paper_table3() -> tuple[Distribution, Distribution]:
    """Table 3: ``P_4 = (0.4, 0.1, 0, 0.1, 0.4)`` and ``Q_4 = (0, 0.05, 0.9, 0.05, 0)`` on {1..5}."""
    return (_dist({1: "0.4", 2: "0.1", 3: "0", 4: "0.1", 5: "0.4"}),
            _dist({1: "0", 2: "0.05", 3: "0.9", 4: "0.05", 5: "0"}))


def paper_value_model(presence: Fraction = Fraction(1, 2)) -> MultiUserModel:
    """Figures 1–2: Table 2 plus user 4 with value secrets ``a_4 = 5``, ``b_4 = 3`` (𝕊_{a,b}) and
    ``a_4 = 5`` vs absent (𝕊_{a,⊥}).  The paper gives no ``ζ_4``; it must be in (0, 1) for the
    pair with ``s_{⊥_4}`` to constrain anything, so ``presence`` defaults to 1/2."""
    user4 = User("u4", presence, None, None, (Fraction(3), Fraction(5)),
                 ((Fraction(5), Fraction(3)),), (Fraction(5),))
    return MultiUserModel(paper_table2_users() + (user4,), ("u4",), "marginal",
                          "Table 2 users 1-3; user 4 reports 5 or 3, or is absent (Figures 1-2)")


def paper_distribution_model(presence: Fraction = Fraction(1, 2)) -> MultiUserModel:
    """Figures 3, 4 and 6: Table 2 plus user 4 with ``P_4`` and ``Q_4`` of Table 3."""
    p4, q4 = paper_table3()
    user4 = User("u4", presence, p4, q4, tuple(Fraction(k) for k in range(1, 6)))
    return MultiUserModel(paper_table2_users() + (user4,), ("u4",), "marginal",
                          "Table 2 users 1-3; user 4 with P4 or Q4 of Table 3 (Figures 3, 4, 6)")


def paper_bernoulli_model(p: Fraction = Fraction(1, 5), q: Fraction = Fraction(9, 10),
                          presence: Fraction = Fraction(1, 2)) -> MultiUserModel:
    """Figures 7–8: Table 2 plus a Bernoulli user 4, ``P_4 = Bernoulli(0.2)``,
    ``Q_4 = Bernoulli(0.9)``."""
    user4 = User("u4", presence, bernoulli(p), bernoulli(q), (Fraction(0), Fraction(1)))
    return MultiUserModel(paper_table2_users() + (user4,), ("u4",), "marginal",
                          "Table 2 users 1-3; user 4 Bernoulli(0.2) or Bernoulli(0.9) (Figures 7-8)")
