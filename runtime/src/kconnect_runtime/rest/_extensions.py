"""REST extensions (``rest.extension.classes``): loaded at start, registered into the app.

The worker loads and configures every extension before it connects to Kafka, so an unknown
class or a bad setup (a JAAS file that does not parse) stops it at once, naming the key.
Registration comes later, when the REST application is built, because an extension may
read the cluster's state through the herder.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from fastapi import FastAPI
from kconnect_sdk import (
    ConfigError,
    ConnectClusterState,
    ConnectRestExtension,
    ConnectRestExtensionContext,
    RequestFilter,
    RestEndpoint,
    RestRequest,
    RestResponse,
)
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kconnect_runtime.herder import WorkerApi
from kconnect_runtime.plugins import PluginKind, PluginRegistry

from ._middleware import USER_SCOPE_KEY, rest_user

__all__ = ["REST_EXTENSION_CLASSES_CONFIG", "RestExtensions"]

REST_EXTENSION_CLASSES_CONFIG = "rest.extension.classes"

log = logging.getLogger("kconnect.rest")


class RestExtensions:
    """The REST extensions a worker config names, created and configured, in order."""

    def __init__(self, extensions: Sequence[tuple[str, ConnectRestExtension]] = ()) -> None:
        self.extensions = list(extensions)

    @classmethod
    def from_worker_config(
        cls, registry: PluginRegistry, worker_props: Mapping[str, str]
    ) -> RestExtensions:
        """Load and configure every class ``rest.extension.classes`` names.

        Raises:
            ConfigError: naming ``rest.extension.classes`` and the class, when one is unknown,
                cannot be loaded, or refuses its configuration (each already created is
                closed).
        """
        raw = str(worker_props.get(REST_EXTENSION_CLASSES_CONFIG) or "")
        names = [n.strip() for n in raw.split(",") if n.strip()]
        made = cls()
        try:
            for name in names:
                extension_cls = registry.load(
                    name, PluginKind.REST_EXTENSION, key=REST_EXTENSION_CLASSES_CONFIG
                )
                try:
                    extension: ConnectRestExtension = extension_cls()
                    made.extensions.append((name, extension))
                    extension.configure(dict(worker_props))
                except Exception as exc:
                    raise ConfigError(
                        f"config {REST_EXTENSION_CLASSES_CONFIG!r}: REST extension {name!r} "
                        f"cannot be configured: {exc}",
                        name=REST_EXTENSION_CLASSES_CONFIG,
                        value=name,
                    ) from exc
        except BaseException:
            made.close()
            raise
        return made

    def register(self, app: FastAPI, worker: WorkerApi, *, kafka_cluster_id: str | None) -> None:
        """Let each extension add to ``app``; its filters then sit in front of the routes.

        Raises:
            ConfigError: naming ``rest.extension.classes`` when an extension's ``register``
                fails or takes a path kconnect serves.
        """
        if not self.extensions:
            return
        context = _Context(app, _ClusterState(worker, kafka_cluster_id))
        for name, extension in self.extensions:
            context.current = name
            try:
                extension.register(context)
            except ConfigError as exc:
                raise ConfigError(
                    f"config {REST_EXTENSION_CLASSES_CONFIG!r}: REST extension {name!r}: {exc}",
                    name=REST_EXTENSION_CLASSES_CONFIG,
                    value=name,
                ) from exc
            except Exception as exc:
                raise ConfigError(
                    f"config {REST_EXTENSION_CLASSES_CONFIG!r}: REST extension {name!r} failed "
                    f"to register: {type(exc).__name__}: {exc}",
                    name=REST_EXTENSION_CLASSES_CONFIG,
                    value=name,
                ) from exc
            log.info("registered REST extension %s", name)
        for middleware, options in context.middleware:
            app.add_middleware(middleware, **options)
        if context.filters:
            app.add_middleware(RequestFilterMiddleware, filters=context.filters)

    def close(self) -> None:
        for name, extension in self.extensions:
            try:
                extension.close()
            except Exception:
                log.exception("REST extension %s: close() raised", name)
        self.extensions.clear()


class _ClusterState(ConnectClusterState):
    def __init__(self, worker: WorkerApi, kafka_cluster_id: str | None) -> None:
        self._worker = worker
        self._cluster_id = kafka_cluster_id

    def connectors(self) -> list[str]:
        return self._worker.connector_names()

    def connector_health(self, name: str) -> dict[str, Any]:
        return self._worker.connector_status(name)

    def connector_config(self, name: str) -> dict[str, str]:
        config: dict[str, str] = dict(self._worker.connector_info(name)["config"])
        return config

    def kafka_cluster_id(self) -> str | None:
        return self._cluster_id


class _Context(ConnectRestExtensionContext):
    def __init__(self, app: FastAPI, state: ConnectClusterState) -> None:
        self._app = app
        self._state = state
        self.current = ""
        self.filters: list[RequestFilter] = []
        self.middleware: list[tuple[Callable[..., Any], dict[str, Any]]] = []

    @property
    def cluster_state(self) -> ConnectClusterState:
        return self._state

    def add_request_filter(self, request_filter: RequestFilter) -> None:
        self.filters.append(request_filter)

    def add_route(
        self, path: str, endpoint: RestEndpoint, *, methods: Sequence[str] = ("GET",)
    ) -> None:
        taken = {getattr(route, "path", None) for route in self._app.router.routes}
        if path in taken:
            raise ConfigError(f"the path {path} is kconnect's own; choose another")

        async def handle(request: Request) -> Response:
            body = await request.body()
            answer = await run_in_threadpool(endpoint, _rest_request(request.scope, body))
            return _response(answer)

        self._app.router.add_route(path, handle, methods=[m.upper() for m in methods])

    def add_asgi_middleware(self, middleware: Callable[..., Any], **options: Any) -> None:
        self.middleware.append((middleware, options))


def _rest_request(scope: Scope, body: bytes) -> RestRequest:
    headers: dict[str, str] = {}
    for key, value in scope.get("headers", ()):
        name = key.decode("latin-1").lower()
        text = value.decode("latin-1")
        headers[name] = f"{headers[name]}, {text}" if name in headers else text
    client = scope.get("client")
    return RestRequest(
        method=scope["method"],
        path=scope["path"],
        headers=headers,
        query=scope.get("query_string", b"").decode("latin-1"),
        body=body,
        scheme=scope.get("scheme", "http"),
        client=f"{client[0]}:{client[1]}" if client else None,
        user=rest_user(scope),
    )


def _response(answer: RestResponse) -> Response:
    body = answer.body.encode() if isinstance(answer.body, str) else answer.body
    response = Response(body, status_code=answer.status, headers=dict(answer.headers))
    if answer.media_type is not None:
        response.headers["content-type"] = answer.media_type
    return response


class RequestFilterMiddleware:
    """Runs the extensions' request filters in front of the routes, as JAX-RS runs a
    ``ContainerRequestFilter``: after matching, so a request for a path nobody serves is
    answered 404 (or 405) whatever the filters would say."""

    def __init__(self, app: ASGIApp, filters: Sequence[RequestFilter]) -> None:
        self.app = app
        self.filters = list(filters)
        self._router: Any = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self._matches(scope):
            await self.app(scope, receive, send)
            return
        body, receive = await _buffered(receive)
        request = _rest_request(scope, body)
        for request_filter in self.filters:
            try:
                answer = await run_in_threadpool(request_filter, request)
            except Exception as exc:
                # As Kafka's ConnectExceptionMapper: a filter's exception is a 500 with its message.
                log.error("%s %s: a REST extension filter failed", scope["method"], scope["path"])
                answer = RestResponse.json(500, {"error_code": 500, "message": str(exc)})
            if isinstance(answer, RestResponse):
                await _response(answer)(scope, receive, send)
                return
            if isinstance(answer, str):
                scope[USER_SCOPE_KEY] = answer
                request = replace(request, user=answer)
        await self.app(scope, receive, send)

    def _matches(self, scope: Scope) -> bool:
        router = scope.get("router") or scope.get("app")
        routes = getattr(getattr(router, "router", router), "routes", None)
        if routes is None:
            return True
        # Only a full match (path and method) reaches the filters, as in Jersey.
        return any(route.matches(scope)[0] is Match.FULL for route in routes)


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a ``receive`` that hands it to the app again."""
    chunks: list[bytes] = []
    ended: Message | None = None
    while True:
        message = await receive()
        if message["type"] != "http.request":
            ended = message
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            if ended is not None:
                return ended
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay
