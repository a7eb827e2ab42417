"""Dedicated MirrorMaker: ``kconnect mirror-maker mm2.properties``, as Kafka's
``connect-mirror-maker.sh`` (``org.apache.kafka.connect.mirror.MirrorMaker``).

One file, Kafka's ``connect-mirror-maker.properties`` unchanged, describes the clusters and
the flows between them::

    clusters = A, B
    A.bootstrap.servers = a-kafka:9092
    B.bootstrap.servers = b-kafka:9092
    A->B.enabled = true
    A->B.topics = .*

The MirrorMaker plugin (``kconnect-connector-mirror``) turns it into flows (Kafka's
``MirrorMakerConfig``); for each ``source->target`` flow whose target is one of
``--clusters`` (default: all) this runs a distributed worker on the *target* cluster, with
Kafka's group id (``<source>-mm2``) and internal topics (``mm2-configs.<source>.internal``,
``mm2-offsets.<source>.internal``, ``mm2-status.<source>.internal``) and ByteArray
converters. The worker that leads a flow's group writes the flow's three connector configs
to its config topic (:class:`~kconnect_runtime.herder.MirrorHerder`). Nodes started with the
same file join the same groups and share every flow's connectors and tasks (KIP-710).

Who writes the task configs a connector generates depends on
``dedicated.mode.enable.internal.rest``, as in Kafka:

* ``true``: the node starts one internal REST server on the file's ``listeners`` (Kafka's
  default ``http://:8083``), advertised as ``rest.advertised.listener``/``.host.name``/
  ``.port`` say, serving only the internal endpoints, each flow under
  ``/{source}/{target}``; each flow's group knows the node by that URL, and a node that
  runs a connector without leading its flow sends the connector's task configs to the
  flow's leader there, signed with the flow's session key; only the leader writes them.
* ``false`` (Kafka's default): no server; a node that runs a connector writes its task
  configs to the flow's config topic itself (where Kafka's followers fail to reconfigure).
"""

from __future__ import annotations

import importlib.metadata as md
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from kconnect_sdk import ConfigError, ConnectError

from kconnect_runtime.herder import DistributedHerder, MirrorHerder, WorkerApi
from kconnect_runtime.plugins import package_for
from kconnect_runtime.rest import RestServer, internal_mirror_app
from kconnect_runtime.worker import Worker

from ._distributed import Distributed
from ._standalone import StartupInterrupted, describe_progress

__all__ = [
    "MIRROR_MAKER_ENTRY_POINTS",
    "MirrorFlowSpec",
    "MirrorMaker",
    "load_mirror_maker_flows",
]

log = logging.getLogger("kconnect.mirror_maker")

MIRROR_MAKER_ENTRY_POINTS = "kconnect.mirror_maker"
"""The entry-point group whose ``flows`` names the function that turns a
``connect-mirror-maker.properties`` into flows (``kconnect-connector-mirror`` declares
``mirror_maker_flows``). Found through package metadata, as plugins are: the runtime never
imports a plugin by name."""
_MIRROR_SOURCE = "org.apache.kafka.connect.mirror.MirrorSourceConnector"
_INTERNAL_REST = "dedicated.mode.enable.internal.rest"
_DEFAULT_LISTENER = "http://:8083"  # Kafka's RestServerConfig.LISTENERS_DEFAULT
# What Kafka's internal server reads of the file (RestServerConfig.forInternal), with
# kconnect's PEM settings of an https listener.
_INTERNAL_REST_KEYS = (
    "listeners",
    "rest.advertised.host.name",
    "rest.advertised.port",
    "rest.advertised.listener",
    "listeners.https.ssl.certificate.location",
    "listeners.https.ssl.key.location",
    "listeners.https.ssl.key.password",
)


