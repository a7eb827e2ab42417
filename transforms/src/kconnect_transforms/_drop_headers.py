"""DropHeaders: remove headers by name."""

from __future__ import annotations

from typing import ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Headers,
    Importance,
    ParsedConfig,
)

from ._util import (
    BaseTransform,
    R,
    non_empty_list,
)

__all__ = ["DropHeaders"]


class DropHeaders(BaseTransform[R]):
    """Remove every header with one of the given names (``...transforms.DropHeaders``)."""

    NAME = "DropHeaders"
    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "headers",
        ConfigType.LIST,
        validator=non_empty_list,
        importance=Importance.HIGH,
        documentation="The name of the headers to be removed.",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._names = frozenset(config["headers"])

    def apply(self, record: R) -> R | None:
        names = self._names
        if not any(h.key in names for h in record.headers):
            return record
        return record.new_record(headers=Headers(h for h in record.headers if h.key not in names))
