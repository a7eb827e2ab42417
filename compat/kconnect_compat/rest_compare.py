"""Run the REST script on two workers and compare their answers and internal topics.

Only what differs by construction is normalised before comparing:

* each side's folder of files and its topic/group prefix (``rest_script.DIR``/``PREFIX``);
* worker ids (``host:port``), in ``worker_id`` fields and anywhere in text;
* timestamps (``last_modified``, ``creation-timestamp``, ``discoverTimestamp``);
* stack traces (a non-null ``trace``);
* ``commit`` in ``GET /`` (a Java build's git hash), and a session key's random bytes.

Everything else (status codes, bodies, error messages, record keys and values) must be
equal. A JSON array whose order Kafka does not define (``Step.unordered``) is compared as a
set. A difference is matched against ``compat/rest-intended-differences.toml``; one it does
not list fails the test.
"""

from __future__ import annotations

import difflib
import json
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .intended import Intended, load_intended
from .rest_script import DIR, PREFIX, Settle, Step

__all__ = [
    "REST_INTENDED_FILE",
    "Answer",
    "RestDifference",
    "RestSession",
    "Side",
    "Tally",
    "compare_bodies",
    "compare_topic",
    "load_rest_intended",
    "read_topic",
]

REST_INTENDED_FILE = Path(__file__).resolve().parents[1] / "rest-intended-differences.toml"

_TIMESTAMP_KEYS = frozenset({"last_modified", "creation-timestamp", "discoverTimestamp"})
_BUILD_KEYS = frozenset({"commit"})  # GET /: the git hash a Java build was made from
_IDENTITY_KEYS = ("name", "class", "id", "connector")
SETTLE_TIMEOUT_S = 30.0


def load_rest_intended(path: Path = REST_INTENDED_FILE) -> list[Intended]:
    """The listed REST differences (same format as ``intended-differences.toml``)."""
    return load_intended(path)


@dataclass
class Side:
    """One worker under test: its URL and what it fills the script's placeholders with."""

    name: str  # "java" or "kconnect"
    url: str
    folder: Path
    prefix: str
    group: str
    worker_id: str
    client: httpx.Client = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.client = httpx.Client(base_url=self.url, timeout=60.0)
        # Every worker id seen in a worker_id field, to hide it in free text as well.
        self.worker_ids = {self.worker_id}

    def fill(self, thing: Any) -> Any:
        """``thing`` with the placeholders replaced by this side's values."""
        if isinstance(thing, str):
            return thing.replace(DIR, str(self.folder)).replace(PREFIX, self.prefix)
        if isinstance(thing, dict):
            return {self.fill(k): self.fill(v) for k, v in thing.items()}
        if isinstance(thing, list):
            return [self.fill(v) for v in thing]
        return thing

    def text(self, value: str) -> str:
        """A string with this side's own names put back to the placeholders."""
        value = value.replace(str(self.folder), DIR).replace(self.prefix, PREFIX)
        for worker_id in self.worker_ids:
            value = value.replace(worker_id, "<worker>")
        return value

    def normalise(self, thing: Any, key: str | None = None) -> Any:
        """A JSON value with what differs by construction replaced (see the module doc)."""
        if key == "worker_id" and isinstance(thing, str):
            if len(thing) > 3:  # an empty id must not match everywhere
                self.worker_ids.add(thing)
            return "<worker>"
        if key in _TIMESTAMP_KEYS and thing is not None:
            return "<ts>"
        if key == "trace" and thing is not None:
            return "<trace>"
        if key in _BUILD_KEYS and isinstance(thing, str):
            return "<commit>"
        if isinstance(thing, str):
            return self.text(thing)
        if isinstance(thing, dict):
            return {self.text(k): self.normalise(v, k) for k, v in thing.items()}
        if isinstance(thing, list):
            return [self.normalise(v) for v in thing]
        return thing

    def send(self, step: Step) -> Answer:
        """Send ``step`` to this worker; the answer as it came, and normalised."""
        headers = {"Accept": "application/json", **step.headers}
        content: bytes | None = None
        if step.raw is not None:
            content = step.raw.data
            if step.raw.content_type is not None:
                headers["Content-Type"] = step.raw.content_type
        elif step.body is not None:
            content = json.dumps(self.fill(step.body)).encode()
            headers["Content-Type"] = "application/json"
        try:
            response = self.client.request(
                step.method, self.fill(step.path), content=content, headers=headers
            )
        except httpx.RemoteProtocolError:
            # Jetty may close a kept-alive connection after an error answer to a body it did
            # not read; the request never reached it, so it is sent again on a new one.
            response = self.client.request(
                step.method, self.fill(step.path), content=content, headers=headers
            )
        return Answer.of(response, self)

    def get(self, path: str) -> Answer:
        return Answer.of(self.client.get(path, headers={"Accept": "application/json"}), self)

    def close(self) -> None:
        self.client.close()


