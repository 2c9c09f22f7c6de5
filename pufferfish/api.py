"""The toolkit from Python: the command line's main jobs as functions that take the same inputs.

Every function accepts a model as a :class:`~pufferfish.models.model.PufferfishModel`, a path to a
model file, the name of a shipped example (``"quickstart.json"``) or the parsed JSON ``dict``, and
a budget ε as the command line writes it (``"log(3)"``, ``"1/2"``, ``"0.5"``, ``"inf"``), as an
exact number (``Fraction(1, 2)``, ``1``) or as a float, read by its shortest decimal form
(``0.1`` is ε = 1/10 exactly, not the binary double nearest to it; see :func:`budget`).
Probabilities in models stay exact: a float there is refused.  Each function returns the same
frozen result object whose ``to_dict()`` the command line prints with ``--json``.

>>> import pufferfish
>>> model = pufferfish.load("quickstart.json")
>>> result = pufferfish.audit(model, epsilon="log(3)")
>>> result.holds
False
>>> [(m.name, m.pufferfish.epsilon) for m in result.mechanisms]
[('rr', 'log(12)'), ('sum', 'log(706/137)')]
>>> [d.epsilon for d in result.mechanisms[0].dp]          # rr is log(3)-DP ...
['log(3)']
>>> result.mechanisms[0].pufferfish.witness.prior           # ... but not against the sticky chain
'sticky'

Length: one short function per entry point of the command line, each with the docstring and
example a user reads first; they share the input rules above, so they stay together.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path

from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.mechanisms import Mechanism
from pufferfish.models.model import PufferfishModel
from pufferfish.models.neighbours import DEFAULT_MAX_PAIRS
from pufferfish.models.universe import DEFAULT_MAX_DATASETS

__all__ = ["load", "budget", "audit", "pufferfish_level", "dp_level", "approximate_dp",
           "dp_for_every_epsilon", "leakage", "composes", "design", "load_parametric",
           "symbolic_audit", "region", "nfc_region", "least_noise", "mqm_price", "plot_mqm_price",
           "certificate"]

ModelSource = PufferfishModel | str | os.PathLike | Mapping
BudgetSource = str | int | Fraction | float


def load(source: ModelSource, *, max_datasets: int = DEFAULT_MAX_DATASETS) -> PufferfishModel:
    """A Pufferfish model from a model object, a file path, a shipped example's name or a dict.

    A string that names no existing file but names a shipped example (``"hidden_coin.json"``)
    loads that example (:mod:`pufferfish.examples`).

    >>> load("hidden_coin.json").universe.attributes
    ('x1', 'x2')
    """
    from pufferfish.models.files.pufferfish_file import load_model, parse_model

    if isinstance(source, PufferfishModel):
        return source
    if isinstance(source, Mapping):
        return parse_model(dict(source), max_datasets=max_datasets)
    return load_model(_file(source), max_datasets=max_datasets)


def _file(source: str | os.PathLike) -> Path:
    """The file ``source`` names: a path, else a shipped example's name."""
    from pufferfish.examples import path_or_example

    return path_or_example(source)


def budget(epsilon: BudgetSource):
    """A privacy budget from the command line's forms (:func:`~pufferfish.verify.numerics.certified.parse_budget`),
    an exact number, or a float.

    A float is read by its shortest decimal form, the digits ``repr`` prints (the shortest
    decimal that reads back as the same float): ``1.0`` is ε = 1 and ``0.1`` is ε = 1/10
    exactly, as ``--epsilon 0.1`` on the command line, not the binary double
    ``3602879701896397/36028797018963968`` nearest to it.  NaN and infinite floats are refused
    (write ``"inf"`` for an unbounded budget); so are negative budgets, as in every form.

    >>> budget("log(9/2)").ratio
    Fraction(9, 2)
    >>> budget(0.1).epsilon, budget(1.0).epsilon
    (Fraction(1, 10), Fraction(1, 1))
    """
    from pufferfish.verify.numerics.certified import Budget, parse_budget

    if isinstance(epsilon, Budget):
        return epsilon
    if isinstance(epsilon, float):
        epsilon = _shortest_decimal(epsilon)
    return parse_budget(epsilon, "epsilon")


