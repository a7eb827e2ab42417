"""Struct: a value of a STRUCT schema."""

from __future__ import annotations

from typing import Any

from ._errors import DataError
from ._schema import Field, Schema, SchemaBuilder, StructValue, Type, validate_value

__all__ = ["Struct"]


class Struct(StructValue):
    """A structured value whose fields are checked against a STRUCT schema on ``put``.

    Example:
        >>> order = Struct(schema).put("id", 42).put("note", "rush")
        >>> order.get("id")
        42
    """

    __slots__ = ("_values", "schema")

    def __init__(self, schema: Schema | SchemaBuilder) -> None:
        if isinstance(schema, SchemaBuilder):
            # As Kafka's ``new Struct(builder)``: how a struct schema's default is built.
            schema = schema.build()
        if schema.type is not Type.STRUCT:
            raise DataError(f"a Struct needs a struct schema, got {schema.type.value}")
        self.schema = schema
        self._values: list[Any] = [None] * len(schema.fields)

    def _field(self, name: str | Field) -> Field:
        if isinstance(name, Field):
            return name
        field = self.schema.field(name)
        if field is None:
            known = ", ".join(f.name for f in self.schema.fields)
            raise DataError(f"{name!r} is not a valid field name; the schema has: {known}")
        return field

    def put(self, name: str | Field, value: Any) -> Struct:
        """Set a field; raises DataError naming the field and both types on a mismatch."""
        field = self._field(name)
        validate_value(field.schema, value, path=field.name)
        self._values[field.index] = value
        return self

    def get(self, name: str | Field) -> Any:
        """The field's value, or its schema default when the value is None."""
        field = self._field(name)
        value = self._values[field.index]
        return field.schema.default if value is None else value

    def get_without_default(self, name: str | Field) -> Any:
        """The field's value as put, None when unset."""
        return self._values[self._field(name).index]

    def validate(self) -> None:
        """Check every field, including that required fields are set."""
        for field in self.schema.fields:
            validate_value(field.schema, self._values[field.index], path=field.name)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (nested structs become dicts), defaults applied."""
        out: dict[str, Any] = {}
        for field in self.schema.fields:
            out[field.name] = _plain(self.get(field))
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Struct):
            return NotImplemented
        return self.schema == other.schema and self._values == other._values

    def __hash__(self) -> int:
        return hash((self.schema, tuple(repr(v) for v in self._values)))

    def __repr__(self) -> str:
        body = ",".join(f"{f.name}={self._values[f.index]!r}" for f in self.schema.fields)
        return f"Struct{{{body}}}"


def _plain(value: Any) -> Any:
    if isinstance(value, Struct):
        return value.to_dict()
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
