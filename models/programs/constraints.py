"""The noise of one program path: independent integer noise variables under comparisons.

Along one path of a program, each noise draw is a variable ``x_i`` with an exact law (two-sided or
one-sided geometric, :mod:`~pufferfish.models.programs.exp_poly`), and each comparison the path
took is a constraint: ``x_i ∈ [low, high]`` (a noisy value against a constant) or
``x_i − x_j ∈ [low, high]`` (two noisy values).  The path's probability is the mass of the set
of noise vectors that satisfy all of them.

When the comparisons between variables form a forest (every path of a Sparse Vector or
report-noisy-max program does: each comparison joins a fresh draw to one earlier value), the
mass is exact by summing out the variables leaf to root: the message from a child ``c`` to its
parent ``v`` is ``m(x_v) = Σ_{x_c − x_v ∈ [low, high]} belief_c(x_c)``, a piecewise
exponential polynomial in ``x_v``.  A comparison that would close a cycle is decided from the
bounds when they decide it, and refused otherwise (:class:`CycleError`): the toolkit never
approximates.

Bounds are propagated along the constraints (on a forest, bound consistency is exact: every value
inside a variable's propagated bounds extends to a solution, and the laws have full support), so
a comparison outcome is explored only when it has positive probability, and a noisy value is
concretised only over values it can take.

Cost: propagation is ``O(rounds · edges)`` with rounds at most the number of variables; the mass
is one product and one partial sum of piecewise exponential polynomials per edge.
"""

from __future__ import annotations

from fractions import Fraction

from pufferfish.models.programs.cycles import conditioned_mass
from pufferfish.models.programs.exp_poly import ExpPoly

__all__ = ["NoiseConstraints", "CycleError", "trim_memo", "interned", "mixture", "STEP_MEMO"]

Bound = int | None


class CycleError(ValueError):
    """A comparison would make the constraints between noise values cyclic."""


def _max(a: Bound, b: Bound) -> Bound:
    return b if a is None else a if b is None else max(a, b)


def _min(a: Bound, b: Bound) -> Bound:
    return b if a is None else a if b is None else min(a, b)


def _add(a: Bound, b: Bound) -> Bound:
    return None if a is None or b is None else a + b


def _difference(a: Bound, b: Bound) -> Bound:
    return None if a is None or b is None else a - b


def _path_sum(steps) -> tuple[Bound, Bound]:
    low, high = 0, 0
    for _, _, step_low, step_high in steps:
        low, high = _add(low, step_low), _add(high, step_high)
    return low, high


def _within(low: Bound, high: Bound, outer_low: Bound, outer_high: Bound) -> bool:
    """``[low, high] ⊆ [outer_low, outer_high]`` (``None``: unbounded)."""
    return ((outer_low is None or (low is not None and low >= outer_low)) and
            (outer_high is None or (high is not None and high <= outer_high)))