def _shortest_decimal(value: float) -> str:
    """The decimal text of a float budget (``repr``: the shortest that reads back as ``value``)."""
    from pufferfish.models.errors import ModelError

    if math.isnan(value):
        raise ModelError("the budget is the float NaN, which is not a number; give ε as a number "
                         "such as 0.5, \"1/2\" or \"log(3)\"", "epsilon")
    if value == math.inf:
        raise ModelError("the float inf is not accepted as a budget; write the string \"inf\" "
                         "for an unbounded budget", "epsilon")
    if value == -math.inf:
        raise ModelError("the budget is the float -inf; a privacy budget must be >= 0", "epsilon")
    return "0" if value == 0 else repr(value)


def _optional_budget(epsilon: BudgetSource | None):
    return None if epsilon is None else budget(epsilon)


def _mechanism(model: PufferfishModel, mechanism: str | Mechanism) -> Mechanism:
    return model.mechanism(mechanism) if isinstance(mechanism, str) else mechanism


def audit(model: ModelSource, epsilon: BudgetSource | None = None, *, group: int | None = None,
          mechanisms: Sequence[str] | None = None, neighbours: Sequence | None = None,
          epsilon_dp: BudgetSource | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
          max_outputs: int = DEFAULT_MAX_OUTPUTS, max_pairs: int = DEFAULT_MAX_PAIRS,
          engine=None, method: str = "auto", certificate: str | os.PathLike | None = None):
    """Pufferfish, DP and leakage levels of every mechanism and of their joint release
    (``pufferfish audit``; :func:`pufferfish.verify.privacy.audit.audit_model`).

    ``mechanisms`` (``audit --mechanism``): audit only these, and their joint release when there
    are two or more.  ``neighbours`` (``audit --neighbours``): the relations of the DP levels
    (Definitions 1–3 of Bai et al., Composition for Pufferfish Privacy, §2.1 with these neighbours;
    the forms of :mod:`pufferfish.models.neighbours`: ``"entry"``, ``"record"``, ``"group:K"``,
    ``"linf:K"``, ``"l1:K"``, ``"monotone:K"``, ``"add_remove:VALUE"``,
    ``{"pairs": [[D, D'], ...]}``); default the model's ``neighbours``, else per entry (and per
    record).  With ``epsilon`` and/or ``epsilon_dp`` (``audit --epsilon-dp``, every DP level),
    ``result.holds`` says whether every budget given is met; without, it is ``None``.  ``engine`` runs the blocks elsewhere, with the same answer:
    ``with pufferfish.verify.execution.engine_from(workers=2) as engine: audit(..., engine=engine)``.
    ``method`` (``audit --method``): ``"structured"`` follows a chain's or network's structure
    and never lists the universe (:mod:`pufferfish.verify.structured`), ``"enumeration"`` lists
    each prior's support, ``"auto"`` chooses (the result's ``method`` and ``method_note`` say
    which and why).  A DP-only model (no priors, no secret pairs) gets its DP levels alone
    (:mod:`pufferfish.verify.privacy.dp_audit`).  Mechanisms with Gaussian noise have certified
    interval probabilities: their audit is a
    :class:`~pufferfish.verify.privacy.certified_audit.CertifiedAudit` of certified levels.
    ``certificate`` (``audit --certificate FILE``):
    also write the audit's certificate to that file, atomically (:func:`certificate`).

    >>> result = audit("quickstart.json", mechanisms=["sum"], neighbours=["linf:1"],
    ...                epsilon_dp="log(8)")
    >>> [(d.relation, d.epsilon) for d in result.mechanisms[0].dp], result.holds
    ([('linf:1', 'log(8)')], True)
    >>> result.composition is None                          # one mechanism: no joint release
    True
    >>> audit("quickstart.json", method="structured").mechanisms[1].pufferfish.epsilon
    'log(706/137)'
    """
    from pufferfish.verify.privacy.audit import audit_model

    file = _model_file(model) if certificate is not None else None
    model = load(model, max_datasets=max_datasets)
    result = audit_model(model, _optional_budget(epsilon), group, max_datasets, max_outputs,
                         engine=engine, mechanisms=mechanisms, neighbours=neighbours,
                         dp_budget=_optional_budget(epsilon_dp), max_pairs=max_pairs,
                         method=method)
    if certificate is not None:
        from pufferfish.verify.privacy.certificate import audit_certificate, write_certificate

        write_certificate(audit_certificate(model, result, file,
                                            max_datasets=max_datasets, max_outputs=max_outputs),
                          certificate, "certificate")
    return result


