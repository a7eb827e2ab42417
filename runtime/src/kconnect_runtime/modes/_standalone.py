"""Standalone mode: one worker process, file offsets, connectors from config files, REST API."""

from __future__ import annotations

import ipaddress
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kconnect_sdk import ConfigError, ConnectError
from kconnect_sdk.kafka_clients import security_settings

from kconnect_runtime.config import (
    EMBEDDED_SCHEMA_REGISTRY_URL,
    ConfigProviders,
    Redactor,
    kafka_client_config,
    parse_worker_config,
    register_worker_secrets,
    unknown_worker_keys,
    worker_security_errors,
)
from kconnect_runtime.engine import Engine, SparkEngine
from kconnect_runtime.herder import DistributedHerder, StandaloneHerder
from kconnect_runtime.logcontext import KafkaClientLog
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.rest import RestExtensions, RestServer, create_app, load_users
from kconnect_runtime.schema_registry import SchemaRegistryServer
from kconnect_runtime.storage import ControlStore, FileOffsetStore, MemoryControlStore, OffsetStore
from kconnect_runtime.worker import Worker, load_override_policy

from ._embedded_broker import EmbeddedBroker

__all__ = ["Standalone", "StartupInterrupted"]

log = logging.getLogger("kconnect.standalone")

EMBEDDED_SESSION_TIMEOUT_MS = 6000

# -- safe REST defaults -------------------------------------------------------------------
DEFAULT_LISTENER = "http://127.0.0.1:8083"
"""Where the REST API listens when ``listeners`` is unset: loopback only."""

_FILE_CONNECTORS = ("FileStreamSourceConnector", "FileStreamSinkConnector")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _warn_open_rest(url: str, host: str, registry: PluginRegistry) -> None:
    """Say loudly that anyone who reaches the REST API may do anything through it."""
    names = {p.name.rsplit(".", 1)[-1] for p in registry.plugins()}
    files = [n for n in _FILE_CONNECTORS if n in names]
    extra = (
        f"; with {' and '.join(files)} installed that includes reading and writing any file "
        "this worker can"
        if files
        else ""
    )
    log.warning(
        "the REST API listens on %s (%s), beyond this host, without authentication: anyone "
        "who reaches it can create, change and delete connectors%s. Set "
        "rest.basic.auth.user.file and an https:// listener, or listen on 127.0.0.1 behind a "
        "proxy that authenticates (see docs/security.md)",
        host,
        url,
        extra,
    )


_UNREACHABLE_ADVICE = (
    "check that the brokers are running and reachable, or remove bootstrap.servers from the "
    "worker config to use the embedded development broker"
)


def _check_broker(
    bootstrap: str,
    timeout_s: float = 10.0,
    security: Mapping[str, Any] | None = None,
    advice: str = _UNREACHABLE_ADVICE,
) -> str | None:
    """Fail fast, with advice, when the brokers cannot be reached. Returns the cluster id.

    ``security`` holds the worker's own (top-level) security settings, as Kafka's worker
    uses them to look up the cluster id.
    """
    from confluent_kafka.admin import AdminClient

    errors: list[str] = []
    settings: dict[str, Any] = {
        **kafka_client_config({**(security or {}), "bootstrap.servers": bootstrap}),
        "error_cb": lambda e: errors.append(e.str()),
        "logger": KafkaClientLog(
            "admin client (broker check)"
        ),  # librdkafka's lines through logging
    }
    admin = AdminClient(settings)
    try:
        metadata = admin.list_topics(timeout=timeout_s)
    except Exception as exc:
        detail = errors[-1] if errors else str(exc)
        raise ConnectError(
            f"cannot reach Kafka at bootstrap.servers={bootstrap} within {timeout_s:.0f}s "
            f"({detail}); {advice}"
        ) from None
    cluster_id: str | None = metadata.cluster_id
    return cluster_id


class StartupInterrupted(ConnectError):
    """A stop was requested (SIGTERM/SIGINT) before the worker existed; nothing is left running."""


