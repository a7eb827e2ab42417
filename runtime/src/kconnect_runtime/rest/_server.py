"""The REST API's HTTP(S) server: uvicorn on a background thread."""

from __future__ import annotations

import logging
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI
from kconnect_sdk import ConfigError

__all__ = ["RestServer"]

log = logging.getLogger("kconnect.rest")


def _local_address() -> str:
    name = socket.gethostname()
    try:
        return socket.gethostbyname(name)
    except OSError:
        return name


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
        self._host_given = bool(parts.hostname)
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

    def advertised_url(
        self,
        *,
        host_name: str | None = None,
        port: int | None = None,
        listener: str | None = None,
    ) -> str:
        """The URL other workers reach this server at, as Kafka's ``RestServer`` advertises
        it: ``rest.advertised.listener``/``.host.name``/``.port`` when set, else the
        listener's scheme, host and (bound) port; a listener without a host (``http://:8083``)
        is advertised with this machine's address, as Jetty names it."""
        scheme = (listener or self.scheme).strip().lower()
        host = host_name or (self.host if self._host_given else _local_address())
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"  # an IPv6 literal
        return f"{scheme}://{host}:{port if port is not None else self.port}"

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)
