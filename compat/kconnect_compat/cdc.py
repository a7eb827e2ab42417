"""Comparing two CDC connectors' topics: Debezium's (on the Java worker) and kconnect's.

Both connectors read the same binlog of the same MariaDB with the same config but for their
``topic.prefix``, server id and schema history topic. Their topics are read back whole
(:class:`TopicTap`), the prefix is replaced by a placeholder, the fields that record when
an event was made (never equal on two connectors) are dropped, and what is left must be
equal: keys and values as JSON, schemas included, event by event in topic order.

A difference is one event on one topic. It carries each leaf that differs (a path and both
sides); the event counts as intended only when the intended list
(``compat/cdc-intended-differences.toml``, same format as ``intended-differences.toml``)
covers every one of its leaves.
"""

from __future__ import annotations

import difflib
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .intended import Intended, load_intended

__all__ = [
    "CDC_INTENDED_FILE",
    "PREFIX",
    "CdcTally",
    "EventDifference",
    "Leaf",
    "TopicTap",
    "compare_events",
    "load_cdc_intended",
    "normalise",
]

CDC_INTENDED_FILE = Path(__file__).resolve().parents[1] / "cdc-intended-differences.toml"

PREFIX = "<prefix>"
"""What either connector's ``topic.prefix`` is replaced with before comparing."""

SHOWN_PER_COMPONENT = 6

# When the connector made the event (or its source block read the binlog event): two
# connectors never do that in the same millisecond.
_TIMING = frozenset({"ts_ms", "ts_us", "ts_ns"})


def load_cdc_intended(path: Path = CDC_INTENDED_FILE) -> list[Intended]:
    """The listed CDC differences (the converter suite's file format and loader)."""
    return load_intended(path)


# -- reading topics ---------------------------------------------------------------------------


