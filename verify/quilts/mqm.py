"""Max-influence and the Markov Quilt Mechanism (``002_e1f2e9a9937b8cda.txt`` §4, Appendix B).

Definitions and algorithms implemented (all citations to ``002_e1f2e9a9937b8cda.txt``):

* **Max-influence** (§4, Definition 4.1):
  ``e(X_A|X_i) = max_{a,b} sup_θ max_{x_A} log P(X_A=x_A | X_i=a, θ) / P(X_A=x_A | X_i=b, θ)``,
  over values ``a, b`` with ``P(X_i=a|θ), P(X_i=b|θ) > 0`` (Pufferfish only constrains secrets of
  positive probability).  Exact for a finite family: the log of an exact rational
  (:func:`max_influence`, variable elimination on each member).
* **Score and σ_max** (§4, Algorithm 2): ``σ(X_Q) = card(X_N) / (ε − e(X_Q|X_i))`` if
  ``e < ε`` else ∞; ``σ_i = min`` over the quilts searched; ``σ_max = max_i σ_i``; the mechanism
  releases ``F(D) + σ_max · Lap(1)``.  Scores are transcendental; they are reported as certified
  intervals (mpmath ``iv``), and ``e < ε`` is decided rigorously
  (:func:`pufferfish.verify.numerics.certified.compare_ratio`).  The chosen quilt per node is the witness.
* **Chains** (§4.1, Appendix B.4–B.8): quilts of Lemma B.2 only (Lemma B.3: no loss).

  - :func:`mqm_chain_exact` ("MQMExact"): the exact max-influence of each quilt computed from the
    transition powers.  For a chain ``θ = (q, P)``, node ``i`` and quilt ``{X_{i-a}, X_{i+b}}``
    (Markov property; ``μ_j`` = law of ``X_j``)::

        e = max_{x≠x'} log [ max_y P^a(y,x)/P^a(y,x') · μ_i(x')/μ_i(x) · max_z P^b(x,z)/P^b(x',z) ]

    with ``y`` over ``supp μ_{i−a}``; a missing side contributes a factor 1.  With
    ``initial="any"`` (the §5 family, whose initial distribution ranges over the whole simplex;
    needs ``P > 0``) the supremum over ``q`` replaces ``μ_i(x')/μ_i(x)`` by
    ``max_r P^{i−1}(r,x')/P^{i−1}(r,x)`` (a ratio of linear functions of ``q`` is maximised at a
    vertex of the reachable polytope ``{q P^{i−a−1}}``).
  - :func:`mqm_chain_approx` ("MQMApprox", Algorithms 3–4): Lemma B.4's bounds
    ``f(t) = log((π_Θ + e^{−g_Θ t})/(π_Θ − e^{−g_Θ t}))``, ``e ≤ f(b) + 2 f(a)``, valid when the
    present distances exceed ``log(1/π_Θ)/g_Θ``.
  - ``fast=True`` (Algorithm 5): start at node ``⌊T/2⌋`` and move towards the side whose quilt
    node is missing, stopping at the first interior best quilt.

* :func:`gk16_noise` — the inferential-privacy baseline of Appendix B.10 (``[11]``): Γ, its
  spectral-norm condition (certified) and the noise ``1/ε'`` (numerical, labelled).

**Speed and exactness of the chain search.**  The search over quilts runs on float64 logarithms
(numpy): floats only choose which quilt is the witness for each node.  The result is then
certified: for every node, the chosen quilt's max-influence gets a rigorous upper bound — the float
value plus an a-priori rounding-error bound (all quantities are sums of products of nonnegative
numbers, so each computed ``P^t`` or ``μ_t`` entry is within relative
``((1+u)(1+γ_{k+1}))^t − 1`` of the exact one, ``u = 2^{−53}``, ``γ_n = nu/(1−nu)``), and the
score upper bound ``card/(ε − e_upper)`` is evaluated in interval arithmetic.  ``σ_max`` is reported
as the certified interval ``[σ_float, σ_upper]``; ``σ_upper`` is a noise scale that is proved to
suffice.  In addition the worst node's quilt is re-checked with exact rationals when that is cheap
(``i·k² ≤ exact_check_limit``).

Complexity of MQMExact: ``O(T k^3)`` for the powers and marginals, then per node
``O(n*² k²)`` where ``n* = ε σ_i + 1`` bounds ``card(X_N)`` of any quilt that can beat the current
best (``score ≥ card/ε``); nodes whose inputs equal the previous node's (bitwise, away from the
ends) reuse its answer.  So ``O(T k^3 + T' n*² k²)`` with ``T' ≤ T`` nodes searched, against the
``O(T^3 k^2)`` of the plain search of Algorithm 3 over all ``(a, b)``
(:func:`mqm_chain_exact_basic`, kept as the baseline and as an independent cross-check).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product as cartesian

import mpmath
import numpy as np
from mpmath import iv

from pufferfish.models.bayesnet import BayesNet, BayesNetFamily, MarkovChain, Node
from pufferfish.models.errors import ModelError, UnsupportedError
from pufferfish.models.numbers import INFINITY, Ratio, epsilon_float, epsilon_str, fraction_str
from pufferfish.verify.numerics.certified import Budget, compare_ratio, parse_budget
from pufferfish.verify.quilts.markov_quilts import DEFAULT_MAX_CANDIDATES, ChainQuilt, Quilt, enumerate_quilts

_U = 2.0 ** -53
_BITS = 96


# ================================================================================================
# budgets and certified scores
# ================================================================================================

def as_budget(epsilon: Budget | str | int | Fraction) -> Budget:
    """A finite, positive budget ε (``"1"``, ``"1/2"``, ``"log(3)"``)."""
    budget = epsilon if isinstance(epsilon, Budget) else parse_budget(epsilon)
    if budget.infinite:
        raise ModelError("the Markov Quilt Mechanism needs a finite ε", "--epsilon")
    if (budget.epsilon is not None and budget.epsilon <= 0) or (budget.ratio is not None
                                                                and budget.ratio <= 1):
        raise ModelError("the Markov Quilt Mechanism needs ε > 0", "--epsilon")
    return budget


def _eps_iv(budget: Budget):
    if budget.epsilon is not None:
        return iv.mpf(budget.epsilon.numerator) / budget.epsilon.denominator
    r = budget.ratio
    return iv.log(iv.mpf(r.numerator) / r.denominator)


def eps_float(budget: Budget) -> float:
    """ε as a float (display and float search only)."""
    if budget.epsilon is not None:
        return float(budget.epsilon)
    return math.log(float(budget.ratio))


@dataclass(frozen=True)
class ScoreInterval:
    """A certified enclosure ``[lower, upper]`` of a score ``card/(ε − e)`` (∞ when ``e ≥ ε``)."""

    card_nearby: int
    lower: float
    upper: float

    @property
    def infinite(self) -> bool:
        return self.lower == math.inf

    def to_dict(self) -> dict:
        return {"card_nearby": self.card_nearby,
                "score": [_num(self.lower), _num(self.upper)]}


def _num(x: float) -> float | str:
    return "inf" if x == math.inf else x


def _round_out(interval) -> tuple[float, float]:
    lo = float(mpmath.mpf(interval.a))
    hi = float(mpmath.mpf(interval.b))
    return math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)


def score_from_log_interval(card: int, log_lo, log_hi, budget: Budget) -> ScoreInterval:
    """Certified ``card/(ε − e)`` for ``e ∈ [log_lo, log_hi]`` (mpmath numbers or floats).

    ∞ when ``e`` may reach ε (the upper end of the enclosure is not below ε).
    """
    if card == 0:
        return ScoreInterval(0, 0.0, 0.0)
    old = iv.prec
    iv.prec = _BITS
    try:
        eps = _eps_iv(budget)
        e = iv.mpf([mpmath.mpf(log_lo), mpmath.mpf(log_hi)])
        gap = eps - e
        if not gap.a > 0:
            return ScoreInterval(card, math.inf, math.inf)
        lo, hi = _round_out(iv.mpf(card) / gap)
    finally:
        iv.prec = old
    return ScoreInterval(card, lo, hi)


def exact_score(card: int, ratio: Ratio, budget: Budget) -> ScoreInterval:
    """Certified score of a quilt whose max-influence is ``log(ratio)`` for an exact ``ratio``."""
    if card == 0:
        return ScoreInterval(0, 0.0, 0.0)
    if ratio == INFINITY or not compare_ratio(ratio, budget).relation == "below":
        return ScoreInterval(card, math.inf, math.inf)
    old = iv.prec
    iv.prec = _BITS
    try:
        r = Fraction(ratio)
        logr = iv.log(iv.mpf(r.numerator) / r.denominator)
    finally:
        iv.prec = old
    bits = _BITS
    while True:
        iv.prec = bits
        try:
            s = score_from_log_interval(card, logr.a, logr.b, budget)
        finally:
            iv.prec = old
        if not s.infinite or bits > 4096:
            return s
        bits *= 2
        iv.prec = bits
        try:
            logr = iv.log(iv.mpf(r.numerator) / r.denominator)
        finally:
            iv.prec = old


# ================================================================================================
# general Bayesian networks (Definition 4.1, Algorithm 2)
# ================================================================================================

@dataclass(frozen=True)
class MaxInfluence:
    """``e(X_Q|X_i) = log(ratio)`` exactly over a finite family, with the worst case as witness."""

    node: Node
    quilt: frozenset
    ratio: Ratio
    member: str | None
    values: tuple | None            # (a, b): the secret values
    assignment: tuple | None        # x_Q attaining the max, in sorted quilt order

    def to_dict(self) -> dict:
        return {"node": str(self.node), "quilt": sorted(map(str, self.quilt)),
                "max_ratio": fraction_str(self.ratio), "epsilon": epsilon_str(self.ratio),
                "epsilon_float": epsilon_float(self.ratio),
                "witness": None if self.member is None else {
                    "member": self.member, "values": [str(v) for v in self.values],
                    "x_Q": [str(v) for v in self.assignment]}}

    def explain(self) -> str:
        w = "" if self.member is None else (f" (member {self.member}, X_i = {self.values[0]!r} vs "
                                            f"{self.values[1]!r}, x_Q = {self.assignment})")
        return f"e(X_Q|X_{self.node}) = {epsilon_str(self.ratio)}{w}"


def max_influence(family: BayesNetFamily | BayesNet, node: Node, quilt: frozenset | set) -> MaxInfluence:
    """Definition 4.1 exactly: the max over members, value pairs and ``x_Q`` of the ratio.

    Each member's ``P(X_Q, X_i)`` comes from variable elimination;
    ``P(x_Q|a)/P(x_Q|b) = P(x_Q,a) P(b) / (P(x_Q,b) P(a))``; ``x/0`` with ``x > 0`` is ∞.
    ``O(|Θ| · VE + |Θ| d^{|Q|+2})``.
    """
    members = family.members if isinstance(family, BayesNetFamily) else (family,)
    qnodes = sorted(quilt, key=lambda v: (str(type(v)), v))
    best: Ratio = Fraction(1)
    witness: tuple = (None, None, None)
    if not qnodes:
        return MaxInfluence(node, frozenset(), Fraction(1), None, None, None)
    for net in members:
        joint = net.joint_factor(qnodes + [node])
        p_node: dict = {}
        for key, p in joint.items():
            p_node[key[-1]] = p_node.get(key[-1], Fraction(0)) + p
        values = [v for v in net.domains[node] if p_node.get(v)]
        for a, b in ((a, b) for a in values for b in values if a != b):
            for xq in cartesian(*(net.domains[v] for v in qnodes)):
                num = joint.get(xq + (a,), Fraction(0)) * p_node[b]
                if not num:
                    continue
                den = joint.get(xq + (b,), Fraction(0)) * p_node[a]
                r: Ratio = INFINITY if not den else num / den
                if r > best:
                    best, witness = r, (net.name, (a, b), xq)
    return MaxInfluence(node, frozenset(quilt), best, *witness)


@dataclass(frozen=True)
class NodeChoice:
    """The quilt chosen for one node: its partition, max-influence and certified score."""

    node: Node
    quilt: Quilt | ChainQuilt
    log_influence: tuple[float, float]        # certified enclosure of e(X_Q|X_i)
    ratio: Ratio | None                       # exact ratio when known
    score: ScoreInterval

    def to_dict(self) -> dict:
        return {"node": str(self.node), "quilt": self.quilt.to_dict(),
                "max_influence": [_num(self.log_influence[0]), _num(self.log_influence[1])],
                "max_ratio": None if self.ratio is None else fraction_str(self.ratio),
                "score": self.score.to_dict()["score"]}

    def quilt_label(self) -> str:
        if isinstance(self.quilt, ChainQuilt):
            return self.quilt.label()
        return "{" + ", ".join(sorted(map(str, self.quilt.quilt))) + "}"


@dataclass(frozen=True)
class MQMResult:
    """The Markov Quilt Mechanism's noise scale σ_max with the chosen quilt per node as witness.

    ``sigma`` is a certified interval: ``sigma[1]`` (``sigma_upper``) is a noise scale proved to
    satisfy every node's chosen-quilt constraint; ``sigma[0]`` is the best value the search found.
    ``holds`` is False when some node has no quilt of finite score.
    """

    method: str
    budget: Budget
    sigma: tuple[float, float]
    worst: NodeChoice | None
    choices: tuple[NodeChoice, ...]
    nodes_searched: int
    notes: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        return self.sigma[1] < math.inf

    @property
    def sigma_upper(self) -> float:
        return self.sigma[1]

    def to_dict(self) -> dict:
        return {"method": self.method, "epsilon": self.budget.text,
                "sigma_max": [_num(self.sigma[0]), _num(self.sigma[1])],
                "noise": f"Lap({_num(self.sigma[1])})", "finite": self.holds,
                "worst_node": None if self.worst is None else self.worst.to_dict(),
                "nodes": [c.to_dict() for c in self.choices], "nodes_searched": self.nodes_searched,
                "notes": list(self.notes), **self.extra}

    def explain(self) -> str:
        if self.worst is None:
            return f"{self.method}: no nodes"
        w = self.worst
        lines = [f"Markov Quilt Mechanism ({self.method}), ε = {self.budget.text}",
                 f"σ_max ∈ [{self.sigma[0]:.10g}, {self.sigma[1]:.10g}]  (release F(D) + "
                 f"σ·Lap(1) with σ = {self.sigma[1]:.10g})",
                 f"worst node {w.node}: quilt {w.quilt_label()}, card(X_N) = "
                 f"{w.score.card_nearby}, e(X_Q|X_i) ∈ [{w.log_influence[0]:.6g}, "
                 f"{w.log_influence[1]:.6g}]"]
        lines += list(self.notes)
        return "\n".join(lines)


def _worst(choices: Sequence[NodeChoice]) -> NodeChoice | None:
    return max(choices, key=lambda c: (c.score.upper, c.score.lower), default=None)


def mqm_bayesnet(family: BayesNetFamily, epsilon: Budget | str, *, nodes: Sequence[Node] | None = None,
                 max_quilt_size: int | None = None, max_candidates: int = DEFAULT_MAX_CANDIDATES,
                 minimal_only: bool = False,
                 progress: Callable[[int, int], None] | None = None) -> MQMResult:
    """Algorithm 2 on any Bayesian network: for each node, every quilt ``X_Q`` up to
    ``max_quilt_size`` nodes (partition by d-separation), its exact max-influence and certified
    score; ``σ_i`` = the least score, ``σ_max = max_i σ_i``.

    ``minimal_only=True`` searches only the minimal quilts (Definition B.1).  That loses nothing on
    chains (Lemma B.3) but is not proved for general networks (a larger quilt with the same
    ``X_N`` need not contain a minimal one), so the default searches every enumerated quilt.
    Exponential in the number of nodes; bounded by ``max_quilt_size`` and ``max_candidates``.  A
    node's search is never empty: the trivial quilt ``∅`` (score ``card(X_N)/ε``) is always there.
    """
    budget = as_budget(epsilon)
    notes = []
    choices = []
    wanted = list(family.nodes if nodes is None else nodes)
    for k, node in enumerate(wanted):
        enum = enumerate_quilts(family.graph, node, max_size=max_quilt_size,
                                max_candidates=max_candidates)
        if not enum.complete:
            notes.append(f"node {node}: {enum.message}")
        best: NodeChoice | None = None
        for q in (enum.minimal if minimal_only else enum.quilts):
            influence = max_influence(family, node, q.quilt)
            score = exact_score(q.card_nearby, influence.ratio, budget)
            lo, hi = _log_enclosure(influence.ratio)
            choice = NodeChoice(node, q, (lo, hi), influence.ratio, score)
            if best is None or (score.upper, score.lower) < (best.score.upper, best.score.lower):
                best = choice
        assert best is not None
        choices.append(best)
        if progress is not None:
            progress(k + 1, len(wanted))
    worst = _worst(choices)
    return MQMResult("bayesnet-exact", budget,
                     (max(c.score.lower for c in choices), max(c.score.upper for c in choices)),
                     worst, tuple(choices), len(choices), tuple(notes))


def _log_enclosure(ratio: Ratio) -> tuple[float, float]:
    if ratio == INFINITY:
        return (math.inf, math.inf)
    r = Fraction(ratio)
    if r == 1:
        return (0.0, 0.0)
    old = iv.prec
    iv.prec = _BITS
    try:
        return _round_out(iv.log(iv.mpf(r.numerator) / r.denominator))
    finally:
        iv.prec = old


# ================================================================================================
# chains: family, exact influence (reference, Fractions)
# ================================================================================================

INITIAL_MODES = ("given", "stationary", "any")


@dataclass(frozen=True)
class ChainFamily:
    """A finite family Θ of homogeneous chains over the same states and length (§4.1).

    Each member's initial distribution is used as given (``initial="given"``), replaced by its
    stationary distribution (``"stationary"``), or ranges over the whole simplex (``"any"``, the
    §5 family; needs every transition probability positive).
    """

    members: tuple[MarkovChain, ...]
    initial: str = "given"

    def __post_init__(self) -> None:
        if not self.members:
            raise ModelError("a chain family needs at least one chain", "priors")
        first = self.members[0]
        for m in self.members:
            if m.states != first.states or m.length != first.length:
                raise ModelError("every chain of the family needs the same states and length",
                                 f"priors.{m.name}")
        if self.initial not in INITIAL_MODES:
            raise ModelError(f"unknown initial mode {self.initial!r}; use one of {INITIAL_MODES}",
                             "--initial")
        if self.initial == "any":
            for m in self.members:
                if any(p <= 0 for row in m.matrix for p in row):
                    raise UnsupportedError("initial='any' needs every transition probability > 0",
                                           f"priors.{m.name}")
        if self.initial == "given":
            for m in self.members:
                if m.initial is None:
                    raise ModelError("a member has no initial distribution; use --initial any "
                                     "or stationary", f"priors.{m.name}")

    @property
    def length(self) -> int:
        return self.members[0].length

    @property
    def k(self) -> int:
        return self.members[0].k

    def effective(self) -> tuple[MarkovChain, ...]:
        """Members with the initial distribution the mode prescribes (``None`` for "any")."""
        if self.initial == "stationary":
            return tuple(m.stationary_start() for m in self.members)
        if self.initial == "any":
            return tuple(m.with_initial(None) for m in self.members)
        return self.members

    def to_dict(self) -> dict:
        return {"initial": self.initial, "length": self.length, "states": list(self.members[0].states),
                "members": [m.name for m in self.members]}


def interval_family(low: object, high: object, length: int, step: object,
                    initial: str = "any") -> ChainFamily:
    """The §5 family ``Θ = [ℓ, u]`` of binary chains, made finite as the grid
    ``{ℓ, ℓ+h, ..., u}²`` of ``(p0, p1)`` (``h`` = ``step``; ``u`` is always included).

    The exact methods are exact for this finite grid; the approximate method uses the closed forms
    of :func:`interval_parameters` for the whole continuous box.
    """
    from pufferfish.models.numbers import exact
    lo, hi, h = exact(low, "low"), exact(high, "high"), exact(step, "step")
    if not (0 < lo <= hi < 1) or h <= 0:
        raise ModelError("need 0 < ℓ <= u < 1 and a positive step", "--interval")
    grid = []
    v = lo
    while v < hi:
        grid.append(v)
        v += h
    grid.append(hi)
    members = tuple(MarkovChain.binary(p0, p1, length, ["1/2", "1/2"]) for p0 in grid for p1 in grid)
    return ChainFamily(members, initial)


def interval_parameters(low: Fraction, high: Fraction) -> tuple[Fraction, Fraction]:
    """``(π_Θ, g_Θ)`` of the continuous box ``p0, p1 ∈ [ℓ, u]`` (§4.1 definitions), exactly.

    For ``P = [[p0, 1−p0], [1−p1, p1]]``: ``π = ((1−p1), (1−p0))/(2−p0−p1)`` (Lemma B.12) and the
    second eigenvalue is ``p0 + p1 − 1``; so ``π_Θ = (1−u)/(2−ℓ−u)`` and
    ``g_Θ = 1 − max(|2ℓ−1|, |2u−1|)``.
    """
    pi = (1 - high) / (2 - low - high)
    g = 1 - max(abs(2 * low - 1), abs(2 * high - 1))
    return pi, g


def _ratio_max(num_rows, den_rows) -> Ratio:
    """``max_j num[j]/den[j]`` over ``j`` with ``num[j] > 0`` (``∞`` if some ``den[j] = 0``)."""
    best: Ratio = Fraction(0)
    for n, d in zip(num_rows, den_rows):
        if n:
            if not d:
                return INFINITY
            r = n / d
            if r > best:
                best = r
    return best


def chain_influence_exact(chain: MarkovChain, quilt: ChainQuilt) -> tuple[Ratio, tuple | None]:
    """Exact ``exp e(X_Q|X_i)`` for one chain and one Lemma B.2 quilt (formula in the module doc).

    ``chain.initial is None`` means "any initial distribution" (supremum over the simplex).
    Returns the ratio and the witness ``(x, x')``.  ``O(k^3 log T + k^3)`` exact operations.
    """
    k, i, a, b = chain.k, quilt.i, quilt.a, quilt.b
    if not quilt.has_left and not quilt.has_right:
        return Fraction(1), None
    if chain.initial is not None:
        mu_i = chain.marginal(i)
        secrets = [x for x in range(k) if mu_i[x]]
        mu_left = chain.marginal(i - a) if quilt.has_left else None
    else:
        secrets = list(range(k))
    best: Ratio = Fraction(1)
    witness = None
    pa = chain.power(a) if quilt.has_left else None
    pb = chain.power(b) if quilt.has_right else None
    p_pre = chain.power(i - 1) if (quilt.has_left and chain.initial is None) else None
    for x in secrets:
        for x2 in secrets:
            if x == x2:
                continue
            r: Ratio = Fraction(1)
            if quilt.has_right:
                f = _ratio_max(pb[x], pb[x2])
                r = INFINITY if f == INFINITY else r * f
            if quilt.has_left and r != INFINITY:
                ys = [y for y in range(k) if chain.initial is None or mu_left[y]]
                g = _ratio_max([pa[y][x] for y in ys], [pa[y][x2] for y in ys])
                if g == INFINITY:
                    r = INFINITY
                else:
                    if chain.initial is not None:
                        m = mu_i[x2] / mu_i[x]
                    else:
                        m = max(p_pre[s][x2] / p_pre[s][x] for s in range(k))
                    r = r * g * m
            if r > best:
                best, witness = r, (chain.states[x], chain.states[x2])
    return best, witness


def family_influence_exact(family: ChainFamily, quilt: ChainQuilt) -> tuple[Ratio, str | None]:
    """Exact ``exp e(X_Q|X_i)`` over the family (max over members)."""
    best: Ratio = Fraction(1)
    who = None
    for m in family.effective():
        r, _ = chain_influence_exact(m, quilt)
        if r > best:
            best, who = r, m.name
    return best, who


# ================================================================================================
# chains: float tables for the fast search
# ================================================================================================

def _gamma(n: int) -> float:
    return n * _U / (1 - n * _U)


class _ChainTables:
    """Float64 logs of the quantities in the exact-influence formula for one chain, by distance.

    ``logF[t][x,x'] = log max_z P^t(x,z)/P^t(x',z)``, ``logL[t][x,x'] = log max_y P^t(y,x)/P^t(y,x')``
    (over all ``y``), ``R(i)[x,x']`` = the marginal part for node ``i``; ``secrets(i)`` masks
    values of positive probability at node ``i``.  Powers are computed by repeated multiplication
    (so the a-priori error bound ``((1+u)(1+γ_{k+1}))^t − 1`` applies) and extended on demand.
    """

    def __init__(self, chain: MarkovChain) -> None:
        self.chain = chain
        self.k = chain.k
        self.T = chain.length
        self.P = np.array([[float(p) for p in row] for row in chain.matrix])
        self.powers = [np.eye(self.k), self.P.copy()]
        self.logF: list = [None]
        self.logL: list = [None]
        self.mode_any = chain.initial is None
        T, k = self.T, self.k
        # marginals μ_1..μ_T (given initial) or P^{i-1} rows ratio (any initial)
        self.R = np.zeros((T + 1, k, k))
        self.secret_mask = np.ones((T + 1, k), dtype=bool)
        self.support = np.ones((T + 1, k), dtype=bool)
        self.full_support = np.ones(T + 1, dtype=bool)
        with np.errstate(divide="ignore", invalid="ignore"):
            if not self.mode_any:
                mu = np.array([float(p) for p in chain.initial])
                supp = np.array([p > 0 for p in chain.initial])
                Pbool = np.array([[p > 0 for p in row] for row in chain.matrix])
                for i in range(1, T + 1):
                    if i > 1:
                        mu = mu @ self.P
                        supp = (supp.astype(int) @ Pbool.astype(int)) > 0
                    self.support[i] = supp
                    self.full_support[i] = supp.all()
                    self.secret_mask[i] = supp
                    lm = np.where(supp, np.log(np.where(supp, mu, 1.0)), 0.0)
                    self.R[i] = lm[None, :] - lm[:, None]     # log μ(x') − log μ(x)
            else:
                M = np.eye(k)
                for i in range(1, T + 1):
                    if i > 1:
                        M = M @ self.P
                    if i == 1:
                        self.R[i] = 0.0
                        continue
                    lm = np.log(M)                              # all positive (P > 0)
                    # max_r [log M(r,x') − log M(r,x)]
                    self.R[i] = (lm[:, None, :] - lm[:, :, None]).max(axis=0)
        # every position from stable_from on has full support (L needs no mask there)
        full = self.full_support
        self.stable_from = 1
        for j in range(T, 0, -1):
            if not full[j]:
                self.stable_from = j + 1
                break

    def ensure(self, t: int) -> None:
        while len(self.powers) <= t:
            self.powers.append(self.powers[-1] @ self.P)
        with np.errstate(divide="ignore", invalid="ignore"):
            while len(self.logF) <= t:
                s = len(self.logF)
                M = self.powers[s]
                lm = np.log(M)                                  # -inf where zero
                # F[x,x'] = max_z lm[x,z] − lm[x',z] over z with M[x,z] > 0
                diff = lm[:, None, :] - lm[None, :, :]
                diff = np.where(np.isneginf(lm)[:, None, :], -np.inf, diff)
                diff = np.where(np.isnan(diff), -np.inf, diff)
                self.logF.append(diff.max(axis=2))
                # L[x,x'] = max_y lm[y,x] − lm[y,x'] over y with M[y,x] > 0
                lt = lm.T
                diffL = lt[:, None, :] - lt[None, :, :]
                diffL = np.where(np.isneginf(lt)[:, None, :], -np.inf, diffL)
                diffL = np.where(np.isnan(diffL), -np.inf, diffL)
                self.logL.append(diffL.max(axis=2))

    def _stack(self, which: str) -> np.ndarray:
        rows = self.logF if which == "F" else self.logL
        cached = getattr(self, "_stack_" + which, None)
        if cached is None or len(cached) != len(rows):
            cached = np.stack([np.zeros((self.k, self.k))] + rows[1:])
            setattr(self, "_stack_" + which, cached)
        return cached

    def right_stack(self, bs: np.ndarray) -> np.ndarray:
        """``logF[b]`` for every ``b`` in ``bs``: shape ``(len(bs), k, k)``."""
        self.ensure(int(bs.max()))
        return self._stack("F")[bs]

    def left_stack(self, i: int, as_: np.ndarray) -> np.ndarray:
        """:meth:`left` for every ``a`` in ``as_``: shape ``(len(as_), k, k)``."""
        self.ensure(int(as_.max()))
        L = self._stack("L")[as_] + self.R[i][None]
        if not self.mode_any:
            for n in np.nonzero(~self.full_support[i - as_])[0]:
                L[n] = self.left(i, int(as_[n]))
        return L

    def left(self, i: int, a: int) -> np.ndarray:
        """``log max_y P(X_{i−a}=y|X_i=x)/P(X_{i−a}=y|X_i=x')`` as a k×k array (x, x')."""
        self.ensure(a)
        j = i - a
        if self.mode_any or self.full_support[j]:
            L = self.logL[a]
        else:
            with np.errstate(divide="ignore"):
                lm = np.log(self.powers[a])
            lt = lm.T
            with np.errstate(invalid="ignore"):
                d = lt[:, None, :] - lt[None, :, :]
            keep = self.support[j][None, None, :] & ~np.isneginf(lt)[:, None, :]
            d = np.where(keep & ~np.isnan(d), d, -np.inf)
            L = d.max(axis=2)
        return L + self.R[i]

    def pair_mask(self, i: int) -> np.ndarray:
        s = self.secret_mask[i]
        return s[:, None] & s[None, :]


def _margin(t: int, k: int) -> float:
    """Bound on |log(computed) − log(exact)| for one entry after ``t`` nonnegative products."""
    eta = ((1 + _U) * (1 + _gamma(k + 1))) ** (t + 1) - 1
    return -math.log1p(-eta) + 4 * _U * 800  # log error of the entry + a few ulps of |log| ≤ 745


# ================================================================================================
# chains: the search (Algorithms 3–5) with a pluggable influence evaluator
# ================================================================================================

class _ExactEvaluator:
    """Influence of Lemma B.2 quilts from float tables, max over the family's members."""

    def __init__(self, family: ChainFamily) -> None:
        self.tables = [_ChainTables(m) for m in family.effective()]
        self.T = family.length
        self.k = family.k

        self.stable_from = max(t.stable_from for t in self.tables)

    def key(self, i: int) -> bytes:
        parts = []
        for t in self.tables:
            parts.append(t.R[i].tobytes())
            parts.append(t.secret_mask[i].tobytes())
        return b"".join(parts)

    def both(self, i: int, a: int, bs: np.ndarray) -> np.ndarray:
        """e for quilts {X_{i−a}, X_{i+b}} for every b in ``bs`` (present right nodes)."""
        out = np.full(len(bs), -np.inf)
        for t in self.tables:
            t.ensure(int(bs.max()) if len(bs) else 1)
            L = t.left(i, a)
            mask = t.pair_mask(i)
            F = np.stack([t.logF[b] for b in bs]) if len(bs) else np.zeros((0, t.k, t.k))
            with np.errstate(invalid="ignore"):
                tot = np.where(mask[None], L[None] + F, -np.inf)
            tot = np.where(np.isnan(tot), np.inf, tot)
            out = np.maximum(out, tot.reshape(len(bs), -1).max(axis=1))
        return np.maximum(out, 0.0)

    def grid(self, i: int, as_: np.ndarray, bs: np.ndarray) -> np.ndarray:
        """e for quilts {X_{i−a}, X_{i+b}}, every a in ``as_`` and b in ``bs``: ``(len(as_), len(bs))``."""
        out = np.full((len(as_), len(bs)), -np.inf)
        for t in self.tables:
            L = t.left_stack(i, as_)
            F = t.right_stack(bs)
            mask = t.pair_mask(i)
            with np.errstate(invalid="ignore"):
                tot = L[:, None] + F[None, :]
            tot = np.where(np.isnan(tot), np.inf, tot)
            tot = np.where(mask[None, None], tot, -np.inf)
            out = np.maximum(out, tot.reshape(len(as_), len(bs), -1).max(axis=2))
        return np.maximum(out, 0.0)

    def left_many(self, i: int, as_: np.ndarray) -> np.ndarray:
        out = np.zeros(len(as_))
        for t in self.tables:
            L = np.where(t.pair_mask(i)[None], t.left_stack(i, as_), -np.inf)
            out = np.maximum(out, L.reshape(len(as_), -1).max(axis=1))
        return out

    def left_only(self, i: int, a: int) -> float:
        e = 0.0
        for t in self.tables:
            L = t.left(i, a)
            e = max(e, float(np.where(t.pair_mask(i), L, -np.inf).max()))
        return e

    def right_only(self, i: int, bs: np.ndarray) -> np.ndarray:
        out = np.zeros(len(bs))
        for t in self.tables:
            t.ensure(int(bs.max()) if len(bs) else 1)
            mask = t.pair_mask(i)
            F = np.stack([t.logF[b] for b in bs]) if len(bs) else np.zeros((0, t.k, t.k))
            out = np.maximum(out, np.where(mask[None], F, -np.inf).reshape(len(bs), -1).max(axis=1))
        return out

    def margin(self, i: int, q: ChainQuilt) -> float:
        """Certified bound on |e_float − e_exact| for this node and quilt."""
        terms = 0.0
        depth_mu = i if not self.tables[0].mode_any else i
        if q.has_left:
            terms += 2 * _margin(q.a, self.k) + 2 * _margin(depth_mu, self.k)
        if q.has_right:
            terms += 2 * _margin(q.b, self.k)
        return 2 * terms + 1e-300

    def exact_ratio(self, family: ChainFamily, q: ChainQuilt) -> Ratio:
        return family_influence_exact(family, q)[0]


class _ApproxEvaluator:
    """Lemma B.4's bounds ``f(b) + 2 f(a)`` from ``π_Θ, g_Θ`` (position independent)."""

    stable_from = 1

    def __init__(self, pi: Fraction, g: Fraction, T: int) -> None:
        self.pi, self.g, self.T = pi, g, T
        self.t_min = _first_valid_distance(pi, g)
        self._f: list[float] = [math.inf]

    def f(self, t: int) -> float:
        while len(self._f) <= t:
            s = len(self._f)
            if s < self.t_min:
                self._f.append(math.inf)
            else:
                d = math.exp(-float(self.g) * s)
                p = float(self.pi)
                self._f.append(math.log((p + d) / (p - d)) if p > d else math.inf)
        return self._f[t]

    def key(self, i: int) -> bytes:
        return b""

    def both(self, i: int, a: int, bs: np.ndarray) -> np.ndarray:
        fa = self.f(a)
        return np.array([self.f(int(b)) + 2 * fa for b in bs])

    def left_only(self, i: int, a: int) -> float:
        return 2 * self.f(a)

    def _fs(self, ts: np.ndarray) -> np.ndarray:
        self.f(int(ts.max()))
        return np.asarray(self._f)[ts]

    def grid(self, i: int, as_: np.ndarray, bs: np.ndarray) -> np.ndarray:
        return self._fs(bs)[None, :] + 2 * self._fs(as_)[:, None]

    def left_many(self, i: int, as_: np.ndarray) -> np.ndarray:
        return 2 * self._fs(as_)

    def right_only(self, i: int, bs: np.ndarray) -> np.ndarray:
        return np.array([self.f(int(b)) for b in bs])

    def certified(self, q: ChainQuilt) -> tuple:
        """Interval enclosure of the Lemma B.4 bound for quilt ``q`` (mpmath iv)."""
        old = iv.prec
        iv.prec = _BITS
        try:
            pi = iv.mpf(self.pi.numerator) / self.pi.denominator
            g = iv.mpf(self.g.numerator) / self.g.denominator
            total = iv.mpf(0)
            for t, weight in ((q.b, 1), (q.a, 2)):
                present = q.has_right if weight == 1 else q.has_left
                if not present:
                    continue
                d = iv.exp(-g * t)
                gap = pi - d
                if not gap.a > 0:
                    return (mpmath.inf, mpmath.inf)
                total += weight * iv.log((pi + d) / gap)
            return (total.a, total.b)
        finally:
            iv.prec = old


def _first_valid_distance(pi: Fraction, g: Fraction) -> int:
    """Smallest integer ``t`` with ``t > log(1/π_Θ)/g_Θ`` (Lemma B.4/B.6), decided rigorously."""
    if not (0 < pi and 0 < g):
        raise ModelError("Lemma B.4 needs π_Θ > 0 and g_Θ > 0", "--pi")
    if pi >= 1:
        return 1
    guess = max(1, int(math.log(1 / float(pi)) / float(g)) - 2)
    old = iv.prec
    iv.prec = _BITS
    try:
        threshold = iv.log(iv.mpf(pi.denominator) / pi.numerator) / (iv.mpf(g.numerator) / g.denominator)
        t = guess
        while not (t > threshold.b):      # t > threshold certainly
            t += 1
        return t
    finally:
        iv.prec = old


def _best_for_node(ev, i: int, T: int, eps: float, start: tuple[int, int] | None,
                   approx_tmin: int = 1, literal: bool = False) -> tuple[float, int, int, float]:
    """Algorithm 4 (FindBestMarkovQuilt) for node ``i`` on float influences, with pruning.

    Returns ``(score, a, b, e)``; ``a = i`` / ``b = T+1−i`` encode a missing side.  Pruning:
    ``score ≥ card/ε``, so only quilts with ``card < ε·best`` are examined.
    """
    a_none, b_none = i, T + 1 - i
    # literal=True: Algorithm 4 as printed also requires the encoded missing sides a = i and
    # b = T+1−i to be >= the Lemma B.4 distance, and starts from σ_i = ∞
    left_missing_ok = not literal or a_none >= approx_tmin
    right_missing_ok = not literal or b_none >= approx_tmin
    best = (T / eps if (left_missing_ok and right_missing_ok) else math.inf, a_none, b_none, 0.0)

    def consider(card: int, e: float, a: int, b: int) -> None:
        nonlocal best
        if e < eps:
            s = card / (eps - e)
            if s < best[0] or (s == best[0] and card < best[1] + best[2] - 1):
                best = (s, a, b, e)

    if start is not None:
        a0, b0 = start
        a0 = a_none if a0 >= i else a0
        b0 = b_none if b0 >= T + 1 - i else b0
        if ((a0 < a_none and a0 < approx_tmin) or (b0 < b_none and b0 < approx_tmin)
                or (a0 == a_none and not left_missing_ok) or (b0 == b_none and not right_missing_ok)):
            pass
        elif a0 < a_none and b0 < b_none:
            consider(a0 + b0 - 1, float(ev.both(i, a0, np.array([b0]))[0]), a0, b0)
        elif a0 < a_none:
            consider(a0 + b0 - 1, ev.left_only(i, a0), a0, b0)
        elif b0 < b_none:
            consider(a0 + b0 - 1, float(ev.right_only(i, np.array([b0]))[0]), a0, b0)
    # both sides present: a in [tmin, i-1], b in [tmin, T-i], card = a + b − 1 < ε·best
    def limit() -> float:
        return eps * best[0] if best[0] < math.inf else 2 * T + 2

    a_hi = min(i - 1, int(math.ceil(limit())))
    b_hi = min(T - i, int(math.ceil(limit())))
    if a_hi >= approx_tmin and b_hi >= approx_tmin:
        bs = np.arange(approx_tmin, b_hi + 1)
        chunk = max(1, 1_000_000 // (len(bs) * getattr(ev, "k", 1) ** 2))
        a = approx_tmin
        while a <= a_hi and a < limit():
            as_ = np.arange(a, min(a_hi, a + chunk - 1) + 1)
            es = ev.grid(i, as_, bs)
            cards = as_[:, None] + bs[None, :] - 1
            with np.errstate(divide="ignore", invalid="ignore"):
                scores = np.where((es < eps) & (cards < limit()),
                                  cards / np.maximum(eps - es, 1e-300), np.inf)
            j = int(np.argmin(scores))
            r, c = divmod(j, len(bs))
            if scores[r, c] < math.inf:
                consider(int(cards[r, c]), float(es[r, c]), int(as_[r]), int(bs[c]))
            a = int(as_[-1]) + 1
    # left only: card = a + T − i
    if right_missing_ok:
        a_top = min(i - 1, int(math.ceil(limit() - (T - i))))
        if a_top >= approx_tmin:
            as_ = np.arange(approx_tmin, a_top + 1)
            es = ev.left_many(i, as_)
            cards = as_ + T - i
            with np.errstate(divide="ignore"):
                scores = np.where(es < eps, cards / np.maximum(eps - es, 1e-300), np.inf)
            j = int(np.argmin(scores))
            if scores[j] < math.inf:
                consider(int(cards[j]), float(es[j]), int(as_[j]), b_none)
    # left missing: card = i + b − 1
    if left_missing_ok and i < eps * best[0]:
        b_hi = min(T - i, int(math.ceil(min(eps * best[0], 2 * T + 2) - i + 1)))
        if b_hi >= approx_tmin:
            bs = np.arange(approx_tmin, b_hi + 1)
            es = ev.right_only(i, bs)
            cards = i + bs - 1
            with np.errstate(divide="ignore"):
                scores = np.where(es < eps, cards / np.maximum(eps - es, 1e-300), np.inf)
            j = int(np.argmin(scores))
            if scores[j] < math.inf:
                consider(int(cards[j]), float(es[j]), a_none, int(bs[j]))
    return best


def _search(ev, T: int, eps: float, nodes: Sequence[int], approx_tmin: int = 1,
            progress: Callable[[int, int], None] | None = None,
            literal: bool = False) -> dict[int, tuple]:
    """σ_i for each node in ``nodes`` (in order), reusing the previous node's answer when the
    inputs are bitwise equal and both ends are out of reach."""
    out: dict[int, tuple] = {}
    prev = None
    prev_key = None
    for n, i in enumerate(nodes):
        key = ev.key(i)
        if prev is not None and key == prev_key and out.get(i - 1) is not None:
            s, a, b, e = out[i - 1]
            reach = eps * s + 2
            if ((a < i - 1 and b < T - (i - 1)) and min(i - 1, T - i) >= reach
                    and i - reach >= ev.stable_from):
                out[i] = (s, a, b, e)
                prev = out[i]
                continue
        start = (prev[1], prev[2]) if prev is not None else None
        out[i] = _best_for_node(ev, i, T, eps, start, approx_tmin, literal)
        prev, prev_key = out[i], key
        if progress is not None and n % 64 == 0:
            progress(n + 1, len(nodes))
    return out


def _fast_nodes(ev, T: int, eps: float, approx_tmin: int,
                literal: bool = False) -> tuple[dict[int, tuple], list[int]]:
    """Algorithm 5 (FastMarkovQuiltMechanism): explore from ⌊T/2⌋ towards a missing side."""
    i = max(1, T // 2)
    explored: list[int] = []
    out: dict[int, tuple] = {}
    while i not in out and 1 <= i <= T:
        explored.append(i)
        out[i] = _best_for_node(ev, i, T, eps, None, approx_tmin, literal)
        _, a, b, _ = out[i]
        left_missing, right_missing = i - a == 0, i + b == T + 1
        if left_missing and right_missing:
            break
        if left_missing:
            i += 1
        elif right_missing:
            i -= 1
        else:
            break
    return out, explored


# ================================================================================================
# chains: public entry points
# ================================================================================================

def mqm_chain_exact(family: ChainFamily, epsilon: Budget | str, *, fast: bool = False,
                    nodes: Sequence[int] | None = None, exact_check_limit: int = 20_000,
                    progress: Callable[[int, int], None] | None = None) -> MQMResult:
    """MQMExact: Algorithm 3 (or Algorithm 5 with ``fast=True``) with the exact max-influence of
    each Lemma B.2 quilt (formula in the module docstring), over a finite chain family.

    Complexity ``O(T k^3 + T' n*² k²)`` (module docstring); the answer is certified per node.

    ``fast=True`` runs Algorithm 5 with the exact influences.  That is *not* private in general:
    Claim B.11's argument needs the shifted quilt to have the same influence at every node, which
    the exact influence of a chain that does not start stationary violates (the claim
    ``002.claimB11.exact_influence`` finds counterexamples).  It exists for that check; use
    ``fast`` only with :func:`mqm_chain_approx`.
    """
    budget = as_budget(epsilon)
    ev = _ExactEvaluator(family)
    T = family.length
    eps = eps_float(budget)
    if fast:
        found, explored = _fast_nodes(ev, T, eps, 1)
    else:
        wanted = list(range(1, T + 1)) if nodes is None else list(nodes)
        found = _search(ev, T, eps, wanted, 1, progress)
        explored = wanted
    choices = []
    for i in explored:
        s, a, b, e = found[i]
        q = ChainQuilt(i, a, b, T)
        if not q.has_left and not q.has_right:
            lo, hi = 0.0, 0.0
        else:
            m = ev.margin(i, q)
            lo, hi = max(0.0, e - m), e + m
        score = score_from_log_interval(q.card_nearby, lo, hi, budget)
        if score.infinite and (q.has_left or q.has_right):
            q = ChainQuilt(i, i, T + 1 - i, T)
            lo = hi = 0.0
            score = score_from_log_interval(T, 0.0, 0.0, budget)
        choices.append(NodeChoice(i, q, (lo, hi), None, score))
    notes = []
    worst = _worst(choices)
    if worst is not None and worst.quilt.card_nearby and (worst.quilt.has_left or worst.quilt.has_right):
        cost = worst.node * family.k ** 2 * len(family.members)
        if family.initial == "stationary" or cost <= exact_check_limit:
            ratio, who = family_influence_exact(family, worst.quilt)
            exact = exact_score(worst.quilt.card_nearby, ratio, budget)
            lo, hi = _log_enclosure(ratio)
            if not (worst.log_influence[0] <= hi and lo <= worst.log_influence[1]):
                raise ArithmeticError("the float influence disagrees with the exact one beyond the "
                                      "certified margin")
            worst = NodeChoice(worst.node, worst.quilt, (lo, hi), ratio, exact)
            choices = [worst if c.node == worst.node else c for c in choices]
            notes.append(f"worst node re-checked with exact rationals: e ∈ [{lo:.12g}, {hi:.12g}]")
        else:
            notes.append("worst node not re-checked with exact rationals (cost "
                         f"{cost:,} > {exact_check_limit:,}); its score is certified by the "
                         "rounding-error bound")
    if fast:
        notes.append(f"Algorithm 5 explored nodes {explored}; with exact influences this σ is not "
                     f"guaranteed to cover the other nodes")
    sigma = (max(c.score.lower for c in choices), max(c.score.upper for c in choices))
    return MQMResult("exact-fast" if fast else "exact", budget, sigma, worst, tuple(choices),
                     len(explored), tuple(notes),
                     {"family": family.to_dict()})


def mqm_sigma_numerical(epsilon: Budget | str, *, family: ChainFamily | None = None,
                        length: int | None = None, pi: Fraction | None = None,
                        g: Fraction | None = None) -> float:
    """σ_max of Algorithm 3 as a float, without certification — for plots only (numerical).

    With ``family``: exact max-influence (MQMExact); with ``length, pi, g``: Lemma B.4 bounds
    (MQMApprox).  Same search as :func:`mqm_chain_exact` / :func:`mqm_chain_approx`.
    """
    budget = as_budget(epsilon)
    eps = eps_float(budget)
    if family is not None:
        T = family.length
        found = _search(_ExactEvaluator(family), T, eps, list(range(1, T + 1)), 1)
    else:
        ev = _ApproxEvaluator(Fraction(pi), Fraction(g), length)
        T = length
        found = _search(ev, T, eps, list(range(1, T + 1)), ev.t_min)
    return max(v[0] for v in found.values())


def chain_family_parameters(family: ChainFamily) -> tuple[Fraction, Fraction]:
    """Certified ``(π_Θ, g_Θ)`` for Lemma B.4: ``π_Θ`` exact (min of the exact stationary
    distributions); ``g_Θ`` a rational lower bound on ``min_θ (1 − |λ_2|)``.

    Every member must be reversible (detailed balance, checked exactly) with ``g > 0``.  Binary
    chains have ``λ_2 = p0 + p1 − 1`` exactly; otherwise the eigenvalues are isolated in rational
    intervals of width ``≤ 10^-12`` from the exact characteristic polynomial (sympy).
    """
    pis, gs = [], []
    for m in family.members:
        if not m.is_reversible():
            raise UnsupportedError("Lemma B.4 needs reversible chains (detailed balance fails)",
                                   f"priors.{m.name}")
        pis.append(min(m.stationary()))
        gs.append(eigengap_lower_bound(m))
    pi, g = min(pis), min(gs)
    if pi <= 0 or g <= 0:
        raise UnsupportedError("Lemma B.4 needs π_Θ > 0 and g_Θ > 0 (irreducible, aperiodic chains)",
                               "priors")
    return pi, g


def eigengap_interval(chain: MarkovChain) -> tuple[Fraction, Fraction]:
    """Rational bounds ``lo <= g <= hi`` on the eigengap ``g = 1 − max{|λ| : λ ≠ the eigenvalue 1}``.

    Binary chains: ``λ_2 = p0 + p1 − 1`` exactly (``lo = hi``).  Otherwise the real eigenvalues of
    the exact characteristic polynomial (one factor ``x − 1`` removed) are isolated in rational
    intervals of width ``≤ 10^-15`` (sympy); a reversible chain has only real eigenvalues.
    """
    if chain.k == 1:
        return Fraction(1), Fraction(1)
    if chain.k == 2:
        lam = chain.matrix[0][0] + chain.matrix[1][1] - 1
        return 1 - abs(lam), 1 - abs(lam)
    import sympy
    x = sympy.Symbol("x")
    M = sympy.Matrix([[sympy.Rational(p.numerator, p.denominator) for p in row] for row in chain.matrix])
    poly = sympy.Poly(M.charpoly(x).as_expr(), x)
    poly = sympy.Poly(sympy.quo(poly, sympy.Poly(x - 1, x)), x)   # remove one eigenvalue 1
    if poly.degree() != len(poly.real_roots()):
        raise UnsupportedError("the chain has complex eigenvalues (it is not reversible)",
                               f"priors.{chain.name}")
    hi_abs, lo_abs = Fraction(0), Fraction(0)
    for (lo, hi), _mult in poly.intervals(eps=sympy.Rational(1, 10**15)):
        flo = Fraction(int(sympy.numer(lo)), int(sympy.denom(lo)))
        fhi = Fraction(int(sympy.numer(hi)), int(sympy.denom(hi)))
        hi_abs = max(hi_abs, abs(flo), abs(fhi))
        lo_abs = max(lo_abs, Fraction(0) if flo <= 0 <= fhi else min(abs(flo), abs(fhi)))
    return 1 - hi_abs, 1 - lo_abs


def eigengap_lower_bound(chain: MarkovChain) -> Fraction:
    """A rational lower bound on the eigengap (see :func:`eigengap_interval`)."""
    return eigengap_interval(chain)[0]


def mqm_chain_approx(length: int, epsilon: Budget | str, pi: Fraction, g: Fraction, *,
                     fast: bool = False, literal_pseudocode: bool = False) -> MQMResult:
    """MQMApprox: Algorithms 3–4 (or 5 with ``fast=True``) with Lemma B.4's bounds.

    Quilt sides present at distance ``t`` need ``t > log(1/π_Θ)/g_Θ`` (Lemma B.4; at equality the
    bound is infinite).  A missing side needs no condition, so the boundary quilts and ``∅`` are
    always candidates.  ``literal_pseudocode=True`` applies Algorithm 4's condition
    ``a, b ≥ log(1/π_Θ)/g_Θ`` to the missing sides too (``a = i``, ``b = T+1−i``), as written.
    Complexity ``O(T n*²)`` with the pruning of :func:`mqm_chain_exact`.
    """
    budget = as_budget(epsilon)
    ev = _ApproxEvaluator(Fraction(pi), Fraction(g), length)
    T = length
    eps = eps_float(budget)
    tmin = ev.t_min
    if fast:
        found, explored = _fast_nodes(ev, T, eps, tmin, literal_pseudocode)
    else:
        explored = list(range(1, T + 1))
        found = _search(ev, T, eps, explored, tmin, literal=literal_pseudocode)
    choices = []
    for i in explored:
        s, a, b, e = found[i]
        q = ChainQuilt(i, a, b, T)
        if s == math.inf:
            score = ScoreInterval(q.card_nearby, math.inf, math.inf)
            choices.append(NodeChoice(i, q, (math.inf, math.inf), None, score))
            continue
        if q.has_left or q.has_right:
            lo, hi = ev.certified(q)
        else:
            lo = hi = mpmath.mpf(0)
        score = score_from_log_interval(q.card_nearby, lo, hi, budget)
        choices.append(NodeChoice(i, q, (float(mpmath.mpf(lo)), float(mpmath.mpf(hi))), None, score))
    sigma = (max(c.score.lower for c in choices), max(c.score.upper for c in choices))
    notes = [f"π_Θ = {fraction_str(Fraction(pi))}, g_Θ = {fraction_str(Fraction(g))}; quilt "
             f"distances must be >= {tmin}"]
    if fast:
        notes.append(f"Algorithm 5 explored nodes {explored}")
    return MQMResult("approx-fast" if fast else "approx", budget, sigma, _worst(choices),
                     tuple(choices), len(explored), tuple(notes),
                     {"pi_theta": fraction_str(Fraction(pi)), "g_theta": fraction_str(Fraction(g)),
                      "min_distance": tmin})


def mqm_chain_exact_basic(family: ChainFamily, epsilon: Budget | str,
                          nodes: Sequence[int] | None = None) -> dict[int, tuple[float, int, int]]:
    """The plain search of Algorithm 3 with exact influences in floats: every ``(a, b)`` for every
    node, no pruning, no reuse — ``O(T^3 k^2)``.  The benchmark's baseline and a cross-check of
    :func:`mqm_chain_exact` (returns ``{i: (σ_i, a, b)}``)."""
    budget = as_budget(epsilon)
    eps = eps_float(budget)
    ev = _ExactEvaluator(family)
    T = family.length
    out = {}
    for i in (range(1, T + 1) if nodes is None else nodes):
        best = (T / eps, i, T + 1 - i)
        bs = np.arange(1, T - i + 1)
        for a in range(1, i):
            if len(bs):
                es = ev.both(i, a, bs)
                with np.errstate(divide="ignore"):
                    sc = np.where(es < eps, (a + bs - 1) / np.maximum(eps - es, 1e-300), np.inf)
                j = int(np.argmin(sc))
                if sc[j] < best[0]:
                    best = (float(sc[j]), a, int(bs[j]))
            e = ev.left_only(i, a)
            if e < eps and (a + T - i) / (eps - e) < best[0]:
                best = ((a + T - i) / (eps - e), a, T + 1 - i)
        if len(bs):
            es = ev.right_only(i, bs)
            with np.errstate(divide="ignore"):
                sc = np.where(es < eps, (i + bs - 1) / np.maximum(eps - es, 1e-300), np.inf)
            j = int(np.argmin(sc))
            if sc[j] < best[0]:
                best = (float(sc[j]), i, int(bs[j]))
        out[i] = best
    return out


def chain_node_quilts_exact(family: ChainFamily, i: int, budget: Budget) -> list[NodeChoice]:
    """Every Lemma B.2 quilt of node ``i`` with its exact max-influence and certified score
    (Fractions; ``O(T^2)`` quilts — for small chains and cross-checks)."""
    from pufferfish.verify.quilts.markov_quilts import chain_quilts
    out = []
    for q in chain_quilts(family.length, i):
        ratio, _ = family_influence_exact(family, q)
        out.append(NodeChoice(i, q, _log_enclosure(ratio), ratio,
                              exact_score(q.card_nearby, ratio, budget)))
    return out


# ================================================================================================
# inferential privacy baseline (Appendix B.10)
# ================================================================================================

@dataclass(frozen=True)
class GK16Result:
    """Appendix B.10: γ (exact ratio), the spectral-norm condition (certified) and the noise."""

    gamma_ratio: Fraction          # γ = ½ log(gamma_ratio)
    length: int
    spectral_norm: tuple[float, float]
    applies: bool
    noise_scale: float | None      # numerical
    budget: Budget

    def to_dict(self) -> dict:
        return {"gamma": f"1/2 * log({fraction_str(self.gamma_ratio)})",
                "gamma_float": 0.5 * math.log(float(self.gamma_ratio)),
                "spectral_norm": list(self.spectral_norm), "applies": self.applies,
                "noise_scale": self.noise_scale, "noise_scale_is": "numerical (numpy inverse)",
                "length": self.length, "epsilon": self.budget.text}

    def explain(self) -> str:
        if not self.applies:
            return (f"inferential privacy [11]: ‖Γ‖₂ ∈ [{self.spectral_norm[0]:.6g}, "
                    f"{self.spectral_norm[1]:.6g}] is not < 1; no guarantee")
        return (f"inferential privacy [11]: ‖Γ‖₂ ≈ {self.spectral_norm[1]:.6g} < 1; noise "
                f"Lap({self.noise_scale:.6g}) (numerical)")


def gk16_gamma_ratio(p0: Fraction, p1: Fraction) -> Fraction:
    """``exp(2γ)`` for an interior node of the binary chain, from the definition in B.10.

    ``γ_ij = max ½ log P(X_i∈S | x_{−i}) / P(X_i∈S | x'_{−i})`` over ``S`` and ``x_{−i} ∼_j x'_{−i}``;
    for a chain, ``P(X_i | X_{−i})`` depends on the two neighbours only:
    ``P(X_i = s | u, v) ∝ P(u, s) P(s, v)``.  ``S = {0}`` or ``{1}`` (``S = {0, 1}`` gives 1).
    Needs ``0 < p0, p1 < 1``.
    """
    P = ((p0, 1 - p0), (1 - p1, p1))

    def cond(s: int, u: int, v: int) -> Fraction:
        w = [P[u][t] * P[t][v] for t in (0, 1)]
        return w[s] / (w[0] + w[1])

    best = Fraction(1)
    for s, u, v, v2 in cartesian((0, 1), repeat=4):
        for num, den in ((cond(s, u, v), cond(s, u, v2)), (cond(s, v, u), cond(s, v2, u))):
            if num and den:
                best = max(best, num / den)
    return best


def gk16_gamma_paper_ratio(p0: Fraction, p1: Fraction) -> Fraction:
    """``exp(2γ)`` from the closed form printed in Appendix B.10 (as rendered in our copy):
    ``γ = ½ max{±log t}`` over its four rational terms ``t``, i.e. ``exp(2γ) = max max(t, 1/t)``.
    Compared with the definition by the claim ``002.B10.gamma_formula``."""
    c1 = ((1 - p0) ** 2 + (1 - p1) * p0) / ((1 - p1) * (1 - p0) + p1 * (1 - p1))
    c2 = (p0 * (1 - p0) + p0 * p1) / ((1 - p1) * p0 + p1 ** 2)
    terms = [(1 - p1) / (1 - p0) * c1, p1 / p0 * c1, (1 - p1) / (1 - p0) * c2, p1 / p0 * c2]
    return max(max(t, 1 / t) for t in terms)


def gk16_noise(gamma_ratio: Fraction, length: int, epsilon: Budget | str) -> GK16Result:
    """The inferential-privacy noise of Appendix B.10 for a binary chain of ``length`` nodes.

    Γ is tridiagonal with ``γ`` off the diagonal, so ``‖Γ‖₂ = 2γ cos(π/(T+1))`` (eigenvalues of a
    tridiagonal Toeplitz matrix), certified with interval arithmetic.  If ``‖Γ‖₂ < 1``:
    ``Φ = (I − Γ)^{-1}`` (its row sums by a banded solve, numerical), ``ε' = ε / (2 max_i Σ_j φ_ij)``, noise ``Lap(1/ε')``.
    """
    budget = as_budget(epsilon)
    old = iv.prec
    iv.prec = _BITS
    try:
        gamma = iv.log(iv.mpf(gamma_ratio.numerator) / gamma_ratio.denominator) / 2
        norm = 2 * gamma * iv.cos(iv.pi / (length + 1)) if length > 1 else iv.mpf(0)
        lo, hi = _round_out(norm)
        applies = bool(norm.b < 1)
        if not applies and not norm.a >= 1:
            applies = False  # undecided at this precision: treated as not applicable
    finally:
        iv.prec = old
    scale = None
    if applies:
        from scipy.linalg import solve_banded
        g = 0.5 * math.log(float(gamma_ratio))
        # row sums of Φ = (I − Γ)^{-1} solve (I − Γ) r = 1 (Γ symmetric tridiagonal): O(T)
        bands = np.zeros((3, length))
        bands[0, 1:] = -g
        bands[1, :] = 1.0
        bands[2, :-1] = -g
        rows = solve_banded((1, 1), bands, np.ones(length))
        eps_prime = eps_float(budget) / (2 * rows.max())
        scale = 1 / eps_prime
    return GK16Result(gamma_ratio, length, (lo, hi), applies, scale, budget)


__all__ = ["MaxInfluence", "max_influence", "ScoreInterval", "exact_score", "NodeChoice",
           "MQMResult", "mqm_bayesnet", "ChainFamily", "interval_family", "interval_parameters",
           "chain_influence_exact", "family_influence_exact", "mqm_chain_exact",
           "mqm_chain_approx", "mqm_chain_exact_basic", "mqm_sigma_numerical", "chain_family_parameters",
           "eigengap_lower_bound", "chain_node_quilts_exact", "GK16Result", "gk16_gamma_ratio",
           "gk16_gamma_paper_ratio", "eigengap_interval", "gk16_noise", "as_budget", "INITIAL_MODES"]


# ================================================================================================
# the histogram query (Appendix B.2, Theorem B.9, Appendix B.12)
# ================================================================================================

def state_histogram(data: Sequence[object], states: Sequence[object]) -> tuple[Fraction, ...]:
    """The histogram density estimator ``F(D) = (f_1, ..., f_k)``, ``f_j = #{t : X_t = s_j}/T``.

    ``002_e1f2e9a9937b8cda.txt`` Appendix B.12 (the function ``F`` of Figure 4) and Theorem B.9.
    Exact; ``O(T + k)``.  Changing one entry moves two coordinates by ``1/T`` each, so
    ``‖F(D) − F(D')‖₁ ≤ 2/T`` (proof of Theorem B.9).

    >>> state_histogram([0, 1, 1, 2], (0, 1, 2))
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    """
    index = {s: j for j, s in enumerate(states)}
    counts = [0] * len(index)
    for t, x in enumerate(data):
        if x not in index:
            raise ModelError(f"value {x!r} is not a state of the chain {tuple(states)!r}",
                             f"data.{t}")
        counts[index[x]] += 1
    if not data:
        raise ModelError("the data set is empty", "data")
    return tuple(Fraction(c, len(data)) for c in counts)


def harmonic_number(k: int) -> Fraction:
    """``H_k = 1 + 1/2 + ... + 1/k`` exactly."""
    return sum((Fraction(1, j) for j in range(1, k + 1)), Fraction(0))


def expected_max_abs_laplace(k: int, scale: Fraction) -> Fraction:
    """``E max_{j≤k} |Z_j|`` for i.i.d. ``Z_j ~ Lap(scale)``, exactly: ``scale · H_k``.

    ``|Z_j|`` is exponential with mean ``scale``; by Rényi's representation the maximum of ``k``
    i.i.d. exponentials is ``Σ_{j=1}^k E_j/j`` with independent exponentials ``E_j``, whose mean
    is ``scale · Σ 1/j``.  This is ``E‖M(D) − F(D)‖∞`` of the histogram release
    (Theorem B.9 of ``002_e1f2e9a9937b8cda.txt``).

    >>> expected_max_abs_laplace(2, Fraction(1))
    Fraction(3, 2)
    """
    if k < 1:
        raise ModelError("need at least one coordinate", "k")
    return Fraction(scale) * harmonic_number(k)


@dataclass(frozen=True)
class HistogramMechanism:
    """The Markov Quilt Mechanism for the state histogram of a chain (Appendix B.2, B.12).

    The histogram density ``F`` is ``2/T``-Lipschitz in ``L₁``; ``F' = (T/2)·F`` is 1-Lipschitz,
    so (Appendix B.2, Proposition 1 of [7]) ``F'(D) + σ_max·Lap(1)^k`` is ε-Pufferfish and so is
    its post-processing ``M(D) = F(D) + (2σ_max/T)·Lap(1)^k``.  The per-coordinate Laplace scale
    is therefore ``b = 2σ_max/T``; the mechanism uses ``σ = sigma_upper`` of :attr:`mqm` (a float,
    so ``b`` is an exact dyadic rational).  ``E‖M(D) − F(D)‖∞ = H_k·b`` and
    ``E‖M(D) − F(D)‖₁ = k·b`` exactly.
    """

    mqm: MQMResult
    length: int
    states: tuple

    @property
    def k(self) -> int:
        return len(self.states)

    @property
    def holds(self) -> bool:
        """True when σ_max is finite (some quilt has finite score for every node)."""
        return self.mqm.holds

    @property
    def scale(self) -> Fraction:
        """The per-coordinate scale ``b = 2·σ_upper/T`` the mechanism uses (exact)."""
        if not self.holds:
            raise UnsupportedError("σ_max is infinite: no finite noise scale", "--epsilon")
        return 2 * Fraction(self.mqm.sigma[1]) / self.length

    @property
    def scale_interval(self) -> tuple[Fraction, Fraction]:
        """``[2σ_lower/T, 2σ_upper/T]``: the certified enclosure of ``2σ_max/T``."""
        return 2 * Fraction(self.mqm.sigma[0]) / self.length, self.scale

    @property
    def expected_linf_error(self) -> Fraction:
        """``E‖M(D) − F(D)‖∞ = H_k · b`` (exact; Theorem B.9's left-hand side)."""
        return expected_max_abs_laplace(self.k, self.scale)

    @property
    def expected_l1_error(self) -> Fraction:
        """``E‖M(D) − F(D)‖₁ = k · b`` (exact; the utility measure of Figure 4)."""
        return self.k * self.scale

    def release(self, data: Sequence[object], rng: np.random.Generator) -> tuple[float, ...]:
        """One draw of ``M(D)`` (numerical: float Laplace samples from ``rng``)."""
        f = state_histogram(data, self.states)
        noise = rng.laplace(0.0, float(self.scale), size=self.k)
        return tuple(float(x) + float(z) for x, z in zip(f, noise))

    def to_dict(self) -> dict:
        lo, hi = self.scale_interval
        return {"query": "state histogram (density), 2/T-Lipschitz in L1", "length": self.length,
                "states": list(self.states), "sigma_max": self.mqm.to_dict()["sigma_max"],
                "scale": fraction_str(hi), "scale_float": float(hi),
                "scale_interval": [fraction_str(lo), fraction_str(hi)],
                "expected_linf_error": fraction_str(self.expected_linf_error),
                "expected_linf_error_float": float(self.expected_linf_error),
                "expected_l1_error": fraction_str(self.expected_l1_error),
                "expected_l1_error_float": float(self.expected_l1_error),
                "mqm": self.mqm.to_dict()}

    def explain(self) -> str:
        if not self.holds:
            return "histogram MQM: σ_max is infinite"
        return (f"histogram MQM ({self.mqm.method}), T = {self.length}, k = {self.k}, "
                f"ε = {self.mqm.budget.text}: σ_max ≤ {self.mqm.sigma[1]:.10g}; release "
                f"F(D) + Lap({float(self.scale):.6g}) per coordinate (b = 2σ_max/T); "
                f"E‖M−F‖∞ = H_k·b = {float(self.expected_linf_error):.6g}, "
                f"E‖M−F‖₁ = k·b = {float(self.expected_l1_error):.6g}")


HISTOGRAM_METHODS = ("approx", "fast", "exact")


def histogram_mechanism(length: int, epsilon: Budget | str, *, states: Sequence[object] | None = None,
                        pi: object | None = None, g: object | None = None,
                        family: ChainFamily | None = None,
                        method: str = "approx") -> HistogramMechanism:
    """The MQM histogram release of ``002_e1f2e9a9937b8cda.txt`` Appendix B.2 / B.12.

    ``method="approx"`` (MQMApprox, Algorithms 3–4) or ``"fast"`` (Algorithm 5) use Lemma B.4's
    bounds from ``pi`` = π_Θ and ``g`` = g_Θ (rationals; a lower bound on either is also valid);
    ``"exact"`` (MQMExact, Algorithm 3) uses the exact max-influence of ``family`` (its length
    must be ``length``).  Cost: that of the σ_max computation (see :func:`mqm_chain_approx`,
    :func:`mqm_chain_exact`).

    Example (k = 5 states, π_Θ = 1/20, g_Θ = 1/10, ε = 1, T = 1000): ``σ_max ≈ 154.5`` and the
    per-coordinate scale ``b = 2σ_max/T ≈ 0.309``.
    """
    if method not in HISTOGRAM_METHODS:
        raise ModelError(f"unknown method {method!r}; use one of {HISTOGRAM_METHODS}", "--method")
    if not isinstance(length, int) or length < 1:
        raise ModelError("the chain length T must be a positive integer", "--length")
    budget = as_budget(epsilon)
    if method == "exact":
        if family is None:
            raise ModelError("method 'exact' needs a chain family", "--method")
        if family.length != length:
            raise ModelError(f"the family has length {family.length}, not {length}", "--length")
        result = mqm_chain_exact(family, budget)
        chain_states = family.members[0].states
    else:
        if pi is None or g is None:
            if family is None:
                raise ModelError("methods 'approx' and 'fast' need π_Θ and g_Θ (or a family)",
                                 "--pi")
            pi, g = chain_family_parameters(family)
        from pufferfish.models.numbers import exact
        result = mqm_chain_approx(length, budget, exact(pi, "--pi"), exact(g, "--g"),
                                  fast=method == "fast")
        chain_states = family.members[0].states if family is not None else None
    if states is None:
        if chain_states is None:
            raise ModelError("give the states (or a family) for the histogram", "--states")
        states = chain_states
    states = tuple(states)
    if len(states) < 1 or len(set(states)) != len(states):
        raise ModelError("the states must be distinct and non-empty", "--states")
    return HistogramMechanism(result, length, states)


__all__ += ["state_histogram", "harmonic_number", "expected_max_abs_laplace",
            "HistogramMechanism", "histogram_mechanism", "HISTOGRAM_METHODS"]
