"""Value kinds of Paimon options and their parsers.

Parsing follows Paimon's ``OptionsUtils`` / ``MemorySize`` / ``TimeUtils`` rules so a value Paimon
rejects is rejected here too. A parser raises ``ValidationError`` whose message says what was
expected (e.g. ``expected an integer``); ``CoreOptions`` and ``validate_options`` prefix it with the
key, the value and the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from paimon_sql.errors import ValidationError

T_co = TypeVar("T_co", covariant=True)

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1

_INT_RE = re.compile(r"[+-]?[0-9]+")
_DOUBLE_RE = re.compile(
    r"\s*[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?\s*"
)
_LEADING_DIGITS_RE = re.compile(r"([0-9]*)(.*)", re.S)

# MemorySize units (lower case) -> multiplier.
_MEMORY_UNITS: dict[str, int] = {}
_MEMORY_LABELS: tuple[tuple[tuple[str, ...], int], ...] = (
    (("b", "bytes"), 1),
    (("k", "kb", "kibibytes"), 1024),
    (("m", "mb", "mebibytes"), 1024**2),
    (("g", "gb", "gibibytes"), 1024**3),
    (("t", "tb", "tebibytes"), 1024**4),
)
for _labels, _mult in _MEMORY_LABELS:
    for _label in _labels:
        _MEMORY_UNITS[_label] = _mult

# TimeUtils duration labels (lower case) -> nanoseconds per unit.
_DURATION_UNITS: dict[str, int] = {}
_DURATION_LABELS: tuple[tuple[tuple[str, ...], int], ...] = (
    (("d", "day", "days"), 86_400 * 10**9),
    (("h", "hour", "hours"), 3_600 * 10**9),
    (("min", "m", "minute", "minutes"), 60 * 10**9),
    (("s", "sec", "secs", "second", "seconds"), 10**9),
    (("ms", "milli", "millis", "millisecond", "milliseconds"), 10**6),
    (("µs", "micro", "micros", "microsecond", "microseconds"), 10**3),
    (("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1),
)
for _labels, _nanos in _DURATION_LABELS:
    for _label in _labels:
        _DURATION_UNITS[_label] = _nanos

_STATS_TRUNCATE_RE = re.compile(r"TRUNCATE\(([0-9]+)\)")


def parse_int(text: str, lo: int = INT_MIN, hi: int = INT_MAX) -> int:
    """Parse like Java ``Integer.parseInt`` / ``Long.parseLong`` (no blanks, ASCII digits, range)."""
    if not _INT_RE.fullmatch(text):
        raise ValidationError("expected an integer")
    value = int(text)
    if not lo <= value <= hi:
        raise ValidationError(f"expected an integer between {lo} and {hi}")
    return value


def parse_long(text: str) -> int:
    """Parse like Java ``Long.parseLong``."""
    return parse_int(text, LONG_MIN, LONG_MAX)


def parse_bool(text: str) -> bool:
    upper = text.upper()
    if upper == "TRUE":
        return True
    if upper == "FALSE":
        return False
    raise ValidationError("expected true or false")


def parse_double(text: str) -> float:
    if not _DOUBLE_RE.fullmatch(text):
        raise ValidationError("expected a number")
    s = text.strip().rstrip("fFdD")
    return float(s.replace("Infinity", "inf"))


def parse_string(text: str) -> str:
    return text


def _split_number_unit(text: str, what: str) -> tuple[int, str]:
    trimmed = text.strip()
    if not trimmed:
        raise ValidationError(f"expected {what}")
    m = _LEADING_DIGITS_RE.fullmatch(trimmed)
    assert m is not None
    number, unit = m.group(1), m.group(2).strip().lower()
    if not number:
        raise ValidationError(f"expected {what}")
    return int(number), unit


_MEMORY_EXPECTED = "a memory size such as '256 mb' or '64kb' (units: b, kb, mb, gb, tb)"
_DURATION_EXPECTED = (
    "a duration such as '1 h', '30 min' or '10 s' (units: d, h, min, s, ms, µs, ns; none means ms)"
)


def parse_memory_size(text: str) -> int:
    """Bytes of a Paimon ``MemorySize`` string: digits, optional blanks, optional unit (bytes if none)."""
    value, unit = _split_number_unit(text, _MEMORY_EXPECTED)
    if value > LONG_MAX:
        raise ValidationError(f"expected {_MEMORY_EXPECTED}; {value} overflows a 64-bit number")
    multiplier = 1
    if unit:
        if unit not in _MEMORY_UNITS:
            raise ValidationError(f"expected {_MEMORY_EXPECTED}")
        multiplier = _MEMORY_UNITS[unit]
    result = value * multiplier
    if result > LONG_MAX:
        raise ValidationError(f"expected {_MEMORY_EXPECTED}; it overflows a 64-bit number of bytes")
    return result


def parse_duration_ms(text: str) -> int:
    """Milliseconds of a Paimon duration string (``TimeUtils.parseDuration``; no unit = ms)."""
    value, unit = _split_number_unit(text, _DURATION_EXPECTED)
    if value > LONG_MAX:
        raise ValidationError(f"expected {_DURATION_EXPECTED}; {value} overflows a 64-bit number")
    if not unit:
        return value
    if unit not in _DURATION_UNITS:
        raise ValidationError(f"expected {_DURATION_EXPECTED}")
    millis = value * _DURATION_UNITS[unit] // 10**6
    if millis > LONG_MAX:
        raise ValidationError(f"expected {_DURATION_EXPECTED}; it overflows 64-bit milliseconds")
    return millis


def parse_list(text: str) -> list[str]:
    """Comma-separated names, each trimmed; the empty string is the empty list."""
    if text.strip() == "":
        return []
    items = [s.strip() for s in text.split(",")]
    if any(not s for s in items):
        raise ValidationError("expected a comma-separated list of names without empty entries")
    return items


def parse_stats_mode(text: str) -> str:
    """Canonical lower-case stats mode: none, counts, full or truncate(<n>)."""
    upper = text.upper()
    if upper in ("NONE", "COUNTS", "FULL"):
        return upper.lower()
    m = _STATS_TRUNCATE_RE.fullmatch(upper)
    if m and int(m.group(1)) <= INT_MAX:
        return f"truncate({int(m.group(1))})"
    raise ValidationError("expected none, counts, full or truncate(<length>)")


def parse_enum(text: str, choices: tuple[str, ...]) -> str:
    """The choice matching ``text`` case-insensitively, in its canonical spelling."""
    upper = text.upper()
    for c in choices:
        if c.upper() == upper:
            return c
    raise ValidationError("expected one of: " + ", ".join(choices))


# ----------------------------------------------------------------------------------------------
# Kinds
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind(Generic[T_co]):
    """The value type of an option: its parser and how docs/options.md names it.

    ``choices`` is set for enums only (see ``enum``)."""

    name: str
    doc: str
    parse: Callable[[str], T_co]
    choices: tuple[str, ...] | None = None


INT: Kind[int] = Kind("int", "integer (32-bit)", parse_int)  # Java int: sign and ASCII digits
LONG: Kind[int] = Kind("long", "integer (64-bit)", parse_long)  # Java long
BOOL: Kind[bool] = Kind("bool", "boolean", parse_bool)  # true / false, case-insensitive
DOUBLE: Kind[float] = Kind("double", "number", parse_double)  # Java Double.parseDouble
STRING: Kind[str] = Kind("string", "string", parse_string)
MEMORY: Kind[int] = Kind("memory", "memory size", parse_memory_size)  # "256 mb", "64kb" -> bytes
DURATION: Kind[int] = Kind("duration", "duration", parse_duration_ms)  # "1 h", "10s", "100" (ms) -> ms
LIST: Kind[list[str]] = Kind("list", "list", parse_list)  # comma-separated names, each trimmed
STATS_MODE: Kind[str] = Kind("stats-mode", "stats mode", parse_stats_mode)  # none|counts|full|truncate(n)


def enum(choices: tuple[str, ...]) -> Kind[str]:
    """One of ``choices``, case-insensitive; parsed to the canonical spelling."""
    if not choices:
        raise ValueError("an enum kind needs at least one choice")

    def parse(text: str) -> str:
        return parse_enum(text, choices)

    return Kind("enum", "enum: " + ", ".join(f"`{c}`" for c in choices), parse, choices)
