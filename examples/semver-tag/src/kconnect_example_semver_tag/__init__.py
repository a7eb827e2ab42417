"""Example third-party kconnect plugin on ``semver`` 2.x, built only against ``kconnect-sdk``.

``SemverTag`` reads a semantic version from each record's value (a string, or the field
``field`` of a struct or map) and adds headers: ``<prefix>.valid`` (``true``/``false``),
``<prefix>.major`` and ``<prefix>.prerelease`` for valid ones, and ``<prefix>.library``
with the semver version that judged it. ``IsPrerelease`` is a predicate that matches
records whose version has a prerelease part. semver 2.x is strict: ``1.2`` is not a
valid version. Example connector config::

    transforms=tag
    transforms.tag.type=kconnect_example_semver_tag.SemverTag
    transforms.tag.header.prefix=semver
    transforms.tag.predicate=pre
    transforms.tag.negate=true
    predicates=pre
    predicates.pre.type=kconnect_example_semver_tag.IsPrerelease
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import semver
from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConnectRecord,
    Importance,
    Predicate,
    Struct,
    Transformation,
)

__all__ = ["IsPrerelease", "SemverTag", "semver_library_version"]

R = TypeVar("R", bound=ConnectRecord)


def semver_library_version() -> str:
    """The version of the semver library this plugin runs with."""
    return str(semver.__version__)


def _field_config() -> ConfigDef:
    return ConfigDef().define(
        "field",
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        documentation="Field of a struct or map value holding the version; empty: the value itself.",
    )


def _version_text(value: Any, field: str) -> str | None:
    if field:
        if isinstance(value, Struct | Mapping):
            value = value.get(field)
        else:
            return None
    return value.strip() if isinstance(value, str) else None


def _parse(text: str | None) -> semver.VersionInfo | None:
    # semver 2.x API: VersionInfo (renamed Version in 3.0), strict three-part versions.
    if text is None:
        return None
    try:
        return semver.VersionInfo.parse(text)
    except ValueError:
        return None


class SemverTag(Transformation[R]):
    """Add headers describing the semantic version a record's value holds."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        parsed = self.config().parse(configs)
        self._field: str = parsed["field"]
        self._prefix: str = parsed["header.prefix"]

    def config(self) -> ConfigDef:
        return _field_config().define(
            "header.prefix",
            ConfigType.STRING,
            "semver",
            importance=Importance.MEDIUM,
            documentation="Prefix of the header names this transform adds.",
        )

    def apply(self, record: R) -> R | None:
        version = _parse(_version_text(record.value, self._field))
        p = self._prefix
        headers = record.headers.add_string(f"{p}.library", semver_library_version())
        headers = headers.add_string(f"{p}.valid", "true" if version else "false")
        if version is not None:
            headers = headers.add_int(f"{p}.major", version.major)
            headers = headers.add_string(f"{p}.prerelease", version.prerelease or "")
        return record.new_record(headers=headers)


class IsPrerelease(Predicate[R]):
    """True for records whose value holds a valid semantic version with a prerelease part."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._field: str = self.config().parse(configs)["field"]

    def config(self) -> ConfigDef:
        return _field_config()

    def test(self, record: R) -> bool:
        version = _parse(_version_text(record.value, self._field))
        return version is not None and bool(version.prerelease)
