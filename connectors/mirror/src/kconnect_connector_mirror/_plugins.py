"""Classes named in a MirrorMaker config: replication policies and filters, found by name.

A config names them as Kafka does (``org.apache.kafka.connect.mirror.IdentityReplicationPolicy``),
by entry point in a ``kconnect.*`` group (other distributions can add their own), or by
``module:Class`` / ``module.Class`` of any importable class.
"""

from __future__ import annotations

import importlib
import importlib.metadata as md
from collections.abc import Mapping
from typing import Any, TypeVar

from kconnect_sdk import ConfigError

__all__ = ["instantiate"]

T = TypeVar("T")

JAVA_PACKAGE = "org.apache.kafka.connect.mirror."


def _import(name: str) -> Any:
    module_name, sep, attr = name.partition(":")
    if not sep:
        module_name, _, attr = name.rpartition(".")
    if not module_name or not attr:
        raise ImportError(name)
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def instantiate(
    *,
    config_key: str,
    name: str,
    base: type[T],
    builtins: Mapping[str, type[T]],
    group: str,
    props: Mapping[str, Any],
) -> T:
    """A configured instance of the class ``name`` (the value of ``config_key``).

    ``builtins`` maps simple class names (``DefaultTopicFilter``) to our classes; the
    Java package prefix is optional. The instance gets ``configure(props)`` when it has
    one, as Kafka's ``getConfiguredInstance`` does for a ``Configurable``.
    """
    name = name.strip()
    simple = name.removeprefix(JAVA_PACKAGE)
    cls: Any = builtins.get(simple)
    if cls is None:
        for entry in md.entry_points(group=group):
            if entry.name in (name, simple):
                cls = entry.load()
                break
    if cls is None:
        try:
            cls = _import(name)
        except (ImportError, AttributeError):
            known = ", ".join(sorted(JAVA_PACKAGE + b for b in builtins))
            raise ConfigError(
                f"config '{config_key}': class {name!r} was not found; give one of {known}, "
                f"an entry point of group '{group}', or an importable 'module:Class'"
            ) from None
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise ConfigError(f"config '{config_key}': {name!r} is not a {base.__name__} (got {cls!r})")
    instance = cls()
    configure = getattr(instance, "configure", None)
    if callable(configure):
        configure(dict(props))
    return instance
