"""HoistField$Key / $Value: wrap the key or value in a struct (or map) of one field."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Field,
    Importance,
    ParsedConfig,
    Schema,
    Type,
)

from ._util import (
    KeyOrValue,
    R,
    SchemaCache,
    checked,
    fill_struct,
    struct_filler,
)

_SIDES = {True: attrgetter("key_schema", "key"), False: attrgetter("value_schema", "value")}

__all__ = ["HoistFieldKey", "HoistFieldValue"]


class _HoistField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "field",
        ConfigType.STRING,
        # No validator, as in Kafka: "" names the map key of a schemaless value (a struct
        # field cannot be called "", and says so when the first record comes).
        importance=Importance.MEDIUM,
        documentation="Field name for the single field that will be created in the "
        "resulting Struct or Map.",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._field: str = config["field"]
        self._schemas: SchemaCache[Schema] = SchemaCache()

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        if schema is None:
            return self.new_record(record, None, {self._field: value})
        if not self._field:
            raise DataError(
                f"{self.NAME}: a struct field cannot be called '' (field config); name the "
                "field to hoist the value into"
            )
        updated = self._schemas.get(schema)
        if updated is None:
            updated = self._schemas.put(
                schema, Schema(Type.STRUCT, fields=[Field(self._field, 0, schema)])
            )
        checked(self.NAME, self._field, schema, value)
        return self.new_record(record, updated, fill_struct(updated, [value]))

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        hoisted = self._hoist_strings(records)
        return super().apply_batch(records) if hoisted is None else hoisted

    def _hoist_strings(self, records: Sequence[R]) -> list[R] | None:
        """The usual schema'd batch, strings of one STRING schema in records of one class,
        hoisted in C-level passes with what :meth:`apply` gives each; None for another."""
        count = len(records)
        if not count or not self._field:
            return None
        cls = type(records[0])
        if list(map(type, records)).count(cls) != count:
            return None
        sides: list[tuple[Any, Any]] = list(map(_SIDES[self.ON_KEY], records))
        schema = sides[0][0]
        if schema is None or schema.type is not Type.STRING:
            return None
        schemas, values = zip(*sides, strict=True)
        if schemas.count(schema) != count or list(map(type, values)).count(str) != count:
            return None  # another schema, a null (kept as it is) or a value apply() refuses
        updated = self._schemas.get(schema)
        if updated is None:
            updated = self._schemas.put(
                schema, Schema(Type.STRUCT, fields=[Field(self._field, 0, schema)])
            )
        structs = map(struct_filler(updated), map(list, zip(values)))
        return list(map(self._updater(cls), records, repeat(updated), structs))


class HoistFieldKey(_HoistField[R]):
    """Wrap the key in a struct or map (``...transforms.HoistField$Key``)."""

    ON_KEY = True
    NAME = "HoistField$Key"


class HoistFieldValue(_HoistField[R]):
    """Wrap the value in a struct or map (``...transforms.HoistField$Value``)."""

    NAME = "HoistField$Value"
