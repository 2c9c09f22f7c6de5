"""The three privacy-collapse examples of Bai et al., Composition for Pufferfish Privacy, §4 as
exact models.

Each builder returns a :class:`~pufferfish.models.model.PufferfishModel` whose mechanism is registered under
the name ``"collapse"``:

* :func:`resample_example` — Example 4.1 (one secret pair, one prior; any universe and prior),
  with :func:`resample_bits_example` as a ready-made instance over a few bits;
* :func:`parity_example` — Example 4.2 (``n >= 3`` bits, uniform prior, every bit a secret);
* :func:`interval_example` — Example 4.3 (one secret pair, an infinite interval family Θ), with
  :func:`interval_member_prior` giving one member of Θ and :func:`interval_parameters` reading
  ``(L_T, U_T, L_F, U_F)`` back from a built model.

The single-run levels, the two-run levels and the expected number of runs before the dataset or
secret is revealed are computed in :mod:`pufferfish.proofs_check.paper_000.collapse_report`; this module only builds the nouns.

>>> model = parity_example(3)
>>> sorted(model.mechanism("collapse").distribution((0, 1, 1)).items())
[(('A', (1, 1)), Fraction(1, 2)), (('B', 0), Fraction(1, 2))]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from pufferfish.bibliography import cite, paper
from pufferfish.models.distribution import Distribution
from pufferfish.models.errors import ModelError
from pufferfish.models.mechanisms import FunctionMechanism, TableMechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.numbers import exact, fraction_str
from pufferfish.models.priors import (IndependentPrior, IntervalBlock, IntervalFamily, Prior, TablePrior,
                           UniformPrior)
from pufferfish.models.secrets import Secret, SecretPair, entry_pairs, entry_secrets
from pufferfish.models.universe import DEFAULT_MAX_DATASETS, Dataset, Universe

MECHANISM_NAME = "collapse"
"""The name under which every builder registers its mechanism."""

PAPER = paper("000").key

RESAMPLE_PRIOR_KINDS = ("uniform", "skewed", "sparse", "peaked")
"""Prior kinds offered by :func:`resample_bits_example`."""

SECRET_TRUE, SECRET_FALSE = "s1", "not_s1"
"""Secret names of :func:`interval_example`."""


# --------------------------------------------------------------------------------------------
# Example 4.1: resampling the other secret's dataset
# --------------------------------------------------------------------------------------------

def resample_example(universe: Universe, prior: Prior, first: Secret, second: Secret,
                     max_datasets: int = DEFAULT_MAX_DATASETS) -> PufferfishModel:
    """Example 4.1 of Bai et al., Composition for Pufferfish Privacy, §4: zero leakage, collapse
    after two runs.

    Θ = {θ*} is one prior and 𝕊 = {(s1, s2)} one pair of mutually exclusive secrets
    (``first`` = s1, ``second`` = s2).  ``U1`` (``U2``) is the set of datasets of positive prior
    probability where s1 (s2) holds; the example assumes each has at least two datasets.  On input
    ``D`` the mechanism M* does:

    * if ``s1(D)``: draw ``D' ~ Pr(· | s2, θ*)`` and output ``(D, D')``;
    * if ``s2(D)``: draw ``D' ~ Pr(· | s1, θ*)`` and output ``(D', D)``.

    An output ``(D1, D2)`` always has ``s1(D1)`` and ``s2(D2)``, and one of the two is the input;
    ``Pr[(D1, D2) | s_i, θ*] = Pr(D1|s1,θ*)·Pr(D2|s2,θ*)`` for both secrets (Theorem 1), so one
    run leaks nothing, while two different outputs reveal the component that did not change.

    **Datasets where neither secret holds.**  The example takes ``s2 = ¬s1``.  When the given
    secrets do not cover the universe, the model is restricted to ``s1 ∨ s2``: the prior is
    conditioned on ``s1 ∨ s2`` (a :class:`TablePrior`) and the universe is the explicit list of
    datasets where one of the secrets holds, on which ``s2 = ¬s1`` as the example requires.

    Raises :class:`ModelError` when a dataset satisfies both secrets, when the prior gives
    ``s1 ∨ s2`` probability 0, or when ``U1`` or ``U2`` has fewer than two datasets.

    >>> u = Universe.product(["x"], [[0, 1, 2, 3]])
    >>> m = resample_example(u, UniformPrior("uniform", u), Secret.where("low", u, {"x": [0, 1]}),
    ...                      Secret.where("high", u, {"x": [2, 3]}))
    >>> sorted(m.mechanism("collapse").distribution((0,)).items())
    [(((0,), (2,)), Fraction(1, 2)), (((0,), (3,)), Fraction(1, 2))]
    """
    if first.name == second.name:
        raise ModelError(f"the two secrets must have different names, both are {first.name!r}",
                         "secrets")
    datasets = list(universe.datasets(max_datasets))
    for dataset in datasets:
        if first.holds(dataset) and second.holds(dataset):
            raise ModelError(f"the secrets {first.name!r} and {second.name!r} must be mutually "
                             f"exclusive, but both hold on dataset {list(dataset)}", "secrets")
    covered = [d for d in datasets if first.holds(d) or second.holds(d)]
    support = [(d, p) for d, p in prior.support(max_datasets) if d in universe]
    kept = {d: p for d, p in support if first.holds(d) or second.holds(d)}
    total = sum(kept.values(), Fraction(0))
    if not total:
        raise ModelError(f"prior {prior.name!r} gives probability 0 to "
                         f"{first.name!r} or {second.name!r}", f"priors.{prior.name}")
    restricted = Distribution._trusted({d: p / total for d, p in kept.items()})
    sides = {}
    for secret in (first, second):
        members = [d for d in restricted.support if secret.holds(d)]
        if len(members) < 2:
            raise ModelError(
                f"Example 4.1 needs at least 2 datasets of positive prior probability where "
                f"{secret.name!r} holds; prior {prior.name!r} gives {len(members)}"
                + (f" ({[list(d) for d in members]})" if members else ""), f"secrets.{secret.name}")
        sides[secret.name] = restricted.condition(secret.holds)
    given_first, given_second = sides[first.name], sides[second.name]

    def resample(dataset: Dataset) -> Distribution:
        if first.holds(dataset):
            return given_second.push_forward(lambda other: (dataset, other))
        if second.holds(dataset):
            return given_first.push_forward(lambda other: (other, dataset))
        raise ModelError(f"dataset {list(dataset)} satisfies neither {first.name!r} nor "
                         f"{second.name!r}; Example 4.1 is defined on s1 ∨ s2 only")

    conditioned = total != 1 or len(covered) != len(datasets)
    if len(covered) != len(datasets):
        universe = Universe.listed(universe.attributes, universe.domains, covered,
                                   universe.records)
    prior_name = prior.name if total == 1 else f"{prior.name} given {first.name} or {second.name}"
    mechanism = FunctionMechanism(
        MECHANISM_NAME, resample,
        f"Example 4.1: on s1(D) output (D, D') with D' ~ Pr(.|{second.name}); on s2(D) output "
        f"(D', D) with D' ~ Pr(.|{first.name})")
    description = (f"{cite(PAPER)}, §4, Example 4.1 (resample): secrets {first.name!r} vs "
                   f"{second.name!r}, prior {prior.name!r}")
    if conditioned:
        description += " restricted to the datasets where one of the secrets holds"
    return PufferfishModel(universe, {prior_name: TablePrior(prior_name, restricted)},
                           {first.name: first, second.name: second},
                           [SecretPair(first, second)], {MECHANISM_NAME: mechanism}, description)


def resample_bits_example(bits: int = 2, prior: str = "skewed") -> PufferfishModel:
    """A ready instance of Example 4.1 (Bai et al., Composition for Pufferfish Privacy, §4):
    ``bits`` bits, secret x1.

    The universe is every ``bits``-bit dataset ``(x1, ..., xn)``; the secrets are ``x1=0`` (s1)
    and ``x1=1`` (s2).  ``prior`` is one of

    * ``"uniform"`` — every dataset equally likely;
    * ``"skewed"`` — independent bits with ``Pr[x_i = 1] = 1/(i+2)`` (a non-uniform product);
    * ``"sparse"`` — a table prior with weight ``k mod 3`` on the ``k``-th dataset in
      lexicographic order, so some datasets have probability 0 (needs ``bits >= 3``);
    * ``"peaked"`` — one dataset per secret carries ``Pr(D|x1=0) = 999/1000`` and
      ``Pr(D|x1=1) = 99/100``, the rest share the remainder equally (a long expected run).

    >>> resample_bits_example(2, "uniform").universe.size
    4
    """
    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 2:
        raise ModelError(f"Example 4.1 on bits needs at least 2 bits (so each secret has 2 "
                         f"datasets), got {bits!r}", "bits")
    if prior not in RESAMPLE_PRIOR_KINDS:
        raise ModelError(f"unknown prior kind {prior!r}; choose one of {list(RESAMPLE_PRIOR_KINDS)}",
                         "prior")
    attributes = [f"x{i}" for i in range(1, bits + 1)]
    universe = Universe.product(attributes, [[0, 1]] * bits)
    first = Secret.where("x1=0", universe, {"x1": 0})
    second = Secret.where("x1=1", universe, {"x1": 1})
    datasets = list(universe.datasets())
    theta: Prior
    if prior == "uniform":
        theta = UniformPrior("uniform", universe)
    elif prior == "skewed":
        theta = IndependentPrior("skewed", tuple(attributes), tuple(
            Distribution({0: 1 - Fraction(1, i + 2), 1: Fraction(1, i + 2)})
            for i in range(1, bits + 1)))
    elif prior == "sparse":
        if bits < 3:
            raise ModelError("the 'sparse' prior needs at least 3 bits (with 2 bits a zero would "
                             "leave a secret with one dataset)", "bits")
        theta = weighted_prior("sparse", datasets, [k % 3 for k in range(len(datasets))])
    else:
        theta = peaked_prior("peaked", datasets, [first, second],
                             [Fraction(999, 1000), Fraction(99, 100)])
    return resample_example(universe, theta, first, second)


def weighted_prior(name: str, datasets: Sequence[Dataset], weights: Sequence[int | Fraction]) -> TablePrior:
    """The table prior proportional to non-negative ``weights`` (zero weights drop datasets)."""
    total = sum(weights, Fraction(0))
    if total <= 0 or any(w < 0 for w in weights):
        raise ModelError("weights must be non-negative with a positive sum", f"priors.{name}")
    return TablePrior(name, Distribution._trusted(
        {d: Fraction(w) / total for d, w in zip(datasets, weights) if w}))


def peaked_prior(name: str, datasets: Sequence[Dataset], secrets: Sequence[Secret],
                 peaks: Sequence[Fraction]) -> TablePrior:
    """Equal mass per secret; within secret ``k`` its first dataset gets ``Pr(D|s_k) = peaks[k]``.

    The other datasets of the secret share ``1 − peaks[k]`` equally; datasets where no listed
    secret holds get probability 0.  Each secret needs at least two datasets.
    """
    probs: dict[Dataset, Fraction] = {}
    share = Fraction(1, len(secrets))
    for secret, peak in zip(secrets, peaks):
        members = [d for d in datasets if secret.holds(d)]
        if len(members) < 2 or not 0 < peak < 1:
            raise ModelError(f"a peaked prior needs 2 datasets of {secret.name!r} and a peak in "
                             f"(0, 1)", f"priors.{name}")
        probs[members[0]] = share * peak
        for dataset in members[1:]:
            probs[dataset] = share * (1 - peak) / (len(members) - 1)
    return TablePrior(name, Distribution(probs))


# --------------------------------------------------------------------------------------------
# Example 4.2: parity
# --------------------------------------------------------------------------------------------

def parity_mechanism(n: int) -> FunctionMechanism:
    """The mechanism M* of Example 4.2 on ``n`` bits (Bai et al., Composition for Pufferfish
    Privacy, §4).

    With probability 1/2 it outputs type A, ``("A", (x2⊕x1, ..., xn⊕x1))``; otherwise type B,
    ``("B", x1⊕...⊕xn)`` for odd ``n`` and ``("B", x2⊕...⊕xn)`` for even ``n``.  The tags keep
    the two types apart (a type-B bit never equals a type-A tuple).
    """
    odd = n % 2 == 1

    def run(dataset: Dataset) -> Distribution:
        head = dataset[0]
        type_a = ("A", tuple(x ^ head for x in dataset[1:]))
        type_b = ("B", (sum(dataset) if odd else sum(dataset[1:])) % 2)
        return Distribution._trusted({type_a: Fraction(1, 2), type_b: Fraction(1, 2)})

    parity = "x1⊕...⊕xn" if odd else "x2⊕...⊕xn"
    return FunctionMechanism(MECHANISM_NAME, run,
                             f"Example 4.2: w.p. 1/2 (A, (x2⊕x1, ..., xn⊕x1)), else (B, {parity})")


def parity_example(n: int) -> PufferfishModel:
    """Example 4.2 of Bai et al., Composition for Pufferfish Privacy, §4: every bit a secret, still
    collapse.

    The dataset is ``n >= 3`` bits ``x1..xn``; θ* flips a fair coin per bit (the uniform prior);
    the secrets are ``s_j^(i)`` = "bit i is j" (named ``xi=j``, :func:`pufferfish.models.secrets.entry_secrets`)
    and 𝕊 pairs ``xi=0`` with ``xi=1`` for every ``i`` (:func:`pufferfish.models.secrets.entry_pairs`).
    The mechanism is :func:`parity_mechanism`.  Theorem 2: one run leaks nothing about any bit,
    but a type-A and a type-B output together give ``x1`` and then every bit, so the expected
    number of runs to reveal the dataset is 3.

    >>> parity_example(4).universe.size
    16
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 3:
        raise ModelError(f"Example 4.2 needs n >= 3 bits, got {n!r}", "n")
    universe = Universe.product([f"x{i}" for i in range(1, n + 1)], [[0, 1]] * n)
    secrets = entry_secrets(universe)
    return PufferfishModel(universe, {"uniform": UniformPrior("uniform", universe)}, secrets,
                           entry_pairs(universe, secrets), {MECHANISM_NAME: parity_mechanism(n)},
                           f"{cite(PAPER)}, §4, Example 4.2 (parity) on {n} bits")


