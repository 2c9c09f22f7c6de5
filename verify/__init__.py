"""The verbs of the toolkit: checks and calculators that take models and return frozen results
with witnesses and certificates.  One subpackage per concept (see :doc:`/design`)."""
