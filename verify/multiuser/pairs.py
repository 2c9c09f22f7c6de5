"""The pairs of a pair set with the exact conditional distributions of the aggregate
(Ding et al., Multi-user Pufferfish Privacy, §4, the pair sets 𝕊_{a,b}, 𝕊_{a,⊥}, 𝕊_{P,⊥}, 𝕊_{P,Q};
§3.1, equations (7)–(9)).

* :func:`pair_conditionals` — every non-vacuous pair of a pair set with ``Pr(X = · | s)`` for both
  secrets (:func:`pufferfish.models.multiuser.conditional_pair`), and the vacuous pairs (a secret
  of prior probability 0: the Pufferfish condition imposes nothing).  Cost: one
  :func:`pufferfish.models.multiuser.others_sum` per protected user plus one convolution per
  distribution secret.
* :func:`require_pairs` — refuses a pair set that has no pair for some protected user (for
  instance 𝕊_{P,Q} for a user without an alternative ``Q``): a calibration over it would check
  nothing for that user and report success.  The error names the user, what is missing, and the
  JSON path of the missing entry in a multi-user model file.

>>> from fractions import Fraction
>>> from pufferfish.models.multiuser import MultiUserModel, User, bernoulli
>>> model = MultiUserModel((User("o", distribution=bernoulli(Fraction(1, 2))),
...                         User("i", distribution=bernoulli(Fraction(1, 4)))), ("i",))
>>> pairs, vacuous = pair_conditionals(model, "ab")
>>> [cp.pair.label for cp in pairs], vacuous
(['(i=0, i=1)'], ())
>>> require_pairs(model, "PQ")
Traceback (most recent call last):
    ...
pufferfish.models.errors.ModelError: users.1.alternative: the pair set PQ has no pair for the protected user 'i': it has no alternative distribution Q, so nothing would be checked
"""

from __future__ import annotations

from dataclasses import dataclass

from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError, join_path
from pufferfish.models.multiuser import (MultiUserModel, User, UserSecretPair, conditional_pair,
                                         lattice_points, others_sum)
from pufferfish.models.universe import size_text
from pufferfish.models.numbers import fraction_str


@dataclass(frozen=True)
class ConditionalPair:
    """A non-vacuous pair with the exact conditional distributions of X given each secret."""

    pair: UserSecretPair
    first: Distribution
    second: Distribution


def pair_conditionals(model: MultiUserModel, pair_set: str, naive: bool = False
                      ) -> tuple[tuple[ConditionalPair, ...], tuple[UserSecretPair, ...]]:
    """The non-vacuous pairs of ``pair_set`` with their exact conditionals, and the vacuous ones."""
    active, vacuous = [], []
    cache: dict[str, Distribution] = {}
    for pair in model.pairs(pair_set):
        if pair.vacuous:
            vacuous.append(pair)
            continue
        user = pair.first.user
        if user not in cache:
            cache[user] = others_sum(model, user, naive)
        first, second = conditional_pair(model, pair, cache[user])
        active.append(ConditionalPair(pair, first, second))
    return tuple(active), tuple(vacuous)


MAX_PAIR_POINTS = 2_000
"""The most pair points a calibration may take on (:func:`check_pair_work`): every calibrator
evaluates each pair's conditional distributions at each of their points, 25 to 60 ms per point
over a whole calibration (measured: 500 values of another user, 510 points, 35 s; 2,000 values,
128 s), so one to two minutes at this limit; 10^5 values ran for four minutes and more."""


def check_pair_work(model: MultiUserModel, pair_set: str, limit: int = MAX_PAIR_POINTS) -> int:
    """The work of calibrating ``pair_set``, counted before any pair or distribution is built:
    for each protected user, its pairs (:meth:`MultiUserModel.pair_count`) times the lattice
    points of the aggregate's distribution (the other users' values and its own,
    :func:`~pufferfish.models.multiuser.lattice_points`); above ``limit`` it is refused with a
    :class:`TooLargeError` that states both factors."""
    total = 0
    for name in model.targets:
        pairs = model.pair_count(name, pair_set)
        if not pairs:
            continue
        parts = [d for u in model.users for d in (u.distribution, u.alternative)
                 if d is not None and (u.name == name or d is u.distribution)]
        points = lattice_points(parts)
        total += pairs * points
        if total > limit:
            raise TooLargeError(
                f"calibrating {pair_set} would compare {size_text(pairs)} "
                f"pair{'' if pairs == 1 else 's'} for user "
                f"{name!r}, each over distributions of up to {size_text(points)} points: "
                f"{size_text(total)} pair points so far, more than the limit of "
                f"{size_text(limit)}; list fewer value pairs (value_pairs) or coarser values",
                "--pairs")
    return total


def require_pairs(model: MultiUserModel, pair_set: str) -> tuple[UserSecretPair, ...]:
    """The pairs of ``pair_set``; :class:`ModelError` if a protected user has none (the error
    names the user, the missing entry and its path ``users.K.…``)."""
    pairs = model.pairs(pair_set)
    covered = {pair.first.user for pair in pairs}
    for name in model.targets:
        if name not in covered:
            index = next(k for k, u in enumerate(model.users) if u.name == name)
            why, field = _missing(model.users[index], pair_set)
            raise ModelError(f"the pair set {pair_set} has no pair for the protected user {name!r}: "
                             f"{why}, so nothing would be checked", join_path("users", index, field))
    return pairs


def _missing(user: User, pair_set: str) -> tuple[str, str]:
    """Why ``user`` has no pair in ``pair_set``, and the model-file key that would supply one."""
    if pair_set == "ab":
        if user.value_pairs is not None:
            return "its value_pairs list is empty", "value_pairs"
        if user.distribution is None:
            return "it has neither a distribution P nor value_pairs", "value_pairs"
        (value,) = user.distribution.support
        return (f"its distribution P has the single value {fraction_str(value)} and it lists no "
                "value_pairs", "distribution")
    if pair_set == "a-absent":
        if user.present_values is not None:
            return "its present_values list is empty", "present_values"
        return "it has neither a distribution P nor present_values", "present_values"
    if user.distribution is None:
        return "it has no distribution P", "distribution"
    return "it has no alternative distribution Q", "alternative"
