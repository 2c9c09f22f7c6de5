"""The Top-K experiments of ``000_65109fe28ca61d17.txt`` §7 and Appendix D: data (synthetic
sequences and the real-data loaders), the fitted prior, the four mechanisms, metrics and the runner."""
