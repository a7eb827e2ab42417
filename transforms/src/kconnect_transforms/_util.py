"""Helpers shared by the transforms: key/value operands, schema caches, fast struct copies."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from operator import add, attrgetter, is_, itemgetter
from typing import Any, ClassVar, Generic, TypeVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    ConnectRecord,
    DataError,
    Importance,
    ParsedConfig,
    Schema,
    SinkRecord,
    SourceRecord,
    Struct,
    Transformation,
    Type,
    record_maker,
    struct_maker,
    struct_values,
    validate_value,
)

from ._fuse import FusedReshaper, fused_batch

R = TypeVar("R", bound=ConnectRecord)
K = TypeVar("K")

# Keys every transform accepts; the runtime acts on them, the transform ignores them.
RUNTIME_KEYS = frozenset({"predicate", "negate", "type"})

REPLACE_NULL_WITH_DEFAULT = "replace.null.with.default"


def define_replace_null(config: ConfigDef) -> ConfigDef:
    return config.define(
        REPLACE_NULL_WITH_DEFAULT,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.MEDIUM,
        documentation="Whether to replace fields that have a default value and that are null "
        "to the default value. When false, the null value is used as is.",
    )


def non_empty_list(name: str, value: Any) -> None:
    """Validator: a LIST with at least one element."""
    if not value:
        # Kafka's NonEmptyListValidator, word for word (a null shows as Java prints it).
        shown = "null" if value is None else "[]"
        raise ConfigError(
            f"Invalid value {shown} for configuration {name}: Empty list", name=name, value=value
        )


def one_of_ci(*allowed: str) -> Callable[[str, Any], None]:
    """Validator: a string among ``allowed`` ignoring case (Kafka's case-insensitive ValidString)."""
    lowered = {a.lower() for a in allowed}

    def check(name: str, value: Any) -> None:
        if value is None or str(value).lower() not in lowered:
            raise ConfigError(
                f"Invalid value {value} for configuration {name}: "
                f"String must be one of: {', '.join(allowed)}",
                name=name,
                value=value,
            )

    return check


def java_regex(pattern: str, *, name: str) -> re.Pattern[str]:
    """Compile a Java regular expression; named groups ``(?<n>...)`` become Python's ``(?P<n>...)``."""
    translated = re.sub(r"\(\?<([A-Za-z][A-Za-z0-9]*)>", r"(?P<\1>", pattern)
    try:
        return re.compile(translated)
    except re.error as exc:
        raise ConfigError(
            f"Invalid value {pattern} for configuration {name}: Invalid regex: {exc}",
            name=name,
            value=pattern,
        ) from None


_JAVA_GROUP = re.compile(r"\\(.)|\$(\d+)|\$\{([A-Za-z][A-Za-z0-9]*)\}|(\$)")


def java_replacement(replacement: str, *, name: str) -> str:
    """Translate a Java ``Matcher.replaceFirst`` replacement (``$1``, ``${name}``, ``\\$``)."""

    def sub(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            ch = m.group(1)
            return "\\\\" if ch == "\\" else ch
        if m.group(2) is not None:
            return f"\\g<{m.group(2)}>"
        if m.group(3) is not None:
            return f"\\g<{m.group(3)}>"
        raise ConfigError(
            f"Invalid value {replacement} for configuration {name}: a '$' must be followed by a "
            "group number or ${name}; write \\$ for a literal dollar sign",
            name=name,
            value=replacement,
        )

    # Backslashes the user did not mean as escapes must stay literal in Python's template.
    return _JAVA_GROUP.sub(sub, replacement)


_FAST_COPY_CLASSES = frozenset({SinkRecord, SourceRecord})
_UPDATERS: dict[tuple[type, tuple[str, ...]], Callable[..., Any]] = {}


def record_updater(cls: type[R], names: tuple[str, ...]) -> Callable[..., R]:
    """A function ``(record, *values) -> copy of record with the named fields replaced``.

    Same result as ``record.new_record(**dict(zip(names, values)))``. For the SDK's own
    record classes (named tuples) it is generated once per (class, names) as one
    ``record_maker`` call over the fields in order, which is several times cheaper than the
    keyword path, and the copy of the record is most of a simple transform's cost. Other
    classes take the ordinary path.
    """
    key = (cls, names)
    found = _UPDATERS.get(key)
    if found is not None:
        return found
    if cls not in _FAST_COPY_CLASSES:

        def update(record: Any, *values: Any) -> Any:
            return record.new_record(**dict(zip(names, values, strict=True)))

        _UPDATERS[key] = update
        return update
    fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]  # the SDK's named tuples
    unknown = set(names) - set(fields)
    if unknown:
        raise TypeError(f"{cls.__name__} has no fields {sorted(unknown)}")
    namespace: dict[str, Any] = {"_make": record_maker(cls)}
    params = ", ".join(f"v{i}" for i in range(len(names)))
    items = [
        f"v{names.index(name)}" if name in names else f"record[{i}]"
        for i, name in enumerate(fields)
    ]
    # Straight-line code, no per-field loop at call time.
    body = f"({', '.join(items)},)"
    leading = len(names)
    if set(fields[:leading]) == set(names):
        # Leading fields (the topic): one slice of the rest and a concatenation, both
        # in C, cost about half of indexing every field.
        body = f"({', '.join(items[:leading])},) + record[{leading}:]"
    source = f"def update(record, {params}):\n    return _make({body})"
    exec(source, namespace)
    generated: Callable[..., R] = namespace["update"]
    _UPDATERS[key] = generated
    return generated


_TOPIC_UPDATERS: dict[type, Callable[..., Any]] = {}
_topic_of = attrgetter("topic")
_after_topic: Callable[[Any], tuple[Any, ...]] = itemgetter(slice(1, None))
_NEW_WITH_TOPIC: dict[type, Callable[[tuple[Any, ...]], Any]] = {
    cls: record_maker(cls) for cls in (SinkRecord, SourceRecord)
}


def topics_of(records: Sequence[ConnectRecord]) -> list[str]:
    """The topic of every record, in C."""
    return list(map(_topic_of, records))


def with_topics(records: Sequence[R], topics: list[str]) -> list[R] | None:
    """Copies of ``records`` with ``topics`` (one each), or None unless every record is
    of the same SDK record class.

    Each copy is the new topic in a 1-tuple (``zip``) joined to the rest of the record
    (a slice), made a record by ``record_maker``: all in C, no Python code per record.
    """
    cls = type(records[0])
    new = _NEW_WITH_TOPIC.get(cls)
    if new is None or not all(map(is_, map(type, records), repeat(cls))):
        return None
    return list(map(new, map(add, zip(topics), map(_after_topic, records))))


def topic_updater(cls: type[R]) -> Callable[[R, str], R]:
    """``record_updater(cls, ("topic",))``, found with a single dict lookup."""
    update = _TOPIC_UPDATERS.get(cls)
    if update is None:
        update = _TOPIC_UPDATERS[cls] = record_updater(cls, ("topic",))
    return update


class SchemaCache(Generic[K]):
    """Derived schemas, looked up first by identity (cheap), then by equality (as Kafka's LRU)."""

    __slots__ = ("_by_eq", "_by_id", "_size")

    def __init__(self, size: int = 64) -> None:
        self._by_id: dict[int, tuple[Schema, K]] = {}
        self._by_eq: dict[Schema, K] = {}
        self._size = size

    def get(self, schema: Schema) -> K | None:
        hit = self._by_id.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        found = self._by_eq.get(schema)
        if found is not None:
            self._remember_id(schema, found)
        return found

    def _remember_id(self, schema: Schema, value: K) -> None:
        if len(self._by_id) >= self._size * 4:
            self._by_id.clear()
        # Holding the schema keeps its id from being reused while cached.
        self._by_id[id(schema)] = (schema, value)

    def put(self, schema: Schema, value: K) -> K:
        if len(self._by_eq) >= self._size:
            self._by_eq.pop(next(iter(self._by_eq)))
        self._by_eq[schema] = value
        self._remember_id(schema, value)
        return value


# One maker per output schema, by identity (the entry keeps its schema, so an id is not
# reused while cached); transforms reuse a handful of output schemas, each many times.
_MAKERS: dict[int, tuple[Schema, Callable[[list[Any]], Struct]]] = {}


def fill_struct(schema: Schema, values: list[Any]) -> Struct:
    """A Struct of ``schema`` holding ``values`` (in field order), which must already be valid.

    Callers copy values out of a struct that was validated on ``put`` and validate any new
    value themselves (:func:`checked`), so the per-field re-validation of ``Struct.put`` is
    skipped; that is most of the cost of a schema'd transform.
    """
    return struct_filler(schema)(values)


def struct_filler(schema: Schema) -> Callable[[list[Any]], Struct]:
    """:func:`fill_struct` for one schema, to call for a whole batch."""
    found = _MAKERS.get(id(schema))
    if found is None or found[0] is not schema:
        if len(_MAKERS) > 1024:
            _MAKERS.clear()
        found = _MAKERS[id(schema)] = (schema, struct_maker(schema))
    return found[1]


def checked(transform: str, field: str, schema: Schema, value: Any) -> Any:
    """``value`` after checking it fits ``schema``; DataError names the transform and field."""
    try:
        validate_value(schema, value, path=field)
    except DataError as exc:
        raise DataError(f"{transform}: field {field!r}: {exc}") from None
    return value


def copy_schema(
    schema: Schema,
    *,
    type: Type | None = None,
    optional: bool | None = None,
    default: Any = None,
    name: str | None = None,
    version: int | None = None,
    fields: Any = None,
    keep_default: bool = False,
) -> Schema:
    """A schema with ``schema``'s name, version, doc and parameters (Kafka's ``copySchemaBasics``)."""
    return Schema(
        type or schema.type,
        optional=schema.optional if optional is None else optional,
        default=schema.default
        if keep_default and not isinstance(schema.default, Struct)
        else default,
        name=schema.name if name is None else name,
        version=schema.version if version is None else version,
        doc=schema.doc,
        parameters=schema.parameters,
        fields=schema.fields if fields is None else fields,
        key_schema=schema.key_schema,
        value_schema=schema.value_schema,
    )


def require_map(transform: str, value: Any, purpose: str) -> Mapping[str, Any]:
    # The exact-type test first: an ABC isinstance check costs more than the transform.
    if type(value) is dict:
        return value
    if not isinstance(value, Mapping):
        raise DataError(
            f"{transform}: only Map objects supported in absence of schema for [{purpose}], "
            f"found: {type(value).__name__}; use a converter that produces a map, or records "
            "with schemas"
        )
    return value


def require_struct(transform: str, value: Any, purpose: str) -> Struct:
    if not isinstance(value, Struct):
        raise DataError(
            f"{transform}: only Struct objects supported for [{purpose}], "
            f"found: {type(value).__name__}; a record with a schema must carry a Struct "
            "(check the converter), or drop the schema to use a map"
        )
    return value


def require_sink_record(transform: str, record: ConnectRecord, purpose: str) -> SinkRecord:
    if not isinstance(record, SinkRecord):
        raise DataError(
            f"{transform}: only SinkRecord supported for [{purpose}], "
            f"found: {type(record).__name__}; remove that setting for a source connector"
        )
    return record


class BaseTransform(Transformation[R]):
    """Parses config with the transform's ConfigDef and names itself in errors."""

    CONFIG_DEF: ClassVar[ConfigDef]
    #: The Java class name this transform stands in for, used in error messages.
    NAME: ClassVar[str] = ""

    def config(self) -> ConfigDef:
        return self.CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        props = {k: v for k, v in configs.items() if k not in RUNTIME_KEYS}
        self._configure(self.CONFIG_DEF.parse(props))

    def _configure(self, config: ParsedConfig) -> None:
        """Read the parsed config; override to keep what ``apply`` needs."""

    def fused_batch(
        self, following: Sequence[Transformation[R]]
    ) -> tuple[int, Callable[[Sequence[R]], list[R] | None]] | None:
        """This transform and the leading ones of ``following`` as one batch loop: how many
        (this one included) and the loop, or None. The runtime's chain offers it the
        transforms after it that have no predicate; the loop gives what their
        ``apply_batch`` calls in turn give, or None for a batch it does not take."""
        return fused_batch([self, *following])

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        apply = self.apply
        return [out for out in map(apply, records) if out is not None]


_KEY_FIELDS = ("key_schema", "key")
_VALUE_FIELDS = ("value_schema", "value")
# Per record class, the updater of the key or value side (True: key), found with one lookup.
_SIDE_UPDATERS: dict[bool, dict[type, Callable[..., Any]]] = {True: {}, False: {}}


class KeyOrValue(BaseTransform[R], FusedReshaper):
    """A transform with ``$Key`` and ``$Value`` variants: it reshapes one side of the record."""

    ON_KEY: ClassVar[bool] = False

    def operand(self, record: R) -> tuple[Schema | None, Any]:
        if self.ON_KEY:
            return record.key_schema, record.key
        return record.value_schema, record.value

    def _updater(self, cls: type[R]) -> Callable[[R, Schema | None, Any], R]:
        update = _SIDE_UPDATERS[self.ON_KEY].get(cls)
        if update is None:
            update = record_updater(cls, _KEY_FIELDS if self.ON_KEY else _VALUE_FIELDS)
            _SIDE_UPDATERS[self.ON_KEY][cls] = update
        return update

    def new_record(self, record: R, schema: Schema | None, value: Any) -> R:
        return self._updater(type(record))(record, schema, value)

    #: Transforms that reshape a plain dict without looking at a schema set this to a
    #: ``(record, dict) -> dict`` method, so ``apply_batch`` can take that path directly.
    _map_schemaless: Callable[[R, dict[str, Any]], dict[str, Any]] | None = None

    #: Transforms that reshape a Struct set this to a ``(record, struct) -> (schema,
    #: struct)`` method giving the same result as ``apply``, for ``apply_batch``.
    _map_struct: Callable[[R, Struct], tuple[Schema, Struct]] | None = None

    def _fuses(self) -> bool:
        return not self.ON_KEY and self._map_schemaless is not None

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.__dict__.pop("_batch_loops", None)  # generated from the previous config
        super().configure(configs)

    def _schemaless_lines(self, cls: type) -> tuple[list[str], dict[str, Any]] | None:
        """Straight-line code reshaping the dict ``value`` of ``record`` into ``d``.

        With the names the code uses; None when the transform has no such code. The code
        runs inside a generated batch loop (:meth:`_whole_batch`), so it must give the
        same dict as ``_map_schemaless`` for a record of the SDK's classes.
        """
        return None

    def _struct_lines(self, cls: type, schema: Schema) -> tuple[list[str], dict[str, Any]] | None:
        """Straight-line code giving ``out_values`` (a new list) from the Struct ``value``
        of ``schema``, and the names it uses, including ``_OUT_SCHEMA``, the schema of the
        new Struct; None when a record needs more than that (defaults to fill, values to
        check), which ``_map_struct`` then does record by record."""
        return None

    def _whole_batch(self, records: Sequence[R]) -> list[R] | None:
        """``apply_batch`` of a batch whose records are all alike, or None.

        Alike: one of the SDK's record classes, and every operand a schemaless dict, or
        every operand a Struct of the same schema. The loop over such a batch is
        generated once per (record class, schema) with the transform's own code inlined,
        so a record costs the reshaping and one tuple copy, with no call per record. A
        record that is not alike goes through ``apply`` in its place. None when the first
        record is not alike or the transform has no such code: the caller then runs the
        general loop.
        """
        if not records:
            return []
        first = records[0]
        cls = type(first)
        if cls not in _FAST_COPY_CLASSES:
            return None
        schema_at = 2 if self.ON_KEY else 4
        schema = first[schema_at]  # type: ignore[index]  # the SDK's named tuples
        value = first[schema_at + 1]  # type: ignore[index]
        cache = self.__dict__.setdefault("_batch_loops", {})
        if schema is None:
            if type(value) is not dict:
                return None
            key: tuple[Any, ...] = (cls, None)
        else:
            if type(value) is not Struct or value.schema is not schema:
                return None
            key = (cls, id(schema))
        found = cache.get(key)
        if found is None or found[0] is not schema:
            if len(cache) > 64:
                cache.clear()
            found = cache[key] = (schema, self._generate_loop(cls, schema_at, schema))
        loop: Callable[[Sequence[R]], list[R]] | None = found[1]
        return None if loop is None else loop(records)

    def _generate_loop(
        self, cls: type, schema_at: int, schema: Schema | None
    ) -> Callable[[Sequence[R]], list[R]] | None:
        made = self._schemaless_lines(cls) if schema is None else self._struct_lines(cls, schema)
        if made is None:
            return None
        lines, names = made
        value_at = schema_at + 1
        head = [
            "def loop(records):",
            "    out = []",
            "    append = out.append",
            "    for record in records:",
            f"        value = record[{value_at}]",
        ]
        # A record that is not alike (a tombstone, another schema or class) goes through
        # apply() on its own, in its place; the loop carries on with the next one.
        other = [
            "            result = _apply(record)",
            "            if result is not None: append(result)",
            "            continue",
        ]
        if schema is None:
            head.append(
                f"        if type(record) is not _cls or type(value) is not dict "
                f"or record[{schema_at}] is not None:"
            )
            tail = ["        new_schema, new_value = None, d"]
        else:
            head.append(
                f"        if type(record) is not _cls or type(value) is not _Struct "
                f"or record[{schema_at}] is not _SCHEMA or value.schema is not _SCHEMA:"
            )
            # The reshaper's lines read ``in_values`` and build ``out_values``.
            other.append("        in_values = _struct_values(value)")
            tail = [
                "        new_schema = _OUT_SCHEMA",
                "        new_value = _make_out(out_values)",
            ]
        tail.append(
            f"        append(_make(record[:{schema_at}] + (new_schema, new_value) "
            f"+ record[{value_at + 1}:]))"
        )
        body = ["        " + line for line in lines]
        source = "\n".join(head + other + body + tail + ["    return out"])
        namespace: dict[str, Any] = {
            **names,
            "_cls": cls,
            "_make": record_maker(cls),
            "_Struct": Struct,
            "_SCHEMA": schema,
            "_apply": self.apply,
        }
        if schema is not None:
            # Values the reshaper's lines fitted to the output schema.
            namespace["_make_out"] = struct_maker(names["_OUT_SCHEMA"])
            namespace["_struct_values"] = struct_values
        exec(compile(source, f"<{self.NAME} batch loop>", "exec"), namespace)
        generated: Callable[[Sequence[R]], list[R]] = namespace["loop"]
        return generated

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        reshape = self._map_schemaless
        reshape_struct = self._map_struct
        if reshape is None and reshape_struct is None:
            return super().apply_batch(records)
        whole = self._whole_batch(records)
        if whole is not None:
            return whole
        apply, on_key = self.apply, self.ON_KEY
        updaters = _SIDE_UPDATERS[on_key]
        out: list[R] = []
        append = out.append
        cls: type | None = None
        update: Any = None
        # The common cases, a schemaless dict or a Struct, skip apply()'s dispatch; the
        # rest goes through apply() unchanged.
        for record in records:
            value = record.key if on_key else record.value
            if type(record) is not cls:
                cls = type(record)
                update = updaters.get(cls) or self._updater(cls)
            if type(value) is dict and reshape is not None:
                if (record.key_schema if on_key else record.value_schema) is None:
                    append(update(record, None, reshape(record, value)))
                    continue
            elif (
                type(value) is Struct
                and reshape_struct is not None
                and (record.key_schema if on_key else record.value_schema) is not None
            ):
                append(update(record, *reshape_struct(record, value)))
                continue
            result = apply(record)
            if result is not None:
                append(result)
        return out

    @property
    def side(self) -> str:
        return "key" if self.ON_KEY else "value"
