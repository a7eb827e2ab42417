"""MaskField$Key / $Value: replace fields by a null-equivalent or a replacement."""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Mapping
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
    Type,
    Values,
    non_empty_string,
    struct_values,
)
from kconnect_sdk.java import EPOCH_DATE, EPOCH_DATETIME

from ._field_path import field_value
from ._util import (
    REPLACE_NULL_WITH_DEFAULT,
    KeyOrValue,
    R,
    checked,
    define_replace_null,
    fill_struct,
    non_empty_list,
    require_map,
    require_struct,
)

__all__ = ["MaskFieldKey", "MaskFieldValue"]


_UNMASKABLE = object()


def _null_equivalent(value: Any) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return 0
    if isinstance(value, float):
        return 0.0
    if isinstance(value, str):
        return ""
    if isinstance(value, decimal.Decimal):
        return decimal.Decimal(0)
    if isinstance(value, dt.datetime):
        return EPOCH_DATETIME
    if isinstance(value, dt.date):
        return EPOCH_DATE
    if isinstance(value, dt.time):
        return dt.time(0, tzinfo=dt.UTC)
    if isinstance(value, list | tuple):
        return []
    if isinstance(value, Mapping):
        return {}
    return _UNMASKABLE


def _null_or_non_empty(name: str, value: Any) -> None:
    # Kafka's NonEmptyString validator: an explicit null means "no replacement".
    if value is not None:
        non_empty_string(name, value)


class _MaskField(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = define_replace_null(
        ConfigDef()
        .define(
            "fields",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Names of fields to mask.",
        )
        .define(
            "replacement",
            ConfigType.STRING,
            None,
            _null_or_non_empty,
            importance=Importance.LOW,
            documentation="Custom value replacement, applied to all 'fields' values (numeric "
            "or non-empty string values only).",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._fields = frozenset(config["fields"])
        self._replacement: str | None = config["replacement"]
        self._replace_null: bool = config[REPLACE_NULL_WITH_DEFAULT]

    def _masked(self, field: str, value: Any, *, float32: bool = False) -> Any:
        if value is None:
            return None
        if self._replacement is None:
            masked = _null_equivalent(value)
            if masked is _UNMASKABLE:
                raise DataError(
                    f"{self.NAME}: cannot mask field {field!r} of type {type(value).__name__}; "
                    "only numbers, strings, booleans, dates, lists and maps can be masked"
                )
            return masked
        text = self._replacement
        try:
            if isinstance(value, str):
                return text
            if isinstance(value, int) and not isinstance(value, bool):
                return int(text)
            if isinstance(value, float):
                # Values.convertToFloat/convertToDouble, as Kafka maps a Float or Double:
                # a FLOAT32 field gets the replacement rounded to float (9e99 is infinite).
                convert = Values.convert_to_float if float32 else Values.convert_to_double
                return convert(None, text)
            if isinstance(value, decimal.Decimal):
                return decimal.Decimal(text)
        except (ValueError, decimal.InvalidOperation, DataError):
            raise DataError(
                f"{self.NAME}: cannot mask field {field!r}: replacement {text!r} is not a "
                f"valid {type(value).__name__}; choose a numeric replacement"
            ) from None
        raise DataError(
            f"{self.NAME}: cannot mask field {field!r} of type {type(value).__name__} with a "
            "custom replacement; only numbers and strings can be replaced (drop 'replacement' "
            "to mask with the type's empty value)"
        )

    def apply(self, record: R) -> R | None:
        schema, value = self.operand(record)
        if value is None:
            return record
        if schema is None:
            updated = dict(require_map(self.NAME, value, "masking fields"))
            for name in self._fields:
                updated[name] = self._masked(name, updated.get(name))
            return self.new_record(record, None, updated)
        struct = require_struct(self.NAME, value, "masking fields")
        values = list(struct_values(struct))
        for field in struct.schema.fields:
            current = field_value(struct, field, self._replace_null)
            if field.name in self._fields:
                masked = self._masked(
                    field.name, current, float32=field.schema.type is Type.FLOAT32
                )
                current = checked(self.NAME, field.name, field.schema, masked)
            values[field.index] = current
        return self.new_record(record, schema, fill_struct(struct.schema, values))


class MaskFieldKey(_MaskField[R]):
    """Mask key fields (``...transforms.MaskField$Key``)."""

    ON_KEY = True
    NAME = "MaskField$Key"


class MaskFieldValue(_MaskField[R]):
    """Mask value fields with their type's empty value (``...transforms.MaskField$Value``)."""

    NAME = "MaskField$Value"
