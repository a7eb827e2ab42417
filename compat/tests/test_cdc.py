"""Debezium's MariaDB connector and kconnect's on the same private MariaDB, event by event.

Both run the scenario of ``kconnect_compat.cdc_scenario``: a snapshot of the rows that
exist when they start, then the same streamed changes (DML, multi-statement transactions,
DDL, TRUNCATE, an incremental snapshot started by a signal row), with heartbeats, the
schema change topic, transaction metadata and the schema history topic. Debezium runs on
Apache Kafka Connect's Java worker, kconnect's connector on kconnect's standalone worker;
both write JSON with schemas. Every event of every topic is compared after the topic
prefix is normalised and timing fields are dropped; a difference not listed in
``compat/cdc-intended-differences.toml`` fails the test.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from kconnect_compat import cdc
from kconnect_compat.cdc_scenario import (
    DATABASE,
    DATABASES,
    DDL_AND_TRUNCATE,
    DML,
    END,
    OPTION_SETS,
    SETUP,
    SIGNAL,
    SNAPSHOT_ROWS,
    connector_config,
)
from kconnect_runtime import Standalone

pytestmark = pytest.mark.integration

JAVA, KCONNECT = "java", "kconnect"
HEARTBEAT = "__debezium-heartbeat."
HISTORY = "history."
WINDOW_TYPES = frozenset({"snapshot-window-open", "snapshot-window-close"})


def _prefix(side: str, option_set: str) -> str:
    return f"{side}_{option_set}"


def _server_id(side: str, index: int) -> int:
    # Both connectors are replicas of the same server: each needs its own id.
    return (5501 if side == JAVA else 6501) + index


def _wanted(topic: str) -> bool:
    return topic.startswith((f"{JAVA}_", f"{KCONNECT}_", HEARTBEAT, HISTORY))


def _run(server: Any, statements: tuple[str, ...]) -> None:
    conn = server.connect(autocommit=True, charset="utf8mb4", database=None)
    try:
        with conn.cursor() as cur:
            for statement in statements:
                cur.execute(statement)
    finally:
        conn.close()


def _in_db(server: Any, statements: tuple[str, ...]) -> None:
    _run(server, (f"USE {DATABASE}", *statements))


def _payloads(tap: cdc.TopicTap, topic: str) -> list[Any]:
    out = []
    for message in tap.of(topic):
        value = cdc.parse_json(message.value)
        out.append(value.get("payload") if isinstance(value, dict) else None)
    return out


def _has(tap: cdc.TopicTap, topic: str, test: Callable[[Any], bool], count: int = 1) -> bool:
    return sum(1 for p in _payloads(tap, topic) if p is not None and test(p)) >= count


def _is_window(event: tuple[Any, Any]) -> bool:
    """A watermark row of an incremental snapshot: each connector writes its own into the
    shared signaling table, and both see both connectors' rows, in whatever order their
    chunks happened to interleave."""
    payload = event[1].get("payload") if isinstance(event[1], dict) else None
    if not isinstance(payload, dict):
        key = event[0].get("payload", {}) if isinstance(event[0], dict) else {}
        return str(key.get("id", "")).endswith(("-open", "-close"))
    row = payload.get("after") or payload.get("before") or {}
    return row.get("type") in WINDOW_TYPES


@pytest.fixture
def kconnect_worker(
    kc_kafka: str, tmp_path: Path
) -> Iterator[Callable[[list[dict[str, str]]], Standalone]]:
    started: list[Standalone] = []

    def start(connectors: list[dict[str, str]]) -> Standalone:
        worker = {
            "bootstrap.servers": kc_kafka,
            "offset.storage.file.filename": str(tmp_path / "kconnect.offsets"),
            "offset.flush.interval.ms": "1000",
            "listeners": "",
            # The Java worker's converters (kc_java_connect's defaults): JSON with schemas.
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        }
        app = Standalone(worker, connectors)
        started.append(app)
        app.start()
        return app

    try:
        yield start
    finally:
        for app in started:
            app.stop()


def test_debezium_and_kconnect_write_the_same_cdc_events(
    kc_kafka: str,
    kc_mariadb: Any,
    kc_java_connect: Any,
    kconnect_worker: Callable[[list[dict[str, str]]], Standalone],
    capsys: pytest.CaptureFixture[str],
) -> None:
    began = time.monotonic()
    _run(kc_mariadb, tuple(f"DROP DATABASE IF EXISTS {d}" for d in DATABASES))
    _run(kc_mariadb, SETUP)
    configs = {
        side: [
            connector_config(
                kc_mariadb,
                kc_kafka,
                option_set,
                prefix=_prefix(side, option_set),
                server_id=_server_id(side, i),
            )
            for i, option_set in enumerate(OPTION_SETS)
        ]
        for side in (JAVA, KCONNECT)
    }
    tap = cdc.TopicTap(kc_kafka, _wanted)
    try:
        app = kconnect_worker(configs[KCONNECT])
        java = kc_java_connect(mode="distributed", debezium=True, name="cdc-compat")
        for config in configs[JAVA]:
            status, body = java.request("PUT", f"/connectors/{config['name']}/config", config)
            assert status in (200, 201), f"Debezium refused {config['name']}: {body}"
        for config in configs[JAVA]:
            java.wait_running(config["name"], timeout_s=90)

        def snapshots_done() -> bool:
            for option_set in OPTION_SETS:
                rows = SNAPSHOT_ROWS[option_set]
                for side in (JAVA, KCONNECT):
                    prefix = _prefix(side, option_set)
                    for table, count in rows.items():
                        topic = f"{prefix}.{DATABASE}.{table}"
                        if len(tap.of(topic)) < count:
                            return False
            return True

        def healthy() -> None:
            for config in configs[JAVA]:
                _, body = java.request("GET", f"/connectors/{config['name']}/status")
                failed = [t for t in (body or {}).get("tasks", []) if t.get("state") == "FAILED"]
                assert not failed, f"Debezium's {config['name']} failed: {failed}"
            for config in configs[KCONNECT]:
                status = app.herder.connector_status(config["name"]) if app.herder else {}
                failed = [t for t in status.get("tasks", []) if t.get("state") == "FAILED"]
                assert not failed, f"kconnect's {config['name']} failed: {failed}"

        tap.until(snapshots_done, timeout_s=120, what="both sides' snapshots", healthy=healthy)
        for statements in (*DML, *DDL_AND_TRUNCATE):
            _in_db(kc_mariadb, statements)
        _in_db(kc_mariadb, (SIGNAL,))
        order_rows = _count(kc_mariadb, "orders")

        def incremental_done() -> bool:
            return all(
                _has(
                    tap,
                    f"{_prefix(side, 'default')}.{DATABASE}.orders",
                    lambda p: p.get("source", {}).get("snapshot") == "incremental",
                    order_rows,
                )
                for side in (JAVA, KCONNECT)
            )

        tap.until(
            incremental_done,
            timeout_s=90,
            what="both incremental snapshots of orders",
            healthy=healthy,
        )
        _in_db(kc_mariadb, END)

        def ends_seen() -> bool:
            for side in (JAVA, KCONNECT):
                if not _has(
                    tap,
                    f"{_prefix(side, 'default')}.{DATABASE}.marker",
                    lambda p: (p.get("after") or {}).get("id") == 1,
                ):
                    return False
                for option_set in OPTION_SETS:
                    if not _has(
                        tap,
                        f"{_prefix(side, option_set)}.{DATABASE}.types",
                        lambda p: (p.get("after") or {}).get("c_varchar") == "end",
                    ):
                        return False
            return True

        tap.until(
            ends_seen, timeout_s=90, what="the last change on every connector", healthy=healthy
        )
        tap.settle(2.5)
        tally = cdc.CdcTally(cdc.load_cdc_intended())
        notes: list[str] = []
        for option_set in OPTION_SETS:
            _compare_option_set(tap, tally, option_set, notes)
    finally:
        tap.close()
    elapsed = time.monotonic() - began
    with capsys.disabled():
        print("\n== Debezium 3.5 MariaDbConnector vs kconnect (compat/cdc) ==")
        for line in tally.table():
            print(line)
        for note in notes:
            print(f"  {note}")
        print(f"  scenario and comparison: {elapsed:.0f} s")
    topics = os.environ.get("KC_COMPAT_CDC_TOPICS")
    if topics:
        # Every message read, one JSON line per topic: to study what either side wrote.
        folder = Path(topics)
        folder.mkdir(parents=True, exist_ok=True)
        for topic in tap.messages:
            (folder / f"{topic}.jsonl").write_text(
                "".join(
                    json.dumps({"key": cdc.parse_json(m.key), "value": cdc.parse_json(m.value)})
                    + "\n"
                    for m in tap.of(topic)
                )
            )
    dump = os.environ.get("KC_COMPAT_CDC_DUMP")
    if dump:
        # Every differing leaf of every event and the entries that explain its event.
        Path(dump).write_text(
            "\n".join(
                f"{d.component}\t{d.label}\t{leaf.summary()}\t{','.join(sorted(d.reasons))}"
                for d in tally.differences
                for leaf in d.leaves
            )
        )
    assert not tally.unexplained, tally.report()


def _count(server: Any, table: str) -> int:
    conn = server.connect(autocommit=True, database=DATABASE)
    try:
        with conn.cursor() as cur:
            cur.execute(f"SELECT COUNT(*) FROM {table}")
            row = cur.fetchone()
            return int(row[0])
    finally:
        conn.close()


def _events(tap: cdc.TopicTap, topic: str, prefix: str) -> list[tuple[Any, Any]]:
    return [
        (
            cdc.normalise(cdc.parse_json(m.key), prefix),
            cdc.normalise(cdc.parse_json(m.value), prefix),
        )
        for m in tap.of(topic)
    ]


# The binlog position an incremental snapshot's rows carry is where the connector's own
# window-close row came by in the binlog: each connector writes its own watermark rows, at
# positions that depend on when each read its chunks, so these cannot match.
_WINDOW_POSITION = ("file", "pos", "row", "gtid")


def _untimed(events: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    out = []
    for key, value in events:
        if isinstance(value, dict) and isinstance(value.get("payload"), dict):
            payload = cdc.drop_timing(value["payload"])
            source = payload.get("source")
            if isinstance(source, dict) and source.get("snapshot") == "incremental":
                kept = {k: v for k, v in source.items() if k not in _WINDOW_POSITION}
                payload = {**payload, "source": kept}
            out.append((key, {**value, "payload": payload}))
        else:
            out.append((key, value))
    return out


def _compare_option_set(
    tap: cdc.TopicTap, tally: cdc.CdcTally, option_set: str, notes: list[str]
) -> None:
    jp, kp = _prefix(JAVA, option_set), _prefix(KCONNECT, option_set)

    def suffixes(prefix: str) -> set[str]:
        return {t[len(prefix) :] for t in tap.messages if t == prefix or t.startswith(prefix + ".")}

    for suffix in sorted(suffixes(jp) | suffixes(kp)):
        java = _untimed(_events(tap, jp + suffix, jp))
        kconnect = _untimed(_events(tap, kp + suffix, kp))
        if suffix == "":
            component = f"{option_set}: schema changes"
            java, kconnect = _ours(java), _ours(kconnect)
        elif suffix == ".transaction":
            component = f"{option_set}: transactions"
        else:
            component = f"{option_set}: {suffix[1:]}"
        if suffix.endswith(".debezium_signal"):
            windows = (sum(map(_is_window, java)), sum(map(_is_window, kconnect)))
            notes.append(
                f"{option_set}: signaling table watermark rows (both connectors'): "
                f"java saw {windows[0]}, kconnect {windows[1]}; left out of the comparison"
            )
            java = [e for e in java if not _is_window(e)]
            kconnect = [e for e in kconnect if not _is_window(e)]
        # Schema change events pair up by their statement, change events by key and op.
        signature = _ddl_signature if suffix == "" else None
        compared, differences = cdc.compare_events(component, java, kconnect, signature=signature)
        tally.add(component, compared, differences)
    _compare_heartbeats(tap, tally, option_set, notes)
    _compare_history(tap, tally, option_set)


def _compare_heartbeats(
    tap: cdc.TopicTap, tally: cdc.CdcTally, option_set: str, notes: list[str]
) -> None:
    """Heartbeats come on a timer: their number depends on timing, their shape must not."""
    jp, kp = _prefix(JAVA, option_set), _prefix(KCONNECT, option_set)
    java = _events(tap, HEARTBEAT + jp, jp)
    kconnect = _events(tap, HEARTBEAT + kp, kp)
    if not java and not kconnect:
        return
    component = f"{option_set}: heartbeats"
    notes.append(f"{option_set}: heartbeats java {len(java)}, kconnect {len(kconnect)}")
    if not java or not kconnect:
        leaf = cdc.Leaf("count", "heartbeats", len(java), len(kconnect))
        tally.add(component, 1, [cdc.EventDifference(component, "heartbeat topic", [leaf])])
        return
    shapes = [(k, _shape(v)) for k, v in (java[0], kconnect[0])]
    differences = cdc.compare_events(component, [shapes[0]], [shapes[1]])[1]
    seen_java = {json.dumps(e, sort_keys=True) for e in ((k, _shape(v)) for k, v in java)}
    seen_kconnect = {json.dumps(e, sort_keys=True) for e in ((k, _shape(v)) for k, v in kconnect)}
    if len(seen_java) != 1 or len(seen_kconnect) != 1:
        leaf = cdc.Leaf("shape", "heartbeats", sorted(seen_java), sorted(seen_kconnect))
        differences.append(cdc.EventDifference(component, "heartbeat shapes", [leaf]))
    tally.add(component, 1, differences)


def _shape(value: Any) -> Any:
    """A heartbeat value with its payload's values replaced by their JSON types."""
    if not isinstance(value, dict) or not isinstance(value.get("payload"), dict):
        return value
    return {**value, "payload": {k: type(v).__name__ for k, v in value["payload"].items()}}


