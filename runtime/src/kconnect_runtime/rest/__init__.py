"""The REST API: Kafka Connect's paths, verbs, JSON bodies and status codes, on FastAPI;
and the internal-only server of a dedicated MirrorMaker node."""

from __future__ import annotations

from ._app import create_app
from ._auth import BasicAuthMiddleware, load_users
from ._basic_auth_extension import BasicAuthSecurityRestExtension
from ._extensions import REST_EXTENSION_CLASSES_CONFIG, RestExtensions
from ._mirror import internal_mirror_app
from ._prometheus import render_prometheus
from ._server import RestServer

__all__ = [
    "REST_EXTENSION_CLASSES_CONFIG",
    "BasicAuthMiddleware",
    "BasicAuthSecurityRestExtension",
    "RestExtensions",
    "RestServer",
    "create_app",
    "internal_mirror_app",
    "load_users",
    "render_prometheus",
]
