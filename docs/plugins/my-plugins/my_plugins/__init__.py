"""The example plugin distribution of the documentation: one module per hook, each declared as
an entry point of the ``largemargin`` group in pyproject.toml."""
