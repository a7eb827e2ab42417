"""A transform that changes the record it was given instead of building a new one."""

from __future__ import annotations

from typing import Any

from kconnect_sdk import ConfigDef, ConnectRecord, Struct, Transformation


class MutatingTransform(Transformation[ConnectRecord]):
    def config(self) -> ConfigDef:
        return ConfigDef()

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        value: Any = record.value
        if isinstance(value, dict):
            value["touched"] = True
        elif isinstance(value, Struct):
            value.put("id", 0)
        return record