@dataclass
class Message:
    """One Kafka message, key and value as bytes."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None


class TopicTap:
    """Reads every partition of every topic ``wanted`` accepts, from the beginning.

    Topics appear while the connectors run; :meth:`pump` assigns the new ones each time it
    is called, so nothing needs a consumer group (no rebalances when a topic is created).
    """

    def __init__(self, bootstrap: str, wanted: Callable[[str], bool]) -> None:
        from confluent_kafka import Consumer

        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"cdc-compat-{time.time_ns()}",
                "enable.auto.commit": False,
                "enable.partition.eof": False,
            }
        )
        self._wanted = wanted
        self._assigned: set[tuple[str, int]] = set()
        self.messages: dict[str, list[Message]] = {}

    def _assign_new(self) -> None:
        from confluent_kafka import OFFSET_BEGINNING, TopicPartition

        metadata = self._consumer.list_topics(timeout=10)
        fresh = [
            TopicPartition(name, p, OFFSET_BEGINNING)
            for name, topic in metadata.topics.items()
            if self._wanted(name) and topic.error is None
            for p in topic.partitions
            if (name, p) not in self._assigned
        ]
        if fresh:
            self._consumer.incremental_assign(fresh)
            self._assigned.update((tp.topic, tp.partition) for tp in fresh)

    def pump(self, seconds: float = 0.5) -> int:
        """Read for about ``seconds``; returns how many messages came."""
        self._assign_new()
        came = 0
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return came
            for message in self._consumer.consume(2000, min(left, 0.25)):
                if message.error() is not None:
                    continue
                topic, partition, offset = message.topic(), message.partition(), message.offset()
                if topic is None or partition is None or offset is None:
                    continue
                self.messages.setdefault(topic, []).append(
                    Message(topic, partition, offset, message.key(), message.value())
                )
                came += 1

    def until(
        self,
        done: Callable[[], bool],
        *,
        timeout_s: float,
        what: str,
        healthy: Callable[[], None] | None = None,
    ) -> None:
        """Read until ``done()``; fails saying ``what`` was awaited and which topics came.
        ``healthy`` raises when a connector has failed (no use waiting on)."""
        deadline = time.monotonic() + timeout_s
        while not done():
            if healthy is not None:
                healthy()
            if time.monotonic() > deadline:
                counts = {t: len(m) for t, m in sorted(self.messages.items())}
                raise AssertionError(
                    f"timed out after {timeout_s:.0f} s waiting for {what}; topics: {counts}"
                )
            self.pump(0.5)

    def settle(self, quiet_s: float = 2.0, *, most_s: float = 20.0) -> None:
        """Read until nothing came for ``quiet_s`` (or ``most_s`` passed)."""
        deadline = time.monotonic() + most_s
        quiet_since = time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - quiet_since < quiet_s:
            if self.pump(0.5):
                quiet_since = time.monotonic()

    def of(self, topic: str) -> list[Message]:
        """The messages of ``topic`` in partition and offset order."""
        return sorted(self.messages.get(topic, []), key=lambda m: (m.partition, m.offset))

    def close(self) -> None:
        self._consumer.close()


def parse_json(raw: bytes | None) -> Any:
    """A key or value as JSON; a null (tombstone) stays None."""
    return None if raw is None else json.loads(raw)


# -- normalising ------------------------------------------------------------------------------


def normalise(node: Any, prefix: str) -> Any:
    """``node`` with the connector's ``topic.prefix`` replaced by :data:`PREFIX` wherever a
    string is the prefix or starts with it followed by the topic delimiter (schema names,
    ``source.name``, heartbeat ``serverName``, the history records' ``source.server``)."""
    if isinstance(node, dict):
        return {k: normalise(v, prefix) for k, v in node.items()}
    if isinstance(node, list):
        return [normalise(v, prefix) for v in node]
    if isinstance(node, str):
        if node == prefix:
            return PREFIX
        if node.startswith(prefix + "."):
            return PREFIX + node[len(prefix) :]
    return node


def drop_timing(node: Any, *, source_too: bool = True) -> Any:
    """``node`` (a change event's, transaction's or schema change's value payload) without
    its top-level ``ts_ms``/``ts_us``/``ts_ns`` and, with ``source_too``, its source block's."""
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k not in _TIMING}
    source = out.get("source")
    if source_too and isinstance(source, dict):
        out["source"] = {k: v for k, v in source.items() if k not in _TIMING}
    return out


# -- comparing --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Leaf:
    """One place where two events differ."""

    kind: str  # value | schema | key | missing | extra | count | shape
    where: str
    java: Any
    kconnect: Any

    def summary(self) -> str:
        return f"{self.kind} at {self.where or '(event)'}: java={_show(self.java)} kconnect={_show(self.kconnect)}"


@dataclass
class EventDifference:
    """One event (or one missing event) on which the two connectors differ."""

    component: str
    label: str  # which event: "#3 op=u key={...}"
    leaves: list[Leaf]
    unexplained: list[Leaf] = field(default_factory=list)
    reasons: set[str] = field(default_factory=set)

    def render(self) -> str:
        shown = self.unexplained or self.leaves
        lines = [f"[{self.component} {self.label}]"]
        lines += [f"    {leaf.summary()}" for leaf in shown[:8]]
        if len(shown) > 8:
            lines.append(f"    ... and {len(shown) - 8} more")
        return "\n".join(lines)


