"""Multi-user systems: users who report a value or are absent, and their aggregate
(Ding et al., Multi-user Pufferfish Privacy, §3, §3.1, Table 1, equations (7)–(9); §4, the four pair
sets).

The system (§3).  Users ``i ∈ 𝒱``; user ``i`` is present with probability ``ζ_i`` and, when
present, reports ``D_i ~ P_i`` (a finite distribution on rational values).  The query answer is
the aggregate ``X = f(D) = Σ_{present i} D_i``.  The prior belief is ``ρ = {(ζ_i, P_i)}``.

Secrets (Table 1):

* ``s_{a_i}`` — user ``i`` is present and reports the value ``a`` (prior probability ``ζ_i P_i(a)``);
* ``s_{⊥_i}`` — user ``i`` is absent (prior probability ``1 − ζ_i``);
* ``s_{P_i}`` — user ``i`` is present and ``D_i ~ P_i`` (prior probability ``ζ_i`` times the
  adversary's weight on ``P_i``); ``s_{Q_i}`` the same with the alternative distribution ``Q_i``.

Secret pair sets (§4): ``𝕊_{a,b} = {(s_{a_i}, s_{b_i})}``, ``𝕊_{a,⊥} = {(s_{a_i}, s_{⊥_i})}``,
``𝕊_{P,⊥} = {(s_{P_i}, s_{⊥_i})}``, ``𝕊_{P,Q} = {(s_{P_i}, s_{Q_i})}`` — named here ``ab``,
``a-absent``, ``P-absent`` and ``PQ``.  A pair is checked in both directions (equation (1) of
§2.1 bounds the ratio by ``e^{-ε}`` and ``e^{ε}``).  Following the Pufferfish definition, a pair
whose secret has prior probability 0 imposes nothing; it is listed as *vacuous* (e.g.
``(s_{a_i}, s_{⊥_i})`` for an always-present user, ``ζ_i = 1``).

Conditional distributions of ``X`` (equations (7)–(9)), with ``S_{-i} = Σ_{present j ≠ i} D_j``:

    X | s_{a_i} = a + S_{-i},      X | s_{⊥_i} = S_{-i},      X | s_{P_i} = D_i + S_{-i}, D_i ~ P_i.

**The other users' absence.**  Equations (7)–(9) carry a factor ``∏_{j≠i} ζ_j`` and write
``Pr(f(D_{-i}) = ·)`` as if every other user were present: read literally they are the joint
probability of the secret *and all other users present*, a sub-probability.  Because the factor
is common to both secrets of a pair it cancels in every likelihood ratio, so the literal reading
is the same as *conditioning on all other users being present*.  The toolkit offers both readings
through :attr:`MultiUserModel.others`:

* ``"marginal"`` (default) — the adversary does not know who else is present: each other user
  ``j`` independently contributes ``D_j`` with probability ``ζ_j`` and nothing (0 to the sum)
  with probability ``1 − ζ_j``, i.e. ``S_{-i}`` is the sum of independent
  ``(1 − ζ_j) δ_0 + ζ_j P_j``.  This is the Bayesian conditional ``Pr(X = · | s)`` under ρ.
* ``"present"`` — the literal reading of (7)–(9): every other user is present
  (``S_{-i} = Σ_{j≠i} D_j``); the factor ``∏ ζ_j`` is dropped since it cancels.

Both readings coincide when every other user has ``ζ_j = 1``.  Note that under ``"marginal"``
absence and reporting 0 are indistinguishable in the aggregate (the paper's Remark 1).

Computation.  Conditional distributions are exact (Fractions).  The sum of independent finite
distributions is computed by :func:`sum_distribution`: values are put on a common integer lattice,
each distribution becomes an integer polynomial over a common denominator, and the polynomials are
multiplied in a balanced product tree using Kronecker substitution into exact ``decimal`` integers
(``decimal`` multiplies large operands by a number-theoretic transform; the context traps
``Inexact``/``Rounded`` so any rounding would raise).  Cost ``O(M(N·K) log n)`` for ``n`` factors,
``N`` lattice points of the sum and ``K`` digits of the common denominator, ``M`` the NTT
multiplication cost, against ``O(n · N · s)`` big-number operations for repeated convolution
(:func:`naive_sum_distribution`, kept as the independent cross-check and benchmark baseline).

The paper's own systems (Tables 2–3, Figures 1–8) are built in
``pufferfish.proofs_check.paper_001.instances``.

Example (a fair coin beside a protected user reporting 5 or 3):

>>> model = MultiUserModel((User("o", distribution=bernoulli(Fraction(1, 2))),
...                         User("i", values=(Fraction(3), Fraction(5)),
...                              value_pairs=((Fraction(5), Fraction(3)),))), ("i",))
>>> first, second = conditional_pair(model, model.pairs("ab")[0])
>>> sorted(first.support), sorted(second.support)
([Fraction(5, 1), Fraction(6, 1)], [Fraction(3, 1), Fraction(4, 1)])
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import reduce
from math import gcd, lcm

from pufferfish.bibliography import paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError, TooLargeError
from pufferfish.models.numbers import fraction_str, probability
from pufferfish.models.universe import size_text

PAIR_SETS = ("ab", "a-absent", "P-absent", "PQ")
"""The four secret pair sets of §4: 𝕊_{a,b}, 𝕊_{a,⊥}, 𝕊_{P,⊥}, 𝕊_{P,Q}."""

OTHERS_POLICIES = ("marginal", "present")
PAPER = paper("001").key


# ------------------------------------------------------------------------------------------------
# users, secrets and pairs
# ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class User:
    """One user: presence probability ``ζ``, alphabet ``values`` (may include values of mass 0),
    value distribution ``distribution`` (``P_i``; ``None`` when only value secrets of this user
    are studied), the alternative ``alternative`` (``Q_i`` of 𝕊_{P,Q}), and optional explicit
    value secrets (``value_pairs`` for 𝕊_{a,b}, ``present_values`` for 𝕊_{a,⊥})."""

    name: str
    presence: Fraction = Fraction(1)
    distribution: Distribution | None = None
    alternative: Distribution | None = None
    values: tuple[Fraction, ...] = ()
    value_pairs: tuple[tuple[Fraction, Fraction], ...] | None = None
    present_values: tuple[Fraction, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "presence", probability(self.presence, f"users.{self.name}.presence"))
        alphabet = set(self.values)
        for label, dist in (("distribution", self.distribution), ("alternative", self.alternative)):
            if dist is not None:
                for v in dist.support:
                    if not isinstance(v, Fraction):
                        raise ModelError(f"value {v!r} is not a Fraction", f"users.{self.name}.{label}")
                alphabet |= set(dist.support)
        object.__setattr__(self, "values", tuple(sorted(alphabet)))

    def value_secret_pairs(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """𝕊_{a,b} for this user: the explicit pairs, else every pair ``a < b`` of ``supp(P_i)``."""
        if self.value_pairs is not None:
            return self.value_pairs
        if self.distribution is None:
            return ()
        support = sorted(self.distribution.support)
        return tuple((a, b) for k, a in enumerate(support) for b in support[k + 1:])

    def present_secret_values(self) -> tuple[Fraction, ...]:
        """The values ``a`` of 𝕊_{a,⊥}: the explicit list, else ``supp(P_i)``."""
        if self.present_values is not None:
            return self.present_values
        return tuple(sorted(self.distribution.support)) if self.distribution is not None else ()

    def contribution(self) -> Distribution:
        """``(1 − ζ) δ_0 + ζ P`` — what this user adds to the aggregate when its presence is unknown."""
        assert self.distribution is not None
        if self.presence == 1:
            return self.distribution
        mass = {v: self.presence * p for v, p in self.distribution.items()}
        mass[Fraction(0)] = mass.get(Fraction(0), Fraction(0)) + 1 - self.presence
        return Distribution._trusted({v: p for v, p in mass.items() if p})


@dataclass(frozen=True)
class UserSecret:
    """A secret of Table 1: ``kind`` is ``value`` (``s_{a_i}``), ``absent`` (``s_{⊥_i}``) or
    ``distribution`` (``s_{P_i}``, ``which`` = ``P``; ``s_{Q_i}``, ``which`` = ``Q``)."""

    user: str
    kind: str
    value: Fraction | None = None
    which: str | None = None

    @property
    def name(self) -> str:
        if self.kind == "value":
            return f"{self.user}={fraction_str(self.value)}"
        if self.kind == "absent":
            return f"{self.user}=⊥"
        return f"{self.user}~{self.which}"


@dataclass(frozen=True)
class UserSecretPair:
    """A pair of a pair set; ``probabilities`` are the two secrets' prior probabilities (``None``
    when unknown because the user's distribution is not modelled — then taken as positive)."""

    pair_set: str
    first: UserSecret
    second: UserSecret
    probabilities: tuple[Fraction | None, Fraction | None]

    @property
    def label(self) -> str:
        return f"({self.first.name}, {self.second.name})"

    @property
    def vacuous(self) -> bool:
        """True when a secret has prior probability 0: the Pufferfish condition imposes nothing."""
        return any(p == 0 for p in self.probabilities)

    def directions(self) -> tuple[tuple[UserSecret, UserSecret], tuple[UserSecret, UserSecret]]:
        return ((self.first, self.second), (self.second, self.first))


