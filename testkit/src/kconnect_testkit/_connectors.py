"""SourceConnectorSuite and SinkConnectorSuite."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_runtime import PluginKind
from kconnect_sdk import (
    ConnectError,
    Connector,
    DataError,
    RetriableError,
    SinkConnector,
    SinkRecord,
    SinkTask,
    SourceRecord,
    SourceTask,
    Task,
    TopicPartition,
    validate_value,
)

from . import _isolated, _pipeline, _support
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


def _missing(records: Sequence[SinkRecord], output: Sequence[Any]) -> list[str]:
    """Values of ``records`` (by repr, counting duplicates) the sink's output lacks."""
    return list((Counter(repr(r.value) for r in records) - Counter(map(repr, output))).elements())


def _is_json_plain(value: Any) -> bool:
    try:
        return bool(json.loads(json.dumps(value, allow_nan=False)) == value)
    except (TypeError, ValueError):
        return False


class _ConnectorSuite(PluginPackageSuite):
    connector_name: ClassVar[str] = "kc-conformance"
    engines: ClassVar[Sequence[str]] = ("local",)
    """Engines ``test_pipeline_delivers_every_record`` runs on (``--kc-engine`` overrides)."""
    pipeline_timeout_s: ClassVar[float] = 60.0
    """How long the pipeline check waits for every record to arrive."""
    isolated_call_timeout_s: ClassVar[float] = 30.0
    """Isolated mode: how long one call into the plugin host may take."""

    def task_instance(self) -> Task:
        """A new task of the connector: in isolated mode, the runtime's proxy task, whose
        plugin task runs in a plugin host process of the location."""
        isolated = self.isolated_plugin()
        if isolated is None:
            task: Task = self.new_plugin().task_class()()
            return task
        from kconnect_runtime import IsolatedSinkTask, IsolatedSourceTask

        proxy = IsolatedSinkTask if self.kind is PluginKind.SINK else IsolatedSourceTask
        self.plugin_class()  # fails with the registry's reason when it cannot load
        return proxy(
            str(isolated.location),
            isolated.desc.target,
            timeout_s=self.isolated_call_timeout_s,
            label=f"{self.connector_name} ({isolated.desc.name})",
        )

    def pipeline_connector(self, props: Mapping[str, str]) -> dict[str, str]:
        """The connector config the pipeline check gives the worker."""
        isolated = self.isolated_plugin()
        plugin = self.plugin
        if isolated is not None:
            name = isolated.desc.name
        elif isinstance(plugin, str):
            name = plugin
        else:
            desc = _support.find_desc(plugin, self.kind)
            name = desc.name if desc is not None else f"{plugin.__module__}:{plugin.__qualname__}"
        return {
            **props,
            # Unique per check: the broker, and so the sink's consumer group, is shared.
            "name": f"{self.connector_name}-{uuid.uuid4().hex[:8]}",
            "connector.class": name,
        }

    def pipeline_worker(self, tmp_path: Path, kafka: str, engine: str) -> dict[str, str]:
        isolated = self.isolated_plugin()
        return _pipeline.worker_props(
            tmp_path, kafka, engine, None if isolated is None else str(isolated.location)
        )

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

    def task_props(
        self, scenario: Scenario, tmp_path: Path, props: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """The first task's config (from ``props``, else the scenario's connector config)."""
        props = dict(props) if props is not None else self.connector_props(scenario, tmp_path)
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
        task = self.task_instance()
        assert isinstance(task, SourceTask)
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
        try:
            _support.call_bounded(task.stop, self.stop_timeout_s, "task stop()")
        finally:
            _release(task)

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
        try:
            self._check_stop_unblocks_poll(task, scenario, tmp_path)
        finally:
            _release(task)

    def _check_stop_unblocks_poll(
        self, task: SourceTask, scenario: Scenario, tmp_path: Path
    ) -> None:
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

    def alter_offsets(
        self,
        props: Mapping[str, str],
        offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]],
    ) -> tuple[str, Any]:
        """Call the connector's ``alter_offsets`` (in isolated mode, in its location).

        Returns ``("returned", result)`` or ``("raised", (type name, message, is it a
        ConnectError))``.
        """
        isolated = self.isolated_plugin()
        if isolated is None:
            try:
                return "returned", self.new_plugin().alter_offsets(props, offsets)
            except Exception as exc:
                return "raised", (type(exc).__name__, str(exc), isinstance(exc, ConnectError))
        try:
            out = _isolated.run_in_location(
                isolated.location,
                _isolated.ALTER_OFFSETS_PROBE,
                isolated.desc.target,
                json.dumps(dict(props)),
                json.dumps([[dict(p), None if o is None else dict(o)] for p, o in offsets]),
            )
        except _isolated.IsolationError as exc:
            _support.fail(str(exc))
        if "raised" in out:
            return "raised", (out["raised"], out["message"], out["connect_error"])
        return "returned", out["returned"]

    def own_offsets(
        self, scenario: Scenario, tmp_path: Path
    ) -> tuple[dict[str, str], list[tuple[Mapping[str, Any], Mapping[str, Any]]]]:
        """The connector config and the last offset of each source partition its task produced."""
        props = self.task_props(scenario, tmp_path)
        task = self.new_task(props)
        try:
            records = self.drain(task, scenario.expected_records)
        finally:
            self.stop_task(task)
        latest: dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}
        for record in records:
            if record.source_partition is not None and record.source_offset is not None:
                key = json.dumps(dict(record.source_partition), sort_keys=True, default=repr)
                latest[key] = (record.source_partition, record.source_offset)
        if not latest:
            pytest.skip(
                "the scenario's records carry no source partition and offset, so there are no "
                "offsets to alter"
            )
        return props, list(latest.values())

    def test_alter_offsets_accepts_own_offsets(self, scenario: Scenario, tmp_path: Path) -> None:
        props, own = self.own_offsets(scenario, tmp_path)
        resets: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]] = [
            (p, None) for p, _ in own
        ]
        for what, offsets in (
            ("offsets its own task produced", list(own)),
            ("a reset (null offsets) of its own partitions", resets),
        ):
            how, result = self.alter_offsets(props, offsets)
            if how == "raised":
                name, message, _ = result
                _support.fail(
                    f"alter_offsets refused {what} ({offsets[0][0]!r}: {offsets[0][1]!r}) with "
                    f"{name}: {message}; it must accept offsets its task writes, and null to reset"
                )
            if not isinstance(result, bool):
                _support.fail(f"alter_offsets returned {result!r} for {what}; return True or False")

    def test_alter_offsets_rejects_malformed(self, scenario: Scenario, tmp_path: Path) -> None:
        props, own = self.own_offsets(scenario, tmp_path)
        _how, accepted_own = self.alter_offsets(props, own)
        partition, offset = own[0]
        garbage: list[tuple[Mapping[str, Any], Mapping[str, Any] | None]] = [
            (partition, {"kc.testkit.garbage": "not an offset of this connector"}),
            (partition, {k: _wrong_type(v) for k, v in offset.items()}),
        ]
        outcomes = [(g, *self.alter_offsets(props, [g])) for g in garbage]
        if accepted_own is False and all(h == "returned" and r is False for _, h, r in outcomes):
            pytest.skip(
                f"{self.plugin_label()} does not check offsets: alter_offsets returns False (no "
                "opinion) for its own offsets and malformed ones alike, so the REST offsets API "
                "stores whatever it is given; override alter_offsets to check them"
            )
        for (bad_partition, bad_offset), how, result in outcomes:
            shown = f"{dict(bad_partition)!r}: {bad_offset!r}"
            if how == "returned":
                _support.fail(
                    f"alter_offsets returned {result!r} for the malformed offset {shown}; it must "
                    "raise ConnectError saying what is wrong (True accepts it, False lets the "
                    "runtime store it unchecked)"
                )
            name, message, is_connect_error = result
            if not is_connect_error:
                _support.fail(
                    f"alter_offsets raised {name}: {message} for the malformed offset {shown}; "
                    "raise kconnect_sdk.ConnectError with a message naming the bad key, so the "
                    "REST API answers 400 with it"
                )
            if not message.strip():
                _support.fail(
                    f"alter_offsets refused the malformed offset {shown} with an empty message; "
                    "say which key is wrong and what it should be"
                )

    def test_pipeline_delivers_every_record(
        self, scenario: Scenario, tmp_path: Path, engine: str, request: pytest.FixtureRequest
    ) -> None:
        kafka = str(request.getfixturevalue("kc_kafka"))
        if scenario.expected_records is None:
            _support.fail("the pipeline check needs the scenario's expected_records")
        connector_props = self.connector_props(scenario, tmp_path)
        # What the scenario's data yields, read here first: the topics and the values.
        task = self.new_task(self.task_props(scenario, tmp_path, connector_props))
        try:
            reference = self.drain(task, scenario.expected_records)
        finally:
            self.stop_task(task)
        values = _pipeline.converter()
        expected = Counter(
            values.from_connect_data(r.topic, r.value_schema, r.value) for r in reference
        )
        routed, suffix = _pipeline.route_to_unique_topics(connector_props)
        topics = sorted({r.topic + suffix for r in reference})
        connector = self.pipeline_connector(routed)
        with _pipeline.running_worker(
            self.pipeline_worker(tmp_path, kafka, engine), connector
        ) as app:
            deadline = time.monotonic() + self.pipeline_timeout_s
            while time.monotonic() < deadline:
                assert app.worker is not None
                _kind, _polled, acked = app.worker.progress().get(connector["name"], ("", 0, 0))
                if acked >= len(reference) or _pipeline.task_failures(app, connector["name"]):
                    break
                time.sleep(0.2)
            failures = _pipeline.task_failures(app, connector["name"])
        if failures:
            _support.fail(
                f"on the {engine} engine the source connector failed: {failures[0][-1500:]}"
            )
        got = _pipeline.read_topics(kafka, topics, len(reference), timeout_s=10)
        missing = list((expected - Counter(got)).elements())
        if missing:
            _support.fail(
                f"on the {engine} engine, {len(missing)} of the {len(reference)} records the "
                f"scenario yields did not arrive in {topics} within {self.pipeline_timeout_s:g} s "
                f"(e.g. {[m[:80] if m else m for m in missing[:3]]})"
            )
        if scenario.deterministic and len(got) > len(reference):
            extra = list((Counter(got) - expected).elements())
            _support.fail(
                f"on the {engine} engine, {topics} received {len(got)} records for the "
                f"{len(reference)} the scenario yields (duplicates: {extra[:3]})"
            )


