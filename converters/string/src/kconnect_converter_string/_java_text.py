"""Java's ``toString()`` of Connect values: what Kafka's StringConverter writes for a non-string."""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import struct
from collections.abc import Mapping
from typing import Any

from kconnect_sdk import Schema, Struct, Type, Values
from kconnect_sdk.java import date_to_string

__all__ = ["java_text"]


def _float32(value: float) -> float:
    try:
        return float(struct.unpack(">f", struct.pack(">f", value))[0])
    except OverflowError:
        return value


def java_text(value: Any, schema: Schema | None = None) -> str:
    """``value.toString()`` of the Java object Kafka holds for a Connect value of ``schema``.

    Numbers as ``Double``/``Float``/``BigDecimal.toString``, booleans as ``true``, lists
    as ``[a, b]``, maps as ``{k=v}``, a Struct as ``Struct{field=value,...}`` (null fields
    left out), and the logical date and time types as ``java.util.Date`` in UTC. Bytes
    have no stable Java form (an identity hash); they are written as Python shows them.
    """
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    typ = schema.type if schema is not None else None
    if isinstance(value, int) and typ not in (Type.FLOAT32, Type.FLOAT64):
        return str(value)
    if isinstance(value, int | float):
        if typ is Type.FLOAT32:
            text = Values.convert_to_string(Schema.FLOAT32, _float32(float(value)))
        else:
            text = Values.convert_to_string(Schema.FLOAT64, float(value))
        return text if text is not None else "null"
    if isinstance(value, _decimal.Decimal):
        # Python's to-sci-string and BigDecimal.toString follow the same rules.
        return str(value)
    if isinstance(value, _dt.date | _dt.time):
        return date_to_string(value)
    if isinstance(value, Struct):
        shown = [
            f"{f.name}={java_text(v, f.schema)}"
            for f in value.schema.fields
            if (v := value.get_without_default(f)) is not None
        ]
        return "Struct{" + ",".join(shown) + "}"
    element = schema.value_schema if schema is not None else None
    if isinstance(value, list | tuple):
        return "[" + ", ".join(java_text(v, element) for v in value) + "]"
    if isinstance(value, Mapping):
        key = schema.key_schema if schema is not None else None
        return (
            "{"
            + ", ".join(f"{java_text(k, key)}={java_text(v, element)}" for k, v in value.items())
            + "}"
        )
    return str(value)
