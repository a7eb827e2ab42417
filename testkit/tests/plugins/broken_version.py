"""A transform that reports no version."""

from __future__ import annotations

from kconnect_sdk import ConfigDef, ConnectRecord, Transformation


class VersionlessTransform(Transformation[ConnectRecord]):
    def version(self) -> str:
        return ""

    def config(self) -> ConfigDef:
        return ConfigDef()

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return record