def certificate(model: ModelSource, epsilon: BudgetSource | None = None, *,
                group: int | None = None, mechanisms: Sequence[str] | None = None,
                neighbours: Sequence | None = None, epsilon_dp: BudgetSource | None = None,
                max_datasets: int = DEFAULT_MAX_DATASETS, max_outputs: int = DEFAULT_MAX_OUTPUTS,
                max_pairs: int = DEFAULT_MAX_PAIRS, method: str = "auto") -> dict:
    """The certificate of :func:`audit` (same options): the exact evidence of each level and
    verdict, as the JSON that ``pufferfish check-certificate`` and the standard-library checker
    ``pufferfish_check`` re-derive from the model file (docs/certificates.md;
    :mod:`pufferfish.verify.privacy.certificate`).  ``model`` is a file or a shipped example's
    name (the checker reads the file); a model built in Python is refused.

    >>> data = certificate("quickstart.json", "log(3)")
    >>> witness = data["mechanisms"][0]["pufferfish"]["witness"]   # rr violates log(3):
    >>> data["holds"], witness["prior"], witness["output"], witness["p_first"], witness["p_second"]
    (False, 'sticky', [0, 0, 0], '9/25', '3/100')
    >>> import pufferfish_check
    >>> pufferfish_check.check_certificate(data).accepted
    True
    """
    from pufferfish.verify.privacy.audit import audit_model
    from pufferfish.verify.privacy.certificate import audit_certificate

    file = _model_file(model)
    loaded = load(model, max_datasets=max_datasets)
    result = audit_model(loaded, _optional_budget(epsilon), group, max_datasets, max_outputs,
                         mechanisms=mechanisms, neighbours=neighbours,
                         dp_budget=_optional_budget(epsilon_dp), max_pairs=max_pairs,
                         method=method)
    return audit_certificate(loaded, result, file, max_datasets=max_datasets,
                             max_outputs=max_outputs)


def _model_file(source: ModelSource) -> Path:
    """The model file a certificate names: ``source`` must be a file or an example's name."""
    from pufferfish.models.errors import ModelError

    if isinstance(source, PufferfishModel | Mapping):
        raise ModelError("a certificate names the model file the checker reads: give the "
                         "model as a file path (or a shipped example's name), not as an object",
                         "certificate")
    return _file(source)


def pufferfish_level(model: ModelSource, mechanism: str | Mechanism,
                     epsilon: BudgetSource | None = None, *,
                     max_datasets: int = DEFAULT_MAX_DATASETS,
                     max_outputs: int = DEFAULT_MAX_OUTPUTS):
    """The exact Pufferfish level of one mechanism (Bai et al., Composition for Pufferfish Privacy,
    Definition 5).

    >>> pufferfish_level("quickstart.json", "rr").max_ratio
    Fraction(12, 1)
    """
    from pufferfish.verify.privacy.pufferfish import pufferfish_level as level

    model = load(model, max_datasets=max_datasets)
    model.require_priors("the Pufferfish level")
    return level(model, _mechanism(model, mechanism), _optional_budget(epsilon), max_datasets,
                 max_outputs)


