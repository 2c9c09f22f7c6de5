"""Benchmark: exact and certified arithmetic back ends for the audit and the certified logarithms.

Run as ``.venv/bin/python benchmarks/bench_numerics.py`` from the repository root (never run by CI).
python-flint and gmpy2 are optional here: a back end that is not installed is reported as skipped
(``pip install python-flint gmpy2`` to measure them).

Two questions about the one certified-arithmetic layer, each timed against the toolkit's
current implementation measured in the same run (best of ``--repeats``, ``time.perf_counter``):

(a) **The audit's inner loop.**  ``pufferfish_level`` on the ``bench_audit.py`` instance
    (``--attributes`` binary attributes, 8 outputs per dataset, 4 priors, 3 pairs) is first split
    into its stages — enumerating the priors' supports, tabulating the kernel as integers over one
    common denominator (``models/kernel.py``), the per-prior accumulation of every secret's joint
    vector (``verify/privacy/joint.py``: ``vector[o] += weight * value`` on integers), and the
    per-direction maxima — to show what dominates.  The accumulation is then repeated with the
    integers as Python ``int`` (current), ``gmpy2.mpz`` and ``flint.fmpz``, and with
    ``fractions.Fraction`` / ``gmpy2.mpq`` / ``flint.fmpq`` entries instead of integer scaling.
(b) **Certified logarithms.**  ``log_enclosure`` (one mpmath interval logarithm at 74 bits,
    outward-rounded to doubles) on ``--logs`` distinct rationals, as ``LogTable.build`` does for the
    NfC programs, against an arb ball (``flint.arb(fmpq).log()`` under ``flint.ctx.workprec``) and
    MPFR with directed rounding (``gmpy2.log`` of the rational rounded down/up, in a local context
    rounding down/up).  All three are rigorous; every enclosure is checked to contain the others'
    intersection (they must overlap) and its width is reported.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_audit import best_of, build_instance  # noqa: E402
from bench_nfc import build as build_nfc  # noqa: E402

from pufferfish.models.kernel import KernelTable, integer_weights  # noqa: E402
from pufferfish.models.model import PufferfishModel  # noqa: E402
from pufferfish.verify.numerics.intervals import float_down, float_up, log_enclosure  # noqa: E402
from pufferfish.verify.numerics.log_table import LogTable  # noqa: E402
from pufferfish.verify.privacy.joint import accumulate  # noqa: E402
from pufferfish.verify.privacy.pufferfish import pufferfish_level  # noqa: E402
from pufferfish.verify.privacy.supports import audited_datasets, prior_supports  # noqa: E402

try:
    import gmpy2
except ImportError:                      # optional back end
    gmpy2 = None
try:
    import flint
except ImportError:                      # optional back end
    flint = None


def pair_secrets_of(model: PufferfishModel) -> list:
    """The secrets of the model's pairs, once each, in order (as the audit collects them)."""
    unique: dict = {}
    for pair in model.pairs:
        for secret in (pair.first, pair.second):
            unique.setdefault(secret.name, secret)
    return list(unique.values())


def row(label: str, seconds: float | None, baseline: float, note: str = "") -> None:
    if seconds is None:
        print(f"{label:62s} {'skipped':>9s} {'':>8s}  {note}")
    else:
        print(f"{label:62s} {seconds:9.3f} {seconds / baseline:8.2f}  {note}")


# ------------------------------------------------------------------------------------------------
# (a) the audit's inner loop
# ------------------------------------------------------------------------------------------------

def accumulate_with(support, table: KernelTable, secrets, convert):
    """The accumulation of ``verify/privacy/joint.py`` with integers mapped through ``convert``
    (same loop, same bucketing by secret signature); returns each secret's joint vector."""
    weights, _ = integer_weights([p for _, p in support])
    weights = [convert(w) for w in weights]
    rows = [tuple(convert(v) for v in r) for r in table.rows]
    zero = convert(0)
    width = len(table.outputs)
    buckets: dict = {}
    for (dataset, _), weight in zip(support, weights):
        signature = tuple(k for k, s in enumerate(secrets) if s.holds(dataset))
        values = rows[table.dataset_index[dataset]]
        bucket = buckets.get(signature)
        if bucket is None:
            bucket = buckets[signature] = [zero, [zero] * width]
        bucket[0] += weight
        vector = bucket[1]
        for o, value in enumerate(values):
            if value:
                vector[o] += weight * value
    joint = {s.name: [zero] * width for s in secrets}
    for signature, (_, vector) in buckets.items():
        for k in signature:
            target = joint[secrets[k].name]
            for o, value in enumerate(vector):
                target[o] += value
    return joint


