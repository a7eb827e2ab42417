"""MaskField with an explicit ``replacement: null``: Kafka's NonEmptyString validator lets a
null through, meaning "no replacement" (mask with the type's empty value)."""

from __future__ import annotations

from kconnect_sdk import SinkRecord
from kconnect_transforms import MaskFieldValue


def test_an_explicit_null_replacement_masks_with_empty_values() -> None:
    xform: MaskFieldValue[SinkRecord] = MaskFieldValue()
    xform.configure({"fields": "secret,count", "replacement": None})
    record = SinkRecord(
        topic="t", kafka_partition=0, kafka_offset=0, value={"secret": "pw", "count": 3, "k": 1}
    )
    masked = xform.apply(record)
    assert masked is not None
    assert masked.value == {"secret": "", "count": 0, "k": 1}
