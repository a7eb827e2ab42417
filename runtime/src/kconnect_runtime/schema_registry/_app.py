"""The Confluent Schema Registry REST API (the subset serializers, converters and tools use)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from ._compat import problem_text
from ._registry import Registry, RegistryError
from ._store import SchemaVersion

__all__ = ["create_app"]

MEDIA_TYPE = "application/vnd.schemaregistry.v1+json"


def _json(body: Any, status: int = 200) -> Response:
    return JSONResponse(body, status_code=status, media_type=MEDIA_TYPE)


def _flag(value: str | None) -> bool:
    return value is not None and value.lower() == "true"


def _entry(entry: SchemaVersion) -> dict[str, Any]:
    out: dict[str, Any] = {"subject": entry.subject, "version": entry.version, "id": entry.id}
    if entry.schema_type != "AVRO":
        out["schemaType"] = entry.schema_type
    out["schema"] = entry.schema
    return out


async def _body(request: Request) -> Any:
    raw = await request.body()
    if not raw:
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise RegistryError(422, 422, f"Unrecognized JSON in the request body: {exc}") from None


def create_app(registry: Registry) -> FastAPI:
    """The FastAPI app serving ``registry`` with Confluent's paths, bodies and error codes."""
    app = FastAPI(title="kconnect schema registry", version="1")

    @app.exception_handler(RegistryError)
    async def registry_error(_request: Request, exc: RegistryError) -> Response:
        return _json({"error_code": exc.code, "message": exc.message}, exc.status)

    @app.get("/")
    def root() -> Response:
        return _json({})

    @app.get("/schemas/types")
    def schema_types() -> Response:
        return _json(["AVRO"])

    @app.get("/schemas/ids/{schema_id}")
    def schema_by_id(schema_id: int) -> Response:
        entry = registry.schema_by_id(schema_id)
        out: dict[str, Any] = {}
        if entry.schema_type != "AVRO":
            out["schemaType"] = entry.schema_type
        out["schema"] = entry.schema
        return _json(out)

    @app.get("/schemas/ids/{schema_id}/schema")
    def raw_schema_by_id(schema_id: int) -> Response:
        return PlainTextResponse(registry.schema_by_id(schema_id).schema, media_type=MEDIA_TYPE)

    @app.get("/schemas/ids/{schema_id}/subjects")
    def subjects_of_id(schema_id: int, deleted: str | None = None) -> Response:
        entries = registry.subject_versions_of_id(schema_id, _flag(deleted))
        return _json(sorted({e.subject for e in entries}))

    @app.get("/schemas/ids/{schema_id}/versions")
    def versions_of_id(schema_id: int, deleted: str | None = None) -> Response:
        entries = registry.subject_versions_of_id(schema_id, _flag(deleted))
        return _json([{"subject": e.subject, "version": e.version} for e in entries])

    @app.get("/schemas")
    def schemas(
        subjectPrefix: str = "",
        deleted: str | None = None,
        latestOnly: str | None = None,
    ) -> Response:
        out = []
        for subject in registry.subjects(_flag(deleted), subjectPrefix):
            entries = registry.state.versions(subject, deleted=_flag(deleted))
            for entry in entries[-1:] if _flag(latestOnly) else entries:
                out.append(_entry(entry))
        return _json(out)

    @app.get("/contexts")
    def contexts() -> Response:
        return _json(["."])

    @app.get("/subjects/{subject}/versions/{version}/referencedby")
    def referenced_by(subject: str, version: str) -> Response:
        registry.version(subject, version)
        return _json([])  # schema references are not supported, so nothing refers

    @app.get("/subjects")
    def subjects(deleted: str | None = None, subjectPrefix: str = "") -> Response:
        return _json(registry.subjects(_flag(deleted), subjectPrefix))

    @app.get("/subjects/{subject}/versions")
    def versions(subject: str, deleted: str | None = None) -> Response:
        return _json(registry.versions(subject, _flag(deleted)))

    @app.get("/subjects/{subject}/versions/{version}")
    def version(subject: str, version: str, deleted: str | None = None) -> Response:
        return _json(_entry(registry.version(subject, version, _flag(deleted))))

    @app.get("/subjects/{subject}/versions/{version}/schema")
    def raw_version(subject: str, version: str, deleted: str | None = None) -> Response:
        entry = registry.version(subject, version, _flag(deleted))
        return PlainTextResponse(entry.schema, media_type=MEDIA_TYPE)

    @app.post("/subjects/{subject}/versions")
    async def register(subject: str, request: Request) -> Response:
        schema_id = registry.register(subject, await _body(request))
        return _json({"id": schema_id})

    @app.post("/subjects/{subject}")
    async def lookup(subject: str, request: Request, deleted: str | None = None) -> Response:
        return _json(_entry(registry.lookup(subject, await _body(request), _flag(deleted))))

    @app.delete("/subjects/{subject}")
    def delete_subject(subject: str, permanent: str | None = None) -> Response:
        return _json(registry.delete_subject(subject, _flag(permanent)))

    @app.delete("/subjects/{subject}/versions/{version}")
    def delete_version(subject: str, version: str, permanent: str | None = None) -> Response:
        return _json(registry.delete_version(subject, version, _flag(permanent)))

    @app.post("/compatibility/subjects/{subject}/versions/{version}")
    async def compatible_with_version(
        subject: str, version: str, request: Request, verbose: str | None = None
    ) -> Response:
        problems = registry.test_compatibility(subject, version, await _body(request))
        return _compat_response(problems, _flag(verbose))

    @app.post("/compatibility/subjects/{subject}/versions")
    async def compatible_with_all(
        subject: str, request: Request, verbose: str | None = None
    ) -> Response:
        problems = registry.test_compatibility(subject, None, await _body(request))
        return _compat_response(problems, _flag(verbose))

    @app.get("/config")
    def get_config() -> Response:
        return _json({"compatibilityLevel": registry.get_level(None, True)})

    @app.put("/config")
    async def put_config(request: Request) -> Response:
        return _json({"compatibility": registry.set_level(None, await _body(request))})

    @app.delete("/config")
    def delete_config() -> Response:
        return _json({"compatibilityLevel": registry.delete_level(None)})

    @app.get("/config/{subject}")
    def get_subject_config(subject: str, defaultToGlobal: str | None = None) -> Response:
        return _json({"compatibilityLevel": registry.get_level(subject, _flag(defaultToGlobal))})

    @app.put("/config/{subject}")
    async def put_subject_config(subject: str, request: Request) -> Response:
        return _json({"compatibility": registry.set_level(subject, await _body(request))})

    @app.delete("/config/{subject}")
    def delete_subject_config(subject: str) -> Response:
        return _json({"compatibilityLevel": registry.delete_level(subject)})

    @app.get("/mode")
    def mode() -> Response:
        return _json({"mode": "READWRITE"})

    @app.get("/mode/{subject}")
    def subject_mode(subject: str) -> Response:
        return _json({"mode": "READWRITE"})

    return app


def _compat_response(problems: list[dict[str, str]], verbose: bool) -> Response:
    body: dict[str, Any] = {"is_compatible": not problems}
    if verbose:
        body["messages"] = [problem_text(p) for p in problems]
    return _json(body)
