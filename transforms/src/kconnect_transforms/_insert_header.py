"""InsertHeader: add a header with a literal value."""

from __future__ import annotations

from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Header,
    Importance,
    ParsedConfig,
    Values,
    non_empty_string,
)

from ._util import (
    BaseTransform,
    R,
)

__all__ = ["InsertHeader"]


def _non_null(name: str, value: Any) -> None:
    # Kafka's NonNullValidator: an explicit null literal is a config error, not a null header.
    if value is None:
        raise ConfigError(
            f"Invalid value null for configuration {name}: entry must be non null", name=name
        )


class InsertHeader(BaseTransform[R]):
    """Add a header with a literal value (``org.apache.kafka.connect.transforms.InsertHeader``).

    The literal is parsed as Kafka's ``Values.parseString`` does: ``42`` gives an INT8
    header, ``true`` a BOOLEAN, ``[1,2]`` an ARRAY, anything else a STRING.
    """

    NAME = "InsertHeader"
    CONFIG_DEF: ClassVar[ConfigDef] = (
        ConfigDef()
        .define(
            "header",
            ConfigType.STRING,
            validator=non_empty_string,
            importance=Importance.HIGH,
            documentation="The name of the header.",
        )
        .define(
            "value.literal",
            ConfigType.STRING,
            validator=_non_null,
            importance=Importance.HIGH,
            documentation="The literal value that is to be set as the header value on all records.",
        )
    )

    def _configure(self, config: ParsedConfig) -> None:
        parsed = Values.parse_string(config["value.literal"])
        self._header = Header(config["header"], parsed.schema, parsed.value)

    def apply(self, record: R) -> R | None:
        return record.new_record(headers=record.headers.add_all((self._header,)))
