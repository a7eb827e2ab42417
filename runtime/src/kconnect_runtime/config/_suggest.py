"""Unknown config keys and the closest known key ("did you mean `bootstrap.servers`?").

Kafka Connect ignores a key it does not know, so a typo (``bootstrap.server=``,
``fiel=``) silently falls back to a default. These helpers find such keys: a key is known
when a definition declares it, when Kafka defines it for the worker or connector (even if
kconnect ignores it), or when it sits under a prefix whose keys are passed on
(``producer.*``, ``transforms.<alias>.*``, ``key.converter.*``, ...), the connector's own
accepted prefixes included (``ConfigDef.accept_prefix``: MirrorMaker's
``source.cluster.*``). A key under a connector's prefix that reads as a misspelt key the
connector defines (``source.cluster.alais``) is still reported.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ._definitions import SINK_CONNECTOR_CONFIG, SOURCE_CONNECTOR_CONFIG, WORKER_CONFIG
from ._spark import SPARK_ENGINE_CONFIG

__all__ = [
    "UnknownKey",
    "closest_key",
    "log_unknown_connector_keys",
    "unknown_connector_keys",
    "unknown_keys",
    "unknown_worker_keys",
]

log = logging.getLogger("kconnect.config")

# Apache Kafka's WorkerConfig / StandaloneConfig / DistributedConfig keys kconnect accepts
# without a definition of its own (they tune the Java clients or Jetty): known, not typos.
_KAFKA_WORKER_KEYS = frozenset(
    {
        "admin.listeners",
        "auto.include.jmx.reporter",
        "client.dns.lookup",
        "client.id",
        "config.providers",
        "config.storage.topic",
        "connections.max.idle.ms",
        "exactly.once.source.support",
        "metadata.max.age.ms",
        "metric.reporters",
        "metrics.num.samples",
        "metrics.recording.level",
        "metrics.sample.window.ms",
        "plugin.discovery",
        "receive.buffer.bytes",
        "reconnect.backoff.max.ms",
        "reconnect.backoff.ms",
        "request.timeout.ms",
        "response.http.headers.config",
        "rest.advertised.host.name",
        "rest.advertised.listener",
        "rest.advertised.port",
        "rest.host.name",
        "rest.port",
        "retry.backoff.max.ms",
        "retry.backoff.ms",
        "security.protocol",
        "send.buffer.bytes",
        "socket.connection.setup.timeout.max.ms",
        "socket.connection.setup.timeout.ms",
        "worker.sync.timeout.ms",
        "worker.unsync.backoff.ms",
    }
)
_WORKER_PREFIXES = (
    "producer.",
    "consumer.",
    "admin.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "config.providers.",
    "listeners.",
    "ssl.",
    "sasl.",
    "metric.",
    "metrics.",
    "rest.",
    "spark.",
    "kconnect.",
)
# Apache Kafka's ConnectorConfig / SourceConnectorConfig / SinkConnectorConfig keys.
_KAFKA_CONNECTOR_KEYS = frozenset(
    {
        "config.action.reload",
        "exactly.once.support",
        "transaction.boundary",
        "transaction.boundary.interval.ms",
        "offsets.storage.topic",
        "connector.plugin.version",
        "key.converter.plugin.version",
        "value.converter.plugin.version",
        "header.converter.plugin.version",
        "topic.creation.groups",
    }
)
_CONNECTOR_PREFIXES = (
    "transforms.",
    "predicates.",
    "key.converter.",
    "value.converter.",
    "header.converter.",
    "producer.override.",
    "consumer.override.",
    "admin.override.",
    "topic.creation.",
)


class UnknownKey(NamedTuple):
    """A key nobody defines, and the closest known key (or None)."""

    key: str
    suggestion: str | None

    def message(self, what: str = "config") -> str:
        """``unknown connector key 'fiel' (did you mean 'file'?); it is ignored``."""
        hint = f" (did you mean '{self.suggestion}'?)" if self.suggestion else ""
        return f"unknown {what} key '{self.key}'{hint}; it is ignored"


def closest_key(key: str, known: Iterable[str]) -> str | None:
    """The known key closest to ``key`` (a typo's likely intent), or None."""
    found = difflib.get_close_matches(key, sorted(set(known)), n=1, cutoff=0.75)
    return found[0] if found else None


def unknown_keys(
    props: Mapping[str, object], known: Iterable[str], prefixes: Iterable[str] = ()
) -> list[UnknownKey]:
    """Keys of ``props`` that are neither ``known`` nor under one of ``prefixes``."""
    known_set = set(known)
    prefix_tuple = tuple(prefixes)
    return [
        UnknownKey(key, closest_key(key, known_set))
        for key in props
        if key not in known_set and not key.startswith(prefix_tuple)
    ]


def unknown_worker_keys(
    props: Mapping[str, object], extra_prefixes: Iterable[str] = ()
) -> list[UnknownKey]:
    """Unknown keys of a worker config (standalone or distributed); keys under
    ``extra_prefixes`` are known too (a mode that puts settings of its own there)."""
    known = (
        set(WORKER_CONFIG.config_keys) | set(SPARK_ENGINE_CONFIG.config_keys) | _KAFKA_WORKER_KEYS
    )
    return unknown_keys(props, known, (*_WORKER_PREFIXES, *extra_prefixes))


# A key under a plugin's accepted prefix is reported only when it is this close to a key the
# plugin defines: a transposition or a dropped letter (``source.cluster.alais``), not a
# client setting that merely shares the prefix (``source.cluster.bootstrap.servers``).
_PREFIXED_TYPO_CUTOFF = 0.9


def unknown_connector_keys(
    props: Mapping[str, object],
    plugin_keys: Iterable[str] = (),
    plugin_prefixes: Iterable[str] = (),
) -> list[UnknownKey]:
    """Unknown keys of a connector config.

    ``plugin_keys`` are the keys the connector defines and ``plugin_prefixes`` the prefixes
    it accepts (its ``ConfigDef.accepted_prefixes``): a key under one of them is known,
    unless it reads as a misspelt key of ``plugin_keys``.
    """
    own = set(plugin_keys)
    known = (
        set(SOURCE_CONNECTOR_CONFIG.config_keys)
        | set(SINK_CONNECTOR_CONFIG.config_keys)
        | _KAFKA_CONNECTOR_KEYS
        | own
    )
    found = unknown_keys(props, known, _CONNECTOR_PREFIXES)
    prefixes = tuple(plugin_prefixes)
    if not prefixes:
        return found
    out = []
    for unknown in found:
        if not unknown.key.startswith(prefixes):
            out.append(unknown)
            continue
        close = difflib.get_close_matches(
            unknown.key, sorted(own), n=1, cutoff=_PREFIXED_TYPO_CUTOFF
        )
        if close:  # else one of the family the connector passes on
            out.append(UnknownKey(unknown.key, close[0]))
    return out


def log_unknown_connector_keys(
    props: Mapping[str, object], plugin_keys: Iterable[str], plugin_prefixes: Iterable[str] = ()
) -> None:
    """A warning per unknown key of a connector config being created or updated."""
    for unknown in unknown_connector_keys(props, plugin_keys, plugin_prefixes):
        log.warning("connector %s: %s", props.get("name", "?"), unknown.message("connector"))
