"""SourceConnectorSuite and SinkConnectorSuite."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_runtime import PluginKind
from kconnect_sdk import (
    Connector,
    DataError,
    RetriableError,
    SinkRecord,
    SinkTask,
    SourceRecord,
    SourceTask,
    TopicPartition,
    validate_value,
)

from . import _support
from ._base import PluginPackageSuite
from ._doubles import (
    InMemoryOffsetStore,
    RecordFactory,
    RecordingErrantReporter,
    RecordingSinkContext,
    ScriptedSourceContext,
)
from ._scenario import Scenario

__all__ = ["SinkConnectorSuite", "SourceConnectorSuite"]

TASK_COUNTS = (1, 2, 8)


class _NoopConnectorContext:
    def __init__(self, reader: InMemoryOffsetStore | None) -> None:
        self._reader = reader

    def request_task_reconfiguration(self) -> None:
        """Nothing to reconfigure in a test."""

    def raise_error(self, error: BaseException) -> None:
        raise error

    @property
    def offset_storage_reader(self) -> InMemoryOffsetStore | None:
        return self._reader


def _is_json_plain(value: Any) -> bool:
    try:
        return bool(json.loads(json.dumps(value, allow_nan=False)) == value)
    except (TypeError, ValueError):
        return False


class _ConnectorSuite(PluginPackageSuite):
    connector_name: ClassVar[str] = "kc-conformance"

    def plugin_validate(self, props: Mapping[str, str]) -> Any:
        return self.new_plugin().validate(props)

    def connector_props(self, scenario: Scenario, tmp_path: Path) -> dict[str, str]:
        props = {"name": self.connector_name, "tasks.max": "1"}
        props.update(self.scenario_config(scenario, tmp_path))
        return props

    def started_connector(self, props: Mapping[str, str]) -> Connector:
        connector: Connector = self.new_plugin()
        connector.initialize(_NoopConnectorContext(InMemoryOffsetStore()))
        connector.start(props)
        return connector

    def task_props(self, scenario: Scenario, tmp_path: Path) -> dict[str, str]:
        props = self.connector_props(scenario, tmp_path)
        connector = self.started_connector(props)
        try:
            configs = connector.task_configs(1)
        finally:
            _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        if len(configs) != 1:
            _support.fail(f"task_configs(1) returned {len(configs)} configs")
        return {**props, **configs[0]}

    @pytest.mark.parametrize("max_tasks", TASK_COUNTS)
    def test_task_configs_within_bounds(
        self, scenario: Scenario, tmp_path: Path, max_tasks: int
    ) -> None:
        connector = self.started_connector(self.connector_props(scenario, tmp_path))
        try:
            configs = connector.task_configs(max_tasks)
        finally:
            _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        if not 1 <= len(configs) <= max_tasks:
            _support.fail(
                f"task_configs({max_tasks}) returned {len(configs)} configs; it must return "
                f"between 1 and {max_tasks}"
            )
        for i, config in enumerate(configs):
            if not isinstance(config, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in config.items()
            ):
                _support.fail(
                    f"task_configs({max_tasks})[{i}] is {config!r:.200}; each task config must "
                    "map str keys to str values (plain data the runtime stores as JSON)"
                )

    def test_connector_start_stop_idempotent(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.connector_props(scenario, tmp_path)
        connector = self.started_connector(props)
        _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        _support.call_bounded(connector.stop, self.stop_timeout_s, "a second connector stop()")
        connector.start(props)
        _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop() after restart")


class SourceConnectorSuite(_ConnectorSuite):
    """Conformance of a source connector and its task.

    Scenario hooks used: ``seed(tmp_path)``, ``stall(tmp_path)``; fields
    ``expected_records`` and ``deterministic``.
    """

    kind = PluginKind.SOURCE
    poll_timeout_s: ClassVar[float] = 10.0
    """How long one ``poll()`` may take before the suite calls the task hung."""
    drain_timeout_s: ClassVar[float] = 20.0
    """How long the suite polls for a scenario's records in all."""

    def new_task(
        self, props: Mapping[str, str], store: InMemoryOffsetStore | None = None
    ) -> SourceTask:
        connector = self.new_plugin()
        task_cls = connector.task_class()
        task: SourceTask = task_cls()
        task.initialize(ScriptedSourceContext(dict(props), store or InMemoryOffsetStore()))
        task.start(props)
        return task

    def drain(
        self, task: SourceTask, expected: int | None, *, lenient: bool = False
    ) -> list[SourceRecord]:
        """Poll until ``expected`` records came (or, if None, two polls in a row return none).

        ``lenient``: return what came once five polls in a row return nothing after some
        records did, instead of failing (the caller compares what came).
        """
        records: list[SourceRecord] = []
        empty = 0
        deadline = time.monotonic() + self.drain_timeout_s
        while time.monotonic() < deadline:
            batch = _support.call_bounded(task.poll, self.poll_timeout_s, "poll()")
            if batch:
                records.extend(batch)
                empty = 0
            else:
                empty += 1
            if expected is not None and len(records) >= expected:
                break
            if expected is None and empty >= 2:
                break
            if lenient and records and empty >= 5:
                return records
        if expected is not None and len(records) < expected and not lenient:
            _support.fail(
                f"poll() returned {len(records)} records within {self.drain_timeout_s:g} s; "
                f"the scenario expects {expected}"
            )
        return records

    def stop_task(self, task: SourceTask) -> None:
        _support.call_bounded(task.stop, self.stop_timeout_s, "task stop()")

    def test_task_start_stop_idempotent(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.task_props(scenario, tmp_path)
        task = self.new_task(props)
        self.stop_task(task)
        _support.call_bounded(task.stop, self.stop_timeout_s, "a second task stop()")

    def test_records_match_declared_schemas(self, scenario: Scenario, tmp_path: Path) -> None:
        task = self.new_task(self.task_props(scenario, tmp_path))
        try:
            records = self.drain(task, scenario.expected_records)
        finally:
            self.stop_task(task)
        if not records:
            _support.fail("the scenario produced no records; seed data or set expected_records")
        for i, record in enumerate(records):
            if not isinstance(record, SourceRecord):
                _support.fail(f"poll() returned {type(record).__name__} at #{i}, not SourceRecord")
            if not record.topic:
                _support.fail(f"record #{i} has no topic")
            for part, schema, value in (
                ("key", record.key_schema, record.key),
                ("value", record.value_schema, record.value),
            ):
                try:
                    validate_value(schema, value)
                except DataError as exc:
                    _support.fail(f"record #{i}: {part} does not match its declared schema: {exc}")

    def test_offsets_are_plain_data(self, scenario: Scenario, tmp_path: Path) -> None:
        task = self.new_task(self.task_props(scenario, tmp_path))
        try:
            records = self.drain(task, scenario.expected_records)
        finally:
            self.stop_task(task)
        for i, record in enumerate(records):
            for what, value in (
                ("source_partition", record.source_partition),
                ("source_offset", record.source_offset),
            ):
                if value is not None and not (
                    isinstance(value, Mapping) and _is_json_plain(dict(value))
                ):
                    _support.fail(
                        f"record #{i}: {what} {value!r:.200} does not survive a JSON round trip; "
                        "use dicts of str, int, float, bool and None only"
                    )

    def test_restart_from_committed_offsets(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.task_props(scenario, tmp_path)
        first = self.new_task(props)
        try:
            everything = self.drain(first, scenario.expected_records)
        finally:
            self.stop_task(first)
        if len(everything) < 2:
            _support.fail("the restart check needs a scenario that yields at least 2 records")
        half = len(everything) // 2
        store = InMemoryOffsetStore()
        store.commit_records(everything[:half])
        second = self.new_task(props, store)
        try:
            rest = self.drain(
                second,
                len(everything) - half if scenario.deterministic else None,
                lenient=True,
            )
        finally:
            self.stop_task(second)
        if not scenario.deterministic:
            if not rest:
                _support.fail("after a restart from committed offsets the task produced nothing")
            return
        ident = [_identity(r) for r in everything]
        got = [_identity(r) for r in rest]
        expected_rest = ident[half:]
        if got[: len(expected_rest)] == expected_rest:
            return
        missing = [
            _value_text(everything[i]) for i in range(half, len(everything)) if ident[i] not in got
        ]
        replayed = [_value_text(r) for r in rest if _identity(r) in ident[:half]]
        problems = []
        if missing:
            problems.append(f"lost {missing[:5]} (a gap)")
        if replayed:
            problems.append(f"re-emitted already committed {replayed[:5]} (duplicates)")
        if not problems:
            problems.append(f"returned {[_value_text(r) for r in rest[:5]]} instead")
        _support.fail(
            f"restarting from the committed offset of record #{half - 1} "
            f"({everything[half - 1].source_offset!r}) "
            + " and ".join(problems)
            + "; offsets must point just past the record they belong to"
        )

    def test_stop_unblocks_poll(self, scenario: Scenario, tmp_path: Path) -> None:
        task = self.new_task(self.task_props(scenario, tmp_path))
        self.drain(task, scenario.expected_records)
        if scenario.stall is not None:
            self.run_hook(scenario.stall, "stall", tmp_path)
        stopped = threading.Event()
        polling = threading.Event()
        errors: list[BaseException] = []

        def poll_loop() -> None:
            try:
                while not stopped.is_set():
                    polling.set()
                    task.poll()
            except BaseException as exc:
                if not stopped.is_set():
                    errors.append(exc)

        worker = threading.Thread(target=poll_loop, name="kc-testkit poll loop", daemon=True)
        worker.start()
        polling.wait(self.stop_timeout_s)
        time.sleep(0.1)  # let poll() settle into waiting for data
        stopped.set()
        started = time.monotonic()
        _support.call_bounded(task.stop, self.stop_timeout_s, "stop() from another thread")
        worker.join(max(0.0, self.stop_timeout_s - (time.monotonic() - started)))
        if worker.is_alive():
            _support.fail(
                f"poll() still blocked {self.stop_timeout_s:g} s after stop() was called from "
                "another thread; stop() must make a blocked poll() return"
            )
        if errors:
            _support.fail(f"poll() raised while running: {errors[0]!r}")


def _identity(record: SourceRecord) -> str:
    # Timestamps are left out: a re-read stamps records with the time of the read.
    return json.dumps(
        [
            record.topic,
            _support.snapshot(record.new_record(timestamp=None)),
        ],
        sort_keys=True,
    )


def _value_text(record: SourceRecord) -> Any:
    value = record.value
    return value[:80] if isinstance(value, str | bytes) else value


class SinkConnectorSuite(_ConnectorSuite):
    """Conformance of a sink connector and its task.

    Scenario hooks used: ``read_output(tmp_path) -> list`` (required), ``records()``,
    ``bad_records()``, ``inject_retriable(tmp_path)``.
    """

    kind = PluginKind.SINK
    topic: ClassVar[str] = "kc-test"

    def connector_props(self, scenario: Scenario, tmp_path: Path) -> dict[str, str]:
        props = super().connector_props(scenario, tmp_path)
        props.setdefault("topics", self.topic)
        return props

    def records(self, scenario: Scenario) -> list[SinkRecord]:
        if scenario.records is not None:
            return list(self.run_hook(scenario.records, "records"))
        return RecordFactory(self.topic).sink_records(10)

    def new_task(
        self, props: Mapping[str, str], reporter: RecordingErrantReporter | None = None
    ) -> SinkTask:
        connector = self.new_plugin()
        task: SinkTask = connector.task_class()()
        tps = {TopicPartition(self.topic, 0)}
        task.initialize(RecordingSinkContext(props, assignment=tps, reporter=reporter))
        task.start(props)
        task.open(sorted(tps))
        return task

    def read_output(self, scenario: Scenario, tmp_path: Path) -> list[Any]:
        if scenario.read_output is None:
            _support.fail(
                "sink scenarios need a read_output hook returning the values the sink made durable"
            )
        return list(self.run_hook(scenario.read_output, "read_output", tmp_path))

    def stop_task(self, task: SinkTask) -> None:
        _support.call_bounded(task.stop, self.stop_timeout_s, "task stop()")

    def test_task_start_stop_idempotent(self, scenario: Scenario, tmp_path: Path) -> None:
        task = self.new_task(self.task_props(scenario, tmp_path))
        self.stop_task(task)
        _support.call_bounded(task.stop, self.stop_timeout_s, "a second task stop()")

    def test_pre_commit_reports_only_durable_offsets(
        self, scenario: Scenario, tmp_path: Path
    ) -> None:
        props = self.task_props(scenario, tmp_path)
        records = self.records(scenario)
        if len(records) < 2:
            _support.fail("the crash check needs a scenario with at least 2 records")
        half = len(records) // 2
        committed_part, pending_part = records[:half], records[half:]
        task = self.new_task(props)
        task.put(committed_part)
        consumed = _next_offsets(committed_part)
        reported = dict(task.pre_commit(consumed))
        task.put(pending_part)
        # The simulated crash: no flush, no stop; whatever reached the external system is there.
        output = self.read_output(scenario, tmp_path)
        try:
            for tp, offset in reported.items():
                if tp not in consumed:
                    _support.fail(f"pre_commit reported {tp} which the task was never given")
                if offset > consumed[tp]:
                    _support.fail(
                        f"pre_commit reported offset {offset} for {tp}, beyond the {consumed[tp]} "
                        "consumed so far; report at most the offsets passed in"
                    )
                durable = [
                    r.value
                    for r in records
                    if r.original_topic_partition == tp and r.kafka_offset < offset
                ]
                missing = list(
                    (Counter(map(repr, durable)) - Counter(map(repr, output))).elements()
                )
                if missing:
                    _support.fail(
                        f"pre_commit reported {tp} durable up to offset {offset}, but after a "
                        f"simulated crash {len(missing)} of those {len(durable)} records are not "
                        f"in the output (e.g. {missing[:3]}); flush before reporting offsets"
                    )
        finally:
            self.stop_task(task)

    def test_redelivery_after_retriable_error(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.task_props(scenario, tmp_path)
        records = self.records(scenario)
        task = self.new_task(props)
        try:
            if scenario.inject_retriable is not None:
                self.run_hook(scenario.inject_retriable, "inject_retriable", tmp_path)
                with pytest.raises(RetriableError):
                    task.put(records)
            else:
                # What the runtime does after a RetriableError: deliver the same batch again.
                task.put(records)
            task.put(records)
            task.pre_commit(_next_offsets(records))
        finally:
            self.stop_task(task)
        output = self.read_output(scenario, tmp_path)
        missing = list(
            (Counter(repr(r.value) for r in records) - Counter(map(repr, output))).elements()
        )
        if missing:
            _support.fail(
                f"after a redelivered batch {len(missing)} records are missing from the output "
                f"(e.g. {missing[:3]})"
            )

    def test_errant_record_reporter(self, scenario: Scenario, tmp_path: Path) -> None:
        if scenario.bad_records is None:
            _support.fail(
                "scenario declares no bad_records hook; give records the sink cannot write, or "
                "waive test_errant_record_reporter with the reason none exist"
            )
        props = self.task_props(scenario, tmp_path)
        good = self.records(scenario)
        bad = list(self.run_hook(scenario.bad_records, "bad_records"))
        reporter = RecordingErrantReporter()
        task = self.new_task(props, reporter)
        try:
            task.put([*good, *bad])
            task.pre_commit(_next_offsets([*good, *bad]))
        except Exception as exc:
            _support.fail(
                f"put() raised {type(exc).__name__}: {exc} for bad records although the context "
                "offered an errant record reporter; report them with "
                "context.errant_record_reporter.report(record, error)"
            )
        finally:
            self.stop_task(task)
        reported = sorted(r.kafka_offset for r, _ in reporter.reported)
        if reported != sorted(r.kafka_offset for r in bad):
            _support.fail(
                f"the errant record reporter got offsets {reported}, expected the bad records' "
                f"{sorted(r.kafka_offset for r in bad)}"
            )
        output = self.read_output(scenario, tmp_path)
        missing = list(
            (Counter(repr(r.value) for r in good) - Counter(map(repr, output))).elements()
        )
        if missing:
            _support.fail(f"good records next to bad ones were not written: {missing[:3]}")

    def test_stop_returns_in_bounded_time(self, scenario: Scenario, tmp_path: Path) -> None:
        task = self.new_task(self.task_props(scenario, tmp_path))
        task.put(self.records(scenario))
        self.stop_task(task)


def _next_offsets(records: list[SinkRecord]) -> dict[TopicPartition, int]:
    offsets: dict[TopicPartition, int] = {}
    for record in records:
        tp = record.original_topic_partition
        offsets[tp] = max(offsets.get(tp, 0), (record.original_kafka_offset or 0) + 1)
    return offsets
