"""What a new user does first: install from wheels into an empty venv, paste a config, run it.

Each test builds nothing of its own: the wheels are built once from this checkout
(``uv build --all-packages -o dist``, as every README says), and each install runs in a
venv of its own with only what the install line brings. Installs use ``uv pip``, which
resolves ``--find-links dist`` and extras as pip does, in a fraction of the time. The
workers run on the embedded development broker, as a worker config without
``bootstrap.servers`` does on a fresh machine, with the docs' connector configs unchanged
but for hosts, ports and credentials.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
# Every document a user installs from: the READMEs and docs/.
DOCS = sorted([ROOT / "README.md", *ROOT.glob("*/README.md"), *ROOT.glob("*/*/README.md")])
DOCS += sorted((ROOT / "docs").glob("*.md"))


def _uv() -> str:
    found = shutil.which("uv") or str(ROOT / ".tools" / "bin" / "uv")
    if not Path(found).exists():
        pytest.fail("uv is needed to build the wheels: run ./test.sh (it installs uv into .tools/)")
    return found


def _run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)
    assert done.returncode == 0, (
        f"{shlex.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every package's wheel, built from this checkout as the READMEs say."""
    out = tmp_path_factory.mktemp("dist")
    _run([_uv(), "build", "--all-packages", "--quiet", "-o", str(out)], cwd=ROOT)
    return out


def _install(venv: Path, dist: Path, requirements: list[str]) -> Path:
    """An empty venv with ``pip install --find-links dist REQUIREMENTS``; its bin folder."""
    uv = _uv()
    _run([uv, "venv", "--quiet", "--python", sys.executable, str(venv)])
    python = str(venv / "bin" / "python")
    _run(
        [
            uv,
            "pip",
            "install",
            "--quiet",
            "--python",
            python,
            "--find-links",
            str(dist),
            *requirements,
        ]
    )
    return venv / "bin"


def install_lines() -> list[str]:
    """The ``pip install --find-links dist ...`` lines of the docs' code blocks, once each."""
    found: dict[str, None] = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
            for text_line in block.replace("\\\n", " ").splitlines():
                line = text_line.split("#", 1)[0].strip()
                if line.startswith("pip install --find-links dist "):
                    found[line] = None
    return list(found)


def test_the_docs_have_install_lines() -> None:
    lines = install_lines()
    # The one-line installs the docs lead with; a doc that drops them fails here.
    for extra in ("jdbc", "s3", "mysql", "avro", "mirror"):
        assert any(f"kconnect[{extra}]" in line for line in lines), (extra, lines)


@pytest.mark.parametrize("line", install_lines())
def test_each_install_line_gives_a_working_kconnect(line: str, dist: Path, tmp_path: Path) -> None:
    requirements = shlex.split(line)[len(["pip", "install", "--find-links", "dist"]) :]
    bin_dir = _install(tmp_path / "venv", dist, requirements)
    listed = _run([str(bin_dir / "kconnect"), "plugins", "list"], cwd=tmp_path).stdout
    if not any(re.fullmatch(r"kconnect(\[[a-z,]+\])?", r) for r in requirements):
        # A single package installed on its own: it installs, and the command runs.
        assert listed.strip(), f"{line!r} lists no plugin"
        return
    # The one-line install runs Kafka's own configs: the converters the quickstart's files
    # name, the worker's default header converter and FileStream are there.
    for plugin in ("JsonConverter", "StringConverter", "SimpleHeaderConverter", "FileStreamSink"):
        assert plugin in listed, f"{line!r} gives no {plugin}:\n{listed}"


