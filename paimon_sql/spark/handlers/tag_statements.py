"""The SQL tag statements of Apache Paimon's Spark extension, rewritten into statements Spark runs:

- ``SHOW TAGS t`` -> ``SELECT tag_name AS tag FROM `t$tags` ORDER BY tag_name`` (one column
  ``tag``, by name, as Paimon's ``ShowTagsExec``);
- ``ALTER TABLE t CREATE TAG [IF NOT EXISTS] n [AS OF VERSION v] [RETAIN k unit]``,
  ``... CREATE OR REPLACE TAG ...``, ``... REPLACE TAG ...`` ->
  ``CALL `cat`.sys.alter_table_create_tag(...)``;
- ``ALTER TABLE t DELETE TAG [IF EXISTS] a[,b]`` -> ``CALL `cat`.sys.alter_table_delete_tag(...)``;
- ``ALTER TABLE t RENAME TAG a TO b`` -> ``CALL `cat`.sys.alter_table_rename_tag(...)``.

(``ALTER TABLE t DROP PARTITION`` with partial specs is Spark's own statement; the shim's
``PaimonDropPartitions`` resolves it as Paimon's extension does.)

The ``alter_table_*`` procedures (``paimon_sql.procedures.tag_ddl``) have no output columns, so
the ALTER statements return no rows, as in Paimon. ``unit`` is DAYS, HOURS or MINUTES (Paimon's
grammar) or SECONDS. The table's catalog is found as Spark finds it: the first name part when it
names a registered catalog, else the current catalog. A statement on a table of another catalog is
left alone (``None``), as is any statement that is not one of these forms; a tag statement on one of
our tables that does not parse raises ``ValidationError`` saying what was expected.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paimon_sql.errors import ValidationError
from paimon_sql.spark.spark_types import quote_ident

_WORD_RE = re.compile(r"^[A-Za-z0-9_]+$")
_DIGITS_RE = re.compile(r"^[0-9]+$")
_LONG_MAX = 2**63 - 1
_SESSION_CATALOG = "spark_catalog"
# RETAIN units and the duration unit each becomes (``paimon_sql.options.parse_duration_ms``)
RETAIN_UNITS = {"DAYS": "days", "HOURS": "hours", "MINUTES": "minutes", "SECONDS": "seconds"}


@dataclass(frozen=True)
class SessionCatalogs:
    """What the JVM tells about the session: the current catalog, and every registered catalog
    name (``spark.sql.catalog.<name>``, and ``spark_catalog``) with whether it is a paimon_sql
    catalog."""

    current: str
    current_is_ours: bool
    catalogs: Mapping[str, bool]

    @staticmethod
    def from_params(value: object) -> SessionCatalogs:
        if not isinstance(value, Mapping):
            raise ValidationError("rewrite_statement: 'session' must be an object")
        current = value.get("current_catalog")
        ours = value.get("current_is_ours")
        catalogs = value.get("catalogs")
        if not isinstance(current, str) or not isinstance(ours, bool) or not isinstance(catalogs, Mapping):
            raise ValidationError(
                "rewrite_statement: 'session' needs 'current_catalog', 'current_is_ours' and 'catalogs'"
            )
        return SessionCatalogs(current, ours, {str(k): v is True for k, v in catalogs.items()})

    def resolve(self, parts: Sequence[str]) -> tuple[str, bool, list[str]]:
        """(catalog, whether it is ours, the rest of the name) of a multi-part table name."""
        if len(parts) >= 2:
            head = parts[0]
            if head in self.catalogs:
                return head, self.catalogs[head], list(parts[1:])
            if head.lower() == _SESSION_CATALOG:
                return _SESSION_CATALOG, self.catalogs.get(_SESSION_CATALOG, False), list(parts[1:])
        return self.current, self.current_is_ours, list(parts)


class _NotTagStatement(Exception):
    """The text is not a tag statement: Spark parses it unchanged."""


class _Cursor:
    """Tokens of sqlglot's Spark tokenizer, read front to back."""

    def __init__(self, sql: str, tokens: Sequence[Any], statement: str, offset: int = 0) -> None:
        self.sql = sql
        self.tokens = list(tokens)
        self.offset = offset  # of the tokens' text in ``sql``
        self.i = 0
        self.statement = statement

    def _peek(self, k: int = 0) -> Any:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def is_kw(self, word: str, k: int = 0) -> bool:
        from sqlglot.tokens import TokenType

        tok = self._peek(k)
        return (
            tok is not None
            and tok.token_type not in (TokenType.IDENTIFIER, TokenType.STRING)
            and tok.text.upper() == word
        )

    def accept_kw(self, *words: str) -> bool:
        """Consumes ``words`` when the next tokens are these keywords."""
        if all(self.is_kw(w, k) for k, w in enumerate(words)):
            self.i += len(words)
            return True
        return False

    def error(self, expected: str) -> ValidationError:
        tok = self._peek()
        found = "the end of the statement" if tok is None else f"{tok.text!r} (position {self.offset + tok.start + 1})"
        return ValidationError(f"Invalid {self.statement} statement: expected {expected}, found {found}: {self.sql}")

    def expect_kw(self, *words: str) -> None:
        if not self.accept_kw(*words):
            raise self.error(" ".join(words))

    def _word(self, tok: Any) -> bool:
        from sqlglot.tokens import TokenType

        if tok is None:
            return False
        if tok.token_type == TokenType.IDENTIFIER:
            return True
        if tok.token_type in (TokenType.STRING, TokenType.NUMBER, TokenType.PARAMETER):
            return False
        return bool(_WORD_RE.match(tok.text))

    def identifier(self, what: str) -> str:
        """A name: unquoted (letters, digits, ``_``) or back-quoted; unquoted words glued by ``$``
        (``t$branch_b``) are one name, as elsewhere in the parser extension."""
        from sqlglot.tokens import TokenType

        tok = self._peek()
        if not self._word(tok):
            raise self.error(what)
        parts = [tok.text]
        self.i += 1
        while True:
            dollar, nxt = self._peek(), self._peek(1)
            if not (
                dollar is not None
                and dollar.token_type == TokenType.PARAMETER
                and dollar.text == "$"
                and dollar.start == self.tokens[self.i - 1].end + 1
                and nxt is not None
                and nxt.start == dollar.end + 1
                and self._word(nxt)
            ):
                return "".join(parts)
            parts += ["$", nxt.text]
            self.i += 2

    def multipart(self) -> list[str]:
        from sqlglot.tokens import TokenType

        parts = [self.identifier("a table name")]
        while (tok := self._peek()) is not None and tok.token_type == TokenType.DOT:
            self.i += 1
            parts.append(self.identifier("a name after '.'"))
        return parts

    def whole_number(self, what: str) -> int:
        from sqlglot.tokens import TokenType

        tok = self._peek()
        if tok is None or tok.token_type != TokenType.NUMBER or not _DIGITS_RE.match(tok.text):
            raise self.error(what)
        value = int(tok.text)
        if value > _LONG_MAX:
            raise ValidationError(
                f"Invalid {self.statement} statement: {tok.text} is too large for {what}: {self.sql}"
            )
        self.i += 1
        return value

    def end(self) -> None:
        from sqlglot.tokens import TokenType

        while (tok := self._peek()) is not None and tok.token_type == TokenType.SEMICOLON:
            self.i += 1
        if self._peek() is not None:
            raise self.error("the end of the statement")


