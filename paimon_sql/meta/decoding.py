"""The one boundary where bytes read from a metadata file become on-disk structures: whatever a
damaged file makes a decoder raise becomes a CorruptFileError naming the file."""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from paimon_sql.errors import CorruptFileError, NotFoundError
from paimon_sql.fs.file_io import FileIO
from paimon_sql.names import file_name_problem

# what decoding garbage raises: bad JSON/UTF-8 (ValueError), missing fields (KeyError), wrong
# types (TypeError, AttributeError), short or garbled binary rows (IndexError, struct.error), ...
DECODE_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError, struct.error, OverflowError,
                 MemoryError, RecursionError, EOFError)


@contextmanager
def decoding(what: str, path: str) -> Iterator[None]:
    """Turns decoding errors in the block into ``CorruptFileError("Corrupt <what> <path>: ...")``."""
    try:
        yield
    except (CorruptFileError, NotFoundError):
        raise
    except DECODE_ERRORS as e:
        raise CorruptFileError(f"Corrupt {what} {path}: {type(e).__name__}: {e}") from e


def read_text(file_io: FileIO, path: str, what: str) -> str:
    """A metadata file's UTF-8 text (NotFoundError when it does not exist)."""
    data = file_io.read_bytes(path)
    with decoding(what, path):
        return data.decode("utf-8")


def check_file_names(names: Sequence[object], what: str, path: str) -> None:
    """Every file a metadata file refers to must be a plain file name (no folder, no NUL...)."""
    for name in names:
        problem = file_name_problem(name)
        if problem is not None:
            raise CorruptFileError(f"Corrupt {what} {path}: it refers to the file {name!r}, which {problem}")


def check_int(value: object, field: str, what: str, path: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
        raise CorruptFileError(f"Corrupt {what} {path}: {field} is {value!r}")
    return value
