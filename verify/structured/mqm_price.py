"""The price of the Markov Quilt Mechanism: its noise beside the least noise a given query needs,
on the binary chains of Wang et al., Privacy-Preserving Analysis of Correlated Data, §5.

§5 releases the sum of a binary chain ``P = [[p0, 1 − p0], [1 − p1, p1]]`` of length ``T`` whose
stay probabilities range over ``Θ = [ℓ, u]`` with ``u = 1 − ℓ`` (ℓ from 0.1 to 0.4), with the
secret pairs "``X_i = 0``" vs "``X_i = 1``".  For each ``(T, ε, ℓ)`` :func:`mqm_price` reports, each
with what it guarantees:

* **MQMApprox σ** (:func:`~pufferfish.verify.quilts.chain_search.mqm_chain_approx`, Lemma B.4 with
  ``(π_Θ, g_Θ)`` of the whole box): ``F + Lap(σ)`` is ε-Pufferfish for *every* 1-Lipschitz ``F``,
  against every chain of the continuous box with any initial distribution;
* **MQMExact σ** (:func:`~pufferfish.verify.quilts.chain_search.mqm_chain_exact`): every
  1-Lipschitz ``F``, against the four corner chains ``(ℓ, ℓ), (ℓ, u), (u, ℓ), (u, u)`` with any
  initial distribution (certified upper end of σ);
* **Wasserstein W/ε** (Algorithm 1, Theorem 3.2): the query alone, against the corner chains
  started in their stationary law; ``W`` is the largest ``W_∞`` of the query's laws given
  ``X_i = 0`` and ``X_i = 1``, exact;
* **least scale** (:mod:`~pufferfish.verify.structured.least_noise`): the least Laplace scale for the
  query alone against the corner chains started in their stationary law, as a certified bracket
  ``(b_fail, b_ok]``: ``b_ok`` is certified private, ``b_fail`` certified not, and since the level
  is non-increasing in ``b`` the least scale lies between.  The least scale against a set of
  priors is the largest of the members' least scales.  The chain ``(u, ℓ)`` is ``(ℓ, u)`` with the
  states relabelled ``0 ↔ 1``: that maps the sum to ``T − S``, a count of 1s to the count of 0s,
  each entry pair to itself and the symmetric noise to itself, so it has the same level and is
  not computed again.  The geometric bracket (exact levels) is in the JSON beside it.

Two queries: the **sum** ``Σ_t X_t`` and a **count** — the number of 1s among ``X_1 ..
X_{⌊T/2⌋}`` (1-Lipschitz as well).

**What the corners do and do not prove.**  A scale that fails at a corner fails for the family, so
``b_fail`` bounds the family's least scale from below.  Nothing is claimed above: the level of a
fixed scale is a ratio of polynomials of degree ``T`` in ``(p0, p1)``, and no argument is known
that it is quasi-convex there or largest at a corner, so ``b_ok`` is private for the corners only
(and for their stationary starts only, whereas MQM covers every initial distribution).  The MQM
and Wasserstein scales are upper ends: each is a scale that is proved private for what it covers.

**Lengths.**  Up to ``exact_up_to`` (default 1,000) the laws are built (the bracket and ``W``);
beyond it, up to ``ends_up_to`` (default 10,000), only the two clamp ends of each pair are read
(ends-only levels, ``O(T)`` scalars per evaluation): ``b_fail`` is still certified, so the table
gives the lower bound ``> b_fail``, and neither ``b_ok`` nor ``W`` (the laws of 10,000 attributes do
not fit in memory: about ``T²`` integers of ``3T`` bits).

:func:`plot_mqm_price` draws the table; ``pufferfish mqm-price`` writes both.

>>> table = mqm_price(lengths=[12], epsilons=["1"], lows=["1/4"], tolerance="1/100")
>>> row = table.rows[0]
>>> row.sum.fail < row.sum.ok <= row.mqm_exact[1] <= row.mqm_approx[1]
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import Query
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.priors import MarkovPrior
from pufferfish.models.secrets import entry_pairs
from pufferfish.models.universe import Universe
from pufferfish.verify.numerics.certified import budget_float, parse_budget
from pufferfish.verify.report import Explained, table as text_table
from pufferfish.verify.structured.least_noise import (least_geometric_noise, search_budget,
                                                      least_laplace_scale)
from pufferfish.verify.structured.noise_level import NoiseLevels

DEFAULT_LENGTHS = (100, 1000, 10_000)
"""The chain lengths ``T`` of the table by default."""
DEFAULT_EPSILONS = ("1/2", "1", "2")
"""The budgets ε of the table by default."""
DEFAULT_LOWS = ("1/10", "1/4", "2/5")
"""The families ``p0, p1 ∈ [ℓ, 1 − ℓ]`` of the table by default, by ``ℓ``."""
EXACT_UP_TO = 1000
"""Up to this length the laws are built (the bracket ``(b_fail, b_ok]`` and ``W``); beyond it each
pair is read at its two clamp ends only, which certifies ``b_fail`` alone."""
ENDS_UP_TO = 10_000
"""Beyond this length no least scale is searched (only the MQM σ and its peers are given)."""
QUERIES = ("sum", "count")
"""The queries of the table: the sum of the chain, and the count of 1s in its first half."""


def corner_model(length: int, p0: Fraction, p1: Fraction) -> PufferfishModel:
    """The binary chain ``(p0, p1)`` of ``length`` attributes started in its stationary law
    ``((1 − p1), (1 − p0))/(2 − p0 − p1)``, with the entry pairs.

    >>> corner_model(3, Fraction(1, 4), Fraction(3, 4)).priors["chain"].initial.prob(1)
    Fraction(3, 4)
    """
    universe = Universe.product([f"x{t}" for t in range(1, length + 1)], [[0, 1]] * length)
    start = (1 - p1) / (2 - p0 - p1)
    chain = MarkovPrior.homogeneous("chain", universe, {0: start, 1: 1 - start},
                                    {0: {0: p0, 1: 1 - p0}, 1: {0: 1 - p1, 1: p1}})
    return PufferfishModel.build(universe, [chain], entry_pairs(universe))


def price_query(kind: str, universe: Universe) -> Query:
    """``sum``: every attribute; ``count``: the 1s among the first ``⌊T/2⌋`` (at least one)."""
    if kind == "sum":
        return Query("sum", universe)
    half = list(universe.attributes[:max(1, universe.width // 2)])
    return Query("count", universe, half, 1)


@dataclass(frozen=True)
class LeastCell:
    """The least scale of one query over the corners: Laplace ``(fail, ok]`` (``ok`` ``None``
    for an ends-only lower bound), the geometric bracket when computed, ``W``, the corner that
    needs the most noise, and per corner its Laplace bracket and how many of its secret pairs
    are not in likelihood-ratio order (read at every output; ``None`` for ends-only levels)."""

    fail: Fraction | None
    ok: Fraction | None
    geometric: tuple | None          # (α_fail, α_ok, b_low, b_high) or None
    w: int | None
    worst: str
    lower_bound_only: bool
    seconds: float
    corners: dict = field(default_factory=dict)   # name -> (fail, ok, pairs out of order)

    def to_dict(self) -> dict:
        g = self.geometric
        return {"laplace": {"fail": _text(self.fail), "ok": _text(self.ok)},
                "geometric": None if g is None else {
                    "alpha_fail": _text(g[0]), "alpha_ok": _text(g[1]),
                    "scale": {"lower": g[2], "upper": g[3]}},
                "w_infinity": self.w, "worst_corner": self.worst,
                "lower_bound_only": self.lower_bound_only, "seconds": round(self.seconds, 2),
                "corners": {name: {"fail": _text(f), "ok": _text(o), "pairs_out_of_order": u}
                            for name, (f, o, u) in self.corners.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "LeastCell":
        g = data["geometric"]
        return cls(_read(data["laplace"]["fail"]), _read(data["laplace"]["ok"]),
                   None if g is None else (_read(g["alpha_fail"]), _read(g["alpha_ok"]),
                                           g["scale"]["lower"], g["scale"]["upper"]),
                   data["w_infinity"], data["worst_corner"], data["lower_bound_only"],
                   data["seconds"],
                   {name: (_read(c["fail"]), _read(c["ok"]), c["pairs_out_of_order"])
                    for name, c in data.get("corners", {}).items()})

    def text(self) -> str:
        if self.fail is None and self.ok is None:
            return "—"
        if self.ok is None:
            return f"> {float(self.fail):.4g}"
        low = "0" if self.fail is None else f"{float(self.fail):.4g}"
        return f"({low}, {float(self.ok):.4g}]"


@dataclass(frozen=True)
class PriceRow:
    """One ``(T, ε, [ℓ, u])``: the MQM scales (certified intervals) and each query's cell."""

    length: int
    epsilon: str
    low: Fraction
    high: Fraction
    mqm_exact: tuple[float, float]
    mqm_approx: tuple[float, float]
    cells: dict[str, LeastCell | None]

    @property
    def sum(self) -> LeastCell | None:
        return self.cells.get("sum")

    @property
    def count(self) -> LeastCell | None:
        return self.cells.get("count")

    def wasserstein(self, query: str) -> float | None:
        """``W/ε`` of ``query``'s cell (``None`` when ``W`` was not computed)."""
        cell = self.cells.get(query)
        if cell is None or cell.w is None:
            return None
        return cell.w / budget_float(parse_budget(self.epsilon))

    def to_dict(self) -> dict:
        return {"length": self.length, "epsilon": self.epsilon,
                "family": [fraction_str(self.low), fraction_str(self.high)],
                "mqm_exact": list(self.mqm_exact), "mqm_approx": list(self.mqm_approx),
                "queries": {q: None if c is None else c.to_dict() for q, c in self.cells.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "PriceRow":
        return cls(data["length"], data["epsilon"], _read(data["family"][0]),
                   _read(data["family"][1]), tuple(data["mqm_exact"]), tuple(data["mqm_approx"]),
                   {q: None if c is None else LeastCell.from_dict(c)
                    for q, c in data["queries"].items()})


@dataclass(frozen=True, repr=False)
class MQMPriceTable(Explained):
    """The rows of :func:`mqm_price`, the settings that made them and the time per length."""

    rows: tuple[PriceRow, ...]
    settings: dict
    seconds: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"settings": self.settings, "rows": [r.to_dict() for r in self.rows],
                "seconds": {str(k): round(v, 1) for k, v in self.seconds.items()}}

    @classmethod
    def from_dict(cls, data: dict) -> "MQMPriceTable":
        """The table of a ``to_dict()`` (or of ``pufferfish mqm-price --json``) document."""
        return cls(tuple(PriceRow.from_dict(r) for r in data["rows"]), data["settings"],
                   {int(k): v for k, v in data.get("seconds", {}).items()})

    HEADERS = ("T", "ε", "Θ = [ℓ, u]", "MQMApprox σ", "MQMExact σ", "W/ε sum",
               "least b sum", "W/ε count", "least b count", "MQMExact / least (sum)")

    def cells(self) -> list[list[str]]:
        """The table's rows as text (scales to 4 significant digits; a bracket ``(fail, ok]``,
        ``> fail`` for a lower bound, ``—`` where nothing was computed)."""
        out = []
        for r in self.rows:
            sum_cell, count_cell = r.sum, r.count
            w_sum, w_count = r.wasserstein("sum"), r.wasserstein("count")
            price = "—"
            if sum_cell is not None and sum_cell.ok:
                price = f"{r.mqm_exact[1] / float(sum_cell.ok):.3g}"
            elif sum_cell is not None and sum_cell.fail:
                price = f"< {r.mqm_exact[1] / float(sum_cell.fail):.3g}"
            out.append([f"{r.length:,}", r.epsilon,
                        f"[{fraction_str(r.low)}, {fraction_str(r.high)}]",
                        f"{r.mqm_approx[1]:.4g}", f"{r.mqm_exact[1]:.4g}",
                        "—" if w_sum is None else f"{w_sum:.4g}",
                        "—" if sum_cell is None else sum_cell.text(),
                        "—" if w_count is None else f"{w_count:.4g}",
                        "—" if count_cell is None else count_cell.text(), price])
        return out

    def explain(self) -> str:
        lines = [f"The price of the Markov Quilt Mechanism (Laplace scales; {_settings_text(self)})",
                 text_table(list(self.HEADERS), self.cells())]
        lines += [f"T = {k:,}: {v:.1f} s" for k, v in sorted(self.seconds.items())]
        return "\n".join(lines)

    def markdown(self) -> str:
        """The table as a Markdown (MyST) table."""
        rows = [list(self.HEADERS), ["---"] * len(self.HEADERS)] + self.cells()
        return "\n".join("| " + " | ".join(row) + " |" for row in rows) + "\n"


def _settings_text(table: MQMPriceTable) -> str:
    s = table.settings
    return (f"tolerance {s['tolerance']}, laws up to T = {s['exact_up_to']:,}, ends-only lower "
            f"bounds up to T = {s['ends_up_to']:,}")


def _text(value: Fraction | None) -> str | None:
    return None if value is None else fraction_str(value)


def _read(value) -> Fraction | None:
    return None if value is None else Fraction(value)


def mqm_price(*, lengths: Sequence[int] = DEFAULT_LENGTHS,
              epsilons: Sequence[str] = DEFAULT_EPSILONS, lows: Sequence[object] = DEFAULT_LOWS,
              queries: Sequence[str] = QUERIES, tolerance: object = "1/1000",
              exact_up_to: int = EXACT_UP_TO, ends_up_to: int = ENDS_UP_TO,
              geometric: bool = True,
              progress: Callable[[str], None] | None = None) -> MQMPriceTable:
    """The table of the module docstring for every length, budget and family ``[ℓ, 1 − ℓ]``.

    Cost per length ``T <= exact_up_to``: one law build per corner and query (``O(T)``
    polynomial products of degree ``T``; about 25–35 s at ``T = 1000``), then a few evaluations
    per budget; beyond it only ends-only Laplace searches (a few seconds at ``T = 10,000``) and MQM.
    """
    from pufferfish.models.bayesnet import MarkovChain
    from pufferfish.models.chain_family import ChainFamily, binary_box_parameters
    from pufferfish.verify.quilts.chain_search import mqm_chain_approx, mqm_chain_exact

    lengths = [int(t) for t in lengths]
    if not lengths or min(lengths) < 1:
        raise ModelError("give at least one length, each >= 1", "--lengths")
    budgets = [search_budget(e, "--epsilons") for e in epsilons]
    if not budgets:
        raise ModelError("give at least one budget", "--epsilons")
    families = [(low, 1 - low) for low in map(family_low, lows)]
    for q in queries:
        if q not in QUERIES:
            raise ModelError(f"unknown query {q!r}; use sum or count", "--queries")
    settings = {"lengths": lengths, "epsilons": [b.text for b in budgets],
                "lows": [fraction_str(f[0]) for f in families], "queries": list(queries),
                "tolerance": fraction_str(Fraction(tolerance)), "exact_up_to": exact_up_to,
                "ends_up_to": ends_up_to, "geometric": geometric}
    rows, seconds = [], {}
    for T in lengths:
        start = time.perf_counter()
        for low, high in families:
            corners = [(low, low), (low, high), (high, high)]
            members = tuple(MarkovChain.binary(a, b, T, [Fraction(1, 2)] * 2)
                            for a, b in corners + [(high, low)])
            cells = {q: _least(T, corners, q, budgets, tolerance, exact_up_to, ends_up_to,
                               geometric, progress) for q in queries}
            pi, g = binary_box_parameters(low, high)
            for budget in budgets:
                if progress:
                    progress(f"T = {T}, [{fraction_str(low)}, {fraction_str(high)}], "
                             f"ε = {budget.text}: MQM")
                exact_sigma = mqm_chain_exact(ChainFamily(members, "any"), budget).sigma
                approx_sigma = mqm_chain_approx(T, budget, pi, g).sigma
                rows.append(PriceRow(T, budget.text, low, high, tuple(exact_sigma),
                                     tuple(approx_sigma),
                                     {q: cells[q][budget.text] for q in queries}))
        seconds[T] = time.perf_counter() - start
    return MQMPriceTable(tuple(rows), settings, seconds)


LEAST_LOW = Fraction(1, 10**6)
"""The least ``ℓ`` of a family ``[ℓ, 1 − ℓ]`` the table takes: below it the chains' transition
probabilities leave the range in which the MQM's float steering and the searches work (at
``ℓ = 10⁻⁹`` a table of length 6 does not finish in minutes)."""


def family_low(text: object, where: str = "--lows") -> Fraction:
    """``ℓ`` of a family ``[ℓ, 1 − ℓ]``, exact, in ``[10⁻⁶, 1/2)`` (:data:`LEAST_LOW`), else a
    :class:`~pufferfish.models.errors.ModelError` at ``where`` naming the range.

    >>> family_low("1/4")
    Fraction(1, 4)
    >>> family_low("1e-1000")
    Traceback (most recent call last):
    ...
    pufferfish.models.errors.ModelError: --lows: ℓ must be in [1/1000000, 1/2), got 1e-1000
    """
    low = exact(text, where)
    if not LEAST_LOW <= low < Fraction(1, 2):
        shown = text if isinstance(text, str) else fraction_str(low)
        raise ModelError(f"ℓ must be in [{fraction_str(LEAST_LOW)}, 1/2), got {shown}", where)
    return low


def price_memory(length: int, low: Fraction, exact_up_to: int = EXACT_UP_TO,
                 ends_up_to: int = ENDS_UP_TO) -> int:
    """An estimate (bytes, three times the leading term, plus 200 MB) of the memory the table
    needs at one length for the family ``[low, 1 − low]``: the calibrated tree's integer messages,
    ``2(T − 1)`` of them per value with ``T/2`` coefficients of ``T·b/2`` bits on average
    (``b = log2`` of the chain's common denominator, plus 1) when the laws are built; the
    ends-only scalar trees, ``4T`` integers of ``T·b`` bits, otherwise.

    >>> price_memory(1000, Fraction(1, 10)) < 2 * 10**9 < price_memory(4000, Fraction(1, 10), 4000)
    True
    """
    bits = Fraction(low).denominator.bit_length() + 1
    if length <= exact_up_to:
        size = length ** 3 * bits // 16
    elif length <= ends_up_to:
        size = 4 * length * length * bits // 8
    else:
        size = 0
    return 3 * size + 200 * 2**20


def check_price_size(lengths: Sequence[int], lows: Sequence[object],
                     exact_up_to: int = EXACT_UP_TO, ends_up_to: int = ENDS_UP_TO) -> None:
    """Refuse (:class:`~pufferfish.models.errors.TooLargeError`, with the estimate) a table whose
    :func:`price_memory` exceeds the memory this process may use, before any work."""
    from pufferfish.models.errors import TooLargeError
    from pufferfish.verify.execution import usable_memory

    limit = usable_memory()
    if limit is None:
        return
    for T in lengths:
        for low in lows:
            need = price_memory(T, exact(low, "--lows"), exact_up_to, ends_up_to)
            if need > limit:
                option = "--exact-up-to" if T <= exact_up_to else "--ends-up-to"
                raise TooLargeError(f"T = {T:,} needs about {need / 2**30:.1f} GB for the laws of "
                                    f"the chains of [{low}, 1 − {low}], more than the "
                                    f"{limit / 2**30:.1f} GB this process may use; lower "
                                    f"{option} or the length", option)


def price_steps(lengths: Sequence[int], epsilons: Sequence[str], lows: Sequence[object],
                queries: Sequence[str] = QUERIES, ends_up_to: int = ENDS_UP_TO) -> int:
    """How many progress steps :func:`mqm_price` reports (one per corner, query and budget, one
    per family and budget for MQM)."""
    per_family = len(epsilons) * (1 + 3 * len(queries))
    return sum(len(lows) * (per_family if T <= ends_up_to else len(epsilons)) for T in lengths)


def _least(T: int, corners, query: str, budgets, tolerance, exact_up_to: int, ends_up_to: int,
           geometric: bool, progress) -> dict[str, LeastCell | None]:
    """Per budget, the least scale of ``query`` over the corners (the largest bracket)."""
    if T > ends_up_to:
        return {b.text: None for b in budgets}
    ends_only = T > exact_up_to
    found: dict[str, list] = {b.text: [] for b in budgets}
    for p0, p1 in corners:
        start = time.perf_counter()
        model = corner_model(T, p0, p1)
        levels = NoiseLevels(model, price_query(query, model.universe), ends_only=ends_only)
        w = None if ends_only else levels.w_infinity()[0]
        unordered = None if ends_only else sum(p.order is None for p in levels.pairs)
        name = f"({fraction_str(p0)}, {fraction_str(p1)})"
        for budget in budgets:
            if progress:
                progress(f"T = {T}, corner {name}, {query}, ε = {budget.text}")
            laplace = least_laplace_scale(levels, budget, tolerance=tolerance)
            geo = None
            if geometric and not ends_only:
                g = least_geometric_noise(levels, budget, tolerance=tolerance)
                geo = (None if g.fail is None else g.fail.parameter,
                       None if g.ok is None else g.ok.parameter, g.scale[0], g.scale[1])
            found[budget.text].append((laplace, geo, w, name, time.perf_counter() - start,
                                       unordered))
            start = time.perf_counter()
    out = {}
    for text, results in found.items():
        worst = max(results, key=lambda r: _key(r[0].fail.parameter if r[0].fail else None))
        top = lambda values: max(values, key=_key, default=None)   # noqa: E731
        ok = None if ends_only else top([r[0].ok.parameter if r[0].ok else None
                                         for r in results])
        geo = None
        if geometric and not ends_only:
            geo = (top([r[1][0] for r in results]), top([r[1][1] for r in results]),
                   max((r[1][2] or 0.0) for r in results), max((r[1][3] or 0.0) for r in results))
        w = None if ends_only else max(r[2] for r in results)
        fail = top([r[0].fail.parameter if r[0].fail else None for r in results])
        corners = {r[3]: (r[0].fail.parameter if r[0].fail else None,
                          None if ends_only or r[0].ok is None else r[0].ok.parameter, r[5])
                   for r in results}
        out[text] = LeastCell(fail, ok, geo, w, worst[3], ends_only,
                              sum(r[4] for r in results), corners)
    return out


def _key(value: Fraction | None):
    return (-1, Fraction(0)) if value is None else (0, value)


def plot_mqm_price(table: MQMPriceTable, path=None):
    """The table as a figure (a :class:`matplotlib.figure.Figure`, written to ``path`` when
    given): one panel per budget, the scales against ℓ on a log axis, one colour per method and
    one line style per length; a least scale is drawn at the private end of its bracket, and an
    ends-only lower bound as ▲.

    >>> figure = plot_mqm_price(mqm_price(lengths=[8], epsilons=["1"], lows=["1/4", "2/5"],
    ...                                    tolerance="1/50"))
    >>> len(figure.axes)
    1
    """
    from pufferfish.verify.plotting import finish, new_figure  # first: it checks matplotlib

    from matplotlib.lines import Line2D

    epsilons = list(dict.fromkeys(r.epsilon for r in table.rows))
    lengths = sorted({r.length for r in table.rows})
    figure = new_figure((4.2 * len(epsilons), 4.8))
    styles = {"MQMApprox σ": ("tab:red", "s"), "MQMExact σ": ("tab:orange", "D"),
              "W/ε (sum)": ("tab:green", "v"), "least b (sum)": ("tab:blue", "o"),
              "least b (count)": ("tab:purple", "x")}
    dashes = ["-", "--", ":", "-."]
    for k, eps in enumerate(epsilons):
        axis = figure.add_subplot(1, len(epsilons), k + 1)
        for j, T in enumerate(lengths):
            rows = sorted((r for r in table.rows if r.epsilon == eps and r.length == T),
                          key=lambda r: r.low)
            x = [float(r.low) for r in rows]
            series = {"MQMApprox σ": [r.mqm_approx[1] for r in rows],
                      "MQMExact σ": [r.mqm_exact[1] for r in rows],
                      "W/ε (sum)": [r.wasserstein("sum") for r in rows],
                      "least b (sum)": [_plotted(r.cells.get("sum")) for r in rows],
                      "least b (count)": [_plotted(r.cells.get("count")) for r in rows]}
            for name, values in series.items():
                colour, marker = styles[name]
                points = [(a, b) for a, b in zip(x, values) if b is not None and b > 0]
                if points:
                    axis.plot(*zip(*points), color=colour, marker=marker, markersize=4,
                              linestyle=dashes[j % 4], linewidth=1)
            for query in ("sum", "count"):      # lower bounds only: upward triangles
                bounds = [(a, float(c.fail)) for a, c in zip(x, (r.cells.get(query)
                                                                  for r in rows))
                          if c is not None and c.ok is None and c.fail]
                if bounds:
                    axis.scatter(*zip(*bounds), marker="^", s=28, zorder=3, facecolors="none",
                                 edgecolors=styles[f"least b ({query})"][0])
        axis.set_yscale("log")
        axis.set_xlabel("ℓ (Θ = [ℓ, 1 − ℓ])")
        axis.set_title(f"ε = {eps}")
        if k == 0:
            axis.set_ylabel("Laplace scale")
            handles = [Line2D([], [], color=c, marker=m, markersize=4, label=name)
                       for name, (c, m) in styles.items()]
            handles += [Line2D([], [], color="gray", linestyle=dashes[j % 4], label=f"T = {T:,}")
                        for j, T in enumerate(lengths)]
            handles.append(Line2D([], [], color="gray", marker="^", linestyle="none",
                                  markerfacecolor="none", label="lower bound (ends only)"))
            figure.legend(handles=handles, fontsize=7, loc="lower center",
                          ncol=min(len(handles), 5))
    figure.suptitle("The price of the Markov Quilt Mechanism on the chains of Wang et al. §5 "
                    "(MQM: any 1-Lipschitz query; least b, W/ε: that query, corner chains)",
                    fontsize=8)
    figure.tight_layout(rect=(0, 0.13, 1, 0.97))
    return finish(figure, path)


def _plotted(cell: LeastCell | None) -> float | None:
    if cell is None or cell.ok is None:
        return None
    return float(cell.ok)


__all__ = ["mqm_price", "plot_mqm_price", "MQMPriceTable", "PriceRow", "LeastCell",
           "corner_model", "price_query", "price_memory", "check_price_size", "price_steps", "DEFAULT_LENGTHS", "DEFAULT_EPSILONS", "DEFAULT_LOWS",
           "EXACT_UP_TO", "ENDS_UP_TO", "QUERIES", "LEAST_LOW", "family_low"]
