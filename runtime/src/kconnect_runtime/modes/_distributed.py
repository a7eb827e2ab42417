"""Distributed mode: workers of one ``group.id`` share connectors through Kafka.

Connector configs, task configs and target states live in ``config.storage.topic``, source
offsets in ``offset.storage.topic`` and statuses in ``status.storage.topic``, in Apache Kafka
Connect's record formats, so a restarted worker recovers every connector, its target state
and its offsets. The workers form a group through Kafka's group coordinator; its leader
assigns connectors to them, and each runs exactly what it was given
(:class:`~kconnect_runtime.herder.DistributedHerder`; docs/distributed.md).

```properties
bootstrap.servers=broker:9092
group.id=connect-cluster
config.storage.topic=connect-configs
offset.storage.topic=connect-offsets
status.storage.topic=connect-status
session.timeout.ms=10000
scheduled.rebalance.max.delay.ms=300000
```
"""

from __future__ import annotations

import logging
from typing import Any

from kconnect_sdk import ConfigError, ConnectError

from kconnect_runtime.config import (
    check_key_generator,
    check_signature_in_verification,
    kafka_client_config,
)
from kconnect_runtime.herder import (
    MEMBER_SLOTS,
    DistributedHerder,
    GroupStore,
    SigningSettings,
    StandaloneHerder,
)
from kconnect_runtime.logcontext import kafka_logging
from kconnect_runtime.storage import (
    ControlStore,
    KafkaControlStore,
    KafkaLog,
    KafkaOffsetStore,
    OffsetStore,
)
from kconnect_runtime.worker import Worker

from ._standalone import Standalone

__all__ = ["Distributed"]

log = logging.getLogger("kconnect.distributed")

_REQUIRED = ("group.id", "config.storage.topic", "offset.storage.topic", "status.storage.topic")


