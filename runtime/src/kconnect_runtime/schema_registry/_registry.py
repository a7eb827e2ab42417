"""The registry's operations (register, look up, delete, configure), with Confluent's errors."""

from __future__ import annotations

import json
import threading
from typing import Any

from ._compat import CompatibilityLevel, canonical, check_compatibility, parse, problem_text
from ._store import (
    KafkaSchemaLog,
    RegistryState,
    SchemaVersion,
    config_key,
    delete_subject_key,
    schema_key,
)

__all__ = ["Registry", "RegistryError"]


class RegistryError(Exception):
    """An error the REST API answers with ``{"error_code": code, "message": message}``."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def _subject_not_found(subject: str) -> RegistryError:
    return RegistryError(404, 40401, f"Subject '{subject}' not found.")


def _version_not_found(version: Any) -> RegistryError:
    return RegistryError(404, 40402, f"Version {version} not found.")


def _schema_not_found(what: str = "Schema not found") -> RegistryError:
    return RegistryError(404, 40403, what)


class Registry:
    """Confluent Schema Registry semantics over a :class:`RegistryState` and its log."""

    def __init__(self, state: RegistryState, store: KafkaSchemaLog | None) -> None:
        self.state = state
        self.store = store
        self._lock = threading.RLock()

    def _write(self, key: dict[str, Any], value: dict[str, Any] | None) -> None:
        if self.store is not None:
            try:
                self.store.append(key, value)
            except Exception as exc:
                raise RegistryError(500, 50001, f"Error while storing: {exc}") from None
        self.state.apply(key, value)

    # -- schemas -------------------------------------------------------------------------
    def schema_by_id(self, schema_id: int) -> SchemaVersion:
        entry = self.state.schemas.get(schema_id)
        if entry is None:
            raise _schema_not_found(f"Schema {schema_id} not found")
        return entry

    def subject_versions_of_id(self, schema_id: int, deleted: bool = False) -> list[SchemaVersion]:
        self.schema_by_id(schema_id)
        return [
            e
            for subject in sorted(self.state.subjects)
            for e in self.state.versions(subject, deleted=deleted)
            if e.id == schema_id
        ]

    # -- subjects ------------------------------------------------------------------------
    def subjects(self, deleted: bool = False, prefix: str = "") -> list[str]:
        return sorted(
            s
            for s in self.state.subjects
            if s.startswith(prefix) and self.state.versions(s, deleted=deleted)
        )

    def versions(self, subject: str, deleted: bool = False) -> list[int]:
        entries = self.state.versions(subject, deleted=deleted)
        if not entries:
            raise _subject_not_found(subject)
        return [e.version for e in entries]

    def version(self, subject: str, version: str, deleted: bool = False) -> SchemaVersion:
        all_entries = self.state.versions(subject, deleted=True)
        if not all_entries:
            raise _subject_not_found(subject)
        entries = self.state.versions(subject, deleted=deleted)
        if version in ("latest", "-1"):
            if not entries:
                raise _subject_not_found(subject)
            return entries[-1]
        try:
            number = int(version)
        except ValueError:
            raise RegistryError(
                422,
                42202,
                f"The specified version '{version}' is not a valid version id. Allowed values are "
                f'between [1, 2^31-1] and the string "latest"',
            ) from None
        if number <= 0:
            raise RegistryError(
                422,
                42202,
                f"The specified version '{version}' is not a valid version id. Allowed values are "
                f'between [1, 2^31-1] and the string "latest"',
            )
        for entry in entries:
            if entry.version == number:
                return entry
        raise _version_not_found(number)

    def _parse_request(self, body: Any) -> tuple[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("schema"), str):
            raise RegistryError(422, 42201, 'Invalid schema: the body needs a "schema" string')
        schema_type = body.get("schemaType") or "AVRO"
        if schema_type != "AVRO":
            raise RegistryError(
                422, 42201, f"Invalid schema type {schema_type}: this registry serves AVRO only"
            )
        if body.get("references"):
            raise RegistryError(
                422, 42201, "Invalid schema: schema references are not supported by this registry"
            )
        text: str = body["schema"]
        try:
            return text, parse(text)
        except ValueError as exc:
            raise RegistryError(422, 42201, str(exc)) from None

    def lookup(self, subject: str, body: Any, deleted: bool = False) -> SchemaVersion:
        _, node = self._parse_request(body)
        entries = self.state.versions(subject, deleted=deleted)
        if not entries:
            raise _subject_not_found(subject)
        wanted = canonical(node)
        for entry in reversed(entries):
            if canonical(json.loads(entry.schema)) == wanted:
                return entry
        raise _schema_not_found()

    def register(self, subject: str, body: Any) -> int:
        text, node = self._parse_request(body)
        with self._lock:
            wanted = canonical(node)
            live = self.state.versions(subject)
            for entry in live:
                if canonical(json.loads(entry.schema)) == wanted:
                    return entry.id
            self._check(subject, node, live, self.state.level(subject))
            schema_id = self.state.ids_by_canonical.get(wanted)
            if schema_id is None:
                schema_id = self.state.max_id + 1
            every = self.state.versions(subject, deleted=True)
            version = (every[-1].version if every else 0) + 1
            entry = SchemaVersion(subject, version, schema_id, text)
            self._write(schema_key(subject, version), entry.value())
            return schema_id

    def _check(
        self, subject: str, node: Any, live: list[SchemaVersion], level: CompatibilityLevel
    ) -> None:
        previous = [json.loads(e.schema) for e in live]
        problems = check_compatibility(level, node, previous)
        if problems:
            details = ", ".join(problem_text(p) for p in problems)
            raise RegistryError(
                409,
                409,
                f"Schema being registered is incompatible with an earlier schema for subject "
                f'"{subject}", details: [{details}, {{oldSchemaVersion: {live[-1].version}}}, '
                f"{{oldSchema: '{live[-1].schema}'}}, {{compatibility: '{level.value}'}}]",
            )

    def test_compatibility(
        self, subject: str, version: str | None, body: Any
    ) -> list[dict[str, str]]:
        _, node = self._parse_request(body)
        level = self.state.level(subject)
        live = self.state.versions(subject)
        if version is None:
            against = live
        else:
            if not live and version == "latest":
                return []
            against = [self.version(subject, version)]
            if level.value.endswith("_TRANSITIVE"):
                level = CompatibilityLevel(level.value.removesuffix("_TRANSITIVE"))
        return check_compatibility(level, node, [json.loads(e.schema) for e in against])

    def delete_subject(self, subject: str, permanent: bool) -> list[int]:
        with self._lock:
            every = self.state.versions(subject, deleted=True)
            if not every:
                raise _subject_not_found(subject)
            live = [e for e in every if not e.deleted]
            if not permanent:
                if not live:
                    raise RegistryError(
                        404,
                        40404,
                        f"Subject '{subject}' was soft deleted.Set permanent=true to delete "
                        f"permanently",
                    )
                self._write(
                    delete_subject_key(subject),
                    {"subject": subject, "version": live[-1].version},
                )
                return [e.version for e in live]
            if live:
                raise RegistryError(
                    404,
                    40405,
                    f"Subject '{subject}' was not deleted first before being permanently deleted",
                )
            for entry in reversed(every):
                self._write(schema_key(subject, entry.version), None)
            return [e.version for e in every]

    def delete_version(self, subject: str, version: str, permanent: bool) -> int:
        with self._lock:
            entry = self.version(subject, version, deleted=permanent)
            if permanent:
                if not entry.deleted:
                    raise RegistryError(
                        404,
                        40407,
                        f"Subject '{subject}' Version {entry.version} was not deleted first before "
                        f"being permanently deleted",
                    )
                self._write(schema_key(subject, entry.version), None)
            else:
                if entry.deleted:
                    raise RegistryError(
                        404,
                        40406,
                        f"Subject '{subject}' Version {entry.version} was soft deleted.Set "
                        f"permanent=true to delete permanently",
                    )
                deleted = SchemaVersion(
                    entry.subject, entry.version, entry.id, entry.schema, entry.schema_type, True
                )
                self._write(schema_key(subject, entry.version), deleted.value())
            return entry.version

    # -- config --------------------------------------------------------------------------
    def set_level(self, subject: str | None, body: Any) -> str:
        raw = body.get("compatibility") if isinstance(body, dict) else None
        try:
            level = CompatibilityLevel(str(raw).upper())
        except ValueError:
            raise RegistryError(
                422,
                42203,
                f"Invalid compatibility level. Valid values are none, backward, forward, full, "
                f"backward_transitive, forward_transitive, and full_transitive (got {raw!r})",
            ) from None
        with self._lock:
            self._write(config_key(subject), {"compatibilityLevel": level.value})
        return level.value

    def get_level(self, subject: str | None, default_to_global: bool) -> str:
        if subject is None:
            return self.state.level(None).value
        found = self.state.subject_levels.get(subject)
        if found is not None:
            return found.value
        if default_to_global:
            return self.state.level(None).value
        raise RegistryError(
            404,
            40408,
            f"Subject '{subject}' does not have subject-level compatibility configured",
        )

    def delete_level(self, subject: str | None) -> str:
        with self._lock:
            current = self.state.level(subject).value
            if subject is not None and subject not in self.state.subject_levels:
                raise _subject_not_found(subject)
            self._write(config_key(subject), None)
            return current
