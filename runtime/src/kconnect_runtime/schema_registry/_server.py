"""The schema registry server: config, start/stop, and ``schema-registry-start``'s entry point."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from kconnect_sdk import ConfigError, parse_properties

from ._app import create_app
from ._compat import CompatibilityLevel
from ._registry import Registry
from ._store import KafkaSchemaLog, RegistryState

__all__ = ["SchemaRegistryServer", "main"]

log = logging.getLogger("kconnect.schema_registry")

DEFAULT_LISTENER: Final = "http://0.0.0.0:8081"
# Kafka client settings passed on from kafkastore.<name> to the store's clients: Java's
# (sasl.jaas.config, ssl.truststore.*...) or librdkafka's, translated like every client's.
_CLIENT_KEY_PREFIXES: Final = ("security.", "sasl.", "ssl.", "client.dns.lookup")


def _bootstrap(value: str) -> str:
    # Confluent accepts PLAINTEXT://host:port lists; librdkafka wants host:port.
    hosts = (item.strip() for item in value.split(","))
    return ",".join(h.split("://", 1)[1] if "://" in h else h for h in hosts if h)


class SchemaRegistryServer:
    """A Confluent-compatible Schema Registry, served in-process on a background thread.

    Config keys are Confluent's: ``listeners`` (``http://0.0.0.0:8081``; port 0 picks a free
    one), ``kafkastore.bootstrap.servers`` (required), ``kafkastore.topic`` (``_schemas``),
    ``kafkastore.topic.replication.factor`` (3, capped by the broker count),
    ``schema.compatibility.level`` (``backward``), ``kafkastore.init.timeout.ms`` (60000), and
    ``kafkastore.security.protocol``/``kafkastore.sasl.*``/``kafkastore.ssl.*`` for the
    store's Kafka clients (Java's settings: ``sasl.jaas.config``, JKS, PKCS12 or PEM stores).

    Example:
        >>> server = SchemaRegistryServer({"listeners": "http://127.0.0.1:0",
        ...                                "kafkastore.bootstrap.servers": "localhost:9092"})
        >>> server.start(); print(server.url); server.stop()
    """

    def __init__(self, config: Mapping[str, str]) -> None:
        self.config = dict(config)
        listeners = self.config.get("listeners", DEFAULT_LISTENER)
        listener = next((item.strip() for item in listeners.split(",") if item.strip()), "")
        parts = urlsplit(listener if "//" in listener else f"http://{listener}")
        if parts.scheme != "http":
            raise ConfigError(
                f"schema registry: listeners must be an http:// URL, got {listener!r}",
                name="listeners",
            )
        self.host = parts.hostname or "0.0.0.0"
        self.port = parts.port if parts.port is not None else 8081
        bootstrap = self.config.get("kafkastore.bootstrap.servers", "").strip()
        if not bootstrap:
            raise ConfigError(
                "schema registry: kafkastore.bootstrap.servers is required (the Kafka cluster "
                "that keeps the registry's _schemas topic)",
                name="kafkastore.bootstrap.servers",
            )
        level = self.config.get(
            "schema.compatibility.level", self.config.get("avro.compatibility.level", "backward")
        )
        try:
            self.default_level = CompatibilityLevel(level.strip().upper())
        except ValueError:
            raise ConfigError(
                f"schema registry: schema.compatibility.level must be one of "
                f"{', '.join(lv.value.lower() for lv in CompatibilityLevel)}, got {level!r}",
                name="schema.compatibility.level",
            ) from None
        client = {
            key[len("kafkastore.") :]: value
            for key, value in self.config.items()
            if key.startswith("kafkastore.")
            and key[len("kafkastore.") :].startswith(_CLIENT_KEY_PREFIXES)
            and value
        }
        self.topic = self.config.get("kafkastore.topic", "_schemas")
        self.store = KafkaSchemaLog(
            _bootstrap(bootstrap),
            self.topic,
            replication_factor=int(self.config.get("kafkastore.topic.replication.factor", "3")),
            client_config=client,
            timeout_s=int(self.config.get("kafkastore.init.timeout.ms", "60000")) / 1000,
        )
        self.state = RegistryState(self.default_level)
        self.registry = Registry(self.state, self.store)
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL clients use (``schema.registry.url``)."""
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def start(self, timeout_s: float = 30.0) -> None:
        """Replay the ``_schemas`` topic, then serve the REST API; returns once it listens.

        Raises:
            ConnectError: Kafka cannot be reached or the topic cannot be read.
            ConfigError: the listener cannot be bound.
        """
        import uvicorn

        records = self.store.load(self.state)
        config = uvicorn.Config(
            create_app(self.registry),
            host=self.host,
            port=self.port,
            log_level="warning",
            access_log=False,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, name="schema-registry", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ConfigError(
                    f"schema registry: cannot listen on {self.host}:{self.port} (port in use?)",
                    name="listeners",
                )
            time.sleep(0.02)
        if self.port == 0:
            self.port = self._server.servers[0].sockets[0].getsockname()[1]
        log.info(
            "Schema Registry listening on %s (state from topic %r: %d record(s), %d subject(s))",
            self.url,
            self.topic,
            records,
            len(self.state.subjects),
        )

    def stop(self) -> None:
        """Stop serving and close the Kafka clients."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.store.close()

    def __enter__(self) -> SchemaRegistryServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    """``kconnect schema-registry schema-registry.properties``: serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="kconnect schema-registry",
        description="Run a Confluent-compatible Schema Registry keeping its state in Kafka.",
    )
    parser.add_argument("properties", help="schema-registry.properties (Confluent's keys)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(message)s")
    logging.getLogger("uvicorn").setLevel(logging.WARNING)
    try:
        text = Path(args.properties).read_text(encoding="utf-8")
    except OSError as exc:
        log.error("cannot read %s: %s", args.properties, exc)
        return 1
    try:
        server = SchemaRegistryServer(parse_properties(text))
        server.start()
    except Exception as exc:
        log.error("%s", exc)
        return 1
    stopped = threading.Event()

    def _stop(_signum: int, _frame: Any) -> None:
        stopped.set()

    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    stopped.wait()
    server.stop()
    return 0
