"""A task's Kafka client, watched: librdkafka's logs in the task's context, and dead brokers.

With the brokers gone, librdkafka would print hundreds of raw lines while the task stayed
RUNNING and ``/health`` healthy. So each task's main client (a source's producer, a sink's
consumer) logs through :class:`~kconnect_runtime.logcontext.KafkaClientLog`, and
a :class:`BrokerWatch` notices when it has reached no broker for longer than the worker's
``broker.unreachable.timeout.ms``: one ERROR line for the task, a trace on its RUNNING
status, the ``broker-unreachable-seconds`` metric, and ``/health`` answers ``unhealthy``.
When a broker is reachable again, one INFO line and everything clears.

librdkafka says "all brokers are down" with the ``_ALL_BROKERS_DOWN`` error event; it
says nothing when they come back, so the client's statistics (``statistics.interval.ms``,
5 s unless set) are read for a broker in state ``UP``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kconnect_sdk import ConfigError, ConnectError

from kconnect_runtime.config import kafka_client_config
from kconnect_runtime.logcontext import KafkaClientLog, kafka_logging
from kconnect_runtime.status import State

if TYPE_CHECKING:
    from ._runner import TaskRunner

__all__ = [
    "ACK_STALL_TIMEOUT_MS",
    "BROKER_UNREACHABLE_TIMEOUT_MS",
    "STATS_INTERVAL_MS",
    "TOPIC_LOST_ERRORS",
    "AckStallWatch",
    "BrokerWatch",
    "TaskKafkaClient",
    "delivery_failure_message",
    "kafka_logging",
    "topic_lost_message",
]

log = logging.getLogger("kconnect.task")

BROKER_UNREACHABLE_TIMEOUT_MS = 60000
"""Default of the worker key ``broker.unreachable.timeout.ms``."""
ACK_STALL_TIMEOUT_MS = 30000
"""Default of the worker key ``source.ack.stall.timeout.ms``."""
STATS_INTERVAL_MS = 5000
"""How often librdkafka reports broker states, which is how a recovery is seen."""

# librdkafka's statistics JSON writes a broker's state as "state":"UP" (the consumer
# group's own state is lower case, and fetch states have another key).
_BROKER_UP = '"state":"UP"'


class BrokerWatch:
    """Whether one task's client reaches a broker, told once per outage.

    ``on_error`` and ``on_stats`` run on the task's thread (inside the client's poll);
    ``check`` may be called from there too.
    """

    def __init__(self, runner: TaskRunner, client: str, bootstrap: str, timeout_s: float) -> None:
        self._runner = runner
        self._client = client
        self._bootstrap = bootstrap
        self.timeout_s = timeout_s
        self._since: float | None = None
        self.last_error = ""
        self._told = False
        self.authentication = "security.protocol=PLAINTEXT"

    @property
    def since(self) -> float | None:
        """Since when (monotonic) no broker has been reached; None while one is."""
        return self._since

    def on_error(self, err: Any) -> None:
        name = err.name()
        if name == "_AUTHENTICATION":
            # Java's clients throw SaslAuthenticationException and the task fails; librdkafka
            # would retry with the same credentials for ever. The error is raised from the
            # client's poll, on the task's thread.
            runner = self._runner
            raise ConnectError(
                f"connector {runner.id.connector!r} task {runner.id.task}: its {self._client} "
                f"could not authenticate to Kafka ({self.authentication}): {err.str()}; check "
                "the credentials (sasl.jaas.config, or the keystore for TLS client certificates)"
            )
        if name in ("_ALL_BROKERS_DOWN", "_TRANSPORT", "_RESOLVE"):
            self.last_error = str(err.str())
        if name == "_ALL_BROKERS_DOWN" and self._since is None:
            self._since = time.monotonic()
            self._runner.metrics.broker_unreachable_since = self._since
        self.check()

    def on_stats(self, stats: str) -> None:
        if _BROKER_UP in stats:
            self.recovered()
        else:
            self.check()

    def check(self, now: float | None = None) -> None:
        """Tell the outage once it has lasted longer than the timeout."""
        since = self._since
        if since is None or self._told:
            return
        waited = (time.monotonic() if now is None else now) - since
        if waited < self.timeout_s:
            return
        self._told = True
        runner = self._runner
        runner.metrics.broker_unreachable = True
        waits = (
            "polled records wait in the producer until delivery.timeout.ms"
            if runner.kind == "source"
            else "no records are consumed"
        )
        message = (
            f"connector {runner.id.connector!r} task {runner.id.task}: its {self._client} has "
            f"reached no Kafka broker of bootstrap.servers={self._bootstrap} for {waited:.0f} s "
            f"(broker.unreachable.timeout.ms={self.timeout_s * 1000:.0f}); last error: "
            f"{self.last_error or 'all brokers are down'}. The task keeps retrying and {waits}; "
            "check that the brokers run and that this host can reach them"
        )
        log.error("%s", message)
        if runner.status.state is State.RUNNING:
            runner.status.set(State.RUNNING, ConnectError(message))

    def forget(self) -> None:
        """The client is gone: no outage of it is reported any more."""
        self._since = None
        self._told = False
        self._runner.metrics.broker_unreachable_since = None
        self._runner.metrics.broker_unreachable = False

    def recovered(self) -> None:
        """A broker answers: clear the outage (and say so if it was told)."""
        since = self._since
        if since is None:
            return
        self._since = None
        runner = self._runner
        runner.metrics.broker_unreachable_since = None
        runner.metrics.broker_unreachable = False
        if self._told:
            self._told = False
            log.info(
                "connector %r task %d: its %s reaches the Kafka brokers again after %.0f s",
                runner.id.connector,
                runner.id.task,
                self._client,
                time.monotonic() - since,
            )
            status = runner.status
            if status.state is State.RUNNING and status.trace:
                status.set(State.RUNNING)  # clears the outage's trace


class TaskKafkaClient:
    """The config additions and the watch for one task's main Kafka client.

    Args:
        runner: The task.
        client: ``producer`` or ``consumer``.
        config: The client's config (``bootstrap.servers``, ``client.id``).
    """

    def __init__(self, runner: TaskRunner, client: str, config: Mapping[str, Any]) -> None:
        timeout_ms = float(
            runner.worker_props.get("broker.unreachable.timeout.ms")
            or BROKER_UNREACHABLE_TIMEOUT_MS
        )
        bootstrap = str(config.get("bootstrap.servers", ""))
        self.watch = BrokerWatch(runner, client, bootstrap, timeout_ms / 1000)
        name = f"{client} {config.get('client.id') or runner.name}"
        self.log = KafkaClientLog(name, on_error=self.watch.on_error)
        self._runner = runner
        self._client = client

    def config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """``config`` (Java client settings) as librdkafka's, with the logger, error and
        statistics callbacks.

        Raises:
            ConfigError: a security setting cannot be honoured or a store cannot be read;
                the message names the connector, the task and the key.
        """
        try:
            translated = kafka_client_config(config)
        except ConfigError as exc:
            runner = self._runner
            raise ConfigError(
                f"connector {runner.id.connector!r} task {runner.id.task}: its {self._client} "
                f"cannot be configured: {exc}",
                name=exc.name,
            ) from None
        protocol = str(translated.get("security.protocol", "PLAINTEXT")).upper()
        if protocol.startswith("SASL_"):
            mechanism = translated.get("sasl.mechanisms") or translated.get("sasl.mechanism")
            self.watch.authentication = f"security.protocol={protocol}, SASL mechanism {mechanism}"
        else:
            self.watch.authentication = f"security.protocol={protocol}"
        out = self.log.apply(translated)
        if "stats_cb" not in out:
            out["stats_cb"] = self.watch.on_stats
            out.setdefault("statistics.interval.ms", STATS_INTERVAL_MS)
        return out

    def close(self) -> None:
        """The client is closed: write pending repeat counts, forget the outage."""
        self.log.close()
        self.watch.forget()


# Delivery errors that say the cluster could not take the record (connectivity, timeouts,
# missing topics or leaders, too few replicas), not that the record itself is bad.
_NOT_THE_RECORDS_FAULT = {
    "_MSG_TIMED_OUT",
    "_TIMED_OUT",
    "_TRANSPORT",
    "_ALL_BROKERS_DOWN",
    "_RESOLVE",
    "_UNKNOWN_TOPIC",
    "_UNKNOWN_PARTITION",
    "_DESTROY",
    "REQUEST_TIMED_OUT",
    "NETWORK_EXCEPTION",
    "UNKNOWN_TOPIC_OR_PART",
    "LEADER_NOT_AVAILABLE",
    "NOT_LEADER_FOR_PARTITION",
    "NOT_LEADER_OR_FOLLOWER",
    "NOT_ENOUGH_REPLICAS",
    "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
    "BROKER_NOT_AVAILABLE",
    "KAFKA_STORAGE_ERROR",
}


# Delivery and produce errors that say the record's topic is gone from the cluster (deleted,
# or the cluster was replaced): librdkafka fails what it queued for it with these once its
# metadata no longer lists the topic, and produce() refuses new records with them.
TOPIC_LOST_ERRORS = frozenset({"_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION", "UNKNOWN_TOPIC_OR_PART"})


def topic_lost_message(label: str, topic: str, waiting: int, why: str) -> str:
    """Why a source task fails when its topic is gone and nothing may create it again."""
    return (
        f"{label}: topic {topic!r} does not exist on the Kafka cluster (deleted, or the "
        f"cluster was replaced) and is not created again: {why}. {waiting} records wait for "
        "it; offsets after the last acknowledged record are not committed, so they are sent "
        "again once the task restarts and none is lost. Create the topic, or let the "
        "connector create it (topic.creation.enable=true on the worker and "
        "topic.creation.default.replication.factor and topic.creation.default.partitions on "
        "the connector), then restart the task"
    )


def delivery_failure_message(label: str, stage: str, err: Any, cause: str | None) -> str:
    """Why a source task fails on a record the broker did not take, and what to do.

    A timeout or a connectivity error is never answered with ``errors.tolerance=all``:
    that setting would drop every record sent while the cluster was unreachable.
    """
    name = err.name()
    if name in _NOT_THE_RECORDS_FAULT or err.retriable():
        because = f" ({cause})" if cause else ""
        return (
            f"{label}: the brokers did not acknowledge a record at stage {stage}: {err.str()}"
            f"{because}. This is a problem of the Kafka cluster or the network, not of the "
            "record: fix it, then restart the task; offsets after the last acknowledged "
            "record are not committed, so those records are sent again and none is lost "
            "(raise delivery.timeout.ms with producer.override.delivery.timeout.ms to wait "
            "longer)"
        )
    return (
        f"{label}: the broker refused a record at stage {stage}: {err.str()}; offsets after "
        "the last acknowledged record are not committed (errors.tolerance=all skips records "
        "the broker refuses)"
    )


class AckStallWatch:
    """Warns once per stall when a source's oldest record waits too long for its ack.

    Args:
        runner: The source task.
        client: The task's producer client (its broker watch knows of outages).
    """

    def __init__(self, runner: TaskRunner, client: TaskKafkaClient) -> None:
        self._runner = runner
        self._client = client
        timeout_ms = runner.worker_props.get("source.ack.stall.timeout.ms")
        self.timeout_s = float(ACK_STALL_TIMEOUT_MS if timeout_ms is None else timeout_ms) / 1000
        self._told_at: int | None = None  # write_total when the stall was told
        self.cause: str | None = None
        # The topic the diagnosis found missing; the pipeline creates it again or fails.
        self.missing_topic: str | None = None

    def observe(self, oldest_sent: float | None, producer: Any, topics: set[str]) -> None:
        """After acknowledgements were served: ``oldest_sent`` is when the oldest record
        still unacknowledged was sent (None when none is)."""
        runner = self._runner
        if self._told_at is not None:
            if runner.metrics.write_total == self._told_at:
                return  # the same stall, told already
            self.cleared()
        if oldest_sent is None or not self.timeout_s:
            return
        waited_s = time.monotonic() - oldest_sent
        if waited_s < self.timeout_s:
            return
        self._told_at = runner.metrics.write_total
        self.cause = self._diagnose(producer, topics)
        message = (
            f"connector {runner.id.connector!r} task {runner.id.task}: "
            f"{runner.metrics.active_count} records have waited {waited_s:.0f} s for the "
            f"brokers' acknowledgement (source.ack.stall.timeout.ms="
            f"{self.timeout_s * 1000:.0f}): {self.cause}. The producer keeps them and retries "
            "until delivery.timeout.ms; no offset past them is committed"
        )
        log.warning("%s", message)
        if runner.status.state is State.RUNNING and not runner.status.trace:
            runner.status.set(State.RUNNING, ConnectError(message))

    def cleared(self) -> None:
        """Acknowledgements flow again."""
        if self._told_at is None:
            return
        self._told_at = None
        self.missing_topic = None
        runner = self._runner
        log.info(
            "connector %r task %d: the brokers acknowledge records again",
            runner.id.connector,
            runner.id.task,
        )
        status = runner.status
        if status.state is State.RUNNING and status.trace and not runner.metrics.broker_unreachable:
            status.set(State.RUNNING)

    def _diagnose(self, producer: Any, topics: set[str]) -> str:
        """The likeliest reason, from what the client knows and one metadata request."""
        self.missing_topic = None
        watch = self._client.watch
        if watch.since is not None:
            return (
                f"the brokers are unreachable (for {time.monotonic() - watch.since:.0f} s; "
                f"last error: {watch.last_error or 'all brokers are down'})"
            )
        try:
            metadata = producer.list_topics(timeout=5)
        except Exception as exc:
            return (
                "the brokers accept connections but do not answer (a metadata request got no "
                f"answer within 5 s: {exc}); check that they are not overloaded or stopped"
            )
        for topic in sorted(topics):
            found = metadata.topics.get(topic)
            if found is None or found.error is not None:
                self.missing_topic = topic
                return (
                    f"topic {topic!r} does not exist (deleted?) and the brokers do not create "
                    "topics on demand"
                )
            leaderless = sorted(p.id for p in found.partitions.values() if p.leader < 0)
            if leaderless:
                return (
                    f"partition(s) {leaderless} of topic {topic!r} have no leader; check the "
                    "brokers that host them"
                )
        return (
            "the brokers answer but do not acknowledge; check their logs, and that each "
            "partition has at least min.insync.replicas in-sync replicas (acks=all)"
        )
