"""Table identifiers: ``db.table`` (``table`` alone means database ``default``)."""

from __future__ import annotations

from dataclasses import dataclass

from paimon_sql.errors import ValidationError
from paimon_sql.names import SYSTEM_TABLE_SPLITTER, check_name

DEFAULT_DATABASE = "default"
SYSTEM_DATABASE = "sys"
"""Paimon's database of the global system tables (``sys.tables``, ...; no folder, no user tables)."""


BRANCH_PREFIX = "branch_"


@dataclass(frozen=True)
class Identifier:
    """``db.table``, optionally ``db.table$branch_<b>`` and/or ``db.table$<system table>``."""

    database: str
    table: str
    branch: str | None = None
    system_table: str | None = None

    def __post_init__(self) -> None:
        # every Identifier holds safe names, however it was made (parse, tuple, constructor)
        check_name("database", self.database)
        check_name("table", self.table, f"database {self.database}")
        where = f"table {self.database}.{self.table}"
        if self.branch is not None:
            check_name("branch", self.branch, where)
        if self.system_table is not None:
            check_name("system table", self.system_table, where)

    @staticmethod
    def parse(identifier: str | tuple[str, str] | Identifier) -> Identifier:
        if isinstance(identifier, Identifier):
            return identifier
        if isinstance(identifier, tuple):
            if len(identifier) != 2 or not all(isinstance(p, str) for p in identifier):
                raise ValidationError(
                    f"Invalid table identifier {identifier!r}: expected ('database', 'table')"
                )
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
        table, *suffixes = t.split(SYSTEM_TABLE_SPLITTER)
        branch = system = None
        for sfx in suffixes:
            if sfx.startswith(BRANCH_PREFIX) and branch is None and system is None:
                branch = sfx[len(BRANCH_PREFIX):]
            elif system is None and sfx:
                system = sfx
            else:
                raise ValidationError(f"Invalid table identifier {identifier!r}")
        if not table or branch == "":
            raise ValidationError(f"Invalid table identifier {identifier!r}")
        return Identifier(db, table, branch, system)

    def check_plain(self) -> None:
        """For operations on whole tables (create, drop, rename): no branch, no system table."""
        if self.branch is not None or self.system_table is not None:
            raise ValidationError(f"{self.full_name} names a branch or system table, not a table")

    @property
    def in_system_database(self) -> bool:
        """Whether this names a table of database ``sys`` (Paimon's ``isSystemDatabase``: the
        exact, case-sensitive name)."""
        return self.database == SYSTEM_DATABASE

    @property
    def table_name(self) -> str:
        """``table`` or ``table$branch_b`` (without a system table suffix)."""
        return self.table if self.branch is None else f"{self.table}$branch_{self.branch}"

    @property
    def full_name(self) -> str:
        name = self.table_name if self.system_table is None else f"{self.table_name}${self.system_table}"
        return f"{self.database}.{name}"

    def __str__(self) -> str:
        return self.full_name
