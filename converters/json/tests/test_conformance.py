"""JsonConverter against the kconnect-testkit ConverterSuite."""

from __future__ import annotations

from kconnect_testkit import ConverterSuite, Scenario


class TestJsonConverter(ConverterSuite):
    plugin = "org.apache.kafka.connect.json.JsonConverter"
    scenarios = [
        Scenario(id="schemas", config={"schemas.enable": "true"}),
        Scenario(
            id="schemas-numeric-decimals",
            config={"schemas.enable": "true", "decimal.format": "NUMERIC"},
        ),
        Scenario(
            id="schemaless",
            config={"schemas.enable": "false"},
            corpus=(
                "tombstone",
                "null_optional",
                "string",
                "unicode",
                "int64",
                "boolean",
                "float64",
            ),
        ),
    ]
