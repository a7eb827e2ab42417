"""SourceConnectorSuite: the conformance checks every source connector must pass."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_sdk import (
    ConnectError,
    DataError,
    PluginKind,
    SourceBatch,
    SourceRecord,
    SourceTask,
    validate_value,
)

from . import _isolated, _pipeline, _support
from ._connector_suite import _ConnectorSuite, _is_json_plain, _release
from ._doubles import (
    InMemoryOffsetStore,
    ScriptedSourceContext,
)
from ._scenario import Scenario

__all__ = ["SourceConnectorSuite"]


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
        self,
        task: SourceTask,
        expected: int | None,
        *,
        lenient: bool = False,
        poll: Callable[[], list[SourceRecord] | None] | None = None,
    ) -> list[SourceRecord]:
        """Poll until ``expected`` records came (or, if None, two polls in a row return none).

        ``lenient``: return what came once five polls in a row return nothing after some
        records did, instead of failing (the caller compares what came). ``poll``: what to
        call instead of ``task.poll``.
        """
        records: list[SourceRecord] = []
        empty = 0
        deadline = time.monotonic() + self.drain_timeout_s
        while time.monotonic() < deadline:
            batch = _support.call_bounded(poll or task.poll, self.poll_timeout_s, "poll()")
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

    def test_poll_batch_gives_the_records_of_poll(self, scenario: Scenario, tmp_path: Path) -> None:
        props = self.task_props(scenario, tmp_path)
        by_record = self.new_task(props)
        try:
            if type(by_record).poll_batch is SourceTask.poll_batch:
                pytest.skip(
                    f"not applicable: {self.plugin_label()}'s task has no columnar poll_batch()"
                )
            records = self.drain(by_record, scenario.expected_records)
        finally:
            self.stop_task(by_record)
        by_batch = self.new_task(props)

        def poll_batch() -> list[SourceRecord] | None:
            batch = by_batch.poll_batch()
            if batch is None:
                return None
            if not isinstance(batch, SourceBatch):
                _support.fail(f"poll_batch() returned {type(batch).__name__}, not SourceBatch")
            return batch.records()

        try:
            batched = self.drain(
                by_batch,
                len(records) if scenario.deterministic else None,
                lenient=True,
                poll=poll_batch,
            )
        finally:
            self.stop_task(by_batch)
        if not scenario.deterministic:
            if len(batched) < len(records):
                _support.fail(
                    f"poll_batch() gave {len(batched)} records where poll() gave {len(records)}"
                )
            return
        got, expected = [_identity(r) for r in batched], [_identity(r) for r in records]
        if got != expected:
            first = next(
                (i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
                min(len(got), len(expected)),
            )
            _support.fail(
                f"poll_batch() and poll() disagree at record #{first} (poll_batch() gave "
                f"{len(batched)} records, poll() {len(records)}): a batch's records() must be "
                "exactly what poll() returns, since the DataFrame read calls poll_batch() and "
                "the worker poll()"
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
                assert app.herder is not None
                _kind, _polled, acked = app.herder.progress().get(connector["name"], ("", 0, 0))
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