class Distributed(Standalone):
    """A distributed-mode worker: ``kconnect distributed worker.properties``."""

    mode = "distributed"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._control: KafkaControlStore | None = None
        self._offset_log: KafkaLog | None = None
        self._offsets: KafkaOffsetStore | None = None
        self._group_store: GroupStore | None = None
        self._parsed: Any = None

    def _check_mode_config(self, config: Any) -> None:
        self._parsed = config
        for key in _REQUIRED:
            if not config[key]:
                raise ConfigError(
                    f'worker config: Missing required configuration "{key}" which has no default '
                    "value (distributed workers keep connectors, offsets and statuses in Kafka "
                    "topics; see docs/distributed.md)",
                    name=key,
                )
        # As Kafka's DistributedConfig, whatever connect.protocol says.
        try:
            check_key_generator(
                config["inter.worker.key.generation.algorithm"], config["inter.worker.key.size"]
            )
            check_signature_in_verification(
                config["inter.worker.signature.algorithm"],
                config["inter.worker.verification.algorithms"],
            )
        except ConfigError as exc:
            raise ConfigError(f"worker config: {exc}", name=exc.name) from None
        if not config["bootstrap.servers"]:
            log.warning(
                "distributed mode on the embedded, memory-only broker: nothing survives a "
                "restart; set bootstrap.servers to keep connectors and offsets"
            )

    def _stores(self, config: Any, bootstrap: str) -> tuple[OffsetStore, ControlStore]:
        client: dict[str, Any] = {"bootstrap.servers": bootstrap}
        for key, value in self.worker_props.items():
            # Security settings of the worker's own clients (as Kafka's top-level ssl.*/sasl.*).
            if key.startswith(("security.", "ssl.", "sasl.")):
                client[key] = value
        # Java's client settings as librdkafka's (JAAS, stores), once for every store client.
        client = kafka_logging(
            kafka_client_config(client), "worker store client"
        )  # librdkafka's lines through logging
        logs = {
            name: KafkaLog(
                client,
                config[f"{name}.storage.topic"],
                partitions=1 if name == "config" else config[f"{name}.storage.partitions"],
                replication_factor=config[f"{name}.storage.replication.factor"],
                key_name=f"{name}.storage.topic",
            )
            for name in ("config", "offset", "status")
        }
        # The group's membership slots (see _membership): never read, only subscribed to.
        logs["members"] = KafkaLog(
            client,
            self._members_topic_name(config),
            partitions=MEMBER_SLOTS,
            replication_factor=config["config.storage.replication.factor"],
            key_name="config.storage.topic",
        )
        try:
            for kafka_log in logs.values():
                kafka_log.ensure_topic()
            offsets = KafkaOffsetStore(logs["offset"])
        except ConnectError:
            raise
        except Exception as exc:
            raise ConnectError(f"cannot set up the distributed worker's topics: {exc}") from None
        logs["config"].on_recreated = self._config_topic_recreated
        self._offset_log = logs["offset"]
        self._offsets = offsets
        self._members_topic = logs["members"].topic
        self._control = KafkaControlStore(logs["config"], logs["status"])
        self._group_store = GroupStore(self._control)
        return offsets, self._control

    def _members_topic_name(self, config: Any) -> str:
        """The topic whose partitions are the group's membership slots."""
        return f"{config['config.storage.topic']}.members"

    def _config_topic_recreated(self) -> None:
        """The config topic was deleted and this worker created it again, empty."""
        herder = self.herder
        names = sorted(herder.view) if isinstance(herder, DistributedHerder) else []
        if names:
            topic = self._control.config_log.topic if self._control is not None else ""
            log.error(
                "config.storage.topic %s was deleted and is created again empty: connectors "
                "%s keep running, but a worker started from now on does not know them; write "
                "their configs again (PUT /connectors/<name>/config) before restarting workers",
                topic,
                ", ".join(names),
            )

    def _herder(
        self, worker: Worker, control_store: ControlStore, config: Any
    ) -> StandaloneHerder | DistributedHerder:
        # REST answers from the group's view (complete: the config topic was read to its
        # end before the server started), never from connectors still being started.
        assert self._control is not None and self._group_store is not None
        assert self._offsets is not None
        listeners = config["listeners"] or []
        return self._distributed_herder(
            worker,
            config_log=self._control.config_log,
            status_log=self._control.status_log,
            members_topic=self._members_topic,
            group_store=self._group_store,
            offset_store=self._offsets,
            group_id=config["group.id"],
            session_timeout_ms=config["session.timeout.ms"],
            heartbeat_interval_ms=config["heartbeat.interval.ms"],
            rebalance_timeout_ms=config["rebalance.timeout.ms"],
            scheduled_rebalance_max_delay_ms=config["scheduled.rebalance.max.delay.ms"],
            url_scheme="https" if listeners and listeners[0].startswith("https") else "http",
            connect_protocol=config["connect.protocol"],
            topic_tracking_enable=config["topic.tracking.enable"],
            topic_tracking_allow_reset=config["topic.tracking.allow.reset"],
            internal_rest=bool(self._listeners(config)),
            signing=SigningSettings(
                key_ttl_ms=config["inter.worker.key.ttl.ms"],
                key_algorithm=config["inter.worker.key.generation.algorithm"],
                key_size=config["inter.worker.key.size"],
                signature_algorithm=config["inter.worker.signature.algorithm"],
                verification_algorithms=list(config["inter.worker.verification.algorithms"]),
            ),
        )

    def _distributed_herder(self, worker: Worker, **settings: Any) -> DistributedHerder:
        """The herder of this worker, from the settings of the worker config."""
        return DistributedHerder(worker, **settings)

    def _recover(self, herder: StandaloneHerder | DistributedHerder) -> None:
        assert isinstance(herder, DistributedHerder)
        config = self._parsed
        # Join the group and wait for this worker's first assignment to be applied.
        herder.start(
            timeout_s=(config["rebalance.timeout.ms"] + 2 * config["session.timeout.ms"]) / 1000
        )

    def _close_stores(self) -> None:
        # The group is left only once this worker's tasks have stopped (no overlap with the
        # worker that takes them over): the herder stopped them first.
        if isinstance(self.herder, DistributedHerder):
            self.herder.close()
            self.herder = None
        if self._offsets is not None:
            self._offsets.close()
            self._offsets = None
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._offset_log is not None:
            self._offset_log.close()
            self._offset_log = None
