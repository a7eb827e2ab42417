"""HTTP basic authentication for the REST API (``rest.basic.auth.user.file``).

The user file follows Kafka's basic-auth extension's credentials file: one
``user: password[,role...]`` (or ``user=password``) per line; roles are accepted and ignored.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
from pathlib import Path

from kconnect_sdk import ConfigError, parse_properties
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from kconnect_runtime.herder import has_signature

from ._middleware import USER_SCOPE_KEY

__all__ = ["BasicAuthMiddleware", "load_users"]


def load_users(path: str) -> dict[str, str]:
    """``{user: password}`` from a credentials file; errors name the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = "it is not UTF-8 text (binary or damaged)" if isinstance(exc, ValueError) else exc
        raise ConfigError(
            f"rest.basic.auth.user.file: cannot read {path!r}: {problem}",
            name="rest.basic.auth.user.file",
        ) from None
    users = {
        user: value.split(",", 1)[0].strip()
        for user, value in parse_properties(text, source=path).items()
    }
    if not users:
        raise ConfigError(
            f"rest.basic.auth.user.file: {path!r} lists no users (lines 'user: password')",
            name="rest.basic.auth.user.file",
        )
    return users


_INTERNAL_REQUESTS = (
    ("POST", re.compile(r"/?connectors/[^/]+/tasks/?")),
    ("PUT", re.compile(r"/?connectors/[^/]+/fence/?")),
)


def _is_internal(method: str, path: str) -> bool:
    return any(method == m and pattern.fullmatch(path) for m, pattern in _INTERNAL_REQUESTS)


def _unauthorized(message: str) -> Response:
    return JSONResponse(
        {"error_code": 401, "message": message},
        status_code=401,
        headers={"WWW-Authenticate": 'Basic realm="kconnect"'},
    )


class BasicAuthMiddleware(BaseHTTPMiddleware):
    """Rejects requests without valid basic credentials with 401 and Kafka's error body."""

    def __init__(self, app: ASGIApp, users: dict[str, str]) -> None:
        super().__init__(app)
        self._users = users

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        if has_signature(request.headers) and _is_internal(request.method, request.url.path):
            # Workers send these to one another without a user's credentials; the herder
            # refuses one whose signature is not the group's session key's (KIP-507).
            return await call_next(request)
        header = request.headers.get("authorization", "")
        scheme, _, encoded = header.partition(" ")
        if scheme.lower() != "basic" or not encoded:
            return _unauthorized("Credentials are required (HTTP basic authentication)")
        try:
            user, sep, password = base64.b64decode(encoded, validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return _unauthorized("Malformed basic authentication header")
        expected = self._users.get(user)
        if (
            not sep
            or expected is None
            or not hmac.compare_digest(expected.encode(), password.encode())
        ):
            return _unauthorized("User not authorized: wrong user name or password")
        request.scope[USER_SCOPE_KEY] = user  # actions are logged with their user
        return await call_next(request)