class MirrorFlowSpec(Protocol):
    """One ``source->target`` flow of a MirrorMaker properties file, as the plugin gives it."""

    @property
    def source(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def worker_config(self) -> Mapping[str, str]: ...

    @property
    def connectors(self) -> Mapping[str, Mapping[str, str]]: ...


FlowsFunction = Callable[..., Sequence[MirrorFlowSpec]]


def load_mirror_maker_flows(
    props: Mapping[str, str], *, clusters: Iterable[str] | None = None
) -> list[MirrorFlowSpec]:
    """The flows of a ``connect-mirror-maker.properties`` (parsed), from the MirrorMaker
    plugin installed beside the runtime; ``clusters`` keeps flows into those clusters.

    Raises:
        ConnectError: the plugin is not installed (with the line that installs it).
        ConfigError: the file is not a valid MirrorMaker config.
    """
    found = [ep for ep in md.entry_points(group=MIRROR_MAKER_ENTRY_POINTS) if ep.name == "flows"]
    if not found:
        package = package_for(_MIRROR_SOURCE)
        install = package.install_line() if package is not None else "kconnect-connector-mirror"
        raise ConnectError(
            "the dedicated MirrorMaker mode needs the MirrorMaker plugin in the runtime's own "
            f"environment, and it is not installed: {install}"
        )
    flows: FlowsFunction = found[0].load()
    return list(flows(props, clusters=None if clusters is None else list(clusters)))


def _node_id() -> str:
    # Unique per process: nodes on one host are told apart (the flows' groups know their
    # workers by id), and a restarted node joins as a new member, as Kafka's nodes do.
    return f"{socket.gethostname()}-mm2-{os.getpid()}-{uuid.uuid4().hex[:4]}"


class FlowWorker(Distributed):
    """The distributed worker of one flow: on the target cluster, without a REST API."""

    mode = "mirror-maker"
    # MirrorMakerConfig passes replication.policy.* and task* on to every flow's worker.
    accepted_worker_prefixes = ("replication.policy.", "tasks.max")

    def __init__(
        self, flow: MirrorFlowSpec, *, node_id: str, stop_requested: threading.Event
    ) -> None:
        super().__init__(flow.worker_config, stop_requested=stop_requested)
        self.flow = flow
        self.name = f"{flow.source}->{flow.target}"
        self.node_id = node_id
        # The node's internal REST server, as the group knows it (None: no server).
        self.rest_url: str | None = None

    def _check_mode_config(self, config: Any) -> None:
        if not config["bootstrap.servers"]:
            # Never the embedded development broker: the flow's target is a real cluster.
            raise ConfigError(
                f"flow {self.name}: cluster {self.flow.target!r} has no bootstrap servers; set "
                f"{self.flow.target}.bootstrap.servers",
                name=f"{self.flow.target}.bootstrap.servers",
            )
        super()._check_mode_config(config)

    def _listeners(self, config: Any) -> list[str]:
        return []  # Kafka's dedicated workers serve no REST API

    def _unreachable_advice(self) -> str:
        return (
            f"flow {self.name} runs on cluster {self.flow.target!r}: check that its brokers "
            f"are running and reachable, and {self.flow.target}.bootstrap.servers"
        )

    def _worker_id(self) -> str:
        return self.node_id

    def _members_topic_name(self, config: Any) -> str:
        # Named as MirrorMaker's internal topics, so that no flow copies it to another
        # cluster (the default topics.exclude and the replication policies skip *.internal).
        return f"mm2-members.{self.flow.source}.internal"

    def _distributed_herder(self, worker: Worker, **settings: Any) -> DistributedHerder:
        settings["internal_rest"] = self.rest_url is not None
        if self.rest_url is not None:
            settings["rest_url"] = self.rest_url
            settings["rest_namespace"] = (self.flow.source, self.flow.target)
            settings["url_scheme"] = self.rest_url.partition(":")[0]
        return MirrorHerder(
            worker, flow=self.name, connector_configs=self.flow.connectors, **settings
        )


class MirrorMaker:
    """The flows of one MirrorMaker node: a :class:`FlowWorker` each, started together.

    Args:
        props: the MirrorMaker properties file, parsed (for the settings of the node).
        flows: the flows this node runs (:func:`load_mirror_maker_flows`).
        stop_requested: set by SIGTERM/SIGINT: startup stops at its next step.
        source: the file's name, for messages.
    """

    def __init__(
        self,
        props: Mapping[str, str],
        flows: Sequence[MirrorFlowSpec],
        *,
        stop_requested: threading.Event | None = None,
        source: str = "mm2.properties",
    ) -> None:
        if not flows:
            raise ConfigError(
                f"{source}: no source->target replication flows for this node: enable one "
                "(A->B.enabled = true), or name a target cluster of the file in --clusters"
            )
        self.props = {k.strip(): v.strip() for k, v in props.items()}
        self.source = source
        self.stop_requested = stop_requested or threading.Event()
        self.node_id = _node_id()
        self.flows = [
            FlowWorker(flow, node_id=self.node_id, stop_requested=self.stop_requested)
            for flow in flows
        ]
        self._progress_stop = threading.Event()
        self._started: list[FlowWorker] = []
        self.internal_rest = self._boolean(_INTERNAL_REST)
        self.rest: RestServer | None = None

    def _boolean(self, key: str) -> bool:
        value = self.props.get(key, "false").lower()
        if value not in ("true", "false"):
            raise ConfigError(
                f"{self.source}: Invalid value {self.props[key]} for configuration {key}: "
                "Expected value to be either true or false",
                name=key,
            )
        return value == "true"

    def _herder_for(self, source: str, target: str) -> WorkerApi | None:
        for flow in self.flows:
            if (flow.flow.source, flow.flow.target) == (source, target):
                return flow.herder
        raise KeyError((source, target))

    def _start_internal_rest(self) -> None:
        """Kafka's ``MirrorRestServer``: one server for every flow of this node, up before the
        flows join their groups, so that the URL each group learns already answers."""
        props = self.props
        listeners = [v.strip() for v in props.get("listeners", _DEFAULT_LISTENER).split(",")]
        listeners = [v for v in listeners if v]
        if not listeners:
            raise ConfigError(
                f"{self.source}: listeners must name at least one listener (e.g. "
                f"http://:8083) when {_INTERNAL_REST} = true",
                name="listeners",
            )
        port: int | None = None
        if props.get("rest.advertised.port"):
            try:
                port = int(props["rest.advertised.port"])
            except ValueError:
                raise ConfigError(
                    f"{self.source}: Invalid value {props['rest.advertised.port']} for "
                    "configuration rest.advertised.port: Not a number of type INT",
                    name="rest.advertised.port",
                ) from None
        self.rest = RestServer(
            internal_mirror_app(self._herder_for),
            listeners[0],
            ssl_certificate=props.get("listeners.https.ssl.certificate.location"),
            ssl_key=props.get("listeners.https.ssl.key.location"),
            ssl_key_password=props.get("listeners.https.ssl.key.password"),
        )
        self.rest.start()
        url = self.rest.advertised_url(
            host_name=props.get("rest.advertised.host.name") or None,
            port=port,
            listener=props.get("rest.advertised.listener") or None,
        )
        for flow in self.flows:
            flow.rest_url = url
        log.info(
            "MirrorMaker node %s: internal REST server listening on %s://%s:%d, advertised as "
            "%s; it serves only the internal endpoints of this node's flows (%s)",
            self.node_id,
            self.rest.scheme,
            self.rest.host,
            self.rest.port,
            url,
            ", ".join(f"/{f.flow.source}/{f.flow.target}" for f in self.flows),
        )

    def start(self) -> None:
        """Start every flow's worker (at once); the first failure stops them all."""
        try:
            self._describe_rest()
            if self.internal_rest:
                self._start_internal_rest()
        except BaseException:
            self.stop()
            raise
        log.info(
            "MirrorMaker node %s starting %d flows: %s",
            self.node_id,
            len(self.flows),
            ", ".join(f.name for f in self.flows),
        )
        errors: list[BaseException] = []
        self._started = []

        def start(flow: FlowWorker) -> None:
            try:
                flow.start()  # stops what it started when it fails
            except BaseException as exc:
                errors.append(exc)
            else:
                self._started.append(flow)

        threads = [
            threading.Thread(target=start, args=(f,), name=f"start {f.name}") for f in self.flows
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            self.stop()
            # The reason a flow failed, rather than another one's stop it caused.
            raise next((e for e in errors if not isinstance(e, StartupInterrupted)), errors[0])
        log.info(
            "MirrorMaker node %s started; each flow's connectors are configured by the node "
            "that leads its group",
            self.node_id,
        )

    def _describe_rest(self) -> None:
        rest_keys = sorted(
            k for k in self.props if k == "listeners" or k.startswith(("listeners.", "rest."))
        )
        if self.internal_rest:
            # Kafka's internal server reads only these: authentication, extensions and the
            # public API belong to an ordinary worker.
            unused = [k for k in rest_keys if k not in _INTERNAL_REST_KEYS]
            if unused:
                log.warning(
                    "%s: %s: not used by the dedicated MirrorMaker's internal REST server, "
                    "which serves only the requests the nodes of a flow send one another; "
                    "run the connectors on a kconnect distributed worker for a REST API",
                    self.source,
                    ", ".join(unused),
                )
        elif rest_keys:
            log.warning(
                "%s: %s: used only with %s = true (Kafka's default is false): this node "
                "starts no REST server, and the node that runs a connector writes its task "
                "configs to the flow's config topic itself",
                self.source,
                ", ".join(rest_keys),
                _INTERNAL_REST,
            )
        else:
            log.info(
                "dedicated MirrorMaker without its internal REST server (%s = false, as "
                "Kafka's default): nodes started with the same file share each flow through "
                "Kafka, and the node that runs a connector writes its task configs itself",
                _INTERNAL_REST,
            )

    def progress(self) -> dict[str, dict[str, tuple[str, int, int]]]:
        """Per flow, per connector: (type, records in, records out) in this process."""
        return {flow.name: flow.progress() for flow in self.flows}

    def start_progress_log(self, interval_s: float = 5.0) -> None:
        """Log records moved per flow every ``interval_s`` while they change."""

        def report() -> None:
            last: dict[str, Any] = {}
            while not self._progress_stop.wait(interval_s):
                now = self.progress()
                if now != last:
                    log.info(
                        "progress: %s",
                        "; ".join(f"{name}: {describe_progress(p)}" for name, p in now.items()),
                    )
                    last = now

        threading.Thread(target=report, name="progress", daemon=True).start()

    def stop(self) -> None:
        """Stop every flow (tasks commit their offsets, the workers leave their groups)."""
        self._progress_stop.set()
        rest, self.rest = self.rest, None
        if rest is not None:
            rest.stop()  # first, as Kafka's: no request reaches a herder being stopped
        started, self._started = self._started, []
        threads = [threading.Thread(target=flow.stop, name=f"stop {flow.name}") for flow in started]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
