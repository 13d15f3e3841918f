"""The registry of bridge calls and the dispatcher the bridge process runs them with.

A bridge call is a function ``params -> result`` (JSON objects) registered under its method name
with :func:`handler`; ``read_only=True`` declares that it has no side effect, so the JVM shim may
resend it when the bridge process died during the call. The shim learns that set from the
``bridge_info`` call when it starts a bridge process (it keeps no list of its own).

:func:`dispatch` turns every exception into ``{"kind", "message", "traceback"}``; ``kind`` is the
exception class's ``bridge_kind`` (see ``paimon_sql.errors``), or ``Internal`` (with the traceback)
for an exception that is not a PaimonError. Engine messages pass through unchanged.
"""

from __future__ import annotations

import json
import os
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from paimon_sql.errors import INTERNAL_KIND, bridge_kind, bridge_kinds

Params = Mapping[str, Any]
Result = dict[str, Any]
Handler = Callable[[Params], Result]

WARNINGS_KEY = "_warnings"
"""A handler's result may carry warnings under this key; the bridge sends them separately."""

HANDLERS: dict[str, Handler] = {}
"""Method name -> handler: every call the bridge answers."""

READ_ONLY: set[str] = set()
"""The methods registered with ``read_only=True``."""


def handler(name: str, *, read_only: bool = False) -> Callable[[Handler], Handler]:
    """Registers the decorated function as the bridge call ``name``; ``read_only`` declares that
    it changes nothing (the shim then retries it once on a new bridge process when the process
    died during the call)."""

    def register(fn: Handler) -> Handler:
        if name in HANDLERS:
            raise RuntimeError(f"Bridge call {name!r} is registered twice ({HANDLERS[name].__module__}, {fn.__module__})")
        HANDLERS[name] = fn
        if read_only:
            READ_ONLY.add(name)
        return fn

    return register


@handler("bridge_info", read_only=True)
def bridge_info(params: Params) -> Result:
    """What the shim asks a new bridge process first: its pid and version, the read-only calls
    and the error kinds it may report."""
    from paimon_sql import __version__

    return {
        "pid": os.getpid(),
        "version": __version__,
        "read_only": sorted(READ_ONLY),
        "error_kinds": sorted(bridge_kinds()),
    }


def dispatch(method: str, params: Params) -> dict[str, Any]:
    """Runs one request; returns ``{"result": ..., "warnings": [...]}`` or ``{"error": {...}}``."""
    fn = HANDLERS.get(method)
    if fn is None:
        return {"error": {"kind": INTERNAL_KIND, "message": f"Unknown bridge method {method!r}", "traceback": None}}
    try:
        result = fn(params)
    except Exception as e:  # every failure becomes an error response, the bridge keeps serving
        kind = bridge_kind(e)
        internal = kind == INTERNAL_KIND
        tb = traceback.format_exc() if internal else None
        message = f"{type(e).__name__}: {e}" if internal else str(e)
        return {"error": {"kind": kind, "message": message, "traceback": tb}}
    warnings = result.pop(WARNINGS_KEY, None) or []
    out: dict[str, Any] = {"result": result}
    if warnings:
        out["warnings"] = [str(w) for w in warnings]
    return out


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), default=str)