@dataclass(frozen=True)
class MultiUserModel:
    """A multi-user system of §3: users, the protected users (``targets``) and the reading of the
    other users' absence (``others``: ``marginal`` or ``present``; see the module docstring)."""

    users: tuple[User, ...]
    targets: tuple[str, ...] = ()
    others: str = "marginal"
    description: str = ""
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.users:
            raise ModelError("a multi-user model needs at least one user", "users")
        index = {}
        for k, user in enumerate(self.users):
            if user.name in index:
                raise ModelError(f"duplicate user name {user.name!r}", f"users.{k}.name")
            index[user.name] = k
        object.__setattr__(self, "_index", index)
        if self.others not in OTHERS_POLICIES:
            raise ModelError(f"unknown reading {self.others!r} of the other users' absence; use one "
                             f"of {list(OTHERS_POLICIES)}", "others")
        targets = self.targets or tuple(u.name for u in self.users)
        for t in targets:
            if t not in index:
                raise ModelError(f"unknown user {t!r}; the users are {list(index)}", "targets")
        object.__setattr__(self, "targets", tuple(targets))
        for t in targets:
            for k, user in enumerate(self.users):
                if user.name != t and user.distribution is None:
                    raise ModelError(f"user {user.name!r} needs a distribution: it is one of the "
                                     f"other users of the protected user {t!r}",
                                     f"users.{k}.distribution")

    def user(self, name: str) -> User:
        try:
            return self.users[self._index[name]]
        except KeyError:
            raise ModelError(f"unknown user {name!r}; the users are {list(self._index)}",
                             "user") from None

    def pair_count(self, target: str, pair_set: str) -> int:
        """How many pairs :meth:`pairs` gives for the protected user ``target``, counted without
        building them (𝕊_{a,b} has ``n·(n − 1)/2`` of them for ``n`` values)."""
        user = self.user(target)
        if pair_set == "ab":
            if user.value_pairs is not None:
                return len(user.value_pairs)
            n = 0 if user.distribution is None else len(user.distribution.support)
            return n * (n - 1) // 2
        if pair_set == "a-absent":
            return len(user.present_secret_values())
        if pair_set == "P-absent":
            return int(user.distribution is not None)
        return int(user.distribution is not None and user.alternative is not None)

    def pairs(self, pair_set: str) -> tuple[UserSecretPair, ...]:
        """The pairs of ``pair_set`` (``ab``, ``a-absent``, ``P-absent``, ``PQ``) over the targets."""
        if pair_set not in PAIR_SETS:
            raise ModelError(f"unknown pair set {pair_set!r}; use one of {list(PAIR_SETS)}", "--pairs")
        out: list[UserSecretPair] = []
        for name in self.targets:
            user = self.user(name)
            absent = UserSecret(name, "absent")
            if pair_set == "ab":
                for a, b in user.value_secret_pairs():
                    out.append(UserSecretPair(pair_set, UserSecret(name, "value", a),
                                              UserSecret(name, "value", b),
                                              (_value_probability(user, a), _value_probability(user, b))))
            elif pair_set == "a-absent":
                for a in user.present_secret_values():
                    out.append(UserSecretPair(pair_set, UserSecret(name, "value", a), absent,
                                              (_value_probability(user, a), 1 - user.presence)))
            elif pair_set == "P-absent" and user.distribution is not None:
                out.append(UserSecretPair(pair_set, UserSecret(name, "distribution", which="P"),
                                          absent, (user.presence, 1 - user.presence)))
            elif pair_set == "PQ" and user.distribution is not None and user.alternative is not None:
                out.append(UserSecretPair(pair_set, UserSecret(name, "distribution", which="P"),
                                          UserSecret(name, "distribution", which="Q"),
                                          (user.presence, user.presence)))
        return tuple(out)


