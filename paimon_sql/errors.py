"""The one error hierarchy of paimon_sql: every error the engine raises is a PaimonError.

Each class declares its ``bridge_kind``: the name under which the Spark bridge reports it to the
JVM shim (``paimon_sql.spark.handlers.dispatch``), which maps the kind to a Spark exception and SQL
state (``ErrorKind`` in the shim). Subclasses inherit their parent's kind unless they declare one;
an exception that is not a PaimonError is reported as ``Internal`` (a bug, with its traceback).
"""

from __future__ import annotations

from typing import ClassVar

INTERNAL_KIND = "Internal"
"""The bridge kind of an unexpected (non-PaimonError) exception or a bad bridge request."""


class PaimonError(Exception):
    """Root of all paimon_sql errors."""

    bridge_kind: ClassVar[str] = "PaimonError"


class NotFoundError(PaimonError):
    """A database, table, snapshot, tag, column or file does not exist."""

    bridge_kind: ClassVar[str] = "NotFound"


class DatabaseNotFoundError(NotFoundError):
    bridge_kind: ClassVar[str] = "NoSuchNamespace"


class TableNotFoundError(NotFoundError):
    bridge_kind: ClassVar[str] = "NoSuchTable"


class AlreadyExistsError(PaimonError):
    """A database, table or tag already exists."""

    bridge_kind: ClassVar[str] = "AlreadyExists"


class ValidationError(PaimonError, ValueError):
    """Bad input: an invalid option value, a wrong column type, a null primary key..."""

    bridge_kind: ClassVar[str] = "IllegalArgument"


class DatabaseNotEmptyError(ValidationError):
    """A database to drop still has tables (and the drop does not cascade)."""

    bridge_kind: ClassVar[str] = "NonEmptyNamespace"


class UnsupportedError(PaimonError, NotImplementedError):
    """A feature paimon_sql does not implement (yet); the message names it."""

    bridge_kind: ClassVar[str] = "Unsupported"


class CommitConflictError(PaimonError):
    """A commit could not be applied on top of the latest snapshot (e.g. a file it deletes is gone)."""

    bridge_kind: ClassVar[str] = "CommitConflict"


class WriteConflictError(CommitConflictError):
    """A commit's files were written against a base snapshot that a concurrent commit (or schema
    change) has made wrong for them: the write must be redone on top of the latest snapshot."""


class AlreadyCommittedError(CommitConflictError):
    """The changes given to a commit were committed already (their files belong to a snapshot)."""


class CorruptFileError(PaimonError):
    """A metadata or data file could not be decoded; the message names the file."""


def bridge_kind(exc: BaseException) -> str:
    """The bridge kind of ``exc``: its class's ``bridge_kind``, or ``Internal`` for an exception
    that is not a PaimonError."""
    return exc.bridge_kind if isinstance(exc, PaimonError) else INTERNAL_KIND


def bridge_kinds() -> set[str]:
    """Every kind the bridge can report (the shim's ``ErrorKind`` must know them all)."""
    kinds = {INTERNAL_KIND}
    todo: list[type[PaimonError]] = [PaimonError]
    while todo:
        cls = todo.pop()
        kinds.add(cls.bridge_kind)
        todo.extend(cls.__subclasses__())
    return kinds
