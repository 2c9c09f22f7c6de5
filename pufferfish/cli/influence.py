"""Command-line subcommands ``influence`` and ``translate``, and the curve file format.

Source: ``000_65109fe28ca61d17.txt`` §6 (Definition 7, Theorems 6–7).

``pufferfish influence MODEL [--secret-pair FIRST,SECOND] [--max-b B] [--method auto|brute|chain]
[--plot FILE] [--save-curve FILE]`` prints the exact a(b)-influence curve of the model's priors and
secret pairs with the minimising split of every point, optionally plots it and saves it as a curve
file.  ``pufferfish translate --curve FILE (--epsilon-puffer E [--rule theorem|algorithm] |
--epsilon-dp E)`` applies Theorem 6 in either direction.

**Curve file** (JSON, version 1)::

    {"influence_curve": 1,
     "entries": 5,                       # |I|, optional (needed by --rule algorithm)
     "numerical": false,                 # true when the a values are numerical estimates
     "description": "...",               # optional
     "points": [{"b": 0, "a": "inf"}, {"b": 1, "a": "log(9/2)"}, {"b": 2, "a": "0.25"}]}

``a`` is ``"inf"``, ``"log(r)"`` with ``r >= 1`` rational, or a non-negative rational written as
an integer, ``"3/8"`` or ``"0.125"`` (exact); floats are refused.  ``b`` are distinct integers
``>= 0``.  Errors name the JSON path.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pufferfish.models.errors import ModelError
from pufferfish.models.numbers import INFINITY, epsilon_float
from pufferfish.verify.report import EXIT_OK, Progress, emit, table, verdict, write_json_atomically
from pufferfish.verify.influence.translation import CurvePoint, LogValue

CURVE_FILE_VERSION = 1


def read_curve_file(path: str) -> tuple[list[CurvePoint], int | None, bool]:
    """Read and validate a curve file: ``(points, entries or None, numerical)``."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ModelError(f"cannot read the curve file: {error.strerror}", str(path)) from None
    try:
        data = json.loads(text, parse_float=lambda s: float(s))
    except json.JSONDecodeError as error:
        raise ModelError(f"not valid JSON: {error.msg} at line {error.lineno}", str(path)) from None
    return parse_curve(data)


def parse_curve(data: object) -> tuple[list[CurvePoint], int | None, bool]:
    """Validate a curve document (see the module) with JSON paths in every error."""
    if not isinstance(data, dict):
        raise ModelError("a curve file is a JSON object", "$")
    version = data.get("influence_curve")
    if version != CURVE_FILE_VERSION:
        raise ModelError(f"expected \"influence_curve\": {CURVE_FILE_VERSION}, got {version!r}",
                         "influence_curve")
    unknown = set(data) - {"influence_curve", "entries", "numerical", "description", "points"}
    if unknown:
        raise ModelError(f"unknown key(s) {sorted(unknown)}", sorted(unknown)[0])
    entries = data.get("entries")
    if entries is not None and (not isinstance(entries, int) or isinstance(entries, bool)
                                or entries < 1):
        raise ModelError("entries must be a positive integer", "entries")
    numerical = data.get("numerical", False)
    if not isinstance(numerical, bool):
        raise ModelError("numerical must be true or false", "numerical")
    raw = data.get("points")
    if not isinstance(raw, list) or not raw:
        raise ModelError("points must be a non-empty list", "points")
    points, seen = [], set()
    for k, item in enumerate(raw):
        path = f"points.{k}"
        if not isinstance(item, dict) or set(item) != {"b", "a"}:
            raise ModelError("a point is an object with exactly the keys \"b\" and \"a\"", path)
        b = item["b"]
        if not isinstance(b, int) or isinstance(b, bool) or b < 0:
            raise ModelError(f"b must be an integer >= 0, got {b!r}", f"{path}.b")
        if b in seen:
            raise ModelError(f"b = {b} is listed twice", f"{path}.b")
        seen.add(b)
        a = LogValue.parse(item["a"], f"{path}.a")
        if numerical:
            a = LogValue(a.q, a.r, a.d, True)
        points.append(CurvePoint(b, a))
    return points, entries, numerical


