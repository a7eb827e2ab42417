"""InsertHeader: add a header with a literal value."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any, ClassVar

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Header,
    Headers,
    Importance,
    ParsedConfig,
    Values,
    non_empty_string,
)

from ._util import (
    BaseTransform,
    R,
    record_updater,
)

_headers = attrgetter("headers")

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

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        count = len(records)
        if not count:
            return []
        cls = type(records[0])
        headers: list[Headers] = list(map(_headers, records))
        first = headers[0]
        if list(map(type, records)).count(cls) != count or headers.count(first) != count:
            return super().apply_batch(records)
        # The usual batch: every record has the same (immutable) headers, so all get the
        # same copy with the header added.
        added = first.add_all((self._header,))
        return list(map(record_updater(cls, ("headers",)), records, repeat(added)))
