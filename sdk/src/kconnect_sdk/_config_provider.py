"""Config providers: look secrets up outside the config, through ``${provider:path:key}``.

Mirrors Kafka's ``org.apache.kafka.common.config.provider`` package and its
``ConfigTransformer``: the worker configures named providers (``config.providers=file``,
``config.providers.file.class=...``, ``config.providers.file.param.*``) and every
placeholder in a worker or connector config is replaced by the provider's value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ._errors import ConfigError
from ._properties import parse_properties
from ._versioned import Versioned

__all__ = [
    "ConfigData",
    "ConfigProvider",
    "DirectoryConfigProvider",
    "EnvVarConfigProvider",
    "FileConfigProvider",
    "resolve_placeholders",
]

PLACEHOLDER_PATTERN: Final = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")
"""Kafka's ``ConfigTransformer.DEFAULT_PATTERN``: ``${provider:[path:]key}``."""

ALLOWED_PATHS_CONFIG: Final = "allowed.paths"
ALLOWLIST_PATTERN_CONFIG: Final = "allowlist.pattern"


@dataclass(frozen=True, slots=True)
class ConfigData:
    """Values a provider found at one path, and how long they stay valid.

    Attributes:
        data: key → value.
        ttl_ms: milliseconds until the values may change, or None when they do not expire.
    """

    data: dict[str, str] = field(default_factory=dict)
    ttl_ms: int | None = None


class ConfigProvider(Versioned):
    """Base of config providers (Kafka's ``ConfigProvider``).

    A provider is created by the worker, given its ``param.*`` settings through
    :meth:`configure`, asked for values with :meth:`get` and closed on shutdown.
    """

    def configure(self, params: Mapping[str, Any]) -> None:
        """Receive the provider's parameters (``config.providers.<name>.param.*``, prefix stripped)."""

    def get(self, path: str, keys: Iterable[str] | None = None) -> ConfigData:
        """The values at ``path``: every one, or only ``keys`` when given.

        A key that is not found is left out of the result. Raises :class:`ConfigError`
        when ``path`` cannot be read or is not allowed.
        """
        raise NotImplementedError

    def close(self) -> None:
        """Release resources; the provider is not used afterwards."""


class _AllowedPaths:
    """Kafka's ``allowed.paths``: unset allows every path, else paths under the listed ones."""

    def __init__(self, setting: Any) -> None:
        self.roots: list[Path] | None = None
        if setting is None or not str(setting).strip():
            return
        roots = []
        for raw in str(setting).split(","):
            text = raw.strip()
            if not text:
                continue
            if not os.path.isabs(text):
                raise ConfigError(
                    f"Invalid value {text} for configuration {ALLOWED_PATHS_CONFIG}: path is not "
                    "absolute; list absolute directories separated by commas",
                    name=ALLOWED_PATHS_CONFIG,
                    value=text,
                )
            roots.append(Path(os.path.realpath(text)))
        self.roots = roots

    def check(self, path: str, provider: str) -> Path:
        # realpath resolves '..' and symlinks, so neither can lead outside an allowed root.
        resolved = Path(os.path.realpath(path))
        if self.roots is not None and not any(resolved.is_relative_to(r) for r in self.roots):
            allowed = ", ".join(str(r) for r in self.roots)
            raise ConfigError(
                f"{provider}: path {path!r} is not inside {ALLOWED_PATHS_CONFIG} ({allowed}); "
                f"move the file or add its directory to {ALLOWED_PATHS_CONFIG}",
                name=ALLOWED_PATHS_CONFIG,
                value=path,
            )
        return resolved


class FileConfigProvider(ConfigProvider):
    """Values from a Java ``.properties`` file: ``${file:/etc/kafka/secrets.properties:db.password}``.

    Parameters: ``allowed.paths`` (comma-separated absolute directories; unset allows all).
    """

    def __init__(self) -> None:
        self._allowed = _AllowedPaths(None)

    def configure(self, params: Mapping[str, Any]) -> None:
        self._allowed = _AllowedPaths(params.get(ALLOWED_PATHS_CONFIG))

    def get(self, path: str, keys: Iterable[str] | None = None) -> ConfigData:
        if not path:
            return ConfigData({})
        resolved = self._allowed.check(path, "FileConfigProvider")
        try:
            text = resolved.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"FileConfigProvider: cannot read properties file {path!r}: {exc.strerror or exc}",
                value=path,
            ) from exc
        props = parse_properties(text, source=path)
        if keys is not None:
            wanted = set(keys)
            props = {k: v for k, v in props.items() if k in wanted}
        return ConfigData(props)


