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
from collections.abc import Callable, Mapping, MutableMapping
from types import ModuleType
from typing import Any

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


def lazy_attributes(
    module_name: str, homes: Mapping[str, str], namespace: MutableMapping[str, Any],
) -> Callable[[str], Any]:
    """A module ``__getattr__`` (PEP 562) for names imported on first use: ``homes`` maps each
    name to the module that defines it; the value read is kept in ``namespace`` (the module's
    globals), so later reads do not come here again::

        __getattr__ = lazy_attributes(__name__, {"Table": "paimon_sql.table.table"}, globals())
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__

