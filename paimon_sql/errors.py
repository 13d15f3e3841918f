"""The one error hierarchy of paimon_sql: every error the engine raises is a PaimonError."""

from __future__ import annotations


class PaimonError(Exception):
    """Root of all paimon_sql errors."""


class NotFoundError(PaimonError):
    """A database, table, snapshot, tag, column or file does not exist."""


class DatabaseNotFoundError(NotFoundError):
    pass


class TableNotFoundError(NotFoundError):
    pass


class AlreadyExistsError(PaimonError):
    """A database, table or tag already exists."""


class ValidationError(PaimonError, ValueError):
    """Bad input: an invalid option value, a wrong column type, a null primary key..."""


class UnsupportedError(PaimonError, NotImplementedError):
    """A feature paimon_sql does not implement (yet); the message names it."""


class CommitConflictError(PaimonError):
    """A commit could not be applied on top of the latest snapshot (e.g. a file it deletes is gone)."""


class WriteConflictError(CommitConflictError):
    """A commit's files were written against a base snapshot that a concurrent commit (or schema
    change) has made wrong for them: the write must be redone on top of the latest snapshot."""


class AlreadyCommittedError(CommitConflictError):
    """The changes given to a commit were committed already (their files belong to a snapshot)."""


class CorruptFileError(PaimonError):
    """A metadata or data file could not be decoded; the message names the file."""
