"""``Option[T]``: one Paimon option (key, kind, default, description), like Paimon's ``ConfigOption<T>``.

Declaring an option is one statement in an area module (``layout``, ``formats``, ``write``, ``merge``,
``scan``, ``lifecycle``)::

    BUCKET: Option[int] = Option("bucket", INT, "-1", "Number of buckets ...", check=_bucket_check)

The registry (``paimon_sql.options.registry``) collects every ``Option`` and ``Family`` of those
modules, and the entries of their ``_KEPT`` tuples (``kept(key, kind, default)``: Paimon options
paimon_sql does not interpret); ``CoreOptions.get(BUCKET)`` returns the typed value. An option
without a default is declared ``Option[X | None]``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from paimon_sql.errors import ValidationError
from paimon_sql.options.parsing import Kind

T_co = TypeVar("T_co", covariant=True)

Check = Callable[[Any], "str | None"]
"""Returns a description of the accepted values when a parsed value is out of range, else None."""


@dataclass(frozen=True)
class Option(Generic[T_co]):
    """One Paimon option.

    ``default`` is the default as Paimon spells it in a table's options (a string, e.g. ``"256 mb"``)
    or None when the option has no default; ``default_value`` is its typed form. ``check`` (optional)
    returns a description of the accepted values when a parsed value is out of range. ``used`` tells
    whether paimon_sql interprets the option (the others are kept and their values checked).
    """

    key: str
    kind: Kind[T_co]
    default: str | None
    doc: str
    fallback_keys: tuple[str, ...] = ()
    check: Check | None = field(default=None, compare=False, repr=False)
    used: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.kind, Kind):
            raise ValueError(f"option {self.key}: unknown kind {self.kind!r}")

    @property
    def choices(self) -> tuple[str, ...] | None:
        """The accepted values of an enum option (None for other kinds)."""
        return self.kind.choices

    def parse(self, text: str) -> T_co:
        """Typed value of ``text``; a ``ValidationError`` saying what was expected when it does not parse."""
        value = self.kind.parse(text)
        if self.check is not None:
            problem = self.check(value)
            if problem is not None:
                raise ValidationError(problem)
        return value

    @property
    def default_value(self) -> T_co | None:
        """The typed default (None when the option has no default)."""
        return None if self.default is None else self.parse(self.default)

    def with_key(self, key: str) -> Option[T_co]:
        """This option under another key (a member of a ``Family``)."""
        return replace(self, key=key)


def kept(
    key: str, kind: Kind[Any], default: str | None = None, fallback_keys: tuple[str, ...] = ()
) -> Option[Any]:
    """A Paimon option that paimon_sql keeps (and checks the value of) but does not interpret."""
    return Option(key, kind, default, UNUSED_DOC, fallback_keys, None, False)


UNUSED_DOC = "Paimon option that paimon_sql keeps but does not interpret."

_PLACEHOLDER = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Family(Generic[T_co]):
    """A family of options such as ``fields.<name>.aggregate-function``: keys fully matching
    ``pattern`` are all defined by ``option`` (whose key is the family's display name)."""

    pattern: str
    option: Option[T_co]
    regex: re.Pattern[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "regex", re.compile(self.pattern))

    def of(self, *parts: str) -> Option[T_co]:
        """The member option whose ``<...>`` placeholders are ``parts``, e.g. ``of("c")`` of
        ``fields.<name>.ignore-retract`` is ``fields.c.ignore-retract``."""
        it = iter(parts)
        return self.option.with_key(_PLACEHOLDER.sub(lambda _: next(it), self.option.key))


# ----------------------------------------------------------------------------------------------
# Range checks
# ----------------------------------------------------------------------------------------------


def at_least(n: int) -> Check:
    def check(v: Any) -> str | None:
        return None if v >= n else f"expected an integer >= {n}"

    return check


def minus_one_or_positive(v: int) -> str | None:
    return None if v == -1 or v > 0 else "expected -1 (unlimited) or a positive number"


def one_of(choices: tuple[str, ...]) -> Check:
    """Like an enum, but the value keeps the user's case (Paimon lower-cases formats itself)."""

    def check(v: Any) -> str | None:
        return None if v.lower() in choices else "expected one of: " + ", ".join(choices)

    return check
