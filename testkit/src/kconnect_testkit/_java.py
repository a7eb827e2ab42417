"""Apache Kafka and the Java Kafka Connect worker, fetched from Maven Central and run locally.

The jars come from the poms beside this module (``java/kafka``: the broker, the Connect
worker and its bundled plugins; ``java/debezium``: Debezium's MySQL and MariaDB
connectors), resolved once with Maven into a cache keyed by the pom's content. They are
references for tests and benchmarks: kconnect itself never loads them.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import fcntl
import hashlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any

from ._tls import TestCertificates

__all__ = [
    "DEBEZIUM_VERSION",
    "KAFKA_VERSION",
    "JavaConnectWorker",
    "JavaUnavailable",
    "KafkaCluster",
    "SecuredListeners",
    "java_jars",
]

KAFKA_VERSION = "4.1.1"
"""The Apache Kafka release the testkit runs (broker and Java Connect worker)."""

DEBEZIUM_VERSION = "3.5.0.Final"
"""The Debezium release of the Java MySQL/MariaDB connectors."""

_INSTALL = (
    "install Java 17 and Maven (apt-get install openjdk-17-jdk-headless maven); the jars "
    "come from Maven Central on first use"
)

# What the Java worker brings itself: left out of a plugin.path location, as Kafka Connect's
# own packaging advice says, so the plugin's class loader finds the worker's copies.
_PROVIDED_BY_WORKER = "org.apache.kafka,org.slf4j,org.apache.logging.log4j"


class JavaUnavailable(RuntimeError):
    """Java, Maven or the pinned jars cannot be had; the message says what to install."""


def _cache_root() -> Path:
    explicit = os.environ.get("KC_JAVA_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kconnect-testkit" / "java"


def _pom(kit: str) -> Path:
    ref = resources.files("kconnect_testkit").joinpath("java", kit, "pom.xml")
    path = Path(str(ref))
    if not path.is_file():
        raise JavaUnavailable(f"no pom for {kit!r} in kconnect-testkit (looked at {path})")
    return path


def java_jars(kit: str) -> Path:
    """The folder of ``kit``'s resolved jars (``"kafka"`` or ``"debezium"``), fetched once.

    Maven resolves the pom beside this module into a cache folder named after the pom's
    digest (``$KC_JAVA_CACHE``, default ``~/.cache/kconnect-testkit/java``), so a changed
    pin fetches again and concurrent test sessions share one copy under a file lock.
    """
    pom = _pom(kit)
    digest = hashlib.sha256(pom.read_bytes()).hexdigest()[:12]
    root = _cache_root()
    target = root / f"{kit}-{digest}"
    if (target / ".complete").exists():
        return target
    mvn = shutil.which("mvn")
    if mvn is None or shutil.which("java") is None:
        raise JavaUnavailable(f"java or mvn not found on PATH: {_INSTALL}")
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (target / ".complete").exists():
            return target
        staging = Path(tempfile.mkdtemp(prefix=f".{kit}-", dir=root))
        command = [
            mvn,
            "-q",
            "-B",
            "-f",
            str(pom),
            "dependency:copy-dependencies",
            f"-DoutputDirectory={staging}",
        ]
        if kit != "kafka":
            command.append(f"-DexcludeGroupIds={_PROVIDED_BY_WORKER}")
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not any(staging.glob("*.jar")):
            shutil.rmtree(staging, ignore_errors=True)
            output = (done.stdout + done.stderr)[-1500:]
            raise JavaUnavailable(
                f"Maven could not resolve {pom} (exit {done.returncode}): {output}; {_INSTALL}"
            )
        (staging / ".complete").write_text(f"{pom}\n")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return target


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _accepts(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _die_with_parent() -> None:
    # Linux: the JVM gets SIGTERM when the test process dies, even by kill -9, so no broker
    # or worker outlives the session that started it.
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _write_properties(path: Path, values: Mapping[str, object]) -> None:
    lines = [f"{key}={value}" for key, value in values.items()]
    path.write_text("\n".join(lines) + "\n")


def _log4j_config(path: Path, logfile: Path, level: str = "INFO") -> Path:
    path.write_text(
        "\n".join(
            [
                "status = warn",
                "appender.file.type = File",
                "appender.file.name = file",
                f"appender.file.fileName = {logfile}",
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = [%d] %p %m (%c)%n",
                f"rootLogger.level = {level}",
                "rootLogger.appenderRef.file.ref = file",
                "logger.kafka.name = org.apache.kafka.clients",
                "logger.kafka.level = WARN",
                "",
            ]
        )
    )
    return path


def _java_command(
    classpath: Sequence[Path], heap: str, log4j: Path, *, quick_start: bool
) -> list[str]:
    java = shutil.which("java")
    if java is None:
        raise JavaUnavailable(f"java not found on PATH: {_INSTALL}")
    # The C1 compiler alone starts a broker in about half the time (CPU spent compiling at
    # start is most of it); the C2 compiler's peak speed is for benchmarks, not tests.
    jit = ["-XX:TieredStopAtLevel=1"] if quick_start else []
    return [
        java,
        *jit,
        f"-Xmx{heap}",
        "-XX:+UseG1GC",
        "-XX:MaxGCPauseMillis=20",
        "-Djava.awt.headless=true",
        f"-Dlog4j2.configurationFile={log4j}",
        "-cp",
        os.pathsep.join(f"{entry}/*" if entry.is_dir() else str(entry) for entry in classpath),
    ]


def _random_cluster_id() -> str:
    # Kafka's Uuid.toString(): URL-safe base64 of 16 bytes, unpadded, never starting with '-'
    # (the storage tool would take it for an option).
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def _tail(path: Path, chars: int = 1500) -> str:
    try:
        return path.read_text(errors="replace")[-chars:]
    except OSError:
        return "(no log)"


def _stop_process(proc: subprocess.Popen[bytes] | None, timeout_s: float) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class _Node:
    """One KRaft node in combined mode (broker and controller in one JVM)."""

    def __init__(self, node_id: int, base: Path) -> None:
        self.node_id = node_id
        self.port = _free_port()
        self.controller_port = _free_port()
        self.dir = base / f"node-{node_id}"
        self.data = self.dir / "data"
        self.config = self.dir / "server.properties"
        self.log = self.dir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._stdout: IO[bytes] | None = None
        # Secured listeners (SASL_SSL, SSL, SASL_PLAINTEXT) of a secured cluster, by name.
        self.secured_ports: dict[str, int] = {}

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


SASL_USERS: dict[str, str] = {"alice": "alice-secret", "connect": "connect-secret"}
"""The SASL users of a secured cluster: PLAIN users, and SCRAM-SHA-256/512 users made with
the admin API once the broker runs."""

_SECURED_PROTOCOLS = ("SASL_SSL", "SSL", "SASL_PLAINTEXT")


@dataclass(frozen=True)
class SecuredListeners:
    """Where a secured cluster listens beside PLAINTEXT, and the credentials it accepts.

    Attributes:
        sasl_ssl: ``bootstrap.servers`` of the SASL_SSL listener (PLAIN, SCRAM-SHA-256,
            SCRAM-SHA-512 and unsecured-JWT OAUTHBEARER).
        ssl: ``bootstrap.servers`` of the SSL listener; it requires a client certificate
            signed by the test CA.
        sasl_plaintext: ``bootstrap.servers`` of the SASL_PLAINTEXT listener.
        certificates: the test CA, the broker's and a client's certificates, in JKS,
            PKCS12 and PEM stores.
        users: SASL user name to password.
    """

    sasl_ssl: str
    ssl: str
    sasl_plaintext: str
    certificates: TestCertificates
    users: dict[str, str]


class KafkaCluster:
    """An Apache Kafka cluster in KRaft combined mode on free loopback ports, data on disk.

    ``nodes=1`` is the suite's everyday broker; ``nodes=3`` gives replication factor 3 and
    ``min.insync.replicas=2`` for tests about broker failure. Every node is a broker and a
    controller. Nodes can be stopped, killed, frozen and started again with their data.

    Args:
        nodes: how many nodes.
        workdir: where the nodes keep config, logs and data (default: a new temporary
            folder, removed by :meth:`stop`).
        config: broker settings laid over the testkit's defaults, for every node.
        heap: the JVM's maximum heap per node.
        quick_start: run the JVM with the C1 compiler only: starts in about half the time,
            peaks lower. Benchmarks pass False.
        secured: the nodes also listen with SASL_SSL, SSL (client certificates required) and
            SASL_PLAINTEXT, beside PLAINTEXT (see :attr:`secured_listeners`).
    """

    def __init__(
        self,
        *,
        nodes: int = 1,
        workdir: Path | None = None,
        config: Mapping[str, object] | None = None,
        heap: str = "768m",
        quick_start: bool = True,
        secured: bool = False,
    ) -> None:
        if nodes < 1:
            raise ValueError(f"a Kafka cluster needs at least one node, got {nodes}")
        self._own_dir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="kc-kafka-"))
        self.cluster_id = _random_cluster_id()
        self.nodes = [_Node(i + 1, self.workdir) for i in range(nodes)]
        self._config = dict(config or {})
        self._tls: TestCertificates | None = None
        self._heap = heap
        self._quick_start = quick_start
        self._jars: Path | None = None
        self.secured_listeners: SecuredListeners | None = None
        if secured:
            for node in self.nodes:
                node.secured_ports = {name: _free_port() for name in _SECURED_PROTOCOLS}

    @property
    def bootstrap_servers(self) -> str:
        """``bootstrap.servers`` naming every node."""
        return ",".join(node.address for node in self.nodes)

    def _settings(self, node: _Node) -> dict[str, object]:
        n = len(self.nodes)
        replicas = min(n, 3)
        voters = ",".join(f"{m.node_id}@127.0.0.1:{m.controller_port}" for m in self.nodes)
        settings: dict[str, object] = {
            "process.roles": "broker,controller",
            "node.id": node.node_id,
            "controller.quorum.voters": voters,
            "listeners": f"PLAINTEXT://127.0.0.1:{node.port},CONTROLLER://127.0.0.1:{node.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": node.data,
            "num.partitions": 1,
            "default.replication.factor": replicas,
            "min.insync.replicas": 2 if replicas >= 3 else 1,
            "offsets.topic.replication.factor": replicas,
            "offsets.topic.num.partitions": 10,
            "transaction.state.log.replication.factor": replicas,
            "transaction.state.log.min.isr": 2 if replicas >= 3 else 1,
            "transaction.state.log.num.partitions": 10,
            "share.coordinator.state.topic.replication.factor": replicas,
            "share.coordinator.state.topic.min.isr": 2 if replicas >= 3 else 1,
            # Tests join and leave groups all the time; the 3 s production delay would only
            # slow each first join.
            "group.initial.rebalance.delay.ms": 0,
            "auto.create.topics.enable": "true",
            "delete.topic.enable": "true",
        }
        if node.secured_ports:
            settings.update(self._secured_settings(node))
        settings.update(self._config)
        return settings

    def _secured_settings(self, node: _Node) -> dict[str, object]:
        tls = self._certificates()
        listeners = ",".join(
            f"{name}://127.0.0.1:{port}" for name, port in node.secured_ports.items()
        )
        protocols = ",".join(f"{name}:{name}" for name in node.secured_ports)
        plain_users = " ".join(f'user_{user}="{password}"' for user, password in SASL_USERS.items())
        settings: dict[str, object] = {
            "listeners": f"PLAINTEXT://127.0.0.1:{node.port},{listeners},"
            f"CONTROLLER://127.0.0.1:{node.controller_port}",
            "advertised.listeners": f"PLAINTEXT://127.0.0.1:{node.port},{listeners}",
            "listener.security.protocol.map": f"PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,{protocols}",
            "ssl.keystore.type": "PKCS12",
            "ssl.keystore.location": tls.broker_keystore_p12,
            "ssl.keystore.password": tls.store_password,
            "ssl.key.password": tls.store_password,
            # Client certificates are checked against the test CA (a PEM truststore).
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": tls.ca_pem,
            "listener.name.ssl.ssl.client.auth": "required",
            "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER",
        }
        for name in ("sasl_ssl", "sasl_plaintext"):
            prefix = f"listener.name.{name}"
            settings[f"{prefix}.plain.sasl.jaas.config"] = (
                f"org.apache.kafka.common.security.plain.PlainLoginModule required {plain_users};"
            )
            for scram in ("scram-sha-256", "scram-sha-512"):
                settings[f"{prefix}.{scram}.sasl.jaas.config"] = (
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;"
                )
            # Kafka's unsecured JWT validator: OAUTHBEARER for tests, without an identity server.
            settings[f"{prefix}.oauthbearer.sasl.jaas.config"] = (
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
            )
        return settings

    def _certificates(self) -> TestCertificates:
        if self._tls is None:
            self._tls = TestCertificates(self.workdir / "tls")
        return self._tls

    def _add_scram_users(self) -> None:
        from confluent_kafka.admin import (  # type: ignore[attr-defined]  # re-exported, untyped
            AdminClient,
            ScramCredentialInfo,
            ScramMechanism,
            UserScramCredentialAlteration,
            UserScramCredentialUpsertion,
        )

        admin = AdminClient(self._client_config())
        # One user once per request: a request per mechanism.
        for mechanism in (ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512):
            upserts: list[UserScramCredentialAlteration] = [
                UserScramCredentialUpsertion(
                    user, ScramCredentialInfo(mechanism, 4096), password.encode()
                )
                for user, password in SASL_USERS.items()
            ]
            for future in admin.alter_user_scram_credentials(upserts).values():
                future.result(timeout=30)

    def _format(self, node: _Node, jars: Path) -> None:
        node.dir.mkdir(parents=True, exist_ok=True)
        _write_properties(node.config, self._settings(node))
        log4j = _log4j_config(node.dir / "log4j2.properties", node.log)
        done = subprocess.run(
            [
                *_java_command([jars], "256m", log4j, quick_start=True),
                "kafka.tools.StorageTool",
                "format",
                "-t",
                self.cluster_id,
                "-c",
                str(node.config),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise JavaUnavailable(
                f"kafka-storage format failed for node {node.node_id}: "
                f"{(done.stdout + done.stderr)[-1500:]}"
            )

    def start(self, *, timeout_s: float = 90.0) -> str:
        """Format (first time only) and start every node; returns ``bootstrap.servers``."""
        self._jars = java_jars("kafka")
        for node in self.nodes:
            if not (node.data / "meta.properties").exists():
                self._format(node, self._jars)
        for node in self.nodes:
            self._launch(node)
        self.wait_ready(timeout_s=timeout_s)
        if self.nodes[0].secured_ports and self.secured_listeners is None:
            self._add_scram_users()
            tls = self._certificates()
            self.secured_listeners = SecuredListeners(
                **{
                    name.lower(): ",".join(f"127.0.0.1:{n.secured_ports[name]}" for n in self.nodes)
                    for name in _SECURED_PROTOCOLS
                },
                certificates=tls,
                users=dict(SASL_USERS),
            )
        return self.bootstrap_servers

    def _launch(self, node: _Node) -> None:
        if node.proc is not None and node.proc.poll() is None:
            return
        assert self._jars is not None
        log4j = node.dir / "log4j2.properties"
        node._stdout = (node.dir / "stdout.log").open("ab")
        node.proc = subprocess.Popen(
            [
                *_java_command([self._jars], self._heap, log4j, quick_start=self._quick_start),
                "kafka.Kafka",
                str(node.config),
            ],
            stdout=node._stdout,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 -- only prctl, before exec
        )

    def wait_ready(self, *, timeout_s: float = 90.0, nodes: Sequence[int] | None = None) -> None:
        """Wait until the running nodes (or ``nodes``) are brokers the cluster lists."""
        from confluent_kafka.admin import AdminClient

        wanted = set(nodes) if nodes is not None else {n.node_id for n in self.running()}
        deadline = time.monotonic() + timeout_s
        admin: AdminClient | None = None
        problem = "no answer"
        while time.monotonic() < deadline:
            for node in self.nodes:
                if (
                    node.node_id in wanted
                    and node.proc is not None
                    and node.proc.poll() is not None
                ):
                    raise JavaUnavailable(
                        f"Kafka node {node.node_id} exited with {node.proc.returncode}: "
                        f"{_tail(node.log)}{_tail(node.dir / 'stdout.log', 800)}"
                    )
            # A plain socket probe first: librdkafka logs every refused connection.
            closed = [n for n in self.nodes if n.node_id in wanted and not _accepts(n.port)]
            if closed:
                problem = f"node {closed[0].node_id} does not accept connections yet"
                time.sleep(0.3)
                continue
            if admin is None:
                # Made only now: librdkafka connects as soon as a client exists.
                admin = AdminClient(self._client_config({"socket.timeout.ms": 5000}))
            try:
                meta = admin.list_topics(timeout=5)
                listed = set(meta.brokers)
                if wanted <= listed:
                    return
                problem = f"brokers {sorted(listed)} of {sorted(wanted)} registered"
            except Exception as exc:  # the cluster is still starting
                problem = str(exc)
            time.sleep(0.3)
        raise JavaUnavailable(
            f"Apache Kafka did not become ready in {timeout_s:.0f} s ({problem}); "
            f"node log: {_tail(self.nodes[0].log)}"
        )

    def _client_config(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        # Only the nodes that run, and librdkafka's lines through logging: a client given
        # a stopped node's address writes "Connection refused" to stderr once a second.
        running = [n.address for n in self.running()] or [n.address for n in self.nodes]
        return {
            "bootstrap.servers": ",".join(running),
            "logger": logging.getLogger("kconnect_testkit.kafka"),
            **(extra or {}),
        }

    def running(self) -> list[_Node]:
        """The nodes whose JVM is running."""
        return [n for n in self.nodes if n.proc is not None and n.proc.poll() is None]

    def node(self, node_id: int) -> _Node:
        """The node with ``node.id`` ``node_id``."""
        for node in self.nodes:
            if node.node_id == node_id:
                return node
        raise KeyError(f"no node {node_id} in this cluster")

    def stop_node(self, node_id: int, *, timeout_s: float = 60.0) -> None:
        """A controlled shutdown of one node (SIGTERM); its data stays."""
        node = self.node(node_id)
        _stop_process(node.proc, timeout_s)
        self._close_stdout(node)

    def kill_node(self, node_id: int) -> None:
        """SIGKILL one node, as a machine that loses power; its data stays."""
        node = self.node(node_id)
        if node.proc is not None and node.proc.poll() is None:
            node.proc.kill()
            node.proc.wait()
        self._close_stdout(node)

    def start_node(self, node_id: int, *, timeout_s: float = 90.0) -> None:
        """Start a stopped or killed node again with its data, and wait until it is listed."""
        node = self.node(node_id)
        self._launch(node)
        self.wait_ready(timeout_s=timeout_s, nodes=[node_id])

    def pause_node(self, node_id: int) -> None:
        """SIGSTOP one node: it keeps its sockets open and answers nothing."""
        proc = self.node(node_id).proc
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, signal.SIGSTOP)

    def resume_node(self, node_id: int) -> None:
        """SIGCONT a node :meth:`pause_node` froze."""
        proc = self.node(node_id).proc
        if proc is not None and proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)

    def leader_of(self, topic: str, partition: int = 0) -> int:
        """The ``node.id`` leading ``topic``'s partition now."""
        from confluent_kafka.admin import AdminClient

        admin = AdminClient(self._client_config())
        meta = admin.list_topics(topic, timeout=10)
        leader: int = meta.topics[topic].partitions[partition].leader
        return leader

    @staticmethod
    def _close_stdout(node: _Node) -> None:
        if node._stdout is not None:
            node._stdout.close()
            node._stdout = None

    def stop(self) -> None:
        """Stop every node, then remove the work folder if the cluster made it."""
        for node in self.running():
            assert node.proc is not None
            with contextlib.suppress(ProcessLookupError):
                # A paused JVM cannot act on SIGTERM.
                os.kill(node.proc.pid, signal.SIGCONT)
                # Every node at once: stopped one by one, the last nodes have lost the
                # controller quorum and wait in controlled shutdown until they are killed.
                node.proc.terminate()
        for node in self.nodes:
            _stop_process(node.proc, 30.0)
            self._close_stdout(node)
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> KafkaCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class JavaConnectWorker:
    """Apache Kafka Connect's own worker (the Java original), standalone or distributed.

    Runs on the classpath of the pinned Kafka release, with FileStream, JSON, the SMTs,
    MirrorMaker 2 and the basic-auth extension on it, and Debezium's MySQL and MariaDB
    connectors on ``plugin.path`` when ``debezium=True``.

    Args:
        bootstrap_servers: the Kafka cluster.
        mode: ``"distributed"`` or ``"standalone"``.
        config: worker settings laid over the defaults (JSON converters, a free REST port,
            internal topics and ``group.id`` named after ``name`` in distributed mode, an
            offsets file in standalone mode).
        connectors: standalone only: connector configs to start with.
        name: used in the default ``group.id`` and topic names.
        debezium: put Debezium's connectors on ``plugin.path``.
        workdir: where the worker keeps its config, logs and offsets file.
        heap: the JVM's maximum heap.
        quick_start: the C1 compiler only (see :class:`KafkaCluster`); benchmarks pass False.
        java_options: more JVM options, as an operator's ``KAFKA_OPTS`` gives them
            (``-Djava.security.auth.login.config=...`` for the basic-auth extension).
    """

    def __init__(
        self,
        bootstrap_servers: str,
        *,
        mode: str = "distributed",
        config: Mapping[str, object] | None = None,
        connectors: Sequence[Mapping[str, object]] = (),
        name: str | None = None,
        debezium: bool = False,
        workdir: Path | None = None,
        heap: str = "768m",
        quick_start: bool = True,
        java_options: Sequence[str] = (),
    ) -> None:
        if mode not in ("distributed", "standalone"):
            raise ValueError(f"mode must be 'distributed' or 'standalone', got {mode!r}")
        if connectors and mode != "standalone":
            raise ValueError("connector configs at start are for standalone mode; POST them")
        self.mode = mode
        self.name = name or f"java-{uuid.uuid4().hex[:8]}"
        self._own_dir = workdir is None
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="kc-java-connect-"))
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._bootstrap = bootstrap_servers
        self._config = dict(config or {})
        self._connectors = [dict(c) for c in connectors]
        self._debezium = debezium
        self._heap = heap
        self._quick_start = quick_start
        self._java_options = list(java_options)
        self.proc: subprocess.Popen[bytes] | None = None
        self._stdout: IO[bytes] | None = None
        self.log = self.workdir / "connect.log"

    def worker_config(self) -> dict[str, object]:
        """The worker properties this worker runs with."""
        settings: dict[str, object] = {
            "bootstrap.servers": self._bootstrap,
            "listeners": f"HTTP://127.0.0.1:{self.port}",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "offset.flush.interval.ms": 1000,
        }
        if self._debezium:
            plugins = self.workdir / "plugins"
            location = plugins / "debezium"
            if not location.exists():
                location.parent.mkdir(parents=True, exist_ok=True)
                location.symlink_to(java_jars("debezium"), target_is_directory=True)
            settings["plugin.path"] = plugins
        if self.mode == "distributed":
            settings.update(
                {
                    "group.id": self.name,
                    "config.storage.topic": f"{self.name}-configs",
                    "offset.storage.topic": f"{self.name}-offsets",
                    "status.storage.topic": f"{self.name}-status",
                    "config.storage.replication.factor": 1,
                    "offset.storage.replication.factor": 1,
                    "status.storage.replication.factor": 1,
                    "scheduled.rebalance.max.delay.ms": 5000,
                }
            )
        else:
            settings["offset.storage.file.filename"] = self.workdir / "connect.offsets"
        settings.update(self._config)
        return settings

    def start(self, *, timeout_s: float = 300.0) -> str:
        """Start the worker and wait until its REST API answers; returns its URL."""
        jars = java_jars("kafka")
        self.workdir.mkdir(parents=True, exist_ok=True)
        worker_props = self.workdir / "worker.properties"
        _write_properties(worker_props, self.worker_config())
        args = [str(worker_props)]
        for index, connector in enumerate(self._connectors):
            path = self.workdir / f"connector-{index}.properties"
            _write_properties(path, connector)
            args.append(str(path))
        main = (
            "org.apache.kafka.connect.cli.ConnectDistributed"
            if self.mode == "distributed"
            else "org.apache.kafka.connect.cli.ConnectStandalone"
        )
        log4j = _log4j_config(self.workdir / "log4j2.properties", self.log)
        self._stdout = (self.workdir / "stdout.log").open("ab")
        self.proc = subprocess.Popen(
            [
                *_java_command([jars], self._heap, log4j, quick_start=self._quick_start),
                *self._java_options,
                main,
                *args,
            ],
            stdout=self._stdout,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 -- only prctl, before exec
        )
        deadline = time.monotonic() + timeout_s
        problem = "no answer"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise JavaUnavailable(
                    f"the Java Connect worker exited with {self.proc.returncode}: "
                    f"{_tail(self.log)}{_tail(self.workdir / 'stdout.log', 800)}"
                )
            try:
                status, _ = self.request("GET", "/connectors")
                if status in (200, 401):  # 401: up, behind the basic-auth extension
                    return self.url
                problem = f"GET /connectors answered {status}"
            except OSError as exc:
                problem = str(exc)
            time.sleep(0.3)
        raise JavaUnavailable(
            f"the Java Connect worker did not answer in {timeout_s:.0f} s ({problem}): "
            f"{_tail(self.log)}"
        )

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        *,
        timeout_s: float = 30.0,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[int, Any]:
        """One REST call; returns the status code and the decoded JSON body (or text)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        req.add_header("Accept", "application/json")
        for header, value in (headers or {}).items():
            req.add_header(header, value)
        try:
            with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                status, raw = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            status, raw = err.code, err.read()
        if not raw:
            return status, None
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def wait_running(self, connector: str, *, tasks: int = 1, timeout_s: float = 60.0) -> Any:
        """Wait until ``connector`` and ``tasks`` of its tasks are RUNNING; returns the status."""
        deadline = time.monotonic() + timeout_s
        body: Any = None
        while time.monotonic() < deadline:
            status, body = self.request("GET", f"/connectors/{connector}/status")
            if status == 200 and body["connector"]["state"] == "RUNNING":
                states = [t["state"] for t in body.get("tasks", [])]
                if states.count("RUNNING") >= tasks:
                    return body
                if "FAILED" in states:
                    raise AssertionError(f"a task of {connector!r} failed: {body}")
            time.sleep(0.3)
        raise AssertionError(f"{connector!r} not RUNNING in {timeout_s:.0f} s: {body}")

    def stop(self, *, timeout_s: float = 60.0) -> None:
        """A clean stop (SIGTERM), as an operator's; the work folder is removed if made here."""
        _stop_process(self.proc, timeout_s)
        if self._stdout is not None:
            self._stdout.close()
            self._stdout = None
        if self._own_dir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def kill(self) -> None:
        """SIGKILL the worker, as a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> JavaConnectWorker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def kafka_cluster(**kwargs: Any) -> Iterator[KafkaCluster]:
    """A started :class:`KafkaCluster`, stopped on exit."""
    cluster = KafkaCluster(**kwargs)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