# --- the docs' configs on the embedded broker, from an empty venv ----------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Worker:
    """``kconnect standalone`` of a venv, with Kafka's own worker config file, on the
    embedded broker; connectors are created over REST as the docs' ``curl`` lines do."""

    def __init__(self, bin_dir: Path, cwd: Path) -> None:
        self.cwd = cwd
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        worker = (ROOT / "config" / "connect-standalone.properties").read_text(encoding="utf-8")
        worker += f"\noffset.storage.file.filename={cwd / 'connect.offsets'}\n"
        worker += "offset.flush.interval.ms=1000\n"
        worker += f"listeners={self.url}\n"
        (cwd / "worker.properties").write_text(worker, encoding="utf-8")
        self.log = cwd / "worker.log"
        with self.log.open("wb") as out:
            env = {k: v for k, v in os.environ.items() if not k.startswith("VIRTUAL_ENV")}
            self.proc = subprocess.Popen(
                [str(bin_dir / "kconnect"), "standalone", "worker.properties"],
                cwd=cwd,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**env, "PYTHONUNBUFFERED": "1"},
            )
        self.bootstrap = self._wait_started()

    def _wait_started(self) -> str:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"the worker exited:\n{self.output()}"
            found = re.search(r"embedded Kafka broker \(Tansu\) at (\S+):", self.output())
            try:
                if found and httpx.get(self.url + "/connectors", timeout=2).status_code == 200:
                    return found.group(1)
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise AssertionError(f"the worker did not start in 90 s:\n{self.output()}")

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-6000:]

    def put(self, name: str, config: dict[str, str]) -> None:
        answer = httpx.put(f"{self.url}/connectors/{name}/config", json=config, timeout=30)
        assert answer.status_code in (200, 201), answer.text

    def status(self, name: str) -> Any:
        return httpx.get(f"{self.url}/connectors/{name}/status", timeout=10).json()

    def wait(self, check: Callable[[], bool], what: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"{what}: not within {seconds:.0f} s\n{self.output()}")
            time.sleep(0.3)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def worker_for(dist: Path, tmp_path: Path) -> Iterator[Callable[[str], Worker]]:
    started: list[Worker] = []

    def start(requirement: str) -> Worker:
        bin_dir = _install(tmp_path / "venv", dist, [requirement])
        started.append(Worker(bin_dir, tmp_path))
        return started[-1]

    yield start
    for worker in started:
        worker.stop()


