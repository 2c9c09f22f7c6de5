"""Mechanisms written as Python programs with exact random choices.

A privacy engineer writes the algorithm as its pseudo-code reads — draws, branches, loops,
comparisons of noisy values — and the toolkit computes its exact output law per dataset
(:func:`program_distribution`), which every analysis then reads like any other mechanism
(:class:`~pufferfish.models.programs.mechanism.ProgramMechanism`).  The semantics, what is exact
and what is refused are stated in :mod:`pufferfish.models.programs.enumerate`; :doc:`/programs`
is the user's guide.

>>> from pufferfish.models.programs import geometric, program_distribution
>>> def above_threshold(data):
...     noisy_threshold = 1 + geometric("1/2")
...     return [data[i] + geometric("1/2") >= noisy_threshold for i in range(len(data))]
>>> law = program_distribution(above_threshold, (0, 2))
>>> law.prob([False, True])
Fraction(...)
"""

from pufferfish.models.programs.enumerate import (DEFAULT_MAX_DEPTH, DEFAULT_MAX_RUNS,
                                                  DEFAULT_MAX_STEPS, EngineError, Noisy,
                                                  ProgramError, choice, coin, discrete_laplace,
                                                  exponential, exponential_mechanism, geometric,
                                                  laplace, one_sided_geometric,
                                                  program_distribution, uniform)
from pufferfish.models.programs.exp_numbers import ExpNumber
from pufferfish.models.programs.gaussian import discrete_gaussian, gaussian
from pufferfish.models.programs.noise import EPSILON, EpsilonSymbol
from pufferfish.models.programs.mechanism import ProgramFile, ProgramMechanism, load_program
from pufferfish.models.programs.sandbox import Limits

__all__ = ["coin", "choice", "uniform", "exponential_mechanism", "geometric",
           "one_sided_geometric", "discrete_laplace", "laplace", "exponential", "gaussian",
           "discrete_gaussian", "ExpNumber",
           "EPSILON", "EpsilonSymbol",
           "Noisy", "ProgramError", "program_distribution", "EngineError", "ProgramMechanism",
           "ProgramFile", "load_program", "Limits", "DEFAULT_MAX_STEPS", "DEFAULT_MAX_RUNS",
           "DEFAULT_MAX_DEPTH"]
