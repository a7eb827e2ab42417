"""One loop for a run of transforms: ``fused_batch``, offered to the runtime's chain.

A chain of this package's reshaping transforms on schemaless values (``InsertField$Value``,
``ReplaceField$Value``) followed by topic routers (``RegexRouter``, ``TimestampRouter``)
would copy every record once per transform. Fused, a record is reshaped and routed by
straight-line code generated once per record class, and copied once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kconnect_sdk import SinkRecord, SourceRecord, Transformation

from ._regex_router import RegexRouter
from ._timestamp_router import TimestampRouter
from ._util import KeyOrValue

__all__ = ["fused_batch"]

BatchFn = Callable[[Sequence[Any]], "list[Any] | None"]

_RECORD_CLASSES = (SinkRecord, SourceRecord)  # named tuples: value schema at 4, value at 5


def _ours(transform: object) -> bool:
    # A subclass from elsewhere may override apply(); the generated code would skip it.
    return type(transform).__module__.startswith("kconnect_transforms.")


def _reshapes_values(transform: object) -> bool:
    return (
        isinstance(transform, KeyOrValue)
        and _ours(transform)
        and not transform.ON_KEY
        and transform._map_schemaless is not None
    )


def _routes(transform: object) -> bool:
    return type(transform) in (RegexRouter, TimestampRouter)


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
    reshapers: list[KeyOrValue[Any]] = []
    routers: list[Transformation[Any]] = []
    for transform in transforms:
        if not routers and _reshapes_values(transform):
            assert isinstance(transform, KeyOrValue)
            reshapers.append(transform)
        elif _routes(transform):
            routers.append(transform)
        else:
            break
    count = len(reshapers) + len(routers)
    if count < 2:
        return None
    applies = tuple(t.apply for t in [*reshapers, *routers])
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
    reshapers: Sequence[KeyOrValue[Any]],
    routers: Sequence[Transformation[Any]],
    applies: tuple[Callable[[Any], Any], ...],
) -> BatchFn | None:
    names: dict[str, Any] = {"_cls": cls, "_new": tuple.__new__, "_applies": applies}
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
        if isinstance(router, RegexRouter):
            names[f"_memo{i}"], names[f"_route{i}"] = router._routes, router.route
            body += [
                f"t = _memo{i}.get(topic)",
                f"if t is None: t = _route{i}(topic)",
            ]
        else:
            assert isinstance(router, TimestampRouter)
            names[f"_memo{i}"] = router._routes
            names[f"_unit{i}"] = router._format.granularity_ms
            names[f"_route{i}"] = router.route
            body += [
                "ts = record.timestamp",
                f"t = None if ts is None else _memo{i}.get((topic, ts // _unit{i}))",
                f"if t is None: t = _route{i}(topic, ts)",
            ]
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
            f"        append(_new(_cls, {head} + {new_value} + record[6:]))",
            "    return out",
        ]
    )
    exec(compile(source, "<kconnect_transforms fused batch loop>", "exec"), names)
    loop: BatchFn = names["loop"]
    return loop
