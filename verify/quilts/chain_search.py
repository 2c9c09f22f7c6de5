"""The Markov Quilt Mechanism on Markov chains: Algorithms 3–5 of Wang et al., Privacy-Preserving
Analysis of Correlated Data (§4.1, Appendix B.4–B.8), with the quilts of Lemma B.2 only (Lemma B.3:
no loss).

* :func:`mqm_chain_exact` ("MQMExact"): the exact max-influence of each quilt
  (:mod:`pufferfish.verify.quilts.chain_influence`), over a finite
  :class:`~pufferfish.models.chain_family.ChainFamily`.
* :func:`mqm_chain_approx` ("MQMApprox", Algorithms 3–4): Lemma B.4's bounds
  ``f(t) = log((π_Θ + e^{−g_Θ t})/(π_Θ − e^{−g_Θ t}))``, ``e ≤ f(b) + 2 f(a)``, valid when the
  present distances exceed ``log(1/π_Θ)/g_Θ``.
* ``fast=True`` (Algorithm 5): start at node ``⌊T/2⌋`` and move towards the side whose quilt node
  is missing, stopping at the first interior best quilt.

**Speed and exactness.**  The search over quilts runs on float64 logarithms (numpy): floats only
choose which quilt is the witness for each node.  The result is then certified: for every node,
the chosen quilt's max-influence gets a rigorous upper bound — the float value plus the a-priori
rounding-error bound of :func:`pufferfish.verify.influence.chains.float_log_error` — and the score
upper bound ``card/(ε − e_upper)`` is evaluated in interval arithmetic
(:mod:`pufferfish.verify.quilts.scores`).  ``σ_max`` is reported as the certified interval
``[σ_float, σ_upper]``; ``σ_upper`` is a noise scale that is proved to suffice.  In addition the
worst node's quilt is re-checked with exact rationals when that is cheap
(``i·k² ≤ exact_check_limit``).

Complexity of MQMExact: ``O(T k^3)`` for the powers and marginals, then per node
``O(n*² k²)`` where ``n* = ε σ_i + 1`` bounds ``card(X_N)`` of any quilt that can beat the current
best (``score ≥ card/ε``); nodes whose inputs equal the previous node's (bitwise, away from the
ends) reuse its answer.  So ``O(T k^3 + T' n*² k²)`` with ``T' ≤ T`` nodes searched, against the
``O(T^3 k^2)`` of the plain search of Algorithm 3 over all ``(a, b)``
(:func:`mqm_chain_exact_basic`, kept as the baseline and as an independent cross-check).

>>> from pufferfish.models.bayesnet import MarkovChain
>>> family = ChainFamily((MarkovChain.binary("9/10", "4/5", 100, ["1/2", "1/2"]),))
>>> f"{mqm_chain_exact(family, '1').sigma[1]:.10g}"
'22.29836064'
>>> f"{mqm_chain_approx(100, '1', Fraction(1, 3), Fraction(3, 10)).sigma[1]:.10g}"
'35.75000353'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from pufferfish.models.chain_family import ChainFamily
from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import Ratio, fraction_str
from pufferfish.verify.execution import Engine, InProcessEngine
from pufferfish.verify.influence.chains import float_log_error
from pufferfish.verify.numerics.certified import Budget
from pufferfish.verify.numerics.intervals import (interval_context, log_enclosure, rational_interval,
                                                  round_out)
from pufferfish.verify.quilts.chain_influence import ChainTables, family_influence_exact
from pufferfish.verify.quilts.chain_runs import (lift_allocator_threshold, line_candidate,
                                               search_in_runs)
from pufferfish.verify.quilts.markov_quilts import ChainQuilt, chain_quilts
from pufferfish.verify.quilts.scores import (SCORE_BITS, MQMResult, NodeChoice, ScoreInterval,
                                             as_budget, eps_float, exact_score, score_from_log_interval,
                                             score_of_interval, sigma_of, worst_choice)


def _worst_pair(total: np.ndarray, mask: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The largest of ``total`` over its trailing value-pair axes (``mask``'s shape), per
    quilt of ``shape``: a NaN (∞ − ∞) counts as ∞, a pair outside ``mask`` is left out."""
    total = np.where(np.isnan(total), np.inf, total)
    return np.where(mask, total, -np.inf).reshape(*shape, -1).max(axis=-1)