class NoiseConstraints:
    """The noise variables of one path and the constraints it took (module docstring).

    >>> from fractions import Fraction
    >>> noise = NoiseConstraints()
    >>> rho = noise.add_variable(ExpPoly.two_sided_geometric(Fraction(1, 2)), None, None)
    >>> nu = noise.add_variable(ExpPoly.two_sided_geometric(Fraction(1, 2)), None, None)
    >>> noise.constrain_difference(nu, rho, 1, None)      # ν ≥ ρ + 1
    >>> noise.probability()                                # Pr[ν − ρ ≥ 1]
    Fraction(11, 27)
    """

    def __init__(self) -> None:
        self.laws: list[ExpPoly] = []
        self.lows: list[Bound] = []    # propagated: implied by the constraints taken
        self.highs: list[Bound] = []
        self.edges: dict[tuple[int, int], tuple[Bound, Bound]] = {}  # (u, v): x_u − x_v ∈ [l, h]
        self._adjacent: list[list[tuple[int, Bound, Bound]]] = []    # x_other − x_self ∈ [l, h]
        self._component: list[int] = []
        self._weighted: set[int] = set()  # variables whose law may not have total 1
        self.kernels: dict[tuple[int, int], ExpPoly] = {}  # (u, v): a factor k(x_u − x_v)
        self.replaced: dict[int, dict[int, int]] = {}  # a draw written as a form of others
        self.chords: list[tuple[int, int, Bound, Bound]] = []  # x_u − x_v ∈ [l, h] on a cycle
        self._chord_adjacent: dict[int, list[tuple[int, Bound, Bound]]] = {}
        self.symbolic = False  # the laws are read with ε as a symbol: no certified chords

    def add_variable(self, law: ExpPoly, low: Bound, high: Bound, total_one: bool = True) -> int:
        """A fresh independent variable with ``law`` and support bounds; returns its index.
        ``total_one=False`` for a law that is a density of another total (a factor carried by a
        stepwise program): its mass is then never taken to be 1."""
        if not total_one:
            self._weighted.add(len(self.laws))
        self.laws.append(law)
        self.lows.append(low)
        self.highs.append(high)
        self._adjacent.append([])
        self._component.append(len(self._component))
        return len(self.laws) - 1

    def is_free(self, i: int) -> bool:
        """Whether ``x_i`` is a draw no comparison links to another value (it may have bounds):
        it may then become the hidden summand of a sum (:meth:`add_sum`)."""
        return (not self._adjacent[i] and i not in self.replaced
                and i not in self._chord_adjacent and isinstance(self.laws[i], ExpPoly))

    def add_sum(self, pivot: int, pivot_sign: int, partner: int, partner_sign: int) -> int:
        """A fresh variable ``w = partner_sign·y`` for the sum ``y = pivot_sign·x_pivot +
        partner_sign·x_partner`` (signs ±1), where ``x_pivot`` is free (:meth:`is_free`);
        returns ``w``'s index.

        The change of variables ``(x_pivot, x_partner) → (w, x_partner)`` has
        ``x_pivot = s·(w − x_partner)`` with ``s = pivot_sign·partner_sign``, so ``x_pivot``'s
        law (on its bounds) becomes a factor ``k(w − x_partner) = law(s·(w − x_partner))`` on the
        new edge between ``w`` and ``x_partner``: a tree edge (``w`` is new), so the forest stays a
        forest, and the message along it is a correlation
        (:meth:`~pufferfish.models.programs.exp_poly.ExpPoly.correlate`) — the law of a sum of
        independent draws is a convolution.  ``w`` itself has the counting (Lebesgue) measure;
        ``x_pivot`` is recorded in :attr:`replaced` and every later use of it is rewritten."""
        law = self.laws[pivot].restrict(self.lows[pivot], self.highs[pivot])
        s = pivot_sign * partner_sign
        # stored as a function of x_partner − w = −(w − x_partner): k(−e) = law(−s·e)
        kernel = interned(law if s == -1 else law.mirrored())
        if not kernel.pieces:
            raise ValueError("a noise value with no mass left was added")
        w = self.add_variable(_unit(type(law)), None, None, total_one=False)
        low, high = kernel.pieces[0][0], kernel.pieces[-1][1]
        key = (partner, w)
        self.kernels[key] = kernel
        self.edges[key] = (low, high)
        self._adjacent[w].append((partner, low, high))
        self._adjacent[partner].append((w, None if high is None else -high,
                                        None if low is None else -low))
        self._component[self._root(partner)] = self._root(w)
        self.replaced[pivot] = {w: s, partner: -s}
        self._propagate(self.lows, self.highs, [partner, w], {})
        return w

    # --- bounds ---------------------------------------------------------------------------

    _MAX_PROPAGATION_STEPS = 10_000

    def bounds(self, extra: tuple | None = None) -> tuple[list[Bound], list[Bound]] | None:
        """The propagated bounds of every variable, with the optional ``extra`` constraint
        (``("unary", i, low, high)`` or ``("difference", u, v, low, high)``); ``None`` when the
        constraints are proved infeasible.  Exact on a forest; with an ``extra`` edge that closes
        a cycle it is a relaxation (``None`` still proves infeasibility)."""
        lows, highs = list(self.lows), list(self.highs)
        if extra is None:
            return lows, highs
        added: dict[int, list[tuple[int, Bound, Bound]]] = {}
        if extra[0] == "unary":
            _, i, low, high = extra
            lows[i], highs[i] = _max(lows[i], low), _min(highs[i], high)
            start = [i]
        else:
            _, u, v, low, high = extra  # x_u − x_v ∈ [low, high]
            added = {v: [(u, low, high)],
                     u: [(v, None if high is None else -high, None if low is None else -low)]}
            start = [u, v]
        return (lows, highs) if self._propagate(lows, highs, start, added) else None

    def _propagate(self, lows: list[Bound], highs: list[Bound], start: list[int],
                   added: dict[int, list[tuple[int, Bound, Bound]]]) -> bool:
        """Tighten ``lows``/``highs`` in place from the nodes in ``start`` along the constraints
        (and the ``added`` ones); ``False`` when some variable is left with no value."""
        work = list(start)
        steps = 0
        while work:
            node = work.pop()
            low, high = lows[node], highs[node]
            if low is not None and high is not None and low > high:
                return False
            steps += 1
            if steps > self._MAX_PROPAGATION_STEPS:  # a cycle that tightens slowly: stop here
                return True
            for other, d_low, d_high in (*self._adjacent[node], *added.get(node, ()),
                                         *self._chord_adjacent.get(node, ())):
                new_low = _max(lows[other], _add(low, d_low))
                new_high = _min(highs[other], _add(high, d_high))
                if new_low != lows[other] or new_high != highs[other]:
                    lows[other], highs[other] = new_low, new_high
                    if new_low is not None and new_high is not None and new_low > new_high:
                        return False
                    work.append(other)
        return True

    def connected(self, u: int, v: int) -> bool:
        """Whether a chain of comparisons already links ``u`` and ``v``."""
        return self._root(u) == self._root(v)

    def _root(self, i: int) -> int:
        while self._component[i] != i:
            self._component[i] = self._component[self._component[i]]
            i = self._component[i]
        return i

    # --- constraints ----------------------------------------------------------------------

    def constrain_value(self, i: int, low: Bound, high: Bound) -> None:
        """``x_i ∈ [low, high]``."""
        self.lows[i], self.highs[i] = _max(self.lows[i], low), _min(self.highs[i], high)
        self._propagate(self.lows, self.highs, [i], {})

    def constrain_difference(self, u: int, v: int, low: Bound, high: Bound) -> None:
        """``x_u − x_v ∈ [low, high]`` (``u ≠ v``); raises :class:`CycleError` when ``u`` and
        ``v`` are already linked by other comparisons."""
        key = (min(u, v), max(u, v))
        if key not in self.edges and self.connected(u, v):
            plan = self.cycle_plan(u, v, low, high)
            if plan is None:
                if not self.chords_allowed(u, v):
                    raise CycleError("the comparisons between noise values would form a cycle")
                self._add_chord(u, v, low, high)
                return
            if plan == "implied":
                return
            self._remove_edge(*plan)
        if u > v:  # orient as x_key0 − x_key1
            u, v, low, high = v, u, (None if high is None else -high), (None if low is None else -low)
        old_low, old_high = self.edges.get(key, (None, None))
        low, high = _max(old_low, low), _min(old_high, high)
        self.edges[key] = (low, high)
        self._adjacent[v] = [e for e in self._adjacent[v] if e[0] != u] + [(u, low, high)]
        self._adjacent[u] = [e for e in self._adjacent[u] if e[0] != v] + [
            (v, None if high is None else -high, None if low is None else -low)]
        self._component[self._root(u)] = self._root(v)
        self._propagate(self.lows, self.highs, [u, v], {})

    # --- cycles of comparisons -------------------------------------------------------------

    def _path(self, start: int, end: int) -> list[tuple[int, int, Bound, Bound]] | None:
        """The forest's path from ``start`` to ``end`` as steps ``(a, b, l, h)`` meaning
        ``x_b − x_a ∈ [l, h]`` (their sum bounds ``x_end − x_start``); ``None`` when unlinked."""
        previous: dict[int, tuple[int, Bound, Bound]] = {start: (start, 0, 0)}
        frontier = [start]
        while frontier and end not in previous:
            node = frontier.pop()
            for other, low, high in self._adjacent[node]:
                if other not in previous:
                    previous[other] = (node, low, high)
                    frontier.append(other)
        if end not in previous:
            return None
        steps = []
        node = end
        while node != start:
            parent, low, high = previous[node]
            steps.append((parent, node, low, high))
            node = parent
        return steps[::-1]

    def implied_difference(self, u: int, v: int) -> tuple[Bound, Bound]:
        """Bounds on ``x_u − x_v`` implied by the comparisons that link them (the sum of the
        differences along the forest's path) and by the two variables' own bounds."""
        low = _difference(self.lows[u], self.highs[v])
        high = _difference(self.highs[u], self.lows[v])
        path = self._path(v, u)
        if path is not None:
            path_low, path_high = _path_sum(path)
            low, high = _max(low, path_low), _min(high, path_high)
        return low, high

    def cycle_plan(self, u: int, v: int, low: Bound, high: Bound):
        """How to add ``x_u − x_v ∈ [low, high]`` between variables the forest already links
        and keep a forest: ``"implied"`` when the path already implies it, an edge ``(a, b)``
        of the path that the new constraint and the rest of the path imply (drop it: the
        constraint sets are equivalent, so the mass is the same), or ``None`` when neither
        holds (a genuine cycle).  Sorting and noisy top-k compare a new value with several
        ranked ones; each such cycle has an implied edge (transitivity of the order)."""
        path = self._path(v, u)
        path_low, path_high = _path_sum(path)
        if _within(path_low, path_high, low, high):
            return "implied"
        for k, (a, b, edge_low, edge_high) in enumerate(path):
            if (min(a, b), max(a, b)) in self.kernels:
                continue  # a law's factor carries mass: never dropped
            rest_low, rest_high = _path_sum(path[:k] + path[k + 1:])
            # x_b − x_a = (x_u − x_v) − (the rest of the path)
            if _within(_difference(low, rest_high), _difference(high, rest_low),
                       edge_low, edge_high):
                return (a, b)
        return None

    def chords_allowed(self, u: int, v: int) -> bool:
        """Whether a comparison ``x_u − x_v ∈ [l, h]`` that closes a genuine cycle may be kept as
        a chord, its mass then certified by conditioning (:mod:`~pufferfish.models.programs.cycles`):
        both values integer draws with probability laws of their own (not sums, not the factors
        of a stepwise program, not Gaussian), no stepwise factor on the path, and ε not a symbol
        (a certified number is not a function of ε)."""
        return not self._weighted and not self.symbolic and all(
            isinstance(self.laws[i], ExpPoly) and not self.laws[i].continuous
            and i not in self.replaced for i in (u, v))

    def _add_chord(self, u: int, v: int, low: Bound, high: Bound) -> None:
        self.chords.append((u, v, low, high))
        self._chord_adjacent.setdefault(v, []).append((u, low, high))
        self._chord_adjacent.setdefault(u, []).append(
            (v, None if high is None else -high, None if low is None else -low))
        self._propagate(self.lows, self.highs, [u, v], {})

    def forest_mass(self, lows: list[Bound], highs: list[Bound]):
        """The mass of the forest's constraints (chords left out) with the variables' bounds
        ``lows``/``highs`` instead of the propagated ones."""
        saved = self.lows, self.highs
        self.lows, self.highs = lows, highs
        try:
            return self._mass(None)[0]
        finally:
            self.lows, self.highs = saved

    def _remove_edge(self, a: int, b: int) -> None:
        del self.edges[(min(a, b), max(a, b))]
        self._adjacent[a] = [e for e in self._adjacent[a] if e[0] != b]
        self._adjacent[b] = [e for e in self._adjacent[b] if e[0] != a]

    # --- the mass -------------------------------------------------------------------------

    def probability(self) -> Fraction:
        """The exact mass of the noise vectors satisfying every constraint (a product over the
        forest's trees, each summed out leaf to root); with chords, a certified
        :class:`~pufferfish.models.enclosures.Enclosure`
        (:func:`~pufferfish.models.programs.cycles.conditioned_mass`)."""
        if self.chords:
            return conditioned_mass(self)
        return self._mass(None)[0]

    def marginal(self, variable: int) -> ExpPoly:
        """``x ↦ Pr[every constraint holds and x_variable = x]``: the tree of ``variable`` summed
        out towards it, times the mass of the other trees."""
        mass, belief = self._mass(variable)
        return belief.times(ExpPoly.constant(mass)) if mass != 1 else belief

    def factors(self, keep: list[int]) -> tuple[Fraction, list[ExpPoly]] | None:
        """The mass of every tree holding none of ``keep``, and for each variable of ``keep``
        the belief of its tree rooted at it (``x ↦ Pr[its tree's constraints hold and
        x_variable = x]``, :func:`interned`), so that the mass of the constraints with the
        ``keep`` values fixed is the product; ``None`` when two of ``keep`` share a tree (the
        law of the kept values is then no product).  Cost: that of :meth:`probability`."""
        if self.chords or len({self._root(v) for v in keep}) < len(keep):
            return None  # the components may over-approximate the trees: refusing is safe
        neighbours = self._neighbours()
        seen: set[int] = set()
        beliefs = [_interned_belief(self._belief(v, None, neighbours, seen)) for v in keep]
        return self._rest(neighbours, seen), beliefs

    def _neighbours(self) -> dict[int, list[tuple[int, Bound, Bound, ExpPoly | None]]]:
        neighbours: dict[int, list[tuple[int, Bound, Bound, ExpPoly | None]]] = {}
        for key, (low, high) in self.edges.items():
            u, v = key
            kernel = self.kernels.get(key)
            # from the parent's side: x_child − x_parent ∈ [low, high], the factor in that
            # difference
            neighbours.setdefault(v, []).append((u, low, high, kernel))
            neighbours.setdefault(u, []).append(
                (v, None if high is None else -high, None if low is None else -low,
                 None if kernel is None else _mirrored(kernel)))
        return neighbours

    def _rest(self, neighbours: dict, seen: set[int]) -> Fraction:
        """The product of the masses of the trees no variable of ``seen`` is in."""
        total = Fraction(1)
        for root in range(len(self.laws)):
            if root in seen or root in self.replaced:
                continue  # a replaced draw's law is a factor of an edge
            if (root not in neighbours and self.lows[root] is None and self.highs[root] is None
                    and root not in self._weighted):
                seen.add(root)
                continue  # an unconstrained draw has mass 1
            key = self._belief(root, None, neighbours, seen)
            mass = _TOTALS.get(key)
            if mass is None:
                mass = _TOTALS[key] = _BELIEFS[key].total()
            total *= mass
            if not total:
                break
        return total

    def _mass(self, keep: int | None) -> tuple[Fraction, ExpPoly | None]:
        """The mass of every tree but the one of ``keep``, and the belief of ``keep`` (the
        message-passing sum with ``keep`` as root)."""
        neighbours = self._neighbours()
        seen: set[int] = set()
        kept = None
        if keep is not None:
            kept = _BELIEFS[self._belief(keep, None, neighbours, seen)]
        return self._rest(neighbours, seen), kept

    def _belief(self, node: int, parent: int | None,
                neighbours: dict[int, list[tuple[int, Bound, Bound]]], seen: set[int]) -> tuple:
        """The key of ``node``'s belief (its law on its bounds times the messages of its
        children), computed into the memo :data:`_BELIEFS` unless it is there already: paths of
        one program, and datasets that differ only where a subtree does not look, share
        subtrees."""
        seen.add(node)
        messages = []
        for child, low, high, kernel in neighbours.get(node, ()):
            if child == parent:
                continue
            messages.append((self._belief(child, node, neighbours, seen), low, high, kernel))
        messages.sort(key=hash)
        key = (self.laws[node], self.lows[node], self.highs[node], tuple(messages))
        if key not in _BELIEFS:
            belief = self.laws[node].restrict(self.lows[node], self.highs[node])
            for message_key in messages:
                message = _MESSAGES.get(message_key)
                if message is None:
                    child_key, low, high, kernel = message_key
                    if kernel is None:
                        message = _BELIEFS[child_key].window_sum(low, high)
                    else:
                        message = _BELIEFS[child_key].correlate(kernel.restrict(low, high))
                    _MESSAGES[message_key] = message
                belief = belief.times(message)
            _BELIEFS[key] = belief
        return key


