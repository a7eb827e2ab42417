"""SourceConnectorSuite: the conformance checks every source connector must pass."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
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
    """Conformance of a source connector and its tasks.

    Scenario hooks used: ``seed(tmp_path)``, ``stall(tmp_path)``; fields
    ``expected_records`` and ``deterministic``. Every check runs the connector's tasks as
    the worker would for the scenario's ``tasks.max`` (``task_configs(tasks.max)``, one
    offset store shared by the tasks), and ``expected_records`` counts the records of all
    of them together.
    """

    kind = PluginKind.SOURCE
    poll_timeout_s: ClassVar[float] = 10.0
    """How long one ``poll()`` may take before the suite calls the task hung."""
    drain_timeout_s: ClassVar[float] = 20.0
    """How long the suite polls for a scenario's records in all."""
    drain_idle_s: ClassVar[float] = 5.0
    """How long the suite keeps polling tasks that have stopped giving records (each poll
    returning none) before it concludes no more will come."""
    progress_interval_s: ClassVar[float] = 5.0
    """How often a check that waits for records says how far it got."""

    def new_task(
        self, props: Mapping[str, str], store: InMemoryOffsetStore | None = None
    ) -> SourceTask:
        task = self.task_instance()
        assert isinstance(task, SourceTask)
        task.initialize(ScriptedSourceContext(dict(props), store or InMemoryOffsetStore()))
        try:
            task.start(props)
        except Exception as exc:
            _release(task)
            _support.plugin_raised("task start()", exc)
        return task

    @contextlib.contextmanager
    def running_tasks(
        self, configs: Sequence[Mapping[str, str]], store: InMemoryOffsetStore | None = None
    ) -> Iterator[list[SourceTask]]:
        """Started tasks, one per config, sharing one offset store (as a connector's tasks
        share its offsets); stopped on exit.

        When the check fails, a task whose ``stop()`` then fails too does not hide why the
        check failed: the check's own failure is reported, with the stop's as a note.
        """
        store = store or InMemoryOffsetStore()
        tasks: list[SourceTask] = []
        try:
            for props in configs:
                tasks.append(self.new_task(props, store))
            yield tasks
        except BaseException as exc:
            also = self._stop_all(tasks)
            if also:
                note = f"(stopping the tasks afterwards failed too: {also})"
                if isinstance(exc, pytest.fail.Exception):
                    _support.fail(f"{exc.msg}\n{note}")
                exc.add_note(note)
            raise
        also = self._stop_all(tasks)
        if also:
            _support.fail(also)

    def _stop_all(self, tasks: Sequence[SourceTask]) -> str:
        """Stop every task; the first stop failure's message, or ''."""
        first = ""
        for task in tasks:
            try:
                self.stop_task(task)
            except BaseException as exc:
                if not isinstance(exc, Exception | pytest.fail.Exception):
                    raise
                message = str(exc.msg if isinstance(exc, pytest.fail.Exception) else repr(exc))
                first = first or message
        return first

    def drain(
        self,
        task: SourceTask,
        expected: int | None,
        *,
        lenient: bool = False,
        poll: Callable[[], list[SourceRecord] | None] | None = None,
    ) -> list[SourceRecord]:
        """Poll one task until ``expected`` records came (or, if None, two polls in a row
        return none); see :meth:`drain_tasks`."""
        polls = None if poll is None else [poll]
        return self.drain_tasks([task], expected, lenient=lenient, polls=polls)[0]

    def drain_tasks(
        self,
        tasks: Sequence[SourceTask],
        expected: int | None,
        *,
        lenient: bool = False,
        polls: Sequence[Callable[[], list[SourceRecord] | None]] | None = None,
    ) -> list[list[SourceRecord]]:
        """Poll the tasks in turn until ``expected`` records came from all of them together
        (or, if None, until every task returned none twice in a row); each task's records,
        in the order it gave them.

        Gives up early once the tasks have stopped giving records: after ``drain_idle_s``
        of polls that all return nothing, since the last record. ``lenient``: return what
        came by then (the caller compares it) instead of failing; five rounds of nothing
        after some records end it too. ``polls``: what to call instead of each ``task.poll``.
        """
        calls = list(polls) if polls is not None else [t.poll for t in tasks]
        got: list[list[SourceRecord]] = [[] for _ in tasks]
        total = empty_rounds = 0
        started = last_record = time.monotonic()
        next_report = started + self.progress_interval_s
        idle = False
        while True:
            now = time.monotonic()
            if now >= started + self.drain_timeout_s:
                break
            came = 0
            for i, call in enumerate(calls):
                try:
                    batch = _support.call_bounded(call, self.poll_timeout_s, "poll()")
                except Exception as exc:
                    _support.plugin_raised("poll()", exc)
                if batch:
                    got[i].extend(batch)
                    came += len(batch)
            total += came
            now = time.monotonic()
            if came:
                empty_rounds, last_record = 0, now
            else:
                empty_rounds += 1
            if expected is not None and total >= expected:
                break
            if expected is None and empty_rounds >= 2:
                break
            if lenient and total and empty_rounds >= 5:
                break
            if total and not came and now - last_record >= self.drain_idle_s:
                idle = True
                break
            if now >= next_report:
                next_report = now + self.progress_interval_s
                target = "" if expected is None else f" of {expected}"
                _support.progress(
                    f"{total}{target} records after {now - started:.0f} s"
                    f"{self._per_task(got)} (polling for up to {self.drain_timeout_s:g} s, "
                    f"or {self.drain_idle_s:g} s without a new record)"
                )
        if expected is not None and total < expected and not lenient:
            if idle:
                how = (
                    f"then nothing for {self.drain_idle_s:g} s (every poll returned no "
                    "records), so polling stopped early"
                )
            else:
                how = f"within {self.drain_timeout_s:g} s"
            whose = (
                f"the connector's {len(tasks)} tasks' poll() returned {total} records "
                f"({self._per_task(got).strip(' ()')})"
                if len(tasks) > 1
                else f"poll() returned {total} records"
            )
            _support.fail(
                f"{whose} {how}; the scenario expects {expected} (expected_records counts the "
                f"records of the whole connector: every task of tasks.max={len(tasks)} "
                "together)"
                if len(tasks) > 1
                else f"{whose} {how}; the scenario expects {expected}"
            )
        return got

    @staticmethod
    def _per_task(got: Sequence[Sequence[SourceRecord]]) -> str:
        if len(got) < 2:
            return ""
        return " (" + ", ".join(f"task {i}: {len(r)}" for i, r in enumerate(got)) + ")"

    def read_scenario(
        self, scenario: Scenario, tmp_path: Path, props: Mapping[str, str] | None = None
    ) -> tuple[list[dict[str, str]], list[list[SourceRecord]]]:
        """Run the scenario's tasks until they gave its ``expected_records``: the task
        configs and each task's records."""
        configs = self.all_task_props(scenario, tmp_path, props)
        with self.running_tasks(configs) as tasks:
            return configs, self.drain_tasks(tasks, scenario.expected_records)

    def stop_task(self, task: SourceTask) -> None:
        try:
            _support.call_bounded(task.stop, self.stop_timeout_s, "task stop()")
        except Exception as exc:
            _support.plugin_raised("task stop()", exc)
        finally:
            _release(task)

    def test_task_start_stop_idempotent(self, scenario: Scenario, tmp_path: Path) -> None:
        for props in self.all_task_props(scenario, tmp_path):
            task = self.new_task(props)
            self.stop_task(task)
            try:
                _support.call_bounded(task.stop, self.stop_timeout_s, "a second task stop()")
            except Exception as exc:
                _support.plugin_raised("a second task stop()", exc)

    def test_records_match_declared_schemas(self, scenario: Scenario, tmp_path: Path) -> None:
        _configs, per_task = self.read_scenario(scenario, tmp_path)
        records = [r for task_records in per_task for r in task_records]
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
        _configs, per_task = self.read_scenario(scenario, tmp_path)
        for i, record in enumerate(r for task_records in per_task for r in task_records):
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
        configs, first_run = self.read_scenario(scenario, tmp_path)
        total = sum(map(len, first_run))
        if total < 2:
            _support.fail("the restart check needs a scenario that yields at least 2 records")
        # Each task commits the first half of what it gave, as if the worker stopped there;
        # the tasks share the connector's offsets, as they do in a worker.
        store = InMemoryOffsetStore()
        committed = [records[: len(records) // 2] for records in first_run]
        for records in committed:
            store.commit_records(records)
        left = total - sum(map(len, committed))
        with self.running_tasks(configs, store) as tasks:
            second_run = self.drain_tasks(
                tasks, left if scenario.deterministic else None, lenient=True
            )
        rest = [r for records in second_run for r in records]
        if not scenario.deterministic:
            if not rest:
                _support.fail("after a restart from committed offsets the task produced nothing")
            return
        # Offsets belong to source partitions: each partition must resume just after its
        # last committed record, whichever task reads it and however partitions interleave.
        before: dict[str, list[SourceRecord]] = {}
        done: Counter[str] = Counter()
        for records, upto in zip(first_run, committed, strict=True):
            for i, record in enumerate(records):
                key = _partition_key(record)
                before.setdefault(key, []).append(record)
                done[key] += i < len(upto)
        after: dict[str, list[SourceRecord]] = {}
        for record in rest:
            after.setdefault(_partition_key(record), []).append(record)
        for key, records in before.items():
            ident = [_identity(r) for r in records]
            got = [_identity(r) for r in after.get(key, [])]
            expected_rest = ident[done[key] :]
            if got[: len(expected_rest)] == expected_rest:
                continue
            missing = [
                _value_text(records[i])
                for i in range(done[key], len(records))
                if ident[i] not in got
            ]
            replayed = [
                _value_text(r) for r in after.get(key, []) if _identity(r) in ident[: done[key]]
            ]
            problems = []
            if missing:
                problems.append(f"lost {missing[:5]} (a gap)")
            if replayed:
                problems.append(f"re-emitted already committed {replayed[:5]} (duplicates)")
            if not problems:
                problems.append(
                    f"returned {[_value_text(r) for r in after.get(key, [])[:5]]} instead"
                )
            where = (
                f" of source partition {records[0].source_partition!r}" if len(before) > 1 else ""
            )
            if done[key]:
                last = records[done[key] - 1]
                start = (
                    f"restarting from the committed offset of record #{done[key] - 1}"
                    f" ({last.source_offset!r}){where}"
                )
            else:
                start = f"restarting with nothing committed{where}"
            _support.fail(
                f"{start} "
                + " and ".join(problems)
                + "; offsets must point just past the record they belong to"
            )

    def test_poll_batch_gives_the_records_of_poll(self, scenario: Scenario, tmp_path: Path) -> None:
        configs = self.all_task_props(scenario, tmp_path)
        with self.running_tasks(configs) as by_record:
            if type(by_record[0]).poll_batch is SourceTask.poll_batch:
                pytest.skip(
                    f"not applicable: {self.plugin_label()}'s task has no columnar poll_batch()"
                )
            per_task = self.drain_tasks(by_record, scenario.expected_records)
        count = sum(map(len, per_task))

        def batches_of(task: SourceTask) -> Callable[[], list[SourceRecord] | None]:
            def poll_batch() -> list[SourceRecord] | None:
                batch = task.poll_batch()
                if batch is None:
                    return None
                if not isinstance(batch, SourceBatch):
                    _support.fail(f"poll_batch() returned {type(batch).__name__}, not SourceBatch")
                return batch.records()

            return poll_batch

        with self.running_tasks(configs) as by_batch:
            batched_per_task = self.drain_tasks(
                by_batch,
                count if scenario.deterministic else None,
                lenient=True,
                polls=[batches_of(t) for t in by_batch],
            )
        if not scenario.deterministic:
            batched = sum(map(len, batched_per_task))
            if batched < count:
                _support.fail(f"poll_batch() gave {batched} records where poll() gave {count}")
            return
        for n, (records, batched_records) in enumerate(
            zip(per_task, batched_per_task, strict=True)
        ):
            got, expected = [_identity(r) for r in batched_records], [_identity(r) for r in records]
            if got == expected:
                continue
            first = next(
                (i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b),
                min(len(got), len(expected)),
            )
            whose = f"task {n}'s " if len(configs) > 1 else ""
            _support.fail(
                f"{whose}poll_batch() and poll() disagree at record #{first} (poll_batch() gave "
                f"{len(batched_records)} records, poll() {len(records)}): a batch's records() must "
                "be exactly what poll() returns, since the worker and the DataFrame read call "
                "poll_batch() for a connector without transforms and poll() otherwise"
            )

    def test_stop_unblocks_poll(self, scenario: Scenario, tmp_path: Path) -> None:
        configs = self.all_task_props(scenario, tmp_path)
        tasks: list[SourceTask] = []
        try:
            for props in configs:
                tasks.append(self.new_task(props))
            self.drain_tasks(tasks, scenario.expected_records)
            if scenario.stall is not None:
                self.run_hook(scenario.stall, "stall", tmp_path)
            for task in tasks:
                self._check_stop_unblocks_poll(task)
        finally:
            for task in tasks:
                _release(task)

    def _check_stop_unblocks_poll(self, task: SourceTask) -> None:
        stopped = threading.Event()
        polling = threading.Event()
        errors: list[Exception] = []

        def poll_loop() -> None:
            try:
                while not stopped.is_set():
                    polling.set()
                    task.poll()
            except Exception as exc:
                if not stopped.is_set():
                    errors.append(exc)

        worker = threading.Thread(target=poll_loop, name="kc-testkit poll loop", daemon=True)
        worker.start()
        polling.wait(self.stop_timeout_s)
        time.sleep(0.1)  # let poll() settle into waiting for data
        stopped.set()
        started = time.monotonic()
        try:
            _support.call_bounded(task.stop, self.stop_timeout_s, "stop() from another thread")
        except Exception as exc:
            _support.plugin_raised("stop() from another thread", exc)
        worker.join(max(0.0, self.stop_timeout_s - (time.monotonic() - started)))
        if worker.is_alive():
            _support.fail(
                f"poll() still blocked {self.stop_timeout_s:g} s after stop() was called from "
                "another thread; stop() must make a blocked poll() return"
            )
        if errors:
            _support.plugin_raised("poll() (while running)", errors[0])

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
        """The connector config and the last offset of each source partition its tasks produced."""
        props = self.connector_props(scenario, tmp_path)
        _configs, per_task = self.read_scenario(scenario, tmp_path, props)
        latest: dict[str, tuple[Mapping[str, Any], Mapping[str, Any]]] = {}
        for record in (r for records in per_task for r in records):
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
        if scenario.expected_records is None:
            _support.fail("the pipeline check needs the scenario's expected_records")
        connector_props = self.connector_props(scenario, tmp_path)
        # What the scenario's data yields, read here first by the same tasks the worker will
        # run (the scenario's tasks.max): the topics and the values. A source that cannot
        # give them fails here, before a broker is started for nothing.
        _configs, per_task = self.read_scenario(scenario, tmp_path, connector_props)
        reference = [r for records in per_task for r in records]
        kafka = str(request.getfixturevalue("kc_kafka"))
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
            started = time.monotonic()
            next_report = started + self.progress_interval_s
            while time.monotonic() < started + self.pipeline_timeout_s:
                assert app.herder is not None
                _kind, _polled, acked = app.herder.progress().get(connector["name"], ("", 0, 0))
                if acked >= len(reference) or _pipeline.task_failures(app, connector["name"]):
                    break
                if time.monotonic() >= next_report:
                    next_report += self.progress_interval_s
                    _support.progress(
                        f"on the {engine} engine, Kafka acknowledged {acked} of "
                        f"{len(reference)} records after {time.monotonic() - started:.0f} s "
                        f"(waiting up to {self.pipeline_timeout_s:g} s)"
                    )
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


def _partition_key(record: SourceRecord) -> str:
    partition = record.source_partition
    return json.dumps(None if partition is None else dict(partition), sort_keys=True, default=repr)


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
