"""Forwarded requests carry the caller's credentials, as Kafka's ``RestClient`` does."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from kconnect_runtime.herder import caller_credentials

__all__ = ["ForwardCredentialsMiddleware"]


class ForwardCredentialsMiddleware:
    """Gives the ``Authorization`` header of the request being served to the herder, which
    sends it with any request it forwards to another worker."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        header = None
        if scope["type"] == "http":
            for key, value in scope.get("headers", ()):
                if key == b"authorization":
                    header = value.decode("latin-1")
                    break
        with caller_credentials(header):
            await self.app(scope, receive, send)