def _tokens(sql: str) -> list[Any]:
    from sqlglot.dialects.spark import Spark

    return list(Spark().tokenize(sql))


def _string(value: str) -> str:
    from paimon_sql.spark.handlers.procedures import sql_literal

    return sql_literal(value)


def _table_arg(sql: str, catalog: str, rest: list[str]) -> str:
    if len(rest) > 2:
        raise ValidationError(
            f"Table {'.'.join(rest)!r} of catalog {catalog!r} must be named 'table' or 'database.table': {sql}"
        )
    return ".".join(rest)


def _call(catalog: str, procedure: str, args: Sequence[tuple[str, str]]) -> str:
    text = ", ".join(f"{name} => {value}" for name, value in args)
    return f"CALL {quote_ident(catalog)}.sys.{procedure}({text})"


def _show_tags(sql: str, tokens: list[Any], offset: int, session: SessionCatalogs) -> str | None:
    cur = _Cursor(sql, tokens, "SHOW TAGS", offset)
    if not cur.accept_kw("TAGS"):
        raise _NotTagStatement
    try:
        parts = cur.multipart()
    except ValidationError:
        raise _NotTagStatement from None  # no table: Spark's syntax error
    _, ours, _ = session.resolve(parts)
    if not ours:
        return None
    cur.end()
    name = ".".join(quote_ident(p) for p in [*parts[:-1], parts[-1] + "$tags"])
    return f"SELECT tag_name AS tag FROM {name} ORDER BY tag_name"


