"""One loop for a run of transforms: ``fused_batch``, offered to the runtime's chain.

A chain of this package's reshaping transforms on schemaless values (``InsertField$Value``,
``ReplaceField$Value``) followed by topic routers (``RegexRouter``, ``TimestampRouter``)
would copy every record once per transform. Fused, a record is reshaped and routed by
straight-line code generated once per record class, and copied once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kconnect_sdk import SinkRecord, SourceRecord, Transformation, record_maker

__all__ = ["FusedReshaper", "FusedRouter", "fused_batch"]

BatchFn = Callable[[Sequence[Any]], "list[Any] | None"]

_RECORD_CLASSES = (SinkRecord, SourceRecord)  # named tuples: value schema at 4, value at 5


class FusedReshaper:
    """A transform that can reshape a schemaless value with straight-line code."""

    def _fuses(self) -> bool:
        """Whether this instance (its side, its config) reshapes schemaless values."""
        raise NotImplementedError

    def _schemaless_lines(self, cls: type) -> tuple[list[str], dict[str, Any]] | None:
        """Lines turning the dict ``value`` of a record ``record`` of ``cls`` into the dict
        ``d``, and the names they use; None when there are none for ``cls``."""
        raise NotImplementedError


class FusedRouter:
    """A transform that routes a record to a topic computed from the record alone."""

    def _route_lines(self, i: int) -> tuple[list[str], dict[str, Any]]:
        """Lines setting ``t``, the new topic, from ``topic`` and ``record``, and the names
        they use (suffixed with ``i``, the router's place in the run)."""
        raise NotImplementedError


def _ours(transform: object) -> bool:
    # A subclass from elsewhere may override apply(); the generated code would skip it.
    return type(transform).__module__.startswith("kconnect_transforms.")


def _reshapes_values(transform: object) -> bool:
    return isinstance(transform, FusedReshaper) and _ours(transform) and transform._fuses()


def _routes(transform: object) -> bool:
    return isinstance(transform, FusedRouter) and _ours(transform)


def fused_batch(transforms: Sequence[Transformation[Any]]) -> tuple[int, BatchFn] | None:
    """How many of the leading ``transforms`` run as one loop, and that loop; None if fewer
    than two can.

    Fused: value reshapers, then routers (a router first ends the reshapers: a reshaper
    may read the topic). The function gives what each transform's ``apply_batch`` in turn
    gives, or None for a batch it does not take (records not of the SDK's classes, a first
    record whose value is not a schemaless dict when there are reshapers, or a reshaper
    with no straight-line code for them); the caller then applies them in turn.
    It changes none of its inputs, so a caller that meets an exception can apply them in
    turn to find which transform fails and how.
    """
    reshapers: list[FusedReshaper] = []
    routers: list[FusedRouter] = []
    for transform in transforms:
        if not routers and isinstance(transform, FusedReshaper) and _reshapes_values(transform):
            reshapers.append(transform)
        elif isinstance(transform, FusedRouter) and _routes(transform):
            routers.append(transform)
        else:
            break
    count = len(reshapers) + len(routers)
    if count < 2:
        return None
    applies = tuple(t.apply for t in transforms[:count])
    loops: dict[type, BatchFn | None] = {}

    def run(records: Sequence[Any]) -> list[Any] | None:
        if not records:
            return []
        first = records[0]
        cls = type(first)
        if cls not in _RECORD_CLASSES:
            return None
        if reshapers and (first[4] is not None or type(first[5]) is not dict):
            return None  # Structs (or another value): each transform's own batch path
        if cls not in loops:
            loops[cls] = _generate(cls, reshapers, routers, applies)
        loop = loops[cls]
        return None if loop is None else loop(records)

    return count, run


def _generate(
    cls: type,
    reshapers: Sequence[FusedReshaper],
    routers: Sequence[FusedRouter],
    applies: tuple[Callable[[Any], Any], ...],
) -> BatchFn | None:
    names: dict[str, Any] = {"_cls": cls, "_make": record_maker(cls), "_applies": applies}
    body: list[str] = []
    for transform in reshapers:
        made = transform._schemaless_lines(cls)
        if made is None:
            return None
        lines, used = made
        for name, value in used.items():
            if names.setdefault(name, value) is not value:
                return None  # two reshapers' code would share a name
        body += [*lines, "value = d"]
    if routers:
        body.append("topic = record[0]")
    for i, router in enumerate(routers):
        lines, used = router._route_lines(i)
        names.update(used)
        body += lines
        body.append("topic = t")
    # A record unlike the batch's (another class, a schema, not a dict) goes through each
    # transform's apply() in turn, in its place.
    unlike = "type(record) is not _cls"
    if reshapers:
        unlike += " or type(value) is not dict or record[4] is not None"
    head = "(topic,) + record[1:4]" if routers else "record[:4]"
    new_value = "(None, value)" if reshapers else "record[4:6]"
    source = "\n".join(
        [
            "def loop(records):",
            "    out = []",
            "    append = out.append",
            "    for record in records:",
            "        value = record[5]",
            f"        if {unlike}:",
            "            r = record",
            "            for apply in _applies:",
            "                r = apply(r)",
            "                if r is None: break",
            "            else:",
            "                append(r)",
            "            continue",
            *("        " + line for line in body),
            f"        append(_make({head} + {new_value} + record[6:]))",
            "    return out",
        ]
    )
    exec(compile(source, "<kconnect_transforms fused batch loop>", "exec"), names)
    loop: BatchFn = names["loop"]
    return loop
