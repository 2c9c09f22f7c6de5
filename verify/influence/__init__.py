"""a(b)-influence curves, DP→Pufferfish translation and composition, and the Pufferfish Laplace
and exponential mechanisms (``000_65109fe28ca61d17.txt`` §6)."""