def _show(thing: Any, limit: int = 240) -> str:
    text = (
        thing if isinstance(thing, str) else json.dumps(thing, ensure_ascii=False, sort_keys=False)
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_schema_path(path: str) -> bool:
    return path.startswith(("key.schema", "value.schema", "schema"))


def leaves(java: Any, kconnect: Any, path: str = "") -> list[Leaf]:
    """Every leaf where two JSON documents differ (an int and a float of the same value
    differ: the JSON text says which Connect type wrote it). Object members are compared
    by name: their order is the converter's, which the converter suite compares."""
    if isinstance(java, dict) and isinstance(kconnect, dict):
        found: list[Leaf] = []
        for k in java:
            if k not in kconnect:
                found.append(_leaf(f"{path}.{k}", java[k], "<absent>"))
            else:
                found += leaves(java[k], kconnect[k], f"{path}.{k}")
        found += [_leaf(f"{path}.{k}", "<absent>", kconnect[k]) for k in kconnect if k not in java]
        return found
    if isinstance(java, list) and isinstance(kconnect, list):
        found = []
        for i, (j, p) in enumerate(zip(java, kconnect, strict=False)):
            found += leaves(j, p, f"{path}[{i}]")
        if len(java) != len(kconnect):
            found.append(_leaf(f"{path} length", len(java), len(kconnect)))
        return found
    if java == kconnect and type(java) is type(kconnect):
        return []
    return [_leaf(path, java, kconnect)]


def _leaf(path: str, java: Any, kconnect: Any) -> Leaf:
    path = path.lstrip(".")
    return Leaf(
        "schema" if _is_schema_path(path) or ".schema." in path else "value", path, java, kconnect
    )


def _signature(event: Any) -> str:
    """What pairs events of the two sides: the key and the operation, not the values."""
    key, value = event
    op = (
        value.get("payload", {}).get("op")
        if isinstance(value, dict) and isinstance(value.get("payload"), dict)
        else None
    )
    key_payload = key.get("payload") if isinstance(key, dict) and "payload" in key else key
    return json.dumps([key_payload, op, value is None], sort_keys=True)


def compare_events(
    component: str,
    java: Sequence[tuple[Any, Any]],
    kconnect: Sequence[tuple[Any, Any]],
    *,
    signature: Callable[[tuple[Any, Any]], str] | None = None,
) -> tuple[int, list[EventDifference]]:
    """Pairs the two topics' (key, value) events, already normalised, in order and compares
    them; an event only one side has is its own difference. Events pair up by
    ``signature`` (by default the key and the operation). Returns how many events were
    compared (pairs and unpaired) and the differences."""
    sign = signature or _signature
    matcher = difflib.SequenceMatcher(
        None, [sign(e) for e in java], [sign(e) for e in kconnect], autojunk=False
    )
    differences: list[EventDifference] = []
    compared = 0
    for tag, j0, j1, k0, k1 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and j1 - j0 == k1 - k0):
            for i, (j, p) in enumerate(zip(java[j0:j1], kconnect[k0:k1], strict=True)):
                compared += 1
                found = leaves({"key": j[0], "value": j[1]}, {"key": p[0], "value": p[1]})
                if found:
                    differences.append(EventDifference(component, _label(j0 + i, j), found))
            continue
        for i, event in enumerate(java[j0:j1]):
            compared += 1
            leaf = Leaf("missing", "event", _brief(event), "<none>")
            differences.append(EventDifference(component, _label(j0 + i, event), [leaf]))
        for i, event in enumerate(kconnect[k0:k1]):
            compared += 1
            leaf = Leaf("extra", "event", "<none>", _brief(event))
            differences.append(
                EventDifference(component, _label(k0 + i, event) + " (kconnect)", [leaf])
            )
    return compared, differences


def _brief(event: tuple[Any, Any]) -> str:
    key, value = event
    payload = value.get("payload", value) if isinstance(value, dict) else value
    if isinstance(payload, dict) and "ddl" in payload:
        # A schema change or history record: its statement says which it is.
        return f"ddl: {one_line(str(payload['ddl']))[:200]}"
    return _show(
        {"key": key.get("payload") if isinstance(key, dict) else key, "value": payload}, 400
    )


def _label(index: int, event: tuple[Any, Any]) -> str:
    key, value = event
    payload = value.get("payload") if isinstance(value, dict) else None
    op = payload.get("op") if isinstance(payload, dict) else None
    key_payload = key.get("payload") if isinstance(key, dict) else key
    text = f"#{index}"
    if op is not None:
        text += f" op={op}"
    if value is None:
        text += " tombstone"
    return text + f" key={_show(key_payload, 80)}"


