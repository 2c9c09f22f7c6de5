"""Closed-form levels of a parametric mechanism before and after a post-processor:
``pufferfish postprocess MODEL --mechanism M --map MAP --symbolic``.

A post-processor ``A`` (a stochastic map from the outputs of ``M``, Bai et al., Composition for
Pufferfish Privacy, §5.2) turns the kernel ``Pr[M(D) = ω]`` into
``Pr[A∘M(D) = y] = Σ_ω A(y|ω)·Pr[M(D) = ω]``: when the kernel and the map are rational in the
parameters so is the result, and its Pufferfish level (Definition 5) and entry-DP level
(Definition 1) are the closed forms of :mod:`pufferfish.verify.symbolic.levels` (candidate ratios,
factored; for one free parameter the exact piecewise maximum with algebraic breakpoints).
Post-processing never raises either level; the two closed forms are shown side by side.  The map may
itself use the model's parameters (it is validated with the model: rows sum to 1 identically,
entries nonnegative on the whole box).

Cost: that of :func:`pufferfish.verify.symbolic.levels.symbolic_audit` for two mechanisms (the
kernel of ``A∘M`` costs one field operation per dataset, output and map entry).

>>> from pufferfish.models.files.json_io import read_json_file
>>> from pufferfish.models.parametric import add_postprocessed, parse_parametric_model
>>> from pufferfish.examples import example_path
>>> data = read_json_file(example_path("quickstart_parametric.json"), "model file")
>>> data, name = add_postprocessed(data, "sum", {"map": [[0, [["low", "1"]]], [1, [["low", "1"]]],
...                                                   [2, [["high", "1"]]], [3, [["high", "1"]]]]})
>>> model = parse_parametric_model(data).restrict({"p": "3/4"})
>>> result = symbolic_postprocess(model, "sum", name)
>>> [str(p.ratio) for p in result.before.pufferfish.pieces]
['(6*q**2 - 2*q + 4)/(-3*q**2 + 2*q + 2)']
>>> [str(p.ratio) for p in result.after.pufferfish.pieces]
['(3*q**2 - 2*q + 4)/(-3*q**2 + 2*q + 2)']
"""

from __future__ import annotations

from dataclasses import dataclass

from pufferfish.models.errors import ModelError
from pufferfish.models.kernel import DEFAULT_MAX_OUTPUTS
from pufferfish.models.parametric import ParametricModel
from pufferfish.models.universe import DEFAULT_MAX_DATASETS
from pufferfish.verify.report import Explained
from pufferfish.verify.symbolic.evaluate import SymbolicModel
from pufferfish.verify.symbolic.levels import (MechanismSymbolic, pufferfish_symbolic_level,
                                               symbolic_level)

__all__ = ["SymbolicPostprocess", "symbolic_postprocess"]


@dataclass(frozen=True, repr=False)
class SymbolicPostprocess(Explained):
    """The closed-form levels of ``M`` (``before``) and of ``A∘M`` (``after``)."""

    box: dict
    mechanism: str
    postprocessed: str
    before: MechanismSymbolic
    after: MechanismSymbolic

    def summary(self) -> str:
        return f"closed-form levels of {self.mechanism} before and after post-processing"

    def to_dict(self) -> dict:
        return {"check": "postprocess", "symbolic": True, "parameters": self.box,
                "mechanism": self.mechanism, "postprocessed": self.postprocessed, "holds": None,
                "before": self.before.to_dict(), "after": self.after.to_dict(), "notes": []}

    def explain(self, source: str = "the model") -> str:
        ranges = ", ".join(f"{n} in [{a}, {b}]" for n, (a, b) in self.box.items())
        lines = [f"Closed-form levels of {self.mechanism} in {source} before and after "
                 f"post-processing, over {ranges}"]
        for label, levels in (("before", self.before), ("after", self.after)):
            lines += [f"{label}: Pufferfish level", _indent(levels.pufferfish.explain())]
            if levels.dp is not None:
                lines += [f"{label}: DP level (entry neighbours)", _indent(levels.dp.explain())]
        lines.append("post-processing never raises either level (Bai et al., Composition for "
                     "Pufferfish Privacy, §5.2)")
        return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.splitlines())


def symbolic_postprocess(model: ParametricModel, mechanism: str, postprocessed: str,
                         max_datasets: int = DEFAULT_MAX_DATASETS,
                         max_outputs: int = DEFAULT_MAX_OUTPUTS) -> SymbolicPostprocess:
    """The closed-form Pufferfish and DP levels of ``mechanism`` and of ``postprocessed`` (a
    ``postprocess`` mechanism of ``model``, see
    :func:`pufferfish.models.parametric.add_postprocessed`)."""
    names = list(model.data.get("mechanisms") or {})
    for name, path in ((mechanism, "--mechanism"), (postprocessed, "--map")):
        if name not in names:
            raise ModelError(f"no mechanism {name!r}; the model has {', '.join(names)}", path)
    symbolic = SymbolicModel(model, max_datasets, max_outputs)
    levels = [MechanismSymbolic(name, pufferfish_symbolic_level(symbolic, name),
                                symbolic_level(symbolic, symbolic.dp_candidates(name), "DP"), None)
              for name in (mechanism, postprocessed)]
    return SymbolicPostprocess(model.box.to_dict(), mechanism, postprocessed, *levels)
