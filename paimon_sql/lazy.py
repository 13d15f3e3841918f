"""Modules imported on first use: a statement pays only for the engine parts it runs.

Spark starts a fresh Python process for each step of a statement (the data source lookup, the
write planning, every task's worker, the commit), and the bridge process answers the first
statement of a shell; each imports what its entry module imports. :func:`lazy_module` binds a
module name now and runs the module's code when one of its attributes is first read, so a facade
such as ``Table`` can name every operation module without importing them all.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from types import ModuleType

_LOCK = threading.Lock()


def lazy_module(name: str) -> ModuleType:
    """The module ``name``, imported when first used (at once if it is already imported).

    Use it under ``if not TYPE_CHECKING`` next to the plain import for the type checker::

        if TYPE_CHECKING:
            from paimon_sql.ops import alter as alter_ops
        else:
            alter_ops = lazy_module("paimon_sql.ops.alter")
    """
    with _LOCK:
        module = sys.modules.get(name)
        if module is not None:
            return module
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        loader = importlib.util.LazyLoader(spec.loader)
        spec.loader = loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        loader.exec_module(module)
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(importlib.import_module(parent), child, module)
        return module


def is_loaded(name: str) -> bool:
    """Whether the code of module ``name`` has run (a lazy module not yet used has not)."""
    module = sys.modules.get(name)
    # a lazy module's class is importlib's _LazyModule until its code has run
    return module is not None and type(module).__name__ != "_LazyModule"