def _alter_table(sql: str, tokens: list[Any], session: SessionCatalogs) -> str | None:
    cur = _Cursor(sql, tokens, "ALTER TABLE ... TAG")
    if not cur.accept_kw("ALTER", "TABLE"):
        raise _NotTagStatement
    try:
        parts = cur.multipart()
    except ValidationError:
        raise _NotTagStatement from None
    start = cur.i
    if not (
        cur.accept_kw("CREATE", "TAG")
        or cur.accept_kw("CREATE", "OR", "REPLACE", "TAG")
        or cur.accept_kw("REPLACE", "TAG")
        or cur.accept_kw("DELETE", "TAG")
        or cur.accept_kw("RENAME", "TAG")
    ):
        raise _NotTagStatement
    form = " ".join(t.text.upper() for t in tokens[start:cur.i])
    catalog, ours, rest = session.resolve(parts)
    if not ours:
        return None
    cur.statement = f"ALTER TABLE ... {form}"
    table = _string(_table_arg(sql, catalog, rest))
    if form == "RENAME TAG":
        source = cur.identifier("the name of the tag to rename")
        cur.expect_kw("TO")
        target = cur.identifier("the new name of the tag")
        cur.end()
        return _call(catalog, "alter_table_rename_tag",
                     [("table", table), ("tag", _string(source)), ("target_tag", _string(target))])
    if form == "DELETE TAG":
        cur.accept_kw("IF", "EXISTS")  # a missing tag is skipped either way, as in Paimon
        names = cur.identifier("the name of the tag to delete (several: `a,b`)")
        cur.end()
        return _call(catalog, "alter_table_delete_tag", [("table", table), ("tag", _string(names))])
    if_not_exists = False
    if form == "CREATE TAG" and cur.is_kw("IF") and cur.is_kw("NOT", 1) and cur.is_kw("EXISTS", 2):
        cur.i += 3
        if_not_exists = True
    tag = cur.identifier("a tag name")
    args = [("table", table), ("tag", _string(tag))]
    if cur.accept_kw("AS", "OF", "VERSION"):
        args.append(("snapshot", str(cur.whole_number("a snapshot id after AS OF VERSION"))))
    if cur.accept_kw("RETAIN"):
        amount = cur.whole_number("a whole number after RETAIN")
        unit = next((u for u in RETAIN_UNITS if cur.accept_kw(u)), None)
        if unit is None:
            raise cur.error("DAYS, HOURS, MINUTES or SECONDS after RETAIN " + str(amount))
        args.append(("time_retained", _string(f"{amount} {RETAIN_UNITS[unit]}")))
    cur.end()
    if form != "CREATE TAG":
        args.append(("replace", "true"))
    if if_not_exists:
        args.append(("if_not_exists", "true"))
    return _call(catalog, "alter_table_create_tag", args)


def rewrite_tag_statement(sql: str, session: SessionCatalogs) -> str | None:
    """The statement Spark should run for the tag statement ``sql`` on a table of ours; None when
    ``sql`` is not a tag statement or names a table of another catalog."""
    from sqlglot.errors import TokenError
    from sqlglot.tokens import TokenType

    try:
        tokens = _tokens(sql)
        if tokens and tokens[0].token_type == TokenType.SHOW:
            # the tokenizer keeps the rest of a SHOW statement as one string: read it again
            rest = tokens[0].end + 1
            return _show_tags(sql, _tokens(sql[rest:]), rest, session)
        if tokens and tokens[0].token_type == TokenType.ALTER:
            return _alter_table(sql, tokens, session)
    except (TokenError, _NotTagStatement):
        return None
    return None
