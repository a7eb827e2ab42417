"""How a sink batch's headers are read: once for a batch whose messages all carry the same
headers, when the header converter says a header depends on its bytes alone and the values
read cannot be changed in place; per message otherwise. Either way every record's headers
are what reading its own message gives."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from confluent_kafka import Message
from kconnect_converter_string import SimpleHeaderConverter, StringConverter
from kconnect_runtime.tasks._chain import Converters
from kconnect_runtime.tasks._sink import SinkPipeline, _read_columns
from kconnect_sdk import Headers, SinkBatch

TOPIC = "orders"


class CountingHeaderConverter(SimpleHeaderConverter):
    def __init__(self) -> None:
        self.calls = 0

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> Any:
        self.calls += 1
        return super().to_connect_header(topic, header_key, data)


class CountingUndeclared(CountingHeaderConverter):
    deterministic = False  # a plugin that says nothing about its calls


def _batch(header: Any, raw: list[Any] | None, count: int = 4) -> SinkBatch:
    key, value = StringConverter(), StringConverter()
    key.configure({"converter.type": "key"})
    value.configure({"converter.type": "value"})
    pipeline: Any = SimpleNamespace(converters=Converters(key, value, header), _label="c")
    messages = [
        Message(topic=TOPIC, partition=0, offset=i, key=None, value=b"v", headers=raw)
        for i in range(count)
    ]
    return SinkPipeline._to_batch(pipeline, messages, _read_columns(messages), True)


def _read_alone(raw: list[Any]) -> Headers:
    return Converters(
        StringConverter(), StringConverter(), SimpleHeaderConverter()
    ).headers_from_kafka(TOPIC, raw)


def test_the_same_scalar_headers_are_read_once_and_shared() -> None:
    raw = [("origin", b"bench"), ("n", b"42")]
    header = CountingHeaderConverter()
    batch = _batch(header, raw)
    assert header.calls == 2  # two headers, once for the whole batch
    assert list(batch.headers) == [_read_alone(raw)] * 4
    assert [h.value for h in batch.headers[3]] == ["bench", 42]


def test_mutable_header_values_are_read_for_each_message() -> None:
    raw = [("tags", b"[1,2]")]
    batch = _batch(CountingHeaderConverter(), raw)
    first, second = batch.headers[0], batch.headers[1]
    assert first == second == _read_alone(raw)
    assert next(iter(first)).value is not next(iter(second)).value  # each record its own list


def test_a_converter_that_does_not_declare_itself_deterministic_reads_every_message() -> None:
    raw = [("origin", b"bench")]
    header = CountingUndeclared()
    batch = _batch(header, raw)
    assert header.calls == 4
    assert list(batch.headers) == [_read_alone(raw)] * 4


def test_different_headers_are_read_per_message() -> None:
    key, value = StringConverter(), StringConverter()
    header = CountingHeaderConverter()
    pipeline: Any = SimpleNamespace(converters=Converters(key, value, header), _label="c")
    raws = [[("n", str(i).encode())] for i in range(3)] + [None]
    messages = [
        Message(topic=TOPIC, partition=0, offset=i, key=None, value=b"v", headers=raw)
        for i, raw in enumerate(raws)
    ]
    batch = SinkPipeline._to_batch(pipeline, messages, _read_columns(messages), True)
    assert [[h.value for h in hs] for hs in batch.headers] == [[0], [1], [2], []]
    assert header.calls == 3
