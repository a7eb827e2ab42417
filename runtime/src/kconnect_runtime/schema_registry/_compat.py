"""Avro schema compatibility, by Avro's schema-resolution rules, as the registry checks it.

``reader_can_read(reader, writer)`` answers whether data written with ``writer`` can be read
with ``reader`` (the Avro specification's "Schema Resolution"), listing each problem in the
vocabulary of Avro Java's ``SchemaCompatibility`` that Confluent's registry reports.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Final

import fastavro
from fastavro.schema import SchemaParseException

__all__ = [
    "CompatibilityLevel",
    "canonical",
    "check_compatibility",
    "parse",
    "problem_text",
    "reader_can_read",
]

_PRIMITIVES: Final = frozenset(
    ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
)
_NAMED: Final = frozenset(("record", "error", "enum", "fixed"))
# writer type -> reader types that can read it (Avro's promotions).
_PROMOTIONS: Final = {
    "int": {"int", "long", "float", "double"},
    "long": {"long", "float", "double"},
    "float": {"float", "double"},
    "string": {"string", "bytes"},
    "bytes": {"bytes", "string"},
}


class CompatibilityLevel(StrEnum):
    """Confluent's compatibility levels."""

    NONE = "NONE"
    BACKWARD = "BACKWARD"
    BACKWARD_TRANSITIVE = "BACKWARD_TRANSITIVE"
    FORWARD = "FORWARD"
    FORWARD_TRANSITIVE = "FORWARD_TRANSITIVE"
    FULL = "FULL"
    FULL_TRANSITIVE = "FULL_TRANSITIVE"


def parse(schema_text: str) -> Any:
    """Parse and validate Avro schema text; raises ValueError saying what is wrong."""
    try:
        node = json.loads(schema_text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"Invalid schema: not JSON: {exc}") from None
    if isinstance(node, str) and node not in _PRIMITIVES:
        raise ValueError(f"Invalid schema: unknown type {node!r}")
    try:
        fastavro.parse_schema(node, _write_hint=False, _force=True)
    except (SchemaParseException, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"Invalid schema {schema_text}: {type(exc).__name__}: {exc}") from None
    return node


def canonical(node: Any) -> str:
    """A text equal for equal schemas, whatever their whitespace and key order."""
    if isinstance(node, dict) and set(node) == {"type"} and node["type"] in _PRIMITIVES:
        node = node["type"]
    return json.dumps(node, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class _Names:
    def __init__(self) -> None:
        self.types: dict[str, dict[str, Any]] = {}

    def walk(self, node: Any, space: str | None) -> None:
        """Index every named type of a schema by full name (and remember its namespace)."""
        if isinstance(node, list):
            for member in node:
                self.walk(member, space)
            return
        if not isinstance(node, dict):
            return
        kind = node.get("type")
        if isinstance(kind, list | dict):
            self.walk(kind, space)
            return
        if kind in _NAMED:
            full = _full(node, space)
            inner = full.rsplit(".", 1)[0] if "." in full else None
            self.types[full] = {**node, "_full": full, "_space": inner}
            for field in node.get("fields", ()):
                self.walk(field["type"], inner)
        elif kind == "array":
            self.walk(node["items"], space)
        elif kind == "map":
            self.walk(node["values"], space)

    def resolve(self, node: Any, space: str | None) -> tuple[Any, str | None]:
        if isinstance(node, str):
            if node in _PRIMITIVES:
                return node, space
            full = node if "." in node or not space else f"{space}.{node}"
            found = self.types.get(full) or self.types.get(node)
            if found is None:
                raise ValueError(f"unknown type {node!r}")
            return found, found["_space"]
        if isinstance(node, dict):
            kind = node.get("type")
            if isinstance(kind, list | dict):
                return self.resolve(kind, space)
            if isinstance(kind, str) and kind in _NAMED:
                full = _full(node, space)
                found = self.types.get(full, node)
                return found, found.get("_space", space)
            if isinstance(kind, str) and kind not in _PRIMITIVES and kind not in ("array", "map"):
                return self.resolve(kind, space)
        return node, space


def _full(node: dict[str, Any], space: str | None) -> str:
    name: str = node["name"]
    if "." in name:
        return name
    ns = node.get("namespace", space)
    return f"{ns}.{name}" if ns else name


def _kind(node: Any) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, list):
        return "union"
    return str(node["type"])


