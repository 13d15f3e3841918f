"""Shared test helpers (models, canonical rows, pypaimon I/O, wheel installs), imported as
``tests.helpers.<module>`` (pytest runs with --import-mode=importlib)."""