def dp_level(model: ModelSource, mechanism: str | Mechanism, relation=None,
             epsilon: BudgetSource | None = None, *, max_datasets: int = DEFAULT_MAX_DATASETS,
             max_outputs: int = DEFAULT_MAX_OUTPUTS, max_pairs: int = DEFAULT_MAX_PAIRS):
    """The exact DP level of one mechanism over the model's universe for a neighbour relation
    (Bai et al., Composition for Pufferfish Privacy, §2.1, Definitions 1–3:
    ``max Pr[M(D) = ω] / Pr[M(D') = ω]`` over neighbouring ``D, D'`` and outputs ω), with the worst
    pair and output.  ``relation``: a form of :func:`~pufferfish.models.neighbours.parse_neighbours`
    — ``"entry"``, ``"record"``, ``"group:K"``, ``"linf:K"``, ``"l1:K"`` or ``"monotone:K"``
    (vectors of numeric query answers), ``"add_remove:VALUE"`` (``VALUE`` marks an absent record), ``"pairs:FILE"`` or
    ``{"pairs": [[D, D'], ...]}`` — default the model's ``neighbours``, else ``"entry"``.
    Relations other than entry, record and group are refused above ``max_pairs`` ordered pairs.

    >>> dp_level("quickstart.json", "rr").epsilon
    'log(3)'
    >>> result = dp_level("quickstart.json", "rr", {"pairs": [[[0, 0, 0], [1, 1, 0]]]})
    >>> result.epsilon, result.dataset, result.neighbour, result.pairs_checked
    ('log(9)', (0, 0, 0), (1, 1, 0), 2)
    """
    from pufferfish.verify.privacy.dp import dp_level as level

    model = load(model, max_datasets=max_datasets)
    if relation is None:
        relation = model.neighbours or "entry"
    return level(model.universe, _mechanism(model, mechanism), relation,
                 _optional_budget(epsilon), max_datasets, max_outputs, max_pairs)


def approximate_dp(model: ModelSource, mechanism: str | Mechanism, relation=None, *,
                   epsilon: BudgetSource | None = None, delta: object = None,
                   max_datasets: int = DEFAULT_MAX_DATASETS,
                   max_outputs: int = DEFAULT_MAX_OUTPUTS, max_pairs: int = DEFAULT_MAX_PAIRS):
    """(ε, δ)-DP of one mechanism (Dwork and Roth, The Algorithmic Foundations of Differential
    Privacy, §2.3, Definition 2.4): with ``epsilon``, the exact least δ (the largest
    hockey-stick divergence over ordered neighbour pairs) and, with ``delta`` too, whether the
    mechanism is (ε, δ)-DP; with ``delta`` alone, the exact least ε with δ(ε) ≤ δ
    (:mod:`pufferfish.verify.privacy.approximate`).  ``relation`` as for :func:`dp_level`.

    >>> approximate_dp("quickstart.json", "rr", epsilon="log(2)").delta
    Fraction(1, 4)
    >>> approximate_dp("quickstart.json", "rr", delta="1/4").least_epsilon
    'log(2)'
    """
    from pufferfish.verify.privacy.approximate import approximate_dp as check

    model = load(model, max_datasets=max_datasets)
    if relation is None:
        relation = model.neighbours or "entry"
    budget_value = None if epsilon is None else budget(epsilon)
    delta_value = None if delta is None else _exact_delta(delta)
    return check(model.universe, _mechanism(model, mechanism), relation, epsilon=budget_value,
                 delta=delta_value, max_datasets=max_datasets, max_outputs=max_outputs,
                 max_pairs=max_pairs)


