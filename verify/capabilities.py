"""Which analysis works on which kind of prior: the capability declarations of the toolkit.

Every analysis of Bai et al., Composition for Pufferfish Privacy, §5–§6, Ding et al., Multi-user
Pufferfish Privacy, §4 and Wang et al., Privacy-Preserving Analysis of Correlated Data, §3–§4
declares, for each prior kind a user can write (:data:`PRIOR_KINDS`), one of

* ``exact`` — the value over the whole prior class is computed exactly (rationals);
* ``certified`` — the value is transcendental or bounded: a certified interval, or a certified
  outer bound, labelled so in the note;
* ``numerical`` — a numerical estimate, labelled so in the output; no verdict rests on it alone;
* ``refused`` — the command exits 2 with a message located at ``at`` (a JSON path or an option),
  for the stated mathematical reason;
* ``n/a`` — the analysis's input cannot express that kind of prior (the note says what it reads).

:doc:`/compatibility` is generated from these declarations
(``python -m pufferfish.verify.capabilities --markdown``) and a test compares the committed page
with the generated one; ``tests/test_compatibility.py`` runs every declared cell through the
command line on the sample model of its kind (:func:`sample_model`): a refused cell must exit 2
with a message naming ``at``, every other cell must run (exit 0, 1 or 3).

>>> row = next(c for c in CAPABILITIES if c.command == "mqm")
>>> row.cells["interval"].status, row.cells["markov-steps"].status
('refused', 'exact')
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field

from pufferfish.bibliography import paper

_BAI, _DING, _WANG = (paper(number).short for number in ("000", "001", "002"))
"""The papers the sources name, as :func:`pufferfish.bibliography.cite` writes them."""

PRIOR_KINDS: dict[str, str] = {
    "table": "`table`: an explicit list of datasets and probabilities (also `uniform`)",
    "independent": "`independent`: one marginal per attribute",
    "markov": "`markov` with one `transition` kernel (homogeneous chain)",
    "markov-steps": "`markov` with a kernel per step in `transitions` (non-homogeneous chain)",
    "bayesnet": "`bayesnet`: a Bayesian network over the attributes (a BIF file or written out)",
    "interval": "`interval`: the infinite family of Example 4.3 (block masses in intervals)",
    "parametric": "a continuous parameter range: `mqm --interval L,U` (the binary chains of "
                  f"{_WANG}, §5) or the truncated Gaussian of {_BAI}, Example 6.2 (library)",
}
"""The prior kinds a user can write, each with the description the compatibility page shows."""

STATUSES = ("exact", "certified", "numerical", "refused", "n/a")
"""What an analysis does with a prior kind (the list in the module docstring)."""


@dataclass(frozen=True)
class Cell:
    """One analysis on one prior kind: a status of :data:`STATUSES`, the note saying how or why,
    and for a refusal the location ``at`` its message names."""

    status: str
    note: str = ""
    at: str = ""


def exact(note: str = "") -> Cell:
    return Cell("exact", note)


def certified(note: str) -> Cell:
    return Cell("certified", note)


def numerical(note: str) -> Cell:
    return Cell("numerical", note)


def refused(reason: str, at: str) -> Cell:
    return Cell("refused", reason, at)


def not_expressible(note: str) -> Cell:
    return Cell("n/a", note)


@dataclass(frozen=True)
class Capability:
    """One analysis: its name, source, command (``None``: library only), the command line that
    runs it on a model (``{model}`` is replaced by the file; ``probes`` override it per kind) and
    a cell per prior kind."""

    analysis: str
    source: str
    module: str
    command: str | None
    cells: Mapping[str, Cell]
    probe: tuple[str, ...] = ()
    probes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sample: str = "model"

    def __post_init__(self) -> None:
        if set(self.cells) != set(PRIOR_KINDS):
            raise ValueError(f"{self.analysis}: declare every prior kind, got {sorted(self.cells)}")
        for kind, cell in self.cells.items():
            if cell.status not in STATUSES:
                raise ValueError(f"{self.analysis}/{kind}: unknown status {cell.status!r}")
            if cell.status in ("refused", "n/a", "numerical", "certified") and not cell.note:
                raise ValueError(f"{self.analysis}/{kind}: a {cell.status} cell needs a note")
            if cell.status == "refused" and not cell.at:
                raise ValueError(f"{self.analysis}/{kind}: a refusal names its location")

    def argv(self, kind: str, model: str) -> list[str] | None:
        """The command line that exercises ``kind`` (``None`` when nothing can be run)."""
        template = self.probes.get(kind, self.probe)
        if self.command is None or not template or self.cells[kind].status == "n/a":
            return None
        return [model if part == "{model}" else part for part in template]


NO_PARAMETRIC = "the model format has no parametric prior"
FAMILY_CONDITIONS = ("it conditions on X_i = a, but an interval family fixes only the "
                     "conditionals of its own secrets (Example 4.3)")
EXTREME = "every extreme member of the family (joint quasi-convexity; the max is at a vertex)"
ENUMERATED = "over the prior's support, enumerated"


CAPABILITIES: tuple[Capability, ...] = (
    Capability(
        "a(b)-influence curve, brute force over splits", f"{_BAI}, §6.2, Definition 7",
        "pufferfish.verify.influence.curves", "influence",
        {"table": exact(ENUMERATED), "independent": exact(ENUMERATED),
         "markov": exact(ENUMERATED), "markov-steps": exact(ENUMERATED),
         "bayesnet": exact(ENUMERATED),
         "interval": exact("per D_L, the largest conditional mass over the smallest: an "
                           "extreme member attains both (greedy over the blocks)"),
         "parametric": not_expressible(NO_PARAMETRIC + "; see the Gaussian row")},
        ("influence", "{model}", "--method", "brute", "--max-b", "1")),
    Capability(
        "a(b)-influence curve, structured chain", f"{_BAI}, §6.3, Theorem 8 (Appendix C)",
        "pufferfish.verify.influence.chains", "influence",
        {"table": refused("a table prior has no chain structure for the structured recursion "
                          "to follow (--method brute computes the curve)", "priors.theta"),
         "independent": exact("as a chain with constant rows"),
         "markov": exact(), "markov-steps": exact("one kernel per step"),
         "bayesnet": refused("a network is not a chain over the attributes in order; "
                             "--method brute computes the curve", "priors.theta"),
         "interval": refused("a family is not one chain; --method brute computes the curve "
                             "exactly over the family", "priors.theta"),
         "parametric": not_expressible(NO_PARAMETRIC)},
        ("influence", "{model}", "--method", "chain", "--max-b", "1")),
    Capability(
        "Gaussian a*(b) of Example 6.2", f"{_BAI}, §6.3, Example 6.2, Theorem 9",
        "pufferfish.verify.influence.gaussian_bound", None,
        {**{kind: not_expressible("the analysis takes a Gaussian setting (n, ℓ, γ, δ); finite "
                                  "priors use the influence rows")
            for kind in ("table", "independent", "markov", "markov-steps", "bayesnet",
                         "interval")},
         "parametric": certified("certified [lower, upper] on a†(L) and a*(b) over the whole "
                                 "region range (arb balls, adaptive subdivision with a Lipschitz "
                                 "tent per cell, gaussian_bound); Theorem 9's claims are decided "
                                 "with them (gaussian_compare); gaussian_curve's grid maximum is "
                                 "a labelled numerical estimate")}),
    Capability(
        "Wasserstein parameter W (W∞) and mechanism", f"{_WANG}, §3, Algorithm 1",
        "pufferfish.verify.transport.parameter", "wasserstein",
        {"table": exact(ENUMERATED), "independent": exact(ENUMERATED),
         "markov": exact(ENUMERATED), "markov-steps": exact(ENUMERATED),
         "bayesnet": exact(ENUMERATED), "interval": exact(EXTREME),
         "parametric": not_expressible(NO_PARAMETRIC)},
        ("wasserstein", "{model}", "--query", "sum", "--epsilon", "1")),
    Capability(
        "Pufferfish level of query + Laplace noise",
        f"{_WANG}, §3, Theorem 3.2; {_BAI}, §2.2, Definition 5",
        "pufferfish.verify.transport.laplace_level", "wasserstein",
        {"table": certified("certified interval (exponentials)"),
         "independent": certified("certified interval (exponentials)"),
         "markov": certified("certified interval (exponentials)"),
         "markov-steps": certified("certified interval (exponentials)"),
         "bayesnet": certified("certified interval (exponentials)"),
         "interval": certified("certified interval, maximum over " + EXTREME),
         "parametric": not_expressible(NO_PARAMETRIC)},
        ("wasserstein", "{model}", "--query", "sum", "--epsilon", "1")),
    Capability(
        "(ε, δ) Wasserstein variant", f"{_WANG}, Appendix A.4, Theorem A.8",
        "pufferfish.verify.transport.epsilon_delta", "wasserstein",
        {"table": certified("trimmed W exact; hockey-stick divergence certified"),
         "independent": certified("trimmed W exact; hockey-stick divergence certified"),
         "markov": certified("trimmed W exact; hockey-stick divergence certified"),
         "markov-steps": certified("trimmed W exact; hockey-stick divergence certified"),
         "bayesnet": certified("trimmed W exact; hockey-stick divergence certified"),
         "interval": certified("W_δ: certified outer bound, the untrimmed W∞ over every "
                               "extreme member (trimming only lowers it; labelled in the "
                               "output); the hockey-stick divergence, convex in the pair of "
                               "conditionals, certified over every extreme member"),
         "parametric": not_expressible(NO_PARAMETRIC)},
        ("wasserstein", "{model}", "--query", "sum", "--epsilon", "1", "--delta", "1/10")),
    Capability(
        "Markov quilts and the Markov Quilt Mechanism, exact", f"{_WANG}, §4, Algorithm 2; "
        "Algorithms 3 and 5 for homogeneous chains", "pufferfish.verify.quilts.prior_networks",
        "mqm",
        {"table": exact("on the complete graph in attribute order (chain rule)"),
         "independent": exact("a network with no edges"),
         "markov": exact("chain algorithms (Algorithm 3)"),
         "markov-steps": exact("as a network on the chain graph"),
         "bayesnet": exact("on the network's own graph (with other network or chain priors, "
                           "the union of their edges); on the complete graph in attribute "
                           "order, CPTs by the chain rule, when that union has a cycle"),
         "interval": refused("Definition 4.1's max-influence: " + FAMILY_CONDITIONS, "priors"),
         "parametric": numerical("--interval with the exact methods runs on a grid of the box "
                                 "(--step), a subfamily; --method approx/fast bounds the whole "
                                 "box")},
        ("mqm", "{model}", "--epsilon", "1"),
        {"parametric": ("mqm", "{model}", "--epsilon", "1", "--interval", "1/4,3/4",
                        "--step", "1/4")}),
    Capability(
        "Markov Quilt Mechanism, Lemma B.4 bounds (approx, fast)", f"{_WANG}, Appendix B, "
        "Lemma B.4, "
        "Algorithms 4–5", "pufferfish.verify.quilts.chain_search", "mqm",
        {**{kind: refused("Lemma B.4's bounds hold for homogeneous reversible chains; "
                          "--method exact handles this prior", "--method")
            for kind in ("table", "independent", "markov-steps", "bayesnet")},
         "markov": certified("certified (π_Θ, g_Θ) from the exact matrices; σ an outer bound"),
         "interval": refused("Definition 4.1's max-influence: " + FAMILY_CONDITIONS, "priors"),
         "parametric": certified("closed-form (π_Θ, g_Θ) over the whole box [L, U]")},
        ("mqm", "{model}", "--epsilon", "1", "--method", "approx"),
        {"parametric": ("mqm", "{model}", "--epsilon", "1", "--method", "approx",
                        "--interval", "1/4,3/4")}),
    Capability(
        "NfC programs, composition attacks, repeated runs", f"{_BAI}, §5.1, Theorem 4",
        "pufferfish.verify.nfc.attack", "composes",
        {"table": exact(ENUMERATED), "independent": exact(ENUMERATED),
         "markov": exact(ENUMERATED), "markov-steps": exact(ENUMERATED),
         "bayesnet": exact(ENUMERATED),
         "interval": exact("programs over the minimal supports; attacks and repeated runs over "
                           "the whole family (worst member per observation)"),
         "parametric": not_expressible(NO_PARAMETRIC)},
        ("composes", "{model}", "--epsilon", "1", "--runs", "2")),
    Capability(
        "Multi-user Laplace calibrators and levels", f"{_DING}, §4",
        "pufferfish.verify.multiuser.levels", "multiuser",
        {**{kind: not_expressible(f"a multi-user model ({_DING}, §3) gives each user's own "
                                  "distribution; users are independent")
            for kind in ("table", "markov", "markov-steps", "bayesnet", "parametric")},
         "interval": not_expressible("the multi-user file has no interval family; in the "
                                     "library, interval_family_level gives the certified level "
                                     "over per-user interval families (every user at a vertex: "
                                     "the ratio is linear-fractional in each user)"),
         "independent": certified("certified levels of X + Lap(θ)")},
        ("multiuser", "{model}", "--pairs", "PQ", "--epsilon", "1", "--no-minimal"),
        sample="multiuser"),
)
"""Every analysis with its cell per prior kind; :func:`markdown` writes them as the compatibility
page."""


# --------------------------------------------------------------------------------------------
# sample models, one per prior kind, for the test of every cell and for the page
# --------------------------------------------------------------------------------------------

_ATTRS = ["x1", "x2", "x3"]
_KERNEL = {"0": {"0": "3/4", "1": "1/4"}, "1": {"0": "1/3", "1": "2/3"}}
_PRIORS = {
    "table": {"table": [[[0, 0, 0], "1/4"], [[0, 1, 1], "1/4"], [[1, 1, 0], "1/4"],
                        [[1, 1, 1], "1/4"]]},
    "independent": {"independent": {"x1": {"0": "1/2", "1": "1/2"}, "x2": {"0": "1/3", "1": "2/3"},
                                    "x3": {"0": "1/4", "1": "3/4"}}},
    "markov": {"markov": {"initial": {"0": "1/2", "1": "1/2"}, "transition": _KERNEL}},
    "markov-steps": {"markov": {"initial": {"0": "1/2", "1": "1/2"}, "transitions": [
        _KERNEL, {"0": {"0": "1/5", "1": "4/5"}, "1": {"0": "1/2", "1": "1/2"}}]}},
    "bayesnet": {"bayesnet": {"nodes": {
        "x1": {"parents": [], "cpt": {"": {"0": "1/2", "1": "1/2"}}},
        "x2": {"parents": ["x1"], "cpt": {"0": {"0": "3/4", "1": "1/4"}, "1": {"0": "1/4", "1": "3/4"}}},
        "x3": {"parents": ["x1"], "cpt": {"0": {"0": "2/3", "1": "1/3"},
                                          "1": {"0": "1/3", "1": "2/3"}}}}}},
    "interval": {"interval": {
        "x1=0": [{"datasets": [[0, 0, 0], [0, 0, 1]], "mass": ["1/4", "3/4"]},
                 {"datasets": [[0, 1, 0], [0, 1, 1]], "mass": ["1/4", "3/4"]}],
        "x1=1": [{"datasets": [[1, 0, 0], [1, 1, 1]], "mass": ["1/2", "1"]},
                 {"datasets": [[1, 0, 1], [1, 1, 0]], "mass": ["0", "1/2"]}]}},
}


def sample_model(kind: str) -> dict:
    """A small model file of ``kind`` (three binary attributes, the pair ``x1=0``/``x1=1``, a
    randomized-response mechanism); the parametric sample is the chain run with ``--interval``."""
    if kind == "multiuser":
        return {"multiuser_model": 1, "users": [
            {"name": "a", "distribution": {"0": "1/2", "1": "1/2"},
             "alternative": {"0": "1/4", "1": "3/4"}},
            {"name": "b", "distribution": {"0": "1/4", "1": "3/4"}}], "targets": ["a"]}
    prior = _PRIORS["markov" if kind == "parametric" else kind]
    return {"pufferfish_model": 1, "attributes": _ATTRS, "domain": [0, 1], "datasets": "all",
            "priors": {"theta": prior},
            "secrets": {"x1=0": {"where": {"x1": 0}}, "x1=1": {"where": {"x1": 1}}},
            "pairs": [["x1=0", "x1=1"]],
            "mechanisms": {"rr": {"per_entry": {"randomized_response": {"keep": "3/4"}}}}}


def markdown() -> str:
    """:doc:`/compatibility`: the table of every analysis on every prior kind, then the notes."""
    kinds = list(PRIOR_KINDS)
    lines = ["# Compatibility: every analysis on every prior", "",
             "<!-- generated by `python -m pufferfish.verify.capabilities --markdown`; "
             "do not edit -->", "",
             "Each analysis declares in {mod}`pufferfish.verify.capabilities` what it does with "
             "each kind of "
             "prior; this page is generated from those declarations, and "
             "`tests/test_compatibility.py` runs every cell through the command line on a small "
             "model of its kind (a refused cell must exit 2 with a located message).", "",
             "Statuses: **exact** (exact rationals over the whole prior class), **certified** "
             "(a certified interval or a certified outer bound, as the note says), **numerical** "
             "(a labelled estimate; no verdict rests on it), **refused** (exit 2, with the "
             "reason below), **n/a** (the analysis's input cannot express that prior).", "",
             "Prior kinds:", ""]
    lines += [f"- **{kind}** — {text}" for kind, text in PRIOR_KINDS.items()]
    lines += ["", "| analysis | command | " + " | ".join(kinds) + " |",
              "|---|---|" + "---|" * len(kinds)]
    notes = []
    for row, cap in enumerate(CAPABILITIES, start=1):
        cells = []
        for kind in kinds:
            cell = cap.cells[kind]
            if cell.note:
                notes.append(f"{row}.{kind}")
                cells.append(f"{cell.status} [{row}.{kind}]")
            else:
                cells.append(cell.status)
        command = f"`{cap.command}`" if cap.command else "library"
        lines.append(f"| {row}. {cap.analysis} | {command} | " + " | ".join(cells) + " |")
    lines += ["", "## Notes", ""]
    for row, cap in enumerate(CAPABILITIES, start=1):
        run = (" Run as `pufferfish " + " ".join(cap.probe).replace("{model}", "MODEL") + "`."
               if cap.probe else "")
        lines += [f"### {row}. {cap.analysis}", "",
                  f"Source: {cap.source}; code: `{cap.module}`.{run}", ""]
        for kind in kinds:
            cell = cap.cells[kind]
            if cell.note:
                where = f" (message at `{cell.at}`)" if cell.at else ""
                lines.append(f"- [{row}.{kind}] **{cell.status}**: {cell.note}{where}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m pufferfish.verify.capabilities --markdown``: print the compatibility page."""
    args = sys.argv[1:] if argv is None else argv
    if args != ["--markdown"]:
        print("usage: python -m pufferfish.verify.capabilities --markdown", file=sys.stderr)
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = ["CAPABILITIES", "PRIOR_KINDS", "STATUSES", "Capability", "Cell", "markdown",
           "sample_model"]
