"""``/connector-plugins``: installed plugins, their config definitions, config validation."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body, Response
from kconnect_sdk import ConfigDef, ConfigError, NotFoundError

from kconnect_runtime.herder import WorkerApi
from kconnect_runtime.plugins import CONNECTOR_KINDS, PluginKind
from kconnect_runtime.storage import BadRequestError
from kconnect_runtime.worker import plugin_config_keys

from ._views import query_flag, string_config

__all__ = ["CONFIG_PREFIXES_HEADER", "plugins_router"]

CONFIG_PREFIXES_HEADER = "X-Kconnect-Config-Prefixes"
"""Answer header of ``GET /connector-plugins/{plugin}/config``: the key prefixes the plugin
accepts without defining each key (``ConfigDef.accept_prefix``, e.g. MirrorMaker's
``source.cluster.``), comma-separated. A header, not part of the body, so that the body stays
Kafka's list of keys; ``kconnect apply`` and ``validate`` read it to warn of no key the
plugin takes."""


def plugins_router(worker: WorkerApi) -> APIRouter:
    """The routes under ``/connector-plugins``, served by ``worker``."""
    router = APIRouter()

    @router.get("/connector-plugins")
    def connector_plugins(connectorsOnly: str | None = None) -> list[dict[str, str]]:  # Kafka's
        """Every plugin of the kinds asked for, one entry per installed version (KIP-891)."""
        kinds = (
            CONNECTOR_KINDS
            if query_flag(connectorsOnly, default=True)
            else tuple(k for k in PluginKind if not k.worker_plugin)
        )
        listed: dict[tuple[str, str, str], dict[str, str]] = {}
        for p in worker.plugins(*kinds):
            entry = p.to_rest()
            # One version found in two places (a location and the runtime) is one entry.
            listed.setdefault((entry["class"], entry["type"], entry["version"]), entry)
        return list(listed.values())

    @router.get("/connector-plugins/{plugin}/config")
    def plugin_config(
        plugin: str, response: Response, version: str | None = None
    ) -> list[dict[str, Any]]:
        """The plugin's config definition, of ``version`` (KIP-891; default the newest)."""
        definition, kind = _definition(plugin, version)
        prefixes = [p for p in definition.accepted_prefixes if "," not in p]
        if prefixes:
            response.headers[CONFIG_PREFIXES_HEADER] = ",".join(prefixes)
        # Kafka: the plugin's own keys, then the framework's that a connector also takes.
        return plugin_config_keys(definition, kind)

    def _definition(plugin: str, version: str | None) -> tuple[ConfigDef, PluginKind | None]:
        """The plugin's config definition and, for a connector, its kind."""
        for kind in CONNECTOR_KINDS:
            try:
                return worker.plugin_config(plugin, (kind,), version), kind
            except ConfigError:
                continue
        # One kind at a time, in Kafka's PluginType order: a class that is both a converter
        # and a header converter (JsonConverter) describes itself as a converter.
        kinds = tuple(k for k in PluginKind if not k.worker_plugin)
        for kind in kinds:
            if kind in CONNECTOR_KINDS:
                continue
            try:
                return worker.plugin_config(plugin, (kind,), version), None
            except ConfigError:
                continue
        try:
            return worker.plugin_config(plugin, kinds, version), None
        except ConfigError:
            if version is not None:
                try:
                    worker.plugin_config(plugin, kinds, None)
                except ConfigError:
                    pass
                else:
                    raise  # the plugin exists, no installed version matches: 400
            # As Kafka's connectorPluginConfig: an unknown plugin is 404, in its words.
            raise NotFoundError(f"Unknown plugin {plugin}.") from None

    @router.put("/connector-plugins/{plugin}/config/validate")
    def validate_config(plugin: str, config: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
        props = string_config(config, allow_null=True)
        if props.get("connector.class") is None:
            # Kafka's AbstractHerder.validateConnectorConfig (without echoing the config,
            # whose values may be secret).
            raise BadRequestError(
                'Connector config contains no connector type: set "connector.class" '
                f"(for example to {plugin!r})"
            )
        return worker.validate_connector_config(plugin, props)

    return router
