"""Every Paimon table option by key, collected from the declarations of the area modules."""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

from paimon_sql.options import formats, layout, lifecycle, merge, scan, write
from paimon_sql.options.option import Family, Option

AREAS: tuple[ModuleType, ...] = (layout, merge, formats, write, scan, lifecycle)
"""The modules declaring options; families match in this order (then in declaration order)."""


def _collect() -> tuple[dict[str, Option[Any]], list[tuple[re.Pattern[str], Option[Any]]]]:
    options: dict[str, Option[Any]] = {}
    families: list[Family[Any]] = []
    for module in AREAS:
        declared = [v for v in vars(module).values() if isinstance(v, (Option, Family))]
        declared += getattr(module, "_KEPT", ())
        for v in declared:
            if isinstance(v, Family):
                if not any(v is f for f in families):
                    families.append(v)
                continue
            other = options.get(v.key)
            if other is v:
                continue  # imported by a later area module
            if other is not None:
                raise ValueError(f"option {v.key} defined twice")
            options[v.key] = v
    return options, [(f.regex, f.option) for f in families]


OPTIONS: dict[str, Option[Any]]
PATTERNS: list[tuple[re.Pattern[str], Option[Any]]]
OPTIONS, PATTERNS = _collect()
"""``OPTIONS``: every Paimon table option by key (``used`` = interpreted by paimon_sql).
``PATTERNS``: option families, (full-match regex, definition)."""

_FALLBACKS: dict[str, Option[Any]] = {fk: d for d in OPTIONS.values() for fk in d.fallback_keys}


def option_def(key: str) -> Option[Any] | None:
    """The definition of ``key``: a registered key, a fallback key, or a pattern; None if unknown."""
    d = OPTIONS.get(key)
    if d is not None:
        return d
    d = _FALLBACKS.get(key)
    if d is not None:
        return d
    for regex, pd in PATTERNS:
        if regex.fullmatch(key):
            return pd
    return None


def is_table_option(key: str) -> bool:
    """Whether ``key`` is a Paimon table option (a known key or an option family such as
    ``fields.<name>.aggregate-function``), as opposed to a data-source or unknown key."""
    return option_def(key) is not None
