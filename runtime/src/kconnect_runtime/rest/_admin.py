"""The worker's own routes: ``/`` (version), ``/health``, ``/admin/loggers``, ``/metrics``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel

from kconnect_runtime._version import __version__
from kconnect_runtime.storage import BadRequestError
from kconnect_runtime.worker import WorkerApi

from ._loggers import LoggerLevels
from ._prometheus import render_prometheus

__all__ = ["admin_router"]


class LoggerLevelRequest(BaseModel):
    """Body of ``PUT /admin/loggers/{name}``."""

    level: str


def admin_router(worker: WorkerApi, *, kafka_cluster_id: str | None) -> APIRouter:
    """The worker's routes: version, health, log levels (KIP-495) and metrics."""
    router = APIRouter()
    loggers = LoggerLevels()

    @router.get("/")
    def root() -> dict[str, Any]:
        return {"version": __version__, "commit": "unknown", "kafka_cluster_id": kafka_cluster_id}

    @router.get("/health")
    def health() -> JSONResponse:
        if not worker.is_started():
            return JSONResponse(
                {
                    "status": "starting",
                    "message": "Worker is still starting up: recovering and creating connectors.",
                },
                status_code=503,
            )
        return JSONResponse(
            {
                "status": "healthy",
                "message": "Worker has completed startup and is ready to handle requests.",
            }
        )

    # KIP-495
    @router.get("/admin/loggers")
    def list_loggers() -> dict[str, dict[str, Any]]:
        return loggers.all()

    @router.get("/admin/loggers/{logger}")
    def get_logger(logger: str) -> dict[str, Any]:
        return loggers.get(logger)

    @router.put("/admin/loggers/{logger}", response_model=None)
    def set_logger(logger: str, request: LoggerLevelRequest, scope: str = "worker") -> Any:
        if scope.lower() not in ("worker", "cluster"):
            raise BadRequestError(f"Invalid scope '{scope}'; use 'worker' or 'cluster'")
        affected = loggers.set(logger, request.level)
        if scope.lower() == "cluster":
            # One worker per cluster here, so the cluster scope is this worker's.
            return Response(status_code=204)
        return affected

    @router.get("/metrics", include_in_schema=False)
    def metrics() -> Response:
        """Kafka Connect's metrics in Prometheus text format."""
        return Response(
            render_prometheus(worker), media_type="text/plain; version=0.0.4; charset=utf-8"
        )

    return router
