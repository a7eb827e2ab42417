"""Helpers for end-to-end tests: run workers in-process or as `kconnect` processes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from kconnect_runtime import Standalone
from kconnect_testkit import KafkaCluster

SESSION_TIMEOUT = "6000"

TANSU = pytest.param("tansu", marks=pytest.mark.tansu, id="tansu")
"""With ``@pytest.mark.parametrize("kafka", ["kafka", TANSU], indirect=True)`` a test runs on
Apache Kafka and again on the embedded development broker (``-m tansu``)."""


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def host_pids(location: Path) -> list[int]:
    """Plugin host processes this test process started for ``location``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        # Hosts run in the worker's directory (issue 24): told apart by their interpreter.
        interpreter = f"{location.absolute()}/bin/python".encode()
        if ppid == os.getpid() and b"_plugin_host.py" in cmdline and interpreter in cmdline:
            pids.append(int(entry.name))
    return pids


def line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def commit_group_offsets(
    bootstrap: str, group: str, offsets: list[Any], timeout_s: float = 60.0
) -> None:
    """Commit ``offsets`` (confluent-kafka TopicPartitions) for ``group``, as an application
    that consumed up to them would.

    On a cluster that just started, the group coordinator answers NOT_COORDINATOR or
    COORDINATOR_LOAD_IN_PROGRESS until ``__consumer_offsets`` is created and loaded: the
    commit is sent again until it is taken.
    """
    from confluent_kafka import Consumer, KafkaError, KafkaException

    loading = (
        KafkaError.NOT_COORDINATOR,
        KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
        KafkaError.COORDINATOR_NOT_AVAILABLE,
    )
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False}
    )
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                consumer.commit(offsets=offsets, asynchronous=False)
                return
            except KafkaException as exc:
                if exc.args[0].code() not in loading or time.monotonic() > deadline:
                    raise
            time.sleep(0.5)
    finally:
        consumer.close()


def worker_props(tmp: Path, kafka: str, **extra: str) -> dict[str, str]:
    props = {
        "bootstrap.servers": kafka,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "header.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp / "offsets.json"),
        "offset.flush.interval.ms": "500",
        "consumer.session.timeout.ms": SESSION_TIMEOUT,
        "listeners": "",
    }
    props.update(extra)
    return props


def file_source(name: str, path: Path, topic: str, **extra: str) -> dict[str, str]:
    # One partition keeps the file's order end to end (Tansu auto-creates four).
    return {
        "name": name,
        "connector.class": "FileStreamSource",
        "file": str(path),
        "topic": topic,
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        **extra,
    }


def file_sink(name: str, path: Path, topic: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "FileStreamSink",
        "file": str(path),
        "topics": topic,
        **extra,
    }


@contextlib.contextmanager
def standalone(worker: Mapping[str, str], *connectors: Mapping[str, str]) -> Iterator[Standalone]:
    app = Standalone(worker, connectors)
    app.start()
    try:
        yield app
    finally:
        app.stop()


_SECURITY_DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"


def doc_block(after: str) -> str:
    """The first fenced block of docs/security.md after the line holding ``after``."""
    lines = _SECURITY_DOC.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    opening = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("```"))
    closing = next(i for i in range(opening + 1, len(lines)) if lines[i].startswith("```"))
    return "\n".join(lines[opening + 1 : closing]) + "\n"


def write_props(path: Path, props: Mapping[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()), encoding="utf-8")
    return path


