"""Confluent's JdbcSourceTaskUpdateTest, ported: the rows each mode returns as a table changes.

Confluent runs these on an embedded Derby; here each runs on SQLite, PostgreSQL and MariaDB,
in an empty namespace, with the task configured as Confluent's test configures it (the table
named ``test`` in ``tables``, as Confluent's connector writes it). Expected values are those
of Confluent's test.
"""

from __future__ import annotations

import collections
import datetime as dt
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from kconnect_connector_jdbc import JdbcSourceTask
from kconnect_sdk import ConfigError, ConnectError, SourceRecord
from kconnect_testkit import InMemoryOffsetStore, ScriptedSourceContext

TABLE = "test"
JOIN_TABLE = "users"
TOPIC_PREFIX = "test-"
PARTITION_V0 = {"table": TABLE}
PARTITION_V1 = {"protocol": "1", "table": TABLE}
QUERY_PARTITION = {"query": "query"}
EPOCH = dt.datetime(1970, 1, 1)

UPSTREAM = [
    "testBulkPeriodicLoad",
    "testIncrementingInvalidColumn",
    "testTimestampInvalidColumn",
    "testIncrementingNullableColumn",
    "testTimestampNullableColumn",
    "testManualIncrementing",
    "testAutoincrement",
    "testTimestamp",
    "testMultiColumnTimestamp",
    "testTimestampWithDelay",
    "testComputeInitialOffsetWithTime",
    "testComputeInitialOffsetWithNull",
    "testComputeInitialOffsetWithCurrent",
    "testTimestampWithTimestampInitialCurrent",
    "testTimestampWithTimestampInitialDefault",
    "testTimestampWithTimestampInitial",
    "testTimestampAndIncrementing",
    "testTimestampInNonUTCTimezone",
    "testTimestampInInvalidTimezone",
    "testMultiColumnTimestampAndIncrementing",
    "testManualIncrementingRestoreNoVersionOffset",
    "testManualIncrementingRestoreVersionOneOffset",
    "testManualIncrementingRestoreOffsetsWithMultipleProtocol",
    "testAutoincrementRestoreNoVersionOffset",
    "testAutoincrementRestoreVersionOneOffset",
    "testAutoincrementRestoreOffsetsWithMultipleProtocol",
    "testTimestampRestoreNoVersionOffset",
    "testTimestampRestoreVersionOneOffset",
    "testTimestampRestoreOffsetsWithMultipleProtocol",
    "testTimestampAndIncrementingRestoreNoVersionOffset",
    "testTimestampAndIncrementingRestoreVersionOneOffset",
    "testTimestampAndIncrementingRestoreOffsetsWithMultipleProtocol",
    "testCustomQueryBulk",
    "testCustomQueryWithTimestamp",
    "testTaskFailsIfNoQueryOrTablesConfigProvided",
    "testTaskFailsIfBothQueryAndTablesConfigProvided",
    "testTaskCreatedWhileWaitingToFetchTables",
    "testCustomQueryMultipleRecordsWithDBPartition",
]
NOT_APPLICABLE: dict[str, str] = {}


def test_every_upstream_method_is_ported(assert_ported: Any) -> None:
    assert_ported(globals(), UPSTREAM, NOT_APPLICABLE)


def ts(millis: int, zone: dt.tzinfo = dt.UTC) -> str:
    """Confluent's DateTimeUtils.formatTimestamp(new Timestamp(millis), zone)."""
    moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=millis)
    local = moment.astimezone(zone)
    return local.strftime("%Y-%m-%d %H:%M:%S") + f".{local.microsecond // 1000:03d}"


def utc(value: dt.datetime) -> dt.datetime:
    """A Timestamp field's value as naive UTC (the SDK's naive datetimes are UTC)."""
    return value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value


def millis_of(value: dt.datetime) -> int:
    return (utc(value) - EPOCH) // dt.timedelta(milliseconds=1)


def offset_time(record: SourceRecord) -> dt.datetime:
    offset = record.source_offset
    assert offset is not None
    nanos = offset.get("timestamp_nanos")
    seconds = offset["timestamp"] // 1000
    micros = (offset["timestamp"] % 1000) * 1000 if nanos is None else nanos // 1000
    return EPOCH + dt.timedelta(seconds=seconds, microseconds=micros)


