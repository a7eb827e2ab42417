"""Helpers the ports of Confluent's AvroData tests share (Avro schema and datum equality)."""

from __future__ import annotations

import io
import json
from typing import Any

import fastavro
from kconnect_converter_avro import ANYTHING_SCHEMA, AvroData
from kconnect_sdk import Schema


def parsed(avro: Any) -> Any:
    """An Avro schema as fastavro expands it: full names, props kept, layout normalised."""
    return fastavro.parse_schema(json.loads(json.dumps(avro)), _write_hint=False)


def _without_docs(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_docs(n) for n in node]
    if isinstance(node, dict):
        return {k: _without_docs(v) for k, v in node.items() if k != "doc"}
    return node


def assert_same_avro(actual: Any, expected: Any, *, docs: bool = True) -> None:
    """Avro schema equality: names, types, props and defaults (and docs unless ``docs=False``,
    which is Avro Java's ``Schema.equals``: it ignores docs)."""
    if docs:
        assert parsed(actual) == parsed(expected)
    else:
        assert _without_docs(parsed(actual)) == _without_docs(parsed(expected))


def avro_bytes(avro: Any, datum: Any) -> bytes:
    """The Avro binary encoding of ``datum``: equal bytes mean equal Avro data."""
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(json.loads(json.dumps(avro))), datum)
    return out.getvalue()


def avro_read(avro: Any, body: bytes) -> Any:
    """Plain fastavro's reading of ``body`` (what a generic Avro reader gives)."""
    schema = fastavro.parse_schema(json.loads(json.dumps(avro)))
    return fastavro.schemaless_reader(
        io.BytesIO(body), schema, None, return_named_type=True, return_named_type_override=True
    )


def to_connect(data: AvroData, avro: Any, datum: Any) -> tuple[Schema | None, Any]:
    """Java's ``toConnectData(avroSchema, datum)``: the Connect schema and value."""
    if avro == ANYTHING_SCHEMA:
        return None, data.to_connect_data(None, datum)
    schema = data.to_connect_schema(avro)
    return schema, data.to_connect_data(schema, datum)
