"""Java ``.properties`` parsing, and loading connector configs from .properties or JSON files.

Parsing itself is the SDK's ``parse_properties`` (``java.util.Properties.load`` syntax, with
file and line in errors); this module adds file handling and Kafka Connect's JSON forms.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kconnect_sdk import ConfigError, parse_properties

__all__ = ["load_connector_config", "load_properties", "parse_properties"]


def load_properties(path: str | Path) -> dict[str, str]:
    """Read and parse a .properties file; errors name the file (and line)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {str(p)!r} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {str(p)!r}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(_not_text(p, exc)) from None
    return parse_properties(text, source=str(p))


def _not_text(p: Path, exc: UnicodeDecodeError) -> str:
    return (
        f"config file {str(p)!r} is not UTF-8 text (byte {exc.start} is "
        f"0x{exc.object[exc.start]:02x}): it is binary or damaged; restore it or write it again"
    )


def load_connector_config(path: str | Path) -> dict[str, str]:
    """Load a connector config from ``.properties`` or Kafka Connect JSON.

    JSON may be the body of ``POST /connectors`` (``{"name": ..., "config": {...}}``) or of
    ``PUT /connectors/{name}/config`` (a flat map with ``name``), as Kafka's standalone mode accepts.
    """
    p = Path(path)
    if p.suffix.lower() != ".json":
        return load_properties(p)
    try:
        data: Any = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"connector config file {str(p)!r} does not exist") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {str(p)!r}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(_not_text(p, exc)) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: expected a JSON object with 'name' and 'config'")
    if "config" in data:
        config = data["config"]
        if not isinstance(config, dict):
            raise ConfigError(f"{p}: 'config' must be a JSON object of string values")
        config = dict(config)
        if "name" in data:
            if "name" in config and config["name"] != data["name"]:
                raise ConfigError(
                    f"{p}: connector name {data['name']!r} differs from config name {config['name']!r}"
                )
            config["name"] = data["name"]
    else:
        config = dict(data)
    bad = [k for k, v in config.items() if not isinstance(v, str | int | float | bool) or v is None]
    if bad:
        raise ConfigError(f"{p}: config values must be strings; bad keys: {', '.join(bad)}")
    return {k: _jsonish_to_str(v) for k, v in config.items()}


def _jsonish_to_str(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