def dp_for_every_epsilon(model: ModelSource, mechanism: str | Mechanism, relation=None, *,
                         low: object, high: object, factor: object = 1,
                         parameter: str = "epsilon", max_datasets: int = DEFAULT_MAX_DATASETS,
                         max_outputs: int = DEFAULT_MAX_OUTPUTS,
                         max_pairs: int = DEFAULT_MAX_PAIRS, engine=None):
    """Whether a program mechanism is (``factor``·ε)-DP for **every** ε in ``[low, high]``,
    decided exactly, with a rational counterexample ε otherwise
    (:mod:`pufferfish.verify.privacy.epsilon_range`).  The program's argument ``parameter`` is
    replaced by the symbol ε (:data:`~pufferfish.models.programs.noise.EPSILON`), which may only
    scale the parameter of its ``discrete_laplace`` draws.  ``relation`` as for :func:`dp_level`.
    ``engine`` (a :class:`~pufferfish.verify.execution.Engine`; default this process) computes
    the program's laws on the datasets as tasks (:func:`~pufferfish.verify.program_laws.program_laws`);
    the answer is the same.

    >>> from pufferfish.examples import example_path
    >>> suite = example_path("dp_benchmarks/laplace_suite.json")
    >>> dp_for_every_epsilon(suite, "noisy_histogram", "linf:1", factor=3, low="1/10",
    ...                      high=2).holds      # three answers move by one: 3ε, at every ε
    True
    >>> dp_for_every_epsilon(suite, "noisy_histogram", "linf:1", factor=2, low="1/10",
    ...                      high=2).counterexample.epsilon
    Fraction(1, 1)
    """
    from pufferfish.models.programs import EPSILON, ProgramError, ProgramMechanism
    from pufferfish.verify.privacy.epsilon_range import dp_for_every_epsilon as decide

    model = load(model, max_datasets=max_datasets)
    if relation is None:
        relation = model.neighbours or "entry"
    chosen = _mechanism(model, mechanism)
    if not isinstance(chosen, ProgramMechanism) or parameter not in chosen.arguments:
        from pufferfish.models.errors import ModelError

        raise ModelError(f"mechanism {chosen.name!r} is not a program with an argument "
                         f"{parameter!r} to make a symbol", "mechanism")
    symbolic = ProgramMechanism(chosen.name, chosen.program,
                                {**chosen.arguments, parameter: EPSILON}, reads=chosen.reads,
                                read_names=chosen.read_names, source=chosen.source,
                                max_steps=chosen.max_steps, max_runs=chosen.max_runs,
                                max_depth=chosen.max_depth, limits=chosen.limits,
                                isolate=chosen.isolate, trusted=chosen.trusted)
    from pufferfish.verify.program_laws import program_laws, universe_keys

    try:
        program_laws(engine, [symbolic],
                     lambda m: universe_keys(m, model.universe, max_datasets))
        return decide(model.universe, symbolic, relation, factor=factor, low=low, high=high,
                      max_datasets=max_datasets, max_outputs=max_outputs, max_pairs=max_pairs)
    except ProgramError as error:
        raise ProgramError(f"{error.reason} (the program's argument {parameter!r} is the symbol "
                           f"ε here: it may only scale the parameter of discrete_laplace, "
                           f"c·ε)", error.path) from None


def _exact_delta(delta: object) -> Fraction:
    """δ as an exact number in [0, 1]: a string (``"1/1000"``, ``"0.001"``), an int, a Fraction,
    or a float read by its shortest decimal form, as budgets are."""
    from pufferfish.models.errors import ModelError
    from pufferfish.models.numbers import exact

    if isinstance(delta, float):
        if not math.isfinite(delta):
            raise ModelError(f"δ must be a finite number, got {delta!r}", "delta")
        delta = repr(delta)
    value = exact(delta, "delta")
    if not 0 <= value <= 1:
        raise ModelError(f"δ must lie in [0, 1], got {delta}", "delta")
    return value


def leakage(model: ModelSource, mechanism: str | Mechanism, *,
            max_datasets: int = DEFAULT_MAX_DATASETS, max_outputs: int = DEFAULT_MAX_OUTPUTS):
    """Definition 4's posterior equality for every secret and finite prior
    (Bai et al., Composition for Pufferfish Privacy, §3, Definition 4)."""
    from pufferfish.verify.privacy.leakage import leakage as check

    model = load(model, max_datasets=max_datasets)
    model.require_priors("leakage")
    return check(model, _mechanism(model, mechanism), max_datasets, max_outputs)


def composes(model: ModelSource, epsilon: BudgetSource, *,
             mechanisms: Sequence[str | Mechanism] | None = None, runs: int = 0,
             max_runs: int = 200, max_datasets: int = DEFAULT_MAX_DATASETS,
             max_outputs: int = DEFAULT_MAX_OUTPUTS, max_coefficients: int = 10 ** 6):
    """Can the mechanisms compose linearly at ε?  (``pufferfish composes``;
    :func:`pufferfish.verify.nfc.report.composition_report`.)

    Theorem 4's NfC programs with certified bounds (Bai et al., Composition for Pufferfish Privacy,
    §5.1); when the answer is no, a constructive composition attack (the smallest number of runs
    whose exact level exceeds ``runs·ε``) in ``result.attack``; the premise (each mechanism's own
    level against ε); with ``runs >= 1`` the exact levels of 1..runs runs of each mechanism.

    >>> report = composes("hidden_coin.json", "0", runs=2)
    >>> report.verdict, report.attack.runs
    ('violated', 2)
    """
    from pufferfish.verify.nfc.report import composition_report

    model = load(model, max_datasets=max_datasets)
    model.require_priors("composition")
    chosen = list(model.mechanisms.values()) if mechanisms is None else [
        _mechanism(model, m) for m in mechanisms]
    return composition_report(model, chosen, budget(epsilon), runs=runs, max_runs=max_runs,
                              max_datasets=max_datasets, max_outputs=max_outputs,
                              max_coefficients=max_coefficients)


