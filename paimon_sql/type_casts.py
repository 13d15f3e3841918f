"""Which type changes Paimon allows (``org.apache.paimon.types.DataTypeCasts``).

``supports_cast(source, target, allow_explicit)`` answers as Paimon's ``DataTypeCasts.supportsCast``:
implicit casts (widening: TINYINT -> INT, INT -> FLOAT, DATE -> ... ) always, explicit casts
(the SQL ``CAST`` specification: STRING -> INT, BIGINT -> INT, INT -> STRING ...) only with
``allow_explicit``. ``ALTER TABLE ... ALTER COLUMN ... TYPE`` allows a change when this holds with
``allow_explicit = not disable-explicit-type-casting`` and Paimon's ``CastExecutors`` has a rule for
the pair (``alter_cast_exists``); old files are then read through that rule (``casting.py``).
"""

from __future__ import annotations

from paimon_sql.casting import can_cast, resolves
from paimon_sql.types import TYPE_FAMILIES, DataType

_ALL_ROOTS = tuple(TYPE_FAMILIES)


def _family(*families: str) -> frozenset[str]:
    return frozenset(r for r in _ALL_ROOTS if any(f in TYPE_FAMILIES[r] for f in families))


def _roots(*roots: str) -> frozenset[str]:
    return frozenset(roots)


_TS = ("TIMESTAMP", "TIMESTAMP_LTZ")

# target root -> (implicit source roots, explicit source roots); identity is always implicit
_RULES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "CHAR": (_roots("CHAR"), _family("PREDEFINED", "CONSTRUCTED")),
    "VARCHAR": (_family("CHARACTER_STRING"), _family("PREDEFINED", "CONSTRUCTED")),
    "BOOLEAN": (_roots("BOOLEAN"), _family("CHARACTER_STRING", "INTEGER_NUMERIC")),
    "BINARY": (_roots("BINARY"), _family("CHARACTER_STRING") | _roots("VARBINARY")),
    "VARBINARY": (_family("BINARY_STRING"), _family("CHARACTER_STRING") | _roots("BINARY")),
    "DECIMAL": (_family("NUMERIC"), _family("CHARACTER_STRING") | _roots("BOOLEAN", *_TS)),
    "TINYINT": (_roots("TINYINT"), _family("NUMERIC", "CHARACTER_STRING") | _roots("BOOLEAN", *_TS)),
    "SMALLINT": (_roots("TINYINT", "SMALLINT"), _family("NUMERIC", "CHARACTER_STRING") | _roots("BOOLEAN", *_TS)),
    "INT": (_roots("TINYINT", "SMALLINT", "INT"), _family("NUMERIC", "CHARACTER_STRING") | _roots("BOOLEAN", *_TS)),
    "BIGINT": (_roots("TINYINT", "SMALLINT", "INT", "BIGINT"),
               _family("NUMERIC", "CHARACTER_STRING") | _roots("BOOLEAN", *_TS)),
    "FLOAT": (_roots("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DECIMAL"),
              _family("NUMERIC", "CHARACTER_STRING") | _roots("BOOLEAN", *_TS)),
    "DOUBLE": (_family("NUMERIC"), _family("CHARACTER_STRING") | _roots("BOOLEAN", *_TS)),
    "DATE": (_roots("DATE", "TIMESTAMP"), _family("TIMESTAMP", "CHARACTER_STRING")),
    "TIME": (_roots("TIME", "TIMESTAMP"), _family("TIME", "TIMESTAMP", "CHARACTER_STRING")),
    "TIMESTAMP": (_roots(*_TS), _family("DATETIME", "CHARACTER_STRING", "NUMERIC")),
    "TIMESTAMP_LTZ": (_roots(*_TS), _family("DATETIME", "CHARACTER_STRING", "NUMERIC")),
}


def supports_cast(source: DataType, target: DataType, allow_explicit: bool) -> bool:
    """Paimon's ``DataTypeCasts.supportsCast``: a nullable source never casts to a NOT NULL target
    implicitly; types equal but for nullability always cast; otherwise by the type roots."""
    if source.nullable and not target.nullable and not allow_explicit:
        return False
    if source.copy(True) == target.copy(True):
        return True
    if source.root == target.root:
        return True  # every root casts implicitly to itself (lengths and precisions are not compared)
    implicit, explicit = _RULES.get(target.root, (frozenset(), frozenset()))
    if source.root in implicit:
        return True
    return allow_explicit and source.root in explicit


def alter_cast_exists(source: DataType, target: DataType) -> bool:
    """Whether Paimon's ``CastExecutors.resolve`` finds a rule for the pair: the read-side casts of
    ``casting.py`` minus the nested ROW / ARRAY / MAP -> same-kind rules, which only Paimon's
    schema-evolution reader applies (CastExecutors has none: ALTER refuses such a change); a rule
    without an executor for the pair (TINYINT -> TIMESTAMP) does not count either."""
    return resolves(source, target, nested=False) and can_cast(source, target)


def explain(source: DataType, target: DataType, column: str) -> str:
    """Paimon's refusal of a type change (SchemaManager's checkState message)."""
    return (f"Column type {column}[{source.to_string()}] cannot be converted to {target.to_string()} "
            "without losing information.")

