"""JsonConverter's settings, named and defaulted as in Kafka's ``JsonConverterConfig``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from kconnect_sdk import ConfigDef, ConfigType, Importance, Range, ValidString, Width

__all__ = [
    "DECIMAL_FORMAT_CONFIG",
    "REPLACE_NULL_WITH_DEFAULT_CONFIG",
    "SCHEMAS_CACHE_SIZE_CONFIG",
    "SCHEMAS_ENABLE_CONFIG",
    "DecimalFormat",
    "JsonConverterSettings",
    "json_converter_config_def",
]

SCHEMAS_ENABLE_CONFIG: Final = "schemas.enable"
SCHEMAS_CACHE_SIZE_CONFIG: Final = "schemas.cache.size"
DECIMAL_FORMAT_CONFIG: Final = "decimal.format"
REPLACE_NULL_WITH_DEFAULT_CONFIG: Final = "replace.null.with.default"


class DecimalFormat(StrEnum):
    """How Decimal values are written: base64 of the unscaled bytes, or a JSON number."""

    BASE64 = "BASE64"
    NUMERIC = "NUMERIC"


def json_converter_config_def() -> ConfigDef:
    """The ConfigDef of JsonConverter, with Kafka's names, defaults and groups.

    Kafka numbers the keys of each group from 0 (``orderInGroup++``).
    """
    return (
        ConfigDef()
        .define(
            SCHEMAS_ENABLE_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.HIGH,
            documentation="Include schemas within each of the serialized values and keys.",
            group="Schemas",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Enable Schemas",
        )
        .define(
            SCHEMAS_CACHE_SIZE_CONFIG,
            ConfigType.INT,
            1000,
            Range.at_least(0),
            importance=Importance.HIGH,
            documentation="The maximum number of schemas that can be cached in this converter "
            "instance.",
            group="Schemas",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Schema Cache Size",
        )
        .define(
            DECIMAL_FORMAT_CONFIG,
            ConfigType.STRING,
            DecimalFormat.BASE64.value,
            ValidString.one_of(*(f.value for f in DecimalFormat), case_insensitive=True),
            importance=Importance.LOW,
            documentation="Controls which format this converter will serialize decimals in. "
            "This value is case insensitive and can be either 'BASE64' (default) or 'NUMERIC'.",
            group="Serialization",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Decimal Format",
        )
        .define(
            REPLACE_NULL_WITH_DEFAULT_CONFIG,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether to replace fields that have a default value and that are "
            "null to the default value. When set to true, the default value is used, otherwise "
            "null is used.",
            group="Serialization",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Replace null with default",
        )
    )


@dataclass(frozen=True, slots=True)
class JsonConverterSettings:
    """The parsed settings one JsonConverter instance runs with."""

    schemas_enable: bool = True
    schemas_cache_size: int = 1000
    decimal_format: DecimalFormat = DecimalFormat.BASE64
    replace_null_with_default: bool = True

    @classmethod
    def parse(cls, configs: Mapping[str, Any]) -> JsonConverterSettings:
        parsed = json_converter_config_def().parse(configs)
        return cls(
            schemas_enable=parsed[SCHEMAS_ENABLE_CONFIG],
            schemas_cache_size=parsed[SCHEMAS_CACHE_SIZE_CONFIG],
            decimal_format=DecimalFormat(parsed[DECIMAL_FORMAT_CONFIG].upper()),
            replace_null_with_default=parsed[REPLACE_NULL_WITH_DEFAULT_CONFIG],
        )
