"""The one check of every name that becomes part of a path: databases, tables, branches, tags,
consumers and system tables.

Apache Paimon leaves most of this to the file system; paimon_sql refuses, for every kind of name,
what could leave the folder the name is meant for or confuse the layout: non-strings, empty or
blank names, ``/`` and ``\\``, NUL and other control characters, the names ``.`` and ``..`` and
names over 255 bytes (UTF-8; the usual file-name limit). Kinds add Paimon's own rules on top (a
table name has no ``$``, which separates branches and system tables).
"""

from __future__ import annotations

from paimon_sql.errors import ValidationError

MAX_NAME_BYTES = 255
SYSTEM_TABLE_SPLITTER = "$"


def check_name(kind: str, name: object, where: str = "") -> str:
    """``name`` if it is a safe ``kind`` name (``database``, ``table``, ``branch``, ``tag``,
    ``consumer``, ``system table``); else a ValidationError naming the kind, the name and ``where``
    (e.g. the table it belongs to)."""
    ctx = f" of {where}" if where else ""
    if not isinstance(name, str):
        raise ValidationError(f"A {kind} name{ctx} must be a string, got {type(name).__name__} {name!r}")
    problem = _problem(name)
    if problem is None and kind in ("database", "table") and name.startswith("."):
        problem = "must not start with '.'"
    if problem is None and kind == "table" and SYSTEM_TABLE_SPLITTER in name:
        problem = f"must not contain {SYSTEM_TABLE_SPLITTER!r} (it separates branches and system tables)"
    if problem is not None:
        raise ValidationError(f"Invalid {kind} name {name!r}{ctx}: {problem}")
    return name


def _problem(name: str) -> str | None:
    if not name.strip():
        return "must not be empty or blank"
    if "/" in name or "\\" in name:
        return "must not contain '/' or '\\'"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "must not contain NUL or other control characters"
    if name in (".", ".."):
        return "must not be '.' or '..'"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        return "must be valid Unicode (it holds a lone surrogate)"
    if size > MAX_NAME_BYTES:
        return f"must be at most {MAX_NAME_BYTES} bytes in UTF-8, it has {size}"
    return None



def file_name_problem(name: object) -> str | None:
    """Why ``name`` (a file name read from metadata: a data, manifest or index file) is not a plain
    file name of one folder, or None."""
    if not isinstance(name, str):
        return f"a file name must be a string, got {type(name).__name__}"
    return _problem(name)


MAIN_BRANCH_NAME = "main"


def check_new_branch_name(name: object, where: str = "") -> str:
    """``name`` if a branch of that name may be created (or renamed to): a safe name
    (:func:`check_name`) that Apache Paimon accepts (``BranchManager.validateBranch``: not the
    main branch ``main``, not blank, not only digits, which would read as a snapshot id), and that
    paimon_sql can address afterwards: no ``,`` (``delete_branch`` splits on it), no ``$`` (``t$branch_a$b``
    reads as system table ``b`` of branch ``a``) and no surrounding blanks."""
    name = check_name("branch", name, where)
    ctx = f" of {where}" if where else ""
    problem = None
    if name == MAIN_BRANCH_NAME:
        problem = f"'{MAIN_BRANCH_NAME}' is the default branch and cannot be used"
    elif all(c.isdecimal() for c in name):
        problem = "must not be only digits"
    elif name != name.strip():
        problem = "must not start or end with blanks"
    elif "," in name:
        problem = "must not contain ',' (delete_branch splits names on it)"
    elif SYSTEM_TABLE_SPLITTER in name:
        problem = f"must not contain {SYSTEM_TABLE_SPLITTER!r} (it separates branches and system tables)"
    if problem is not None:
        raise ValidationError(f"Invalid branch name {name!r}{ctx}: {problem}")
    return name
