"""A small client of Kafka Connect's REST API (ours or Apache Kafka's), for the CLI.

Every call returns the parsed JSON body (None for an empty one) or raises
:class:`ConnectApiError` carrying the HTTP status and Kafka's ``message``; a worker that
cannot be reached is an error with status 0 that names the URL.
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import urllib.error
import urllib.request
from collections.abc import Mapping
from http.client import HTTPException
from typing import Any
from urllib.parse import quote, urlencode

__all__ = ["DEFAULT_URL", "URL_ENV", "ConnectApiError", "ConnectClient"]

DEFAULT_URL = "http://localhost:8083"
# As kcctl's context, but one environment variable per setting (scripts, CI, containers).
URL_ENV = "KCONNECT_URL"
USER_ENV = "KCONNECT_USER"
PASSWORD_ENV = "KCONNECT_PASSWORD"
# The REST API's answer header naming a plugin's accepted key prefixes (the REST layer's
# CONFIG_PREFIXES_HEADER; not imported: this client starts without the server's libraries).
CONFIG_PREFIXES_HEADER = "X-Kconnect-Config-Prefixes"


class ConnectApiError(Exception):
    """The worker answered with an error (or could not be reached: ``status`` 0)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} (HTTP {self.status})" if self.status else self.message


def _segment(name: str) -> str:
    # Connector names may hold '/', spaces or '%': one path segment each. "." and ".." go as
    # %2E so that no HTTP client removes them as dot segments.
    if name in (".", ".."):
        return name.replace(".", "%2E")
    return quote(name, safe="")


