"""The REST API, with Apache Kafka Connect's paths, JSON bodies and status codes.

Served by FastAPI/uvicorn on ``listeners`` (http or https); the OpenAPI document is at
``/openapi.json``. Every error is Kafka's ``{"error_code": …, "message": …}``; PASSWORD-typed
values and values resolved from config providers are never returned.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from kconnect_sdk import AlreadyExistsError, ConfigError, ConnectError, NotFoundError
from starlette.exceptions import HTTPException as StarletteHTTPException

from kconnect_runtime._version import __version__
from kconnect_runtime.herder import NotReadyError, RebalanceInProgressError, WorkerApi
from kconnect_runtime.storage import BadRequestError, ForbiddenError

from ._admin import admin_router
from ._auth import BasicAuthMiddleware
from ._connectors import connectors_router
from ._credentials import ForwardCredentialsMiddleware
from ._extensions import RestExtensions
from ._middleware import AccessLogMiddleware, RequestShapeMiddleware
from ._plugins import plugins_router
from ._ui import add_cors, mount_ui
from ._views import error

__all__ = ["add_error_handlers", "create_app"]

log = logging.getLogger("kconnect.rest")

_USER_ERROR_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (NotFoundError, 404),
    (AlreadyExistsError, 409),
    (ConfigError, 400),
    (BadRequestError, 400),
    (ForbiddenError, 403),
    (RebalanceInProgressError, 409),  # distributed mode: retry after the rebalance
    (NotReadyError, 503),  # distributed mode: the config topic is not read to its end yet
)


def _status_handler(status: int) -> Any:
    async def handle(request: Request, exc: Exception) -> JSONResponse:
        return error(status, str(exc))

    return handle


def create_app(
    worker: WorkerApi,
    *,
    kafka_cluster_id: str | None = None,
    basic_auth_users: dict[str, str] | None = None,
    cors_allow_origin: str | None = None,
    cors_allow_methods: str | None = None,
    access_log: bool = False,
    extensions: RestExtensions | None = None,
) -> FastAPI:
    """The FastAPI application serving ``worker``: Kafka Connect's REST API.

    The routes are grouped by resource (``_connectors``, ``_plugins``, ``_admin``); each asks
    the worker through :class:`~kconnect_runtime.worker.WorkerApi` only. The web console
    is at ``/ui``; ``cors_allow_origin``/``cors_allow_methods`` are Kafka's
    ``access.control.allow.origin``/``.methods`` worker keys; ``access_log`` (the worker key
    ``rest.access.log.enable``) logs one line per request on ``kconnect.rest.access``.
    ``extensions`` (``rest.extension.classes``) add routes, middleware and request filters;
    their filters run after kconnect's own basic auth, so both must let a request through.
    """
    app = FastAPI(title="kconnect REST API", version=__version__, docs_url=None, redoc_url=None)
    app.include_router(admin_router(worker, kafka_cluster_id=kafka_cluster_id))
    app.include_router(connectors_router(worker))
    app.include_router(plugins_router(worker))
    mount_ui(app)  # the web console at /ui
    # Middleware added later wraps what was added before.
    app.add_middleware(ForwardCredentialsMiddleware)  # forwarded requests carry them
    if extensions is not None:
        extensions.register(app, worker, kafka_cluster_id=kafka_cluster_id)
    if basic_auth_users is not None:
        app.add_middleware(BasicAuthMiddleware, users=basic_auth_users)
    # Jersey's paths (trailing slash, encoded names), 413 and 415; outside basic
    # auth, so an oversized body is refused before anything reads it.
    app.add_middleware(RequestShapeMiddleware)
    # CORS wraps basic auth (added after it), so preflights need no credentials.
    add_cors(app, cors_allow_origin, cors_allow_methods)
    if access_log:
        app.add_middleware(AccessLogMiddleware)  # outermost: it sees every answer

    add_error_handlers(app)
    return app


def add_error_handlers(app: FastAPI) -> None:
    """Kafka's error answers on ``app``: ``{"error_code": …, "message": …}`` with the status
    code Kafka gives each error (the public API's and the internal MirrorMaker server's)."""
    # A user's mistake gets Kafka's status code and the error's own message.
    for error_class, status in _USER_ERROR_STATUS:
        app.add_exception_handler(error_class, _status_handler(status))

    @app.exception_handler(ConnectError)
    async def _connect_error(request: Request, exc: ConnectError) -> JSONResponse:
        log.error("%s %s failed: %s", request.method, request.url.path, exc)
        return error(500, str(exc))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed unexpectedly", request.method, request.url.path, exc_info=exc)
        return error(500, f"Internal error: {type(exc).__name__}: {exc}")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # Routing's own refusals (no such path, method not allowed) read as Jersey's
        # WebApplicationException messages: "HTTP 404 Not Found".
        detail = str(exc.detail)
        try:
            phrase = HTTPStatus(exc.status_code).phrase
        except ValueError:
            phrase = None
        if detail == phrase:
            detail = f"HTTP {exc.status_code} {phrase}"
        return error(exc.status_code, detail)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for e in exc.errors():
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body")
            parts.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return error(400, "Invalid request: " + "; ".join(parts))
