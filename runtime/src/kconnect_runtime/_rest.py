"""The REST API, with Apache Kafka Connect's paths, JSON bodies and status codes.

Served by FastAPI/uvicorn on ``listeners``; the OpenAPI document is at ``/openapi.json``.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from kconnect_sdk import ConfigError, ConfigType, NotFoundError
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import __version__
from ._registry import CONNECTOR_KINDS, PluginKind
from ._worker import Worker

__all__ = ["RestServer", "create_app"]

log = logging.getLogger("kconnect.rest")

_HIDDEN = "[hidden]"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error_code": status, "message": message}, status_code=status)


def _masked_config(worker: Worker, name: str) -> dict[str, str]:
    """The stored config with PASSWORD-typed values hidden (placeholders stay as written)."""
    runtime = worker.get(name)
    config = dict(runtime.raw_config)
    try:
        keys = runtime.instance.config().config_keys
    except Exception:  # a broken config() must not break status pages
        keys = {}
    for key, definition in keys.items():
        if (
            definition.type is ConfigType.PASSWORD
            and key in config
            and not config[key].startswith("${")
        ):
            config[key] = _HIDDEN
    return config


def create_app(worker: Worker, *, kafka_cluster_id: str | None = None) -> FastAPI:
    """The FastAPI application serving ``worker``."""
    app = FastAPI(title="kconnect REST API", version=__version__, docs_url=None, redoc_url=None)

    @app.exception_handler(NotFoundError)
    async def _not_found(request: Request, exc: NotFoundError) -> JSONResponse:
        return _error(404, str(exc))

    @app.exception_handler(ConfigError)
    async def _bad_config(request: Request, exc: ConfigError) -> JSONResponse:
        return _error(400, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(400, "; ".join(str(e.get("msg")) for e in exc.errors()))

    @app.get("/")
    def root() -> dict[str, Any]:
        return {"version": __version__, "commit": "unknown", "kafka_cluster_id": kafka_cluster_id}

    @app.get("/connectors", response_model=None)
    def list_connectors(expand: list[str] = Query(default=[])) -> Any:  # noqa: B008  # FastAPI idiom
        names = sorted(worker.connectors)
        if not expand:
            return names
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            entry: dict[str, Any] = {}
            if "status" in expand:
                entry["status"] = worker.connector_status(name)
            if "info" in expand:
                entry["info"] = {
                    **worker.connector_info(name),
                    "config": _masked_config(worker, name),
                }
            out[name] = entry
        return out

    @app.get("/connectors/{name}")
    def connector_info(name: str) -> dict[str, Any]:
        return {**worker.connector_info(name), "config": _masked_config(worker, name)}

    @app.get("/connectors/{name}/config")
    def connector_config(name: str) -> dict[str, str]:
        return _masked_config(worker, name)

    @app.get("/connectors/{name}/status")
    def connector_status(name: str) -> dict[str, Any]:
        return worker.connector_status(name)

    @app.get("/connectors/{name}/tasks")
    def connector_tasks(name: str) -> list[dict[str, Any]]:
        return worker.task_list(name)

    @app.get("/connectors/{name}/tasks/{task}/status")
    def task_status(name: str, task: int) -> dict[str, Any]:
        return worker.task_status(name, task)

    @app.get("/connector-plugins")
    def connector_plugins(connectorsOnly: bool = True) -> list[dict[str, str]]:  # Kafka's name
        kinds = (
            CONNECTOR_KINDS
            if connectorsOnly
            else tuple(k for k in PluginKind if k is not PluginKind.CONFIG_PROVIDER)
        )
        return [p.to_rest() for p in worker.registry.plugins(*kinds)]

    return app


class RestServer:
    """uvicorn serving the app on a background thread."""

    def __init__(self, app: FastAPI, listener: str) -> None:
        import uvicorn

        parts = urlsplit(listener if "//" in listener else f"http://{listener}")
        if parts.scheme != "http":
            raise ConfigError(
                f"listeners: only http:// listeners are supported, got {listener!r}",
                name="listeners",
            )
        self.host = parts.hostname or "0.0.0.0"  # Kafka Connect's default binds all
        self.port = parts.port if parts.port is not None else 8083
        config = uvicorn.Config(
            app, host=self.host, port=self.port, log_level="warning", access_log=False
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="rest", daemon=True)

    def start(self, timeout_s: float = 10.0) -> None:
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise ConfigError(
                    f"listeners: cannot serve the REST API on {self.host}:{self.port} (port in use?)",
                    name="listeners",
                )
            time.sleep(0.02)
        if self.port == 0:
            self.port = self._server.servers[0].sockets[0].getsockname()[1]
        log.info("REST API listening on http://%s:%d", self.host, self.port)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