def _value_probability(user: User, value: Fraction) -> Fraction | None:
    if user.distribution is None:
        return None if user.presence > 0 else Fraction(0)
    return user.presence * user.distribution.prob(value)


# ------------------------------------------------------------------------------------------------
# conditional distributions of the aggregate
# ------------------------------------------------------------------------------------------------

def others_sum(model: MultiUserModel, target: str, naive: bool = False) -> Distribution:
    """The distribution of ``S_{-i} = Σ_{present j ≠ i} D_j`` under ``model.others``."""
    factors = [u.contribution() if model.others == "marginal" else u.distribution
               for u in model.users if u.name != target]
    return naive_sum_distribution(factors) if naive else sum_distribution(factors)


def conditional(model: MultiUserModel, secret: UserSecret, others: Distribution | None = None
                ) -> Distribution:
    """``Pr(X = · | secret)`` exactly (equations (7)–(9)); ``others`` may pass a precomputed
    :func:`others_sum` for the secret's user."""
    rest = others_sum(model, secret.user) if others is None else others
    user = model.user(secret.user)
    if secret.kind == "absent":
        return rest
    if secret.kind == "value":
        return shift(rest, secret.value)
    dist = user.distribution if secret.which == "P" else user.alternative
    if dist is None:
        raise ModelError(f"user {user.name!r} has no {'distribution' if secret.which == 'P' else 'alternative'}",
                         f"users.{user.name}")
    return sum_distribution([dist, rest])


