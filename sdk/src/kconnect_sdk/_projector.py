"""SchemaProjector: read a value written with one schema as a value of a compatible schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._errors import SchemaProjectorError
from ._schema import Schema, Type
from ._struct import Struct

__all__ = ["SchemaProjector"]

# Each type may be widened to any type after it, as Kafka's SchemaProjector allows.
_PROMOTIONS: Final = (Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64)


def _promotable(source: Type, target: Type) -> bool:
    return (
        source in _PROMOTIONS
        and target in _PROMOTIONS
        and _PROMOTIONS.index(source) < _PROMOTIONS.index(target)
    )


class SchemaProjector:
    """Projects values between compatible schemas, as Kafka Connect's ``SchemaProjector``.

    Numbers widen along INT8 → INT16 → INT32 → INT64 → FLOAT32 → FLOAT64; struct fields
    missing from the source are filled with the target's default (or None when optional);
    fields the target lacks are dropped. Names and parameters must match.

    Example:
        >>> SchemaProjector.project(Schema.INT8, 5, Schema.FLOAT64)
        5.0
    """

    @staticmethod
    def project(source: Schema, value: Any, target: Schema) -> Any:
        """The value of ``source`` as a value of ``target``.

        Raises:
            SchemaProjectorError: when the schemas are incompatible or a required value
                has no source and no default.
        """
        _check_compatible(source, target)
        if source.optional and not target.optional:
            if target.default is None:
                raise SchemaProjectorError(
                    "source schema is optional but the target schema is required and has no "
                    f"default value; give target {target!r} a default or make it optional"
                )
            return target.default if value is None else _project_required(source, value, target)
        return None if value is None else _project_required(source, value, target)


def _check_compatible(source: Schema, target: Schema) -> None:
    if source.type is not target.type and not _promotable(source.type, target.type):
        raise SchemaProjectorError(
            f"schema type mismatch: source type {source.type.value} cannot be projected to "
            f"target type {target.type.value}"
        )
    if source.name != target.name:
        raise SchemaProjectorError(
            f"schema name mismatch: source name {source.name!r}, target name {target.name!r}"
        )
    if dict(source.parameters) != dict(target.parameters):
        raise SchemaProjectorError(
            f"schema parameters differ: source {dict(source.parameters)}, "
            f"target {dict(target.parameters)}"
        )


def _project_required(source: Schema, value: Any, target: Schema) -> Any:
    if target.type is Type.STRUCT:
        return _project_struct(source, value, target)
    if target.type is Type.ARRAY:
        assert source.value_schema is not None and target.value_schema is not None
        return [SchemaProjector.project(source.value_schema, v, target.value_schema) for v in value]
    if target.type is Type.MAP:
        assert source.key_schema is not None and target.key_schema is not None
        assert source.value_schema is not None and target.value_schema is not None
        items: Mapping[Any, Any] = value
        return {
            SchemaProjector.project(
                source.key_schema, k, target.key_schema
            ): SchemaProjector.project(source.value_schema, v, target.value_schema)
            for k, v in items.items()
        }
    if _promotable(source.type, target.type):
        if target.type in (Type.FLOAT32, Type.FLOAT64):
            return float(value)
        return int(value)
    return value


def _project_struct(source: Schema, value: Any, target: Schema) -> Struct:
    if not isinstance(value, Struct):
        raise SchemaProjectorError(
            f"expected a Struct for a struct schema, got {type(value).__name__}"
        )
    projected = Struct(target)
    for target_field in target.fields:
        source_field = source.field(target_field.name)
        if source_field is not None:
            field_value = SchemaProjector.project(
                source_field.schema, value.get(source_field), target_field.schema
            )
            projected.put(target_field, field_value)
        elif target_field.schema.optional:
            continue
        elif target_field.schema.default is not None:
            projected.put(target_field, target_field.schema.default)
        else:
            raise SchemaProjectorError(
                f"required field {target_field.name!r} is missing from the source schema and "
                "has no default; add a default to the target field or make it optional"
            )
    return projected
