"""Connect schemas to and from the schema JSON of Kafka's ``JsonSchema``/``JsonConverter``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from kconnect_sdk import DataError, Field, Schema, SchemaBuilderError, Type

__all__ = ["schema_from_json", "schema_to_json"]

# Kafka names float32/float64 "float"/"double" in schema JSON; the rest keep their names.
_TYPE_TO_JSON: Final = {t: t.value for t in Type} | {
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
}
_JSON_TO_TYPE: Final = {name: t for t, name in _TYPE_TO_JSON.items()}


def schema_to_json(schema: Schema, encode_default: Callable[[Schema], Any]) -> dict[str, Any]:
    """The schema JSON Kafka writes, as an insertion-ordered dict.

    Key order follows Kafka: ``type``; then ``items`` or ``keys``/``values`` or ``fields``;
    then ``optional``, ``name``, ``version``, ``doc``, ``parameters``, ``default``. Struct
    members carry ``field`` last.

    Args:
        schema: the schema to describe.
        encode_default: returns the JSON form of ``schema.default`` (which is not None).
    """
    out: dict[str, Any] = {"type": _TYPE_TO_JSON[schema.type]}
    if schema.type is Type.ARRAY:
        assert schema.value_schema is not None
        out["items"] = schema_to_json(schema.value_schema, encode_default)
    elif schema.type is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        out["keys"] = schema_to_json(schema.key_schema, encode_default)
        out["values"] = schema_to_json(schema.value_schema, encode_default)
    elif schema.type is Type.STRUCT:
        members = []
        for field in schema.fields:
            member = schema_to_json(field.schema, encode_default)
            member["field"] = field.name
            members.append(member)
        out["fields"] = members
    out["optional"] = schema.optional
    if schema.name is not None:
        out["name"] = schema.name
    if schema.version is not None:
        out["version"] = schema.version
    if schema.doc is not None:
        out["doc"] = schema.doc
    if schema.parameters:
        out["parameters"] = dict(schema.parameters)
    if schema.default is not None:
        out["default"] = encode_default(schema)
    return out


def schema_from_json(
    node: Any, decode_default: Callable[[Schema, Any], Any], *, path: str = "schema"
) -> Schema:
    """The Connect schema a schema JSON object describes, as Kafka's ``asConnectSchema``.

    Raises:
        DataError: naming the part of the schema JSON that is malformed.
    """
    if not isinstance(node, dict):
        raise DataError(f"{path} must be a JSON object, found {type(node).__name__}")
    type_name = node.get("type")
    if not isinstance(type_name, str):
        raise DataError(f"Schema must contain 'type' field ({path})")
    schema_type = _JSON_TO_TYPE.get(type_name)
    if schema_type is None:
        raise DataError(f"Unknown schema type: {type_name} ({path})")

    kwargs: dict[str, Any] = {}
    if schema_type is Type.ARRAY:
        items = node.get("items")
        if items is None:
            raise DataError(f"Array schema did not specify the element type ({path})")
        kwargs["value_schema"] = schema_from_json(items, decode_default, path=f"{path}.items")
    elif schema_type is Type.MAP:
        if "keys" not in node:
            raise DataError(f"Map schema did not specify the key type ({path})")
        if "values" not in node:
            raise DataError(f"Map schema did not specify the value type ({path})")
        kwargs["key_schema"] = schema_from_json(node["keys"], decode_default, path=f"{path}.keys")
        kwargs["value_schema"] = schema_from_json(
            node["values"], decode_default, path=f"{path}.values"
        )
    elif schema_type is Type.STRUCT:
        members = node.get("fields")
        if not isinstance(members, list):
            raise DataError(f'Struct schema\'s "fields" argument is not an array ({path})')
        fields: list[Field] = []
        seen: set[str] = set()
        for i, member in enumerate(members):
            name = member.get("field") if isinstance(member, dict) else None
            if not isinstance(name, str):
                raise DataError(f"Struct schema's field name not specified properly ({path})")
            if name in seen:
                raise DataError(f"Struct schema has the field {name!r} twice ({path})")
            seen.add(name)
            field_schema = schema_from_json(member, decode_default, path=f"{path}.{name}")
            fields.append(Field(name, i, field_schema))
        kwargs["fields"] = fields

    kwargs["optional"] = node.get("optional") is True
    name = node.get("name")
    if isinstance(name, str):
        kwargs["name"] = name
    version = node.get("version")
    if type(version) is int:
        kwargs["version"] = version
    doc = node.get("doc")
    if isinstance(doc, str):
        kwargs["doc"] = doc
    params = node.get("parameters")
    if isinstance(params, dict):
        for key, value in params.items():
            if not isinstance(value, str):
                raise DataError(
                    f"Schema parameters must have string values ({path}.parameters.{key})"
                )
        kwargs["parameters"] = params

    try:
        schema = Schema(schema_type, **kwargs)
        if "default" in node and node["default"] is not None:
            default = decode_default(schema, node["default"])
            schema = Schema(schema_type, default=default, **kwargs)
    except SchemaBuilderError as exc:
        raise DataError(f"Invalid schema at {path}: {exc}") from exc
    return schema
