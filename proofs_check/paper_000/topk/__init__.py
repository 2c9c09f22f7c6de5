"""The Top-K experiments of Bai et al., Composition for Pufferfish Privacy, §7 and Appendix D: data
(synthetic sequences and the real-data loaders), the fitted prior, the four mechanisms, metrics and
the runner."""
