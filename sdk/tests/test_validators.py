"""Config validators (messages as Kafka's) and ConfigDef.to_markdown()."""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_sdk import (
    CaseInsensitiveValidString,
    CompositeValidator,
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    LambdaValidator,
    ListSize,
    NonEmptyStringWithoutControlChars,
    Password,
    Range,
    ValidString,
    lambda_validator,
    non_empty_string,
)


def _must_be_even(name: str, value: Any) -> None:
    if value % 2:
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: must be even", name=name
        )


@pytest.mark.parametrize(
    ("validator", "value"),
    [
        (CaseInsensitiveValidString.one_of("gzip", "none"), "GZIP"),
        (CaseInsensitiveValidString.one_of("gzip", "none"), "None"),
        (NonEmptyStringWithoutControlChars(), "my-connector"),
        (NonEmptyStringWithoutControlChars(), None),
        (LambdaValidator.with_(_must_be_even, "an even number"), 4),
        (CompositeValidator.of(Range.at_least(0), _must_be_even), 2),
        (ListSize.at_most_of_size(2), ["a", "b"]),
        (ListSize.at_most_of_size(2), []),
    ],
)
def test_validators_accept(validator: Any, value: Any) -> None:
    validator("k", value)


@pytest.mark.parametrize(
    ("validator", "value", "message"),
    [
        (
            CaseInsensitiveValidString.one_of("gzip", "none"),
            "zstd",
            "Invalid value zstd for configuration k: String must be one of (case insensitive): gzip, none",
        ),
        (
            NonEmptyStringWithoutControlChars(),
            "",
            "Invalid value  for configuration k: String may not be empty",
        ),
        (
            NonEmptyStringWithoutControlChars(),
            "a\tb\n",
            "String may not contain control sequences but had the following ASCII chars: 9, 10",
        ),
        (
            LambdaValidator.with_(_must_be_even, "an even number"),
            3,
            "Invalid value 3 for configuration k: must be even",
        ),
        (
            CompositeValidator.of(Range.at_least(0), _must_be_even),
            -2,
            "Invalid value -2 for configuration k: Value must be at least 0",
        ),
        (
            CompositeValidator.of(Range.at_least(0), _must_be_even),
            3,
            "must be even",
        ),
        (
            ListSize.at_most_of_size(1),
            ["a", "b"],
            "Invalid value ['a', 'b'] for configuration k: exceeds maximum list size of [1].",
        ),
    ],
)
def test_validators_refuse_with_kafka_messages(validator: Any, value: Any, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        validator("k", value)
    assert message in str(info.value)
    assert info.value.name == "k"


def test_password_values_never_appear_in_messages() -> None:
    secret = "s3cr3t-value"
    config = ConfigDef().define(
        "db.password",
        ConfigType.PASSWORD,
        validator=CompositeValidator.of(
            CaseInsensitiveValidString.one_of("a"), ValidString.one_of("a")
        ),
    )
    with pytest.raises(ConfigError) as info:
        config.parse({"db.password": secret})
    assert secret not in str(info.value)
    assert "[hidden]" in str(info.value)
    results = config.validate({"db.password": secret})
    assert all(secret not in m for r in results for m in r.error_messages)
    assert secret not in str(Password(secret))


def test_lambda_validator_shorthand_runs_the_function() -> None:
    validator = lambda_validator(_must_be_even, "an even number")
    with pytest.raises(ConfigError, match="must be even"):
        validator("k", 1)
    assert str(validator) == "an even number"


def test_to_markdown_lists_required_keys_first_then_by_importance() -> None:
    config = (
        ConfigDef()
        .define(
            "batch.size",
            ConfigType.INT,
            2000,
            Range.at_least(1),
            importance=Importance.LOW,
            documentation="Max lines | per poll.",
        )
        .define("topic", ConfigType.STRING, importance=Importance.LOW, documentation="The topic.")
        .define(
            "file",
            ConfigType.STRING,
            None,
            non_empty_string,
            importance=Importance.HIGH,
            documentation="Source file.",
        )
        .define(
            "mode",
            ConfigType.STRING,
            "fast",
            CaseInsensitiveValidString.one_of("fast", "safe"),
            importance=Importance.MEDIUM,
            documentation="Mode.",
        )
        .define(
            "secret",
            ConfigType.PASSWORD,
            "pw",
            importance=Importance.MEDIUM,
            documentation="A secret.",
        )
        .define("prefix", ConfigType.STRING, "", importance=Importance.LOW, documentation="Prefix.")
        .define("hidden", ConfigType.STRING, "x", internal=True)
    )
    assert config.to_markdown() == (
        "| Name | Type | Default | Valid Values | Importance | Description |\n"
        "|---|---|---|---|---|---|\n"
        "| `topic` | string |  |  | low | The topic. |\n"
        "| `file` | string | null | non-empty string | high | Source file. |\n"
        "| `mode` | string | fast | (case insensitive) [fast, safe] | medium | Mode. |\n"
        "| `secret` | password | [hidden] |  | medium | A secret. |\n"
        "| `batch.size` | int | 2000 | [1,...] | low | Max lines \\| per poll. |\n"
        '| `prefix` | string | "" |  | low | Prefix. |\n'
    )


def test_accepted_prefixes_accept_their_keys_and_are_documented() -> None:
    client = ConfigDef().accept_prefix("producer.", "Producer settings.")
    config = (
        ConfigDef()
        .define("source.cluster.alias", ConfigType.STRING, documentation="Alias.")
        .accept_prefix("source.cluster.", "Source cluster clients.")
        .embed("target.", "Target", 0, client)
    )
    assert config.accepts("source.cluster.alias")
    assert config.accepts("source.cluster.bootstrap.servers")
    assert config.accepts("target.producer.linger.ms")
    assert not config.accepts("producer.linger.ms")  # only under the embedding prefix
    assert not config.accepts("source.clusters.bootstrap.servers")
    assert dict(config.accepted_prefixes) == {
        "source.cluster.": "Source cluster clients.",
        "target.producer.": "Producer settings.",
    }
    assert config.to_markdown().endswith(
        "\nKeys under these prefixes are accepted too:\n\n"
        "- `source.cluster.*`: Source cluster clients.\n"
        "- `target.producer.*`: Producer settings.\n"
    )
    # Keys of the family are not parsed: the plugin reads them from the raw config.
    assert "source.cluster.bootstrap.servers" not in dict(
        config.parse({"source.cluster.alias": "a", "source.cluster.bootstrap.servers": "b:9092"})
    )


def test_an_empty_prefix_is_refused() -> None:
    with pytest.raises(ConfigError, match="must not be empty"):
        ConfigDef().accept_prefix("")
