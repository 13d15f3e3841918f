"""The statement rewrite of the shim's parser extension: ``t$files`` names quoted as one
identifier, ``CALL sys.x`` qualified with the catalog, and Paimon's tag statements (``SHOW TAGS t``,
``ALTER TABLE t CREATE TAG n``, ...: ``tag_statements``) rewritten into a query or a ``CALL``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from paimon_sql.errors import ValidationError
from paimon_sql.spark import spark_types
from paimon_sql.spark.handlers.registry import Params, Result, handler
from paimon_sql.spark.handlers.tag_statements import SessionCatalogs, rewrite_tag_statement

_WORD_RE = re.compile(r"^[A-Za-z_0-9]+$")


def _tokens(sql: str) -> list[Any]:
    from sqlglot.dialects.spark import Spark

    return list(Spark().tokenize(sql))


def _is_word(tok: Any) -> bool:
    from sqlglot.tokens import TokenType

    if tok.token_type == TokenType.IDENTIFIER:
        return True
    if tok.token_type in (TokenType.STRING, TokenType.NUMBER, TokenType.PARAMETER):
        return False
    return bool(_WORD_RE.match(tok.text))


def _dollar_edits(tokens: Sequence[Any], offset: int) -> list[tuple[int, int, str]]:
    """Edits quoting ``t$files`` / ``t$branch_b$files`` (words glued by ``$``) as one identifier."""
    from sqlglot.tokens import TokenType

    edits = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if not _is_word(tok):
            i += 1
            continue
        j = i
        parts = [tok.text]
        while (
            j + 2 < n
            and tokens[j + 1].token_type == TokenType.PARAMETER
            and tokens[j + 1].text == "$"
            and tokens[j + 1].start == tokens[j].end + 1
            and tokens[j + 2].start == tokens[j + 1].end + 1
            and _is_word(tokens[j + 2])
        ):
            parts += ["$", tokens[j + 2].text]
            j += 2
        if j > i:
            name = "".join(parts)
            edits.append((offset + tok.start, offset + tokens[j].end + 1, spark_types.quote_ident(name)))
        i = j + 1
    return edits


def rewrite_sql(sql: str, catalog: str | None = None, session: SessionCatalogs | None = None) -> str:
    """``sql`` with unquoted ``$`` names quoted and, when ``catalog`` is given, ``CALL sys.x``
    qualified as ``CALL `catalog`.sys.x``. Uses sqlglot's Spark tokenizer (not its parser, which
    reads ``db.t$files`` as ``db.t`` aliased). Text it cannot tokenize is returned unchanged.

    With ``session`` (the session's catalogs), a tag statement on a table of ours becomes the
    statement that runs it (``tag_statements``); a malformed one raises ValidationError."""
    from sqlglot.errors import TokenError
    from sqlglot.tokens import TokenType

    if session is not None:
        tag_statement = rewrite_tag_statement(sql, session)
        if tag_statement is not None:
            return tag_statement
    try:
        tokens = _tokens(sql)
    except TokenError:
        return sql
    edits: list[tuple[int, int, str]] = []
    head = tokens
    for k, tok in enumerate(tokens):
        if tok.token_type == TokenType.COMMAND and tok.text.upper() == "CALL":
            head = tokens[:k]
            rest_start = tok.end + 1
            try:
                rest = _tokens(sql[rest_start:])
            except TokenError:
                rest = []
            edits += _dollar_edits(rest, rest_start)
            if (
                catalog
                and len(rest) >= 2
                and rest[0].text.lower() == "sys"
                and rest[1].token_type == TokenType.DOT
            ):
                pos = rest_start + rest[0].start
                edits.append((pos, pos, spark_types.quote_ident(catalog) + "."))
            break
    edits += _dollar_edits(head, 0)
    if not edits:
        return sql
    out = []
    last = 0
    for start, end, text in sorted(edits):
        out.append(sql[last:start])
        out.append(text)
        last = end
    out.append(sql[last:])
    return "".join(out)


@handler("rewrite_statement", read_only=True)
def rewrite_statement(params: Params) -> Result:
    sql = params.get("sql")
    if not isinstance(sql, str):
        raise ValidationError("rewrite_statement needs the 'sql' text")
    catalog = params.get("catalog")
    session = params.get("session")
    out = rewrite_sql(
        sql,
        catalog if isinstance(catalog, str) and catalog else None,
        None if session is None else SessionCatalogs.from_params(session),
    )
    return {"sql": out, "changed": out != sql}