class ConnectClient:
    """Kafka Connect's REST API at ``url``.

    Args:
        url: The worker's REST URL (default ``$KCONNECT_URL`` or ``http://localhost:8083``).
        user: Basic-auth user (default ``$KCONNECT_USER``).
        password: Basic-auth password (default ``$KCONNECT_PASSWORD``).
        verify: TLS verification: True, False (``--insecure``) or a CA bundle path.
        cert: A client certificate (PEM), optionally with ``key`` (PEM), for mutual TLS.
        timeout: Seconds per request.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        user: str | None = None,
        password: str | None = None,
        verify: bool | str = True,
        cert: str | None = None,
        key: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.url = (url or os.environ.get(URL_ENV) or DEFAULT_URL).rstrip("/")
        user = user if user is not None else os.environ.get(USER_ENV)
        password = password if password is not None else os.environ.get(PASSWORD_ENV)
        self._headers = {"Accept": "application/json"}
        if user:
            pair = f"{user}:{password or ''}".encode()
            self._headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        self._timeout = timeout
        # The standard library's client: an operator command starts in a fraction of the
        # time an HTTP library with its own CLI dependencies takes to import.
        handlers: list[urllib.request.BaseHandler] = []
        if self.url.startswith("https:"):
            context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
            if verify is False:
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
            if cert:
                context.load_cert_chain(cert, key)
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self._opener = urllib.request.build_opener(*handlers)

    def close(self) -> None:
        """Nothing to release: each call opens and closes its own connection."""

    def __enter__(self) -> ConnectClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """One call: the parsed JSON answer, or :class:`ConnectApiError`."""
        return self._exchange(method, path, body=body, params=params)[0]

    def _exchange(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
    ) -> tuple[Any, Mapping[str, str]]:
        """One call: (the parsed JSON answer, the answer's headers)."""
        url = self.url + path
        if params:
            url += "?" + urlencode(params, doseq=True)
        headers = dict(self._headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(request, timeout=self._timeout) as response:
                status, reason, content = response.status, response.reason, response.read()
                answer_headers = {k.lower(): v for k, v in response.headers.items()}
        except urllib.error.HTTPError as error:
            status, reason, content = error.code, error.reason, error.read()
            answer_headers = {}
        except (urllib.error.URLError, HTTPException, OSError) as exc:
            cause = getattr(exc, "reason", None) or exc or type(exc).__name__
            raise ConnectApiError(
                0,
                f"cannot reach the Kafka Connect worker at {self.url}: {cause}"
                " (set --url or $" + URL_ENV + ")",
            ) from exc
        text = content.decode("utf-8", errors="replace")
        if status >= 400:
            message = text.strip() or str(reason)
            try:
                found = json.loads(text)
                if isinstance(found, dict) and found.get("message"):
                    message = str(found["message"])
            except ValueError:
                pass
            if status == 401:
                message += " (give --user/--password or $KCONNECT_USER/$KCONNECT_PASSWORD)"
            raise ConnectApiError(status, message)
        if not content:
            return None, answer_headers
        try:
            return json.loads(text), answer_headers
        except ValueError:
            return text, answer_headers

    # --- the worker -------------------------------------------------------------------
    # --- connectors -------------------------------------------------------------------
    def connectors(self) -> dict[str, Any]:
        """``GET /connectors?expand=status&expand=info``: every connector, expanded."""
        found = self.request("GET", "/connectors", params={"expand": ["status", "info"]})
        if isinstance(found, list):  # a worker without expand support answers names only
            return {name: {} for name in found}
        return dict(found or {})

    def connector(self, name: str) -> dict[str, Any]:
        """``GET /connectors/{name}``: name, config, tasks, type."""
        found: dict[str, Any] = self.request("GET", f"/connectors/{_segment(name)}")
        return found

    def status(self, name: str) -> dict[str, Any]:
        """``GET /connectors/{name}/status``."""
        found: dict[str, Any] = self.request("GET", f"/connectors/{_segment(name)}/status")
        return found

    def topics(self, name: str) -> list[str]:
        """``GET /connectors/{name}/topics``: the topics the connector used."""
        found = self.request("GET", f"/connectors/{_segment(name)}/topics")
        return list((found or {}).get(name, {}).get("topics", []))

    def create(self, name: str, config: Mapping[str, str]) -> dict[str, Any]:
        """``POST /connectors``."""
        body = {"name": name, "config": dict(config)}
        found: dict[str, Any] = self.request("POST", "/connectors", body=body)
        return found

    def put_config(self, name: str, config: Mapping[str, str]) -> dict[str, Any]:
        """``PUT /connectors/{name}/config``: create or replace."""
        found: dict[str, Any] = self.request(
            "PUT", f"/connectors/{_segment(name)}/config", body=dict(config)
        )
        return found

    def pause(self, name: str) -> None:
        """``PUT /connectors/{name}/pause``."""
        self.request("PUT", f"/connectors/{_segment(name)}/pause")

    def resume(self, name: str) -> None:
        """``PUT /connectors/{name}/resume``."""
        self.request("PUT", f"/connectors/{_segment(name)}/resume")

    def stop(self, name: str) -> None:
        """``PUT /connectors/{name}/stop`` (KIP-875)."""
        self.request("PUT", f"/connectors/{_segment(name)}/stop")

    def delete(self, name: str) -> None:
        """``DELETE /connectors/{name}``."""
        self.request("DELETE", f"/connectors/{_segment(name)}")

    def restart(
        self, name: str, *, include_tasks: bool = False, only_failed: bool = False
    ) -> dict[str, Any] | None:
        """``POST /connectors/{name}/restart`` (KIP-745): the new status when tasks are included."""
        params = {
            "includeTasks": str(include_tasks).lower(),
            "onlyFailed": str(only_failed).lower(),
        }
        found: dict[str, Any] | None = self.request(
            "POST", f"/connectors/{_segment(name)}/restart", params=params
        )
        return found

    def restart_task(self, name: str, task: int) -> None:
        """``POST /connectors/{name}/tasks/{task}/restart``."""
        self.request("POST", f"/connectors/{_segment(name)}/tasks/{task}/restart")

    # --- offsets (KIP-875) ------------------------------------------------------------
    def offsets(self, name: str) -> dict[str, Any]:
        """``GET /connectors/{name}/offsets``."""
        found: dict[str, Any] = self.request("GET", f"/connectors/{_segment(name)}/offsets")
        return found

    def alter_offsets(self, name: str, offsets: Mapping[str, Any]) -> dict[str, Any]:
        """``PATCH /connectors/{name}/offsets`` with Kafka's ``{"offsets": [...]}`` body."""
        found: dict[str, Any] = self.request(
            "PATCH", f"/connectors/{_segment(name)}/offsets", body=dict(offsets)
        )
        return found

    def reset_offsets(self, name: str) -> dict[str, Any]:
        """``DELETE /connectors/{name}/offsets``."""
        found: dict[str, Any] = self.request("DELETE", f"/connectors/{_segment(name)}/offsets")
        return found

    # --- plugins ----------------------------------------------------------------------
    def plugins(self, *, connectors_only: bool = False) -> list[dict[str, Any]]:
        """``GET /connector-plugins``: class, type, version of each plugin."""
        found = self.request(
            "GET",
            "/connector-plugins",
            params={"connectorsOnly": str(connectors_only).lower()},
        )
        return list(found or [])

    def plugin_config(self, plugin: str) -> list[dict[str, Any]]:
        """``GET /connector-plugins/{plugin}/config``: the plugin's config definition."""
        return self.plugin_config_and_prefixes(plugin)[0]

    def plugin_config_and_prefixes(self, plugin: str) -> tuple[list[dict[str, Any]], list[str]]:
        """The plugin's config definition, and the key prefixes it accepts without defining
        each key (kconnect workers name them in a header; other workers name none)."""
        found, headers = self._exchange("GET", f"/connector-plugins/{_segment(plugin)}/config")
        prefixes = headers.get(CONFIG_PREFIXES_HEADER.lower(), "")
        return list(found or []), [p for p in prefixes.split(",") if p]

    def validate(self, plugin: str, config: Mapping[str, str]) -> dict[str, Any]:
        """``PUT /connector-plugins/{plugin}/config/validate``: Kafka's ``ConfigInfos``."""
        found: dict[str, Any] = self.request(
            "PUT", f"/connector-plugins/{_segment(plugin)}/config/validate", body=dict(config)
        )
        return found
