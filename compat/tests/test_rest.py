"""Apache Kafka Connect's distributed worker against kconnect's, one REST session each.

Both workers run on the session's Apache Kafka with their own group and internal topics;
the script (``kconnect_compat.rest_script``) goes to both in lockstep, and their answers
and the records they wrote to their config, offsets and status topics are compared
(``kconnect_compat.rest_compare``). A difference that ``compat/rest-intended-differences.toml``
does not list fails the test; the per-component table is printed at the end of the session.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from kconnect_compat.rest_compare import (
    RestDifference,
    RestSession,
    Side,
    compare_topic,
    load_rest_intended,
    read_topic,
    topic_metadata,
)
from kconnect_compat.rest_script import SOURCE_LINES, script
from kconnect_runtime.modes import free_port
from kconnect_testkit import JavaConnectWorker
from runtime_harness import distributed_props, end_process, rest_ready, start_kconnect, write_props

pytestmark = pytest.mark.integration

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
SHOWN = 40

_TABLES: list[list[str]] = []


class _TableReport:
    """Prints the REST differential's table in the terminal summary (so CI output shows it)."""

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for lines in _TABLES:
            terminalreporter.section("kconnect vs Apache Kafka Connect (REST, distributed)")
            for line in lines:
                terminalreporter.write_line(line)


def _files(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "src-run.txt").write_text("".join(f"{line}\n" for line in SOURCE_LINES))
    (folder / "odd.txt").write_text("")
    return folder


def _create_topic(bootstrap: str, topic: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)


def test_rest_session_matches_the_java_worker(
    kc_kafka: str,
    kc_java_connect: Callable[..., JavaConnectWorker],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    started = time.monotonic()
    run = uuid.uuid4().hex[:6]
    java_prefix, kconnect_prefix = f"rc{run}j", f"rc{run}k"
    for prefix in (java_prefix, kconnect_prefix):
        _create_topic(kc_kafka, f"{prefix}-lines")

    # kconnect first: its start overlaps the JVM's.
    port = free_port()
    kconnect_group = f"{kconnect_prefix}-w"
    props = distributed_props(
        kc_kafka,
        kconnect_group,
        port,
        **{
            "key.converter": JSON_CONVERTER,
            "value.converter": JSON_CONVERTER,
            "offset.flush.interval.ms": "1000",
        },
    )
    worker_file = write_props(tmp_path / "kconnect.properties", props)
    log = tmp_path / "kconnect.log"
    proc = start_kconnect(["distributed", str(worker_file)], tmp_path, log)
    try:
        java = kc_java_connect(mode="distributed", name=f"{java_prefix}-w")
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while not rest_ready(url + "/connectors"):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"kconnect did not start: {log.read_text()[-2000:]}")
            time.sleep(0.2)
        java_side = Side(
            "java",
            java.url,
            _files(tmp_path / "java"),
            java_prefix,
            f"{java_prefix}-w",
            f"127.0.0.1:{java.port}",
        )
        kconnect_side = Side(
            "kconnect",
            url,
            _files(tmp_path / "kconnect"),
            kconnect_prefix,
            kconnect_group,
            f"127.0.0.1:{port}",
        )
        session = RestSession(java_side, kconnect_side, load_rest_intended())
        steps = script()
        try:
            session.run(steps)
            _compare_internal_topics(kc_kafka, session, java_side, kconnect_side)
        finally:
            java_side.close()
            kconnect_side.close()
    finally:
        end_process(proc, signal.SIGTERM)

    lines = session.table()
    lines.append(f"{len(steps)} requests, {time.monotonic() - started:.0f} s")
    _TABLES.append(lines)
    if not request.config.pluginmanager.has_plugin("kconnect-rest-compat"):
        request.config.pluginmanager.register(_TableReport(), "kconnect-rest-compat")
    print("\n" + "\n".join(lines))
    dump = os.environ.get("KC_COMPAT_REST_DUMP")
    if dump:  # every difference and the request log, for working through them
        with open(dump, "w", encoding="utf-8") as out:
            for d in session.unexplained:
                out.write(f"UNLISTED [{d.component}] {d.summary()}\n")
            for d, why in session.explained:
                out.write(f"{why.status} {why.name} [{d.component}] {d.summary()}\n")
            out.write("\n".join(session.log) + "\n")
    assert not session.unexplained, _report(session.unexplained, session.log)


def _compare_internal_topics(
    bootstrap: str, session: RestSession, java: Side, kconnect: Side
) -> None:
    for store in ("configs", "offsets", "status"):
        component = f"topic: {store}"
        java_topic, kconnect_topic = f"{java.group}-{store}", f"{kconnect.group}-{store}"
        session.record(
            component,
            [
                RestDifference(component, "topic metadata", kind, where, j, k)
                for kind, where, j, k in _metadata_differences(
                    topic_metadata(bootstrap, java_topic), topic_metadata(bootstrap, kconnect_topic)
                )
            ],
        )
        java_records = read_topic(bootstrap, java_topic)
        kconnect_records = read_topic(bootstrap, kconnect_topic)
        dump = os.environ.get("KC_COMPAT_REST_DUMP")
        if dump:  # each side's records in order, to read a key's history side by side
            with open(f"{dump}.{store}", "w", encoding="utf-8") as out:
                for side, records in (("java", java_records), ("kconnect", kconnect_records)):
                    for r in records:
                        out.write(f"{side} p{r.partition} {r.key!r} {r.value!r}\n")
        compare_topic(
            java,
            kconnect,
            java_records,
            kconnect_records,
            component=component,
            record=session.record,
        )


def _metadata_differences(
    java: dict[str, Any], kconnect: dict[str, Any]
) -> Iterable[tuple[str, str, Any, Any]]:
    for key in sorted(java):
        if java[key] != kconnect.get(key):
            yield "value", key, java[key], kconnect.get(key)


def _report(unexplained: list[RestDifference], log: list[str]) -> str:
    lines = [
        f"{len(unexplained)} difference(s) from Apache Kafka Connect not listed in "
        "compat/rest-intended-differences.toml; the first:"
    ]
    lines += [f"[{d.component}] {d.summary()}" for d in unexplained[:SHOWN]]
    lines.append("requests:")
    lines += log
    return "\n".join(lines)
