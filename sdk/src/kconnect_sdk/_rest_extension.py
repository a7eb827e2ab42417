"""REST extensions: plugins that add to the worker's REST API (Kafka's ``ConnectRestExtension``).

A worker loads the classes its ``rest.extension.classes`` names (comma-separated), in that
order, once at start: each is created, given the worker config through
:meth:`ConnectRestExtension.configure`, then passed to :meth:`ConnectRestExtension.register`
with a :class:`ConnectRestExtensionContext` through which it adds

* **request filters** (as JAX-RS ``ContainerRequestFilter``): called for every request the
  API routes (a path and method it serves; others answer 404 or 405 first), before the
  route runs; returning a :class:`RestResponse` answers the request with it (e.g. 401), a
  ``str`` lets it through as that authenticated user, None lets it through;
* **routes**: new paths answered by a plain function of a :class:`RestRequest`;
* **ASGI middleware**, for anything else (response headers, timing, tracing);

and reads the cluster's connectors and their statuses through
:attr:`ConnectRestExtensionContext.cluster_state`. Extensions are plugins of the
``kconnect.rest_extensions`` entry-point group. The SDK types here are plain data: an
extension needs no web framework::

    class AuditExtension(ConnectRestExtension):
        def register(self, context: ConnectRestExtensionContext) -> None:
            def audit(request: RestRequest) -> RestResponse | None:
                if request.method != "GET":
                    log.info("%s %s by %s", request.method, request.path, request.user)
                return None

            context.add_request_filter(audit)
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._versioned import Versioned

__all__ = [
    "ConnectClusterState",
    "ConnectRestExtension",
    "ConnectRestExtensionContext",
    "RequestFilter",
    "RestEndpoint",
    "RestRequest",
    "RestResponse",
]


@dataclass(frozen=True, slots=True)
class RestRequest:
    """One request to the REST API, as filters and extension routes see it.

    Attributes:
        method: ``GET``, ``POST``, ...
        path: the path as routed, with a leading slash (``/connectors/orders/status``).
        headers: header names lower-cased; repeated headers joined with ``", "``.
        query: the raw query string (no ``?``).
        body: the request body (at most 1 MiB: larger ones are refused before filters run).
        scheme: ``http`` or ``https``.
        client: the peer's address, when known.
        user: the user an earlier filter or kconnect's basic auth authenticated, if any.
    """

    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    query: str = ""
    body: bytes = b""
    scheme: str = "http"
    client: str | None = None
    user: str | None = None

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (any case), or None."""
        return self.headers.get(name.lower())


@dataclass(frozen=True, slots=True)
class RestResponse:
    """An answer a filter or route gives.

    Attributes:
        status: the HTTP status.
        body: the body; a ``str`` is sent as UTF-8.
        headers: extra response headers.
        media_type: the ``Content-Type``; None sends none.
    """

    status: int
    body: bytes | str = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    media_type: str | None = None

    @classmethod
    def json(cls, status: int, value: Any) -> RestResponse:
        """A JSON answer (``{"error_code": 403, "message": "..."}``, say)."""
        return cls(status, json.dumps(value), media_type="application/json")


RequestFilter = Callable[[RestRequest], "RestResponse | str | None"]
"""A request filter: None lets the request through; a :class:`RestResponse` answers it
instead; a ``str`` lets it through as that authenticated user (the REST access log and
later filters see it as :attr:`RestRequest.user`)."""

RestEndpoint = Callable[[RestRequest], RestResponse]
"""An extension route's handler."""


class ConnectClusterState(ABC):
    """What an extension may read of the cluster (Kafka's ``ConnectClusterState``)."""

    @abstractmethod
    def connectors(self) -> list[str]:
        """The names of the connectors the cluster runs."""

    @abstractmethod
    def connector_health(self, name: str) -> dict[str, Any]:
        """A connector's status, as ``GET /connectors/{name}/status`` answers it.

        Raises:
            NotFoundError: no such connector.
        """

    @abstractmethod
    def connector_config(self, name: str) -> dict[str, str]:
        """A connector's config as submitted (secrets as their placeholders).

        Raises:
            NotFoundError: no such connector.
        """

    @abstractmethod
    def kafka_cluster_id(self) -> str | None:
        """The id of the Kafka cluster the worker uses."""


class ConnectRestExtensionContext(ABC):
    """What :meth:`ConnectRestExtension.register` may add to the REST API."""

    @property
    @abstractmethod
    def cluster_state(self) -> ConnectClusterState:
        """The cluster's connectors and their statuses."""

    @abstractmethod
    def add_request_filter(self, request_filter: RequestFilter) -> None:
        """Run ``request_filter`` on every request, after those added before it.

        Filters run in the order they were added, before kconnect's routes; the first that
        answers ends the request. They run on a thread pool, so they may block briefly.
        """

    @abstractmethod
    def add_route(
        self, path: str, endpoint: RestEndpoint, *, methods: Sequence[str] = ("GET",)
    ) -> None:
        """Answer ``methods`` on ``path`` with ``endpoint``.

        ``path`` may hold Starlette-style parameters (``/audit/{name}``); the endpoint reads
        them from :attr:`RestRequest.path`. A path kconnect already serves cannot be taken.
        """

    @abstractmethod
    def add_asgi_middleware(self, middleware: Callable[..., Any], **options: Any) -> None:
        """Wrap the REST application in an ASGI middleware: ``middleware(app, **options)``.

        Middleware added later wraps that added earlier; all of it sits inside the request
        filters.
        """


class ConnectRestExtension(Versioned):
    """Base of REST extensions (Kafka's ``ConnectRestExtension``).

    One instance per worker: created at start, given the worker config through
    :meth:`configure`, then :meth:`register` once, and :meth:`close` on shutdown. A problem in
    ``configure`` or ``register`` should raise :class:`~kconnect_sdk.ConfigError`: the
    worker then refuses to start, naming ``rest.extension.classes``.
    """

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Receive the worker config (every key, as the worker properties give them)."""

    def register(self, context: ConnectRestExtensionContext) -> None:
        """Add filters, routes or middleware to the REST API through ``context``."""
        raise NotImplementedError

    def close(self) -> None:
        """Release resources; called when the worker stops."""
