"""The S3 sink's config: Confluent's keys, types and defaults, and the parsed settings."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    Importance,
    ParsedConfig,
    Password,
    Range,
    ValidString,
)

__all__ = [
    "CONFIG_DEF",
    "FORMATS",
    "PARTITIONERS",
    "S3SinkSettings",
    "parse_settings",
]

STORAGE_CLASS: Final = "io.confluent.connect.s3.storage.S3Storage"

# Simple Java class name -> our name. Configs name these classes by their full Java names
# (``io.confluent.connect.s3.format.json.JsonFormat``); only the simple name is compared so
# that configs with a mistyped package, as in the book's chapter 5
# (``io.confluent.connect.storage.partitionner.FieldPartitioner``), still run.
FORMATS: Final = ("JsonFormat", "AvroFormat", "ParquetFormat", "ByteArrayFormat")
PARTITIONERS: Final = (
    "DefaultPartitioner",
    "FieldPartitioner",
    "TimeBasedPartitioner",
    "DailyPartitioner",
    "HourlyPartitioner",
)
EXTRACTORS: Final = ("Wallclock", "Record", "RecordField")
# The AWS SDK's default chains (v2 and v1 names), which boto3's default chain stands for.
DEFAULT_CREDENTIALS_PROVIDERS: Final = (
    "DefaultCredentialsProvider",
    "DefaultAWSCredentialsProviderChain",
)


class _NoneOrOneOf:
    """Like ValidString, but None (the key left unset) is also valid."""

    def __init__(self, *allowed: str) -> None:
        self.allowed = allowed

    def __call__(self, name: str, value: Any) -> None:
        if value is not None and value not in self.allowed:
            raise ConfigError(
                f"Invalid value {value} for configuration {name}: String must be one of: "
                + ", ".join(self.allowed),
                name=name,
                value=value,
            )

    def __str__(self) -> str:
        return "[" + ", ".join(self.allowed) + "]"


_FORMAT_PACKAGE: Final = "io.confluent.connect.s3.format."
_PARTITIONER_PACKAGE: Final = "io.confluent.connect.storage.partitioner."
FORMAT_CLASSES: Final = (
    _FORMAT_PACKAGE + "avro.AvroFormat",
    _FORMAT_PACKAGE + "json.JsonFormat",
    _FORMAT_PACKAGE + "bytearray.ByteArrayFormat",
    _FORMAT_PACKAGE + "parquet.ParquetFormat",
)
# Confluent recommends no ByteArrayFormat for headers (it accepts it, but then every record
# with headers fails: a ByteArrayConverter cannot write the headers' array of structs).
HEADERS_FORMAT_CLASSES: Final = (FORMAT_CLASSES[0], FORMAT_CLASSES[1], FORMAT_CLASSES[3])
PARTITIONER_CLASSES: Final = tuple(
    _PARTITIONER_PACKAGE + name
    for name in (
        "DefaultPartitioner",
        "HourlyPartitioner",
        "DailyPartitioner",
        "TimeBasedPartitioner",
        "FieldPartitioner",
    )
)
AFFIX_TYPES: Final = ("NONE", "PREFIX", "SUFFIX")
_LONG_MAX: Final = 2**63 - 1


class _Recommends:
    """Confluent's GenericRecommender and ParentValueRecommender: fixed recommended values,
    visible always or only while another key (the parent) has a given value."""

    def __init__(
        self,
        values: tuple[Any, ...] = (),
        *,
        parent: str | None = None,
        when: Callable[[Any], bool] | None = None,
    ) -> None:
        self.values = values
        self.parent = parent
        self.when = when

    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
        return list(self.values)

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
        if self.parent is None or self.when is None:
            return True
        return self.when(parsed.get(self.parent))


def _simple_is(simple: str) -> Callable[[Any], bool]:
    return lambda value: value is not None and _simple_name(str(value)) == simple


class _PartitionerDependents:
    """Confluent's PartitionerClassDependentsRecommender: a partitioner's own settings are
    visible only with that partitioner (all of them with a class it does not know)."""

    _TIME_BASED: Final = ("partition.duration.ms", "path.format", "locale", "timezone")

    def valid_values(self, name: str, parsed: Mapping[str, Any]) -> list[Any]:
        return []

    def visible(self, name: str, parsed: Mapping[str, Any]) -> bool:
        value = parsed.get("partitioner.class")
        simple = _simple_name(str(value)) if value is not None else ""
        if simple == "DefaultPartitioner":
            return False
        if simple == "FieldPartitioner":
            return name == "partition.field.name"
        if simple in ("DailyPartitioner", "HourlyPartitioner"):
            return name in ("locale", "timezone")
        if simple == "TimeBasedPartitioner":
            return name in self._TIME_BASED
        return True


def _partition_field_names(name: str, value: Any) -> None:
    """Confluent's PartitionFieldNameValidator: no empty name, no empty path segment."""
    names = list(value or [])
    # Kafka reads a blank list value as no names at all.
    if names == [""]:
        return
    for field in names:
        if not str(field).strip():
            raise ConfigError(
                f"Invalid value {field} for configuration {name}: Field name cannot be null "
                "or empty",
                name=name,
                value=value,
            )
        # Java's String.split drops trailing empty segments, so only inner and leading ones
        # are refused ('a.' names the field 'a').
        segments = str(field).split(".")
        while len(segments) > 1 and segments[-1] == "":
            segments.pop()
        if any(not segment.strip() for segment in segments):
            raise ConfigError(
                f"Invalid value {field} for configuration {name}: Field name cannot contain "
                "an empty or whitespace-only path segment",
                name=name,
                value=value,
            )


