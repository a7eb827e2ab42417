"""MirrorMaker's herder: a distributed herder whose leader writes its flow's connectors.

Kafka's ``MirrorHerder``. In the dedicated mode (``kconnect mirror-maker``) nobody creates
connectors through a REST API: every node is started with the same
``connect-mirror-maker.properties``, and the worker that leads a flow's group writes that
flow's connector configs (MirrorSource, MirrorHeartbeat, MirrorCheckpoint) to the flow's
config topic once it leads, each only when the topic holds another config for it. Every
worker of the group then runs what the leader assigns it, as in any distributed group.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from confluent_kafka import KafkaException
from kconnect_sdk import ConfigError, ConnectError

from kconnect_runtime.worker import Worker

from ._distributed import DistributedHerder

__all__ = ["MirrorHerder"]

log = logging.getLogger("kconnect.mirror_maker")


class MirrorHerder(DistributedHerder):
    """The herder of one MirrorMaker flow (``source->target``) in the dedicated mode.

    Args:
        worker: the flow's worker.
        flow: the flow's name, ``source->target`` (for the log).
        connector_configs: the connectors' configs by name, in the order they are written.
        **settings: as :class:`DistributedHerder`'s.
    """

    def __init__(
        self,
        worker: Worker,
        *,
        flow: str,
        connector_configs: Mapping[str, Mapping[str, str]],
        **settings: Any,
    ) -> None:
        super().__init__(worker, **settings)
        self.flow = flow
        self.connector_configs = {name: dict(c) for name, c in connector_configs.items()}
        self._was_leader = False
        self._to_configure: list[str] = []

    def _round_done(self, *, leader: bool) -> None:
        if not leader:
            self._was_leader = False
            self._to_configure = []
            return
        if not self._was_leader:
            log.info(
                "this node (%s) now leads %s: configuring its connectors", self.worker_id, self.flow
            )
            self._to_configure = list(self.connector_configs)
        self._was_leader = True
        for name in list(self._to_configure):
            if self._configure(name):
                self._to_configure.remove(name)

    def _configure(self, name: str) -> bool:
        """Write one connector's config unless the config topic has it; False: retry later."""
        desired = self.connector_configs[name]
        with self._lock:
            entry = self.view.get(name)
        if entry is not None and dict(entry.config) == desired:
            log.info(
                "this node leads %s and the config of %s is already up to date", self.flow, name
            )
            return True
        try:
            self.put_connector_config(name, desired)
        except ConfigError as exc:
            # Written again only by the next leader: the file has to change first.
            log.error(
                "%s: connector %s cannot be configured: %s; fix the MirrorMaker properties "
                "file and restart the nodes with it",
                self.flow,
                name,
                exc,
            )
            return True
        except (ConnectError, KafkaException) as exc:
            log.warning(
                "%s: configuring connector %s waits for the brokers (%s); retrying",
                self.flow,
                name,
                exc,
            )
            return False
        log.info("%s connector configured for %s", name, self.flow)
        return True
