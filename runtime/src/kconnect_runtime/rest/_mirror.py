"""The internal REST server of a dedicated MirrorMaker node (KIP-710).

Kafka's ``MirrorRestServer`` with its ``InternalMirrorResource``: with
``dedicated.mode.enable.internal.rest=true`` a node serves, on the ``listeners`` of its
``mm2.properties``, only what the members of a flow's group send one another, each flow
under its own path::

    POST /{source}/{target}/connectors/{connector}/tasks    task configs for the leader
    PUT  /{source}/{target}/connectors/{connector}/fence    zombie fencing by the leader

Both are signed with the flow's session key (KIP-507) and checked by the flow's herder.
Nothing else is served: no connector can be listed, read or changed through this server.
Every request gets an access log line, as Kafka's REST servers log each one.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

from fastapi import FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool
from kconnect_sdk import NotFoundError
from starlette.exceptions import HTTPException as StarletteHTTPException

from kconnect_runtime._version import __version__
from kconnect_runtime.herder import NotReadyError, WorkerApi

from ._app import add_error_handlers
from ._connectors import task_configs_body
from ._middleware import AccessLogMiddleware

__all__ = ["internal_mirror_app"]

HerderFor = Callable[[str, str], "WorkerApi | None"]
"""The herder of flow (source, target) on this node; None while it is starting. Raises
:class:`KeyError` when the node runs no such flow."""


def _segments(request: Request) -> list[str]:
    # Read from the raw path: a name with an encoded '/' stays one segment.
    raw: bytes = request.scope.get("raw_path") or request.url.path.encode()
    parts = raw.decode("latin-1").split("/")[1:]
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # a trailing slash, served as Jersey serves it
    return [unquote(p) for p in parts]


def internal_mirror_app(herder_for: HerderFor) -> FastAPI:
    """The application of a node's internal server, answering for the flows ``herder_for``
    knows."""
    app = FastAPI(
        title="kconnect MirrorMaker internal REST",
        version=__version__,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )

    def herder(source: str, target: str) -> WorkerApi:
        try:
            found = herder_for(source, target)
        except KeyError:
            raise NotFoundError(
                f"No replication flow found for source '{source}' and target '{target}'"
            ) from None
        if found is None:
            raise NotReadyError(
                f"The replication flow {source}->{target} is still starting on this node"
            )
        return found

    @app.api_route("/{path:path}", methods=["GET", "POST", "PUT", "DELETE", "PATCH"])
    async def internal(path: str, request: Request) -> Response:
        segments = _segments(request)
        if len(segments) != 5 or segments[2] != "connectors" or not segments[3]:
            raise StarletteHTTPException(404)
        source, target, _, connector, action = segments
        allowed = {"tasks": "POST", "fence": "PUT"}.get(action)
        if allowed is None:
            raise StarletteHTTPException(404)
        if request.method != allowed:
            raise StarletteHTTPException(405)
        body = await request.body()
        flow = herder(source, target)
        if action == "tasks":
            await run_in_threadpool(
                flow.put_task_configs,
                connector,
                task_configs_body(body),
                headers=request.headers,
                body=body,
            )
        else:
            await run_in_threadpool(
                flow.fence_zombies, connector, headers=request.headers, body=body
            )
        return Response(status_code=204)

    add_error_handlers(app)
    app.add_middleware(AccessLogMiddleware)
    return app