def _time_zone(name: str, value: Any) -> None:
    """Confluent's TimezoneValidator: blank, or a zone Joda knows."""
    text = str(value or "").strip()
    if text:
        parse_zone(name, text)


_G_CONNECTOR = "Connector"
_G_S3 = "S3"
_G_STORAGE = "Storage"
_G_PARTITIONER = "Partitioner"

# parquet-mr's CompressionCodecName names (as ParquetCodecRecommender lists them).
PARQUET_CODECS: Final = ("none", "snappy", "gzip", "lzo", "brotli", "lz4", "zstd")

CONFIG_DEF: Final = (
    ConfigDef()
    # --- connector / rotation (StorageSinkConnectorConfig + S3SinkConnectorConfig) ---
    .define(
        "format.class",
        ConfigType.CLASS,
        importance=Importance.HIGH,
        group=_G_CONNECTOR,
        documentation="The format class to use when writing data to the store: "
        "io.confluent.connect.s3.format.{json.JsonFormat, avro.AvroFormat, "
        "parquet.ParquetFormat, bytearray.ByteArrayFormat}.",
        recommender=_Recommends(FORMAT_CLASSES),
    )
    .define(
        "flush.size",
        ConfigType.INT,
        validator=Range.at_least(1),
        importance=Importance.HIGH,
        group=_G_CONNECTOR,
        documentation="Number of records written to store before invoking file commits.",
    )
    .define(
        "rotate.interval.ms",
        ConfigType.LONG,
        -1,
        importance=Importance.HIGH,
        group=_G_CONNECTOR,
        documentation="The time interval in milliseconds to invoke file commits, measured "
        "on record timestamps from the first record of the file (TimeBased partitioners "
        "only); -1 disables it.",
    )
    .define(
        "rotate.schedule.interval.ms",
        ConfigType.LONG,
        -1,
        importance=Importance.MEDIUM,
        group=_G_CONNECTOR,
        documentation="The time interval in milliseconds to periodically invoke file "
        "commits, on the wall clock aligned to the day in 'timezone' (which is then "
        "required); fires even when no record arrives. Breaks exactly-once; -1 disables it.",
    )
    .define(
        "retry.backoff.ms",
        ConfigType.LONG,
        5000,
        Range.at_least(0),
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="How long to wait before redelivering records after a failure that "
        "can be retried.",
    )
    .define(
        "shutdown.timeout.ms",
        ConfigType.LONG,
        3000,
        Range.at_least(1),
        importance=Importance.MEDIUM,
        group=_G_CONNECTOR,
        documentation="Clean shutdown timeout (kept for compatibility).",
    )
    .define(
        "filename.offset.zero.pad.width",
        ConfigType.INT,
        10,
        Range.at_least(0),
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="Width to zero-pad the start offset in object names to.",
    )
    .define(
        "schema.compatibility",
        ConfigType.STRING,
        "NONE",
        ValidString.one_of("NONE", "BACKWARD", "FORWARD", "FULL", case_insensitive=True),
        importance=Importance.HIGH,
        group=_G_CONNECTOR,
        documentation="NONE rotates the file on every schema change; BACKWARD/FULL project "
        "records of an older schema version to the newest and rotate when a newer one "
        "appears; FORWARD projects to the older.",
        recommender=_Recommends(("NONE", "BACKWARD", "FORWARD", "FULL")),
    )
    .define(
        "schemas.cache.config",
        ConfigType.INT,
        1000,
        Range.at_least(1),
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="Size of the Connect-to-Avro schema cache.",
    )
    .define(
        "enhanced.avro.schema.support",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="Keep enum symbols and package names in Avro schemas.",
    )
    .define(
        "connect.meta.data",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="Keep Connect metadata (version, doc, parameters) in Avro schemas.",
    )
    .define(
        "avro.codec",
        ConfigType.STRING,
        "null",
        ValidString.one_of("null", "deflate", "snappy", "bzip2"),
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="The Avro compression codec: null, deflate, snappy or bzip2.",
        recommender=_Recommends(
            ("null", "deflate", "snappy", "bzip2"),
            parent="format.class",
            when=_simple_is("AvroFormat"),
        ),
    )
    .define(
        "parquet.codec",
        ConfigType.STRING,
        "snappy",
        ValidString.one_of(*PARQUET_CODECS),
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="The Parquet compression codec: none, snappy, gzip, brotli, lz4, zstd "
        "(lzo is accepted by the Java connector but no Python writer has it).",
        recommender=_Recommends(
            PARQUET_CODECS, parent="format.class", when=_simple_is("ParquetFormat")
        ),
    )
    .define(
        "partitioner.max.open.files",
        ConfigType.INT,
        -1,
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="The most files (encoded partitions) one topic partition keeps open; "
        "a record for another one commits the open files first. -1 means no limit.",
    )
    .define(
        "rotate.file.on.partition.change",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_G_CONNECTOR,
        documentation="With 'rotate.interval.ms', also commit the open files when a record "
        "maps to another encoded partition than the previous record.",
    )
    # --- storage common ---
    .define(
        "storage.class",
        ConfigType.CLASS,
        importance=Importance.HIGH,
        group=_G_STORAGE,
        documentation=f"The underlying storage layer; must be {STORAGE_CLASS}.",
        recommender=_Recommends((STORAGE_CLASS,)),
    )
    .define(
        "store.url",
        ConfigType.STRING,
        None,
        importance=Importance.HIGH,
        group=_G_STORAGE,
        documentation="Endpoint of an S3-compatible store (MinIO, ...); empty means AWS.",
    )
    .define(
        "topics.dir",
        ConfigType.STRING,
        "topics",
        importance=Importance.HIGH,
        group=_G_STORAGE,
        documentation="Top-level directory for the objects; blank means none.",
    )
    .define(
        "directory.delim",
        ConfigType.STRING,
        "/",
        importance=Importance.MEDIUM,
        group=_G_STORAGE,
        documentation="Directory delimiter pattern.",
    )
    .define(
        "file.delim",
        ConfigType.STRING,
        "+",
        importance=Importance.MEDIUM,
        group=_G_STORAGE,
        documentation="File delimiter pattern.",
    )
    # --- partitioner (PartitionerConfig) ---
    .define(
        "partitioner.class",
        ConfigType.CLASS,
        "io.confluent.connect.storage.partitioner.DefaultPartitioner",
        importance=Importance.HIGH,
        group=_G_PARTITIONER,
        documentation="The partitioner: io.confluent.connect.storage.partitioner."
        "{Default, Field, TimeBased, Daily, Hourly}Partitioner.",
        recommender=_Recommends(PARTITIONER_CLASSES),
    )
    .define(
        "partition.field.name",
        ConfigType.LIST,
        "",
        _partition_field_names,
        importance=Importance.MEDIUM,
        group=_G_PARTITIONER,
        documentation="The record value fields (nested with '.') FieldPartitioner uses.",
        recommender=_PartitionerDependents(),
    )
    .define(
        "partition.duration.ms",
        ConfigType.LONG,
        -1,
        importance=Importance.MEDIUM,
        group=_G_PARTITIONER,
        documentation="The duration of a partition in milliseconds (TimeBasedPartitioner).",
        recommender=_PartitionerDependents(),
    )
    .define(
        "path.format",
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        group=_G_PARTITIONER,
        documentation="Joda-Time pattern of the partition directories, e.g. "
        "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH.",
        recommender=_PartitionerDependents(),
    )
    .define(
        "locale",
        ConfigType.STRING,
        "",
        importance=Importance.MEDIUM,
        group=_G_PARTITIONER,
        documentation="The locale of the path format (required for time-based partitioners).",
        recommender=_PartitionerDependents(),
    )
    .define(
        "timezone",
        ConfigType.STRING,
        "",
        _time_zone,
        importance=Importance.MEDIUM,
        group=_G_PARTITIONER,
        documentation="The time zone of the path format and of scheduled rotation: a zone "
        "ID (UTC, Europe/Paris) or an offset (+02:00).",
        recommender=_PartitionerDependents(),
    )
    .define(
        "timestamp.extractor",
        ConfigType.STRING,
        "Wallclock",
        importance=Importance.MEDIUM,
        group=_G_PARTITIONER,
        documentation="Where time-based partitioners take a record's time from: Wallclock, "
        "Record (the Kafka timestamp) or RecordField.",
    )
    .define(
        "timestamp.field",
        ConfigType.STRING,
        "timestamp",
        importance=Importance.MEDIUM,
        group=_G_PARTITIONER,
        documentation="The record value field (nested with '.') RecordField reads.",
    )
    # --- S3 ---
    .define(
        "s3.bucket.name",
        ConfigType.STRING,
        importance=Importance.HIGH,
        group=_G_S3,
        documentation="The S3 bucket.",
    )
    .define(
        "s3.region",
        ConfigType.STRING,
        "us-west-2",
        importance=Importance.MEDIUM,
        group=_G_S3,
        documentation="The AWS region of the bucket.",
    )
    .define(
        "s3.part.size",
        ConfigType.INT,
        25 * 1024 * 1024,
        Range.between(5 * 1024 * 1024, 2**31 - 1),
        importance=Importance.HIGH,
        group=_G_S3,
        documentation="The part size in S3 multipart uploads (at least 5 MiB).",
    )
    .define(
        "s3.part.retries",
        ConfigType.INT,
        3,
        Range.at_least(0),
        importance=Importance.MEDIUM,
        group=_G_S3,
        documentation="How many times a failed S3 request is retried.",
    )
    .define(
        "s3.retry.backoff.ms",
        ConfigType.LONG,
        200,
        Range.at_least(0),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The first backoff before retrying an S3 request; it doubles per retry.",
    )
    .define(
        "s3.credentials.provider.class",
        ConfigType.CLASS,
        "software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Credentials provider: the AWS default chain (environment, shared "
        "files, instance metadata), used unless static keys are set; other providers are "
        "refused.",
    )
    .define(
        "aws.access.key.id",
        ConfigType.STRING,
        "",
        importance=Importance.HIGH,
        group=_G_S3,
        documentation="The AWS access key ID of static credentials.",
    )
    .define(
        "aws.secret.access.key",
        ConfigType.PASSWORD,
        None,
        importance=Importance.HIGH,
        group=_G_S3,
        documentation="The AWS secret access key of static credentials.",
    )
    .define(
        "s3.ssea.name",
        ConfigType.STRING,
        "",
        ValidString.one_of("", "AES256", "aws:kms"),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Server-side encryption algorithm: AES256 or aws:kms.",
        recommender=_Recommends(("AES256", "aws:kms")),
    )
    .define(
        "s3.sse.customer.key",
        ConfigType.PASSWORD,
        None,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Base64 key for SSE-C (with s3.ssea.name=AES256).",
    )
    .define(
        "s3.sse.kms.key.id",
        ConfigType.STRING,
        "",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The KMS key for SSE-KMS (with s3.ssea.name=aws:kms).",
        recommender=_Recommends(
            parent="s3.ssea.name", when=lambda v: str(v or "").lower() == "aws:kms"
        ),
    )
    .define(
        "s3.acl.canned",
        ConfigType.STRING,
        None,
        _NoneOrOneOf(
            "private",
            "public-read",
            "public-read-write",
            "authenticated-read",
            "aws-exec-read",
            "bucket-owner-read",
            "bucket-owner-full-control",
            "log-delivery-write",
        ),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Canned ACL given to the uploaded objects.",
    )
    .define(
        "s3.proxy.url",
        ConfigType.STRING,
        "",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="An HTTP(S) proxy for S3 requests.",
    )
    .define(
        "s3.proxy.user",
        ConfigType.STRING,
        None,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The proxy user name.",
    )
    .define(
        "s3.proxy.password",
        ConfigType.PASSWORD,
        None,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The proxy password.",
    )
    .define(
        "s3.send.digest",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Send an MD5 digest (Content-MD5) with every part.",
    )
    .define(
        "s3.path.style.access.enabled",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Use path-style addressing (needed by most S3-compatible stores).",
    )
    .define(
        "s3.compression.type",
        ConfigType.STRING,
        "none",
        ValidString.one_of("none", "gzip"),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Compression of JSON and ByteArray objects: none or gzip ('.gz').",
    )
    .define(
        "s3.compression.level",
        ConfigType.INT,
        -1,
        Range.between(-1, 9),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Deflate level for gzip, -1 (default) to 9.",
        recommender=_Recommends(tuple(range(-1, 10))),
    )
    .define(
        "json.decimal.format",
        ConfigType.STRING,
        "BASE64",
        ValidString.one_of("BASE64", "NUMERIC", case_insensitive=True),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="How JsonFormat writes decimals: BASE64 or NUMERIC.",
    )
    .define(
        "format.bytearray.extension",
        ConfigType.STRING,
        ".bin",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The extension of ByteArrayFormat objects.",
    )
    .define(
        "format.bytearray.separator",
        ConfigType.STRING,
        None,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="What ByteArrayFormat writes after each record; default the line separator.",
    )
    .define(
        "behavior.on.null.values",
        ConfigType.STRING,
        "fail",
        ValidString.one_of("ignore", "fail", "write", case_insensitive=True),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Records with a null value: ignore (skip), fail (an errant record) or "
        "write (keys only, under the 'tombstone' encoded partition).",
    )
    .define(
        "report.null.values.to.dlq",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="With behavior.on.null.values=ignore, also report skipped null "
        "records to the errant record reporter.",
    )
    .define(
        "store.kafka.keys",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Also write each file's record keys to '<name>.keys.<ext>'.",
    )
    .define(
        "store.kafka.headers",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Also write each file's record headers to '<name>.headers.<ext>'.",
    )
    .define(
        "keys.format.class",
        ConfigType.CLASS,
        "io.confluent.connect.s3.format.avro.AvroFormat",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The format of the keys files.",
        recommender=_Recommends(
            FORMAT_CLASSES, parent="store.kafka.keys", when=lambda v: v is True
        ),
    )
    .define(
        "headers.format.class",
        ConfigType.CLASS,
        "io.confluent.connect.s3.format.avro.AvroFormat",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The format of the headers files.",
        recommender=_Recommends(
            HEADERS_FORMAT_CLASSES, parent="store.kafka.headers", when=lambda v: v is True
        ),
    )
    .define(
        "tombstone.encoded.partition",
        ConfigType.STRING,
        "tombstone",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The encoded partition (directory) of null-valued records with "
        "behavior.on.null.values=write.",
    )
    # --- Confluent settings kconnect does not implement: accepted at their defaults, a
    # config error when set to ask for the behaviour. ---
    .define(
        "s3.object.tagging",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Tag S3 objects with start and end offsets and record count. Not "
        "implemented: true is refused.",
    )
    .define(
        "s3.object.tagging.key.value.pairs",
        ConfigType.LIST,
        "",
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Additional S3 tag key value pairs (with s3.object.tagging).",
    )
    .define(
        "s3.object.behavior.on.tagging.error",
        ConfigType.STRING,
        "ignore",
        ValidString.one_of("ignore", "fail", case_insensitive=True),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="How to handle S3 object tagging errors: ignore or fail (with "
        "s3.object.tagging).",
    )
    .define(
        "s3.wan.mode",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        group=_G_S3,
        documentation="Use the S3 accelerated endpoint. Not implemented: true is refused.",
    )
    .define(
        "s3.http.send.expect.continue",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Kept for compatibility; the HTTP client decides when to send "
        "'Expect: 100-continue'.",
    )
    .define(
        "max.write.duration.ms",
        ConfigType.LONG,
        _LONG_MAX,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="The longest a put may spend writing. Not implemented: only the "
        "default (no limit) is accepted.",
    )
    .define(
        "s3.schema.partition.affix.type",
        ConfigType.STRING,
        "NONE",
        ValidString.one_of(*AFFIX_TYPES),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Add the record's schema name to the path: NONE, PREFIX or SUFFIX. Not "
        "implemented: only NONE is accepted.",
        recommender=_Recommends(AFFIX_TYPES),
    )
    .define(
        "enable.conditional.writes",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Complete uploads only if the object does not exist yet (with "
        "rotate.schedule.interval.ms, without keys or headers). Not implemented: an "
        "explicit true that would take effect is refused.",
    )
    .define(
        "s3.elastic.buffer.enable",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Kept for compatibility: kconnect's part buffers always grow with the data.",
    )
    .define(
        "s3.elastic.buffer.init.capacity",
        ConfigType.INT,
        128 * 1024,
        Range.at_least(4096),
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Kept for compatibility (elastic buffer initial capacity).",
    )
    .define(
        "max.files.scan.limit",
        ConfigType.INT,
        100,
        importance=Importance.LOW,
        group=_G_S3,
        documentation="Used with conditional writes (not implemented).",
        internal=True,
    )
)


def _simple_name(value: str) -> str:
    return re.split(r"[.$]", value.strip())[-1]


def _one_of(key: str, value: str, allowed: tuple[str, ...], what: str) -> str:
    simple = _simple_name(value)
    if simple not in allowed:
        raise ConfigError(
            f"S3 sink: config {key!r}: {value!r} is not a known {what}; use one of "
            + ", ".join(allowed),
            name=key,
            value=value,
        )
    return simple


def parse_zone(key: str, value: str) -> ZoneInfo | Any:
    """A tzinfo for a Joda zone ID (``UTC``, ``Europe/Paris``) or offset (``+02:00``)."""
    from datetime import timedelta, timezone

    text = value.strip()
    match = re.fullmatch(r"([+-])(\d{1,2})(?::?(\d{2}))?", text)
    if match:
        sign = -1 if match.group(1) == "-" else 1
        delta = timedelta(hours=int(match.group(2)), minutes=int(match.group(3) or 0))
        return timezone(sign * delta)
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"Invalid value {value} for configuration {key}: The datetime zone id "
            f"'{text}' is not recognised (use e.g. UTC, Europe/Paris or +02:00)",
            name=key,
            value=value,
        ) from exc


