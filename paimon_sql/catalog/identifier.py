"""Table identifiers: ``db.table`` (``table`` alone means database ``default``)."""

from __future__ import annotations

from dataclasses import dataclass

from paimon_sql.errors import UnsupportedError, ValidationError

DEFAULT_DATABASE = "default"
SYSTEM_TABLE_SPLITTER = "$"


@dataclass(frozen=True)
class Identifier:
    database: str
    table: str

    @staticmethod
    def parse(identifier: str | tuple[str, str] | Identifier) -> Identifier:
        if isinstance(identifier, Identifier):
            return identifier
        if isinstance(identifier, tuple):
            db, t = identifier
        else:
            if not isinstance(identifier, str) or not identifier.strip():
                raise ValidationError(f"Invalid table identifier {identifier!r}")
            parts = identifier.strip().split(".")
            if len(parts) == 1:
                db, t = DEFAULT_DATABASE, parts[0]
            elif len(parts) == 2:
                db, t = parts
            else:
                raise ValidationError(f"Invalid table identifier {identifier!r}: expected 'database.table'")
        db, t = db.strip("`"), t.strip("`")
        if not db or not t:
            raise ValidationError(f"Invalid table identifier {identifier!r}")
        return Identifier(db, t)

    def check_not_system(self) -> None:
        if SYSTEM_TABLE_SPLITTER in self.table:
            raise UnsupportedError(
                f"System tables and branches ({self.full_name}) are not supported by this API yet"
            )

    @property
    def full_name(self) -> str:
        return f"{self.database}.{self.table}"

    def __str__(self) -> str:
        return self.full_name