def design(model: ModelSource, query: str, epsilon: BudgetSource, *, loss: str | None = None,
           data: str | None = None, composable: str = "none",
           dp_epsilon: BudgetSource | None = None, neighbours: str = "entry",
           max_datasets: int = DEFAULT_MAX_DATASETS):
    """The ε-Pufferfish mechanism of least expected loss (``pufferfish design``;
    :func:`pufferfish.verify.design.report.design_mechanism`, Bai et al., Composition for Pufferfish
    Privacy, §5–6).

    An exact rational mechanism, re-verified by the exact audit, with its exact loss and an exact
    lower bound from the dual; ``composable="dp-style"`` adds DP-style constraints (at
    ``dp_epsilon``, default ε) so that the design composes linearly.

    >>> result = design("quickstart.json", "sum", "log(3)")
    >>> str(result.loss), str(result.lower_bound)
    ('3/16', '3/16')
    """
    from pufferfish.verify.design.report import design_mechanism

    return design_mechanism(load(model, max_datasets=max_datasets), query, budget(epsilon),
                            loss=loss, data=data, composable=composable,
                            dp_budget=_optional_budget(dp_epsilon), neighbours=neighbours,
                            max_datasets=max_datasets)


def load_parametric(source: str | os.PathLike | Mapping):
    """A parametric model (a model file that declares ``"parameters"``), validated symbolically:
    rows sum to 1 identically and every entry is nonnegative over the whole parameter box
    (:mod:`pufferfish.models.parametric`).  A shipped example may be named.

    >>> load_parametric("quickstart_parametric.json").box.names
    ('p', 'q')
    """
    from pufferfish.models.parametric import load_parametric_model, parse_parametric_model

    if isinstance(source, Mapping):
        return parse_parametric_model(dict(source))
    return load_parametric_model(_file(source))


def symbolic_audit(model, *, max_datasets: int = DEFAULT_MAX_DATASETS):
    """Closed-form Pufferfish, DP and leakage levels of a parametric model
    (``pufferfish audit --symbolic``; :func:`pufferfish.verify.symbolic.levels.symbolic_audit`).

    >>> symbolic_audit("quickstart_parametric.json").to_dict()["parameters"]
    {'p': ['1/2', '1'], 'q': ['1/2', '1']}
    """
    from pufferfish.verify.symbolic.levels import symbolic_audit as audit_symbolically

    if not hasattr(model, "box"):
        model = load_parametric(model)
    return audit_symbolically(model, max_datasets=max_datasets)