@dataclass
class Answer:
    """A worker's answer: status code and body (JSON when it parses, else its text)."""

    status: int
    body: Any
    raw: Any

    @staticmethod
    def of(response: httpx.Response, side: Side) -> Answer:
        text = response.text
        try:
            raw: Any = json.loads(text) if text else None
        except ValueError:
            raw = text
        return Answer(response.status_code, side.normalise(raw), raw)


@dataclass
class RestDifference:
    """One way in which the two workers disagreed on one step (or one topic key)."""

    component: str
    request: str
    kind: str  # status | value | only-java | only-kconnect | order | settle | count
    where: str
    java: Any
    kconnect: Any

    def summary(self) -> str:
        """One line, matched by the intended-differences list."""
        where = f" at {self.where}" if self.where else ""
        return (
            f"{self.request} {self.kind}{where}: java={_show(self.java)} "
            f"kconnect={_show(self.kconnect)}"
        )


def _show(thing: Any, limit: int = 1500) -> str:
    text = thing if isinstance(thing, str) else json.dumps(thing, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _canonical(thing: Any) -> str:
    return json.dumps(thing, sort_keys=True, ensure_ascii=False)


def _identity(element: Any) -> str | None:
    """What names an element of a list of objects (to pair Java's with kconnect's)."""
    if not isinstance(element, dict):
        return None
    for key in _IDENTITY_KEYS:
        if isinstance(element.get(key), str | int):
            return f"{key}={element[key]}"
    definition = element.get("definition")
    if isinstance(definition, dict) and isinstance(definition.get("name"), str):
        return f"name={definition['name']}"
    return None


def compare_bodies(
    java: Any, kconnect: Any, where: str = "", *, unordered: bool = False
) -> list[tuple[str, str, Any, Any]]:
    """Every place where two JSON values differ: (kind, where, java's, kconnect's)."""
    if isinstance(java, dict) and isinstance(kconnect, dict):
        out: list[tuple[str, str, Any, Any]] = []
        for key in java.keys() | kconnect.keys():
            at = f"{where}.{key}"
            if key not in kconnect:
                out.append(("only-java", at, java[key], None))
            elif key not in java:
                out.append(("only-kconnect", at, None, kconnect[key]))
            else:
                out += compare_bodies(java[key], kconnect[key], at)
        return sorted(out, key=lambda d: d[1])
    if isinstance(java, list) and isinstance(kconnect, list):
        return _compare_lists(java, kconnect, where, unordered=unordered)
    if java != kconnect or type(java) is not type(kconnect):
        return [("value", where or "(body)", java, kconnect)]
    return []


def _compare_lists(
    java: list[Any], kconnect: list[Any], where: str, *, unordered: bool
) -> list[tuple[str, str, Any, Any]]:
    java_ids = [_identity(e) for e in java]
    kconnect_ids = [_identity(e) for e in kconnect]
    keyed = (
        None not in java_ids
        and None not in kconnect_ids
        and len(set(java_ids)) == len(java_ids)
        and len(set(kconnect_ids)) == len(kconnect_ids)
    )
    if keyed:
        out: list[tuple[str, str, Any, Any]] = []
        java_by = dict(zip(java_ids, java, strict=True))
        kconnect_by = dict(zip(kconnect_ids, kconnect, strict=True))
        for ident in java_ids:
            if ident not in kconnect_by:
                out.append(("only-java", f"{where}[{ident}]", java_by[ident], None))
            else:
                out += compare_bodies(java_by[ident], kconnect_by[ident], f"{where}[{ident}]")
        for ident in kconnect_ids:
            if ident not in java_by:
                out.append(("only-kconnect", f"{where}[{ident}]", None, kconnect_by[ident]))
        common = [i for i in java_ids if i in kconnect_by]
        if not unordered and common != [i for i in kconnect_ids if i in java_by]:
            out.append(("order", where or "(body)", java_ids, kconnect_ids))
        return out
    if unordered:
        java_set = {_canonical(e): e for e in java}
        kconnect_set = {_canonical(e): e for e in kconnect}
        out = [
            ("only-java", f"{where}[]", java_set[k], None)
            for k in java_set
            if k not in kconnect_set
        ]
        out += [
            ("only-kconnect", f"{where}[]", None, kconnect_set[k])
            for k in kconnect_set
            if k not in java_set
        ]
        if not out and len(java) != len(kconnect):
            out.append(("value", where or "(body)", java, kconnect))
        return out
    if len(java) != len(kconnect):
        return [("value", where or "(body)", java, kconnect)]
    out = []
    for i, (j, k) in enumerate(zip(java, kconnect, strict=True)):
        out += compare_bodies(j, k, f"{where}[{i}]")
    return out


@dataclass
class Tally:
    """Per component: items compared, differing, and how the differences were explained."""

    compared: int = 0
    differing: int = 0
    intended: int = 0
    known: int = 0


class RestSession:
    """Sends the script to both sides in lockstep, compares, and keeps the tally."""

    def __init__(self, java: Side, kconnect: Side, intended: Sequence[Intended]) -> None:
        self.java = java
        self.kconnect = kconnect
        self.intended = list(intended)
        self.tallies: dict[str, Tally] = {}
        self.unexplained: list[RestDifference] = []
        self.explained: list[tuple[RestDifference, Intended]] = []
        self.log: list[str] = []

    def why(self, difference: RestDifference) -> Intended | None:
        """The intended-differences entry that covers ``difference``, if any."""
        summary = difference.summary()
        for entry in self.intended:
            if (
                entry.component.search(difference.component) is not None
                and (not entry.kinds or difference.kind in entry.kinds)
                and entry.match.search(summary) is not None
            ):
                return entry
        return None

    def record(self, component: str, differences: Iterable[RestDifference]) -> None:
        """Count one compared item of ``component`` and classify what differed in it."""
        tally = self.tallies.setdefault(component, Tally())
        tally.compared += 1
        found = list(differences)
        if not found:
            return
        tally.differing += 1
        statuses = set()
        for difference in found:
            entry = self.why(difference)
            if entry is None:
                self.unexplained.append(difference)
                statuses.add("unlisted")
            else:
                self.explained.append((difference, entry))
                statuses.add(entry.status)
        if "unlisted" in statuses:
            return
        if "known" in statuses:
            tally.known += 1
        else:
            tally.intended += 1

    def run(self, steps: Sequence[Step]) -> None:
        for index, step in enumerate(steps):
            request = f"{step.method} {step.path}" + (f" [{step.note}]" if step.note else "")
            java = self.java.send(step)
            kconnect = self.kconnect.send(step)
            found: list[RestDifference] = []
            if java.status != kconnect.status:
                found.append(
                    RestDifference(
                        step.component, request, "status", "", java.status, kconnect.status
                    )
                )
            for kind, where, j, k in compare_bodies(
                java.body, kconnect.body, unordered=step.unordered
            ):
                found.append(RestDifference(step.component, request, kind, where, j, k))
            self.log.append(
                f"#{index} {request} {step.note} -> java {java.status} kconnect {kconnect.status}"
                + (f" ({len(found)} difference(s))" if found else "")
            )
            waited = time.monotonic()
            refused = {
                side.name
                for side, answer in ((self.java, java), (self.kconnect, kconnect))
                if answer.status >= 400
            }
            for settle in step.settle:
                found += self._settle(step, request, settle, refused)
            if step.settle:
                self.log[-1] += f" settled in {time.monotonic() - waited:.1f} s"
            self.record(step.component, found)

    def _settle(
        self, step: Step, request: str, settle: Settle, refused: set[str]
    ) -> list[RestDifference]:
        """Wait for both sides; a side that never gets there is a difference, not a hang.

        A side that refused the request has nothing to wait for (its refusal is the
        difference already counted).
        """
        outcome = {
            side.name: None if side.name in refused else _wait(side, settle)
            for side in (self.java, self.kconnect)
        }
        if outcome["java"] is None and outcome["kconnect"] is None:
            return []
        return [
            RestDifference(
                step.component,
                request,
                "settle",
                settle.describe,
                outcome["java"] or "settled",
                outcome["kconnect"] or "settled",
            )
        ]

    def table(self) -> list[str]:
        """The per-component table, with each listed difference's count."""
        return render_table(self.tallies, self.explained, self.intended)


def render_table(
    tallies: dict[str, Tally],
    explained: Sequence[tuple[RestDifference, Intended]],
    intended: Sequence[Intended],
) -> list[str]:
    if not tallies:
        return []
    width = max(len(c) for c in [*tallies, "component"])
    lines = [f"{'component':<{width}}  compared  differing  intended  known  unlisted"]
    total = Tally()
    for component in sorted(tallies):
        t = tallies[component]
        lines.append(_row(component, width, t))
        total.compared += t.compared
        total.differing += t.differing
        total.intended += t.intended
        total.known += t.known
    lines.append(_row("total", width, total))
    counts: dict[str, int] = {}
    for _difference, entry in explained:
        counts[entry.name] = counts.get(entry.name, 0) + 1
    for entry in intended:
        if entry.name in counts:
            lines.append(f"  {entry.status} {entry.name}: {counts[entry.name]}")
    unused = [e.name for e in intended if e.name not in counts]
    if unused:
        lines.append(f"  listed but not seen this run: {', '.join(unused)}")
    return lines


def _row(name: str, width: int, t: Tally) -> str:
    unlisted = t.differing - t.intended - t.known
    return (
        f"{name:<{width}}  {t.compared:>8}  {t.differing:>9}  {t.intended:>8}  {t.known:>5}  "
        f"{unlisted:>8}"
    )


def _wait(side: Side, settle: Settle, timeout_s: float = SETTLE_TIMEOUT_S) -> str | None:
    """None once ``side`` answers as ``settle`` wants (for ``stable_s``); else what it said."""
    deadline = time.monotonic() + timeout_s
    since: float | None = None
    last: Answer | None = None
    while time.monotonic() < deadline:
        last = side.get(settle.path)
        if settle.ok(last.status, last.raw):
            now = time.monotonic()
            since = now if since is None else since
            if now - since >= settle.stable_s:
                return None
        else:
            since = None
        time.sleep(0.1)
    shown = "no answer" if last is None else f"{last.status} {_show(last.body, 300)}"
    return f"timeout after {timeout_s:.0f} s: {shown}"


# -- internal topics ------------------------------------------------------------------------


@dataclass(frozen=True)
class TopicRecord:
    key: bytes | None
    value: bytes | None
    partition: int


def read_topic(bootstrap: str, topic: str, timeout_s: float = 30.0) -> list[TopicRecord]:
    """Every record of ``topic`` from the beginning to its current end, partition by partition."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"rest-compare-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
        }
    )
    try:
        meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None:
            return []
        ends: dict[int, int] = {}
        for partition in meta.partitions:
            low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
            if high > low:
                ends[partition] = high
        consumer.assign([TopicPartition(topic, p, 0) for p in ends])
        position = dict.fromkeys(ends, 0)
        records: list[TopicRecord] = []
        deadline = time.monotonic() + timeout_s
        while any(position[p] < ends[p] for p in ends) and time.monotonic() < deadline:
            for message in consumer.consume(500, 0.5):
                if message.error() is not None:
                    continue
                partition, offset = message.partition(), message.offset()
                if partition is None or offset is None or offset >= ends[partition]:
                    continue
                position[partition] = offset + 1
                records.append(TopicRecord(message.key(), message.value(), partition))
        return records
    finally:
        consumer.close()


def topic_metadata(bootstrap: str, topic: str) -> dict[str, Any]:
    """Partition count and cleanup policy of an internal topic."""
    # Public classes of confluent_kafka.admin that its type hints do not re-export.
    from confluent_kafka.admin import (  # type: ignore[attr-defined]
        AdminClient,
        ConfigResource,
        ResourceType,
    )

    admin = AdminClient({"bootstrap.servers": bootstrap})
    meta = admin.list_topics(topic, timeout=10).topics.get(topic)
    resource = ConfigResource(ResourceType.TOPIC, topic)
    configs = admin.describe_configs([resource])[resource].result(timeout=10)
    return {
        "partitions": 0 if meta is None else len(meta.partitions),
        "cleanup.policy": configs["cleanup.policy"].value,
    }


def _decode(side: Side, data: bytes | None, *, key: str) -> Any:
    if data is None:
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return side.text(data.decode("utf-8", "replace"))
    normalised = side.normalise(value)
    if key == "session-key" and isinstance(normalised, dict) and "key" in normalised:
        normalised["key"] = "<random>"
    return normalised


def compare_topic(
    java_side: Side,
    kconnect_side: Side,
    java: Sequence[TopicRecord],
    kconnect: Sequence[TopicRecord],
    *,
    component: str,
    record: Callable[[str, Iterable[RestDifference]], None],
) -> None:
    """Compare two internal topics key by key: the keys, and each key's values in order.

    Records of different keys interleave by timing, so only the order within a key (which
    Kafka keeps, one key being one partition) is compared. Each record compared counts.
    """

    def by_key(side: Side, records: Sequence[TopicRecord]) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for r in records:
            shown = side.text(r.key.decode("utf-8", "replace")) if r.key is not None else "<null>"
            out.setdefault(shown, []).append(_decode(side, r.value, key=shown))
        return out

    java_keys = by_key(java_side, java)
    kconnect_keys = by_key(kconnect_side, kconnect)
    for key in sorted(java_keys.keys() | kconnect_keys.keys()):
        j = java_keys.get(key, [])
        k = kconnect_keys.get(key, [])
        # Aligned as a diff: a record one side wrote and the other did not shows as that,
        # not as every later record of the key shifted by one.
        matcher = difflib.SequenceMatcher(
            a=[_canonical(v) for v in j], b=[_canonical(v) for v in k], autojunk=False
        )
        for tag, j1, j2, k1, k2 in matcher.get_opcodes():
            if tag == "equal":
                for _ in range(j1, j2):
                    record(component, [])
                continue
            pairs = min(j2 - j1, k2 - k1)
            for offset in range(pairs):
                request = f"record {key}#{j1 + offset}"
                record(
                    component,
                    [
                        RestDifference(component, request, kind, where, jv, kv)
                        for kind, where, jv, kv in compare_bodies(j[j1 + offset], k[k1 + offset])
                    ],
                )
            for i in range(j1 + pairs, j2):
                request = f"record {key}#{i}"
                record(component, [RestDifference(component, request, "only-java", "", j[i], None)])
            for i in range(k1 + pairs, k2):
                request = f"record {key}#{i}"
                record(
                    component, [RestDifference(component, request, "only-kconnect", "", None, k[i])]
                )
