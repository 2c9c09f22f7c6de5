"""The law of the aggregate ``X`` by enumerating every configuration of the other users
(Ding et al., Multi-user Pufferfish Privacy, §3, equations (7)–(9)), an independent cross-check of
:func:`pufferfish.models.multiuser.conditional` (which multiplies generating polynomials).

Definition.  Each other user ``j`` is, under the ``"marginal"`` reading, absent with probability
``1 − ζ_j`` (contributing nothing) or present reporting ``v`` with probability ``ζ_j P_j(v)``;
under the ``"present"`` reading always present.  The protected user contributes ``reported``
(``None`` for absent).  The law of ``X`` is the sum over all configurations of their probability
at the configuration's total.

Cost: ``Π_j (|supp P_j| + 1)`` configurations (exponential in the number of users; meant for
the small systems of the claims).

>>> from pufferfish.models.multiuser import MultiUserModel, User, bernoulli
>>> model = MultiUserModel((User("o", Fraction(1, 2), bernoulli(Fraction(1, 2))),
...                         User("i", Fraction(1), bernoulli(Fraction(1, 3)))), ("i",))
>>> dict(aggregate_law(model, "i", Fraction(5)).items())
{Fraction(5, 1): Fraction(3, 4), Fraction(6, 1): Fraction(1, 4)}
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from pufferfish.models.distribution import Distribution
from pufferfish.models.multiuser import MultiUserModel


def aggregate_law(model: MultiUserModel, target: str, reported: Fraction | None) -> Distribution:
    """The law of ``X`` when user ``target`` reports ``reported`` (``None``: is absent)."""
    options = []
    for user in model.users:
        if user.name == target:
            continue
        choices = [(Fraction(v), user.presence * p if model.others == "marginal" else p)
                   for v, p in user.distribution.items()]
        if model.others == "marginal" and user.presence < 1:
            choices.append((Fraction(0), 1 - user.presence))
        options.append(choices)
    law: dict[Fraction, Fraction] = {}
    base = Fraction(0) if reported is None else Fraction(reported)
    for configuration in product(*options):
        total, weight = base, Fraction(1)
        for value, p in configuration:
            total += value
            weight *= p
        if weight:
            law[total] = law.get(total, Fraction(0)) + weight
    return Distribution(law)
