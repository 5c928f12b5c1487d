"""Models, hooks and experiments (torch + transformers, imported lazily)."""
