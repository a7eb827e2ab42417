"""Standalone mode: one worker process, file offsets, connectors from config files, REST API."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from kconnect_sdk import ConfigError, ConnectError

from kconnect_runtime.config import (
    EMBEDDED_SCHEMA_REGISTRY_URL,
    ConfigProviders,
    parse_worker_config,
)
from kconnect_runtime.engine import Engine, SparkEngine
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.rest import RestServer, create_app, load_users
from kconnect_runtime.schema_registry import SchemaRegistryServer
from kconnect_runtime.storage import ControlStore, FileOffsetStore, MemoryControlStore, OffsetStore
from kconnect_runtime.worker import Worker

from ._embedded_broker import EmbeddedBroker

__all__ = ["Standalone"]

log = logging.getLogger("kconnect.standalone")

EMBEDDED_SESSION_TIMEOUT_MS = 6000


def _check_broker(bootstrap: str, timeout_s: float = 10.0) -> str | None:
    """Fail fast, with advice, when the brokers cannot be reached. Returns the cluster id."""
    from confluent_kafka.admin import AdminClient

    errors: list[str] = []
    settings: dict[str, Any] = {
        "bootstrap.servers": bootstrap,
        "error_cb": lambda e: errors.append(e.str()),
    }
    admin = AdminClient(settings)
    try:
        metadata = admin.list_topics(timeout=timeout_s)
    except Exception as exc:
        detail = errors[-1] if errors else str(exc)
        raise ConnectError(
            f"cannot reach Kafka at bootstrap.servers={bootstrap} within {timeout_s:.0f}s ({detail}); "
            "check that the brokers are running and reachable, or remove bootstrap.servers from the "
            "worker config to use the embedded development broker"
        ) from None
    cluster_id: str | None = metadata.cluster_id
    return cluster_id


class Standalone:
    """A standalone worker, assembled from a worker config and connector configs.

    ``start()`` raises ConfigError/ConnectError with an operator-facing message when the
    worker cannot run (bad config, unreachable broker, a connector that cannot be created).
    Subclasses (distributed mode) choose other stores and recover connectors from them.
    """

    mode = "standalone"

    def __init__(
        self,
        worker_props: Mapping[str, str],
        connector_configs: Sequence[Mapping[str, str]] = (),
        *,
        registry: PluginRegistry | None = None,
    ) -> None:
        self.worker_props = dict(worker_props)
        self.connector_configs = [dict(c) for c in connector_configs]
        self.registry = registry or PluginRegistry.discover(
            plugin_path=self.worker_props.get("plugin.path")
        )
        self.broker: EmbeddedBroker | None = None
        self.schema_registry: SchemaRegistryServer | None = None
        self.worker: Worker | None = None
        self.rest: RestServer | None = None
        self.spark_engine: SparkEngine | None = None
        self._progress_stop = threading.Event()

    def start(self) -> Worker:
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> Worker:
        try:
            providers = ConfigProviders.from_worker_config(self.registry, self.worker_props)
            self.worker_props = providers.resolve(self.worker_props)
            config = parse_worker_config(self.worker_props)
        except ConfigError as exc:
            raise ConfigError(f"worker config: {exc}", name=exc.name) from exc
        self._check_mode_config(config)
        session_timeout = config["consumer.session.timeout.ms"]
        servers = config["bootstrap.servers"]
        if servers:
            bootstrap = ",".join(servers)
            cluster_id = _check_broker(bootstrap)
        else:
            self.broker = EmbeddedBroker()
            bootstrap = self.broker.start()
            cluster_id = _check_broker(bootstrap)
            self._start_embedded_registry(bootstrap)
            # A group's first join takes about half the session timeout on this broker.
            session_timeout = session_timeout or EMBEDDED_SESSION_TIMEOUT_MS
        listeners = config["listeners"]
        offset_store, control_store = self._stores(config, bootstrap)
        engine: Engine | None = None
        if config["engine"] == "spark":
            self.spark_engine = SparkEngine(self.worker_props)
            engine = self.spark_engine
        self.worker = Worker(
            self.worker_props,
            engine=engine,
            registry=self.registry,
            offset_store=offset_store,
            control_store=control_store,
            topic_tracking_enable=config["topic.tracking.enable"],
            topic_tracking_allow_reset=config["topic.tracking.allow.reset"],
            bootstrap_servers=bootstrap,
            commit_interval_ms=config["offset.flush.interval.ms"],
            flush_timeout_ms=config["offset.flush.timeout.ms"],
            shutdown_timeout_ms=config["task.shutdown.graceful.timeout.ms"],
            consumer_session_timeout_ms=session_timeout,
            config_providers=providers,
            topic_creation_enable=config["topic.creation.enable"],
            default_topic_creation=(1, 1) if self.broker is not None else None,
        )
        if listeners:
            users = None
            if config["rest.basic.auth.user.file"]:
                users = load_users(config["rest.basic.auth.user.file"])
            key_password = config["listeners.https.ssl.key.password"]
            self.rest = RestServer(
                create_app(self.worker, kafka_cluster_id=cluster_id, basic_auth_users=users),
                listeners[0],
                ssl_certificate=config["listeners.https.ssl.certificate.location"],
                ssl_key=config["listeners.https.ssl.key.location"],
                ssl_key_password=None if key_password is None else str(key_password.value),
            )
            self.rest.start()
            self.worker.worker_id = f"{self.rest.host}:{self.rest.port}"
        self._recover(self.worker)
        for props in self.connector_configs:
            runtime = self.worker.create_connector(props)
            log.info(
                "created connector %s (%s, %d tasks)",
                runtime.name,
                runtime.plugin.name,
                len(runtime.tasks),
            )
        self.worker.started.set()
        return self.worker

    def _start_embedded_registry(self, bootstrap: str) -> None:
        """A schema registry beside the embedded broker, for converters that name none.

        Avro (or any converter declaring ``schema.registry.url``) then works with no
        infrastructure; a converter that sets its own URL keeps it.
        """
        self.schema_registry = SchemaRegistryServer(
            {
                "listeners": "http://127.0.0.1:0",
                "kafkastore.bootstrap.servers": bootstrap,
                "kafkastore.topic.replication.factor": "1",
            }
        )
        self.schema_registry.start()
        self.worker_props[EMBEDDED_SCHEMA_REGISTRY_URL] = self.schema_registry.url
        log.info(
            "started an embedded schema registry at %s for converters that set no "
            "schema.registry.url (development only: it keeps its schemas in the embedded broker)",
            self.schema_registry.url,
        )

    # -- what differs between modes ----------------------------------------------------
    def _check_mode_config(self, config: Any) -> None:
        if not config["offset.storage.file.filename"]:
            raise ConfigError(
                'worker config: Missing required configuration "offset.storage.file.filename" '
                "(standalone workers keep source offsets in this file)",
                name="offset.storage.file.filename",
            )

    def _stores(self, config: Any, bootstrap: str) -> tuple[OffsetStore, ControlStore]:
        """Where offsets and control-plane decisions are kept."""
        return FileOffsetStore(config["offset.storage.file.filename"]), MemoryControlStore()

    def _recover(self, worker: Worker) -> None:
        """Bring back connectors kept by an earlier run (none in standalone mode)."""

    def _close_stores(self) -> None:
        """Release the stores' clients (nothing to release in standalone mode)."""

    @property
    def bootstrap_servers(self) -> str:
        if self.worker is None:
            raise ConnectError("the worker has not started")
        return self.worker.bootstrap_servers

    def start_progress_log(self, interval_s: float = 5.0) -> None:
        """Log records moved per connector every ``interval_s`` while they change."""

        def report() -> None:
            last: dict[str, Any] = {}
            while not self._progress_stop.wait(interval_s):
                if self.worker is None:
                    continue
                now = self.worker.progress()
                if now != last:
                    log.info("progress: %s", describe_progress(now))
                    last = now

        threading.Thread(target=report, name="progress", daemon=True).start()

    def stop(self) -> None:
        self._progress_stop.set()
        if self.worker is not None:
            self.worker.stop()
        if self.spark_engine is not None:
            self.spark_engine.close()
            self.spark_engine = None
        self._close_stores()
        if self.rest is not None:
            self.rest.stop()
            self.rest = None
        if self.schema_registry is not None:
            self.schema_registry.stop()
            self.schema_registry = None
        if self.broker is not None:
            self.broker.stop()
            self.broker = None


def describe_progress(progress: Mapping[str, tuple[str, int, int]]) -> str:
    parts = []
    for name, (kind, records_in, records_out) in sorted(progress.items()):
        if kind == "source":
            parts.append(f"{name}: {records_in} polled, {records_out} acknowledged by Kafka")
        else:
            parts.append(f"{name}: {records_in} consumed, {records_out} put")
    return "; ".join(parts) or "no connectors"
