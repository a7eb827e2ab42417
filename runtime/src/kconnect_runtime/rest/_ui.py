"""The web console at ``/ui`` and CORS (Kafka's ``access.control.allow.*`` worker keys).

The console is static HTML, JavaScript and CSS in ``ui/`` (no build step, nothing fetched
from elsewhere): it reads and acts through the REST API only, so it honours basic auth
(the browser asks once, for the page and its calls alike) and can point at another worker
with ``/ui/?api=http://host:8083`` when that worker allows the origin.

CORS follows Kafka Connect's RestServer: with ``access.control.allow.origin`` set (``*``
or a comma-separated list of origins, ``*`` inside one matching any characters, as Jetty's
CrossOriginFilter), cross-origin requests from those origins are allowed, for
``access.control.allow.methods`` (default Jetty's ``GET,POST,HEAD``). Preflight requests are
answered before basic auth, since browsers send them without credentials.
"""

from __future__ import annotations

import re
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.cors import CORSMiddleware

__all__ = ["UI_DIR", "add_cors", "mount_ui"]

UI_DIR = Path(__file__).with_name("ui")
# Jetty CrossOriginFilter's defaults, which Kafka keeps when the methods key is empty.
_DEFAULT_METHODS = ("GET", "POST", "HEAD")
# Jetty's default allowed headers, plus Authorization so browser UIs work behind basic auth.
_ALLOWED_HEADERS = ("X-Requested-With", "Content-Type", "Accept", "Origin", "Authorization")
_PREFLIGHT_MAX_AGE_S = 1800  # Jetty's default


def mount_ui(app: FastAPI) -> None:
    """Serve the console at ``/ui/`` (``/ui`` redirects there)."""

    @app.get("/ui", include_in_schema=False)
    def _ui_root(request: Request) -> RedirectResponse:
        # Relative, so it also works behind a reverse proxy's path prefix; keeps ?api=...
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"ui/{query}", status_code=307)

    app.mount("/ui", StaticFiles(directory=UI_DIR, html=True), name="ui")


def _origins(value: str) -> tuple[list[str], str | None]:
    origins = [o.strip() for o in value.split(",") if o.strip()]
    if "*" in origins:
        return ["*"], None
    plain = [o for o in origins if "*" not in o]
    patterns = [re.escape(o).replace(r"\*", ".*") for o in origins if "*" in o]
    return plain, ("^(" + "|".join(patterns) + ")$") if patterns else None


def add_cors(app: FastAPI, allow_origin: str | None, allow_methods: str | None) -> None:
    """Allow cross-origin requests as Kafka's ``access.control.allow.*`` keys say (add last)."""
    if not allow_origin or not allow_origin.strip():
        return
    origins, pattern = _origins(allow_origin)
    methods = [m.strip().upper() for m in (allow_methods or "").split(",") if m.strip()]
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_origin_regex=pattern,
        allow_methods=methods or list(_DEFAULT_METHODS),
        allow_headers=list(_ALLOWED_HEADERS),
        allow_credentials=True,  # Jetty's default
        max_age=_PREFLIGHT_MAX_AGE_S,
    )
