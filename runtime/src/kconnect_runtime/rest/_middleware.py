"""ASGI middleware in front of the routes: paths as Kafka's Jersey serves them, body limits,
media types, and the optional access log.

* A trailing slash is served like the path without it (Jersey does; Starlette would answer
  307), except under ``/ui/``, whose directory index needs it.
* A connector name is one path segment however it is spelled: ``/connectors/a%2Fb/status``
  addresses connector ``a/b``. The server decodes ``%2F`` before routing, so the segment is
  re-read from the raw path and handed to the routes percent-encoded (:func:`connector_name`
  decodes it again); names with ``/``, ``..``, ``%`` or ``/`` alone stay reachable.
* A body that is not JSON (a ``Content-Type`` other than ``application/json`` or ``*+json``)
  answers 415, as Jersey's ``@Consumes(APPLICATION_JSON)``; a body larger than
  :data:`MAX_BODY_BYTES` answers 413 before it is read into memory.
"""

from __future__ import annotations

import json
import logging
import time
from urllib.parse import quote, unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "MAX_BODY_BYTES",
    "AccessLogMiddleware",
    "RequestShapeMiddleware",
    "connector_name",
    "rest_user",
]

MAX_BODY_BYTES = 1024 * 1024
"""Largest request body accepted (1 MiB): a connector config is a few kB at most."""

USER_SCOPE_KEY = "kconnect.rest.user"
"""Where basic auth leaves the authenticated user name in the ASGI scope."""

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_CONNECTORS = "/connectors/"

access_log = logging.getLogger("kconnect.rest.access")


def connector_name(segment: str) -> str:
    """The connector name a route's ``{name}`` path segment stands for."""
    return unquote(segment)


def rest_user(scope: Scope) -> str | None:
    """The basic-auth user of a request, when basic auth is on."""
    user = scope.get(USER_SCOPE_KEY)
    return user if isinstance(user, str) else None


async def _error(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error_code": status, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _normalized_path(scope: Scope) -> str:
    """The path to route: trailing slash dropped, a connector name as one encoded segment."""
    path: str = scope["path"]
    raw_bytes = scope.get("raw_path")
    raw = raw_bytes.decode("latin-1") if raw_bytes else quote(path)
    if raw.startswith(_CONNECTORS) and len(raw) > len(_CONNECTORS):
        segments = raw[len(_CONNECTORS) :].split("/")
        if len(segments) > 1 and segments[-1] == "":
            segments.pop()  # /connectors/x/ is /connectors/x
        name = unquote(segments[0])
        rest = "".join("/" + unquote(s) for s in segments[1:])
        return _CONNECTORS + quote(name, safe="") + rest
    if len(path) > 1 and path.endswith("/") and not path.startswith("/ui/"):
        return path.rstrip("/") or "/"
    return path


def _media_type(scope: Scope) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-type":
            text: str = value.decode("latin-1")
            return text.split(";", 1)[0].strip().lower()
    return None


def _content_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class RequestShapeMiddleware:
    """Routes paths as Jersey does; refuses bodies that are too large (413) or not JSON (415)."""

    def __init__(self, app: ASGIApp, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = _normalized_path(scope)
        if path != scope["path"]:
            # In place: outer middleware (the access log) reads what inner ones add.
            scope["path"] = path
            scope["raw_path"] = path.encode()
        if scope["method"] in _BODY_METHODS and not path.startswith("/ui"):
            length = _content_length(scope)
            too_large = (
                f"Request body too large: the REST API accepts at most {self.max_body_bytes} "
                "bytes (a connector config is usually a few kB); send a smaller body"
            )
            if length is not None and length > self.max_body_bytes:
                await _error(send, 413, too_large)
                return
            media = _media_type(scope)
            json_media = media is None or media == "application/json" or media.endswith("+json")
            if not json_media and length != 0:
                # Jersey's words for @Consumes(APPLICATION_JSON) refusing a body.
                await _error(send, 415, "HTTP 415 Unsupported Media Type")
                return
            receive, send = self._bounded(receive, send, too_large)
        await self.app(scope, receive, send)

    def _bounded(self, receive: Receive, send: Send, message: str) -> tuple[Receive, Send]:
        """``receive`` that stops a body (chunked, no Content-Length) past the limit.

        Past it, the client gets 413 at once, the application sees the client gone, and
        what it answers then is dropped.
        """
        seen = 0
        refused = False
        limit = self.max_body_bytes

        async def bounded_receive() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            got = await receive()
            if got["type"] == "http.request":
                seen += len(got.get("body", b""))
                if seen > limit:
                    refused = True
                    await _error(send, 413, message)
                    return {"type": "http.disconnect"}
            return got

        async def guarded_send(outgoing: Message) -> None:
            if not refused:
                await send(outgoing)

        return bounded_receive, guarded_send


class AccessLogMiddleware:
    """One INFO line per request on ``kconnect.rest.access``: method, path, status, time.

    On with the worker key ``rest.access.log.enable``. The query string is left out (it may
    carry nothing secret today, but a line per request should stay short and safe).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = [500]

        async def recording(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, recording)
        finally:
            user = rest_user(scope)
            access_log.info(
                "%s %s %d %.1f ms%s",
                scope["method"],
                _shown_path(scope),
                status[0],
                (time.perf_counter() - started) * 1000,
                f" user={user}" if user else "",
            )


def _shown_path(scope: Scope) -> str:
    raw = scope.get("raw_path")
    path: str = raw.decode("latin-1") if raw else scope["path"]
    # A path is bounded by the server's request-line limit; keep one log line short anyway.
    return path if len(path) <= 300 else path[:300] + f"...({len(path)} chars)"
