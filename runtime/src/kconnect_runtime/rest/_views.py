"""REST's own JSON: Kafka's error body, config bodies as strings, masked configs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse
from kconnect_sdk import ConfigError

from kconnect_runtime.worker import HIDDEN, WorkerApi

__all__ = ["error", "info_body", "masked", "masked_config", "string_config"]


def error(status: int, message: str) -> JSONResponse:
    """Kafka Connect's error body: ``{"error_code": …, "message": …}``."""
    return JSONResponse({"error_code": status, "message": message}, status_code=status)


def masked(worker: WorkerApi, name: str, config: Mapping[str, str]) -> dict[str, str]:
    """``config`` with PASSWORD-typed values hidden (placeholders stay as written)."""
    out = dict(config)
    for key in worker.password_keys(name):
        if key in out and not out[key].startswith("${"):
            out[key] = HIDDEN
    return out


def masked_config(worker: WorkerApi, name: str) -> dict[str, str]:
    """The connector's config as submitted, PASSWORD-typed values hidden."""
    return masked(worker, name, worker.connector_info(name)["config"])


def info_body(worker: WorkerApi, name: str) -> dict[str, Any]:
    """Kafka's ``ConnectorInfo`` body, its config masked."""
    info = worker.connector_info(name)
    return {**info, "config": masked(worker, name, info["config"])}


def string_config(body: Mapping[str, Any], *, allow_null: bool = False) -> dict[str, Any]:
    """A JSON config object as strings, as Kafka's Map<String, String> binding reads it."""
    out: dict[str, Any] = {}
    for key, value in body.items():
        if value is None:
            if not allow_null:
                raise ConfigError(f"config {key!r}: null is not a valid value", name=key)
            out[key] = None
        elif isinstance(value, bool):
            out[key] = "true" if value else "false"
        elif isinstance(value, str | int | float):
            out[key] = str(value)
        else:
            raise ConfigError(
                f"config {key!r}: values must be strings, got {type(value).__name__}", name=key
            )
    return out
