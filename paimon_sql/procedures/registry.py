"""The procedure registry: procedures declared once, in Python, and dispatched by name.

A ``Procedure`` has a name, typed parameters (Spark SQL type names, required or with a default) and
output columns, as Apache Paimon's Spark procedures declare them; ``call_procedure`` decodes the
arguments (by name, or positionally in declaration order), checks them and runs the procedure.
Argument errors raise ``ValidationError`` naming the procedure and the argument; an unknown
procedure raises ``NotFoundError`` listing the known ones. A procedure's function gets the decoded
arguments as ``ProcedureArgs`` (a dict by parameter name that knows its procedure):
``args.table(catalog)`` resolves the shared ``table`` parameter (``TABLE``) in one place.

A procedure's ``output`` is Apache Paimon's (columns, Spark types and rows, for the same call). A
procedure that can report more declares ``verbose_output``: columns of our own appended after
Paimon's; ``register`` then adds the parameter ``verbose BOOLEAN = false`` (last), and only a call
with ``verbose => true`` returns them. The procedure's function always returns the long rows; the
registry cuts them to Paimon's columns otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

from paimon_sql.catalog.identifier import DEFAULT_DATABASE, Identifier
from paimon_sql.errors import NotFoundError, PaimonError, ValidationError

if TYPE_CHECKING:
    from paimon_sql.catalog.catalog import Catalog
    from paimon_sql.table.table import Table

_R = TypeVar("_R")
PARAM_TYPES = ("STRING", "BIGINT", "INT", "BOOLEAN", "DOUBLE")
VERBOSE = "verbose"  # the opt-in parameter of every procedure with ``verbose_output``
_INT_RANGE = {"INT": (-(2**31), 2**31 - 1), "BIGINT": (-(2**63), 2**63 - 1)}


@dataclass(frozen=True)
class ProcedureParam:
    name: str
    type: str  # "STRING" | "BIGINT" | "INT" | "BOOLEAN" | "DOUBLE" (Spark SQL type names)
    required: bool
    default: object = None

    def __post_init__(self) -> None:
        if self.type not in PARAM_TYPES:
            raise ValidationError(f"Procedure parameter {self.name!r} has unknown type {self.type!r} ({PARAM_TYPES})")

    def __str__(self) -> str:
        s = f"{self.name} {self.type}"
        if not self.required:
            s += " = " + ("NULL" if self.default is None else repr(self.default))
        return s


def required(name: str, type: str) -> ProcedureParam:
    """A required parameter (Paimon's ``ProcedureParameter.required``)."""
    return ProcedureParam(name, type, True)


def optional(name: str, type: str, default: object = None) -> ProcedureParam:
    """An optional parameter, ``default`` when absent or null (Paimon's ``ProcedureParameter.optional``)."""
    return ProcedureParam(name, type, False, default)


class ProcedureArgs(dict[str, Any]):
    """The decoded arguments of one call: every parameter of ``procedure`` by name (see
    ``decode_args``), and the resolution of its table arguments."""

    def __init__(self, procedure: str, values: Mapping[str, Any]) -> None:
        super().__init__(values)
        self.procedure = procedure

    def table(self, catalog: Catalog, arg: str = "table") -> Table:
        """The table (or branch) argument ``arg`` names (``table_arg``)."""
        return table_arg(catalog, self.procedure, self[arg], arg)


ProcedureFn = Callable[["Catalog", ProcedureArgs], list[tuple[Any, ...]]]


@dataclass(frozen=True)
class Procedure:
    name: str
    params: tuple[ProcedureParam, ...]
    output: tuple[tuple[str, str], ...]  # (column, Spark SQL type)
    description: str
    fn: ProcedureFn = field(repr=False)
    # A procedure whose work can run as parallel tasks (a Spark job, one task per bucket): ``plan``
    # returns a ProcedureJob (or, when there is nothing to distribute, the rows); ``run_task``
    # (state, task) runs one task anywhere and returns its message; ``finish`` takes every message
    # (on the caller's side) and returns the rows. ``fn`` stays the local way to run it.
    plan: Callable[[Catalog, ProcedureArgs], ProcedureJob | list[tuple[Any, ...]]] | None = field(
        default=None, repr=False)
    run_task: Callable[[str, str], str] | None = field(default=None, repr=False)
    finish: Callable[[str, list[str]], list[tuple[Any, ...]]] | None = field(default=None, repr=False)
    # False: the procedure carries a SQL statement (``ALTER TABLE t CREATE TAG``) and is left out
    # of the procedure listings (SHOW PROCEDURES); it can still be called by name.
    listed: bool = True
    # Columns of our own, returned after ``output`` only when called with ``verbose => true``.
    verbose_output: tuple[tuple[str, str], ...] = ()

    def columns(self, args: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The output columns of a call with the decoded ``args``."""
        if self.verbose_output and args.get(VERBOSE):
            return [*self.output, *self.verbose_output]
        return list(self.output)

    def result(self, args: Mapping[str, Any], rows: Sequence[Sequence[Any]]) -> ProcedureResult:
        """The result of a call with the decoded ``args``: ``rows`` (as the function returns them,
        with the verbose columns when the procedure has some) cut to the call's columns."""
        columns = self.columns(args)
        return ProcedureResult(columns, [tuple(r)[:len(columns)] for r in rows])

    @property
    def signature(self) -> str:
        """``create_tag(table STRING, tag STRING, snapshot BIGINT = NULL, ...)``."""
        return f"{self.name}({', '.join(str(p) for p in self.params)})"


@dataclass(frozen=True)
class ProcedureJob:
    """A procedure's work as independent tasks: ``tasks`` (small opaque strings, one per task) and
    ``state`` (opaque, shared: given to ``run_task`` with each task and to ``finish`` with the tasks'
    messages)."""

    tasks: list[str]
    state: str


@dataclass(frozen=True)
class ProcedureResult:
    columns: list[tuple[str, str]]
    rows: list[tuple[Any, ...]]


PROCEDURES: dict[str, Procedure] = {}

# The parameter most procedures start with, and the one-column output most return (Paimon's).
TABLE = required("table", "STRING")
RESULT: tuple[tuple[str, str], ...] = (("result", "BOOLEAN"),)


def procedure(
    name: str,
    params: tuple[ProcedureParam, ...],
    output: tuple[tuple[str, str], ...],
    description: str,
    *,
    verbose_output: tuple[tuple[str, str], ...] = (),
    listed: bool = True,
    plan: Callable[[Catalog, ProcedureArgs], ProcedureJob | list[tuple[Any, ...]]] | None = None,
    run_task: Callable[[str, str], str] | None = None,
    finish: Callable[[str, list[str]], list[tuple[Any, ...]]] | None = None,
) -> Callable[[ProcedureFn], ProcedureFn]:
    """Declares the decorated function (``fn(catalog, args)``, ``args`` decoded by the registry)
    as procedure ``name`` and registers it (see ``Procedure``); the function is returned as is."""

    def declare(fn: ProcedureFn) -> ProcedureFn:
        register(Procedure(name=name, params=params, output=output, description=description, fn=fn,
                           plan=plan, run_task=run_task, finish=finish, listed=listed,
                           verbose_output=verbose_output))
        return fn

    return declare


def listed_procedures() -> list[str]:
    """The names of the procedures SHOW PROCEDURES lists, sorted."""
    return sorted(name for name, proc in PROCEDURES.items() if proc.listed)


def register(proc: Procedure) -> Procedure:
    """Adds ``proc`` to ``PROCEDURES`` (names are lower case and unique)."""
    key = proc.name.lower()
    if key != proc.name:
        raise ValidationError(f"Procedure name {proc.name!r} must be lower case")
    if key in PROCEDURES:
        raise ValidationError(f"Procedure {proc.name!r} is already registered")
    if proc.verbose_output:
        if proc.plan is not None:
            raise ValidationError(f"Procedure {proc.name!r}: a procedure run as a job has no verbose output")
        if any(p.name == VERBOSE for p in proc.params):
            raise ValidationError(f"Procedure {proc.name!r}: parameter {VERBOSE!r} is added by the registry")
        proc = dataclasses.replace(proc, params=(*proc.params, ProcedureParam(VERBOSE, "BOOLEAN", False, False)))
    names = [p.name for p in proc.params]
    if len(set(names)) != len(names):
        raise ValidationError(f"Procedure {proc.name!r} declares a parameter twice: {names}")
    PROCEDURES[key] = proc
    return proc


def get_procedure(name: str) -> Procedure:
    """The procedure ``name`` (case-insensitive; a ``sys.`` prefix is allowed)."""
    if not isinstance(name, str):
        raise ValidationError(f"Procedure name must be a string, got {name!r}")
    key = name.strip().lower()
    if key.startswith("sys."):
        key = key[len("sys."):]
    proc = PROCEDURES.get(key)
    if proc is None:
        raise NotFoundError(f"Procedure {name!r} does not exist; procedures are: {', '.join(listed_procedures())}")
    return proc


# The database a bare table name in a procedure argument (``table => 't'``) belongs to: the
# session's current database when the procedure is called from SQL (as Paimon resolves it).
CURRENT_DATABASE: ContextVar[str] = ContextVar("paimon_sql_procedure_database", default=DEFAULT_DATABASE)


def ident_arg(procedure: str, value: str, arg: str = "table") -> Identifier:
    """The identifier a table argument names; ``t`` alone is in the session's current database."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"Procedure {procedure}: argument {arg!r} must name a table, got {value!r}")
    try:
        bare = "." not in value
        return Identifier.parse((CURRENT_DATABASE.get(), value.strip().strip("`")) if bare else value)
    except ValidationError as e:
        raise ValidationError(f"Procedure {procedure}: argument {arg!r}: {e}") from None


def table_arg(catalog: Catalog, procedure: str, value: str, arg: str = "table") -> Table:
    """The table (or branch, ``db.t$branch_b``) an identifier argument names; ``t`` alone is in the
    session's current database (``CURRENT_DATABASE``; ``default`` outside SQL), as in Paimon."""
    ident = ident_arg(procedure, value, arg)
    if ident.system_table is not None or ident.in_system_database:
        raise ValidationError(
            f"Procedure {procedure}: argument {arg!r} must name a table, not the system table {ident.full_name}"
        )
    # not a system table (refused above): the data table itself
    return cast("Table", catalog.get_table(ident))


def call_procedure(
    catalog: Catalog, name: str, args: Mapping[str, Any] | Sequence[Any] | None = None,
    current_database: str | None = None,
) -> ProcedureResult:
    """Runs procedure ``name`` with ``args`` (a mapping by parameter name, or positional values).
    A table argument without a database names a table of ``current_database`` (default:
    ``default``)."""
    proc = get_procedure(name)
    decoded = decode_args(proc, args)
    rows = _in_database(current_database, lambda: _prefixing(proc, lambda: proc.fn(catalog, decoded)))
    return proc.result(decoded, rows)


def _prefixing(proc: Procedure, fn: Callable[[], _R]) -> _R:
    """``fn()``, with a ``PaimonError`` it raises prefixed ``Procedure <name>: `` (same class) unless
    its message names the procedure already; the procedures behind SQL statements (not listed)
    keep their statements' messages."""
    try:
        return fn()
    except PaimonError as e:
        text = str(e)
        if not proc.listed or text.lower().startswith(f"procedure {proc.name}"):
            raise
        raise type(e)(f"Procedure {proc.name}: {text}") from e


def _in_database(current_database: str | None, fn: Callable[[], _R]) -> _R:
    """``fn()`` with bare table names in procedure arguments resolved in ``current_database``."""
    token = CURRENT_DATABASE.set(current_database or DEFAULT_DATABASE)
    try:
        return fn()
    finally:
        CURRENT_DATABASE.reset(token)


def plan_procedure(
    catalog: Catalog, name: str, args: Mapping[str, Any] | Sequence[Any] | None = None,
    current_database: str | None = None,
) -> ProcedureResult | ProcedureJob:
    """Like ``call_procedure``, but a procedure that can run as parallel tasks returns its job
    (run each task with ``run_procedure_task``, then ``finish_procedure``)."""
    proc = get_procedure(name)
    plan = proc.plan
    if plan is None:
        return call_procedure(catalog, name, args, current_database)
    decoded = decode_args(proc, args)
    planned = _in_database(current_database, lambda: _prefixing(proc, lambda: plan(catalog, decoded)))
    if isinstance(planned, ProcedureJob):
        return planned
    return proc.result(decoded, planned)


def run_procedure_task(name: str, state: str, task: str) -> str:
    proc = get_procedure(name)
    run_task = proc.run_task
    if run_task is None:
        raise ValidationError(f"Procedure {proc.name} has no tasks to run")
    return _prefixing(proc, lambda: run_task(state, task))


def finish_procedure(name: str, state: str, messages: Sequence[str]) -> ProcedureResult:
    proc = get_procedure(name)
    if proc.finish is None:
        raise ValidationError(f"Procedure {proc.name} has no tasks to finish")
    if not isinstance(state, str) or not all(isinstance(m, str) for m in messages):
        raise ValidationError(f"Procedure {proc.name}: a job's state and messages are strings")
    finish = proc.finish
    rows = _prefixing(proc, lambda: finish(state, list(messages)))
    return ProcedureResult(list(proc.output), [tuple(r)[:len(proc.output)] for r in rows])


def argument_error(procedure: str, arg: str, detail: str) -> ValidationError:
    """The error of a bad argument: ``Procedure <procedure>, argument '<arg>': <detail>``."""
    return ValidationError(f"Procedure {procedure}, argument {arg!r}: {detail}")


def decode_args(proc: Procedure, args: Mapping[str, Any] | Sequence[Any] | None) -> ProcedureArgs:
    """Every parameter of ``proc`` with its checked value (absent optional ones get their default;
    a null argument counts as absent)."""
    given: dict[str, Any] = {}
    by_name = {p.name.lower(): p for p in proc.params}
    if args is None:
        args = {}
    if isinstance(args, Mapping):
        for key, value in args.items():
            if not isinstance(key, str):
                raise ValidationError(f"Procedure {proc.name}: argument names must be strings, got {key!r}")
            p = by_name.get(key.strip().lower())
            if p is None:
                raise ValidationError(
                    f"Procedure {proc.name} has no parameter {key!r}; parameters: {proc.signature}"
                )
            if p.name in given:
                raise ValidationError(f"Procedure {proc.name}: argument {p.name!r} is given twice")
            given[p.name] = value
    elif isinstance(args, (str, bytes)) or not isinstance(args, Sequence):
        raise ValidationError(
            f"Procedure {proc.name}: arguments must be a mapping or a sequence, got {type(args).__name__}"
        )
    else:
        if len(args) > len(proc.params):
            raise ValidationError(
                f"Procedure {proc.name} takes at most {len(proc.params)} arguments, got {len(args)}; "
                f"parameters: {proc.signature}"
            )
        for p, value in zip(proc.params, args):
            given[p.name] = value
    out: dict[str, Any] = {}
    for p in proc.params:
        value = given.get(p.name)
        if value is None:
            if p.required:
                raise ValidationError(
                    f"Procedure {proc.name}: missing required argument {p.name!r}; parameters: {proc.signature}"
                )
            out[p.name] = p.default
            continue
        out[p.name] = _check_type(proc, p, value)
    return ProcedureArgs(proc.name, out)


def _check_type(proc: Procedure, p: ProcedureParam, value: Any) -> Any:
    def bad(expected: str) -> ValidationError:
        return argument_error(proc.name, p.name, f"must be {expected} ({p.type}), got {type(value).__name__} {value!r}")

    if p.type == "STRING":
        if not isinstance(value, str):
            raise bad("a string")
        return value
    if p.type in _INT_RANGE:
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("an integer")
        lo, hi = _INT_RANGE[p.type]
        if not lo <= value <= hi:
            raise bad(f"an integer between {lo} and {hi}")
        return int(value)
    if p.type == "BOOLEAN":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad("a number")
    return float(value)
