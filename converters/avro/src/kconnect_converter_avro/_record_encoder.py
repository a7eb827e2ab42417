"""Struct -> Avro record encoders specialised per schema, checks inlined.

Checking every field of every record against its schema costs a Python call per field when
each check is its own function; for the flat records most topics carry that doubled the
time of writing a record. Here the encoder of one struct schema is generated once, as
Python source, with each primitive field's check written inline as the test that the
field's check function passes without converting anything (``v.__class__ is int and lo <= v
<= hi`` for an int32). A value that test does not pass goes through the field's check
function as before, and any failure hands the whole struct to the generic encoder, whose
error names the field: the inline tests only ever skip a call whose answer is known.

The generated source holds only integer and float literals, ``repr`` of field names and
names bound to the closure's own objects (the checks, the defaults, the schema).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from kconnect_sdk import DataError, Schema, Struct, Type, struct_values

__all__ = ["inline_check", "record_encoder"]

_FLOAT32_MAX: Final = 3.4028234663852886e38
_INT_BITS: Final = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}


def inline_check(kind: Type) -> str | None:
    """The inline test (on ``{v}``) that a plain primitive value of ``kind`` passes unchanged.

    Only for schemas without a logical type, enum or fixed size: their checks do more.
    """
    bits = _INT_BITS.get(kind)
    if bits is not None:
        lo, hi = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
        return f"({{v}}.__class__ is int and {lo} <= {{v}} <= {hi})"
    if kind is Type.FLOAT64:
        return "{v}.__class__ is float"
    if kind is Type.FLOAT32:
        # NaN and infinities fail the comparison and reach the check, which lets them pass.
        return f"({{v}}.__class__ is float and -{_FLOAT32_MAX!r} <= {{v}} <= {_FLOAT32_MAX!r})"
    if kind is Type.BOOLEAN:
        return "({v} is True or {v} is False)"
    if kind is Type.STRING:
        return "({v}.__class__ is str and {v}.isascii())"
    if kind is Type.BYTES:
        return "{v}.__class__ is bytes"
    return None


def record_encoder(
    schema: Schema,
    *,
    names: Sequence[str],
    convs: Sequence[Callable[[Any], Any]],
    tests: Sequence[str | None],
    defaults: Sequence[Any] | None,
    generic: Callable[[Any], Any],
) -> Callable[[Any], Any]:
    """The encoder of Structs of ``schema`` into Avro record dicts keyed by ``names``.

    Args:
        schema: the struct schema.
        names: the Avro field names, in the schema's field order.
        convs: each field's value check/converter (as the generic encoder calls it).
        tests: each field's inline test (on ``{v}``), as :func:`inline_check` gives it
            (widened to let None through for an optional field), or ``None`` when the field
            always goes through its converter.
        defaults: each field's default, put in for None, or None for no substitution.
        generic: the encoder doing the same one call per field; it handles every value
            the inline code does not (and raises the error naming the field).

    Returns:
        A function equal in result to ``generic`` on every input.
    """
    count = len(names)
    if count == 0:
        return generic
    env: dict[str, Any] = {
        "Struct": Struct,
        "struct_values": struct_values,
        "DataError": DataError,
        "schema": schema,
        "generic": generic,
    }
    body = [
        "def encode(value):",
        "    if value.__class__ is not Struct and not isinstance(value, Struct):",
        "        return generic(value)",
        "    if value.schema is not schema and value.schema != schema:",
        "        return generic(value)",
        f"    {', '.join(f'v{i}' for i in range(count))}, = struct_values(value)",
    ]
    if defaults is not None:
        for i, default in enumerate(defaults):
            if default is not None:
                env[f"d{i}"] = default
                body.append(f"    if v{i} is None:")
                body.append(f"        v{i} = d{i}")
    body.append("    try:")
    for i, (conv, test) in enumerate(zip(convs, tests, strict=True)):
        env[f"c{i}"] = conv
        var = f"v{i}"
        if test is None:
            body.append(f"        {var} = c{i}({var})")
        else:
            body.append(f"        if not {test.format(v=var)}:")
            body.append(f"            {var} = c{i}({var})")
    body.append("    except DataError:")
    body.append("        return generic(value)")
    pairs = ", ".join(f"{name!r}: v{i}" for i, name in enumerate(names))
    body.append(f"    return {{{pairs}}}")
    # The source is built above from literals and names bound in ``env`` only.
    exec("\n".join(body), env)
    encode: Callable[[Any], Any] = env["encode"]
    return encode
