"""Paimon's system columns of primary-key data files and their row kinds, declared once.

A primary-key data file stores, before the value columns, the key columns prefixed ``_KEY_``, the
sequence number ``_SEQUENCE_NUMBER`` (BIGINT) and the row kind ``_VALUE_KIND`` (TINYINT), with the
field ids Paimon's ``SpecialFields`` gives them.
"""

from __future__ import annotations

from enum import IntEnum

KEY_PREFIX = "_KEY_"
SEQ = "_SEQUENCE_NUMBER"
KIND = "_VALUE_KIND"
# field ids (Paimon's SpecialFields): keys from Integer.MAX_VALUE / 2 + the value field's id
KEY_FIELD_ID_START = 2147483647 // 2
SEQ_FIELD_ID = 2147483647 - 1
KIND_FIELD_ID = 2147483647 - 2


class RowKind(IntEnum):
    """A record's change kind (Paimon's ``RowKind``), stored as the byte in ``_VALUE_KIND``."""

    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3

    @property
    def short_string(self) -> str:
        """``+I``, ``-U``, ``+U`` or ``-D``, as Paimon prints it."""
        return _SHORT[self]

    @property
    def is_retract(self) -> bool:
        """UPDATE_BEFORE and DELETE retract an earlier record."""
        return self in (RowKind.UPDATE_BEFORE, RowKind.DELETE)


_SHORT = {RowKind.INSERT: "+I", RowKind.UPDATE_BEFORE: "-U", RowKind.UPDATE_AFTER: "+U", RowKind.DELETE: "-D"}
# ``+I`` -> 0 ... ``-D`` -> 3
ROW_KINDS: dict[str, int] = {k.short_string: int(k) for k in RowKind}
