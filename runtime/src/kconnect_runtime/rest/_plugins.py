"""``/connector-plugins``: installed plugins, their config definitions, config validation."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Body

from kconnect_runtime.plugins import CONNECTOR_KINDS, PluginKind
from kconnect_runtime.worker import WorkerApi, config_key_info

from ._views import string_config

__all__ = ["plugins_router"]


def plugins_router(worker: WorkerApi) -> APIRouter:
    """The routes under ``/connector-plugins``, served by ``worker``."""
    router = APIRouter()

    @router.get("/connector-plugins")
    def connector_plugins(connectorsOnly: bool = True) -> list[dict[str, str]]:  # Kafka's name
        """Every plugin of the kinds asked for, one entry per installed version (KIP-891)."""
        kinds = (
            CONNECTOR_KINDS
            if connectorsOnly
            else tuple(k for k in PluginKind if k is not PluginKind.CONFIG_PROVIDER)
        )
        listed: dict[tuple[str, str, str], dict[str, str]] = {}
        for p in worker.plugins(*kinds):
            entry = p.to_rest()
            # One version found in two places (a location and the runtime) is one entry.
            listed.setdefault((entry["class"], entry["type"], entry["version"]), entry)
        return list(listed.values())

    @router.get("/connector-plugins/{plugin}/config")
    def plugin_config(plugin: str, version: str | None = None) -> list[dict[str, Any]]:
        """The plugin's config definition, of ``version`` (KIP-891; default the newest)."""
        kinds = tuple(k for k in PluginKind if k is not PluginKind.CONFIG_PROVIDER)
        definition = worker.plugin_config(plugin, kinds, version)
        return [config_key_info(k) for k in definition.config_keys.values() if not k.internal]

    @router.put("/connector-plugins/{plugin}/config/validate")
    def validate_config(plugin: str, config: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
        return worker.validate_connector_config(plugin, string_config(config))

    return router