def region(model, epsilon: BudgetSource, *, mechanism: str | None = None,
           set: Mapping[str, object] | Sequence[str] | None = None,
           joint: Sequence[str] | str | None = None, map: object = None,
           width: Fraction | None = None, max_datasets: int = DEFAULT_MAX_DATASETS,
           max_outputs: int = DEFAULT_MAX_OUTPUTS):
    """The parameter values where a parametric model meets ε (``pufferfish region``;
    :func:`pufferfish.verify.symbolic.region.budget_region`): exact intervals with algebraic
    endpoints for one parameter, a certified map of boxes for several.  The options of the
    command:

    - ``mechanism`` (``--mechanism``): one mechanism; default every mechanism and their joint
      release;
    - ``set`` (``--set``): fix some parameters at exact values, ``{"q": "9/10"}`` (or
      ``["q=9/10"]``); the others stay free;
    - ``joint`` (``--joint``): the joint release of these mechanisms (``["rr", "sum"]`` or
      ``"rr,sum"``; Bai et al., Composition for Pufferfish Privacy, §4);
    - ``map`` (``--map``, with ``mechanism``): ``mechanism`` followed by a post-processor
      (§5.2) — a map file's path, its parsed ``{"map": [[output, [[new output, p], ...]], ...]}``
      or the list alone; ``p`` may use the model's parameters.  The model is then read again
      with the new mechanism, so give it as a file, a shipped example's name or a dict (or a
      parametric model without fixed parameters);
    - ``width`` (``--width``): the boundary layer of a map.

    >>> region("quickstart_parametric.json", "log(3)", mechanism="rr",
    ...        width=Fraction(1, 16)).to_dict()["area"]         # of the box [1/2, 1]²
    {'inside': '0', 'outside': '13/128', 'boundary': '19/128'}
    >>> print(region("quickstart_parametric.json", "log(3)", mechanism="rr",
    ...              set={"q": "9/10"}).explain().splitlines()[-1])
      [1/2, root of 320*p**3 - 704*p**2 + 708*p - 243 in [1/2, 2/3]]  (≈ [0.5000, 0.6122])
    >>> region("quickstart_parametric.json", "log(12)", joint=["rr", "sum"],
    ...        set={"q": "9/10"}).scope
    'the joint release of rr, sum'
    >>> first_bit = [[[a, b, c], [[a, "1"]]] for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    >>> region("quickstart_parametric.json", "log(3)", mechanism="rr", map=first_bit,
    ...        set={"q": "9/10"}).to_dict()["intervals"]
    [{'low': {'exact': '1/2', 'approx': 0.5}, 'high': {'exact': '3/4', 'approx': 0.75}}]
    """
    from pufferfish.models.parametric import add_postprocessed, parse_assignments
    from pufferfish.verify.symbolic.region import budget_region

    fixed, post_processor = set, map
    if isinstance(fixed, Mapping):
        values = dict(fixed)
    else:
        values = parse_assignments(list(fixed or []))
    if isinstance(joint, str):
        joint = [name.strip() for name in joint.split(",")]
    if post_processor is not None:
        from pufferfish.models.errors import ModelError

        if mechanism is None:
            raise ModelError("map= post-processes one mechanism: give mechanism= too", "map")
        data, mechanism = add_postprocessed(_parametric_data(model), mechanism,
                                            _map_data(post_processor))
        try:
            model = load_parametric(data)
        except ModelError as error:
            if not hasattr(model, "box"):
                raise
            raise ModelError(f"map= reads the model again with the new mechanism, and this "
                             f"model object does not read back ({error.reason}); were some "
                             f"parameters fixed by restrict()? Give the model's file, name or "
                             f"dict with set= instead", error.path) from None
    elif not hasattr(model, "box"):
        model = load_parametric(model)
    if values:
        model = model.restrict(values)
    return budget_region(model, budget(epsilon), mechanism, width, max_datasets, max_outputs,
                         tuple(joint) if joint else None)


def _parametric_data(source) -> dict:
    """The decoded model file of a parametric model given in any form (with ``"parameters"``)."""
    from pufferfish.models.files.json_io import read_json_file

    if hasattr(source, "box"):
        return {"parameters": source.box.to_dict(), **source.data}
    if isinstance(source, Mapping):
        return dict(source)
    return read_json_file(_file(source), "model file")


def _map_data(source) -> object:
    """A post-processor as a map file holds it: ``{"map": [...]}``."""
    from pufferfish.models.files.json_io import read_json_file

    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, (str, os.PathLike)):
        return read_json_file(source, "map file")
    return {"map": list(source)}


def nfc_region(model, epsilon: BudgetSource, *, mechanisms: Sequence[str] | None = None,
               set: Mapping[str, object] | Sequence[str] | None = None,
               width: Fraction | None = None, max_datasets: int = DEFAULT_MAX_DATASETS):
    """Where Theorem 4's necessary condition for linear composition (NfC value ≤ ε) holds over
    the parameters of a parametric model (``pufferfish composes --region``;
    :func:`pufferfish.verify.symbolic.nfc_region.nfc_region`).  Certified numerically: each box
    is decided by LP certificates checked with interval arithmetic over the whole box.
    ``set`` (``composes --set``) fixes some parameters, as in :func:`region`.

    >>> result = nfc_region("quickstart_parametric.json", "log(3)", mechanisms=["rr"],
    ...                     width=Fraction(1, 8))
    >>> result.to_dict()["method"]
    'certified_numerical'
    >>> nfc_region("quickstart_parametric.json", "log(3)", mechanisms=["rr"], set={"q": "9/10"},
    ...            width=Fraction(1, 8)).names
    ('p',)
    """
    from pufferfish.models.parametric import parse_assignments
    from pufferfish.verify.symbolic.nfc_region import nfc_region as certified_nfc_region

    if not hasattr(model, "box"):
        model = load_parametric(model)
    if set:
        model = model.restrict(dict(set) if isinstance(set, Mapping) else
                               parse_assignments(list(set)))
    return certified_nfc_region(model, budget(epsilon), list(mechanisms) if mechanisms else None,
                                width, max_datasets)


