"""Example third-party kconnect plugin on ``semver`` 3.x, built only against ``kconnect-sdk``.

``SemverBump`` replaces the semantic version a record's value holds (a string) with the
next major, minor or patch version and adds the header ``semver.bump.library`` with
the semver version that did it. It parses with semver 3's
``Version.parse(..., optional_minor_and_patch=True)``, so ``1.2`` is read as ``1.2.0``;
a value that is no version fails the record with a DataError (``errors.tolerance``
decides what happens to it). Example connector config::

    transforms=bump
    transforms.bump.type=kconnect_example_semver_bump.SemverBump
    transforms.bump.part=minor
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import semver
from kconnect_sdk import (
    ConfigDef,
    ConfigType,
    ConnectRecord,
    DataError,
    Importance,
    Transformation,
    ValidString,
)

__all__ = ["SemverBump", "semver_library_version"]

R = TypeVar("R", bound=ConnectRecord)
LIBRARY_HEADER = "semver.bump.library"


def semver_library_version() -> str:
    """The version of the semver library this plugin runs with."""
    return str(semver.__version__)


class SemverBump(Transformation[R]):
    """Replace a version string value with its next major, minor or patch version."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._part: str = self.config().parse(configs)["part"]

    def config(self) -> ConfigDef:
        return ConfigDef().define(
            "part",
            ConfigType.STRING,
            "minor",
            ValidString.one_of("major", "minor", "patch"),
            importance=Importance.HIGH,
            documentation="Which part of the version to bump: major, minor or patch.",
        )

    def apply(self, record: R) -> R | None:
        text = record.value
        if not isinstance(text, str):
            raise DataError(
                f"SemverBump: record {record.topic}/{record.kafka_partition} has a "
                f"{type(text).__name__} value; expected a version string"
            )
        try:
            # semver 3.x only: Version (VersionInfo in 2.x) and optional minor and patch.
            version = semver.Version.parse(text.strip(), optional_minor_and_patch=True)
        except ValueError as exc:
            raise DataError(f"SemverBump: {text!r} is not a semantic version: {exc}") from exc
        bumped = getattr(version, f"bump_{self._part}")()
        headers = record.headers.add_string(LIBRARY_HEADER, semver_library_version())
        return record.new_record(value=str(bumped), headers=headers)