class _Checker:
    def __init__(self, reader: Any, writer: Any) -> None:
        self.rnames = _Names()
        self.rnames.walk(reader, None)
        self.wnames = _Names()
        self.wnames.walk(writer, None)
        self.errors: list[dict[str, str]] = []
        self.seen: set[tuple[str, str]] = set()

    def fail(self, kind: str, description: str, path: str, info: str = "") -> None:
        self.errors.append(
            {"errorType": kind, "description": description, "additionalInfo": info, "path": path}
        )

    def check(
        self, reader: Any, rspace: str | None, writer: Any, wspace: str | None, path: str
    ) -> bool:
        reader, rspace = self.rnames.resolve(reader, rspace)
        writer, wspace = self.wnames.resolve(writer, wspace)
        rk, wk = _kind(reader), _kind(writer)
        if wk == "union":
            ok = True
            for i, member in enumerate(writer):
                if not self._readable(reader, rspace, member, wspace):
                    wm, _ = self.wnames.resolve(member, wspace)
                    self.fail(
                        "MISSING_UNION_BRANCH",
                        f"The new schema is missing a type inside a union field at path "
                        f"'{path}/{i}' in the old schema: '{_kind(wm)}'",
                        f"{path}/{i}",
                        f"reader union lacking writer type: {_kind(wm).upper()}",
                    )
                    ok = False
            return ok
        if rk == "union":
            for member in reader:
                if self._readable(member, rspace, writer, wspace):
                    return self.check(member, rspace, writer, wspace, path)
            self.fail(
                "MISSING_UNION_BRANCH",
                f"The new schema is missing a type inside a union field at path '{path}' in the "
                f"old schema: '{wk}'",
                path,
                f"reader union lacking writer type: {wk.upper()}",
            )
            return False
        if rk != wk and rk not in _PROMOTIONS.get(wk, ()):
            self.fail(
                "TYPE_MISMATCH",
                f"The type (path '{path}') of a field in the new schema does not match with the "
                f"old schema",
                path,
                f"reader type: {rk.upper()} not compatible with writer type: {wk.upper()}",
            )
            return False
        if rk in _PRIMITIVES:
            return True
        if rk in _NAMED:
            rname = reader["_full"].rsplit(".", 1)[-1] if "_full" in reader else reader["name"]
            wname = writer["_full"].rsplit(".", 1)[-1] if "_full" in writer else writer["name"]
            aliases = {a.rsplit(".", 1)[-1] for a in reader.get("aliases", ())}
            if rname != wname and wname not in aliases:
                self.fail(
                    "NAME_MISMATCH",
                    f"The name of the schema has changed (path '{path}/name')",
                    f"{path}/name",
                    f"expected: {wname}",
                )
                return False
        if rk == "fixed":
            if reader["size"] != writer["size"]:
                self.fail(
                    "FIXED_SIZE_MISMATCH",
                    f"The size of FIXED type field at path '{path}/size' in the new schema does "
                    f"not match with the old schema",
                    f"{path}/size",
                    f"expected: {writer['size']}, found: {reader['size']}",
                )
                return False
            return True
        if rk == "enum":
            missing = [s for s in writer["symbols"] if s not in reader["symbols"]]
            if missing and reader.get("default") is None:
                self.fail(
                    "MISSING_ENUM_SYMBOLS",
                    f"The new schema is missing enum symbols '{missing}' at path "
                    f"'{path}/symbols' in the old schema",
                    f"{path}/symbols",
                    str(missing),
                )
                return False
            return True
        if rk == "array":
            return self.check(reader["items"], rspace, writer["items"], wspace, f"{path}/items")
        if rk == "map":
            return self.check(reader["values"], rspace, writer["values"], wspace, f"{path}/values")
        # records
        pair = (reader.get("_full", ""), writer.get("_full", ""))
        if pair in self.seen:
            return True
        self.seen.add(pair)
        wfields = {f["name"]: f for f in writer["fields"]}
        for f in writer["fields"]:
            for alias in f.get("aliases", ()):
                wfields.setdefault(alias, f)
        ok = True
        for i, rfield in enumerate(reader["fields"]):
            wfield = wfields.get(rfield["name"])
            if wfield is None:
                for alias in rfield.get("aliases", ()):
                    wfield = wfields.get(alias)
                    if wfield is not None:
                        break
            fpath = f"{path}/fields/{i}"
            if wfield is None:
                if "default" not in rfield:
                    self.fail(
                        "READER_FIELD_MISSING_DEFAULT_VALUE",
                        f"The field '{rfield['name']}' at path '{fpath}' in the new schema has "
                        f"no default value and is missing in the old schema",
                        fpath,
                        rfield["name"],
                    )
                    ok = False
                continue
            if not self.check(rfield["type"], rspace, wfield["type"], wspace, f"{fpath}/type"):
                ok = False
        return ok

    def _readable(self, reader: Any, rspace: str | None, writer: Any, wspace: str | None) -> bool:
        probe = _Checker.__new__(_Checker)
        probe.rnames, probe.wnames, probe.errors, probe.seen = (
            self.rnames,
            self.wnames,
            [],
            set(self.seen),
        )
        return probe.check(reader, rspace, writer, wspace, "")


def reader_can_read(reader: Any, writer: Any) -> list[dict[str, str]]:
    """The problems reading ``writer``-written data with ``reader``; empty when compatible."""
    checker = _Checker(reader, writer)
    checker.check(reader, None, writer, None, "")
    return checker.errors


def check_compatibility(
    level: CompatibilityLevel, new: Any, previous: Sequence[Any]
) -> list[dict[str, str]]:
    """Problems registering ``new`` after ``previous`` (oldest first) under ``level``."""
    if level is CompatibilityLevel.NONE or not previous:
        return []
    against = previous if level.value.endswith("_TRANSITIVE") else previous[-1:]
    problems: list[dict[str, str]] = []
    for old in reversed(against):
        if level.value.startswith(("BACKWARD", "FULL")):
            problems += reader_can_read(new, old)
        if level.value.startswith(("FORWARD", "FULL")):
            problems += reader_can_read(old, new)
        if problems:
            break
    return problems


def problem_text(problem: dict[str, str]) -> str:
    """One problem as Confluent prints it in error messages."""
    return (
        f"{{errorType:'{problem['errorType']}', description:'{problem['description']}', "
        f"additionalInfo:'{problem['additionalInfo']}'}}"
    )
