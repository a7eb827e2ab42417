"""One differential case: an operation, its plugin and config, and its input as Python objects.

The same case is run by kconnect directly (``python.run_case``) and, encoded with
:meth:`Case.to_java`, by the Java harness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kconnect_sdk import ConnectRecord, Schema

from .wire import encode_bytes, encode_record, encode_schema, encode_value

__all__ = ["OPS", "Case", "Step"]

OPS = ("toBytes", "fromBytes", "headerToBytes", "headerFromBytes", "transform", "predicate")


@dataclass(frozen=True)
class Step:
    """One stage of a transformation chain: the transform and, optionally, its predicate."""

    cls: str
    config: dict[str, str]
    predicate: tuple[str, dict[str, str]] | None = None
    negate: bool = False

    def to_java(self) -> dict[str, Any]:
        node: dict[str, Any] = {"class": self.cls, "config": self.config, "negate": self.negate}
        if self.predicate is not None:
            node["predicate"] = {"class": self.predicate[0], "config": self.predicate[1]}
        return node

    def describe(self) -> str:
        name = self.cls.rsplit(".", 1)[-1]
        text = f"{name}{self.config}"
        if self.predicate is not None:
            pred = self.predicate[0].rsplit(".", 1)[-1]
            text += f" if {'not ' if self.negate else ''}{pred}{self.predicate[1]}"
        return text


@dataclass
class Case:
    """What to run and on which input; ``component`` groups cases in the report."""

    component: str
    op: str
    cls: str = ""
    config: dict[str, str] = field(default_factory=dict)
    is_key: bool = False
    topic: str = "topic"
    header_key: str = "h"
    schema: Schema | None = None
    value: Any = None
    data: bytes | None = None
    record: ConnectRecord | None = None
    chain: list[Step] = field(default_factory=list)
    ident: int = 0
    # The Java type of a value given without a schema (Python has one int and one float):
    # a schemaless 5 for the ShortConverter stands for a Short, not a Long.
    java_type: Schema | None = None

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown op {self.op!r}; one of {OPS}")

    def to_java(self) -> dict[str, Any]:
        """The case in the wire encoding, Python ints and floats as Longs and Doubles."""
        node: dict[str, Any] = {"id": self.ident, "op": self.op, "topic": self.topic}
        if self.op in ("toBytes", "fromBytes", "headerToBytes", "headerFromBytes", "predicate"):
            node["class"] = self.cls
            node["config"] = self.config
        if self.op in ("toBytes", "fromBytes"):
            node["isKey"] = self.is_key
        if self.op in ("headerToBytes", "headerFromBytes"):
            node["key"] = self.header_key
        if self.op in ("toBytes", "headerToBytes"):
            node["schema"] = encode_schema(self.schema, for_java=True)
            node["value"] = encode_value(self.value, self.schema or self.java_type, for_java=True)
        if self.op in ("fromBytes", "headerFromBytes"):
            node["bytes"] = encode_bytes(self.data)
        if self.op in ("transform", "predicate"):
            assert self.record is not None
            node["record"] = encode_record(self.record, for_java=True)
        if self.op == "transform":
            node["chain"] = [step.to_java() for step in self.chain]
        return node

    def describe(self) -> str:
        """The case's input, readably and briefly, for a difference report."""
        if self.op == "transform":
            what = " -> ".join(step.describe() for step in self.chain)
            return f"{what} on {_short(self.record)}"
        head = f"{self.cls.rsplit('.', 1)[-1]}{self.config}"
        if self.op in ("toBytes", "headerToBytes"):
            return f"{head} {self.op} schema={_short(self.schema)} value={_short(self.value)}"
        if self.op in ("fromBytes", "headerFromBytes"):
            return f"{head} {self.op} bytes={_short(self.data)}"
        return f"{head} on {_short(self.record)}"


def _short(thing: Any, limit: int = 400) -> str:
    text = repr(thing)
    return text if len(text) <= limit else text[: limit - 3] + "..."
