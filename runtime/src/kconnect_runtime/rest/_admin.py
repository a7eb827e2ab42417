"""The worker's own routes: ``/`` (version), ``/health``, ``/admin/loggers``, ``/metrics``."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse, Response

from kconnect_runtime._version import __version__
from kconnect_runtime.herder import WorkerApi
from kconnect_runtime.storage import BadRequestError

from ._loggers import LoggerLevels
from ._prometheus import render_prometheus

__all__ = ["admin_router"]


log = logging.getLogger("kconnect.rest")

KAFKA_CONNECT_VERSION = "4.1.1"
"""The Apache Kafka Connect release whose REST API this one matches (KIP-891's plugin
versions, KIP-1017's ``/health``): what ``GET /`` reports as ``version``."""


def admin_router(worker: WorkerApi, *, kafka_cluster_id: str | None) -> APIRouter:
    """The worker's routes: version, health, log levels (KIP-495) and metrics."""
    router = APIRouter()
    loggers = LoggerLevels()
    worker.follow_cluster_logger_levels(loggers.set)

    @router.get("/")
    def root() -> dict[str, Any]:
        # Clients compare ``version`` with Kafka's to enable features, so it is the
        # Kafka Connect version whose REST API this is; kconnect's own is a field of its own.
        return {
            "version": KAFKA_CONNECT_VERSION,
            "commit": "unknown",
            "kafka_cluster_id": kafka_cluster_id,
            "kconnect_version": __version__,
        }

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
        cut_off = _cut_off_tasks(worker)
        if cut_off:
            # Kafka's HealthCheckResource answers 500 with WorkerStatus.unhealthy(details).
            return JSONResponse(
                {
                    "status": "unhealthy",
                    "message": "Worker was unable to handle this request and may be unable to "
                    "handle other requests. Kafka brokers unreachable for longer than "
                    "broker.unreachable.timeout.ms by task(s): " + ", ".join(cut_off),
                },
                status_code=500,
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
    def set_logger(
        logger: str,
        request: dict[str, Any] = Body(...),  # noqa: B008  # FastAPI idiom
        scope: str = "worker",
    ) -> Any:
        level = request.get("level")
        if level is None:
            raise BadRequestError("Desired 'level' parameter was not specified in request.")
        if scope.lower() not in ("worker", "cluster"):
            # As Kafka's LoggingResource: an unknown scope is the worker's, with a warning.
            log.warning(
                "Received invalid scope '%s' in request to adjust logging level; "
                "will default to worker",
                scope[:100],
            )
            scope = "worker"
        if scope.lower() == "cluster":
            loggers.check_level(str(level))
            log.info("REST: log level of %r set to %s for the cluster", logger, level)
            worker.set_cluster_logger_level(logger, str(level))
            return Response(status_code=204)
        affected = loggers.set(logger, str(level))
        log.info("REST: log level of %r set to %s (worker scope)", logger, level)
        return affected

    @router.get("/metrics", include_in_schema=False)
    def metrics() -> Response:
        """Kafka Connect's metrics in Prometheus text format."""
        return Response(
            render_prometheus(worker), media_type="text/plain; version=0.0.4; charset=utf-8"
        )

    return router


def _cut_off_tasks(worker: WorkerApi) -> list[str]:
    """Tasks whose Kafka client has reached no broker for too long."""
    try:
        views = worker.task_metrics()
    except Exception:  # a worker stopping: not a health failure of its own
        return []
    return [f"{c}-{i}" for c, i, _, m, _ in views if m.broker_unreachable]