def doc_json(doc: str, after: str) -> dict[str, str]:
    """The first ```json block of ``doc`` after the text ``after``, as a user copies it."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)```", text[text.index(after) :], re.S)
    assert block, f"{doc} has no JSON config after {after!r}"
    config: dict[str, str] = json.loads(block.group(1))
    return config


def doc_properties(doc: str, after: str) -> dict[str, str]:
    """The first ```properties block of ``doc`` after the text ``after``."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    block = re.search(r"```properties\n(.*?)```", text[text.index(after) :], re.S)
    assert block, f"{doc} has no properties block after {after!r}"
    pairs = (line.split("=", 1) for line in block.group(1).splitlines() if "=" in line)
    return {k.strip(): v.strip() for k, v in pairs}


def file_sink(topic: str, path: Path, **extra: str) -> dict[str, str]:
    """Kafka's FileStreamSink writing a topic's values, as text, one per line."""
    return {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
        "tasks.max": "1",
        "topics": topic,
        "file": str(path),
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        **extra,
    }


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


BOOKS = [
    {"id": 1, "title": "Kafka Connect", "subtitle": "Build and Run Data Pipelines"},
    {
        "id": 2,
        "title": "Kafka The Definitive Guide",
        "subtitle": "Real-time Data and Stream Processing at Scale",
    },
]


@pytest.fixture
def inventory(kc_mariadb: Any) -> dict[str, str]:
    """The book's ``inventory.kafka_books``, reached by a user with a password."""
    conn = kc_mariadb.connect(autocommit=True)
    with conn.cursor() as cur:
        cur.execute("DROP DATABASE IF EXISTS inventory")
        cur.execute("CREATE DATABASE inventory")
        cur.execute(
            """CREATE TABLE inventory.kafka_books (
                id INT unsigned NOT NULL AUTO_INCREMENT,
                title VARCHAR(150) NOT NULL,
                subtitle VARCHAR(150) NOT NULL,
                published DATE NOT NULL,
                timestamp DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
                PRIMARY KEY (id))"""
        )
        cur.execute(
            "INSERT INTO inventory.kafka_books (title, subtitle, published) VALUES "
            "('Kafka Connect', 'Build and Run Data Pipelines', '2023-10-01'), "
            "('Kafka The Definitive Guide', 'Real-time Data and Stream Processing at Scale', '2017-07-07')"
        )
        cur.execute("CREATE USER IF NOT EXISTS 'firsthour'@'127.0.0.1' IDENTIFIED BY 'f1rst-h0ur'")
        cur.execute(
            "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT "
            "ON *.* TO 'firsthour'@'127.0.0.1'"
        )
    conn.close()
    return {
        "host": kc_mariadb.host,
        "port": str(kc_mariadb.port),
        "user": "firsthour",
        "password": "f1rst-h0ur",
    }


def test_kafka_quickstart_from_kconnect(worker_for: Callable[[str], Worker]) -> None:
    worker = worker_for("kconnect")
    # `kconnect quickstart` outside a checkout reads the copies of Kafka's files the wheel ships.
    python = worker.cwd / "venv" / "bin" / "python"
    shipped = _run(
        [
            str(python),
            "-c",
            "from kconnect_runtime.cli._main import _quickstart_dir; print(_quickstart_dir(None))",
        ],
        cwd=worker.cwd,
    ).stdout.strip()
    assert sorted(p.name for p in Path(shipped).glob("*.properties")) == [
        "connect-file-sink.properties",
        "connect-file-source.properties",
        "connect-standalone.properties",
    ]
    source = ROOT / "config" / "connect-file-source.properties"
    sink = ROOT / "config" / "connect-file-sink.properties"
    (worker.cwd / "test.txt").write_text("foo\nbar\n", encoding="utf-8")
    for path in (source, sink):
        props = dict(
            line.split("=", 1)
            for line in path.read_text(encoding="utf-8").splitlines()
            if "=" in line and not line.startswith("#")
        )
        # Kafka's files name files relative to the directory the worker runs in.
        props["file"] = str(worker.cwd / props["file"])
        worker.put(props["name"], props)
    out = worker.cwd / "test.sink.txt"
    worker.wait(lambda: lines_of(out) == ["foo", "bar"], "the quickstart's lines in test.sink.txt")


def test_book_jdbc_source_from_kconnect_jdbc(
    worker_for: Callable[[str], Worker], inventory: dict[str, str]
) -> None:
    worker = worker_for("kconnect[jdbc]")
    config = doc_json("docs/jdbc.md", "**Bulk**")
    config["connection.url"] = f"jdbc:mysql://{inventory['host']}:{inventory['port']}/inventory"
    config["connection.user"], config["connection.password"] = (
        inventory["user"],
        inventory["password"],
    )
    out = worker.cwd / "books.txt"
    worker.put("mysql-source-bulk", config)
    worker.put("books", file_sink("mysql-bulk-kafka_books", out))
    worker.wait(lambda: len(lines_of(out)) >= 2, "the book's two rows in the sink's file")
    payloads = [json.loads(line)["payload"] for line in lines_of(out)[:2]]
    assert [{k: p[k] for k in ("id", "title", "subtitle")} for p in payloads] == BOOKS
    assert payloads[0]["published"] == 19631  # 2023-10-01 as days since the epoch


def test_debezium_mysql_config_from_kconnect_mysql(
    worker_for: Callable[[str], Worker], inventory: dict[str, str]
) -> None:
    worker = worker_for("kconnect[mysql]")
    config = doc_properties("connectors/mysql/README.md", "snapshots with pymysql")
    config.update(
        {
            "database.hostname": inventory["host"],
            "database.port": inventory["port"],
            "database.user": inventory["user"],
            "database.password": inventory["password"],
            "schema.history.internal.kafka.bootstrap.servers": worker.bootstrap,
        }
    )
    out = worker.cwd / "changes.txt"
    worker.put(config["name"], config)
    worker.put("changes", file_sink("dbserver1.inventory.kafka_books", out))
    worker.wait(lambda: len(lines_of(out)) >= 2, "the snapshot's two rows in the sink's file")
    events = [json.loads(line)["payload"] for line in lines_of(out)[:2]]
    assert [e["op"] for e in events] == ["r", "r"]
    assert [{k: e["after"][k] for k in ("id", "title", "subtitle")} for e in events] == BOOKS
    assert events[0]["source"]["connector"] == "mysql"


def test_avro_converter_from_kconnect_avro(worker_for: Callable[[str], Worker]) -> None:
    worker = worker_for("kconnect[avro]")
    avro = doc_properties("docs/avro.md", "# Avro")
    # The embedded broker's own registry stands in for the docs' localhost:8081 when the
    # converter names none (docs/avro.md, "Three ways to have a registry").
    converters = {k: v for k, v in avro.items() if not k.endswith("schema.registry.url")}
    (worker.cwd / "lines.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    out = worker.cwd / "lines.sink.txt"
    source = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "tasks.max": "1",
        "file": str(worker.cwd / "lines.txt"),
        "topic": "avro-lines",
        **converters,
    }
    worker.put("avro-source", source)
    worker.put("avro-sink", {**file_sink("avro-lines", out), **converters})
    worker.wait(lambda: lines_of(out) == ["alpha", "beta"], "the lines back through Avro")
    subjects = re.search(r"embedded schema registry at (\S+) ", worker.output())
    assert subjects, worker.output()
    listed = httpx.get(subjects.group(1) + "/subjects", timeout=10).json()
    assert "avro-lines-value" in listed


def test_book_s3_sink_from_kconnect_s3(worker_for: Callable[[str], Worker], kc_s3: Any) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    worker = worker_for("kconnect[s3]")
    config = doc_json("docs/s3.md", "**Field partitioner")
    bucket = f"first-hour-{int(time.time() * 1000)}"
    kc_s3.client().create_bucket(Bucket=bucket)
    config.update(
        {
            "s3.bucket.name": bucket,
            "s3.region": kc_s3.region,
            "aws.access.key.id": kc_s3.access_key_id,
            "aws.secret.access.key": kc_s3.secret_access_key,
            "store.url": kc_s3.endpoint_url,
        }
    )
    admin = AdminClient({"bootstrap.servers": worker.bootstrap})
    admin.create_topics([NewTopic("orders", 5, 1)])["orders"].result(30)
    schema = {
        "type": "struct",
        "optional": False,
        "fields": [
            {"field": "id", "type": "int32", "optional": False},
            {"field": "title", "type": "string", "optional": False},
            {"field": "quantity", "type": "int32", "optional": False},
        ],
    }
    producer = Producer({"bootstrap.servers": worker.bootstrap})
    # The book's four sales: key 1 went to partition 4, keys 2 and 3 to partition 3.
    for key, title, quantity, partition in [
        (1, "Kafka The Definitive Guide", 2, 4),
        (2, "Mastering Kafka Streams and KSQLDB", 1, 3),
        (3, "Kafka Connect", 1, 3),
        (3, "Kafka Connect", 2, 3),
    ]:
        value = {"schema": schema, "payload": {"id": key, "title": title, "quantity": quantity}}
        producer.produce(
            "orders", json.dumps(value).encode(), str(key).encode(), partition=partition
        )
    assert producer.flush(30) == 0
    worker.put(config["name"], config)

    def listing() -> list[str]:
        found = kc_s3.client().list_objects_v2(Bucket=bucket).get("Contents", [])
        return sorted(o["Key"] for o in found)

    book = [
        "topics/orders/id=2/orders+3+0000000000.json",
        "topics/orders/id=2/orders+3+0000000000.keys.bin",
        "topics/orders/id=3/orders+3+0000000001.json",
        "topics/orders/id=3/orders+3+0000000001.keys.bin",
    ]
    worker.wait(lambda: listing() == book, "the book's object listing")