def _wrong_type(value: Any) -> Any:
    """A value of another JSON type than ``value``, that no offset field should accept."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return {"kc.testkit.garbage": [value]}
    return "not-a-number"


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
        self,
        props: Mapping[str, str],
        reporter: RecordingErrantReporter | None = None,
        *,
        context: RecordingSinkContext | None = None,
    ) -> SinkTask:
        """A started task with the partitions of ``context`` (default: partition 0) opened."""
        task = self.task_instance()
        assert isinstance(task, SinkTask)
        if context is None:
            context = RecordingSinkContext(
                props, assignment={TopicPartition(self.topic, 0)}, reporter=reporter
            )
        task.initialize(context)
        task.start(props)
        task.open(sorted(context.assignment()))
        return task

    def crash(self, task: SinkTask) -> str:
        """Crash the task without flush or stop; returns how, for messages.

        In isolated mode the plugin host process is killed (SIGKILL): whatever the plugin
        had not written out is gone. In-process, the task is simply abandoned.
        """
        process = getattr(task, "process", None)
        if process is None:
            return "a simulated crash"
        process.kill()
        return f"the plugin's host process (pid {process.pid}) was killed"

    def read_output(self, scenario: Scenario, tmp_path: Path) -> list[Any]:
        if scenario.read_output is None:
            _support.fail(
                "sink scenarios need a read_output hook returning the values the sink made durable"
            )
        return list(self.run_hook(scenario.read_output, "read_output", tmp_path))

    def stop_task(self, task: SinkTask) -> None:
        try:
            _support.call_bounded(task.stop, self.stop_timeout_s, "task stop()")
        finally:
            _release(task)

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
        try:
            task.put(committed_part)
            consumed = _next_offsets(committed_part)
            reported = dict(task.pre_commit(consumed))
            task.put(pending_part)
            # The crash: no flush, no stop; whatever reached the external system is there.
            how = self.crash(task)
            output = self.read_output(scenario, tmp_path)
            _check_reported(reported, consumed, records, output, f"after {how}")
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
        missing = _missing(records, output)
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
        missing = _missing(good, output)
        if missing:
            _support.fail(f"good records next to bad ones were not written: {missing[:3]}")

    def test_stop_returns_in_bounded_time(self, scenario: Scenario, tmp_path: Path) -> None:
        task = self.new_task(self.task_props(scenario, tmp_path))
        try:
            task.put(self.records(scenario))
        finally:
            self.stop_task(task)

    def test_rebalance_closes_partitions(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.task_props(scenario, tmp_path)
        records = self.records(scenario)
        if len(records) < 6:
            _support.fail("the rebalance check needs a scenario with at least 6 records")
        first_tps = [TopicPartition(self.topic, p) for p in (0, 1, 2)]
        revoked, added = first_tps[1], TopicPartition(self.topic, 3)
        second_tps = [first_tps[0], first_tps[2], added]
        next_offsets: dict[TopicPartition, int] = {}
        half = len(records) // 2
        first = _spread(records[:half], first_tps, next_offsets)
        second = _spread(records[half:], second_tps, next_offsets)
        context = RecordingSinkContext(props, assignment=first_tps)
        task = self.new_task(props, context=context)
        try:
            task.put(first)
            consumed = _next_offsets(first)
            reported = dict(task.pre_commit(consumed))
            _check_reported(reported, consumed, first, self.read_output(scenario, tmp_path), "")
            # The rebalance: partition 1 goes to another task, partition 3 comes to this one.
            task.close([revoked])
            context.revoke([revoked])
            context.assign([added])
            task.open([added])
            task.put(second)
            consumed = {
                tp: o for tp, o in _next_offsets([*first, *second]).items() if tp != revoked
            }
            reported = dict(task.pre_commit(consumed))
        finally:
            self.stop_task(task)
        if revoked in reported:
            _support.fail(
                f"pre_commit reported offset {reported[revoked]} for {revoked} after close() "
                f"took it away (the task now has {sorted(map(str, second_tps))}); a closed "
                "partition belongs to another task: drop its state in close() and report only "
                "the partitions pre_commit is given"
            )
        _check_reported(
            reported,
            consumed,
            [*first, *second],
            self.read_output(scenario, tmp_path),
            "after the rebalance",
        )

    def test_topics_regex_config(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.connector_props(scenario, tmp_path)
        props.pop(SinkConnector.TOPICS_CONFIG, None)
        props[SinkConnector.TOPICS_REGEX_CONFIG] = re.escape(self.topic) + "(-.+)?"
        complaints = [
            f"{v.name}: {'; '.join(v.error_messages)}"
            for v in self.new_plugin().validate(props)
            if v.name in (SinkConnector.TOPICS_CONFIG, SinkConnector.TOPICS_REGEX_CONFIG)
            and v.error_messages
        ]
        if complaints:
            _support.fail(
                f"validate() refused a config with topics.regex instead of topics: {complaints}; "
                "a sink connector must accept either"
            )
        connector = self.started_connector(props)
        try:
            configs = connector.task_configs(1)
        finally:
            _support.call_bounded(connector.stop, self.stop_timeout_s, "connector stop()")
        if len(configs) != 1:
            _support.fail(
                f"task_configs(1) returned {len(configs)} configs for a topics.regex config"
            )
        task_props = {**props, **configs[0]}
        tps = [TopicPartition(self.topic, 0), TopicPartition(f"{self.topic}-regex", 0)]
        records = _spread(self.records(scenario), tps, {})
        task = self.new_task(task_props, context=RecordingSinkContext(task_props, assignment=tps))
        try:
            task.put(records)
            task.pre_commit(_next_offsets(records))
        finally:
            self.stop_task(task)
        output = self.read_output(scenario, tmp_path)
        missing = _missing(records, output)
        if missing:
            _support.fail(
                f"with topics.regex={props[SinkConnector.TOPICS_REGEX_CONFIG]!r}, records of the "
                f"matching topics {sorted({tp.topic for tp in tps})} are missing from the output "
                f"(e.g. {missing[:3]})"
            )

    def test_pipeline_delivers_every_record(
        self, scenario: Scenario, tmp_path: Path, engine: str, request: pytest.FixtureRequest
    ) -> None:
        kafka = str(request.getfixturevalue("kc_kafka"))
        records = self.records(scenario)
        topic = _pipeline.unique_topic("sink")
        keys, values = _pipeline.converter(is_key=True), _pipeline.converter()
        _pipeline.produce(
            kafka,
            topic,
            [
                (
                    keys.from_connect_data(topic, r.key_schema, r.key),
                    values.from_connect_data(topic, r.value_schema, r.value),
                )
                for r in records
            ],
        )
        props = self.connector_props(scenario, tmp_path)
        props.pop(SinkConnector.TOPICS_REGEX_CONFIG, None)
        props[SinkConnector.TOPICS_CONFIG] = topic
        connector = self.pipeline_connector(props)
        wanted = Counter(repr(r.value) for r in records)
        missing: list[str] = list(wanted.elements())
        with _pipeline.running_worker(
            self.pipeline_worker(tmp_path, kafka, engine), connector
        ) as app:
            deadline = time.monotonic() + self.pipeline_timeout_s
            while time.monotonic() < deadline:
                output = self.read_output(scenario, tmp_path)
                missing = list((wanted - Counter(map(repr, output))).elements())
                if not missing or _pipeline.task_failures(app, connector["name"]):
                    break
                time.sleep(0.2)
            failures = _pipeline.task_failures(app, connector["name"])
        if failures:
            _support.fail(
                f"on the {engine} engine the sink connector failed: {failures[0][-1500:]}"
            )
        if missing:
            _support.fail(
                f"on the {engine} engine, {len(missing)} of the {len(records)} records written to "
                f"{topic} did not reach the sink's output within {self.pipeline_timeout_s:g} s "
                f"(e.g. {missing[:3]})"
            )


def _release(task: Task) -> None:
    """Isolated mode: make sure the task's plugin host is gone and its pipes are closed.

    The runtime's proxy leaves the pipe to a host that died open (it is only closed when
    the host is asked to exit), which would surface as an unclosed-file warning.
    """
    process = getattr(task, "process", None)
    if process is not None:
        process.kill()


def _check_reported(
    reported: Mapping[TopicPartition, int],
    consumed: Mapping[TopicPartition, int],
    records: Sequence[SinkRecord],
    output: Sequence[Any],
    when: str,
) -> None:
    """Fail unless every reported offset was passed in and its records are in ``output``."""
    for tp, offset in reported.items():
        if tp not in consumed:
            _support.fail(f"pre_commit reported {tp} which the task was not given in that call")
        if offset > consumed[tp]:
            _support.fail(
                f"pre_commit reported offset {offset} for {tp}, beyond the {consumed[tp]} "
                "consumed so far; report at most the offsets passed in"
            )
        durable = [
            r.value
            for r in records
            if r.original_topic_partition == tp and r.original_kafka_offset < offset
        ]
        missing = list((Counter(map(repr, durable)) - Counter(map(repr, output))).elements())
        if missing:
            _support.fail(
                f"pre_commit reported {tp} durable up to offset {offset}, but {when} "
                f"{len(missing)} of those {len(durable)} records are not in the output "
                f"(e.g. {missing[:3]}); flush before reporting offsets"
            )


def _spread(
    records: Sequence[SinkRecord],
    partitions: Sequence[TopicPartition],
    next_offsets: dict[TopicPartition, int],
) -> list[SinkRecord]:
    """``records`` dealt round-robin onto ``partitions``, numbered on from ``next_offsets``."""
    out = []
    for i, record in enumerate(records):
        tp = partitions[i % len(partitions)]
        offset = next_offsets.get(tp, 0)
        next_offsets[tp] = offset + 1
        out.append(
            record.new_record(
                topic=tp.topic,
                kafka_partition=tp.partition,
                kafka_offset=offset,
                original_topic=tp.topic,
                original_kafka_partition=tp.partition,
                original_kafka_offset=offset,
            )
        )
    return out


def _next_offsets(records: list[SinkRecord]) -> dict[TopicPartition, int]:
    offsets: dict[TopicPartition, int] = {}
    for record in records:
        tp = record.original_topic_partition
        offsets[tp] = max(offsets.get(tp, 0), (record.original_kafka_offset or 0) + 1)
    return offsets
