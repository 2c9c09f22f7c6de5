"""The ``pufferfish`` command line: one module per group of subcommands, a thin shell over the
library (parse, call, print, exit status).  It is the only importer of :mod:`pufferfish.proofs_check`."""