def kconnect(*args: str, cwd: Path) -> subprocess.Popen[bytes]:
    """Start `kconnect ARGS` as a real process of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.cli", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, timeout: float = 30) -> str:
    if proc.poll() is None:
        proc.send_signal(sig)
    out, _ = proc.communicate(timeout=timeout)
    return out.decode(errors="replace")


# -- an in-test connector (importable as runtime_harness:RecordingSourceConnector) --------
from typing import ClassVar  # noqa: E402

from kconnect_sdk import (  # noqa: E402
    ConfigDef,
    ConfigType,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Task,
)


class RecordingSourceTask(SourceTask):
    """Produces nothing; remembers the config it was started with."""

    started: ClassVar[list[dict[str, str]]] = []

    def start(self, props: Mapping[str, str]) -> None:
        RecordingSourceTask.started.append(dict(props))

    def poll(self) -> list[SourceRecord] | None:
        time.sleep(0.05)
        return None

    def stop(self) -> None:
        pass


class RecordingSourceConnector(SourceConnector):
    """Remembers the config it was started with; one task per call."""

    started: ClassVar[list[dict[str, str]]] = []

    def start(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)
        RecordingSourceConnector.started.append(dict(props))

    def task_class(self) -> type[Task]:
        return RecordingSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def config(self) -> ConfigDef:
        return ConfigDef().define("password", ConfigType.PASSWORD, "", documentation="a secret")


# -- an in-test override policy (runtime_harness:SmallLingerPolicy) ----------------------
from kconnect_sdk import ConfigValue, ConnectorClientConfigOverridePolicy  # noqa: E402
from kconnect_sdk import ConnectorClientConfigRequest as _OverrideRequest  # noqa: E402


class SmallLingerPolicy(ConnectorClientConfigOverridePolicy):
    """Judges a value, not only a key: ``linger.ms`` up to 100 ms, nothing else."""

    def validate(self, request: _OverrideRequest) -> list[ConfigValue]:
        out = []
        for name, value in request.client_props.items():
            checked = ConfigValue(name, value)
            if name != "linger.ms":
                checked.add_error_message(f"only linger.ms may be overridden, not {name}")
            elif int(value) > 100:
                checked.add_error_message(f"linger.ms above 100 ms is not allowed, got {value}")
            out.append(checked)
        return out


# -- an in-test REST extension (runtime_harness:AuditRestExtension) ------------------------
from kconnect_sdk import (  # noqa: E402
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RestRequest,
    RestResponse,
)


class AuditRestExtension(ConnectRestExtension):
    """Refuses deletes without ``X-Audit-Reason``, serves ``/audit/connectors`` from the
    cluster state, and stamps every answer with a header through ASGI middleware."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.stamp = str(configs.get("audit.stamp", "audited"))

    def register(self, context: ConnectRestExtensionContext) -> None:
        state = context.cluster_state

        def require_reason(request: RestRequest) -> RestResponse | None:
            if request.method == "DELETE" and not request.header("X-Audit-Reason"):
                return RestResponse.json(
                    403, {"error_code": 403, "message": "say why: X-Audit-Reason"}
                )
            return None

        def listing(request: RestRequest) -> RestResponse:
            body = {n: state.connector_health(n)["connector"]["state"] for n in state.connectors()}
            return RestResponse.json(200, {"connectors": body, "cluster": state.kafka_cluster_id()})

        stamp = self.stamp.encode()

        def middleware(app: Any) -> Any:
            async def stamped(scope: Any, receive: Any, send: Any) -> None:
                async def send_stamped(message: Any) -> None:
                    if message["type"] == "http.response.start":
                        message["headers"] = [*message.get("headers", []), (b"x-audit", stamp)]
                    await send(message)

                await app(scope, receive, send_stamped)

            return stamped

        context.add_request_filter(require_reason)
        context.add_route("/audit/connectors", listing)
        context.add_asgi_middleware(middleware)


# -- the crash suite (issue 20): processes, tails, a private database, the table ----------
import shutil  # noqa: E402
import socket  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import uuid  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402


@dataclass
class CrashRow:
    """One line of the crash suite's table."""

    connector: str
    mode: str
    kills: int
    sigterms: int
    mid_transaction: str
    lost: int
    duplicated: int
    note: str = ""


CRASH_ROWS: list[CrashRow] = []


class _CrashReport:
    """Prints the crash suite's table in the terminal summary (so CI output shows it)."""

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not CRASH_ROWS:
            return
        terminalreporter.write_sep("=", "crash suite (issue 20)")
        for line in crash_table():
            terminalreporter.write_line(line)


def crash_table() -> list[str]:
    header = ("connector", "mode", "kill -9", "SIGTERM", "mid-txn kills", "lost", "duplicated")
    rows = [header] + [
        (
            r.connector,
            r.mode,
            str(r.kills),
            str(r.sigterms),
            r.mid_transaction,
            str(r.lost),
            str(r.duplicated),
        )
        for r in CRASH_ROWS
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in rows]
    lines += [f"  {r.connector}: {r.note}" for r in CRASH_ROWS if r.note]
    return lines


def report_crash(config: pytest.Config, row: CrashRow) -> None:
    """Add a row to the crash table printed at the end of the session."""
    CRASH_ROWS.append(row)
    if not config.pluginmanager.has_plugin("kconnect-crash-report"):
        config.pluginmanager.register(_CrashReport(), "kconnect-crash-report")
    print("\n" + "\n".join(crash_table()))


