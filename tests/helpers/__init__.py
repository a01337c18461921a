"""What several test files share: reference kernels, the children the Ctrl-C tests interrupt, the
mixture's failing plugins. Imported as ``helpers.<module>`` (tests/ is on sys.path)."""
