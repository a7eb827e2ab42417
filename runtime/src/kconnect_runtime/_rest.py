"""The REST API, with Apache Kafka Connect's paths, JSON bodies and status codes.

Served by FastAPI/uvicorn on ``listeners`` (http or https); the OpenAPI document is at
``/openapi.json``. Every error is Kafka's ``{"error_code": …, "message": …}``; PASSWORD-typed
values and values resolved from config providers are never returned.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from kconnect_sdk import (
    AlreadyExistsError,
    ConfigError,
    ConfigType,
    ConnectError,
    NotFoundError,
)
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from . import __version__
from ._control import BadRequestError, ForbiddenError
from ._loggers import LoggerLevels
from ._metrics import render_prometheus
from ._registry import CONNECTOR_KINDS, PluginKind
from ._status import TargetState
from ._validation import HIDDEN, config_infos, config_key_info
from ._worker import Worker

__all__ = ["RestServer", "create_app"]

log = logging.getLogger("kconnect.rest")

_HIDDEN = HIDDEN


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error_code": status, "message": message}, status_code=status)


def _mask(worker: Worker, name: str, config: Mapping[str, str]) -> dict[str, str]:
    """``config`` with PASSWORD-typed values hidden (placeholders stay as written)."""
    runtime = worker.get(name)
    out = dict(config)
    try:
        keys = runtime.instance.config().config_keys
    except Exception:  # a broken config() must not break status pages
        keys = {}
    for key, definition in keys.items():
        if definition.type is ConfigType.PASSWORD and key in out and not out[key].startswith("${"):
            out[key] = _HIDDEN
    return out


def _masked_config(worker: Worker, name: str) -> dict[str, str]:
    return _mask(worker, name, worker.get(name).raw_config)


def _string_config(body: Mapping[str, Any], *, allow_null: bool = False) -> dict[str, Any]:
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


class CreateConnectorRequest(BaseModel):
    """Body of ``POST /connectors``."""

    name: str
    config: dict[str, Any] | None = None
    initial_state: Literal["RUNNING", "PAUSED", "STOPPED"] | None = None


class OffsetsRequest(BaseModel):
    """Body of ``PATCH /connectors/{name}/offsets``."""

    offsets: list[dict[str, Any]]


class LoggerLevelRequest(BaseModel):
    """Body of ``PUT /admin/loggers/{name}``."""

    level: str


_INITIAL_STATES = {
    "RUNNING": TargetState.STARTED,
    "PAUSED": TargetState.PAUSED,
    "STOPPED": TargetState.STOPPED,
}


_USER_ERROR_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (NotFoundError, 404),
    (AlreadyExistsError, 409),
    (ConfigError, 400),
    (BadRequestError, 400),
    (ForbiddenError, 403),
)


def _status_handler(status: int) -> Any:
    async def handle(request: Request, exc: Exception) -> JSONResponse:
        return _error(status, str(exc))

    return handle


def create_app(
    worker: Worker,
    *,
    kafka_cluster_id: str | None = None,
    basic_auth_users: dict[str, str] | None = None,
) -> FastAPI:
    """The FastAPI application serving ``worker``."""
    app = FastAPI(title="kconnect REST API", version=__version__, docs_url=None, redoc_url=None)
    loggers = LoggerLevels()
    if basic_auth_users is not None:
        from ._rest_auth import BasicAuthMiddleware

        app.add_middleware(BasicAuthMiddleware, users=basic_auth_users)

    # A user's mistake gets Kafka's status code and the error's own message.
    for error_class, status in _USER_ERROR_STATUS:
        app.add_exception_handler(error_class, _status_handler(status))

    @app.exception_handler(ConnectError)
    async def _connect_error(request: Request, exc: ConnectError) -> JSONResponse:
        log.error("%s %s failed: %s", request.method, request.url.path, exc)
        return _error(500, str(exc))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed unexpectedly", request.method, request.url.path, exc_info=exc)
        return _error(500, f"Internal error: {type(exc).__name__}: {exc}")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors():
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
            parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return _error(400, "Invalid request: " + "; ".join(parts))

    # -- worker ------------------------------------------------------------------------
    @app.get("/")
    def root() -> dict[str, Any]:
        return {"version": __version__, "commit": "unknown", "kafka_cluster_id": kafka_cluster_id}

    @app.get("/health")
    def health() -> JSONResponse:
        if not worker.started.is_set():
            return JSONResponse(
                {
                    "status": "starting",
                    "message": "Worker is still starting up: recovering and creating connectors.",
                },
                status_code=503,
            )
        return JSONResponse(
            {
                "status": "healthy",
                "message": "Worker has completed startup and is ready to handle requests.",
            }
        )

    # -- connectors --------------------------------------------------------------------
    @app.get("/connectors", response_model=None)
    def list_connectors(expand: list[str] = Query(default=[])) -> Any:  # noqa: B008  # FastAPI idiom
        names = sorted(worker.connectors)
        if not expand:
            return names
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            entry: dict[str, Any] = {}
            try:
                if "status" in expand:
                    entry["status"] = worker.connector_status(name)
                if "info" in expand:
                    entry["info"] = {
                        **worker.connector_info(name),
                        "config": _masked_config(worker, name),
                    }
            except NotFoundError:
                continue  # deleted while listing
            out[name] = entry
        return out

    def _info(name: str) -> dict[str, Any]:
        return {**worker.connector_info(name), "config": _masked_config(worker, name)}

    @app.post("/connectors", status_code=201)
    def create_connector(request: CreateConnectorRequest) -> JSONResponse:
        config = _string_config(request.config or {})
        name = request.name.strip()
        if not name:
            raise ConfigError("Connector name must not be empty", name="name")
        if config.get("name", name) != name:
            raise ConfigError(
                f"Connector name configuration ({config['name']}) doesn't match connector name "
                f"in the URL ({name})",
                name="name",
            )
        config["name"] = name
        state = _INITIAL_STATES[request.initial_state or "RUNNING"]
        worker.create_connector(config, initial_state=state)
        return JSONResponse(
            _info(name), status_code=201, headers={"Location": f"/connectors/{quote(name)}"}
        )

    @app.get("/connectors/{name}")
    def connector_info(name: str) -> dict[str, Any]:
        return _info(name)

    @app.delete("/connectors/{name}", status_code=204)
    def delete_connector(name: str) -> Response:
        worker.delete_connector(name)
        return Response(status_code=204)

    @app.get("/connectors/{name}/config")
    def connector_config(name: str) -> dict[str, str]:
        return _masked_config(worker, name)

    @app.put("/connectors/{name}/config")
    def put_connector_config(name: str, config: dict[str, Any] = Body(...)) -> JSONResponse:  # noqa: B008
        created, _ = worker.put_connector_config(name, _string_config(config))
        headers = {"Location": f"/connectors/{quote(name)}"} if created else None
        return JSONResponse(_info(name), status_code=201 if created else 200, headers=headers)

    @app.patch("/connectors/{name}/config")
    def patch_connector_config(name: str, patch: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
        worker.patch_connector_config(name, _string_config(patch, allow_null=True))
        return _info(name)

    @app.get("/connectors/{name}/status")
    def connector_status(name: str) -> dict[str, Any]:
        return worker.connector_status(name)

    @app.get("/connectors/{name}/tasks")
    def connector_tasks(name: str) -> list[dict[str, Any]]:
        return [{**t, "config": _mask(worker, name, t["config"])} for t in worker.task_list(name)]

    @app.get("/connectors/{name}/tasks/{task}/status")
    def task_status(name: str, task: int) -> dict[str, Any]:
        return worker.task_status(name, task)

    @app.post("/connectors/{name}/tasks/{task}/restart", status_code=204)
    def restart_task(name: str, task: int) -> Response:
        worker.restart_task(name, task)
        return Response(status_code=204)

    @app.post("/connectors/{name}/restart", response_model=None)
    def restart_connector(
        name: str,
        includeTasks: bool = False,
        onlyFailed: bool = False,  # Kafka's names
    ) -> Any:
        status = worker.restart_connector(name, include_tasks=includeTasks, only_failed=onlyFailed)
        if status is None:
            return Response(status_code=204)
        return JSONResponse(status, status_code=202)

    @app.put("/connectors/{name}/pause", status_code=202)
    def pause_connector(name: str) -> Response:
        worker.pause_connector(name)
        return Response(status_code=202)

    @app.put("/connectors/{name}/resume", status_code=202)
    def resume_connector(name: str) -> Response:
        worker.resume_connector(name)
        return Response(status_code=202)

    @app.put("/connectors/{name}/stop", status_code=204)
    def stop_connector(name: str) -> Response:
        worker.stop_connector(name)
        return Response(status_code=204)

    @app.get("/connectors/{name}/topics")
    def connector_topics(name: str) -> dict[str, Any]:
        return {name: {"topics": worker.connector_topics(name)}}

    @app.put("/connectors/{name}/topics/reset", status_code=202)
    def reset_topics(name: str) -> Response:
        worker.reset_topics(name)
        return Response(status_code=202)

    @app.get("/connectors/{name}/offsets")
    def connector_offsets(name: str) -> dict[str, Any]:
        return {"offsets": worker.connector_offsets(name)}

    @app.patch("/connectors/{name}/offsets")
    def alter_offsets(name: str, request: OffsetsRequest) -> dict[str, str]:
        return {"message": worker.alter_offsets(name, request.offsets)}

    @app.delete("/connectors/{name}/offsets")
    def reset_offsets(name: str) -> dict[str, str]:
        return {"message": worker.reset_offsets(name)}

    # -- plugins -----------------------------------------------------------------------
    @app.get("/connector-plugins")
    def connector_plugins(connectorsOnly: bool = True) -> list[dict[str, str]]:  # Kafka's name
        """Every plugin of the kinds asked for, one entry per installed version (KIP-891)."""
        kinds = (
            CONNECTOR_KINDS
            if connectorsOnly
            else tuple(k for k in PluginKind if k is not PluginKind.CONFIG_PROVIDER)
        )
        listed: dict[tuple[str, str, str], dict[str, str]] = {}
        for p in worker.registry.plugins(*kinds):
            entry = p.to_rest()
            # One version found in two places (a location and the runtime) is one entry.
            listed.setdefault((entry["class"], entry["type"], entry["version"]), entry)
        return list(listed.values())

    @app.get("/connector-plugins/{plugin}/config")
    def plugin_config(plugin: str, version: str | None = None) -> list[dict[str, Any]]:
        """The plugin's config definition, of ``version`` (KIP-891; default the newest)."""
        kinds = tuple(k for k in PluginKind if k is not PluginKind.CONFIG_PROVIDER)
        desc = worker.registry.resolve(plugin, *kinds, version=version)
        try:
            definition = desc.load()().config()
        except ConfigError:
            raise
        except Exception as exc:
            raise BadRequestError(f"plugin {plugin!r} cannot describe its config: {exc}") from None
        return [config_key_info(k) for k in definition.config_keys.values() if not k.internal]

    @app.put("/connector-plugins/{plugin}/config/validate")
    def validate_config(plugin: str, config: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
        props = _string_config(config)
        props.setdefault("connector.class", plugin)
        requested = worker.registry.resolve(plugin, *CONNECTOR_KINDS, key="connector.class")
        included = worker.registry.resolve(
            props["connector.class"], *CONNECTOR_KINDS, key="connector.class"
        )
        if requested.name != included.name:
            raise BadRequestError(
                f"Included connector type {props['connector.class']} does not match request "
                f"type {plugin}"
            )
        return config_infos(worker.registry, worker.worker_props, props)

    # -- loggers (KIP-495) -------------------------------------------------------------
    @app.get("/admin/loggers")
    def list_loggers() -> dict[str, dict[str, Any]]:
        return loggers.all()

    @app.get("/admin/loggers/{logger}")
    def get_logger(logger: str) -> dict[str, Any]:
        return loggers.get(logger)

    @app.put("/admin/loggers/{logger}", response_model=None)
    def set_logger(logger: str, request: LoggerLevelRequest, scope: str = "worker") -> Any:
        if scope.lower() not in ("worker", "cluster"):
            raise BadRequestError(f"Invalid scope '{scope}'; use 'worker' or 'cluster'")
        affected = loggers.set(logger, request.level)
        if scope.lower() == "cluster":
            # One worker per cluster here, so the cluster scope is this worker's.
            return Response(status_code=204)
        return affected

    @app.get("/metrics", include_in_schema=False)
    def metrics() -> Response:
        """Kafka Connect's metrics in Prometheus text format."""
        return Response(
            render_prometheus(worker), media_type="text/plain; version=0.0.4; charset=utf-8"
        )

    return app


class RestServer:
    """uvicorn serving the app on a background thread, over http or https."""

    def __init__(
        self,
        app: FastAPI,
        listener: str,
        *,
        ssl_certificate: str | None = None,
        ssl_key: str | None = None,
        ssl_key_password: str | None = None,
    ) -> None:
        import uvicorn

        parts = urlsplit(listener if "//" in listener else f"http://{listener}")
        if parts.scheme not in ("http", "https"):
            raise ConfigError(
                f"listeners: only http:// and https:// listeners are supported, got {listener!r}",
                name="listeners",
            )
        self.scheme = parts.scheme
        ssl: dict[str, Any] = {}
        if self.scheme == "https":
            if not ssl_certificate or not ssl_key:
                raise ConfigError(
                    f"listeners: {listener!r} needs listeners.https.ssl.certificate.location and "
                    "listeners.https.ssl.key.location (PEM files)",
                    name="listeners.https.ssl.certificate.location",
                )
            ssl = {
                "ssl_certfile": ssl_certificate,
                "ssl_keyfile": ssl_key,
                "ssl_keyfile_password": ssl_key_password,
            }
        self.host = parts.hostname or "0.0.0.0"  # Kafka Connect's default binds all
        self.port = parts.port if parts.port is not None else 8083
        config = uvicorn.Config(
            app, host=self.host, port=self.port, log_level="warning", access_log=False, **ssl
        )
        try:
            config.load()
        except Exception as exc:
            raise ConfigError(
                f"listeners: cannot set up {listener!r}: {exc}", name="listeners"
            ) from None
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
        log.info("REST API listening on %s://%s:%d", self.scheme, self.host, self.port)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"{self.scheme}://{host}:{self.port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
