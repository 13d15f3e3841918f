"""Procedures (``CALL sys.<name>(...)``): each declared by ``@procedure`` next to its function (the
modules below), dispatched by name.

``PROCEDURES`` maps a name to its ``Procedure`` (parameters, output columns, description, function
``fn(catalog, args)``, ``args`` the decoded ``ProcedureArgs``);
``call_procedure(catalog, name, args)`` runs one and returns a ``ProcedureResult``.
"""

from __future__ import annotations

from paimon_sql.procedures import builtin as _builtin  # noqa: F401 - registers the procedures
from paimon_sql.procedures import compaction as _compaction  # noqa: F401
from paimon_sql.procedures import consumers as _consumers  # noqa: F401
from paimon_sql.procedures import files as _files  # noqa: F401
from paimon_sql.procedures import partitions as _partitions  # noqa: F401
from paimon_sql.procedures import tag_ddl as _tag_ddl  # noqa: F401
from paimon_sql.procedures import tag_expiry as _tag_expiry  # noqa: F401
from paimon_sql.procedures.registry import (
    PARAM_TYPES,
    PROCEDURES,
    Procedure,
    ProcedureArgs,
    ProcedureParam,
    ProcedureResult,
    call_procedure,
    decode_args,
    get_procedure,
    optional,
    procedure,
    register,
    required,
)

__all__ = [
    "PARAM_TYPES",
    "PROCEDURES",
    "Procedure",
    "ProcedureArgs",
    "ProcedureParam",
    "ProcedureResult",
    "call_procedure",
    "decode_args",
    "get_procedure",
    "optional",
    "procedure",
    "register",
    "required",
]
