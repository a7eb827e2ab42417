"""SinkConnectorSuite: the conformance checks every sink connector must pass."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_sdk import (
    PluginKind,
    RetriableError,
    SinkBatch,
    SinkConnector,
    SinkRecord,
    SinkTask,
    TopicPartition,
)

from . import _pipeline, _support
from ._connector_suite import (
    _check_reported,
    _ConnectorSuite,
    _missing,
    _next_offsets,
    _release,
    _spread,
)
from ._doubles import (
    RecordFactory,
    RecordingErrantReporter,
    RecordingSinkContext,
)
from ._scenario import Scenario

__all__ = ["SinkConnectorSuite"]


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

    def test_put_batch_writes_what_put_writes(self, scenario: Scenario, tmp_path: Path) -> None:
        records = self.records(scenario)
        try:
            batch = SinkBatch.of(records)
        except ValueError as exc:
            pytest.skip(f"not applicable: the scenario's records are not as consumed ({exc})")
        outputs = []
        for how in ("put", "put_batch"):
            where = tmp_path / how
            where.mkdir()
            task = self.new_task(self.task_props(scenario, where))
            if how == "put_batch" and type(task).put_batch is SinkTask.put_batch:
                self.stop_task(task)
                pytest.skip(f"not applicable: {self.plugin_label()}'s task has no put_batch()")
            try:
                if how == "put":
                    task.put(records)
                else:
                    task.put_batch(batch)
                task.pre_commit(_next_offsets(records))
            finally:
                self.stop_task(task)
            outputs.append(self.read_output(scenario, where))
        by_records, by_columns = outputs
        if by_columns != by_records:
            first = next(
                (i for i, (a, b) in enumerate(zip(by_columns, by_records, strict=False)) if a != b),
                min(len(by_columns), len(by_records)),
            )
            _support.fail(
                f"put_batch() and put() of the same {len(records)} records wrote different "
                f"output ({len(by_columns)} and {len(by_records)} items; first difference at "
                f"item #{first}: {by_columns[first : first + 1]!r} against "
                f"{by_records[first : first + 1]!r}): put_batch(batch) must write what "
                "put(batch.records()) writes, since the worker calls put_batch() for a "
                "connector without transforms and put() otherwise"
            )

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