def _compare_history(tap: cdc.TopicTap, tally: cdc.CdcTally, option_set: str) -> None:
    """The schema history records: JSON documents written by the connector itself (no
    converter), compared whole but for when they were written."""
    jp, kp = _prefix(JAVA, option_set), _prefix(KCONNECT, option_set)
    sides = []
    for prefix in (jp, kp):
        records = []
        for message in tap.of(HISTORY + prefix):
            record = cdc.normalise(cdc.parse_json(message.value), prefix)
            if isinstance(record, dict):
                record = {k: v for k, v in record.items() if k != "ts_ms"}
                position = record.get("position")
                if isinstance(position, dict):
                    record["position"] = {k: v for k, v in position.items() if k != "ts_sec"}
            records.append((None, record))
        sides.append(records)
    component = f"{option_set}: schema history"
    compared, differences = cdc.compare_events(
        component, _ours(sides[0]), _ours(sides[1]), signature=_ddl_signature
    )
    tally.add(component, compared, differences)


def _ours(events: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The schema changes and history records of the scenario's databases (and the
    server-wide ones, with no database): by default both connectors also record every
    other database on the server, which other tests fill and change."""
    out = []
    for event in events:
        record = event[1]
        if isinstance(record, dict) and isinstance(record.get("payload"), dict):
            record = record["payload"]
        name = record.get("databaseName") if isinstance(record, dict) else None
        if name in ("", None, *DATABASES):
            out.append(event)
    return out


def _ddl_signature(event: tuple[Any, Any]) -> str:
    record = event[1]
    if isinstance(record, dict) and isinstance(record.get("payload"), dict):
        record = record["payload"]
    return cdc.one_line(str(record.get("ddl", ""))) if isinstance(record, dict) else ""
