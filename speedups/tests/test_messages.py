"""columns: consumed confluent-kafka messages read as columns in one pass."""

from __future__ import annotations

from typing import Any

import pytest
from confluent_kafka import KafkaError, Message
from kconnect_sdk import optional_speedups

messages = optional_speedups("kconnect_speedups._messages", reads_layout=False)

_ACCESSORS = (
    Message.topic,
    Message.partition,
    Message.offset,
    Message.key,
    Message.value,
    Message.headers,
)


def _through_accessors(batch: list[Any]) -> tuple[list[Any], ...]:
    return tuple([read(m) for m in batch] for read in _ACCESSORS)


@pytest.fixture(scope="module")
def columns() -> Any:
    assert messages is not None
    assert messages.bind(Message), "confluent-kafka's Message is not the layout mirrored"
    return messages.columns


def test_fields_read_as_the_accessors_read_them(columns: Any) -> None:
    batch = [
        Message(topic="orders", partition=2, offset=(1 << 40) + 5, key=b"k", value=b"v"),
        # A tombstone without key, headers as a producer sends them, partition 0.
        Message(topic="orders", partition=0, offset=0, headers=[("a", b"1"), ("a", None)]),
        # Unassigned partition and an invalid offset read as None, as the accessors say.
        Message(topic="other", value=b""),
    ]
    got = columns(batch)
    assert got == _through_accessors(batch)
    assert got[1] == [2, 0, None] and got[2] == [(1 << 40) + 5, 0, None]
    # The same objects, not copies: a value's bytes are the message's.
    assert got[4][0] is batch[0].value()


def test_a_message_with_an_error_or_of_another_type_answers_none(columns: Any) -> None:
    good = Message(topic="t", partition=0, offset=1, value=b"v")
    failed = Message(topic="t", error=KafkaError(KafkaError._PARTITION_EOF))
    assert columns([good, failed]) is None

    class Derived(Message):  # type: ignore[misc]
        pass

    assert columns([good, Derived(topic="t", partition=0, offset=2)]) is None
    assert columns([good, "not a message"]) is None
    assert columns([]) == ([], [], [], [], [], [])


def test_only_a_list_and_a_type_of_the_layout_are_taken(columns: Any) -> None:
    with pytest.raises(TypeError, match="list"):
        columns((Message(topic="t"),))
    assert messages is not None
    with pytest.raises(TypeError, match="Message"):
        messages.bind("Message")
    # A type of another size is refused; the bound type stays as it was.
    assert messages.bind(KafkaError) is False
    one = Message(topic="t", partition=1, offset=1)
    assert columns([one]) == (["t"], [1], [1], [None], [None], [None])


def test_equal_topics_come_back_as_one_string(columns: Any) -> None:
    # As consumed: every message holds a str of its own for its topic.
    names = ["".join(["ord", "ers"]) for _ in range(3)] + ["".join(["pay", "ments"])]
    assert names[0] is not names[1]
    batch = [Message(topic=name, partition=0, offset=i) for i, name in enumerate(names)]
    topics = columns(batch)[0]
    assert topics == names
    assert topics[0] is topics[1] is topics[2] and topics[3] is names[3]
    # A topic of another text after them starts a run of its own.
    again = columns([*batch, Message(topic="".join(["ord", "ers"]), partition=0, offset=9)])[0]
    assert again[4] is not again[0] and again[4] == "orders"