class DirectoryConfigProvider(ConfigProvider):
    """Values from a directory holding one file per key (Kubernetes secret volumes):
    ``${dir:/run/secrets:db-password}`` is the content of ``/run/secrets/db-password``.

    Parameters: ``allowed.paths`` (comma-separated absolute directories; unset allows all).
    """

    def __init__(self) -> None:
        self._allowed = _AllowedPaths(None)

    def configure(self, params: Mapping[str, Any]) -> None:
        self._allowed = _AllowedPaths(params.get(ALLOWED_PATHS_CONFIG))

    def get(self, path: str, keys: Iterable[str] | None = None) -> ConfigData:
        if not path:
            return ConfigData({})
        directory = self._allowed.check(path, "DirectoryConfigProvider")
        if not directory.is_dir():
            raise ConfigError(
                f"DirectoryConfigProvider: {path!r} is not a readable directory; check the path "
                "in the placeholder",
                value=path,
            )
        if keys is None:
            names = [p.name for p in directory.iterdir()]
        else:
            # A key naming a file elsewhere ('../x', 'a/b') must not escape the directory.
            names = [k for k in keys if k and os.sep not in k and k not in (".", "..")]
        data: dict[str, str] = {}
        for name in names:
            file = directory / name
            if file.is_file():
                try:
                    data[name] = file.read_text(encoding="utf-8")
                except OSError as exc:
                    raise ConfigError(
                        f"DirectoryConfigProvider: cannot read {str(file)!r}: "
                        f"{exc.strerror or exc}",
                        value=str(file),
                    ) from exc
        return ConfigData(data)


class EnvVarConfigProvider(ConfigProvider):
    """Values from environment variables: ``${env:DB_PASSWORD}``.

    Parameters: ``allowlist.pattern``, a regular expression a variable name must match in
    full to be visible (default: every variable).
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ
        self._allow: re.Pattern[str] | None = None

    def configure(self, params: Mapping[str, Any]) -> None:
        pattern = params.get(ALLOWLIST_PATTERN_CONFIG)
        if pattern is None:
            self._allow = None
            return
        try:
            self._allow = re.compile(str(pattern))
        except re.error as exc:
            raise ConfigError(
                f"Invalid value {pattern} for configuration {ALLOWLIST_PATTERN_CONFIG}: "
                f"not a regular expression ({exc})",
                name=ALLOWLIST_PATTERN_CONFIG,
                value=pattern,
            ) from exc

    def get(self, path: str, keys: Iterable[str] | None = None) -> ConfigData:
        if path:
            raise ConfigError(
                f"EnvVarConfigProvider does not take a path, got {path!r}; "
                "write the placeholder as ${env:VARIABLE}",
                value=path,
            )
        environ = os.environ if self._environ is None else self._environ
        visible = {
            k: v for k, v in environ.items() if self._allow is None or self._allow.fullmatch(k)
        }
        if keys is not None:
            wanted = set(keys)
            visible = {k: v for k, v in visible.items() if k in wanted}
        return ConfigData(visible)


def resolve_placeholders(
    props: Mapping[str, str], providers: Mapping[str, ConfigProvider]
) -> dict[str, str]:
    """``props`` with every ``${provider:[path:]key}`` replaced by the provider's value.

    Each provider is asked once per path for all the keys wanted there. Values are not
    resolved again, so a looked-up value containing ``${...}`` stays as it is.

    Raises:
        ConfigError: naming the placeholder and the config key when the provider is not
            configured, the provider cannot read the path, or the key is not found.
    """
    wanted: dict[tuple[str, str], set[str]] = {}
    owner: dict[
        tuple[str, str], tuple[str, str]
    ] = {}  # (provider, path) -> first (config, placeholder)
    for config_key, value in props.items():
        for match in PLACEHOLDER_PATTERN.finditer(value):
            name, path, key = match.group(1), match.group(3) or "", match.group(4)
            if name not in providers:
                known = ", ".join(sorted(providers)) or "none"
                raise ConfigError(
                    f"config {config_key!r}: placeholder {match.group(0)!r} names config "
                    f"provider {name!r}, which is not configured (configured: {known}); add it "
                    f"to config.providers with config.providers.{name}.class",
                    name=config_key,
                )
            wanted.setdefault((name, path), set()).add(key)
            owner.setdefault((name, path), (config_key, match.group(0)))
    found: dict[tuple[str, str], dict[str, str]] = {}
    for (name, path), keys in wanted.items():
        try:
            found[(name, path)] = providers[name].get(path, keys).data
        except ConfigError as exc:
            config_key, placeholder = owner[(name, path)]
            raise ConfigError(
                f"config {config_key!r}: placeholder {placeholder!r} could not be resolved: {exc}",
                name=config_key,
            ) from exc

    def lookup(config_key: str, match: re.Match[str]) -> str:
        name, path, key = match.group(1), match.group(3) or "", match.group(4)
        data = found[(name, path)]
        if key not in data:
            where = f" at path {path!r}" if path else ""
            raise ConfigError(
                f"config {config_key!r}: placeholder {match.group(0)!r}: config provider "
                f"{name!r} has no key {key!r}{where}; check the key name and the provider's source",
                name=config_key,
            )
        return data[key]

    def substitute(config_key: str, value: str) -> str:
        return PLACEHOLDER_PATTERN.sub(lambda m: lookup(config_key, m), value)

    return {k: substitute(k, v) for k, v in props.items()}
