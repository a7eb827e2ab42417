"""Checks of source partitions and offsets given to the REST offsets API, in Kafka's words."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kconnect_sdk import ConnectError

__all__ = ["validate_source_offset", "validate_source_partition"]

_INT_MAX = 2**31 - 1


def _java_map(value: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in value.items()) + "}"


def validate_source_partition(
    partition: Mapping[str, Any] | None, string_keys: Iterable[str], *, with_partition: bool
) -> None:
    """``string_keys`` must hold strings and, ``with_partition``, ``partition`` a non-negative int."""
    if partition is None:
        raise ConnectError("Source partitions may not be null")
    shown = _java_map(partition)
    for key in string_keys:
        if key not in partition:
            raise ConnectError(
                f"Source partition {shown} is missing the '{key}' key, which is required"
            )
        if not isinstance(partition[key], str):
            raise ConnectError(
                f"Source partition {shown} has an invalid value {partition[key]} for the "
                f"'{key}' key, which must be a string"
            )
    if not with_partition:
        return
    if "partition" not in partition:
        raise ConnectError(
            f"Source partition {shown} is missing the 'partition' key, which is required"
        )
    value = partition["partition"]
    if isinstance(value, bool) or not isinstance(value, int) or value > _INT_MAX:
        raise ConnectError(
            f"Source partition {shown} has an invalid value {value} for the 'partition' key, "
            "which must be an integer"
        )
    if value < 0:
        raise ConnectError(
            f"Source partition {shown} has an invalid value {value} for the 'partition' key, "
            "which cannot be negative"
        )


def validate_source_offset(
    partition: Mapping[str, Any], offset: Mapping[str, Any] | None, *, only_zero: bool
) -> None:
    """``offset`` must be ``{"offset": n}`` with n >= 0 (or n == 0 when ``only_zero``)."""
    if offset is None:
        return
    where = f"Source offset {_java_map(offset)} for source partition {_java_map(partition)}"
    if "offset" not in offset:
        raise ConnectError(f"{where} is missing the 'offset' key, which is required")
    value = offset["offset"]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConnectError(
            f"{where} has an invalid value {value} for the 'offset' key, which must be an integer"
        )
    if only_zero and value != 0:
        raise ConnectError(
            f"{where} has an invalid value {value} for the 'offset' key; the only accepted value is 0"
        )
    if not only_zero and value < 0:
        raise ConnectError(
            f"{where} has an invalid value {value} for the 'offset' key, which cannot be negative"
        )


def check_offsets(
    offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    partition_keys: Iterable[str],
    *,
    with_partition: bool,
    only_zero: bool,
) -> bool:
    """A mirror connector's ``alter_offsets``: every offset checked, none of them stored
    anywhere but in Connect's offset store (True: the connector accepts them)."""
    keys = tuple(partition_keys)
    for partition, offset in offsets:
        if offset is None:
            continue  # a tombstone is allowed for anything, so garbage can always be cleaned up
        validate_source_partition(partition, keys, with_partition=with_partition)
        validate_source_offset(partition, offset, only_zero=only_zero)
    return True