class Harness:
    """Confluent's JdbcSourceTaskTestBase: a task started on a namespace, offsets prepared."""

    def __init__(self, ns: Any) -> None:
        self.ns = ns
        self.task = JdbcSourceTask()
        self.store = InMemoryOffsetStore()

    def single_table_config(self) -> dict[str, str]:
        return {
            **self.ns.props,
            "tables": TABLE,
            "tables.fetched": "true",
            "mode": "bulk",
            "topic.prefix": TOPIC_PREFIX,
            "numeric.precision.mapping": "true",
            # Confluent's test drives a MockTime; a short real interval stands in for it.
            "poll.interval.ms": "20",
        }

    def start(self, props: Mapping[str, str]) -> None:
        self.task.initialize(ScriptedSourceContext(dict(props), self.store))
        self.task.start(dict(props))

    def start_task(
        self,
        timestamp_column: str | None,
        incrementing_column: str | None,
        query: str | None,
        *,
        delay: int = 0,
        zone: str | None = "UTC",
        initial: int | None = None,
        batch: int | None = None,
    ) -> None:
        if timestamp_column is not None and incrementing_column is not None:
            mode = "timestamp+incrementing"
        elif timestamp_column is not None:
            mode = "timestamp"
        elif incrementing_column is not None:
            mode = "incrementing"
        else:
            mode = "bulk"
        props = self.single_table_config()
        props["mode"] = mode
        if query is not None:
            props.update({"query": query, "tables": "", "tables.fetched": "true"})
        if timestamp_column is not None:
            props["timestamp.column.name"] = timestamp_column
        if incrementing_column is not None:
            props["incrementing.column.name"] = incrementing_column
        props["timestamp.delay.interval.ms"] = str(delay)
        if initial is not None:
            props["timestamp.initial"] = str(initial)
        if zone is not None:
            props["db.timezone"] = zone
        if batch is not None:
            props["batch.max.rows"] = str(batch)
        self.start(props)

    def poll(self, timeout: float = 5.0) -> list[SourceRecord]:
        """The next non-empty batch (Confluent's verifyPoll retries a null poll too)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            records = self.task.poll()
            if records:
                return records
        raise AssertionError(f"no records within {timeout} s")


@pytest.fixture
def h(ns: Any) -> Iterator[Harness]:
    harness = Harness(ns)
    yield harness
    harness.task.stop()


def count(records: list[SourceRecord], field: str) -> dict[Any, int]:
    return dict(collections.Counter(r.value.get(field) for r in records))


def count_timestamps(records: list[SourceRecord], field: str) -> dict[int, int]:
    return dict(collections.Counter(millis_of(r.value.get(field)) for r in records))


def assert_topic(records: list[SourceRecord], topic: str) -> None:
    assert {r.topic for r in records} == {topic}


def assert_incrementing_offsets(records: list[SourceRecord]) -> None:
    for r in records:
        assert r.source_offset is not None
        assert r.source_offset["incrementing"] == r.value.get("id")


def assert_timestamp_offsets(records: list[SourceRecord]) -> None:
    # A record's offset may lag its own timestamp (equal timestamps), never lead it.
    for r in records:
        assert utc(r.value.get("modified")) >= offset_time(r)


def assert_multi_timestamp_offsets(records: list[SourceRecord]) -> None:
    for r in records:
        value = r.value.get("modified") or r.value.get("created")
        assert utc(value) == offset_time(r)


def verify_poll(
    h: Harness,
    n: int,
    field: str,
    values: list[Any],
    *,
    timestamp_offsets: bool = False,
    incrementing_offsets: bool = False,
    multi_timestamp_offsets: bool = False,
    topic: str = TOPIC_PREFIX + TABLE,
) -> list[SourceRecord]:
    records = h.poll()
    assert len(records) == n, [r.value for r in records]
    assert count(records, field) == dict.fromkeys(values, 1)
    if timestamp_offsets:
        assert_timestamp_offsets(records)
    if incrementing_offsets:
        assert_incrementing_offsets(records)
    if multi_timestamp_offsets:
        assert_multi_timestamp_offsets(records)
    assert_topic(records, topic)
    return records


def verify_incrementing_first_poll(h: Harness, topic: str = TOPIC_PREFIX + TABLE) -> None:
    records = h.poll()
    assert count(records, "id") == {1: 1}
    assert collections.Counter(r.source_offset["incrementing"] for r in records) == {1: 1}  # type: ignore[index]
    assert_incrementing_offsets(records)
    assert_topic(records, topic)


def verify_timestamp_first_poll(
    h: Harness, topic: str = TOPIC_PREFIX + TABLE, column: str = "modified"
) -> list[SourceRecord]:
    records = h.poll()
    assert len(records) == 1
    assert count(records, "id") == {1: 1}
    assert count_timestamps(records, column) == {10: 1}
    if column == "modified":
        assert_timestamp_offsets(records)
    else:
        assert_multi_timestamp_offsets(records)
    assert_topic(records, topic)
    return records


# -- bulk ------------------------------------------------------------------------------------


def test_bulk_periodic_load(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT NOT NULL)")
    ns.insert(TABLE, id=1)
    h.start(h.single_table_config())
    records = h.poll()
    assert count(records, "id").get(1, 0) >= 1
    assert_topic(records, TOPIC_PREFIX + TABLE)
    records = h.poll()
    assert count(records, "id").get(1, 0) >= 1
    ns.insert(TABLE, id=2)
    deadline = time.monotonic() + 5
    while 2 not in count(records, "id"):
        assert time.monotonic() < deadline
        records = h.poll()
    assert count(records, "id")[1] >= 1 and count(records, "id")[2] >= 1
    ns.execute(f"DELETE FROM {TABLE} WHERE id = 1")
    while 1 in count(records, "id"):
        assert time.monotonic() < deadline + 5
        records = h.poll()
    assert count(records, "id")[2] >= 1
    assert_topic(records, TOPIC_PREFIX + TABLE)


# -- invalid and nullable columns ------------------------------------------------------------


def test_incrementing_invalid_column(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT NOT NULL, name VARCHAR(64))")
    with pytest.raises(ConfigError) as e:
        h.start_task(None, "INCORRECT INPUT", None)
    assert str(e.value) == "Incrementing column: INCORRECT INPUT does not exist in table 'test'"


def test_timestamp_invalid_column(h: Harness, ns: Any) -> None:
    ns.execute(
        f"CREATE TABLE {TABLE} (id INT NOT NULL, name VARCHAR(64), "
        f"modified {ns.ts} NOT NULL, created {ns.ts} NOT NULL)"
    )
    with pytest.raises(ConfigError) as e:
        h.start_task("MODIFIED, incorrect, WRONG", "id", None)
    assert str(e.value) == "Timestamp columns: incorrect, WRONG do not exist in table 'test'"


def test_incrementing_nullable_column(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT)")
    with pytest.raises(ConnectError) as e:
        h.start_task(None, "id", None)
    # Confluent's message, then what to do about it.
    assert str(e.value).startswith(
        "Cannot make incremental queries using incrementing column id on test because this "
        "column is nullable"
    )


def test_timestamp_nullable_column(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts}, created {ns.ts}, updated {ns.ts})")
    with pytest.raises(ConnectError) as e:
        h.start_task("modified, created, updated", None, None)
    assert str(e.value).startswith(
        "Cannot make incremental queries using timestamp columns modified,created,updated on "
        "test because all of these columns are nullable"
    )


# -- incrementing ----------------------------------------------------------------------------


def test_manual_incrementing(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id INT NOT NULL)")
    ns.insert(TABLE, id=1)
    h.start_task(None, "id", None)
    verify_incrementing_first_poll(h)
    ns.insert(TABLE, id=2)
    ns.insert(TABLE, id=3)
    verify_poll(h, 2, "id", [2, 3], incrementing_offsets=True)


def test_autoincrement(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (id {ns.identity}, col FLOAT)")
    ns.insert(TABLE, col=32.4)
    h.start_task(None, "", None)
    verify_incrementing_first_poll(h)
    ns.insert(TABLE, col=33.4)
    ns.insert(TABLE, col=35.4)
    verify_poll(h, 2, "id", [2, 3], incrementing_offsets=True)


# -- timestamp -------------------------------------------------------------------------------


def test_timestamp(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    ns.insert(TABLE, modified=ts(10), id=1)
    h.start_task("modified", None, None)
    verify_timestamp_first_poll(h)
    ns.insert(TABLE, modified=ts(10), id=2)
    ns.insert(TABLE, modified=ts(11), id=3)
    ns.insert(TABLE, modified=ts(12), id=4)
    verify_poll(h, 2, "id", [3, 4], timestamp_offsets=True)
    # Nothing more: the rows at 10 ms (whose text ends in 0) are not sent again.
    time.sleep(0.1)
    assert not h.task.poll() and not h.task.poll()


def test_multi_column_timestamp(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts}, created {ns.ts} NOT NULL, id INT)")
    ns.insert(TABLE, created=ts(10), id=1)
    h.start_task("modified, created", None, None)
    verify_timestamp_first_poll(h, column="created")
    ns.execute(
        ns.insert_sql(TABLE, modified=ts(13), created=ts(10), id=2),
        ns.insert_sql(TABLE, created=ts(11), id=3),
        ns.insert_sql(TABLE, created=ts(12), id=4),
    )
    verify_poll(h, 3, "id", [2, 3, 4], multi_timestamp_offsets=True)


def test_timestamp_with_delay(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    ns.insert(TABLE, modified=ts(10), id=1)
    h.start_task("modified", None, None, delay=4, zone="UTC", batch=2)
    verify_timestamp_first_poll(h)
    now = int(time.time() * 1000)
    ns.insert(TABLE, modified=ts(now), id=2)
    ns.insert(TABLE, modified=ts(now + 1), id=3)
    ns.insert(TABLE, modified=ts(now + 500), id=4)
    ns.insert(TABLE, modified=ts(now + 501), id=5)
    # Confluent sleeps 500 ms here; 250 ms keeps rows 4 and 5 clearly in the future whatever
    # the inserts cost.
    time.sleep(max(0.0, (now + 250) / 1000 - time.time()))
    verify_poll(h, 2, "id", [2, 3], timestamp_offsets=True)
    time.sleep(max(0.0, (now + 520) / 1000 - time.time()))
    verify_poll(h, 2, "id", [4, 5], timestamp_offsets=True)


def test_compute_initial_offset_with_time(h: Harness, ns: Any) -> None:
    # Confluent asserts computeInitialOffset gives {"timestamp": 100}; seen from outside, the
    # task starts after 100 ms: a row at 100 ms is not read, one at 101 ms is.
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    ns.insert(TABLE, modified=ts(100), id=1)
    ns.insert(TABLE, modified=ts(101), id=2)
    h.start_task("modified", None, None, delay=4, initial=100)
    records = verify_poll(h, 1, "id", [2], timestamp_offsets=True)
    assert records[0].source_offset == {"timestamp": 101, "timestamp_nanos": 101_000_000}


def test_compute_initial_offset_with_null(h: Harness, ns: Any) -> None:
    # No timestamp.initial: no initial offset, so the task starts at the epoch.
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    ns.insert(TABLE, modified=ts(10), id=1)
    h.start_task("modified", None, None, delay=4)
    verify_timestamp_first_poll(h)


def test_compute_initial_offset_with_current(h: Harness, ns: Any) -> None:
    # -1: the database's current time, within a second of now. A row 1.5 s old is before it;
    # a row written 100 ms after the start is after it.
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    now = int(time.time() * 1000)
    ns.insert(TABLE, modified=ts(now - 1500), id=1)
    h.start_task("modified", None, None, delay=4, initial=-1)
    ns.insert(TABLE, modified=ts(now + 1100), id=2)
    time.sleep(max(0.0, (now + 1110) / 1000 - time.time()))
    verify_poll(h, 1, "id", [2], timestamp_offsets=True)


def test_timestamp_with_timestamp_initial_current(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    now = int(time.time() * 1000)
    ns.insert(TABLE, modified=ts(10), id=1)
    ns.insert(TABLE, modified=ts(now + 1000), id=2)
    ns.insert(TABLE, modified=ts(now + 1001), id=3)
    h.start_task("modified", None, None, delay=4, initial=-1)
    time.sleep(max(0.0, (now + 1010) / 1000 - time.time()))
    verify_poll(h, 2, "id", [2, 3], timestamp_offsets=True)


def test_timestamp_with_timestamp_initial_default(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    ns.insert(TABLE, modified=ts(10), id=1)
    h.start_task("modified", None, None, delay=4, initial=0)
    verify_timestamp_first_poll(h)
    ns.execute(
        ns.insert_sql(TABLE, modified=ts(11), id=2), ns.insert_sql(TABLE, modified=ts(12), id=3)
    )
    verify_poll(h, 2, "id", [2, 3], timestamp_offsets=True)


def test_timestamp_with_timestamp_initial(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    ns.insert(TABLE, modified=ts(10), id=1)
    ns.insert(TABLE, modified=ts(100), id=2)
    ns.insert(TABLE, modified=ts(110), id=3)
    h.start_task("modified", None, None, delay=4, initial=100)
    verify_poll(h, 1, "id", [3], timestamp_offsets=True)
    ns.insert(TABLE, modified=ts(120), id=4)
    verify_poll(h, 1, "id", [4], timestamp_offsets=True)


# -- timestamp+incrementing ------------------------------------------------------------------


def test_timestamp_and_incrementing(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT NOT NULL)")
    ns.insert(TABLE, modified=ts(10), id=1)
    h.start_task("modified", "id", None)
    records = verify_timestamp_first_poll(h)
    assert_incrementing_offsets(records)
    ns.insert(TABLE, modified=ts(10), id=3)
    ns.insert(TABLE, modified=ts(11), id=1)
    verify_poll(h, 2, "id", [3, 1], timestamp_offsets=True, incrementing_offsets=True)


def test_timestamp_in_non_utc_timezone(h: Harness, ns: Any) -> None:
    zone = "America/Los_Angeles"
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT NOT NULL)")
    import zoneinfo

    ns.insert(TABLE, modified=ts(10, zoneinfo.ZoneInfo(zone)), id=1)
    h.start_task("modified", "id", None, zone=zone)
    records = verify_timestamp_first_poll(h)
    assert_incrementing_offsets(records)


def test_timestamp_in_invalid_timezone(h: Harness, ns: Any) -> None:
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT NOT NULL)")
    with pytest.raises(ConfigError) as e:
        h.start_task("modified", "id", None, zone="Europe/Invalid")
    assert "Invalid value Europe/Invalid for configuration db.timezone" in str(e.value)


def test_multi_column_timestamp_and_incrementing(h: Harness, ns: Any) -> None:
    ns.execute(
        f"CREATE TABLE {TABLE} (modified {ns.ts}, created {ns.ts} NOT NULL, id INT NOT NULL)"
    )
    ns.insert(TABLE, created=ts(10), id=1)
    h.start_task("modified, created", "id", None)
    records = verify_timestamp_first_poll(h, column="created")
    assert_incrementing_offsets(records)
    ns.insert(TABLE, created=ts(10), id=3)
    ns.insert(TABLE, modified=ts(11), created=ts(10), id=1)
    verify_poll(h, 2, "id", [3, 1], incrementing_offsets=True, multi_timestamp_offsets=True)


# -- restoring offsets (protocol 0, protocol 1, both) ----------------------------------------


def _offsets(h: Harness, offsets: dict[str, dict[str, Any]]) -> None:
    for version, offset in offsets.items():
        h.store.commit(PARTITION_V1 if version == "v1" else PARTITION_V0, offset)


def _manual_incrementing_restore(h: Harness, ns: Any, offsets: Any) -> None:
    _offsets(h, offsets)
    ns.execute(f"CREATE TABLE {TABLE} (id INT NOT NULL)")
    for i in (1, 2, 3):
        ns.insert(TABLE, id=i)
    h.start_task(None, "id", None)
    verify_poll(h, 2, "id", [2, 3], incrementing_offsets=True)


def test_manual_incrementing_restore_no_version_offset(h: Harness, ns: Any) -> None:
    _manual_incrementing_restore(h, ns, {"v0": {"incrementing": 1}})


def test_manual_incrementing_restore_version_one_offset(h: Harness, ns: Any) -> None:
    _manual_incrementing_restore(h, ns, {"v1": {"incrementing": 1}})


def test_manual_incrementing_restore_offsets_with_multiple_protocol(h: Harness, ns: Any) -> None:
    # The newest protocol's offset wins.
    _manual_incrementing_restore(h, ns, {"v1": {"incrementing": 1}, "v0": {"incrementing": 0}})


def _autoincrement_restore(h: Harness, ns: Any, offsets: Any) -> None:
    _offsets(h, offsets)
    ns.execute(f"CREATE TABLE {TABLE} (id {ns.big_identity}, col FLOAT)")
    for v in (32.4, 33.4, 35.4):
        ns.insert(TABLE, col=v)
    h.start_task(None, "", None)
    verify_poll(h, 2, "id", [2, 3], incrementing_offsets=True)


def test_autoincrement_restore_no_version_offset(h: Harness, ns: Any) -> None:
    _autoincrement_restore(h, ns, {"v0": {"incrementing": 1}})


def test_autoincrement_restore_version_one_offset(h: Harness, ns: Any) -> None:
    _autoincrement_restore(h, ns, {"v1": {"incrementing": 1}})


def test_autoincrement_restore_offsets_with_multiple_protocol(h: Harness, ns: Any) -> None:
    _autoincrement_restore(h, ns, {"v1": {"incrementing": 1}, "v0": {"incrementing": 0}})


def _timestamp_restore(h: Harness, ns: Any, offsets: Any) -> None:
    _offsets(h, offsets)
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT)")
    # id=2 has the offset's own timestamp: already sent.
    ns.insert(TABLE, modified=ts(10), id=2)
    ns.insert(TABLE, modified=ts(11), id=3)
    ns.insert(TABLE, modified=ts(12), id=4)
    h.start_task("modified", None, None)
    verify_poll(h, 2, "id", [3, 4], timestamp_offsets=True)


def test_timestamp_restore_no_version_offset(h: Harness, ns: Any) -> None:
    _timestamp_restore(h, ns, {"v0": {"timestamp": 10, "timestamp_nanos": 10_000_000}})


def test_timestamp_restore_version_one_offset(h: Harness, ns: Any) -> None:
    _timestamp_restore(h, ns, {"v1": {"timestamp": 10, "timestamp_nanos": 10_000_000}})


def test_timestamp_restore_offsets_with_multiple_protocol(h: Harness, ns: Any) -> None:
    _timestamp_restore(
        h,
        ns,
        {
            "v1": {"timestamp": 10, "timestamp_nanos": 10_000_000},
            "v0": {"timestamp": 8, "timestamp_nanos": 8_000_000},
        },
    )


def _timestamp_and_incrementing_restore(h: Harness, ns: Any, offsets: Any) -> None:
    _offsets(h, offsets)
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT NOT NULL)")
    # id=3 is the offset itself; id=1 is an old id with a newer timestamp, so it comes.
    ns.insert(TABLE, modified=ts(9), id=2)
    ns.insert(TABLE, modified=ts(10), id=3)
    ns.insert(TABLE, modified=ts(11), id=4)
    ns.insert(TABLE, modified=ts(12), id=5)
    ns.insert(TABLE, modified=ts(13), id=1)
    h.start_task("modified", "id", None)
    verify_poll(h, 3, "id", [4, 5, 1], timestamp_offsets=True, incrementing_offsets=True)


def _ts_inc(millis: int, inc: int) -> dict[str, int]:
    return {"timestamp": millis, "timestamp_nanos": millis * 1_000_000, "incrementing": inc}


def test_timestamp_and_incrementing_restore_no_version_offset(h: Harness, ns: Any) -> None:
    _timestamp_and_incrementing_restore(h, ns, {"v0": _ts_inc(10, 3)})


def test_timestamp_and_incrementing_restore_version_one_offset(h: Harness, ns: Any) -> None:
    _timestamp_and_incrementing_restore(h, ns, {"v1": _ts_inc(10, 3)})


def test_timestamp_and_incrementing_restore_offsets_with_multiple_protocol(
    h: Harness, ns: Any
) -> None:
    _timestamp_and_incrementing_restore(h, ns, {"v1": _ts_inc(10, 3), "v0": _ts_inc(10, 2)})


# -- custom queries --------------------------------------------------------------------------


def _users(ns: Any) -> None:
    ns.execute(f"CREATE TABLE {JOIN_TABLE} (user_id INT, name VARCHAR(64))")
    ns.insert(JOIN_TABLE, user_id=1, name="Alice")
    ns.insert(JOIN_TABLE, user_id=2, name="Bob")


def _join(ns: Any, *columns: str) -> str:
    q = "`" if ns.kind == "mariadb" else '"'
    cols = ", ".join(f"{q}test{q}.{q}{c}{q}" for c in columns)
    return (
        f"SELECT {cols}, {q}users{q}.{q}name{q} FROM {q}test{q} JOIN {q}users{q} "
        f"ON ({q}test{q}.{q}user_id{q} = {q}users{q}.{q}user_id{q})"
    )


def test_custom_query_bulk(h: Harness, ns: Any) -> None:
    _users(ns)
    ns.execute(f"CREATE TABLE {TABLE} (id INT, user_id INT)")
    ns.insert(TABLE, id=1, user_id=1)
    h.start_task(None, None, _join(ns, "id", "user_id"))
    records = h.poll()
    assert count(records, "id").get(1, 0) >= 1
    assert_topic(records, TOPIC_PREFIX)
    assert all(r.source_partition == QUERY_PARTITION for r in records)
    ns.insert(TABLE, id=2, user_id=1)
    ns.insert(TABLE, id=3, user_id=2)
    ns.insert(TABLE, id=4, user_id=2)
    deadline = time.monotonic() + 5
    while 2 not in count(records, "user_id"):
        assert time.monotonic() < deadline
        records = h.poll()
    assert count(records, "user_id")[1] >= 1 and count(records, "user_id")[2] >= 1
    assert_topic(records, TOPIC_PREFIX)
    assert all(r.source_partition == QUERY_PARTITION for r in records)


def test_custom_query_with_timestamp(h: Harness, ns: Any) -> None:
    _users(ns)
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT, user_id INT)")
    ns.insert(TABLE, modified=ts(10), id=1, user_id=1)
    h.start_task("modified", None, _join(ns, "modified", "id", "user_id"))
    verify_timestamp_first_poll(h, TOPIC_PREFIX)
    ns.insert(TABLE, modified=ts(10), id=2, user_id=1)
    ns.insert(TABLE, modified=ts(11), id=3, user_id=2)
    ns.insert(TABLE, modified=ts(12), id=4, user_id=2)
    records = verify_poll(h, 2, "id", [3, 4], timestamp_offsets=True, topic=TOPIC_PREFIX)
    assert all(r.source_partition == QUERY_PARTITION for r in records)


def test_task_fails_if_no_query_or_tables_config_provided(h: Harness) -> None:
    with pytest.raises(ConfigError):
        h.start({"tables": "", "tables.fetched": "true", "query": ""})


def test_task_fails_if_both_query_and_tables_config_provided(h: Harness) -> None:
    with pytest.raises(ConfigError):
        h.start(
            {"tables": "[dbo.table]", "tables.fetched": "true", "query": "Select * from some table"}
        )


def test_task_created_while_waiting_to_fetch_tables(h: Harness) -> None:
    # No connection.url, mode or topic yet: the task waits rather than reading its config.
    h.start({"tables": "", "tables.fetched": "false"})
    assert h.task.poll() is None


def test_custom_query_multiple_records_with_db_partition(h: Harness, ns: Any) -> None:
    _users(ns)
    ns.execute(f"CREATE TABLE {TABLE} (modified {ns.ts} NOT NULL, id INT, user_id INT)")
    ns.insert(TABLE, modified=ts(10), id=1, user_id=1)
    h.start_task("modified", None, _join(ns, "modified", "id", "user_id"), batch=3)
    verify_timestamp_first_poll(h, TOPIC_PREFIX)
    ns.execute(
        ns.insert_sql(TABLE, modified=ts(11), id=2, user_id=1),
        ns.insert_sql(TABLE, modified=ts(11), id=3, user_id=2),
        ns.insert_sql(TABLE, modified=ts(12), id=4, user_id=2),
        ns.insert_sql(TABLE, modified=ts(12), id=5, user_id=2),
        ns.insert_sql(TABLE, modified=ts(13), id=6, user_id=2),
    )
    # A full batch is batch.max.rows rows. Rows 4 and 5 share a timestamp, so which of them
    # ends the first batch is the database's choice (Confluent's Derby returned 5 first).
    first = h.poll()
    assert len(first) == 3
    ids = set(count(first, "id"))
    assert ids - {4, 5} == {2, 3} and len(ids & {4, 5}) == 1
    assert_timestamp_offsets(first)
    # The offset stays at 11 ms until both rows at 12 ms have been sent.
    assert millis_of(offset_time(first[-1])) == 11
    rest = verify_poll(
        h, 2, "id", [({4, 5} - ids).pop(), 6], timestamp_offsets=True, topic=TOPIC_PREFIX
    )
    assert millis_of(offset_time(rest[-1])) == 13
