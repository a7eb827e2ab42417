"""Confluent's S3SinkConnectorConfigTest (kafka-connect-storage-cloud), ported method by method.

Expected values are the upstream test's. Java builds ``S3SinkConnectorConfig(props)``;
here the same props go through ``parse_settings`` (what the connector and tasks run) or
``S3SinkConnector().validate`` (what ``PUT /connector-plugins/.../config/validate`` runs).
Settings kconnect does not implement are refused naming the key; the README lists them.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_connector_s3 import S3SinkConnector, parse_settings
from kconnect_sdk import ConfigError, ConfigValue

FORMATS = "io.confluent.connect.s3.format."
AVRO = FORMATS + "avro.AvroFormat"
JSON = FORMATS + "json.JsonFormat"
BYTEARRAY = FORMATS + "bytearray.ByteArrayFormat"
PARQUET = FORMATS + "parquet.ParquetFormat"
PARTITIONERS = "io.confluent.connect.storage.partitioner."

# S3SinkConnectorTestBase.createProps
PROPERTIES = {
    "store.url": "http://127.0.0.1:8181",
    "flush.size": "3",
    "storage.class": "io.confluent.connect.s3.storage.S3Storage",
    "s3.bucket.name": "kafka.bucket",
    "format.class": AVRO,
    "s3.path.style.access.enabled": "false",
    "partitioner.class": PARTITIONERS + "DefaultPartitioner",
    "partition.field.name": "int",
    "path.format": "'year'=YYYY_'month'=MM_'day'=dd_'hour'=HH",
    "locale": "en",
    "timezone": "America/Los_Angeles",
}


def settings(**extra: str) -> Any:
    return parse_settings({**PROPERTIES, **{k.replace("_", "."): v for k, v in extra.items()}})


def validate(props: dict[str, str]) -> dict[str, ConfigValue]:
    return {v.name: v for v in S3SinkConnector().validate(props)}


def refused(key: str, **extra: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        settings(**extra)
    assert caught.value.name == key
    assert key in str(caught.value)
    return caught.value


def test_storage_class() -> None:
    assert settings().raw["storage.class"] == "io.confluent.connect.s3.storage.S3Storage"


def test_undefined_url() -> None:
    props = dict(PROPERTIES)
    del props["store.url"]
    assert parse_settings(props).raw["store.url"] is None


def test_recommended_values() -> None:
    values = validate(PROPERTIES)
    assert values["storage.class"].recommended_values == [
        "io.confluent.connect.s3.storage.S3Storage"
    ]
    assert values["format.class"].recommended_values == [AVRO, JSON, BYTEARRAY, PARQUET]
    assert values["partitioner.class"].recommended_values == [
        PARTITIONERS + name
        for name in (
            "DefaultPartitioner",
            "HourlyPartitioner",
            "DailyPartitioner",
            "TimeBasedPartitioner",
            "FieldPartitioner",
        )
    ]
    assert values["s3.schema.partition.affix.type"].recommended_values == [
        "NONE",
        "PREFIX",
        "SUFFIX",
    ]


def test_avro_data_config_supported() -> None:
    s = settings(enhanced_avro_schema_support="true", connect_meta_data="false")
    assert s.raw["enhanced.avro.schema.support"] is True
    assert s.raw["connect.meta.data"] is False


ALL_FORMATS = (
    (AVRO, "AvroFormat"),
    (JSON, "JsonFormat"),
    (BYTEARRAY, "ByteArrayFormat"),
    (PARQUET, "ParquetFormat"),
)
DEPENDENTS = ("partition.field.name", "partition.duration.ms", "path.format", "locale", "timezone")


def visibility(partitioner: str) -> dict[str, bool]:
    values = validate({**PROPERTIES, "partitioner.class": partitioner})
    return {name: values[name].visible for name in DEPENDENTS}


def test_visibility_for_partitioner_class_dependent_configs() -> None:
    assert visibility(PARTITIONERS + "DefaultPartitioner") == dict.fromkeys(DEPENDENTS, False)
    assert visibility(PARTITIONERS + "FieldPartitioner") == {
        **dict.fromkeys(DEPENDENTS, False),
        "partition.field.name": True,
    }
    for calendar in ("DailyPartitioner", "HourlyPartitioner"):
        assert visibility(PARTITIONERS + calendar) == {
            "partition.field.name": False,
            "partition.duration.ms": False,
            "path.format": False,
            "locale": True,
            "timezone": True,
        }
    time_based = visibility(PARTITIONERS + "TimeBasedPartitioner")
    assert all(time_based[k] for k in DEPENDENTS[1:])
    # Upstream's anonymous Partitioner class: every dependent setting is shown for a class
    # the recommender does not know (kconnect then refuses the class itself at start).
    custom = visibility("com.example.MyPartitioner")
    assert all(custom[k] for k in DEPENDENTS[1:])


def test_configurable_credential_provider() -> None:
    # Upstream loads a Java AwsCredentialsProvider with s3.credentials.* settings. Java
    # classes cannot be loaded in kconnect: such a provider is refused naming the key.
    refused(
        "s3.credentials.provider.class",
        s3_credentials_provider_class="io.confluent.connect.s3.DummyAssertiveCredentialsProvider",
    )


def test_configurable_aws_assume_role_credentials_provider() -> None:
    # Confluent's assume-role provider is not implemented: refused naming the key.
    refused(
        "s3.credentials.provider.class",
        s3_credentials_provider_class="io.confluent.connect.s3.auth.AwsAssumeRoleCredentialsProvider",
    )


def test_configurable_credential_provider_missing_configs() -> None:
    # The provider's own settings are never read: the provider class is refused first.
    refused(
        "s3.credentials.provider.class",
        s3_credentials_provider_class="io.confluent.connect.s3.DummyAssertiveCredentialsProvider",
        s3_credentials_configs_num="2",
    )


def test_configurable_aws_assume_role_credentials_provider_missing_configs() -> None:
    refused(
        "s3.credentials.provider.class",
        s3_credentials_provider_class="io.confluent.connect.s3.auth.AwsAssumeRoleCredentialsProvider",
        s3_credentials_sts_role_arn="arn:aws:iam::012345678901:role/my-restricted-role",
    )


def test_default_credentials_providers_are_accepted() -> None:
    # Not upstream: the AWS SDK's default chains (v2 and v1 names) are boto3's default chain.
    for name in (
        "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
        "com.amazonaws.auth.DefaultAWSCredentialsProviderChain",
    ):
        assert settings(s3_credentials_provider_class=name)


def test_configurable_s3_object_tagging_configs() -> None:
    assert settings().raw["s3.object.tagging"] is False
    # kconnect does not tag objects: asking for it is refused, naming the key.
    refused("s3.object.tagging", s3_object_tagging="true")
    pairs = settings(s3_object_tagging_key_value_pairs="key1:value1,key2:value2")
    assert pairs.raw["s3.object.tagging.key.value.pairs"] == ["key1:value1", "key2:value2"]
    assert settings().raw["s3.object.tagging.key.value.pairs"] == []
    assert settings(s3_object_tagging="false").raw["s3.object.tagging"] is False
    for behavior in ("ignore", "fail"):
        s = settings(s3_object_behavior_on_tagging_error=behavior)
        assert s.raw["s3.object.behavior.on.tagging.error"] == behavior


@pytest.mark.parametrize(
    ("key", "value"),
    [
        pytest.param("s3.part.retries", "-1", id="testS3PartRetriesNegative"),
        pytest.param("s3.retry.backoff.ms", "-1", id="testS3RetryBackoffNegative"),
        pytest.param("s3.compression.level", "10", id="testInvalidHighCompressionLevel"),
        pytest.param("s3.compression.level", "-2", id="testInvalidLowCompressionLevel"),
        pytest.param("parquet.codec", "uncompressed", id="testUnsupportedParquetCompressionType"),
        pytest.param(
            "s3.schema.partition.affix.type",
            "Random",
            id="testSchemaPartitionerAffixTypeExceptionOnWrongValue",
        ),
        pytest.param("s3.send.digest", "Random", id="testSendDigestConfigOnWrongValue"),
    ],
)
def test_invalid_values_are_refused(key: str, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings({**PROPERTIES, key: value})
    assert caught.value.name == key


def test_json_decimal_format() -> None:
    assert settings().raw["json.decimal.format"] == "BASE64"
    assert settings(json_decimal_format="NUMERIC").raw["json.decimal.format"] == "NUMERIC"


def test_valid_compression_levels() -> None:
    for level in range(-1, 9):
        assert settings(s3_compression_level=str(level)).compression_level == level


def test_parquet_compression_type_supported() -> None:
    for codec in ("none", "gzip", "snappy", "lz4", "zstd", "brotli", "lzo"):
        assert settings(parquet_codec=codec).raw["parquet.codec"] == codec
    # The key accepts lzo as Java does; ParquetFormat then refuses it (no Python writer).
    with pytest.raises(ConfigError) as caught:
        S3SinkConnector().start({**PROPERTIES, "format.class": PARQUET, "parquet.codec": "lzo"})
    assert caught.value.name == "parquet.codec"


def test_valid_timezone_with_schedule_interval_accepted() -> None:
    assert settings(timezone="CET", rotate_schedule_interval_ms="30").zone is not None


def test_empty_timezone_throws_exception_on_schedule_interval() -> None:
    refused("timezone", timezone="", rotate_schedule_interval_ms="30")


def test_empty_timezone_exception_message() -> None:
    error = refused("timezone", timezone="", rotate_schedule_interval_ms="30")
    # kconnect adds an example zone after Confluent's message.
    assert str(error).startswith(
        "timezone configuration must be set when using rotate.schedule.interval.ms"
    )


def test_key_storage_default_false() -> None:
    assert settings().raw["store.kafka.keys"] is False


def test_key_storage_supported() -> None:
    assert settings(store_kafka_keys="true").raw["store.kafka.keys"] is True


def test_key_format_class_default() -> None:
    assert settings(store_kafka_keys="true").keys_format == "AvroFormat"


def test_key_format_class_supported() -> None:
    for cls, simple in ALL_FORMATS:
        assert settings(store_kafka_keys="true", keys_format_class=cls).keys_format == simple


def test_header_storage_default_false() -> None:
    assert settings().raw["store.kafka.headers"] is False


def test_header_storage_supported() -> None:
    assert settings(store_kafka_headers="true").raw["store.kafka.headers"] is True


def test_header_format_class_default() -> None:
    assert settings(store_kafka_headers="true").headers_format == "AvroFormat"


def test_header_format_class_supported() -> None:
    # ByteArrayFormat is accepted as in Java (it is only left out of the recommendations);
    # as in Java, each record's headers then fail to convert (see the writer tests).
    for cls, simple in ALL_FORMATS:
        s = settings(store_kafka_headers="true", headers_format_class=cls)
        assert s.headers_format == simple


def test_schema_partitioner_affix_typ_default() -> None:
    assert settings().raw["s3.schema.partition.affix.type"] == "NONE"


def test_schema_partitioner_affix_type() -> None:
    assert settings(s3_schema_partition_affix_type="NONE").raw["s3.schema.partition.affix.type"]
    # kconnect never adds the schema name to the path: PREFIX and SUFFIX are refused.
    for affix in ("PREFIX", "SUFFIX"):
        refused("s3.schema.partition.affix.type", s3_schema_partition_affix_type=affix)


def test_send_digest_config_default() -> None:
    assert settings().raw["s3.send.digest"] is False


def test_send_digest_config() -> None:
    assert settings(s3_send_digest="true").raw["s3.send.digest"] is True
    assert settings(s3_send_digest="false").raw["s3.send.digest"] is False


def test_conditional_writes_enabled_config() -> None:
    # Java enables conditional writes (If-None-Match on completion) only with scheduled
    # rotation and neither keys nor headers. kconnect does not implement them: where an
    # explicit 'true' would take effect it is refused; everywhere else it is accepted.
    assert settings(enable_conditional_writes="true")
    refused(
        "enable.conditional.writes",
        enable_conditional_writes="true",
        rotate_schedule_interval_ms="100",
    )
    for extra in ({"store_kafka_headers": "true"}, {"store_kafka_keys": "true"}):
        assert settings(
            enable_conditional_writes="true", rotate_schedule_interval_ms="100", **extra
        )
    assert settings(enable_conditional_writes="false", rotate_schedule_interval_ms="100")


# --- the recommenders' visibility (Confluent's ParentValueRecommender and co.) ------------


def test_dependent_settings_follow_their_parent() -> None:
    # Not an upstream method: the recommenders S3SinkConnectorConfig declares.
    plain = validate(PROPERTIES)
    assert plain["keys.format.class"].visible is False
    assert plain["headers.format.class"].visible is False
    assert plain["avro.codec"].visible is True  # format.class is AvroFormat
    assert plain["parquet.codec"].visible is False
    assert plain["s3.sse.kms.key.id"].visible is False
    both = validate(
        {
            **PROPERTIES,
            "store.kafka.keys": "true",
            "store.kafka.headers": "true",
            "s3.ssea.name": "aws:kms",
        }
    )
    assert both["keys.format.class"].visible is True
    assert both["keys.format.class"].recommended_values == [AVRO, JSON, BYTEARRAY, PARQUET]
    assert both["headers.format.class"].recommended_values == [AVRO, JSON, PARQUET]
    assert both["s3.sse.kms.key.id"].visible is True
    assert plain["avro.codec"].recommended_values == ["null", "deflate", "snappy", "bzip2"]


def test_gzip_is_refused_for_avro_by_validate() -> None:
    # S3SinkConnectorValidator: "Compression Type gzip not valid for data format class".
    values = validate({**PROPERTIES, "s3.compression.type": "gzip"})
    message = f"Compression Type gzip not valid for data format class: ( {AVRO} )."
    assert values["format.class"].error_messages == [message]
    assert values["s3.compression.type"].error_messages == [message]
