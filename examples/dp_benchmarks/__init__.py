"""The differential-privacy verification benchmark as programs (Sparse Vector variants of Lyu, Su
and Li, VLDB 2017, and report-noisy-max), each with a model file at the canonical size:
``pufferfish.examples.example_path("dp_benchmarks/svt1.json")``; docs/programs.md."""