def _unit(kind: type) -> ExpPoly:
    """The counting measure on the integers (Lebesgue measure on the reals): the law of a
    variable introduced for a sum, whose mass comes from its edge's factor."""
    found = _UNITS.get(kind)
    if found is None:
        found = _UNITS[kind] = kind.constant(1)
    return found


def _mirrored(kernel: ExpPoly) -> ExpPoly:
    """``x ↦ k(−x)``, one object per kernel (the memo's keys hold kernels by identity)."""
    found = _MIRRORS.get(id(kernel))
    if found is None or found[0] is not kernel:
        found = _MIRRORS[id(kernel)] = (kernel, kernel.mirrored())
    return found[1]


def interned(law: ExpPoly) -> ExpPoly:
    """The one object of the memo equal to ``law`` (same type, pieces and terms), so that laws
    computed twice are one key of the memo.  Cost: linear in the size of ``law``."""
    key = (type(law), tuple((low, high, tuple(sorted(terms.items())))
                            for low, high, terms in law.pieces))
    return _LAWS.setdefault(key, law)


def _interned_belief(key: tuple) -> ExpPoly:
    """The belief of ``key``, interned (memoised by its key)."""
    found = _INTERNED.get(key)
    if found is None:
        found = _INTERNED[key] = interned(_BELIEFS[key])
    return found