def curve_document(curve, description: str = "") -> dict:
    """The curve file for an :class:`pufferfish.verify.influence.curves.InfluenceCurve` (exact values)."""
    return {"influence_curve": CURVE_FILE_VERSION, "entries": curve.entries, "numerical": False,
            "description": description or f"a(b)-influence curve ({curve.method})",
            "points": [{"b": p.b, "a": p.epsilon} for p in curve.points]}


def add_parser(subparsers, common) -> None:
    """Register ``influence`` and ``translate``."""
    influence = subparsers.add_parser(
        "influence", help="exact a(b)-influence curve of a model (000_65109fe28ca61d17.txt §6, "
        "Definition 7)")
    influence.add_argument("model", help="model file (JSON)")
    influence.add_argument("--secret-pair", metavar="FIRST,SECOND",
                           help="only this pair of the model's secrets (both directions)")
    influence.add_argument("--max-b", type=int, help="largest b (default: the number of entries)")
    influence.add_argument("--method", choices=["auto", "brute", "chain"], default="auto",
                           help="brute force over splits, structured Markov chain, or auto "
                                "(chain when every prior is a chain and secrets are entries)")
    influence.add_argument("--plot", metavar="FILE", help="plot the curve (.png/.svg/.pdf)")
    influence.add_argument("--save-curve", metavar="FILE", help="write a curve file for translate")
    common(influence)
    influence.set_defaults(handler=run_influence)

    translate = subparsers.add_parser(
        "translate", help="Theorem 6: largest ε_DP for an ε_puffer, or ε_puffer of an ε_DP")
    translate.add_argument("--curve", metavar="FILE", required=True, help="curve file (JSON)")
    group = translate.add_mutually_exclusive_group(required=True)
    group.add_argument("--epsilon-puffer", metavar="E", help="target ε_puffer: 1, 1/2, log(3) ...")
    group.add_argument("--epsilon-dp", metavar="E", help="per-entry ε_DP of a mechanism")
    translate.add_argument("--rule", choices=["theorem", "algorithm"], default="theorem",
                           help="theorem: best point; algorithm: Algorithms 1–2 literally (min)")
    common(translate)
    translate.set_defaults(handler=run_translate)

    figures = subparsers.add_parser(
        "influence-figures", help="regenerate Figure 2(a) (exact, binary chains of Example 6.1) "
        "and Figure 2(b) (numerical, Example 6.2) as PNG files")
    figures.add_argument("--out", metavar="DIR", default=".", help="output folder (default: .)")
    common(figures)
    figures.set_defaults(handler=run_figures)


def run_figures(args: argparse.Namespace) -> int:
    """Write figure_2a.png and figure_2b.png into ``--out`` and print what was plotted."""
    from pathlib import Path

    from pufferfish.proofs_check.paper_000.figures import figure_2a, figure_2b
    from pufferfish.verify.report import EXIT_OK, emit

    folder = Path(args.out)
    if not folder.is_dir():
        raise ModelError(f"{args.out!r} is not a folder", "--out")
    first = figure_2a(str(folder / "figure_2a.png"))
    second = figure_2b(str(folder / "figure_2b.png"))
    data = {"figure_2a": {"file": str(folder / "figure_2a.png"), "curves": first},
            "figure_2b": {"file": str(folder / "figure_2b.png"), "curves": second,
                          "numerical": True}}
    emit(args, data, f"wrote {folder / 'figure_2a.png'} (exact a(b) of {len(first)} binary "
                     f"chains) and {folder / 'figure_2b.png'} ({len(second)} values of ℓ, "
                     f"numerical)")
    return EXIT_OK


def _select_pairs(model, text: str | None):
    if text is None:
        return None
    from pufferfish.models.secrets import SecretPair

    names = [t.strip() for t in text.split(",")]
    if len(names) != 2:
        raise ModelError("give the pair as FIRST,SECOND (two secret names)", "--secret-pair")
    for name in names:
        if name not in model.secrets:
            raise ModelError(f"unknown secret {name!r}; the model has {sorted(model.secrets)}",
                             "--secret-pair")
    return [SecretPair(model.secrets[names[0]], model.secrets[names[1]])]


