"""The privacy definitions on finite models and the model audit: Pufferfish (Definition 5), DP
(Definitions 1–3), leakage (Definition 4), composition of joint releases, expected runs to reveal
(Bai et al., Composition for Pufferfish Privacy, §2–4)."""
