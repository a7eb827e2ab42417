"""``/connectors``: connectors, their configs, tasks, states, topics and offsets.

A ``{name}`` path segment is the connector name percent-encoded (see ``_middleware``), so
every name that can be created can be read, changed and deleted. Each change a client makes
(create, config, pause, resume, stop, restart, delete, offsets, topics reset) logs one INFO
line naming the connector, the action and, with basic auth, the user.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Body, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from kconnect_sdk import ConfigError, NotFoundError
from pydantic import BaseModel

from kconnect_runtime.herder import WorkerApi, named_config
from kconnect_runtime.status import TargetState
from kconnect_runtime.storage import BadRequestError

from ._middleware import connector_name, rest_user
from ._views import (
    info_body,
    masked,
    masked_config,
    query_flag,
    restore_hidden,
    scrubbed,
    string_config,
)

__all__ = ["connectors_router", "task_configs_body"]


class CreateConnectorRequest(BaseModel):
    """Body of ``POST /connectors``."""

    name: str
    config: dict[str, Any] | None = None
    initial_state: Literal["RUNNING", "PAUSED", "STOPPED"] | None = None


class OffsetsRequest(BaseModel):
    """Body of ``PATCH /connectors/{name}/offsets``."""

    offsets: list[dict[str, Any]] | None = None


log = logging.getLogger("kconnect.rest")


def _audit(request: Request, name: str, action: str) -> None:
    """One INFO line per change made through the API: connector, action, user."""
    user = rest_user(request.scope)
    log.info("REST: connector %r %s%s", name, action, f" (user {user!r})" if user else "")


def _location(name: str) -> dict[str, str]:
    segment = quote(name, safe="")
    if segment in (".", ".."):  # clients drop dot segments; %2E is the same character
        segment = segment.replace(".", "%2E")
    return {"Location": f"/connectors/{segment}"}


_INTEGER = re.compile(r"[+-]?[0-9]+")


def _task_id(task: str) -> int:
    """A task id from the path, read as Jersey reads an Integer path parameter: a path
    segment that is no 32-bit integer matches no resource (Jersey's plain 404)."""
    if _INTEGER.fullmatch(task) is None or not -(2**31) <= int(task) < 2**31:
        raise NotFoundError("HTTP 404 Not Found")
    return int(task)


@contextmanager
def _not_found_as(message: str) -> Iterator[None]:
    """A NotFoundError raised inside reads ``message``, as Kafka's herder words it there."""
    try:
        yield
    except NotFoundError as exc:
        raise NotFoundError(message) from exc


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
    def create_connector(request: CreateConnectorRequest, http: Request) -> JSONResponse:
        config = string_config(request.config or {})
        name = request.name.strip()
        if not name:
            raise ConfigError("Connector name must not be empty", name="name")
        config = named_config(name, config)
        config = restore_hidden(worker, name, config)  # refuses a stray [hidden]
        if request.initial_state is None:
            # Kafka stores no target state for a connector created without one.
            worker.create_connector(config)
            _audit(http, name, f"created ({TargetState.STARTED.value})")
        else:
            state = _INITIAL_STATES[request.initial_state]
            worker.create_connector(config, initial_state=state)
            _audit(http, name, f"created ({state.value})")
        return JSONResponse(info_body(worker, name), status_code=201, headers=_location(name))

    @router.get("/connectors/{name}")
    def connector_info(name: str) -> dict[str, Any]:
        return info_body(worker, connector_name(name))

    @router.delete("/connectors/{name}", status_code=204)
    def delete_connector(name: str, http: Request) -> Response:
        name = connector_name(name)
        worker.delete_connector(name)
        _audit(http, name, "deleted")
        return Response(status_code=204)

    @router.get("/connectors/{name}/config")
    def connector_config(name: str) -> dict[str, str]:
        return masked_config(worker, connector_name(name))

    @router.put("/connectors/{name}/config")
    def put_connector_config(
        name: str,
        http: Request,
        config: dict[str, Any] = Body(...),  # noqa: B008  # FastAPI idiom
    ) -> JSONResponse:
        name = connector_name(name)
        # GET, edit, PUT: a secret shown as [hidden] keeps its stored value.
        created, _ = worker.put_connector_config(
            name, restore_hidden(worker, name, string_config(config))
        )
        _audit(http, name, "created (config PUT)" if created else "config replaced")
        return JSONResponse(
            info_body(worker, name),
            status_code=201 if created else 200,
            headers=_location(name) if created else None,
        )

    @router.patch("/connectors/{name}/config")
    def patch_connector_config(
        name: str,
        http: Request,
        patch: dict[str, Any] = Body(...),  # noqa: B008  # FastAPI idiom
    ) -> dict[str, Any]:
        name = connector_name(name)
        worker.patch_connector_config(
            name, restore_hidden(worker, name, string_config(patch, allow_null=True))
        )
        _audit(http, name, f"config patched (keys: {', '.join(sorted(patch))[:200]})")
        return info_body(worker, name)

    @router.get("/connectors/{name}/status")
    def connector_status(name: str) -> dict[str, Any]:
        name = connector_name(name)
        with _not_found_as(f"No status found for connector {name}"):
            status = worker.connector_status(name)
        body: dict[str, Any] = scrubbed(worker, name, status)
        return body

    @router.get("/connectors/{name}/tasks")
    def connector_tasks(name: str) -> list[dict[str, Any]]:
        name = connector_name(name)
        return [{**t, "config": masked(worker, name, t["config"])} for t in worker.task_list(name)]

    @router.get("/connectors/{name}/tasks/{task}/status")
    def task_status(name: str, task: str) -> dict[str, Any]:
        name = connector_name(name)
        index = _task_id(task)
        with _not_found_as(f"No status found for task {name}-{index}"):
            status = worker.task_status(name, index)
        body: dict[str, Any] = scrubbed(worker, name, status)
        return body

    @router.post("/connectors/{name}/tasks/{task}/restart", status_code=204)
    def restart_task(name: str, task: str, http: Request) -> Response:
        name = connector_name(name)
        index = _task_id(task)
        if name not in worker.connector_names():
            raise NotFoundError(f"Unknown connector: {name}")
        with _not_found_as(f"Unknown task: {name}-{index}"):
            worker.restart_task(name, index)
        _audit(http, name, f"task {index} restarted")
        return Response(status_code=204)

    @router.post("/connectors/{name}/restart", response_model=None)
    def restart_connector(
        name: str,
        http: Request,
        includeTasks: str | None = None,  # Kafka's names; Boolean.parseBoolean semantics
        onlyFailed: str | None = None,
    ) -> Any:
        name = connector_name(name)
        include_tasks = query_flag(includeTasks, default=False)
        only_failed = query_flag(onlyFailed, default=False)
        with _not_found_as(f"Unknown connector: {name}"):
            status = worker.restart_connector(
                name, include_tasks=include_tasks, only_failed=only_failed
            )
        _audit(
            http,
            name,
            f"restart requested (includeTasks={str(include_tasks).lower()}, "
            f"onlyFailed={str(only_failed).lower()})",
        )
        if status is None:
            return Response(status_code=204)
        return JSONResponse(scrubbed(worker, name, status), status_code=202)

    @router.put("/connectors/{name}/pause", status_code=202)
    def pause_connector(name: str, http: Request) -> Response:
        name = connector_name(name)
        with _not_found_as(f"Unknown connector {name}"):
            worker.pause_connector(name)
        _audit(http, name, "paused")
        return Response(status_code=202)

    @router.put("/connectors/{name}/resume", status_code=202)
    def resume_connector(name: str, http: Request) -> Response:
        name = connector_name(name)
        with _not_found_as(f"Unknown connector {name}"):
            worker.resume_connector(name)
        _audit(http, name, "resumed")
        return Response(status_code=202)

    @router.put("/connectors/{name}/stop", status_code=204)
    def stop_connector(name: str, http: Request) -> Response:
        name = connector_name(name)
        with _not_found_as(f"Unknown connector {name}"):
            worker.stop_connector(name)
        _audit(http, name, "stopped")
        return Response(status_code=204)

    @router.get("/connectors/{name}/topics")
    def connector_topics(name: str) -> dict[str, Any]:
        name = connector_name(name)
        try:
            topics = worker.connector_topics(name)
        except NotFoundError:
            # Kafka reads active topics from the status topic for any name: an unknown
            # connector has none.
            topics = []
        return {name: {"topics": topics}}

    @router.put("/connectors/{name}/topics/reset", status_code=202)
    def reset_topics(name: str, http: Request) -> Response:
        name = connector_name(name)
        try:
            worker.reset_topics(name)
        except NotFoundError:
            return Response(status_code=202)  # as Kafka: nothing to reset is no error
        _audit(http, name, "active topics reset")
        return Response(status_code=202)

    @router.get("/connectors/{name}/offsets")
    def connector_offsets(name: str) -> dict[str, Any]:
        name = connector_name(name)
        return {"offsets": scrubbed(worker, name, worker.connector_offsets(name))}

    @router.patch("/connectors/{name}/offsets")
    def alter_offsets(name: str, request: OffsetsRequest, http: Request) -> dict[str, str]:
        name = connector_name(name)
        if not request.offsets:
            raise BadRequestError(
                "Partitions / offsets need to be provided for an alter offsets request"
            )
        message = worker.alter_offsets(name, request.offsets)
        _audit(http, name, f"offsets altered ({len(request.offsets)} partition(s))")
        return {"message": scrubbed(worker, name, message)}

    @router.delete("/connectors/{name}/offsets")
    def reset_offsets(name: str, http: Request) -> dict[str, str]:
        name = connector_name(name)
        message = worker.reset_offsets(name)
        _audit(http, name, "offsets reset")
        return {"message": scrubbed(worker, name, message)}

    # Internal endpoints (hidden, as Kafka's InternalClusterResource): what workers send one
    # another, authenticated by a signature over the exact body bytes (KIP-507).
    @router.post("/connectors/{name}/tasks", status_code=204, include_in_schema=False)
    async def put_task_configs(name: str, http: Request) -> Response:
        name = connector_name(name)
        body = await http.body()
        await run_in_threadpool(_put_task_configs, name, http.headers, body)
        return Response(status_code=204)

    def _put_task_configs(name: str, headers: Mapping[str, str], body: bytes) -> None:
        worker.put_task_configs(name, task_configs_body(body), headers=headers, body=body)

    @router.put("/connectors/{name}/fence", status_code=204, include_in_schema=False)
    async def fence_zombies(name: str, http: Request) -> Response:
        name = connector_name(name)
        body = await http.body()
        await run_in_threadpool(worker.fence_zombies, name, headers=http.headers, body=body)
        return Response(status_code=204)

    return router


def task_configs_body(body: bytes) -> list[dict[str, str]] | None:
    """The body of ``POST /connectors/{name}/tasks``: a JSON list of string maps, or None
    when it is not one (refused by the herder once the request's signature is checked)."""
    try:
        value = json.loads(body or b"null")
    except ValueError:
        return None
    if not isinstance(value, list) or not all(
        isinstance(c, dict) and all(isinstance(v, str) for v in c.values()) for c in value
    ):
        return None
    return [dict(c) for c in value]