def conditional_pair(model: MultiUserModel, pair: UserSecretPair,
                     others: Distribution | None = None) -> tuple[Distribution, Distribution]:
    """Both conditional distributions of a pair (sharing one computation of ``S_{-i}``)."""
    rest = others_sum(model, pair.first.user) if others is None else others
    return conditional(model, pair.first, rest), conditional(model, pair.second, rest)


def shift(dist: Distribution, amount: Fraction) -> Distribution:
    """The distribution of ``Y + amount``."""
    return Distribution._trusted({v + amount: p for v, p in dist.items()})


# ------------------------------------------------------------------------------------------------
# sums of independent distributions
# ------------------------------------------------------------------------------------------------

def naive_sum_distribution(factors: Iterable[Distribution]) -> Distribution:
    """Repeated pairwise convolution with Fractions (independent cross-check and benchmark
    baseline).  Cost ``Σ_k |supp(partial sum_k)| · |supp(factor_k)|`` Fraction operations."""
    total: dict[Fraction, Fraction] = {Fraction(0): Fraction(1)}
    for factor in factors:
        nxt: dict[Fraction, Fraction] = {}
        for s, p in total.items():
            for v, q in factor.items():
                key = s + v
                nxt[key] = nxt.get(key, Fraction(0)) + p * q
        total = nxt
    return Distribution._trusted({v: p for v, p in total.items() if p})


_DECIMAL = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                           traps=[decimal.Inexact, decimal.Rounded, decimal.InvalidOperation,
                                  decimal.Overflow])
_SCHOOLBOOK_LIMIT = 4000
"""Below this many (lattice points × denominator digits) the product is done by schoolbook."""


MAX_LATTICE_POINTS = 10**6
"""The most lattice points a sum of distributions may span (:func:`lattice_points`): the
polynomials :func:`sum_distribution` multiplies have that many coefficients."""


def lattice_points(factors: Iterable[Distribution]) -> int:
    """The points of the common lattice that the sum of ``factors`` spans, counted without
    building it: ``Σ (max − min)·L + 1``, with ``L`` the least common denominator of all the
    values (values ``1/1000003`` and ``1/1000033`` put the lattice at steps of 10^-12).

    >>> lattice_points([Distribution({0: "1/2", 5: "1/2"}), Distribution({Fraction(1, 2): 1})])
    11
    """
    supports = [[Fraction(v) for v in f.support] for f in factors]
    scale = reduce(lcm, (v.denominator for values in supports for v in values), 1)
    return sum(int((max(values) - min(values)) * scale) for values in supports if values) + 1