def compute_curve(model, pairs, max_b, method: str, progress=None):
    """Dispatch to the structured chain computation or the brute force."""
    from pufferfish.models.errors import UnsupportedError
    from pufferfish.verify.influence.chains import chain_influence_curve
    from pufferfish.verify.influence.curves import influence_curve

    if method in ("auto", "chain"):
        try:
            return chain_influence_curve(model, pairs, max_b, progress)
        except UnsupportedError:
            if method == "chain":
                raise
    return influence_curve(model, pairs, max_b, progress)


def run_influence(args: argparse.Namespace) -> int:
    from pufferfish.models.files.pufferfish_file import load_model

    model = load_model(args.model, max_datasets=args.max_datasets)
    if args.max_b is not None and args.max_b < 0:
        raise ModelError("--max-b must be >= 0", "--max-b")
    pairs = _select_pairs(model, args.secret_pair)
    bar = Progress(100, "influence")

    def progress(done: int, total: int, what: str) -> None:
        if bar.enabled and total:
            bar.done = max(0, 100 * done // total - 1)
            bar.step(what)

    curve = compute_curve(model, pairs, args.max_b, args.method, progress)
    bar.close()
    if args.plot:
        from pufferfish.proofs_check.paper_000.figures import plot_influence_curve

        plot_influence_curve(curve, args.plot, f"a(b)-influence curve of {Path(args.model).name}")
    if args.save_curve:
        write_json_atomically(curve_document(curve, f"a(b)-influence curve of {args.model}"),
                              args.save_curve)
    rows = []
    for p in curve.points:
        value = "" if p.max_ratio in (INFINITY,) else f"{epsilon_float(p.max_ratio):.6g}"
        high = (f"{p.high[0]}..{p.high[-1]}" if len(p.high) > 6 else
                ",".join(model.universe.attributes[i] for i in p.high)) or "-"
        worst = ", ".join(f"{model.universe.attributes[i]}={v}" for i, v in (p.low_values or ()))
        rows.append([p.b, p.epsilon, value, p.pair, high, worst or "-"])
    text = (f"a(b)-influence curve ({curve.method}), |I| = {curve.entries}\n"
            + table(["b", "a(b)", "≈", "worst pair", "H", "worst D_L"], rows))
    emit(args, curve.to_dict(), text)
    return EXIT_OK


def run_translate(args: argparse.Namespace) -> int:
    from pufferfish.verify.influence.translation import epsilon_dp_for, epsilon_puffer_for

    points, entries, numerical = read_curve_file(args.curve)
    note = "\n(the curve is numerical: the translation is only as good as its a values)" \
        if numerical else ""
    if args.epsilon_puffer is not None:
        target = LogValue.parse(args.epsilon_puffer, "--epsilon-puffer")
        choice = epsilon_dp_for(target, points, entries, args.rule)
        rows = [[pt.b, pt.a.text, e.text if e else "unusable (a >= ε_puffer)",
                 f"{e.to_float():.6g}" if e else ""] for pt, e in choice.candidates]
        text = (choice.explain() + "\n" + table(["b", "a", "ε_DP = (ε_puffer − a)/b", "≈"], rows)
                + note)
        emit(args, {**choice.to_dict(), "numerical_curve": numerical}, text)
        return verdict(choice.holds)
    eps_dp = LogValue.parse(args.epsilon_dp, "--epsilon-dp")
    result = epsilon_puffer_for(eps_dp, points)
    rows = [[pt.b, pt.a.text, e.text, f"{e.to_float():.6g}"] for pt, e in result.candidates]
    text = result.explain() + "\n" + table(["b", "a", "b·ε_DP + a", "≈"], rows) + note
    emit(args, {**result.to_dict(), "numerical_curve": numerical}, text)
    return verdict(result.holds)
