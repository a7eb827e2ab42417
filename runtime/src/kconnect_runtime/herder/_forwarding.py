"""What a distributed herder forwards: requests a worker passes to the one that runs the
connector or task, and the errors Kafka answers while a worker cannot serve yet (409 during
a rebalance, 503 while starting).

A forwarded request carries the ``Authorization`` header of the request being served, as
Kafka's ``RestClient`` does, so that forwarding works when every worker requires basic
authentication (the REST API gives it to :func:`caller_credentials` for each request).
"""

from __future__ import annotations

import contextvars
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from kconnect_sdk import AlreadyExistsError, ConfigError, ConnectError, NotFoundError

from kconnect_runtime.storage import BadRequestError, ForbiddenError

__all__ = [
    "NotReadyError",
    "RebalanceInProgressError",
    "caller_credentials",
    "forward",
    "path_segment",
]

_AUTHORIZATION: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "kconnect_rest_authorization", default=None
)


@contextmanager
def caller_credentials(authorization: str | None) -> Iterator[None]:
    """The ``Authorization`` header of the request being served, for :func:`forward` (a
    context variable: handler threads and the threads they start with a copied context see
    it; it is never logged)."""
    token = _AUTHORIZATION.set(authorization)
    try:
        yield
    finally:
        _AUTHORIZATION.reset(token)


class RebalanceInProgressError(ConnectError):
    """HTTP 409, as Kafka's ``RebalanceNeededException``: retry after the rebalance."""


class NotReadyError(ConnectError):
    """HTTP 503: the worker has not read its config topic to the end yet."""


_BY_STATUS: dict[int, type[ConnectError]] = {
    400: BadRequestError,
    403: ForbiddenError,
    404: NotFoundError,
    409: RebalanceInProgressError,
    503: NotReadyError,
}


def path_segment(name: str) -> str:
    """A connector name as one percent-encoded path segment for :func:`forward` ("a/b" as
    ``a%2Fb``; "." and ".." as ``%2E`` so that no server drops them as dot segments)."""
    if name in (".", ".."):
        return name.replace(".", "%2E")
    return urllib.parse.quote(name, safe="")


_FORWARD_TIMEOUT_S = 90.0  # Kafka's request timeout for REST calls between workers


def forward(
    url: str,
    method: str,
    path: str,
    *,
    params: dict[str, Any] | None = None,
    body: Any = None,
    raw_body: bytes | None = None,
    extra_headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """Send a request to another worker's REST API; (status, JSON body or None).

    ``raw_body`` is sent as given (the exact bytes a request signature covers) instead of
    ``body`` as JSON; ``extra_headers`` are added (the signature's). An error answer is
    raised as the error the REST API maps back to the same status code, with the other
    worker's message, so the client sees what it would have seen there.
    """
    query = f"?{urllib.parse.urlencode(params)}" if params else ""
    data = raw_body if raw_body is not None else None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    headers.update(extra_headers or {})
    authorization = _AUTHORIZATION.get()
    if authorization:
        headers["Authorization"] = authorization  # as Kafka: the caller's own credentials
    request = urllib.request.Request(
        # Segments arrive encoded by path_segment: '%' is kept, the rest quoted as before.
        f"{url}{urllib.parse.quote(path, safe='/%')}{query}",
        data=data,
        method=method,
        headers=headers,
    )
    try:
        with urllib.request.urlopen(request, timeout=_FORWARD_TIMEOUT_S) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except OSError as exc:
        raise RebalanceInProgressError(
            f"Cannot complete request: the worker that runs it ({url}) cannot be reached "
            f"({exc}); retry after the group has rebalanced"
        ) from None
    content: Any = None
    if raw:
        try:
            content = json.loads(raw)
        except ValueError:
            content = raw.decode(errors="replace")
    if status >= 400:
        message = content.get("message") if isinstance(content, dict) else str(content)
        message = f"{message} (answered by {url})"
        if status == 409 and "already exists" in str(message):
            raise AlreadyExistsError(message)
        if status == 400 and isinstance(content, dict):
            raise ConfigError(message)
        raise _BY_STATUS.get(status, ConnectError)(message)
    return status, content