# --------------------------------------------------------------------------------------------
# Example 4.3: an interval family of priors
# --------------------------------------------------------------------------------------------

def interval_example(lt: object = Fraction(1, 5), ut: object = Fraction(2, 5),
                     lf: object = Fraction(3, 10), uf: object = Fraction(1, 2),
                     in_true: int = 1, out_true: int = 1, in_false: int = 1,
                     out_false: int = 1) -> PufferfishModel:
    """Example 4.3 of Bai et al., Composition for Pufferfish Privacy, §4: a finite level, yet
    collapse in two runs.

    Arguments are ``L_T, U_T, L_F, U_F`` (exact numbers: ints, ``Fraction``, ``"1/5"``) and the
    sizes of the four blocks.  The universe is an explicit list of datasets
    ``(secret, block, member)``: ``secret`` is 1 where s1 holds and 0 where it does not,
    ``block`` is ``"in"`` for ``𝒰_T`` (secret 1) or ``𝒰_F`` (secret 0) and ``"out"`` otherwise,
    ``member`` numbers the datasets of a block (``in_true = |𝒰_T|``, ``out_true = |s1 ∖ 𝒰_T|``,
    ``in_false = |𝒰_F|``, ``out_false = |¬s1 ∖ 𝒰_F|``, each at least 1, so s1 and ¬s1 each have
    at least two datasets and 𝒰_T, 𝒰_F are nonempty proper subsets).

    The secrets are ``s1`` (``secret = 1``) and ``not_s1`` (``secret = 0``), one pair.  Θ is one
    :class:`IntervalFamily`: every prior with ``Pr(𝒰_T | s1) ∈ [L_T, U_T]`` (so the rest of s1 has
    ``[1−U_T, 1−L_T]``) and ``Pr(𝒰_F | ¬s1) ∈ [L_F, U_F]`` (rest ``[1−U_F, 1−L_F]``), any way of
    spreading a block's mass over its datasets, and any ``Pr(s1) ∈ (0, 1)``.

    The mechanism is the paper's four cases, each output with probability 1/2:
    case 1a (s1, in 𝒰_T) → ``("1a","2a")`` or ``("1a","2b")``; case 1b (s1, not in 𝒰_T) →
    ``("1b","2a")`` or ``("1b","2b")``; case 2a (¬s1, in 𝒰_F) → ``("1a","2a")`` or ``("1b","2a")``;
    case 2b (¬s1, not in 𝒰_F) → ``("1a","2b")`` or ``("1b","2b")``.  The true case is the tuple
    component that stays the same over runs.

    Raises :class:`ModelError` unless ``0 < L_T <= U_T < 1`` and ``0 < L_F <= U_F < 1`` and every
    block size is a positive integer.

    >>> m = interval_example("1/5", "2/5", "3/10", "1/2")
    >>> sorted(m.mechanism("collapse").distribution((0, "in", 0)).items())
    [(('1a', '2a'), Fraction(1, 2)), (('1b', '2a'), Fraction(1, 2))]
    """
    bounds = {}
    for label, value in (("lt", lt), ("ut", ut), ("lf", lf), ("uf", uf)):
        bounds[label] = exact(value, label)
    for side in ("t", "f"):
        low, high = bounds[f"l{side}"], bounds[f"u{side}"]
        if not 0 < low <= high < 1:
            name = side.upper()
            raise ModelError(f"Example 4.3 needs 0 < L_{name} <= U_{name} < 1, got "
                             f"L_{name} = {fraction_str(low)}, U_{name} = {fraction_str(high)}",
                             f"l{side}")
    sizes = {"in_true": in_true, "out_true": out_true, "in_false": in_false,
             "out_false": out_false}
    for label, size in sizes.items():
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ModelError(f"block size {label} must be a positive integer, got {size!r}", label)
    width = max(sizes.values())
    blocks = {key: [(secret, block, k) for k in range(sizes[key])]
              for key, secret, block in (("in_true", 1, "in"), ("out_true", 1, "out"),
                                         ("in_false", 0, "in"), ("out_false", 0, "out"))}
    listed = [d for key in ("in_true", "out_true", "in_false", "out_false") for d in blocks[key]]
    universe = Universe.listed(["secret", "block", "member"], [[1, 0], ["in", "out"],
                                                               list(range(width))], listed)
    s1 = Secret.where(SECRET_TRUE, universe, {"secret": 1})
    not_s1 = Secret.where(SECRET_FALSE, universe, {"secret": 0})
    lt_, ut_, lf_, uf_ = bounds["lt"], bounds["ut"], bounds["lf"], bounds["uf"]
    family = IntervalFamily("theta", {
        SECRET_TRUE: (IntervalBlock(tuple(blocks["in_true"]), lt_, ut_),
                      IntervalBlock(tuple(blocks["out_true"]), 1 - ut_, 1 - lt_)),
        SECRET_FALSE: (IntervalBlock(tuple(blocks["in_false"]), lf_, uf_),
                       IntervalBlock(tuple(blocks["out_false"]), 1 - uf_, 1 - lf_))})
    half = Fraction(1, 2)
    outputs = {(1, "in"): (("1a", "2a"), ("1a", "2b")), (1, "out"): (("1b", "2a"), ("1b", "2b")),
               (0, "in"): (("1a", "2a"), ("1b", "2a")), (0, "out"): (("1a", "2b"), ("1b", "2b"))}
    rows = {d: Distribution._trusted({o: half for o in outputs[(d[0], d[1])]}) for d in listed}
    mechanism = TableMechanism(MECHANISM_NAME, rows)
    description = (f"{cite(PAPER)}, §4, Example 4.3 (interval family): L_T={fraction_str(lt_)}, "
                   f"U_T={fraction_str(ut_)}, L_F={fraction_str(lf_)}, U_F={fraction_str(uf_)}, "
                   f"blocks |U_T|={in_true}, |s1 minus U_T|={out_true}, |U_F|={in_false}, "
                   f"|not s1 minus U_F|={out_false}")
    return PufferfishModel(universe, {"theta": family}, {SECRET_TRUE: s1, SECRET_FALSE: not_s1},
                           [SecretPair(s1, not_s1)], {MECHANISM_NAME: mechanism}, description)