class _ExactEvaluator:
    """Influence of Lemma B.2 quilts from float tables, max over the family's members."""

    def __init__(self, family: ChainFamily) -> None:
        self.tables = [ChainTables(m) for m in family.effective()]
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
            with np.errstate(invalid="ignore"):
                tot = t.left_stack(i, as_)[:, None] + t.right_stack(bs)[None, :]
            out = np.maximum(out, _worst_pair(tot, t.pair_mask(i), (len(as_), len(bs))))
        return np.maximum(out, 0.0)

    def pairs(self, i: int, as_: np.ndarray, bs: np.ndarray) -> np.ndarray:
        """e for quilts {X_{i−a}, X_{i+b}}, ``(a, b)`` for ``a, b`` in ``zip(as_, bs)``."""
        out = np.zeros(len(as_))
        for t in self.tables:
            with np.errstate(invalid="ignore"):
                tot = t.left_stack(i, as_) + t.right_stack(bs)
            out = np.maximum(out, _worst_pair(tot, t.pair_mask(i), (len(as_),)))
        return out

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
            terms += 2 * float_log_error(q.a, self.k) + 2 * float_log_error(depth_mu, self.k)
        if q.has_right:
            terms += 2 * float_log_error(q.b, self.k)
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

    def certified(self, q: ChainQuilt):
        """An interval of ``interval_context(SCORE_BITS)`` enclosing the Lemma B.4 bound for
        quilt ``q``; ``None`` when the bound is infinite (``π_Θ ≤ e^{−g_Θ t}`` not excluded)."""
        context = interval_context(SCORE_BITS)
        pi = rational_interval(context, self.pi)
        g = rational_interval(context, self.g)
        total = context.mpf(0)
        for t, weight, present in ((q.b, 1, q.has_right), (q.a, 2, q.has_left)):
            if not present:
                continue
            d = context.exp(-g * t)
            gap = pi - d
            if not gap.a > 0:
                return None
            total += weight * context.log((pi + d) / gap)
        return total


def _first_valid_distance(pi: Fraction, g: Fraction) -> int:
    """Smallest integer ``t`` with ``t > log(1/π_Θ)/g_Θ`` (Lemma B.4/B.6), decided rigorously."""
    if not (0 < pi and 0 < g):
        raise ModelError("Lemma B.4 needs π_Θ > 0 and g_Θ > 0", "--pi")
    if pi >= 1:
        return 1
    guess = max(1, int(math.log(1 / float(pi)) / float(g)) - 2)
    context = interval_context(SCORE_BITS)
    threshold = context.log(rational_interval(context, 1 / pi)) / rational_interval(context, g)
    t = guess
    while not (t > threshold.b):      # t > threshold certainly
        t += 1
    return t


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
            literal: bool = False, after: tuple[int, tuple] | None = None) -> dict[int, tuple]:
    """σ_i for each node in ``nodes`` (in order), reusing the previous node's answer when the
    inputs are bitwise equal and both ends are out of reach.  ``after = (node, answer)``
    continues a search whose last node was ``node`` (it is not in the result)."""
    out: dict[int, tuple] = {}
    prev = prev_key = None
    if after is not None:
        out[after[0]], prev, prev_key = after[1], after[1], ev.key(after[0])
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
    if after is not None:
        del out[after[0]]
    return out


def _search_run(ev, T: int, eps: float, lead: int | None,
                nodes: Sequence[int]) -> tuple[tuple | None, dict[int, tuple]]:
    """A run of nodes as an engine task: ``(answer at lead, answers of nodes)``.

    ``lead`` (the node before the run, ``None`` for the first run) is searched from
    :func:`~pufferfish.verify.quilts.chain_runs.line_candidate`, which depends on no other
    node; the run then continues from it exactly as :func:`_search` continues from a previous
    node, so its answers are the one-process answers whenever the lead's answer is."""
    lift_allocator_threshold()
    if lead is None:
        return None, _search(ev, T, eps, nodes)
    candidate = line_candidate(ev, lead, eps)
    answer = _best_for_node(ev, lead, T, eps, None if candidate is None else candidate[1:])
    return answer, _search(ev, T, eps, nodes, after=(lead, answer))


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


