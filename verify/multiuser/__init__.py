"""Multi-user Pufferfish privacy and its calibrators (``001_3a97785a86d61e37.txt``)."""
