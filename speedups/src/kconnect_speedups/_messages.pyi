from typing import Any

def bind(message_type: type, /) -> bool:
    """Read messages of ``message_type`` (confluent_kafka.Message) from now on, if its
    instance layout is the one this module was built for; False (and nothing bound) if not."""

def columns(
    messages: list[Any], /
) -> tuple[list[Any], list[Any], list[Any], list[Any], list[Any], list[Any]] | None:
    """(topics, partitions, offsets, keys, values, headers) of ``messages``, read in one
    pass; None when one of them carries an error or is not of the bound type."""