@dataclass(frozen=True, slots=True)
class S3SinkSettings:
    """The parsed config, with the Java class names reduced to what they select."""

    raw: ParsedConfig
    bucket: str
    format: str
    keys_format: str | None
    headers_format: str | None
    partitioner: str
    extractor: str
    flush_size: int
    rotate_interval_ms: int
    rotate_schedule_interval_ms: int
    zone: Any
    retry_backoff_ms: int
    pad_width: int
    topics_dir: str
    dir_delim: str
    file_delim: str
    compression: str
    compression_level: int
    part_size: int
    part_retries: int
    s3_retry_backoff_ms: int
    null_behavior: str
    report_nulls: bool
    compatibility: str
    max_open_files: int
    bytearray_extension: str
    bytearray_separator: bytes
    tombstone_partition: str

    def secret(self, key: str) -> str | None:
        value = self.raw[key]
        return value.value if isinstance(value, Password) else None


def _unsupported(key: str, value: Any, why: str) -> ConfigError:
    return ConfigError(
        f"S3 sink: config {key!r}={value} is not supported by kconnect ({why}); remove it "
        "or set it to its default",
        name=key,
        value=value,
    )


def _refuse_unsupported(c: ParsedConfig, props: Mapping[str, str]) -> None:
    """Confluent options kconnect does not implement fail the config rather than being
    silently ignored, so that nobody relies on a behaviour that is not there."""
    if c["s3.object.tagging"]:
        raise _unsupported("s3.object.tagging", "true", "objects are not tagged")
    if c["s3.wan.mode"]:
        raise _unsupported("s3.wan.mode", "true", "no accelerated endpoint")
    if str(c["s3.schema.partition.affix.type"]) != "NONE":
        raise _unsupported(
            "s3.schema.partition.affix.type",
            c["s3.schema.partition.affix.type"],
            "the schema name is never added to the path",
        )
    if int(c["max.write.duration.ms"]) != _LONG_MAX:
        raise _unsupported(
            "max.write.duration.ms", c["max.write.duration.ms"], "a put writes its whole batch"
        )
    conditional = (
        "enable.conditional.writes" in props
        and c["enable.conditional.writes"]
        and int(c["rotate.schedule.interval.ms"]) != -1
        and not c["store.kafka.keys"]
        and not c["store.kafka.headers"]
    )
    if conditional:
        raise _unsupported(
            "enable.conditional.writes", "true", "uploads overwrite an existing object"
        )


