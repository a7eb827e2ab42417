"""Example third-party kconnect plugin, built only against ``kconnect-sdk``.

``SequenceSourceConnector`` emits the numbers ``0..count-1`` (split across tasks by
remainder) and resumes from its committed offsets; ``JsonLinesSinkConnector`` appends each
record's value to a file as one JSON document per line. Example connector configs::

    name=numbers
    connector.class=kconnect_example_sequence.SequenceSourceConnector
    topic=numbers
    count=1000

    name=numbers-to-file
    connector.class=kconnect_example_sequence.JsonLinesSinkConnector
    topics=numbers
    file=/tmp/numbers.jsonl
"""

from __future__ import annotations

from ._sink import JsonLinesSinkConnector, JsonLinesSinkTask
from ._source import SequenceSourceConnector, SequenceSourceTask

__all__ = [
    "JsonLinesSinkConnector",
    "JsonLinesSinkTask",
    "SequenceSourceConnector",
    "SequenceSourceTask",
]
