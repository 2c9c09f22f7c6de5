"""A mechanism's kernel tabulated over a list of datasets, as integers over one denominator.

Audits read ``Pr[M(D) = ω]`` for every dataset ``D`` and output ω many times.  Doing that with
``Fraction`` arithmetic costs a gcd per operation; instead the table is stored as integers
``rows[d][o] = Pr[M(D_d) = ω_o] · denominator`` with ``denominator`` the least common multiple of
all the probabilities' denominators.  A mechanism whose probabilities are exact numbers of
``Q(e^(1/n))`` (programs with Laplace noise:
:class:`~pufferfish.models.programs.exp_numbers.ExpNumber`) is tabulated with those numbers
themselves and denominator 1: the audits' sums, products and comparisons are then exact field
operations and certified signs.  Ratios of kernel entries are ratios of these integers (the
common denominator cancels), and sums weighted by an integer-scaled prior stay integers, so an
audit is exact integer arithmetic.  Building the table is one pass over the kernel.

The limit on outputs (``--max-outputs``) is checked twice: first from the mechanism's structure
alone (:meth:`~pufferfish.models.mechanisms.Mechanism.support_size`, before any distribution is
built: ``repeat`` 10^9 times or a geometric range of 10^8 values is refused at once, with its
size), then on the union of the outputs over all datasets while they are collected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from pufferfish.models.enclosures import Enclosure
from pufferfish.models.errors import TooLargeError
from pufferfish.models.mechanisms import Mechanism, Output
from pufferfish.models.numbers import exact_ratio
from pufferfish.models.universe import Dataset

DEFAULT_MAX_OUTPUTS = 10**6


@dataclass(frozen=True)
class KernelTable:
    """``rows[d][o] / denominator = Pr[M(datasets[d]) = outputs[o]]``."""

    mechanism: Mechanism
    datasets: tuple[Dataset, ...]
    dataset_index: dict
    outputs: tuple[Output, ...]
    output_index: dict
    rows: tuple[tuple[int, ...], ...]
    denominator: int
    transcendental: bool = False
    """Whether the rows hold exact numbers of ``Q(e^(1/n))`` or certified enclosures
    (denominator 1) instead of integers."""
    enclosed: bool = False
    """Whether some probability is a certified :class:`~pufferfish.models.enclosures.Enclosure`
    (a program with Gaussian noise), not an exact number."""

    @classmethod
    def build(cls, mechanism: Mechanism, datasets: Sequence[Dataset],
              max_outputs: int = DEFAULT_MAX_OUTPUTS) -> "KernelTable":
        """Tabulate ``mechanism`` on ``datasets``:
        ``O(|datasets| + Σ_K |supp M(K)| + K·|outputs|)`` for the K distinct distributions
        (datasets with the same :meth:`~pufferfish.models.mechanisms.Mechanism.kernel_key` share
        one distribution and one row object, so memory is ``O(|datasets| + K·|outputs|)``)."""
        datasets = tuple(datasets)
        for dataset in datasets:
            mechanism.support_size(dataset, max_outputs)
        distributions = [mechanism.distribution(d) for d in datasets]
        distinct = list({id(dist): dist for dist in distributions}.values())
        output_index: dict = {}
        denominators = set()
        transcendental = enclosed = False
        for dist in distinct:
            for output, p in dist.items():
                if output not in output_index:
                    output_index[output] = len(output_index)
                    if len(output_index) > max_outputs:
                        raise TooLargeError(
                            f"mechanism {mechanism.name!r} has more than {max_outputs:,} outputs "
                            f"on these datasets; raise the limit with --max-outputs",
                            f"mechanisms.{mechanism.name}")
                if isinstance(p, Fraction):
                    denominators.add(p.denominator)
                elif isinstance(p, Enclosure):
                    transcendental = enclosed = True
                else:  # an exact number of Q(e^(1/n)): the table keeps the numbers themselves
                    transcendental = True
        denominator = lcm(*denominators) if denominators and not transcendental else 1
        width = len(output_index)
        row_of: dict[int, tuple[int, ...]] = {}
        for dist in distinct:
            row = [0] * width
            for output, p in dist.items():
                row[output_index[output]] = (p if transcendental else
                                             p.numerator * (denominator // p.denominator))
            row_of[id(dist)] = tuple(row)
        return cls(mechanism, datasets, {d: k for k, d in enumerate(datasets)},
                   tuple(output_index), output_index,
                   tuple(row_of[id(dist)] for dist in distributions), denominator, transcendental,
                   enclosed)

    def ratio_test(self):
        """``None`` when the rows are integers (a scan compares ``a·d > n·b`` inline), else the
        exact test of ``a·d > n·b`` for numbers of ``Q(e^(1/n))`` that decides most comparisons
        on their balls (:func:`~pufferfish.models.programs.exp_numbers.product_exceeds`).
        Certified enclosures are compared by the certified scans, not here."""
        if not self.transcendental or self.enclosed:
            return None
        from pufferfish.models.programs.exp_numbers import product_exceeds
        return product_exceeds

    def prob(self, dataset: Dataset, output: Output) -> Fraction:
        """``Pr[M(dataset) = output]`` as a Fraction."""
        o = self.output_index.get(output)
        if o is None:
            return Fraction(0)
        return exact_ratio(self.rows[self.dataset_index[dataset]][o], self.denominator)


def integer_weights(weights: Sequence[Fraction]) -> tuple[list[int], int]:
    """Scale rationals to integers over their least common denominator: ``(ints, denominator)``."""
    denominator = lcm(*(w.denominator for w in weights)) if weights else 1
    return [w.numerator * (denominator // w.denominator) for w in weights], denominator
