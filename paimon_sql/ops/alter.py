"""Schema evolution: a new schema version from the current one plus an ordered list of changes
(``meta/schema_change.py``), applied one after the other as Paimon's
``SchemaManager.generateTableSchema`` applies its ``SchemaChange`` list; the keyword form of
``Table.alter`` is turned into such a list by ``changes_from_arguments``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.engines import engine_of
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.schema import TableSchema
from paimon_sql.meta.schema_change import (
    AddColumn,
    DropColumn,
    FieldPath,
    MoveType,
    RemoveOption,
    RenameColumn,
    SchemaChange,
    SetOption,
    UpdateColumnComment,
    UpdateColumnNullability,
    UpdateColumnPosition,
    UpdateColumnType,
    UpdateComment,
)
from paimon_sql.options import CoreOptions, check_implemented, validate_options
from paimon_sql.options.support import NOT_DYNAMIC, option_change_error, option_reset_error
from paimon_sql.options.validation import check_full_compaction_delta_commits
from paimon_sql.scan.default_values import check_default_values
from paimon_sql.type_casts import alter_cast_exists, explain, supports_cast
from paimon_sql.types import DataField, DataType, assign_field_ids


def check_column_name(name: object, table: str) -> str:
    """A column name: a non-blank string (Paimon's rule) without control characters."""
    if not isinstance(name, str) or not name.strip() or any(ord(c) < 32 for c in name):
        raise ValidationError(f"Invalid column name {name!r} for table {table}: a column needs a non-blank name")
    return name


_RENAMED_FIELD_OPTIONS = ("aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter")


def rename_in_options(options: Mapping[str, str], renames: Mapping[str, str]) -> dict[str, str]:
    """The options after renaming columns, as Paimon's SchemaManager rewrites them: column lists in
    ``bucket-key`` and ``sequence.field``, the column in ``fields.<col>.<aggregate-function |
    ignore-retract | distinct | list-agg-delimiter>`` keys, and both sides of
    ``fields.<cols>.<sequence-group | nested-key>``."""

    def rename_list(text: str) -> str:
        return ",".join(renames.get(c, c) for c in text.split(","))

    out: dict[str, str] = {}
    for key, value in options.items():
        if key in ("bucket-key", "sequence.field") and value.strip():
            out[key] = rename_list(value)
            continue
        if key.startswith("fields.") and key.count(".") >= 2:
            cols, suffix = key[len("fields."):].rsplit(".", 1)
            if suffix in _RENAMED_FIELD_OPTIONS and cols in renames:
                out[f"fields.{renames[cols]}.{suffix}"] = value
                continue
            if suffix in ("sequence-group", "nested-key"):
                out[f"fields.{rename_list(cols)}.{suffix}"] = rename_list(value)
                continue
        out[key] = value
    return out


ALTER_ARGUMENTS = ("add_columns", "drop_columns", "rename_columns", "change_types", "set_options",
                   "remove_options", "comment", "column_comments")


def _schema_like(v: object) -> bool:
    if isinstance(v, pa.Schema):
        return True
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        return False
    try:
        pa.schema(list(v))
    except (TypeError, ValueError, pa.ArrowException):
        return False
    return True


def _check_arguments(table: str, **args: object) -> None:
    """Each argument of ``alter_schema`` has the shape it documents; else a ValidationError naming it."""

    def bad(name: str, expected: str) -> ValidationError:
        return ValidationError(f"alter of table {table}: {name} must be {expected}, got {args[name]!r}")

    def names(v: object) -> bool:
        return isinstance(v, Sequence) and not isinstance(v, (str, bytes)) and all(isinstance(x, str) for x in v)

    def mapping(v: object, value_ok: Callable[[object], bool]) -> bool:
        return isinstance(v, Mapping) and all(isinstance(k, str) and value_ok(x) for k, x in v.items())

    checks: dict[str, tuple[Callable[[object], bool], str]] = {
        "add_columns": (_schema_like, "a pyarrow.Schema or a list of pyarrow.Field / (name, type) pairs"),
        "drop_columns": (names, "a list of column names"),
        "remove_options": (names, "a list of option keys"),
        "rename_columns": (lambda v: mapping(v, lambda x: isinstance(x, str)), "a dict of old name -> new name"),
        "change_types": (lambda v: mapping(v, lambda x: isinstance(x, pa.DataType)), "a dict of column -> pyarrow type"),
        "set_options": (lambda v: mapping(v, lambda x: isinstance(x, (str, int, float, bool))),
                        "a dict of option key -> value"),
        "column_comments": (lambda v: mapping(v, lambda x: x is None or isinstance(x, str)), "a dict of column -> comment"),
        "comment": (lambda v: isinstance(v, str), "a string"),
    }
    for name, value in args.items():
        ok, expected = checks[name]
        if value is not None and not ok(value):
            raise bad(name, expected)


def changes_from_arguments(table: str, **args: Any) -> list[SchemaChange]:
    """The changes of ``Table.alter``'s keyword arguments, in the order they were always applied:
    drops, renames, type changes, added columns, column comments, options set, options removed,
    the table comment."""
    _check_arguments(table, **args)
    changes: list[SchemaChange] = []
    changes += [DropColumn((n,)) for n in args.get("drop_columns") or ()]
    changes += [RenameColumn((old,), new) for old, new in (args.get("rename_columns") or {}).items()]
    changes += [UpdateColumnType.of_arrow(n, t) for n, t in (args.get("change_types") or {}).items()]
    add = args.get("add_columns")
    if add:
        changes += [AddColumn.of_arrow(f) for f in (add if isinstance(add, pa.Schema) else pa.schema(list(add)))]
    changes += [UpdateColumnComment((n, ), c or None) for n, c in (args.get("column_comments") or {}).items()]
    changes += [SetOption(str(k), str(v)) for k, v in (args.get("set_options") or {}).items()]
    changes += [RemoveOption(k) for k in args.get("remove_options") or ()]
    if args.get("comment") is not None:
        changes.append(UpdateComment(args["comment"]))
    return changes


def alter_schema(store: FileStore, **args: Any) -> TableSchema:
    """The next schema after ``Table.alter``'s keyword arguments (see ``changes_from_arguments``)."""
    return apply_changes(store, changes_from_arguments(store.name, **args))


def alter_table(store: FileStore, changes: Sequence[SchemaChange], arguments: Mapping[str, Any]) -> TableSchema:
    """``Table.alter``: the schema after ``changes`` (values) or ``arguments`` (its keyword
    arguments, never both), written as the table's next schema version."""
    unknown = sorted(set(arguments) - set(ALTER_ARGUMENTS))
    if unknown:
        raise ValidationError(
            f"alter of table {store.name}: unknown argument(s) {unknown}; "
            f"expected any of {list(ALTER_ARGUMENTS)}"
        )
    if changes and arguments:
        raise ValidationError(
            f"alter of table {store.name}: give schema changes or keyword arguments, not both"
        )
    todo = list(changes) or changes_from_arguments(store.name, **arguments)
    new_schema = apply_changes(store, todo)
    store.schemas.commit(new_schema)
    return new_schema


def with_dynamic_options(schema: TableSchema, table: str, dynamic_options: Mapping[str, str]) -> TableSchema | None:
    """``schema`` with ``dynamic_options`` over its options (``Table.copy``), None when they change
    nothing. Paimon's checkImmutability: the rules of ALTER TABLE on a table with data, and the
    options that are never dynamic; the merged options are validated."""
    dyn = {str(k): str(v) for k, v in dynamic_options.items()}
    current = schema.options
    changed = {k: v for k, v in dyn.items()
               if current.get(k) != v and not unchanged_option(k, current.get(k), v, schema)}
    if not changed:
        return None
    for key in sorted(changed):
        if key in NOT_DYNAMIC:
            raise UnsupportedError(
                f"Table {table}: option {key!r} cannot be changed by a dynamic (per-read or "
                f"session) option (set to {changed[key]!r})"
            )
        error = option_change_error(current, key, current.get(key), changed[key])
        if error:
            raise UnsupportedError(error)
    merged = {**current, **changed}
    validate_options(merged, table, columns=schema.field_names)
    check_implemented(changed, table)
    return dataclasses.replace(schema, options=merged)


def unchanged_option(key: str, old: str | None, new: str, schema: TableSchema) -> bool:
    """Paimon's isUnchangedNormalizedKey: 'type' compares case-insensitively (unset is 'table');
    'primary-key' / 'partition', kept in the schema and not in the options, are unchanged when they
    name the table's keys."""
    if key == "type":
        return new.lower() == (old if old is not None else "table").lower()
    if old is not None:
        return False
    names = [n.strip() for n in new.split(",") if n.strip()]
    if key == "primary-key":
        return names == list(schema.primary_keys)
    if key == "partition":
        return names == list(schema.partition_keys)
    return False


def _flag(options: Mapping[str, str], key: str, default: bool) -> bool:
    """A boolean option of the schema before the ALTER (as Paimon reads it: Boolean.parseBoolean)."""
    value = options.get(key)
    return default if value is None else value.strip().lower() == "true"


def _not_nested(path: FieldPath) -> str | None:
    """The column of a top-level path (keys and partition columns are never nested)."""
    return path[0] if len(path) == 1 else None


def _descend(t: DataType, steps: FieldPath) -> DataType:
    """The type reached from ``t`` through ``element`` / ``value`` steps (Paimon's getRootType)."""
    for step in steps:
        t = t.element if step == "element" else t.value  # type: ignore[attr-defined]
    return t


def _replace(t: DataType, steps: FieldPath, new: DataType) -> DataType:
    """``t`` with the type at ``steps`` replaced (Paimon's getArrayMapTypeWithTargetTypeRoot)."""
    if not steps:
        return new
    if isinstance(t, pt.ArrayType):
        return dataclasses.replace(t, element=_replace(t.element, steps[1:], new))
    assert isinstance(t, pt.MapType)
    return dataclasses.replace(t, value=_replace(t.value, steps[1:], new))


class _Draft:
    """The schema being built: each change is applied to it in order."""

    def __init__(self, store: FileStore) -> None:
        self.store = store
        self.schema = store.schema
        self.table = store.name
        self.fields: list[DataField] = list(self.schema.fields)
        self.options = dict(self.schema.options)
        self.comment = self.schema.comment
        self.highest = self.schema.highest_field_id
        self.primary_keys = list(self.schema.primary_keys)
        self.protected = set(self.schema.primary_keys) | set(self.schema.partition_keys)
        self.null_to_not_null_disabled = _flag(self.schema.options, "alter-column-null-to-not-null.disabled", True)
        self.explicit_casts = not _flag(self.schema.options, "disable-explicit-type-casting", False)
        self.add_before_partition = _flag(self.schema.options, "add-column-before-partition", False)
        self.set_keys: set[str] = set()
        self.touched_keys: set[str] = set()
        self._has_snapshots: bool | None = None

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def has_snapshots(self) -> bool:
        if self._has_snapshots is None:
            self._has_snapshots = self.store.snapshots.latest_id() is not None
        return self._has_snapshots

    def apply(self, change: SchemaChange) -> None:
        handler = _HANDLERS.get(type(change))
        if handler is None:
            raise UnsupportedError(f"alter of table {self.table}: change {change!r} is not supported")
        handler(self, change)

    # -- options and comment -----------------------------------------------------------------------
    def set_option(self, ch: SetOption) -> None:
        key, value = str(ch.key), str(ch.value)
        old = self.schema.options.get(key)  # as Paimon: the option before this ALTER
        if old == value or unchanged_option(key, old, value, self.schema):
            return
        if key == "type":  # even on an empty table, as Paimon (format tables hold data but no snapshot)
            raise UnsupportedError("Change 'type' is not supported yet.")
        if self.has_snapshots():
            error = option_change_error(self.schema.options, key, old, value)
            if error:
                raise UnsupportedError(error)
        if key in ("primary-key", "partition"):
            raise ValidationError(f"Option {key!r} of table {self.table} cannot be changed")
        self.options[key] = value
        self.set_keys.add(key)
        self.touched_keys.add(key)

    def remove_option(self, ch: RemoveOption) -> None:
        key = str(ch.key)
        if key == "type":
            raise UnsupportedError("Change 'type' is not supported yet.")
        if self.has_snapshots():
            error = option_reset_error(self.schema.options, key)
            if error:
                raise UnsupportedError(error)
        self.options.pop(key, None)
        self.set_keys.discard(key)
        self.touched_keys.add(key)

    def update_comment(self, ch: UpdateComment) -> None:
        self.comment = ch.comment

    # -- columns -----------------------------------------------------------------------------------
    def _edit(self, path: FieldPath, op: Callable[[list[DataField], str], list[DataField]], what: str) -> None:
        """Applies ``op`` to the fields of the ROW that holds the last name of ``path`` (the table's
        columns for a top-level path); ``element`` / ``value`` step into an ARRAY's elements or a
        MAP's values, as Paimon's nested field paths do."""
        dotted = ".".join(path)

        def missing(name: str) -> ValidationError:
            return ValidationError(f"{what} {dotted!r} of table {self.table}: column {name!r} does not exist")

        def in_type(t: DataType, rest: FieldPath) -> DataType:
            if isinstance(t, pt.RowType):
                return dataclasses.replace(t, fields=tuple(in_fields(list(t.fields), rest)))
            if isinstance(t, pt.ArrayType) and rest[0] == "element" and len(rest) > 1:
                return dataclasses.replace(t, element=in_type(t.element, rest[1:]))
            if isinstance(t, pt.MapType) and rest[0] == "value" and len(rest) > 1:
                return dataclasses.replace(t, value=in_type(t.value, rest[1:]))
            raise ValidationError(f"{what} {dotted!r} of table {self.table}: {rest[0]!r} is not a field of a ROW type")

        def in_fields(fields: list[DataField], rest: FieldPath) -> list[DataField]:
            if len(rest) == 1:
                return op(fields, rest[0])
            for i, f in enumerate(fields):
                if f.name == rest[0]:
                    out = list(fields)
                    out[i] = dataclasses.replace(f, type=in_type(f.type, rest[1:]))
                    return out
            raise missing(rest[0])

        self.fields = in_fields(self.fields, path)

    def add_column(self, ch: AddColumn) -> None:
        path = ch.field_names
        name = check_column_name(path[-1], self.table)
        dotted = ".".join(path)
        if not ch.data_type.nullable:  # Paimon's message
            raise ValidationError(f"Column {dotted} cannot specify NOT NULL in the {self.table} table.")

        def op(fields: list[DataField], _: str) -> list[DataField]:
            names = [f.name for f in fields]
            if name in names:
                raise ValidationError(f"Cannot add column {dotted!r} to table {self.table}: it exists")
            (field,), self.highest = assign_field_ids([(name, ch.data_type, ch.comment)], self.highest + 1)
            at = len(fields)
            if ch.move is None and self.add_before_partition and len(path) == 1 and self.schema.partition_keys:
                at = next((i for i, n in enumerate(names) if n in self.schema.partition_keys), at)
            move = ch.move
            if move is not None and move.type != MoveType.LAST:
                if move.field_name not in (name, dotted):
                    raise ValidationError(
                        f"Cannot add column {dotted!r} to table {self.table}: its position names column {move.field_name!r}"
                    )
                if move.type == MoveType.FIRST:
                    at = 0
                else:
                    ref = move.reference
                    if ref is not None and ref not in names and "." in ref:
                        ref = ref.rsplit(".", 1)[1]
                    if ref not in names:
                        raise ValidationError(
                            f"Cannot add column {dotted!r} {move.type.value} {move.reference!r} to table {self.table}: "
                            f"column {move.reference!r} does not exist"
                        )
                    at = names.index(ref) + (1 if move.type == MoveType.AFTER else 0)
            out = list(fields)
            out.insert(at, field)
            return out

        self._edit(path, op, "Cannot add column")

    def drop_column(self, ch: DropColumn) -> None:
        path = ch.field_names
        dotted = ".".join(path)
        if len(path) == 1 and path[0] in self.protected:  # Paimon's message
            raise UnsupportedError(
                f"Cannot drop partition key or primary key: [{dotted}] (cannot drop column {dotted!r} of table {self.table})"
            )

        def op(fields: list[DataField], name: str) -> list[DataField]:
            self._index(fields, name, "Cannot drop column", dotted)
            out = [f for f in fields if f.name != name]
            if not out:
                what = "all columns" if len(path) == 1 else f"all fields of {'.'.join(path[:-1])!r}"
                raise ValidationError(f"Cannot drop {what} of table {self.table}")
            return out

        self._edit(path, op, "Cannot drop column")

    def rename_column(self, ch: RenameColumn) -> None:
        path = ch.field_names
        dotted = ".".join(path)
        new = check_column_name(ch.new_name, self.table)
        if _not_nested(path) in self.schema.partition_keys:  # Paimon's message; primary keys may be renamed
            raise UnsupportedError(f"Cannot rename partition column: [{dotted}] (table {self.table})")

        def op(fields: list[DataField], old: str) -> list[DataField]:
            self._index(fields, old, "Cannot rename column", dotted)
            if new in [f.name for f in fields]:
                raise ValidationError(f"Cannot rename column {dotted!r} of table {self.table} to {new!r}: that name exists")
            return [dataclasses.replace(f, name=new) if f.name == old else f for f in fields]

        self._edit(path, op, "Cannot rename column")
        if len(path) == 1:
            self.options = rename_in_options(self.options, {path[0]: new})
            self.primary_keys = [new if k == path[0] else k for k in self.primary_keys]
            if path[0] in self.protected:
                self.protected = (self.protected - {path[0]}) | {new}

    def _type_path(self, path: FieldPath) -> tuple[FieldPath, FieldPath]:
        """``path`` split into the column / ROW field it names and the ``element`` / ``value`` steps
        into that field's ARRAY / MAP type after it (``v.element`` is the element type of array
        ``v``, as Paimon's nested type changes name it); no steps for a path that ends at a field."""
        fields: Sequence[DataField] | None = self.fields
        t: DataType | None = None
        end = 0
        for i, name in enumerate(path):
            if fields is not None:
                f = next((f for f in fields if f.name == name), None)
                if f is None:
                    return path, ()
                t, end = f.type, i + 1
            elif isinstance(t, pt.ArrayType) and name == "element":
                t = t.element
            elif isinstance(t, pt.MapType) and name == "value":
                t = t.value
            else:
                return path, ()
            fields = t.fields if isinstance(t, pt.RowType) else None
        return path[:end], path[end:]

    def _check_nullability(self, old_nullable: bool, new_nullable: bool, dotted: str) -> None:
        """Paimon's assertNullabilityChange: NULL -> NOT NULL only with
        'alter-column-null-to-not-null.disabled' = 'false'."""
        if self.null_to_not_null_disabled and old_nullable and not new_nullable:
            raise UnsupportedError(
                f"Cannot update column type from nullable to non nullable for {dotted}. You can set table "
                "configuration option 'alter-column-null-to-not-null.disabled' = 'false' to allow converting "
                f"null columns to not null (table {self.table})"
            )

    def update_column_type(self, ch: UpdateColumnType) -> None:
        """Paimon's rules: never a partition or primary-key column; the new type must be castable
        from the old (DataTypeCasts.supportsCast, explicit casts unless 'disable-explicit-type-casting')
        with a cast rule Paimon's readers apply to old files (casting.py)."""
        path = ch.field_names
        dotted = ".".join(path)
        top = _not_nested(path)
        if top in self.schema.partition_keys:
            raise UnsupportedError(f"Cannot update partition column: [{dotted}] (table {self.table})")
        if top in self.primary_keys:
            raise UnsupportedError(f"Cannot update primary key (column {dotted!r} of table {self.table})")

        field_path, steps = self._type_path(path)

        def op(fields: list[DataField], name: str) -> list[DataField]:
            i = self._index(fields, name, "Cannot change the type of column", dotted)
            old_t = _descend(fields[i].type, steps)
            if ch.keep_nullability:
                new_t = ch.new_type.copy(old_t.nullable)
            else:
                new_t = ch.new_type
                self._check_nullability(old_t.nullable, new_t.nullable, dotted)
            if not (supports_cast(old_t, new_t, self.explicit_casts) and alter_cast_exists(old_t, new_t)):
                raise ValidationError(explain(old_t, new_t, name) + f" (table {self.table})")
            out = list(fields)
            out[i] = dataclasses.replace(fields[i], type=_replace(fields[i].type, steps, new_t))
            return out

        self._edit(field_path, op, "Cannot change the type of column")

    def update_column_nullability(self, ch: UpdateColumnNullability) -> None:
        path = ch.field_names
        dotted = ".".join(path)
        if ch.nullable and _not_nested(path) in self.primary_keys:  # Paimon's message
            raise UnsupportedError(f"Cannot change nullability of primary key (column {dotted!r} of table {self.table})")

        field_path, steps = self._type_path(path)

        def op(fields: list[DataField], name: str) -> list[DataField]:
            i = self._index(fields, name, "Cannot change the nullability of column", dotted)
            old_t = _descend(fields[i].type, steps)
            self._check_nullability(old_t.nullable, ch.nullable, dotted)
            out = list(fields)
            out[i] = dataclasses.replace(fields[i], type=_replace(fields[i].type, steps, old_t.copy(ch.nullable)))
            return out

        self._edit(field_path, op, "Cannot change the nullability of column")

    def update_column_position(self, ch: UpdateColumnPosition) -> None:
        """Paimon's applyMove: FIRST / LAST / AFTER / BEFORE a column of the same ROW; moving a
        column next to itself (or first when it is first, last when last) is refused."""
        move = ch.move
        what = "Cannot move column"

        def op(fields: list[DataField], _: str) -> list[DataField]:
            names = [f.name for f in fields]
            if move.field_name not in names:
                raise ValidationError(f"Field name not found: {move.field_name} (table {self.table})")
            at = names.index(move.field_name)

            def itself(other: int) -> None:
                if other == at:
                    raise UnsupportedError(f"Cannot move itself for column {move.field_name} (table {self.table})")

            if move.type in (MoveType.FIRST, MoveType.LAST):
                target = 0 if move.type == MoveType.FIRST else len(fields) - 1
                itself(target)
            else:
                if move.reference not in names:
                    raise ValidationError(f"Reference field name not found: {move.reference} (table {self.table})")
                ref = names.index(move.reference)
                itself(ref)
                target = ref
                if move.type == MoveType.AFTER and at > ref:
                    target += 1
                if move.type == MoveType.BEFORE and at < ref:
                    target -= 1
                target = min(target, len(fields) - 1)
            out = list(fields)
            out.insert(target, out.pop(at))
            return out

        self._edit((*ch.parent, move.field_name), op, what)

    def update_column_comment(self, ch: UpdateColumnComment) -> None:
        path = ch.field_names
        dotted = ".".join(path)

        def op(fields: list[DataField], name: str) -> list[DataField]:
            i = self._index(fields, name, "Cannot comment on column", dotted)
            out = list(fields)
            out[i] = dataclasses.replace(fields[i], description=ch.comment or None)
            return out

        self._edit(path, op, "Cannot comment on column")

    def _index(self, fields: list[DataField], name: str, what: str, dotted: str) -> int:
        """Where column ``name`` is in ``fields``; ``what`` (e.g. "Cannot drop column") starts the
        error when it is not there."""
        for i, f in enumerate(fields):
            if f.name == name:
                return i
        raise ValidationError(f"{what} {dotted!r} of table {self.table}: it does not exist")

    # -- the result ----------------------------------------------------------------------------------
    def result(self) -> TableSchema:
        table, options, names = self.table, self.options, self.names
        validate_options(options, table, columns=names)
        original = self.schema.options
        check_implemented({k: options[k] for k in sorted(self.set_keys) if original.get(k) != options.get(k)}, table)
        pks = list(self.primary_keys)
        check_default_values(self.fields, pks, self.schema.partition_keys, options, table)
        if self.touched_keys & {"full-compaction.delta-commits", "write-only"}:
            check_full_compaction_delta_commits(CoreOptions(options, table), bool(pks), table)
        if pks:  # the merge engine's options against the new columns, as CREATE TABLE checks them
            core = CoreOptions(options, table)
            engine_of(core).spec(core, pks, self.fields, pks, table)
        return TableSchema(
            id=self.schema.id + 1,
            fields=tuple(self.fields),
            highest_field_id=self.highest,
            partition_keys=self.schema.partition_keys,
            primary_keys=tuple(pks),
            options=options,
            comment=self.comment,
            time_millis=TableSchema.now_ms(),
        )


_HANDLERS: dict[type, Callable[[_Draft, Any], None]] = {
    SetOption: _Draft.set_option,
    RemoveOption: _Draft.remove_option,
    UpdateComment: _Draft.update_comment,
    AddColumn: _Draft.add_column,
    DropColumn: _Draft.drop_column,
    RenameColumn: _Draft.rename_column,
    UpdateColumnType: _Draft.update_column_type,
    UpdateColumnNullability: _Draft.update_column_nullability,
    UpdateColumnPosition: _Draft.update_column_position,
    UpdateColumnComment: _Draft.update_column_comment,
}


def apply_changes(store: FileStore, changes: Sequence[SchemaChange]) -> TableSchema:
    """The schema after ``changes``, applied in order to the table's current schema (Paimon's
    SchemaManager.generateTableSchema). Nothing is written: the caller commits the result."""
    for ch in changes:
        if not isinstance(ch, SchemaChange):
            raise ValidationError(f"alter of table {store.name}: {ch!r} is not a schema change")
    draft = _Draft(store)
    for ch in changes:
        draft.apply(ch)
    return draft.result()
