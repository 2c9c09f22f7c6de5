"""a(b)-influence curves, DP→Pufferfish translation and composition, and the Pufferfish Laplace
and exponential mechanisms (Bai et al., Composition for Pufferfish Privacy, §6)."""