def least_noise(model: ModelSource, epsilon: BudgetSource, query: str = "sum", *,
                attributes: Sequence[str] | None = None, value: object = 1,
                low: int | None = None, high: int | None = None, noise: str = "both",
                tolerance: Fraction | str = Fraction(1, 1000), ends_only: bool = False,
                mechanism: str | None = None):
    """The least noise that makes ``query`` (``"sum"`` or ``"count"`` of ``value``, over
    ``attributes``, default all) ε-Pufferfish private against the model's priors and secret
    pairs (:func:`pufferfish.verify.structured.least_noise.least_noise`): two-sided geometric
    noise clamped to ``[low, high]`` (default the query's range; certified brackets
    ``α_fail < α_ok`` whose ends' levels are exact) and Laplace noise (certified brackets
    ``b_fail < b_ok``).  ``mechanism``: read the query, attributes, value and clamp from that
    mechanism of the model instead.  The priors must have a factored form (chains, product
    priors, Bayesian networks).  ``result.laplace.least`` says that the least scale is proved to
    lie in ``(b_fail, b_ok]``; ``result.laplace.advice()`` says what to use (``use b >= b_ok``).

    >>> result = least_noise("quickstart.json", "1", tolerance="1/100")
    >>> result.laplace.least, result.geometric.least
    (True, True)
    >>> float(result.laplace.fail.parameter) < 2.41 < float(result.laplace.ok.parameter)
    True
    """
    from pufferfish.verify.structured.least_noise import least_noise as search

    return search(load(model), budget(epsilon), query, attributes=attributes, value=value,
                  low=low, high=high, noise=noise, tolerance=tolerance, ends_only=ends_only,
                  mechanism=mechanism)


def mqm_price(*, lengths: Sequence[int] = (100, 1000, 10_000),
              epsilons: Sequence[BudgetSource] = ("1/2", "1", "2"),
              lows: Sequence[object] = ("1/10", "1/4", "2/5"), tolerance: object = "1/1000",
              exact_up_to: int = 1000, ends_up_to: int = 10_000, geometric: bool = True):
    """The price of the Markov Quilt Mechanism on the chains of Wang et al., Privacy-Preserving
    Analysis of Correlated Data, §5 (``pufferfish mqm-price``;
    :func:`pufferfish.verify.structured.mqm_price.mqm_price`): MQMApprox and MQMExact σ, the
    Wasserstein mechanism's ``W/ε`` and the certified least Laplace scale of the sum and of a
    count, each with what it guarantees.  ``plot_mqm_price(table)`` draws it.

    >>> table = mqm_price(lengths=[10], epsilons=["1"], lows=["1/4"], tolerance="1/50")
    >>> row = table.rows[0]
    >>> row.sum.ok < row.mqm_exact[1] and row.count.ok <= row.wasserstein("count")
    True
    """
    from pufferfish.verify.structured.mqm_price import mqm_price as compute

    return compute(lengths=lengths, epsilons=[budget(e).text for e in epsilons], lows=lows,
                   tolerance=tolerance, exact_up_to=exact_up_to, ends_up_to=ends_up_to,
                   geometric=geometric)


def plot_mqm_price(table, path: str | os.PathLike | None = None):
    """The figure of a :func:`~pufferfish.api.mqm_price` table (a :class:`matplotlib.figure.Figure`, written to
    ``path`` when given; :func:`pufferfish.verify.structured.mqm_price.plot_mqm_price`).

    >>> figure = plot_mqm_price(mqm_price(lengths=[6], epsilons=["1"], lows=["1/4"],
    ...                                   tolerance="1/20"))
    >>> figure.axes[0].get_title()
    'ε = 1'
    """
    from pufferfish.verify.structured.mqm_price import plot_mqm_price as plot

    return plot(table, path)