def mixture(first: ExpPoly, p, second: ExpPoly, q) -> ExpPoly:
    """``p·first + q·second`` (interned, memoised by the laws' identities and the weights)."""
    key = (first, p, second, q)
    found = _MIXTURES.get(key)
    if found is None:
        constant = type(first).constant
        found = _MIXTURES[key] = interned(
            first.times(constant(p)).minus(second.times(constant(-q))))
    return found


def trim_memo() -> None:
    """Empty the memo when it holds more than ``_MEMO_LIMIT`` beliefs.  Called between
    computations only (:func:`~pufferfish.models.programs.enumerate.program_distribution` at its
    start): a running computation reads back every entry it made, so it is never evicted in
    the middle of one."""
    if len(_BELIEFS) > _MEMO_LIMIT or len(STEP_MEMO) > _MEMO_LIMIT:
        _BELIEFS.clear(), _MESSAGES.clear(), _TOTALS.clear()
        _LAWS.clear(), _INTERNED.clear(), _MIXTURES.clear(), STEP_MEMO.clear()
        _MIRRORS.clear()


_MEMO_LIMIT = 200_000
_UNITS: dict[type, ExpPoly] = {}
_MIRRORS: dict[int, tuple[ExpPoly, ExpPoly]] = {}
_BELIEFS: dict[tuple, ExpPoly] = {}
"""Beliefs by the structure of their subtree (laws by identity: one object per α)."""
_MESSAGES: dict[tuple, ExpPoly] = {}
_TOTALS: dict[tuple, Fraction] = {}
_LAWS: dict[tuple, ExpPoly] = {}
"""Laws of live noise values of stepwise programs, by structure (:func:`interned`)."""
_INTERNED: dict[tuple, tuple] = {}
_MIXTURES: dict[tuple, ExpPoly] = {}
STEP_MEMO: dict[tuple, list] = {}
"""What a step of a stepwise program does from a node, across datasets (its keys hold laws of
this memo, so it is emptied with it)."""
