"""REST's own JSON: Kafka's error body, config bodies as strings, configs with secrets hidden.

Every body that can carry a connector's config or a trace goes through the connector's
:class:`~kconnect_runtime.config.Redactor`: secret values show as ``[hidden]``
(valid ``${provider:path:key}`` references as written) and no secret string is left in
free text. A config PUT or PATCHed back with ``[hidden]`` where GET showed it keeps the
stored value, so a client can read, edit and write a config without retyping its secrets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse
from kconnect_sdk import ConfigError, NotFoundError

from kconnect_runtime.config import HIDDEN
from kconnect_runtime.herder import WorkerApi
from kconnect_runtime.logcontext import scrub_secrets

__all__ = [
    "error",
    "info_body",
    "masked",
    "masked_config",
    "query_flag",
    "restore_hidden",
    "scrubbed",
    "string_config",
]


def error(status: int, message: str) -> JSONResponse:
    """Kafka Connect's error body: ``{"error_code": …, "message": …}``, secrets hidden."""
    return JSONResponse(
        {"error_code": status, "message": scrub_secrets(message)}, status_code=status
    )


def _scrub_all(body: Any) -> Any:
    """Every string in a JSON-like body with every secret the worker knows hidden."""
    if isinstance(body, str):
        return scrub_secrets(body)
    if isinstance(body, Mapping):
        return {scrub_secrets(str(k)): _scrub_all(v) for k, v in body.items()}
    if isinstance(body, list | tuple):
        return [_scrub_all(v) for v in body]
    return body


def masked(worker: WorkerApi, name: str, config: Mapping[str, str]) -> dict[str, Any]:
    """``config`` (the connector's or one of its tasks') with its secrets hidden."""
    redactor = worker.redactor(name)
    body: dict[str, Any] = _scrub_all(redactor.scrub_json(redactor.mask(config)))
    return body


def masked_config(worker: WorkerApi, name: str) -> dict[str, Any]:
    """The connector's config as submitted, secrets hidden."""
    return masked(worker, name, worker.connector_info(name)["config"])


def info_body(worker: WorkerApi, name: str) -> dict[str, Any]:
    """Kafka's ``ConnectorInfo`` body, its config masked."""
    info = worker.connector_info(name)
    return {**info, "config": masked(worker, name, info["config"])}


def scrubbed(worker: WorkerApi, name: str, body: Any) -> Any:
    """A status, offsets or other body of connector ``name`` with its secret strings hidden."""
    return _scrub_all(worker.redactor(name).scrub_json(body))


def restore_hidden(worker: WorkerApi, name: str, submitted: Mapping[str, Any]) -> dict[str, Any]:
    """``submitted`` with each value that reads as GET showed it put back to the stored one.

    A key whose submitted value contains ``[hidden]`` and equals what ``GET
    /connectors/{name}/config`` shows for it keeps its stored value. Any other ``[hidden]``
    (a new connector, a key not stored) is refused: it is not a value anyone meant.
    """
    out = dict(submitted)
    try:
        stored = worker.connector_info(name)["config"]
    except NotFoundError:
        stored = {}
    shown = masked(worker, name, stored) if stored else {}
    for key, value in submitted.items():
        if value is not None and HIDDEN in value:
            if key in stored and shown.get(key) == value:
                out[key] = stored[key]
            else:
                raise ConfigError(
                    f"config {key!r} contains {HIDDEN}, which only stands for the value "
                    f"connector {name!r} has stored for that key as GET shows it, and there is "
                    "none; give the value itself (or a ${provider:path:key} reference)",
                    name=key,
                )
    return out


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


def query_flag(value: str | None, *, default: bool) -> bool:
    """A boolean query parameter as Jersey reads one (Java's ``Boolean.parseBoolean``).

    Only ``true`` in any case is true; any other value (``yes``, ``1``, ``on``, empty) is
    false. Absent, the parameter takes its default.
    """
    if value is None:
        return default
    return value.lower() == "true"
