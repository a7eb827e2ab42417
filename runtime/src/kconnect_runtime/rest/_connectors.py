"""``/connectors``: connectors, their configs, tasks, states, topics and offsets."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse, Response
from kconnect_sdk import ConfigError, NotFoundError
from pydantic import BaseModel

from kconnect_runtime.status import TargetState
from kconnect_runtime.worker import WorkerApi

from ._views import info_body, masked, masked_config, restore_hidden, scrubbed, string_config

__all__ = ["connectors_router"]


class CreateConnectorRequest(BaseModel):
    """Body of ``POST /connectors``."""

    name: str
    config: dict[str, Any] | None = None
    initial_state: Literal["RUNNING", "PAUSED", "STOPPED"] | None = None


class OffsetsRequest(BaseModel):
    """Body of ``PATCH /connectors/{name}/offsets``."""

    offsets: list[dict[str, Any]]


_INITIAL_STATES = {
    "RUNNING": TargetState.STARTED,
    "PAUSED": TargetState.PAUSED,
    "STOPPED": TargetState.STOPPED,
}


def connectors_router(worker: WorkerApi) -> APIRouter:
    """The routes under ``/connectors``, served by ``worker``."""
    router = APIRouter()

    @router.get("/connectors", response_model=None)
    def list_connectors(expand: list[str] = Query(default=[])) -> Any:  # noqa: B008  # FastAPI idiom
        names = worker.connector_names()
        if not expand:
            return names
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            entry: dict[str, Any] = {}
            try:
                if "status" in expand:
                    entry["status"] = scrubbed(worker, name, worker.connector_status(name))
                if "info" in expand:
                    entry["info"] = info_body(worker, name)
            except NotFoundError:
                continue  # deleted while listing
            out[name] = entry
        return out

    @router.post("/connectors", status_code=201)
    def create_connector(request: CreateConnectorRequest) -> JSONResponse:
        config = string_config(request.config or {})
        name = request.name.strip()
        if not name:
            raise ConfigError("Connector name must not be empty", name="name")
        if config.get("name", name) != name:
            raise ConfigError(
                f"Connector name configuration ({config['name']}) doesn't match connector name "
                f"in the URL ({name})",
                name="name",
            )
        config["name"] = name
        config = restore_hidden(worker, name, config)  # refuses a stray [hidden]
        state = _INITIAL_STATES[request.initial_state or "RUNNING"]
        worker.create_connector(config, initial_state=state)
        return JSONResponse(
            info_body(worker, name),
            status_code=201,
            headers={"Location": f"/connectors/{quote(name)}"},
        )

    @router.get("/connectors/{name}")
    def connector_info(name: str) -> dict[str, Any]:
        return info_body(worker, name)

    @router.delete("/connectors/{name}", status_code=204)
    def delete_connector(name: str) -> Response:
        worker.delete_connector(name)
        return Response(status_code=204)

    @router.get("/connectors/{name}/config")
    def connector_config(name: str) -> dict[str, str]:
        return masked_config(worker, name)

    @router.put("/connectors/{name}/config")
    def put_connector_config(name: str, config: dict[str, Any] = Body(...)) -> JSONResponse:  # noqa: B008
        # GET, edit, PUT: a secret shown as [hidden] keeps its stored value.
        created, _ = worker.put_connector_config(
            name, restore_hidden(worker, name, string_config(config))
        )
        headers = {"Location": f"/connectors/{quote(name)}"} if created else None
        return JSONResponse(
            info_body(worker, name), status_code=201 if created else 200, headers=headers
        )

    @router.patch("/connectors/{name}/config")
    def patch_connector_config(name: str, patch: dict[str, Any] = Body(...)) -> dict[str, Any]:  # noqa: B008
        worker.patch_connector_config(
            name, restore_hidden(worker, name, string_config(patch, allow_null=True))
        )
        return info_body(worker, name)

    @router.get("/connectors/{name}/status")
    def connector_status(name: str) -> dict[str, Any]:
        body: dict[str, Any] = scrubbed(worker, name, worker.connector_status(name))
        return body

    @router.get("/connectors/{name}/tasks")
    def connector_tasks(name: str) -> list[dict[str, Any]]:
        return [{**t, "config": masked(worker, name, t["config"])} for t in worker.task_list(name)]

    @router.get("/connectors/{name}/tasks/{task}/status")
    def task_status(name: str, task: int) -> dict[str, Any]:
        body: dict[str, Any] = scrubbed(worker, name, worker.task_status(name, task))
        return body

    @router.post("/connectors/{name}/tasks/{task}/restart", status_code=204)
    def restart_task(name: str, task: int) -> Response:
        worker.restart_task(name, task)
        return Response(status_code=204)

    @router.post("/connectors/{name}/restart", response_model=None)
    def restart_connector(
        name: str,
        includeTasks: bool = False,
        onlyFailed: bool = False,  # Kafka's names
    ) -> Any:
        status = worker.restart_connector(name, include_tasks=includeTasks, only_failed=onlyFailed)
        if status is None:
            return Response(status_code=204)
        return JSONResponse(scrubbed(worker, name, status), status_code=202)

    @router.put("/connectors/{name}/pause", status_code=202)
    def pause_connector(name: str) -> Response:
        worker.pause_connector(name)
        return Response(status_code=202)

    @router.put("/connectors/{name}/resume", status_code=202)
    def resume_connector(name: str) -> Response:
        worker.resume_connector(name)
        return Response(status_code=202)

    @router.put("/connectors/{name}/stop", status_code=204)
    def stop_connector(name: str) -> Response:
        worker.stop_connector(name)
        return Response(status_code=204)

    @router.get("/connectors/{name}/topics")
    def connector_topics(name: str) -> dict[str, Any]:
        return {name: {"topics": worker.connector_topics(name)}}

    @router.put("/connectors/{name}/topics/reset", status_code=202)
    def reset_topics(name: str) -> Response:
        worker.reset_topics(name)
        return Response(status_code=202)

    @router.get("/connectors/{name}/offsets")
    def connector_offsets(name: str) -> dict[str, Any]:
        return {"offsets": scrubbed(worker, name, worker.connector_offsets(name))}

    @router.patch("/connectors/{name}/offsets")
    def alter_offsets(name: str, request: OffsetsRequest) -> dict[str, str]:
        return {"message": scrubbed(worker, name, worker.alter_offsets(name, request.offsets))}

    @router.delete("/connectors/{name}/offsets")
    def reset_offsets(name: str) -> dict[str, str]:
        return {"message": scrubbed(worker, name, worker.reset_offsets(name))}

    return router
