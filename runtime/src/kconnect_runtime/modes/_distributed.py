"""Distributed mode: the control plane of :class:`Standalone`, kept in Kafka topics.

Connector configs, task configs and target states live in ``config.storage.topic``, source
offsets in ``offset.storage.topic`` and statuses in ``status.storage.topic``, in Apache Kafka
Connect's record formats, so a restarted worker recovers every connector, its target state
and its offsets. One worker per ``group.id``: there is no rebalancing protocol between
workers (scale-out is the Spark engine's job).
"""

from __future__ import annotations

import logging
from typing import Any

from kconnect_sdk import ConfigError, ConnectError

from kconnect_runtime.storage import (
    ControlStore,
    KafkaControlStore,
    KafkaLog,
    KafkaOffsetStore,
    OffsetStore,
    replay_configs,
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
        self._config_records: list[tuple[bytes | None, bytes | None]] = []

    def _check_mode_config(self, config: Any) -> None:
        for key in _REQUIRED:
            if not config[key]:
                raise ConfigError(
                    f'worker config: Missing required configuration "{key}" which has no default '
                    "value (distributed workers keep connectors, offsets and statuses in Kafka "
                    "topics; see docs/distributed.md)",
                    name=key,
                )
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
        try:
            for kafka_log in logs.values():
                kafka_log.ensure_topic()
            self._config_records = logs["config"].read_to_end()
            offsets = KafkaOffsetStore(logs["offset"])
        except ConnectError:
            raise
        except Exception as exc:
            raise ConnectError(f"cannot set up the distributed worker's topics: {exc}") from None
        self._offset_log = logs["offset"]
        self._control = KafkaControlStore(logs["config"], logs["status"])
        return offsets, self._control

    def _recover(self, worker: Worker) -> None:
        recovered = replay_configs(self._config_records)
        self._config_records = []
        for name, entry in recovered.items():
            try:
                runtime = worker.create_connector(entry.config, initial_state=entry.target_state)
            except (ConfigError, ConnectError) as exc:
                log.error(
                    "connector %s from config.storage.topic cannot be recreated: %s; fix its "
                    "config with PUT /connectors/%s/config or delete it",
                    name,
                    exc,
                    name,
                )
                continue
            log.info(
                "recovered connector %s (%s, target state %s, %d tasks)",
                name,
                runtime.plugin.name,
                entry.target_state.value,
                len(runtime.tasks),
            )

    def _close_stores(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._offset_log is not None:
            self._offset_log.close()
            self._offset_log = None