def parse_settings(props: Mapping[str, str]) -> S3SinkSettings:
    """Parse and cross-check the connector config.

    Raises:
        ConfigError: a key is missing or wrong, naming the key and what to do.
    """
    c = CONFIG_DEF.parse(props)
    if _simple_name(str(c["storage.class"])) != "S3Storage":
        raise ConfigError(
            f"S3 sink: config 'storage.class' must be {STORAGE_CLASS}, got {c['storage.class']!r}",
            name="storage.class",
            value=c["storage.class"],
        )
    fmt = _one_of("format.class", str(c["format.class"]), FORMATS, "S3 format class")
    keys_format = headers_format = None
    if c["store.kafka.keys"]:
        keys_format = _one_of(
            "keys.format.class", str(c["keys.format.class"]), FORMATS, "S3 format class"
        )
    if c["store.kafka.headers"]:
        headers_format = _one_of(
            "headers.format.class", str(c["headers.format.class"]), FORMATS, "S3 format class"
        )
    partitioner = _one_of(
        "partitioner.class", str(c["partitioner.class"]), PARTITIONERS, "partitioner class"
    )
    extractor_name = str(c["timestamp.extractor"]).strip()
    # Java also takes the extractors' class names (TimeBasedPartitioner$RecordTimestampExtractor).
    extractor = _simple_name(extractor_name).removesuffix("TimestampExtractor")
    if extractor not in EXTRACTORS:
        raise ConfigError(
            f"Invalid timestamp extractor: {extractor_name}. Use Wallclock, Record or "
            "RecordField (classes of other timestamp extractors cannot be loaded)",
            name="timestamp.extractor",
            value=extractor_name,
        )
    provider = _simple_name(str(c["s3.credentials.provider.class"]))
    if provider not in DEFAULT_CREDENTIALS_PROVIDERS:
        raise ConfigError(
            f"S3 sink: config 's3.credentials.provider.class'="
            f"{c['s3.credentials.provider.class']} is not supported by kconnect (Java "
            "credentials providers cannot be loaded); remove it to use the default chain "
            "(environment, shared files, instance metadata) or set aws.access.key.id and "
            "aws.secret.access.key",
            name="s3.credentials.provider.class",
            value=c["s3.credentials.provider.class"],
        )
    zone_text = str(c["timezone"] or "").strip()
    zone = parse_zone("timezone", zone_text) if zone_text else None
    if int(c["rotate.schedule.interval.ms"]) > 0 and zone is None:
        raise ConfigError(
            "timezone configuration must be set when using rotate.schedule.interval.ms "
            "(a zone ID such as UTC)",
            name="timezone",
            value=zone_text,
        )
    null_behavior = str(c["behavior.on.null.values"]).lower()
    if null_behavior == "write" and not c["store.kafka.keys"]:
        raise ConfigError(
            "S3 sink: config 'behavior.on.null.values=write' needs 'store.kafka.keys=true' "
            "(a tombstone is written as its key only)",
            name="behavior.on.null.values",
            value=null_behavior,
        )
    _refuse_unsupported(c, props)
    separator = c["format.bytearray.separator"]
    return S3SinkSettings(
        raw=c,
        bucket=str(c["s3.bucket.name"]),
        format=fmt,
        keys_format=keys_format,
        headers_format=headers_format,
        partitioner=partitioner,
        extractor=extractor,
        flush_size=int(c["flush.size"]),
        rotate_interval_ms=int(c["rotate.interval.ms"]),
        rotate_schedule_interval_ms=int(c["rotate.schedule.interval.ms"]),
        zone=zone,
        retry_backoff_ms=int(c["retry.backoff.ms"]),
        pad_width=int(c["filename.offset.zero.pad.width"]),
        topics_dir=str(c["topics.dir"] or ""),
        dir_delim=str(c["directory.delim"]),
        file_delim=str(c["file.delim"]),
        compression=str(c["s3.compression.type"]),
        compression_level=int(c["s3.compression.level"]),
        part_size=int(c["s3.part.size"]),
        part_retries=int(c["s3.part.retries"]),
        s3_retry_backoff_ms=int(c["s3.retry.backoff.ms"]),
        null_behavior=null_behavior,
        report_nulls=bool(c["report.null.values.to.dlq"]),
        compatibility=str(c["schema.compatibility"]).upper(),
        max_open_files=int(c["partitioner.max.open.files"]),
        bytearray_extension=str(c["format.bytearray.extension"]),
        bytearray_separator=(os.linesep if separator is None else str(separator)).encode(),
        tombstone_partition=str(c["tombstone.encoded.partition"]),
    )