def accumulate_rationals(support, table: KernelTable, secrets, rational):
    """The same accumulation without integer scaling: ``θ(D)·P(ω|D)`` as rationals."""
    scale = table.denominator
    rows = [tuple(rational(v, scale) for v in r) for r in table.rows]
    weights = [rational(p.numerator, p.denominator) for _, p in support]
    zero = rational(0, 1)
    width = len(table.outputs)
    joint = {s.name: [zero] * width for s in secrets}
    for (dataset, _), weight in zip(support, weights):
        values = rows[table.dataset_index[dataset]]
        for s in secrets:
            if s.holds(dataset):
                target = joint[s.name]
                for o, value in enumerate(values):
                    if value:
                        target[o] += weight * value
    return joint


def audit_loop(args) -> None:
    universe, priors, secrets, pairs, mechanism = build_instance(args.attributes, 8, args.seed)
    print(f"(a) audit inner loop: {universe.size:,} datasets ({args.attributes} binary attributes), "
          f"8 outputs, {len(priors)} priors, {len(pairs)} pairs; best of {args.repeats}")

    def fresh():
        return PufferfishModel(universe, priors, secrets, pairs, {"table": mechanism})

    t_total, result = best_of(args.repeats, lambda: pufferfish_level(fresh(), mechanism))
    t_supports, _ = best_of(args.repeats, lambda: prior_supports(fresh()))
    model = fresh()
    supports = prior_supports(model)
    datasets = audited_datasets(model)
    t_table, table = best_of(args.repeats, lambda: KernelTable.build(mechanism, datasets))
    pair_secrets = pair_secrets_of(model)
    t_accumulate, _ = best_of(args.repeats, lambda: [accumulate(name, s, table, pair_secrets)
                                                     for name, s in supports.items()])
    bits = max(max(w).bit_length() for w in
               (integer_weights([p for _, p in s])[0] for s in supports.values()))
    print(f"{'stage':62s} {'seconds':>9s} {'share':>8s}")
    row("pufferfish_level, cold (everything below)", t_total, t_total)
    row("  enumerate the priors' supports (models.priors)", t_supports, t_total)
    row("  tabulate the kernel as integers (models.kernel)", t_table, t_total)
    row("  accumulate the joint vectors, Python int (privacy.joint)", t_accumulate, t_total,
        f"weights up to {bits} bits")
    row("  the rest (direction maxima, result objects)",
        max(0.0, t_total - t_supports - t_table - t_accumulate), t_total)
    print()

    name, support = max(supports.items(),
                        key=lambda item: max(integer_weights([p for _, p in item[1]])[0]))

    def integers(convert):
        return accumulate_with(support, table, pair_secrets, convert)

    t_int, reference = best_of(args.repeats, lambda: integers(int))
    print(f"accumulation for one prior ({name!r}, {len(support):,} datasets):")
    print(f"{'back end':62s} {'seconds':>9s} {'ratio':>8s}")
    row("Python int (current)", t_int, t_int)
    for label, module, convert in (("gmpy2.mpz", gmpy2, lambda: gmpy2.mpz),
                                   ("flint.fmpz", flint, lambda: flint.fmpz)):
        if module is None:
            row(label, None, t_int, "not installed")
            continue
        seconds, joint = best_of(args.repeats, lambda: integers(convert()))
        assert all([int(x) for x in joint[k]] == reference[k] for k in reference)
        row(label, seconds, t_int)
    rational_backends = [("fractions.Fraction, no integer scaling", True, Fraction),
                         ("gmpy2.mpq, no integer scaling", gmpy2, lambda a, b: gmpy2.mpq(a, b)
                          if gmpy2 else None),
                         ("flint.fmpq, no integer scaling", flint, lambda a, b: flint.fmpq(a, b)
                          if flint else None)]
    for label, module, rational in rational_backends:
        if module is None:
            row(label, None, t_int, "not installed")
            continue
        seconds, _ = best_of(max(1, args.repeats // 3),
                             lambda: accumulate_rationals(support, table, pair_secrets, rational))
        row(label, seconds, t_int)
    print(f"level: {result.epsilon}")
    print()


# ------------------------------------------------------------------------------------------------
# (b) certified logarithms
# ------------------------------------------------------------------------------------------------

def flint_log_enclosure(value: Fraction, bits: int = 64) -> tuple[float, float]:
    """Doubles ``lo <= log(value) <= hi`` from an arb ball at ``bits + 10`` bits (precision set
    with ``flint.ctx.workprec``, restored on exit)."""
    with flint.ctx.workprec(bits + 10):
        ball = flint.arb(flint.fmpq(value.numerator, value.denominator)).log()
        low_m, low_e = ball.lower().man_exp()
        high_m, high_e = ball.upper().man_exp()
    return (float_down(Fraction(int(low_m)) * Fraction(2) ** int(low_e)),
            float_up(Fraction(int(high_m)) * Fraction(2) ** int(high_e)))


def mpfr_log_enclosure(value: Fraction, bits: int = 64) -> tuple[float, float]:
    """Doubles ``lo <= log(value) <= hi`` by MPFR's correctly rounded log with directed rounding:
    ``log(round_down(value))`` rounded down, ``log(round_up(value))`` rounded up."""
    q = gmpy2.mpq(value.numerator, value.denominator)
    with gmpy2.context(precision=bits + 10, round=gmpy2.RoundDown):
        low = gmpy2.log(gmpy2.mpfr(q))
    with gmpy2.context(precision=bits + 10, round=gmpy2.RoundUp):
        high = gmpy2.log(gmpy2.mpfr(q))
    return (float_down(Fraction(*low.as_integer_ratio())),
            float_up(Fraction(*high.as_integer_ratio())))


def certified_logs(args) -> None:
    rng = random.Random(args.seed)
    values = set()
    while len(values) < args.logs:
        denominator = rng.randint(2, 1 << 20)
        values.add(Fraction(rng.randint(1, denominator - 1), denominator))
    values = sorted(values)
    print(f"(b) certified logs of {len(values):,} distinct rationals p/q in (0, 1), q <= 2^20, "
          f"64 (+10 guard) bits, outward-rounded to doubles; best of {args.repeats}")
    t_mp, reference = best_of(args.repeats, lambda: [log_enclosure(v) for v in values])
    print(f"{'back end':62s} {'seconds':>9s} {'ratio':>8s}  widest enclosure")
    widest = max(h - lo for lo, h in reference)
    row("mpmath interval (intervals.log_enclosure, current)", t_mp, t_mp, f"{widest:.2g}")
    for label, module, function in (("flint.arb ball, ctx.workprec", flint, flint_log_enclosure),
                                    ("gmpy2 MPFR, directed rounding", gmpy2, mpfr_log_enclosure)):
        if module is None:
            row(label, None, t_mp, "not installed")
            continue
        seconds, bounds = best_of(args.repeats, lambda: [function(v) for v in values])
        for (lo, hi), (rlo, rhi) in zip(bounds, reference):
            assert lo <= rhi and rlo <= hi, "enclosures that do not overlap cannot both be right"
        row(label, seconds, t_mp, f"{max(h - lo for lo, h in bounds):.2g}")
    if flint is not None:
        assert flint.ctx.prec == 53, "flint's global precision leaked"
    model, mechanism = build_nfc(200, 200)
    datasets = list(model.universe.datasets())
    outputs = sorted({o for d in datasets for o in mechanism.distribution(d).support})
    table = [[mechanism.distribution(d).prob(o) for o in outputs] for d in datasets]
    distinct = len({p for r in table for p in r})
    t_table, _ = best_of(args.repeats, lambda: LogTable.build(table))
    print(f"in context: LogTable.build on the bench_nfc.py table ({len(datasets)} × {len(outputs)}, "
          f"{distinct:,} distinct probabilities) takes {t_table:.3f} s with the current log; "
          "bench_nfc.py's whole run takes about 30 s (half of it in HiGHS)")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attributes", type=int, default=14)
    parser.add_argument("--logs", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    versions = ", ".join(f"{name} {getattr(module, '__version__', None) or module.version()}"
                         for name, module in (("python-flint", flint), ("gmpy2", gmpy2)) if module)
    print(f"optional back ends: {versions or 'none installed'}")
    print()
    audit_loop(args)
    certified_logs(args)


if __name__ == "__main__":
    main()
