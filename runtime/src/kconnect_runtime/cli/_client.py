"""A small client of Kafka Connect's REST API (ours or Apache Kafka's), for the CLI.

Every call returns the parsed JSON body (None for an empty one) or raises
:class:`ConnectApiError` carrying the HTTP status and Kafka's ``message``; a worker that
cannot be reached is an error with status 0 that names the URL.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import httpx

__all__ = ["DEFAULT_URL", "URL_ENV", "ConnectApiError", "ConnectClient"]

DEFAULT_URL = "http://localhost:8083"
# As kcctl's context, but one environment variable per setting (scripts, CI, containers).
URL_ENV = "KCONNECT_URL"
USER_ENV = "KCONNECT_USER"
PASSWORD_ENV = "KCONNECT_PASSWORD"


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
        auth = httpx.BasicAuth(user, password or "") if user else None
        client_cert: str | tuple[str, str] | None = (cert, key) if cert and key else cert
        self._http = httpx.Client(
            base_url=self.url, auth=auth, verify=verify, cert=client_cert, timeout=timeout
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

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
        try:
            response = self._http.request(
                method, path, json=body, params=params, headers={"Accept": "application/json"}
            )
        except httpx.HTTPError as exc:
            raise ConnectApiError(
                0,
                f"cannot reach the Kafka Connect worker at {self.url}: {exc or type(exc).__name__}"
                " (set --url or $" + URL_ENV + ")",
            ) from exc
        if response.status_code >= 400:
            message = response.text.strip() or response.reason_phrase
            try:
                found = response.json()
                if isinstance(found, dict) and found.get("message"):
                    message = str(found["message"])
            except ValueError:
                pass
            if response.status_code == 401:
                message += " (give --user/--password or $KCONNECT_USER/$KCONNECT_PASSWORD)"
            raise ConnectApiError(response.status_code, message)
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            return response.text

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
        found = self.request("GET", f"/connector-plugins/{_segment(plugin)}/config")
        return list(found or [])

    def validate(self, plugin: str, config: Mapping[str, str]) -> dict[str, Any]:
        """``PUT /connector-plugins/{plugin}/config/validate``: Kafka's ``ConfigInfos``."""
        found: dict[str, Any] = self.request(
            "PUT", f"/connector-plugins/{_segment(plugin)}/config/validate", body=dict(config)
        )
        return found
