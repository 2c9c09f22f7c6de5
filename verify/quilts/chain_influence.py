"""Max-influence of the Lemma B.2 quilts of a Markov chain (Wang et al., Privacy-Preserving Analysis
of Correlated Data, §4.1, Appendix B.4–B.8): the exact formula, and float64 tables with a certified
rounding-error bound.

For a chain ``θ = (q, P)``, node ``i`` and quilt ``{X_{i-a}, X_{i+b}}`` (Markov property; ``μ_j``
= law of ``X_j``), Definition 4.1 reduces to::

    e = max_{x≠x'} log [ max_y P^a(y,x)/P^a(y,x') · μ_i(x')/μ_i(x) · max_z P^b(x,z)/P^b(x',z) ]

with ``y`` over ``supp μ_{i−a}``; a missing side contributes a factor 1.  With an "any" initial
distribution (the §5 family, whose initial distribution ranges over the whole simplex; needs
``P > 0``) the supremum over ``q`` replaces ``μ_i(x')/μ_i(x)`` by ``max_r P^{i−1}(r,x')/P^{i−1}(r,x)``
(a ratio of linear functions of ``q`` is maximised at a vertex of the reachable polytope
``{q P^{i−a−1}}``).

* :func:`chain_influence_exact`, :func:`family_influence_exact` — the formula in exact rationals
  (``O(k³ log T)`` per quilt);
* :class:`ChainTables` — float64 logarithms of its three factors for every distance, for the
  quilt search of :mod:`pufferfish.verify.quilts.chain_search`;
* :func:`pufferfish.verify.influence.chains.float_log_error` — the a-priori bound on ``|log(computed) − log(exact)|`` of one table
  entry: every computed ``P^t`` or ``μ_t`` entry is a sum of products of nonnegative numbers, so it
  is within relative ``((1+u)(1+γ_{k+1}))^t − 1`` of the exact one (``u = 2^{−53}``,
  ``γ_n = nu/(1−nu)``, Higham §3.1).

>>> from pufferfish.models.bayesnet import MarkovChain
>>> from pufferfish.verify.quilts.markov_quilts import ChainQuilt
>>> chain = MarkovChain.binary("3/4", "3/4", 3, ["1/2", "1/2"])
>>> chain_influence_exact(chain, ChainQuilt(1, 1, 1, 3))
(Fraction(3, 1), (0, 1))
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from pufferfish.models.bayesnet import MarkovChain
from pufferfish.models.chain_family import ChainFamily
from pufferfish.models.numbers import INFINITY, Ratio
from pufferfish.verify.quilts.markov_quilts import ChainQuilt

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



# ------------------------------------------------------------------------------------------------
# float tables for the fast search
# ------------------------------------------------------------------------------------------------

def _log_ratio_maxima(lm: np.ndarray) -> np.ndarray:
    """``out[n, x, x'] = max_z lm[n, x, z] − lm[n, x', z]`` over ``z`` with ``lm[n, x, z] > −∞``
    (``−∞`` when there is none) for a stack of log matrices."""
    diff = lm[:, :, None, :] - lm[:, None, :, :]
    diff = np.where(np.isneginf(lm)[:, :, None, :], -np.inf, diff)
    diff = np.where(np.isnan(diff), -np.inf, diff)
    return diff.max(axis=3)


class ChainTables:
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
        """Extend the tables to distance ``t``: the missing powers one product at a time, their
        logs and maxima for all new distances at once (``O(k³)`` per distance)."""
        first = len(self.logF)
        if first > t:
            return
        while len(self.powers) <= t:
            self.powers.append(self.powers[-1] @ self.P)
        with np.errstate(divide="ignore", invalid="ignore"):
            lm = np.log(np.stack(self.powers[first:t + 1]))     # -inf where zero
            # F[x,x'] = max_z lm[x,z] − lm[x',z] over z with M[x,z] > 0
            self.logF.extend(_log_ratio_maxima(lm))
            # L[x,x'] = max_y lm[y,x] − lm[y,x'] over y with M[y,x] > 0
            self.logL.extend(_log_ratio_maxima(lm.transpose(0, 2, 1)))

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


__all__ = ["chain_influence_exact", "family_influence_exact", "ChainTables"]
