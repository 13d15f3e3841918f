"""Helpers to spell Avro schemas the way Paimon's Java writer does (record names, nullable unions)."""

from __future__ import annotations

from typing import Any

RECORD_NS = "org.apache.paimon.avro.generated.record"


def nullable(avro_type: Any) -> list[Any]:
    return ["null", avro_type]


def opt(name: str, avro_type: Any) -> dict[str, Any]:
    """A nullable field with a null default (how Paimon writes every nullable column)."""
    return {"name": name, "type": nullable(avro_type), "default": None}


def req(name: str, avro_type: Any) -> dict[str, Any]:
    return {"name": name, "type": avro_type}


def simple_stats_record(full_name: str) -> dict[str, Any]:
    return {
        "type": "record",
        "name": full_name,
        "fields": [
            req("_MIN_VALUES", "bytes"),
            req("_MAX_VALUES", "bytes"),
            opt("_NULL_COUNTS", {"type": "array", "items": ["null", "long"]}),
        ],
    }