class Standalone:
    """A standalone worker, assembled from a worker config and connector configs.

    ``start()`` raises ConfigError/ConnectError with an operator-facing message when the
    worker cannot run (bad config, unreachable broker, a connector that cannot be created).
    Subclasses (distributed mode) choose other stores and recover connectors from them.
    """

    mode = "standalone"
    accepted_worker_prefixes: tuple[str, ...] = ()
    """Worker keys this mode passes on without defining them (not reported as unknown)."""

    def __init__(
        self,
        worker_props: Mapping[str, str],
        connector_configs: Sequence[Mapping[str, str]] = (),
        *,
        registry: PluginRegistry | None = None,
        stop_requested: threading.Event | None = None,
    ) -> None:
        self.worker_props = dict(worker_props)
        self.connector_configs = [dict(c) for c in connector_configs]
        self.registry = registry or PluginRegistry.discover(
            plugin_path=self.worker_props.get("plugin.path")
        )
        self.broker: EmbeddedBroker | None = None
        self.schema_registry: SchemaRegistryServer | None = None
        self.worker: Worker | None = None
        self.herder: StandaloneHerder | DistributedHerder | None = None
        self.rest: RestServer | None = None
        self.rest_extensions = RestExtensions()
        self.spark_engine: SparkEngine | None = None
        self._progress_stop = threading.Event()
        # -- interruptible startup -------------------------------------------------------
        # Set by the CLI's SIGTERM/SIGINT handler (installed before anything starts): startup
        # stops at its next step, and what was started is stopped (offsets committed).
        self.stop_requested = stop_requested or threading.Event()

    # -- interruptible startup -----------------------------------------------------------
    def _interrupted(self, step: str) -> bool:
        """Whether a stop was requested; before the worker exists, raise to unwind start()."""
        if not self.stop_requested.is_set():
            return False
        log.info("stop requested during startup; not %s", step)
        if self.worker is None:
            raise StartupInterrupted(f"stopped during startup, before {step}")
        return True

    def start(self) -> StandaloneHerder | DistributedHerder:
        try:
            return self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> StandaloneHerder | DistributedHerder:
        raw_props = self.worker_props
        try:
            providers = ConfigProviders.from_worker_config(self.registry, self.worker_props)
            self.worker_props = providers.resolve(self.worker_props)
            # The worker's own secrets never reach a log line.
            register_worker_secrets(raw_props, self.worker_props)
            config = parse_worker_config(self.worker_props)
            # Worker plug-ins are loaded before anything starts: an unknown class, or an
            # extension that cannot set itself up, stops the worker here, naming its key.
            override_policy = load_override_policy(self.registry, self.worker_props)
            self.rest_extensions = RestExtensions.from_worker_config(
                self.registry, self.worker_props
            )
        except ConfigError as exc:
            # The message names the key and the problem, never a secret.
            secrets = Redactor.for_config(raw_props, self.worker_props)
            safe = secrets.safe_message(str(exc), raw_props)
            error = ConfigError(f"worker config: {safe}", name=exc.name)
            raise error from (exc if safe == str(exc) else None)
        self._check_mode_config(config)
        for key, message in worker_security_errors(self.worker_props):
            raise ConfigError(f"worker config: {message}", name=key)
        _warn_unknown_worker_keys(
            self.worker_props, bool(config["bootstrap.servers"]), self.accepted_worker_prefixes
        )
        self._interrupted("connecting to Kafka")
        session_timeout = config["consumer.session.timeout.ms"]
        servers = config["bootstrap.servers"]
        if servers:
            bootstrap = ",".join(servers)
            cluster_id = _check_broker(
                bootstrap,
                security=security_settings(self.worker_props),
                advice=self._unreachable_advice(),
            )
        else:
            self.broker = EmbeddedBroker()
            bootstrap = self.broker.start()
            cluster_id = _check_broker(bootstrap)
            self._start_embedded_registry(bootstrap)
            # A group's first join takes about half the session timeout on this broker.
            session_timeout = session_timeout or EMBEDDED_SESSION_TIMEOUT_MS
        listeners = self._listeners(config)
        self._interrupted("setting up the stores")
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
            bootstrap_servers=bootstrap,
            commit_interval_ms=config["offset.flush.interval.ms"],
            flush_timeout_ms=config["offset.flush.timeout.ms"],
            shutdown_timeout_ms=config["task.shutdown.graceful.timeout.ms"],
            consumer_session_timeout_ms=session_timeout,
            worker_id=self._worker_id(),
            config_providers=providers,
            topic_creation_enable=config["topic.creation.enable"],
            default_topic_creation=(1, 1) if self.broker is not None else None,
            client_override_policy=override_policy,
        )
        herder = self.herder = self._herder(self.worker, control_store, config)
        if listeners:
            users = None
            if config["rest.basic.auth.user.file"]:
                users = load_users(config["rest.basic.auth.user.file"])
            key_password = config["listeners.https.ssl.key.password"]
            self.rest = RestServer(
                create_app(
                    herder,
                    kafka_cluster_id=cluster_id,
                    basic_auth_users=users,
                    cors_allow_origin=config["access.control.allow.origin"],
                    cors_allow_methods=config["access.control.allow.methods"],
                    access_log=config["rest.access.log.enable"],
                    extensions=self.rest_extensions,
                ),
                listeners[0],
                ssl_certificate=config["listeners.https.ssl.certificate.location"],
                ssl_key=config["listeners.https.ssl.key.location"],
                ssl_key_password=None if key_password is None else str(key_password.value),
            )
            self.rest.start()
            self.worker.worker_id = f"{self.rest.host}:{self.rest.port}"
            # An extension (such as Kafka's basic-auth one) may be what guards the API.
            guarded = users is not None or bool(self.rest_extensions.extensions)
            if not guarded and not _is_loopback(self.rest.host):
                _warn_open_rest(self.rest.url, self.rest.host, self.registry)
        if not self._interrupted("recovering connectors"):
            self._recover(herder)
        for props in self.connector_configs:
            if self._interrupted(f"creating connector {props.get('name')!r}"):
                break
            self._create_connector(herder, props)
        herder.started.set()
        return herder

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
    def _listeners(self, config: Any) -> list[str]:
        """Where the REST API listens (none: no REST API)."""
        listeners: list[str] = config["listeners"] or []
        if "listeners" not in self.worker_props:
            # Unset means loopback only (Kafka's default binds every interface).
            log.info(
                "listeners is not set: the REST API listens on %s, loopback only; set "
                "listeners (e.g. http://0.0.0.0:8083) to reach it from other hosts, with "
                "rest.basic.auth.user.file and https (see docs/security.md)",
                DEFAULT_LISTENER,
            )
            return [DEFAULT_LISTENER]
        return listeners

    def _unreachable_advice(self) -> str:
        """What to do when ``bootstrap.servers`` cannot be reached."""
        return _UNREACHABLE_ADVICE

    def _worker_id(self) -> str | None:
        """This worker's id before its REST API names it (None: the Worker's default)."""
        return None

    def _check_mode_config(self, config: Any) -> None:
        signing = sorted(k for k in self.worker_props if k.startswith("inter.worker."))
        if signing:
            # KIP-507's keys sign the requests of a distributed group's workers; a standalone
            # worker has no group (Kafka's StandaloneConfig does not define them either).
            log.warning(
                "worker config: %s accepted but without effect: a standalone worker sends no "
                "requests to other workers (see docs/security.md, 'Requests between workers')",
                ", ".join(signing),
            )
        if not config["offset.storage.file.filename"]:
            raise ConfigError(
                'worker config: Missing required configuration "offset.storage.file.filename" '
                "(standalone workers keep source offsets in this file)",
                name="offset.storage.file.filename",
            )

    def _stores(self, config: Any, bootstrap: str) -> tuple[OffsetStore, ControlStore]:
        """Where offsets and control-plane decisions are kept."""
        path = config["offset.storage.file.filename"]
        if self.broker is not None:
            _forget_offsets_of_a_gone_broker(path)
        return FileOffsetStore(path), MemoryControlStore()

    def _herder(
        self, worker: Worker, control_store: ControlStore, config: Any
    ) -> StandaloneHerder | DistributedHerder:
        """What decides what the worker runs, and what the REST API talks to."""
        return StandaloneHerder(
            worker,
            control_store=control_store,
            topic_tracking_enable=config["topic.tracking.enable"],
            topic_tracking_allow_reset=config["topic.tracking.allow.reset"],
        )

    def _create_connector(
        self, herder: StandaloneHerder | DistributedHerder, props: Mapping[str, str]
    ) -> None:
        """A connector from a config file on the command line."""
        assert isinstance(herder, StandaloneHerder)  # distributed workers take none
        connector = herder.create_connector(props)
        log.info(
            "created connector %s (%s, %d tasks)",
            connector.name,
            connector.plugin.name,
            len(connector.supervised),
        )

    def _recover(self, herder: StandaloneHerder | DistributedHerder) -> None:
        """Bring back connectors kept by an earlier run (none in standalone mode)."""

    def _close_stores(self) -> None:
        """Release the stores' clients (nothing to release in standalone mode)."""

    @property
    def bootstrap_servers(self) -> str:
        if self.worker is None:
            raise ConnectError("the worker has not started")
        return self.worker.bootstrap_servers

    def progress(self) -> dict[str, tuple[str, int, int]]:
        """Per connector: (type, records in, records out) of its tasks in this process."""
        return self.herder.progress() if self.herder is not None else {}

    def start_progress_log(self, interval_s: float = 5.0) -> None:
        """Log records moved per connector every ``interval_s`` while they change."""

        def report() -> None:
            last: dict[str, Any] = {}
            while not self._progress_stop.wait(interval_s):
                if self.herder is None:
                    continue
                now = self.progress()
                if now != last:
                    log.info("progress: %s", describe_progress(now))
                    last = now

        threading.Thread(target=report, name="progress", daemon=True).start()

    def stop(self) -> None:
        self._progress_stop.set()
        if self.herder is not None:
            self.herder.stop()
        elif self.worker is not None:
            self.worker.stop()
        if self.spark_engine is not None:
            self.spark_engine.close()
            self.spark_engine = None
        self._close_stores()
        if self.rest is not None:
            self.rest.stop()
            self.rest = None
        self.rest_extensions.close()
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