def interval_family(model: PufferfishModel) -> IntervalFamily:
    """The interval family Θ of a model built by :func:`interval_example`."""
    families = list(model.interval_families.values())
    if len(families) != 1 or set(families[0].blocks) != {SECRET_TRUE, SECRET_FALSE} or any(
            len(blocks) != 2 for blocks in families[0].blocks.values()):
        raise ModelError("not a model built by interval_example: expected one interval family with "
                         f"two blocks for each of {SECRET_TRUE!r} and {SECRET_FALSE!r}", "priors")
    return families[0]


def interval_parameters(model: PufferfishModel) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """``(L_T, U_T, L_F, U_F)`` of a model built by :func:`interval_example`."""
    family = interval_family(model)
    t, f = family.blocks[SECRET_TRUE][0], family.blocks[SECRET_FALSE][0]
    return t.lower, t.upper, f.lower, f.upper


def interval_member_prior(model: PufferfishModel, pr_true: object = Fraction(1, 2),
                          mass_true: object = None, mass_false: object = None,
                          spread: str = "uniform", name: str = "member") -> TablePrior:
    """One prior θ ∈ Θ of an :func:`interval_example` model (for the expected-runs computation).

    ``Pr(s1 | θ) = pr_true`` (in (0, 1)); ``Pr(𝒰_T | s1, θ) = mass_true`` (default the midpoint
    ``(L_T+U_T)/2``) and ``Pr(𝒰_F | ¬s1, θ) = mass_false`` (default ``(L_F+U_F)/2``); each must lie
    in its interval.  Within a block the mass is spread ``"uniform"``-ly or ``"skewed"``
    (proportional to 1, 2, 3, ... over the block's datasets).

    >>> p = interval_member_prior(interval_example())
    >>> p.probability((1, "in", 0)), p.probability((0, "out", 0))
    (Fraction(3, 20), Fraction(3, 10))
    """
    family = interval_family(model)
    p_true = exact(pr_true, "pr_true")
    if not 0 < p_true < 1:
        raise ModelError(f"Pr(s1) must lie in (0, 1), got {fraction_str(p_true)}", "pr_true")
    if spread not in ("uniform", "skewed"):
        raise ModelError(f"unknown spread {spread!r}; choose 'uniform' or 'skewed'", "spread")
    probs: dict[Dataset, Fraction] = {}
    for secret, weight, mass, label in ((SECRET_TRUE, p_true, mass_true, "mass_true"),
                                        (SECRET_FALSE, 1 - p_true, mass_false, "mass_false")):
        inside, rest = family.blocks[secret]
        m = (inside.lower + inside.upper) / 2 if mass is None else exact(mass, label)
        if not inside.lower <= m <= inside.upper:
            raise ModelError(f"{label} = {fraction_str(m)} is outside [{fraction_str(inside.lower)}, "
                             f"{fraction_str(inside.upper)}]", label)
        for block, block_mass in ((inside, m), (rest, 1 - m)):
            shares = (list(range(1, len(block.datasets) + 1)) if spread == "skewed"
                      else [1] * len(block.datasets))
            total = sum(shares)
            for dataset, share in zip(block.datasets, shares):
                probs[dataset] = weight * block_mass * Fraction(share, total)
    return TablePrior(name, Distribution(probs))
