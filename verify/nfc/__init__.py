"""No-free-composition: Theorem 4's linear programs and duals, constructive composition attacks
and post-processing invariance (Bai et al., Composition for Pufferfish Privacy, §5)."""