# -- silent surprises ------------------------------------------------------------------------
def _warn_unknown_worker_keys(
    props: Mapping[str, str], has_bootstrap: bool, accepted_prefixes: Sequence[str] = ()
) -> None:
    """A warning per unknown worker key, with the closest known key.

    A misspelt ``bootstrap.servers`` must not quietly start the embedded broker: that is
    refused with the key to fix.
    """
    for unknown in unknown_worker_keys(props, accepted_prefixes):
        if unknown.suggestion == "bootstrap.servers" and not has_bootstrap:
            raise ConfigError(
                f"worker config: {unknown.message('worker')}, and without bootstrap.servers "
                "the worker would start its embedded development broker instead of using your "
                "Kafka; fix the key (or remove it to use the embedded broker)",
                name=unknown.key,
            )
        log.warning("worker config: %s", unknown.message("worker"))


def _forget_offsets_of_a_gone_broker(path: str) -> None:
    """Source offsets kept for a memory-only broker that is gone would skip records.

    The embedded broker starts empty, so offsets committed while an earlier one ran point
    past records that never reached a sink; sources start from scratch instead (records
    the sink already had may come again: at least once, never skipped).
    """
    offsets = Path(path)
    if not offsets.is_file() or offsets.stat().st_size == 0:
        return
    kept = offsets.with_name(offsets.name + ".previous-broker")
    offsets.replace(kept)
    log.warning(
        "the embedded broker is memory-only and starts empty, so the source offsets in %s "
        "(from an earlier run) no longer match its data; sources start from the beginning "
        "so that no record is skipped (the old offsets are kept in %s). Set "
        "bootstrap.servers to keep data and offsets across restarts",
        offsets,
        kept,
    )
