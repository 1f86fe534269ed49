"""ScalePool-HIL reference models (pure Python, written from the spec text)."""
