"""SQL LIKE patterns (``%`` / ``_`` wildcards, an escape character): tokenising, escaping, and
the literal prefix a pattern fixes (for statistics pruning)."""

from __future__ import annotations


def like_tokens(pattern: str, escape: str | None) -> list[tuple[bool, str]]:
    """(is_wildcard, char) pairs of a LIKE pattern."""
    out: list[tuple[bool, str]] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if escape is not None and ch == escape:
            if i + 1 >= len(pattern):
                raise ValueError("the pattern ends with the escape character")
            out.append((False, pattern[i + 1]))
            i += 2
            continue
        out.append((ch in "%_", ch))
        i += 1
    return out


def escape_like(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_prefix(pattern: str) -> str:
    """The literal characters before the first wildcard of a LIKE pattern (escape ``\\``)."""
    try:
        tokens = like_tokens(pattern, "\\")
    except ValueError:
        return ""
    prefix = []
    for wild, ch in tokens:
        if wild:
            break
        prefix.append(ch)
    return "".join(prefix)


