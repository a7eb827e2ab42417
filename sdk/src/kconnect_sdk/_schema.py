"""Connect schemas: types, fields, the fluent builder, and value validation."""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from ._errors import DataError, SchemaBuilderError

__all__ = [
    "Field",
    "Schema",
    "SchemaAndValue",
    "SchemaBuilder",
    "Type",
    "validate_value",
]

_EMPTY: Final[Mapping[str, str]] = MappingProxyType({})


class Type(StrEnum):
    """Schema types, named as Kafka Connect names them (``Schema.Type.getName()``)."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    @property
    def is_primitive(self) -> bool:
        return self not in (Type.ARRAY, Type.MAP, Type.STRUCT)


_INT_RANGES: Final = {
    Type.INT8: (-(2**7), 2**7 - 1),
    Type.INT16: (-(2**15), 2**15 - 1),
    Type.INT32: (-(2**31), 2**31 - 1),
    Type.INT64: (-(2**63), 2**63 - 1),
}


@dataclass(frozen=True, slots=True)
class Field:
    """A struct field: its name, position and schema."""

    name: str
    index: int
    schema: Schema


class Schema:
    """An immutable Connect schema.

    Build one with :class:`SchemaBuilder` or use the ready-made constants
    (``Schema.STRING``, ``Schema.OPTIONAL_INT64``...). Two schemas are equal when every
    property is equal, as in Kafka Connect's ``ConnectSchema.equals``.
    """

    __slots__ = (
        "_field_map",
        "default",
        "doc",
        "fields",
        "key_schema",
        "name",
        "optional",
        "parameters",
        "type",
        "value_schema",
        "version",
    )

    type: Type
    optional: bool
    default: Any
    name: str | None
    version: int | None
    doc: str | None
    parameters: Mapping[str, str]
    fields: tuple[Field, ...]
    key_schema: Schema | None
    value_schema: Schema | None
    _field_map: Mapping[str, Field]

    # Ready-made primitives, assigned below the class.
    INT8: Schema
    INT16: Schema
    INT32: Schema
    INT64: Schema
    FLOAT32: Schema
    FLOAT64: Schema
    BOOLEAN: Schema
    STRING: Schema
    BYTES: Schema
    OPTIONAL_INT8: Schema
    OPTIONAL_INT16: Schema
    OPTIONAL_INT32: Schema
    OPTIONAL_INT64: Schema
    OPTIONAL_FLOAT32: Schema
    OPTIONAL_FLOAT64: Schema
    OPTIONAL_BOOLEAN: Schema
    OPTIONAL_STRING: Schema
    OPTIONAL_BYTES: Schema

    def __init__(
        self,
        type: Type,
        *,
        optional: bool = False,
        default: Any = None,
        name: str | None = None,
        version: int | None = None,
        doc: str | None = None,
        parameters: Mapping[str, str] | None = None,
        fields: Sequence[Field] = (),
        key_schema: Schema | None = None,
        value_schema: Schema | None = None,
    ) -> None:
        if type is not Type.STRUCT and fields:
            raise SchemaBuilderError(f"only struct schemas have fields, not {type.value}")
        if type is Type.ARRAY and value_schema is None:
            raise SchemaBuilderError("an array schema needs a value schema")
        if type is Type.MAP and (key_schema is None or value_schema is None):
            raise SchemaBuilderError("a map schema needs a key schema and a value schema")
        set_ = object.__setattr__
        set_(self, "type", type)
        set_(self, "optional", optional)
        set_(self, "name", name)
        set_(self, "version", version)
        set_(self, "doc", doc)
        set_(self, "parameters", MappingProxyType(dict(parameters)) if parameters else _EMPTY)
        set_(self, "fields", tuple(fields))
        set_(self, "key_schema", key_schema)
        set_(self, "value_schema", value_schema)
        set_(self, "_field_map", MappingProxyType({f.name: f for f in self.fields}))
        # Set before validating: a struct default is checked against this very schema.
        set_(self, "default", None)
        if default is not None:
            try:
                if type is Type.STRUCT:
                    _validate_struct_default(self, default)
                else:
                    validate_value(self, default)
            except DataError as exc:
                raise SchemaBuilderError(f"invalid default value: {exc}") from exc
            set_(self, "default", default)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Schema is immutable; cannot set {name!r}")

    @classmethod
    def _untyped(
        cls, type: Type, key_schema: Schema | None = None, value_schema: Schema | None = None
    ) -> Schema:
        """An ARRAY or MAP schema missing its element (or key/value) schema.

        Only ``Values.parse_string`` makes these, as Kafka's ``Values`` does for empty,
        all-null and mixed arrays and maps; ``SchemaBuilder`` refuses them.
        """
        schema = cls.__new__(cls)
        set_ = object.__setattr__
        for attr, value in (
            ("type", type),
            ("optional", False),
            ("name", None),
            ("version", None),
            ("doc", None),
            ("parameters", _EMPTY),
            ("fields", ()),
            ("key_schema", key_schema),
            ("value_schema", value_schema),
            ("_field_map", _EMPTY),
            ("default", None),
        ):
            set_(schema, attr, value)
        return schema

    def replace(self, **changes: Any) -> Schema:
        """A copy with some properties changed, e.g. ``schema.replace(optional=True)``.

        Takes the keyword arguments of the constructor; the new schema is validated as any
        other (a default must still suit it).
        """
        props: dict[str, Any] = {
            "optional": self.optional,
            "default": self.default,
            "name": self.name,
            "version": self.version,
            "doc": self.doc,
            "parameters": self.parameters,
            "fields": self.fields,
            "key_schema": self.key_schema,
            "value_schema": self.value_schema,
        }
        unknown = set(changes) - props.keys()
        if unknown:
            raise TypeError(f"Schema.replace() got unknown properties: {sorted(unknown)}")
        props.update(changes)
        return Schema(self.type, **props)

    def field(self, name: str) -> Field | None:
        """The field called ``name``, or None. Raises DataError on a non-struct schema."""
        if self.type is not Type.STRUCT:
            raise DataError(f"cannot look up fields on a non-struct {self.type.value} schema")
        return self._field_map.get(name)

    def _key(self) -> tuple[Any, ...]:
        return (
            self.type,
            self.optional,
            self.name,
            self.version,
            self.doc,
            tuple(sorted(self.parameters.items())),
            tuple((f.name, f.schema) for f in self.fields),
            self.key_schema,
            self.value_schema,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema):
            return NotImplemented
        return self._key() == other._key() and _defaults_equal(self.default, other.default)

    def __hash__(self) -> int:
        return hash((self.type, self.optional, self.name, self.version, len(self.fields)))

    def __repr__(self) -> str:
        parts = [self.type.name]
        if self.name:
            parts.append(f"name={self.name!r}")
        if self.optional:
            parts.append("optional")
        if self.fields:
            parts.append("fields=[" + ", ".join(f.name for f in self.fields) + "]")
        return "Schema(" + ", ".join(parts) + ")"


def _validate_struct_default(schema: Schema, default: Any) -> None:
    """A struct default is a Struct of this schema, built before the schema was complete.

    Kafka builds it on the SchemaBuilder itself, so its schema may lack the default and
    the builder's later ``optional()``: both are ignored here; fields must match.
    """
    if not isinstance(default, StructValue):
        raise DataError(
            f"invalid value: expected a Struct for schema type struct, got {type(default).__name__}"
        )
    own = default.schema
    if (own.name, own.version, own.doc, dict(own.parameters), own.fields) != (
        schema.name,
        schema.version,
        schema.doc,
        dict(schema.parameters),
        schema.fields,
    ):
        raise DataError("struct schemas do not match")
    default.validate()


def same_struct_schema(actual: Schema, expected: Schema) -> bool:
    """Whether a Struct built on ``actual`` is a value of ``expected``.

    Equal schemas match, and so do schemas that differ only in their own default: a
    struct schema's default is a Struct built on the schema without that default (as in
    Kafka, where the default Struct is built on the SchemaBuilder), and the values of a
    schema with a default are built on it too.
    """
    return actual is expected or actual == expected or actual._key() == expected._key()


def _defaults_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bytes | bytearray | memoryview) and isinstance(
        b, bytes | bytearray | memoryview
    ):
        return bytes(a) == bytes(b)
    return bool(a == b)


for _t in Type:
    if _t.is_primitive:
        setattr(Schema, _t.name, Schema(_t))
        setattr(Schema, "OPTIONAL_" + _t.name, Schema(_t, optional=True))


class StructValue:
    """What a STRUCT schema's values are; :class:`~kconnect_sdk.Struct` is the one kind.

    Declared beside the schemas so that checking a value (a field's default, a nested
    struct) needs no import of the class that is itself built on schemas.
    """

    __slots__ = ()
    schema: Schema

    def get_without_default(self, name: str | Field) -> Any:
        raise NotImplementedError

    def validate(self) -> None:
        raise NotImplementedError


class SchemaAndValue(NamedTuple):
    """A value together with its schema (either may be None)."""

    schema: Schema | None
    value: Any


SchemaAndValue.NULL = SchemaAndValue(None, None)  # type: ignore[attr-defined]  # Kafka's constant


class SchemaBuilder:
    """Fluent construction of a :class:`Schema`, as Kafka Connect's ``SchemaBuilder``.

    Example:
        >>> schema = (SchemaBuilder.struct().name("com.example.Order")
        ...     .field("id", Schema.INT64).field("note", Schema.OPTIONAL_STRING).build())
    """

    def __init__(self, type: Type) -> None:
        if not isinstance(type, Type):
            raise SchemaBuilderError(f"a schema needs a type, got {type!r}")
        self._type = type
        self._optional: bool | None = None
        self._default: Any = None
        self._default_set = False
        self._name: str | None = None
        self._version: int | None = None
        self._doc: str | None = None
        self._parameters: dict[str, str] = {}
        self._fields: list[Field] = []
        self._key_schema: Schema | None = None
        self._value_schema: Schema | None = None

    # -- factories -------------------------------------------------------------------
    @classmethod
    def type(cls, type: Type) -> SchemaBuilder:
        return cls(type)

    @classmethod
    def int8(cls) -> SchemaBuilder:
        return cls(Type.INT8)

    @classmethod
    def int16(cls) -> SchemaBuilder:
        return cls(Type.INT16)

    @classmethod
    def int32(cls) -> SchemaBuilder:
        return cls(Type.INT32)

    @classmethod
    def int64(cls) -> SchemaBuilder:
        return cls(Type.INT64)

    @classmethod
    def float32(cls) -> SchemaBuilder:
        return cls(Type.FLOAT32)

    @classmethod
    def float64(cls) -> SchemaBuilder:
        return cls(Type.FLOAT64)

    @classmethod
    def boolean(cls) -> SchemaBuilder:
        return cls(Type.BOOLEAN)

    @classmethod
    def string(cls) -> SchemaBuilder:
        return cls(Type.STRING)

    @classmethod
    def bytes(cls) -> SchemaBuilder:
        return cls(Type.BYTES)

    @classmethod
    def struct(cls) -> SchemaBuilder:
        return cls(Type.STRUCT)

    @classmethod
    def array(cls, value_schema: Schema) -> SchemaBuilder:
        if value_schema is None:
            raise SchemaBuilderError("an array schema needs a value schema, got None")
        builder = cls(Type.ARRAY)
        builder._value_schema = value_schema
        return builder

    @classmethod
    def map(cls, key_schema: Schema, value_schema: Schema) -> SchemaBuilder:
        if key_schema is None or value_schema is None:
            raise SchemaBuilderError("a map schema needs a key schema and a value schema")
        builder = cls(Type.MAP)
        builder._key_schema = key_schema
        builder._value_schema = value_schema
        return builder

    # -- properties --------------------------------------------------------------------
    def _check_unset(self, what: str, current: object, new: object = None) -> None:
        # As Kafka: setting a property again to the same value is allowed.
        if current is not None and current != new:
            raise SchemaBuilderError(f"schema {what} has already been set to {current!r}")

    def optional(self) -> SchemaBuilder:
        self._check_unset("optionality", self._optional, True)
        self._optional = True
        return self

    def required(self) -> SchemaBuilder:
        self._check_unset("optionality", self._optional, False)
        self._optional = False
        return self

    def default_value(self, value: Any) -> SchemaBuilder:
        """Set the default; checked now against the schema as built so far, as Kafka does
        (a struct default is checked at ``build``, once its fields are known)."""
        if self._default_set:
            raise SchemaBuilderError("schema default value has already been set")
        if value is not None and self._type is not Type.STRUCT:
            try:
                validate_value(self._without_default(), value)
            except (DataError, SchemaBuilderError) as exc:
                raise SchemaBuilderError(f"Invalid default value: {exc}") from exc
        self._default = value
        self._default_set = True
        return self

    def name(self, name: str) -> SchemaBuilder:
        self._check_unset("name", self._name, name)
        self._name = name
        return self

    def version(self, version: int) -> SchemaBuilder:
        self._check_unset("version", self._version, version)
        self._version = version
        return self

    def doc(self, doc: str) -> SchemaBuilder:
        self._check_unset("doc", self._doc, doc)
        self._doc = doc
        return self

    def parameter(self, key: str, value: str) -> SchemaBuilder:
        self._parameters[key] = value
        return self

    def parameters(self, params: Mapping[str, str]) -> SchemaBuilder:
        self._parameters.update(params)
        return self

    def field(self, name: str, schema: Schema | SchemaBuilder) -> SchemaBuilder:
        if name is None:
            raise SchemaBuilderError("field names cannot be null")
        if schema is None:
            raise SchemaBuilderError(f"field {name!r} needs a schema, got None")
        if self._type is not Type.STRUCT:
            raise SchemaBuilderError(f"cannot add field {name!r} to a non-struct schema")
        if not name:
            raise SchemaBuilderError("field names cannot be empty")
        if any(f.name == name for f in self._fields):
            raise SchemaBuilderError(
                f"cannot create field because of field name duplication {name}"
            )
        built = schema.build() if isinstance(schema, SchemaBuilder) else schema
        self._fields.append(Field(name, len(self._fields), built))
        return self

    @property
    def is_optional(self) -> bool:
        return bool(self._optional)

    def _without_default(self) -> Schema:
        return Schema(
            self._type,
            optional=bool(self._optional),
            name=self._name,
            version=self._version,
            doc=self._doc,
            parameters=self._parameters,
            fields=self._fields,
            key_schema=self._key_schema,
            value_schema=self._value_schema,
        )

    def build(self) -> Schema:
        return Schema(
            self._type,
            optional=bool(self._optional),
            default=self._default,
            name=self._name,
            version=self._version,
            doc=self._doc,
            parameters=self._parameters,
            fields=self._fields,
            key_schema=self._key_schema,
            value_schema=self._value_schema,
        )

    schema = build


# Python classes a value of each type may have. bool is excluded from the integer types.
_TYPE_CLASSES: Final[Mapping[Type, tuple[type, ...]]] = {
    Type.INT8: (int,),
    Type.INT16: (int,),
    Type.INT32: (int,),
    Type.INT64: (int,),
    Type.FLOAT32: (float, int),
    Type.FLOAT64: (float, int),
    Type.BOOLEAN: (bool,),
    Type.STRING: (str,),
    Type.BYTES: (bytes, bytearray, memoryview),
    Type.ARRAY: (list, tuple),
    Type.MAP: (dict, Mapping),
}

# Logical types: their Python classes replace the underlying primitive classes.
_LOGICAL_CLASSES: Final[Mapping[str, tuple[type, ...]]] = {
    "org.apache.kafka.connect.data.Decimal": (_decimal.Decimal,),
    "org.apache.kafka.connect.data.Date": (_dt.date,),
    "org.apache.kafka.connect.data.Time": (_dt.time,),
    "org.apache.kafka.connect.data.Timestamp": (_dt.datetime,),
}


def validate_value(schema: Schema | None, value: Any, *, path: str = "") -> None:
    """Check that ``value`` fits ``schema``, recursively.

    Raises:
        DataError: naming the path of the first bad value (``order.items[2].price``),
            the expected type and the Python type found.
    """
    where = f" at {path!r}" if path else ""
    if schema is None:
        return
    if value is None:
        if schema.optional or schema.default is not None:
            return
        # Kafka's wording, so messages read the same as in Java Connect.
        named = f': "{path}"' if path else ""
        raise DataError(
            f"Invalid value: null used for required field{named}, schema type: {schema.type.name}"
        )
    if schema.name is not None and schema.name in _LOGICAL_CLASSES:
        expected = _LOGICAL_CLASSES[schema.name]
        ok = isinstance(value, expected)
        # A datetime is a date subclass; a Date must not carry a time of day.
        if schema.name == "org.apache.kafka.connect.data.Date" and isinstance(value, _dt.datetime):
            ok = False
        if not ok:
            raise DataError(
                f"invalid Java object for schema {schema.name!r} with type {schema.type.value}{where}: "
                f"{type(value).__name__}"
            )
        return
    if schema.type is Type.STRUCT:
        if not isinstance(value, StructValue):
            raise DataError(
                f"invalid value{where}: expected a Struct for schema type struct, got {type(value).__name__}"
            )
        if not same_struct_schema(value.schema, schema):
            raise DataError(f"struct schemas do not match{where}")
        # Check fields here rather than with Struct.validate() so errors keep the full path.
        for field in schema.fields:
            validate_value(
                field.schema,
                value.get_without_default(field),
                path=f"{path}.{field.name}" if path else field.name,
            )
        return
    classes = _TYPE_CLASSES[schema.type]
    if not isinstance(value, classes) or (
        isinstance(value, bool) and schema.type is not Type.BOOLEAN
    ):
        raise DataError(
            f"invalid value{where}: expected {schema.type.value}, got {type(value).__name__} ({value!r:.60})"
        )
    checked: Any = value
    if schema.type in _INT_RANGES:
        lo, hi = _INT_RANGES[schema.type]
        if not lo <= checked <= hi:
            raise DataError(
                f"invalid value{where}: {value} is out of range for {schema.type.value}"
            )
    elif schema.type is Type.ARRAY:
        if schema.value_schema is None:  # only Values.parse_string makes such schemas
            raise DataError(f"No schema defined for element of array{where or ' value'}")
        for i, item in enumerate(checked):
            validate_value(schema.value_schema, item, path=f"{path}[{i}]")
    elif schema.type is Type.MAP:
        if schema.key_schema is None:
            raise DataError(f"No schema defined for key of map{where or ' value'}")
        if schema.value_schema is None:
            raise DataError(f"No schema defined for value of map{where or ' value'}")
        for k, v in checked.items():
            validate_value(schema.key_schema, k, path=f"{path}{{key {k!r}}}")
            validate_value(schema.value_schema, v, path=f"{path}[{k!r}]")