def start_kconnect(args: list[str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    """`kconnect ARGS` as a process of its own, its output appended to ``log``."""
    with log.open("ab") as out:  # the child keeps its own descriptor
        return subprocess.Popen(
            [sys.executable, "-m", "kconnect_runtime.cli", *args],
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )


def end_process(proc: subprocess.Popen[bytes], sig: int, timeout: float = 60) -> int:
    """Send ``sig`` and wait; a process that outlives ``timeout`` is killed (and that fails)."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise AssertionError(f"the worker did not end within {timeout}s of signal {sig}") from None


class TopicTail(threading.Thread):
    """Reads every partition of a topic from the start, in the background, until closed."""

    def __init__(self, kafka: str, topic: str, *, read_committed: bool = False) -> None:
        super().__init__(daemon=True, name=f"tail-{topic}")
        self.kafka = kafka
        self.topic = topic
        self.isolation = "read_committed" if read_committed else "read_uncommitted"
        self.records: list[tuple[bytes | None, bytes | None]] = []
        self.where: list[tuple[int, int]] = []  # (partition, offset) of each record
        self.stamps: list[int] = []  # each record's timestamp (ms; the producer's clock)
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        from confluent_kafka import Consumer
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        consumer = Consumer(
            {
                "bootstrap.servers": self.kafka,
                "group.id": f"tail-{uuid.uuid4().hex[:8]}",
                "enable.auto.commit": False,
                "isolation.level": self.isolation,
                "topic.metadata.refresh.interval.ms": 1000,
                "fetch.wait.max.ms": 20,  # see records soon after they are written
            }
        )
        try:
            partitions: dict[int, None] = {}
            while not self._closing.is_set():
                topics = consumer.list_topics(self.topic, timeout=5).topics
                found = topics.get(self.topic)
                if found is not None and found.error is None and found.partitions:
                    new = [p for p in found.partitions if p not in partitions]
                    if new:
                        partitions.update(dict.fromkeys(new))
                        consumer.assign(
                            [KafkaTopicPartition(self.topic, p, 0) for p in sorted(partitions)]
                        )
                    break
                time.sleep(0.2)
            while not self._closing.is_set():
                batch = [m for m in consumer.consume(5000, 0.2) if m.error() is None]
                if batch:
                    with self._lock:
                        self.records.extend((m.key(), m.value()) for m in batch)
                        self.where.extend((m.partition(), m.offset()) for m in batch)
                        self.stamps.extend(m.timestamp()[1] for m in batch)
        except BaseException as exc:  # surfaced by the test through .error
            self.error = exc
        finally:
            consumer.close()

    def count(self) -> int:
        with self._lock:
            return len(self.records)

    def snapshot(self) -> list[tuple[bytes | None, bytes | None]]:
        with self._lock:
            return list(self.records)

    def located(self) -> list[tuple[int, int, bytes | None, bytes | None]]:
        """(partition, offset, key, value) of every record read so far."""
        with self._lock:
            return [(p, o, k, v) for (p, o), (k, v) in zip(self.where, self.records, strict=True)]

    def stamped(self) -> list[tuple[int, int, int, bytes | None, bytes | None]]:
        """(partition, offset, timestamp in ms, key, value) of every record read so far."""
        with self._lock:
            return [
                (p, o, t, k, v)
                for (p, o), t, (k, v) in zip(self.where, self.stamps, self.records, strict=True)
            ]

    def committed_end(self, partition: int) -> int:
        """The partition's last stable offset: a ``read_committed`` ListOffsets, which the
        broker answers with the first offset of the oldest open transaction (or the high
        watermark when none is open)."""
        from confluent_kafka import Consumer
        from confluent_kafka import TopicPartition as KafkaTopicPartition

        probe = Consumer(
            {
                "bootstrap.servers": self.kafka,
                "group.id": f"probe-{uuid.uuid4().hex[:8]}",
                "isolation.level": "read_committed",
            }
        )
        try:
            _low, high = probe.get_watermark_offsets(
                KafkaTopicPartition(self.topic, partition), timeout=10
            )
            return int(high)
        finally:
            probe.close()

    def settle(
        self, idle_s: float = 1.5, timeout: float = 60
    ) -> list[tuple[bytes | None, bytes | None]]:
        """Every record once nothing new came for ``idle_s``."""
        deadline = time.monotonic() + timeout
        last, seen = time.monotonic(), self.count()
        while time.monotonic() - last < idle_s and time.monotonic() < deadline:
            time.sleep(0.1)
            if self.count() != seen:
                seen, last = self.count(), time.monotonic()
        return self.snapshot()

    def close(self) -> None:
        self._closing.set()
        self.join(30)


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class PrivateMariaDB:
    """A MariaDB server of the test's own (ROW binlog), which the test may restart.

    The testkit's ``kc_mariadb`` is shared by the session; a test that restarts its
    database needs one nobody else uses.
    """

    base: Path
    port: int = field(default_factory=_port)
    server_id: int = 4343
    proc: subprocess.Popen[bytes] | None = None

    @property
    def socket_path(self) -> Path:
        return self.base / "mysqld.sock"

    def install(self) -> PrivateMariaDB:
        install_db = shutil.which("mariadb-install-db")
        if install_db is None or self._mariadbd() is None:
            pytest.fail(
                "MariaDB is not installed: apt-get install mariadb-server mariadb-client",
                pytrace=False,
            )
        setup = subprocess.run(
            [
                str(install_db),
                "--no-defaults",
                f"--datadir={self.base / 'data'}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                *self._as_root(),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert setup.returncode == 0, setup.stderr[-800:]
        self.start()
        conn = self._socket_connect()
        with conn.cursor() as cur:
            cur.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''")
            cur.execute("GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")
        conn.close()
        return self

    @staticmethod
    def _mariadbd() -> str | None:
        found = shutil.which("mariadbd")
        if found is None and Path("/usr/sbin/mariadbd").exists():
            found = "/usr/sbin/mariadbd"
        return found

    @staticmethod
    def _as_root() -> list[str]:
        return ["--user=root"] if os.geteuid() == 0 else []

    def _socket_connect(self) -> Any:
        import pymysql

        return pymysql.connect(unix_socket=str(self.socket_path), user="root", password="")

    def start(self, timeout: float = 60) -> None:
        data = self.base / "data"
        with (self.base / "mariadbd.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [
                    str(self._mariadbd()),
                    "--no-defaults",
                    f"--datadir={data}",
                    f"--socket={self.socket_path}",
                    f"--port={self.port}",
                    "--bind-address=127.0.0.1",
                    "--skip-name-resolve",
                    f"--log-bin={data / 'binlog'}",
                    "--binlog-format=ROW",
                    "--binlog-row-image=FULL",
                    f"--server-id={self.server_id}",
                    f"--pid-file={self.base / 'mariadbd.pid'}",
                    *self._as_root(),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                log_text = (self.base / "mariadbd.log").read_text(errors="replace")[-800:]
                assert self.proc.poll() is None, f"mariadbd exited: {log_text}"
                assert time.monotonic() < deadline, f"mariadbd did not start: {log_text}"
                time.sleep(0.1)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def restart(self) -> None:
        self.stop()
        self.start()

    def connect(self, **kwargs: Any) -> Any:
        import pymysql

        return pymysql.connect(host="127.0.0.1", port=self.port, user="root", password="", **kwargs)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


@contextlib.contextmanager
def private_mariadb() -> Iterator[PrivateMariaDB]:
    server = PrivateMariaDB(Path(tempfile.mkdtemp(prefix="kc-crash-mariadb-"))).install()
    try:
        yield server
    finally:
        server.remove()


class TransactionWriter(threading.Thread):
    """Inserts rows ``(id, v)`` into ``table`` in multi-statement transactions, ids in order.

    Each transaction inserts ``statements`` times ``rows`` rows with a short pause between
    statements, so a transaction is open most of the time; ``big_transaction`` commits one
    large transaction next. ``transactions`` lists the ids of each committed one.
    """

    def __init__(
        self,
        server: PrivateMariaDB,
        database: str,
        table: str,
        *,
        statements: int = 4,
        rows: int = 10,
        pause_s: float = 0.02,
    ) -> None:
        super().__init__(daemon=True, name=f"writer-{table}")
        self.server = server
        self.database = database
        self.table = table
        self.statements = statements
        self.rows = rows
        self.pause_s = pause_s
        self.transactions: list[range] = []
        self.next_id = 1
        self.error: BaseException | None = None
        self._halt = threading.Event()
        self._paused = threading.Event()
        self._big: int = 0
        self.big_done = threading.Event()
        self.idle = threading.Event()

    def run(self) -> None:
        try:
            conn = self.server.connect(database=self.database, autocommit=True)
            while not self._halt.is_set():
                if self._paused.is_set():
                    self.idle.set()
                    conn.close()
                    while self._paused.is_set() and not self._halt.is_set():
                        time.sleep(0.05)
                    self.idle.clear()
                    conn = self.server.connect(database=self.database, autocommit=True)
                    continue
                first, big, self._big = self.next_id, self._big, 0
                statements, rows = (big // 100, 100) if big else (self.statements, self.rows)
                with conn.cursor() as cur:
                    cur.execute("BEGIN")
                    for s in range(statements):
                        start = first + s * rows
                        values = ",".join(f"({i},{i % 977})" for i in range(start, start + rows))
                        cur.execute(f"INSERT INTO {self.table} (id, v) VALUES {values}")
                        if not big:
                            time.sleep(self.pause_s)
                    cur.execute("COMMIT")
                self.next_id = first + statements * rows
                self.transactions.append(range(first, self.next_id))
                if big:
                    self.big_done.set()
            conn.close()
        except BaseException as exc:
            self.error = exc
        finally:
            self.idle.set()

    def pause(self) -> None:
        """Stop between transactions and close the connection (for a database restart)."""
        self._paused.set()
        assert self.idle.wait(30), "the writer did not pause"

    def big_transaction(self, rows: int) -> range:
        """Commit one transaction of ``rows`` rows (a multiple of 100) next; its ids."""
        self.big_done.clear()
        self._big = rows
        assert self.big_done.wait(30), "the big transaction did not commit"
        return self.transactions[-1]

    def resume(self) -> None:
        self._paused.clear()

    def finish(self) -> list[int]:
        self._halt.set()
        self._paused.clear()
        self.join(30)
        assert self.error is None, f"writer of {self.table}: {self.error!r}"
        return list(range(1, self.next_id))

    @staticmethod
    def split(txn: range, seen: set[int]) -> bool:
        """Whether ``txn`` is partly (not wholly) in ``seen``."""
        present = sum(1 for i in txn if i in seen)
        return 0 < present < len(txn)


def distributed_props(kafka: str, group: str, port: int, **extra: str) -> dict[str, str]:
    """A distributed worker's properties: its own group and topics, REST on ``port``."""
    return {
        "bootstrap.servers": kafka,
        "group.id": group,
        "config.storage.topic": f"{group}-configs",
        "offset.storage.topic": f"{group}-offsets",
        "status.storage.topic": f"{group}-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "consumer.session.timeout.ms": SESSION_TIMEOUT,
        "listeners": f"http://127.0.0.1:{port}",
        **extra,
    }


def rest_ready(url: str) -> bool:
    import httpx

    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def dlq_records(bootstrap: str, topic: str, count: int, timeout: float = 60.0) -> list[Any]:
    """The first ``count`` records of ``topic``'s partition 0 (no consumer group)."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"t-{uuid.uuid4()}",
            "enable.auto.commit": False,
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[Any] = []
    deadline = time.monotonic() + timeout
    try:
        while len(out) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                out.append(message)
    finally:
        consumer.close()
    return out


@contextlib.contextmanager
def private_kafka(nodes: int = 1) -> Iterator[KafkaCluster]:
    """An Apache Kafka cluster of the test's own (KRaft, data on disk), which the test may
    stop, kill, freeze and start again; stopped on exit. The session's brokers are shared
    by every test, so a test that takes its broker down needs one nobody else uses."""
    cluster = KafkaCluster(nodes=nodes)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


class LineAppender(threading.Thread):
    """Appends ``line N`` to a file, ``block`` lines every ``pace_s``, until stopped (started
    by :meth:`begin`): a FileStream source's input that grows while a test runs."""

    def __init__(self, path: Path, *, block: int = 100, pace_s: float = 0.05) -> None:
        super().__init__(daemon=True, name="appender")
        self.path = path
        self.block = block
        self.pace_s = pace_s
        self.written = 0
        self._halt = threading.Event()
        path.touch()

    def begin(self) -> LineAppender:
        self.start()
        return self

    def run(self) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            while not self._halt.wait(self.pace_s):
                n = self.written
                f.write("".join(f"line {i}\n" for i in range(n, n + self.block)))
                f.flush()
                self.written = n + self.block

    def stop(self) -> int:
        """Stop appending; how many lines were written."""
        self._halt.set()
        if self.is_alive():
            self.join(10)
        return self.written


def every_line(sink: Path, written: int) -> bool:
    """Whether ``sink`` holds each of ``line 0`` … ``line written-1`` at least once."""
    # One partition keeps the file's order, so the last line arrives last; only then is
    # the (larger) set comparison worth making.
    text = sink.read_text(encoding="utf-8") if sink.exists() else ""
    if not text.endswith(f"line {written - 1}\n"):
        return False
    return len(set(text.splitlines())) >= written
