"""Config providers: ``${provider:[path:]key}`` placeholders in worker and connector configs.

Configured as in Kafka Connect: ``config.providers=file,env``,
``config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider``,
``config.providers.file.param.allowed.paths=/etc/secrets``. Stored configs keep their
placeholders; only the copies handed to connectors and tasks are resolved.
"""

from __future__ import annotations

from collections.abc import Mapping

from kconnect_sdk import ConfigError, ConfigProvider, resolve_placeholders
from kconnect_sdk._config_provider import PLACEHOLDER_PATTERN

from kconnect_runtime.plugins import PluginKind, PluginRegistry

__all__ = ["ConfigProviders"]


class ConfigProviders:
    """The providers a worker config declares, ready to resolve placeholders."""

    def __init__(self, providers: Mapping[str, ConfigProvider]) -> None:
        self.providers = dict(providers)

    @classmethod
    def from_worker_config(
        cls, registry: PluginRegistry, worker_props: Mapping[str, str]
    ) -> ConfigProviders:
        names = [
            n.strip() for n in worker_props.get("config.providers", "").split(",") if n.strip()
        ]
        providers: dict[str, ConfigProvider] = {}
        for name in names:
            class_key = f"config.providers.{name}.class"
            class_name = worker_props.get(class_key, "").strip()
            if not class_name:
                raise ConfigError(
                    f"config provider {name!r} is listed in config.providers but {class_key} is not set",
                    name=class_key,
                )
            provider: ConfigProvider = registry.load(
                class_name, PluginKind.CONFIG_PROVIDER, key=class_key
            )()
            prefix = f"config.providers.{name}.param."
            params = {k[len(prefix) :]: v for k, v in worker_props.items() if k.startswith(prefix)}
            try:
                provider.configure(params)
            except ConfigError as exc:
                raise ConfigError(f"config provider {name!r}: {exc}", name=exc.name) from exc
            providers[name] = provider
        return cls(providers)

    def resolve(self, props: Mapping[str, str]) -> dict[str, str]:
        """``props`` with every placeholder resolved; ConfigError names the key and placeholder."""
        if not any("${" in v for v in props.values()):
            return dict(props)
        return resolve_placeholders(props, self.providers)

    @staticmethod
    def unresolve(
        raw: Mapping[str, str], resolved: Mapping[str, str], derived: Mapping[str, str]
    ) -> dict[str, str]:
        """``derived`` (e.g. a task config) with resolved secrets put back as their placeholders.

        A value is put back when its key held a placeholder in ``raw`` and the derived value
        is exactly the resolved one, as Kafka Connect does before storing task configs.
        """
        out = dict(derived)
        for key, value in derived.items():
            original = raw.get(key)
            if (
                original is not None
                and PLACEHOLDER_PATTERN.search(original)
                and value == resolved.get(key)
            ):
                out[key] = original
        return out

    def close(self) -> None:
        for provider in self.providers.values():
            provider.close()
