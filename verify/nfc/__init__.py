"""No-free-composition: Theorem 4's linear programs and duals, constructive composition attacks
and post-processing invariance (``000_65109fe28ca61d17.txt`` §5)."""
