"""A tiny source connector for the pipeline tests: Connect structs in schema versions.

Importable as ``_avro_source:OrderSource`` (conftest.py puts this folder on ``sys.path``).
``variant``: ``v1`` (id, name), ``v2`` (adds an optional ``note``: a compatible change) or
``incompatible`` (adds a required ``email`` without a default: refused under BACKWARD).
"""

from __future__ import annotations

import decimal
import time
from collections.abc import Mapping
from typing import Any

from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    Decimal,
    Schema,
    SchemaBuilder,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Struct,
    Task,
)

KEY = Schema.INT64


def order_schema(variant: str) -> Schema:
    builder = (
        SchemaBuilder.struct()
        .name("com.example.Order")
        .field("id", Schema.INT64)
        .field("name", Schema.STRING)
        .field("amount", Decimal.schema(2))
    )
    if variant == "v2":
        builder.field("note", Schema.OPTIONAL_STRING)
    elif variant == "incompatible":
        builder.field("email", Schema.STRING)
    return builder.build()


def order(schema: Schema, i: int) -> Struct:
    value = (
        Struct(schema)
        .put("id", i)
        .put("name", f"order-{i}")
        .put("amount", decimal.Decimal(i).scaleb(-2))
    )
    if schema.field("note") is not None:
        value.put("note", f"note {i}")
    if schema.field("email") is not None:
        value.put("email", f"{i}@example.com")
    return value


class OrderSourceTask(SourceTask):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.topic = props["topic"]
        self.variant = props.get("variant", "v1")
        self.first = int(props.get("first", "0"))
        self.count = int(props.get("count", "10"))
        self.schema = order_schema(self.variant)
        self.done = False

    def poll(self) -> list[SourceRecord] | None:
        if self.done:
            time.sleep(0.05)
            return None
        self.done = True
        return [
            SourceRecord(
                topic=self.topic,
                kafka_partition=0,
                key_schema=KEY,
                key=i,
                value_schema=self.schema,
                value=order(self.schema, i),
                source_partition={"variant": self.variant},
                source_offset={"i": i},
            )
            for i in range(self.first, self.first + self.count)
        ]

    def stop(self) -> None:
        pass


class OrderSource(SourceConnector):
    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[Task]:
        return OrderSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, Any]]:
        return [dict(self.props)]

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("topic", ConfigType.STRING)
            .define("variant", ConfigType.STRING, "v1")
            .define("first", ConfigType.INT, 0)
            .define("count", ConfigType.INT, 10)
        )

    def stop(self) -> None:
        pass