def sum_distribution(factors: Sequence[Distribution]) -> Distribution:
    """The exact distribution of a sum of independent finite distributions on the rationals.

    Product tree of integer polynomials (see the module docstring); the result is checked
    exactly: its integer numerators sum to the common denominator.  Sized first: a sum spanning
    more than :data:`MAX_LATTICE_POINTS` lattice points is refused (:class:`TooLargeError`).

    >>> d = sum_distribution([Distribution({0: "1/2", 1: "1/2"})] * 3)
    >>> [str(d.prob(Fraction(k))) for k in range(4)]
    ['1/8', '3/8', '3/8', '1/8']
    """
    factors = list(factors)
    if not factors:
        return Distribution.point(Fraction(0))
    if len(factors) == 1:
        return factors[0]
    points = lattice_points(factors)
    if points > MAX_LATTICE_POINTS:
        raise TooLargeError(
            f"the sum of {len(factors)} users' values spans {size_text(points)} points of their "
            f"common lattice (the values' range times their least common denominator), more "
            f"than the limit of {size_text(MAX_LATTICE_POINTS)}; use fewer or coarser values",
            "users")
    scale = reduce(lcm, (Fraction(v).denominator for f in factors for v in f.support), 1)
    polys = []
    offset = 0
    denominator = 1
    for f in factors:
        points = {int(Fraction(v) * scale): p for v, p in f.items()}
        low = min(points)
        d = reduce(lcm, (p.denominator for p in points.values()), 1)
        coefficients = [0] * (max(points) - low + 1)
        for k, p in points.items():
            coefficients[k - low] = int(p * d)
        polys.append(coefficients)
        offset += low
        denominator *= d
    coefficients = _poly_product(polys, denominator)
    if sum(coefficients) != denominator:          # exact self-check of the product
        raise ArithmeticError("internal error: the convolution lost mass")
    return Distribution._trusted({Fraction(offset + k, scale): Fraction(c, denominator)
                                  for k, c in enumerate(coefficients) if c})


def _poly_product(polys: list[list[int]], bound: int) -> list[int]:
    """Product of integer polynomials with nonnegative coefficients, every coefficient of every
    partial product being at most ``bound``."""
    length = sum(len(p) - 1 for p in polys) + 1
    digits = bound.bit_length() * 30103 // 100000 + 2      # 10**digits > bound
    if length * digits <= _SCHOOLBOOK_LIMIT or max(max(p) for p in polys).bit_length() > 13000:
        return reduce(_schoolbook, polys)
    packed = [_pack(p, digits) for p in polys]
    while len(packed) > 1:
        packed = [_DECIMAL.multiply(packed[k], packed[k + 1]) if k + 1 < len(packed) else packed[k]
                  for k in range(0, len(packed), 2)]
    return _unpack(packed[0], digits, length)


def _schoolbook(left: list[int], right: list[int]) -> list[int]:
    out = [0] * (len(left) + len(right) - 1)
    for j, b in enumerate(right):
        if b:
            for k, a in enumerate(left):
                if a:
                    out[j + k] += a * b
    return out


def _pack(coefficients: list[int], digits: int) -> decimal.Decimal:
    text = "".join(str(c).zfill(digits) for c in reversed(coefficients))
    return decimal.Decimal(text)


def _unpack(value: decimal.Decimal, digits: int, length: int) -> list[int]:
    text = str(value).zfill(length * digits)
    if len(text) > length * digits:
        raise ArithmeticError("internal error: a packed coefficient overflowed its block")
    end = len(text)
    return [int(decimal.Decimal(text[end - (k + 1) * digits:end - k * digits])) for k in range(length)]


def bernoulli(p: Fraction) -> Distribution:
    """``Pr(D = 1) = p``, ``Pr(D = 0) = 1 − p`` on the Fraction values 0 and 1."""
    p = probability(p, "p")
    return Distribution._trusted({v: w for v, w in ((Fraction(0), 1 - p), (Fraction(1), p)) if w})


def is_bernoulli(dist: Distribution | None) -> bool:
    """Whether ``dist`` lives on {0, 1} (the binary users of §4.3.2 and §4.4.1)."""
    return dist is not None and set(dist.support) <= {Fraction(0), Fraction(1)}


def lattice_step(values: Iterable[Fraction]) -> Fraction:
    """The largest ``h`` such that all ``values`` lie on ``min + hℤ`` (1 for a single value)."""
    values = sorted(set(Fraction(v) for v in values))
    if len(values) < 2:
        return Fraction(1)
    scale = reduce(lcm, (v.denominator for v in values), 1)
    step = reduce(gcd, (int((v - values[0]) * scale) for v in values[1:]), 0)
    return Fraction(step, scale)


__all__ = ["PAIR_SETS", "OTHERS_POLICIES", "User", "UserSecret", "UserSecretPair",
           "MultiUserModel", "others_sum", "conditional", "conditional_pair", "shift",
           "naive_sum_distribution", "sum_distribution", "bernoulli", "is_bernoulli",
           "lattice_step", "lattice_points", "MAX_LATTICE_POINTS"]
