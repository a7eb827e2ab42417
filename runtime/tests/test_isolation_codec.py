"""The plugin protocol's value and record codecs keep every value exactly, frame to frame.

Values cross between the runtime and a plugin host as JSON frames (``write_frame`` /
``read_frame``, the very functions both ends use). Schemaless values that JSON holds
exactly travel as one raw JSON array in the frame's binary tail; everything else is tagged
by ``value_to_plain``. Either way the other end must get back what was sent.
"""

from __future__ import annotations

import datetime as dt
import decimal
import io
import math
from typing import Any

import pytest
from kconnect_runtime.isolation.host._codec import (
    pack_records,
    pack_values_blob,
    read_frame,
    unpack_records,
    unpack_values,
    write_frame,
)
from kconnect_sdk import Schema, SchemaAndValue, SourceRecord


def _cross(batch: dict[str, Any], blob: bytes = b"") -> dict[str, Any]:
    """``batch`` (and its binary tail) written as a frame and read back by the other end."""
    out = io.BytesIO()
    write_frame(out, batch, blob)
    frame = read_frame(io.BytesIO(out.getvalue()))
    assert isinstance(frame, dict)
    return frame


def _same(got: Any, want: Any) -> bool:
    """Equal, of the same types all the way down (True is not 1), NaN equal to NaN."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    if isinstance(want, dict):
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want, strict=True))
    return bool(got == want)


JSON_VALUES: list[Any] = [
    {"id": 1, "name": "ü€😀", "ok": True, "score": 2.5, "none": None, "neg": -0.0},
    {"nested": {"list": [1, [2, {"three": 3}]], "empty": {}}, "$bytes": "user data, not a tag"},
    [1, "two", 3.0, False, None],
    "text",
    12,
    True,
    None,
    2**63 - 1,
    2**64 - 1,
    -(2**63),
]


def test_schemaless_json_values_cross_as_one_raw_array() -> None:
    batch, blob = pack_values_blob([(None, v) for v in JSON_VALUES])
    assert batch.get("raw") and blob, "JSON data should cross without value_to_plain"
    frame = _cross(batch, blob)
    got = unpack_values(frame, frame["$blob"])
    assert all(type(pair) is SchemaAndValue and pair.schema is None for pair in got)
    assert all(_same(g.value, w) for g, w in zip(got, JSON_VALUES, strict=True)), got


@pytest.mark.parametrize(
    "value",
    [
        {1: "an int key", "b": 2},
        {"x": float("nan")},
        {"x": [float("-inf")]},
        float("inf"),
        b"\x00\xff",
        decimal.Decimal("1.50"),
        dt.date(2024, 5, 6),
        {"when": dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.UTC)},
        {"lone surrogate": "\ud800"},
        2**70,
        -(2**70),
        {"big": 2**64, "small": -(2**63) - 1},
        [2**100, 1.5],
        {"digits": "12345678901234567890123", "n": 1},
    ],
    ids=repr,
)
def test_values_json_would_change_cross_exactly_too(value: Any) -> None:
    pairs = [(None, value), (None, {"plain": 1})]
    batch, blob = pack_values_blob(pairs)
    frame = _cross(batch, blob)
    got = unpack_values(frame, frame.get("$blob", b""))
    assert _same(got[0].value, value), got[0].value
    assert got[1] == (None, {"plain": 1})


def test_values_with_schemas_cross_as_before() -> None:
    pairs = [(Schema.INT64, 2**62), (Schema.OPTIONAL_STRING, None), (None, {"a": 1})]
    batch, blob = pack_values_blob(pairs)
    assert not blob and "raw" not in batch
    frame = _cross(batch)
    assert unpack_values(frame) == pairs


def test_integers_beyond_64_bits_in_record_batches_stay_exact() -> None:
    # orjson would read these as floats; the frame reader must not let it.
    record = SourceRecord(
        topic="t",
        value=[2**64, -(2**63) - 1, 10**30],
        source_partition={"p": 1},
        source_offset={"position": 2**65 + 1},
    )
    (got,) = unpack_records(_cross(pack_records([record])))
    assert got.value == [2**64, -(2**63) - 1, 10**30]
    assert all(type(v) is int for v in got.value)
    assert got.source_offset == {"position": 2**65 + 1}


def _records(values: list[Any]) -> list[SourceRecord]:
    return [
        SourceRecord(topic="t", key=v, value=v, source_partition={"p": 0}, source_offset={"n": i})
        for i, v in enumerate(values)
    ]


def test_schemaless_json_columns_of_record_batches_cross_as_they_are() -> None:
    batch = pack_records(_records(JSON_VALUES))
    assert batch["value_index"] == {"=": None, "raw": 1}
    got = unpack_records(_cross(batch))
    assert all(_same(r.value, v) and _same(r.key, v) for r, v in zip(got, JSON_VALUES, strict=True))
    assert all(r.value_schema is None and r.key_schema is None for r in got)


@pytest.mark.parametrize(
    "value",
    [{1: "an int key"}, {"x": float("nan")}, b"\x00\xff", decimal.Decimal("1.50")],
    ids=repr,
)
def test_record_batch_columns_json_would_change_cross_tagged(value: Any) -> None:
    batch = pack_records(_records([value, {"plain": 1}]))
    assert "raw" not in batch["value_index"]
    first, second = unpack_records(_cross(batch))
    assert _same(first.value, value) and _same(first.key, value)
    assert second.value == {"plain": 1}