# -- tallying ---------------------------------------------------------------------------------


def covers(entry: Intended, component: str, leaf: Leaf) -> bool:
    """Whether a listed difference explains ``leaf`` of an event of ``component``."""
    return (
        entry.component.search(component) is not None
        and (not entry.kinds or leaf.kind in entry.kinds)
        and entry.match.search(leaf.summary()) is not None
    )


@dataclass
class ComponentCount:
    compared: int = 0
    differing: int = 0
    intended: int = 0
    known: int = 0


class CdcTally:
    """Per-component counts of a run, and the differences no entry explains."""

    def __init__(self, intended: Iterable[Intended]) -> None:
        self.intended = list(intended)
        self.counts: dict[str, ComponentCount] = {}
        self.unexplained: list[EventDifference] = []
        self.differences: list[EventDifference] = []
        self.seen: dict[str, int] = {}

    def add(self, component: str, compared: int, differences: Iterable[EventDifference]) -> None:
        count = self.counts.setdefault(component, ComponentCount())
        count.compared += compared
        for difference in differences:
            self.differences.append(difference)
            count.differing += 1
            statuses: set[str] = set()
            for leaf in difference.leaves:
                entry = next((e for e in self.intended if covers(e, component, leaf)), None)
                if entry is None:
                    difference.unexplained.append(leaf)
                else:
                    difference.reasons.add(entry.name)
                    statuses.add(entry.status)
            if difference.unexplained:
                self.unexplained.append(difference)
                continue
            for name in difference.reasons:
                self.seen[name] = self.seen.get(name, 0) + 1
            if "known" in statuses:
                count.known += 1
            else:
                count.intended += 1

    def table(self) -> list[str]:
        """The per-component table, then each listed difference seen and how often."""
        width = max([len(c) for c in self.counts] + [len("component")])
        header = "compared  differing  intended  known  unlisted"
        lines = [f"{'component':<{width}}  {header}"]
        total = ComponentCount()
        for component in self.counts:
            c = self.counts[component]
            lines.append(_row(component, width, c))
            total.compared += c.compared
            total.differing += c.differing
            total.intended += c.intended
            total.known += c.known
        lines.append(_row("total", width, total))
        for entry in self.intended:
            if entry.name in self.seen:
                lines.append(f"  {entry.status} {entry.name}: {self.seen[entry.name]} events")
        unused = [e.name for e in self.intended if e.name not in self.seen]
        if unused:
            lines.append(f"  listed but not seen this run: {', '.join(unused)}")
        return lines

    def report(self) -> str:
        """The first unexplained differences of each component, readably."""
        shown: dict[str, int] = {}
        lines: list[str] = []
        for difference in self.unexplained:
            shown[difference.component] = shown.get(difference.component, 0) + 1
            if shown[difference.component] <= SHOWN_PER_COMPONENT:
                lines.append(difference.render())
        counts = ", ".join(f"{c}: {n}" for c, n in shown.items())
        header = (
            f"{len(self.unexplained)} events differ between Debezium and kconnect and are not in "
            f"compat/cdc-intended-differences.toml ({counts}); the first of each component:"
        )
        return "\n".join([header, *lines])


def _row(name: str, width: int, c: ComponentCount) -> str:
    unlisted = c.differing - c.intended - c.known
    return (
        f"{name:<{width}}  {c.compared:>8}  {c.differing:>9}  {c.intended:>8}  {c.known:>5}  "
        f"{unlisted:>8}"
    )


_WORD = re.compile(r"\s+")


def one_line(text: str) -> str:
    """A DDL statement with its whitespace runs made single spaces (for reports)."""
    return _WORD.sub(" ", text).strip()