def mqm_chain_exact(family: ChainFamily, epsilon: Budget | str, *, fast: bool = False,
                    nodes: Sequence[int] | None = None, exact_check_limit: int = 20_000,
                    progress: Callable[[int, int], None] | None = None,
                    engine: Engine | None = None) -> MQMResult:
    """MQMExact: Algorithm 3 (or Algorithm 5 with ``fast=True``) with the exact max-influence of
    each Lemma B.2 quilt (formula in the module docstring), over a finite chain family.

    Complexity ``O(T k^3 + T' n*² k²)`` (module docstring); the answer is certified per node.
    On a Dask ``engine`` (:mod:`pufferfish.verify.execution`) runs of increasing ``nodes``, cut
    by estimated cost, are the tasks (:mod:`pufferfish.verify.quilts.chain_runs`); the quilts,
    σ values and σ_max are identical to one process.

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
        if (engine is None or isinstance(engine, InProcessEngine)
                or any(x >= y for x, y in zip(wanted, wanted[1:]))):
            found = _search(ev, T, eps, wanted, 1, progress)
        else:
            found = search_in_runs(engine, ev, T, eps, wanted, _search_run, _search, progress)
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
    worst = worst_choice(choices)
    if worst is not None and worst.quilt.card_nearby and (worst.quilt.has_left or worst.quilt.has_right):
        cost = worst.node * family.k ** 2 * len(family.members)
        if family.initial == "stationary" or cost <= exact_check_limit:
            ratio, who = family_influence_exact(family, worst.quilt)
            exact = exact_score(worst.quilt.card_nearby, ratio, budget)
            lo, hi = log_enclosure(ratio, SCORE_BITS - 10)
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
    sigma = sigma_of(choices)
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

def approx_parameter(value: object, name: str) -> Fraction:
    """``value`` as the exact rational ``π_Θ`` or ``g_Θ`` of Lemma B.4, which lie in ``(0, 1]``
    (``ModelError`` at ``name`` otherwise; floats are refused, being inexact).

    >>> approx_parameter(Fraction(1, 2), "pi")
    Fraction(1, 2)
    """
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise ModelError(f"must be an exact rational (Fraction or int), got {value!r}", name)
    if not 0 < value <= 1:
        raise ModelError(f"must be in (0, 1], got {fraction_str(Fraction(value))}", name)
    return Fraction(value)


def mqm_chain_approx(length: int, epsilon: Budget | str, pi: Fraction, g: Fraction, *,
                     fast: bool = False, literal_pseudocode: bool = False) -> MQMResult:
    """MQMApprox: Algorithms 3–4 (or 5 with ``fast=True``) with Lemma B.4's bounds.

    Quilt sides present at distance ``t`` need ``t > log(1/π_Θ)/g_Θ`` (Lemma B.4; at equality the
    bound is infinite).  A missing side needs no condition, so the boundary quilts and ``∅`` are
    always candidates.  ``literal_pseudocode=True`` applies Algorithm 4's condition
    ``a, b ≥ log(1/π_Θ)/g_Θ`` to the missing sides too (``a = i``, ``b = T+1−i``), as written.
    Complexity ``O(T n*²)`` with the pruning of :func:`mqm_chain_exact`.

    ``pi`` and ``g`` must be exact rationals (``Fraction`` or ``int``) in ``(0, 1]``; anything
    else is refused with a :class:`~pufferfish.models.errors.ModelError` naming the parameter.
    """
    budget = as_budget(epsilon)
    pi, g = approx_parameter(pi, "pi"), approx_parameter(g, "g")
    ev = _ApproxEvaluator(pi, g, length)
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
        influence = ev.certified(q) if (q.has_left or q.has_right) else interval_context(SCORE_BITS).mpf(0)
        if influence is None:
            choices.append(NodeChoice(i, q, (math.inf, math.inf), None,
                                      ScoreInterval(q.card_nearby, math.inf, math.inf)))
            continue
        score = score_of_interval(q.card_nearby, influence, budget)
        choices.append(NodeChoice(i, q, round_out(influence), None, score))
    sigma = sigma_of(choices)
    notes = [f"π_Θ = {fraction_str(Fraction(pi))}, g_Θ = {fraction_str(Fraction(g))}; quilt "
             f"distances must be >= {tmin}"]
    if fast:
        notes.append(f"Algorithm 5 explored nodes {explored}")
    return MQMResult("approx-fast" if fast else "approx", budget, sigma, worst_choice(choices),
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


def chain_node_quilts_exact(family: ChainFamily, i: int, budget: Budget,
                            quilts: Sequence[ChainQuilt] | None = None) -> list[NodeChoice]:
    """Every Lemma B.2 quilt of node ``i`` (or only ``quilts``) with its exact max-influence and
    certified score (Fractions; ``O(T^2)`` quilts — for small chains and cross-checks)."""
    out = []
    for q in (chain_quilts(family.length, i) if quilts is None else quilts):
        ratio, _ = family_influence_exact(family, q)
        out.append(NodeChoice(i, q, log_enclosure(ratio, SCORE_BITS - 10), ratio,
                              exact_score(q.card_nearby, ratio, budget)))
    return out


__all__ = ["mqm_chain_exact", "mqm_chain_approx", "approx_parameter", "mqm_chain_exact_basic", "mqm_sigma_numerical",
           "chain_node_quilts_exact"]
