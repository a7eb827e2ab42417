"""Confluent's Drop$Key / Drop$Value: set the key or value (and its schema) to null."""

from __future__ import annotations

from typing import ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    DataError,
    Importance,
    ParsedConfig,
)

from ._util import KeyOrValue, R, copy_schema, one_of_ci

__all__ = ["DropKey", "DropValue"]


class _Drop(KeyOrValue[R]):
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "schema.behavior",
        ConfigType.STRING,
        "nullify",
        one_of_ci("nullify", "retain", "validate", "force_optional"),
        importance=Importance.LOW,
        documentation="What to do with the schema: nullify (drop it), retain (keep it even "
        "if it is not optional), validate (fail when it is not optional) or force_optional "
        "(keep it, made optional).",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._behavior: str = config["schema.behavior"].lower()

    def apply(self, record: R) -> R | None:
        schema, _ = self.operand(record)
        if schema is None or self._behavior == "nullify":
            return self.new_record(record, None, None)
        if self._behavior == "retain" or schema.optional:
            return self.new_record(record, schema, None)
        if self._behavior == "validate":
            raise DataError(
                f"{self.NAME}: the {self.side} schema is not optional, so a null {self.side} "
                "would be invalid; use schema.behavior=force_optional or nullify"
            )
        return self.new_record(
            record, copy_schema(schema, optional=True, fields=schema.fields), None
        )


class DropKey(_Drop[R]):
    """Set the key to null (``io.confluent.connect.transforms.Drop$Key``)."""

    ON_KEY = True
    NAME = "Drop$Key"


class DropValue(_Drop[R]):
    """Set the value to null, making a tombstone (``io.confluent.connect.transforms.Drop$Value``)."""

    NAME = "Drop$Value"
