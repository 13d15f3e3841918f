"""``schema/schema-<id>``: a table's schema, one immutable JSON file per version."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from paimon_sql.errors import CorruptFileError, ValidationError
from paimon_sql.types import DataField, RowType, data_field_to_json, parse_data_field

CURRENT_VERSION = 3


@dataclass(frozen=True)
class TableSchema:
    id: int
    fields: tuple[DataField, ...]
    highest_field_id: int
    partition_keys: tuple[str, ...] = ()
    primary_keys: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)
    comment: str | None = None
    time_millis: int = 0
    version: int = CURRENT_VERSION

    # -- derived views ---------------------------------------------------------------------------
    @property
    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def field(self, name: str) -> DataField:
        for f in self.fields:
            if f.name == name:
                return f
        raise ValidationError(f"Column {name!r} does not exist; columns are {self.field_names}")

    def field_by_id(self) -> dict[int, DataField]:
        return {f.id: f for f in self.fields}

    @property
    def row_type(self) -> RowType:
        return RowType(tuple(self.fields))

    @property
    def trimmed_primary_keys(self) -> list[str]:
        """The primary key minus the partition columns: what ``_KEY_*`` columns hold."""
        pks = [k for k in self.primary_keys if k not in self.partition_keys]
        if self.primary_keys and not pks:
            raise ValidationError(
                f"Primary key {list(self.primary_keys)} must not consist of partition columns only"
            )
        return pks

    @property
    def bucket_keys(self) -> list[str]:
        raw = self.options.get("bucket-key")
        if raw:
            return [k.strip() for k in raw.split(",") if k.strip()]
        if self.primary_keys:
            return self.trimmed_primary_keys
        return []

    def fields_of(self, names: list[str]) -> list[DataField]:
        return [self.field(n) for n in names]

    # -- JSON ------------------------------------------------------------------------------------
    def to_json(self) -> str:
        obj: dict[str, Any] = {
            "version": self.version,
            "id": self.id,
            "fields": [data_field_to_json(f) for f in self.fields],
            "highestFieldId": self.highest_field_id,
            "partitionKeys": list(self.partition_keys),
            "primaryKeys": list(self.primary_keys),
            "options": dict(self.options),
        }
        if self.comment is not None:
            obj["comment"] = self.comment
        obj["timeMillis"] = self.time_millis
        return json.dumps(obj, indent=2, separators=(",", " : "))

    @staticmethod
    def from_json(text: str, path: str = "<schema>") -> TableSchema:
        try:
            obj = json.loads(text)
            fields = tuple(parse_data_field(f) for f in obj["fields"])
            version = int(obj.get("version", 1))
            options = {str(k): str(v) for k, v in (obj.get("options") or {}).items()}
            if version <= 1:
                # Paimon 0.7 schemas: 'bucket' defaulted to 1 when absent (see TableSchema.PAIMON_07_VERSION)
                options.setdefault("bucket", "1")
            if version <= 2:
                # before version 3 the default file format was orc
                options.setdefault("file.format", "orc")
            return TableSchema(
                id=int(obj["id"]),
                fields=fields,
                highest_field_id=int(obj["highestFieldId"]),
                partition_keys=tuple(obj.get("partitionKeys") or ()),
                primary_keys=tuple(obj.get("primaryKeys") or ()),
                options=options,
                comment=obj.get("comment"),
                time_millis=int(obj.get("timeMillis") or 0),
                version=version,
            )
        except CorruptFileError:
            raise
        except (KeyError, TypeError, ValueError) as e:
            raise CorruptFileError(f"Corrupt schema file {path}: {e}") from e

    @staticmethod
    def now_ms() -> int:
        return int(time.time() * 1000)
