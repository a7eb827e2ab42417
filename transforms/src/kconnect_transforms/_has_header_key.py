"""The HasHeaderKey predicate: the record has a header with this name."""

from __future__ import annotations

from typing import ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Importance,
    ParsedConfig,
    non_empty_string,
)

from ._predicate_base import _BasePredicate
from ._util import R

__all__ = ["HasHeaderKey"]


class HasHeaderKey(_BasePredicate[R]):
    """True when the record has at least one header called ``name``
    (``org.apache.kafka.connect.transforms.predicates.HasHeaderKey``)."""

    CONFIG_DEF: ClassVar[ConfigDef] = ConfigDef().define(
        "name",
        ConfigType.STRING,
        validator=non_empty_string,
        importance=Importance.MEDIUM,
        documentation="The header name.",
    )

    def _configure(self, config: ParsedConfig) -> None:
        self._name: str = config["name"]

    def test(self, record: R) -> bool:
        name = self._name
        return any(h.key == name for h in record.headers)
