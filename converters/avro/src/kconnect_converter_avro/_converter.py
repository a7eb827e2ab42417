"""AvroConverter: Connect data as Avro in Confluent's wire format, schemas in a registry."""

from __future__ import annotations

import importlib.metadata
import io
import json
import logging
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

import fastavro
from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    Converter,
    DataError,
    HeaderConverter,
    Headers,
    Schema,
    SchemaAndValue,
    record_maker,
)

from ._avro_data import AvroData
from ._config import (
    KEY_SCHEMA_ID_HEADER,
    RECORD_NAME_STRATEGY,
    TOPIC_NAME_STRATEGY,
    VALUE_SCHEMA_ID_HEADER,
    AvroConverterSettings,
    avro_converter_config_def,
)

with warnings.catch_warnings():
    # authlib (imported by confluent-kafka's registry client) warns on import that httpx is
    # deprecated in favour of httpx2; nothing a user can act on, so keep it out of their logs.
    # Its module sets an "always" filter for its warnings on import: import it first, then
    # put our narrower filter in front.
    importlib.import_module("authlib.deprecate")

    warnings.filterwarnings(
        "ignore", message="The httpx module is deprecated; please use httpx2 instead"
    )
    from confluent_kafka.schema_registry import (
        Schema as RegistrySchema,
    )
    from confluent_kafka.schema_registry import (
        SchemaRegistryClient,
        SchemaRegistryError,
    )

__all__ = ["AvroConverter", "drop_mock_schema_registry", "mock_schema_registry_client"]

log = logging.getLogger(__name__)

MAGIC_BYTE: Final = 0
CONFLUENT_VERSION: Final = "confluent:version"
_NULL: Final = SchemaAndValue(None, None)
# A result per record without the NamedTuple's Python-level __new__: decoding is the hot path.
_make_sv: Final = record_maker(SchemaAndValue)

_mock_lock = threading.Lock()
_mock_scopes: dict[str, SchemaRegistryClient] = {}


def mock_schema_registry_client(scope: str) -> SchemaRegistryClient:
    """The in-process registry behind ``schema.registry.url=mock://<scope>``.

    Every converter (and any confluent-kafka serializer given this client) naming the same
    scope in this process shares it, as Confluent's ``MockSchemaRegistry`` scopes do.
    """
    with _mock_lock:
        client = _mock_scopes.get(scope)
        if client is None:
            client = SchemaRegistryClient.new_client({"url": f"mock://{scope}"})
            _mock_scopes[scope] = client
        return client


def drop_mock_schema_registry(scope: str) -> None:
    """Forget the in-process registry of ``scope`` (Confluent's ``dropScope``)."""
    with _mock_lock:
        _mock_scopes.pop(scope, None)


def _registry_client(settings: AvroConverterSettings) -> SchemaRegistryClient:
    urls = settings.urls
    if urls and urls[0].startswith("mock://"):
        if len(urls) > 1:
            raise ConfigError(
                "AvroConverter: only one mock:// URL may be given in 'schema.registry.url'"
            )
        return mock_schema_registry_client(urls[0][len("mock://") :])
    try:
        return SchemaRegistryClient(settings.client_config())
    except (ValueError, TypeError) as exc:
        raise ConfigError(
            f"AvroConverter: bad Schema Registry settings: {_safe(settings, str(exc))}"
        ) from None


def _redact(url: str) -> str:
    """The URL without its user info (``basic.auth.credentials.source=URL`` puts it there)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    return urlunsplit(parts._replace(netloc=netloc))


def _safe(settings: AvroConverterSettings, text: str) -> str:
    """``text`` with every secret of ``settings`` taken out."""
    for url in settings.urls:
        parts = urlsplit(url)
        if parts.password:
            text = text.replace(parts.password, "[hidden]")
    if settings.user_info:
        text = text.replace(settings.user_info, "[hidden]")
        password = settings.user_info.partition(":")[2]
        if password:
            text = text.replace(password, "[hidden]")
    return text


def _network_error(exc: BaseException) -> bool:
    name = type(exc).__module__
    return name.startswith(("httpx", "httpcore", "ssl", "socket")) or isinstance(exc, OSError)


class _WritePlan:
    """Everything writing values of one schema to one subject needs, prepared once."""

    __slots__ = ("encode", "header", "parsed", "raw_bytes", "schema", "topic")

    def __init__(
        self,
        topic: str,
        schema: Schema | None,
        header: bytes,
        parsed: Any,
        encode: Callable[[Any], Any],
    ) -> None:
        self.topic = topic
        self.schema = schema
        self.header = header
        self.parsed = parsed
        self.encode = encode
        self.raw_bytes = _is_bytes_schema(parsed)


class _ReadPlan:
    """Everything reading values written with one schema id needs, prepared once."""

    __slots__ = ("decode", "header", "named_unions", "parsed", "raw_bytes", "schema", "tag_all")

    def __init__(
        self, schema: Schema | None, parsed: Any, decode: Callable[[Any], Any], header: bytes
    ) -> None:
        self.schema = schema
        self.parsed = parsed
        self.decode = decode
        self.header = header
        self.raw_bytes = _is_bytes_schema(parsed)
        # Only unions of several named types need fastavro to say which member it read,
        # and those where a named type's datum looks like another member's (an enum symbol
        # and a string): then fastavro must name every named member it reads.
        self.tag_all = schema is not None and _has_ambiguous_union(parsed)
        self.named_unions = self.tag_all or _has_named_union(parsed)

    def read(self, data: bytes) -> Any:
        body = io.BytesIO(data[5:])
        if self.tag_all:
            return fastavro.schemaless_reader(body, self.parsed, None, return_named_type=True)
        if self.named_unions:
            return fastavro.schemaless_reader(
                body, self.parsed, None, return_named_type=True, return_named_type_override=True
            )
        return fastavro.schemaless_reader(body, self.parsed)


def _has_named_union(node: Any) -> bool:
    if isinstance(node, list):
        named = [m for m in node if isinstance(m, dict | str) and _named(m)]
        return len(named) > 1 or any(_has_named_union(m) for m in node)
    if isinstance(node, dict):
        kind = node.get("type")
        if isinstance(kind, list | dict):
            return _has_named_union(kind)
        if kind in ("record", "error"):
            return any(_has_named_union(f["type"]) for f in node.get("fields", ()))
        if kind == "array":
            return _has_named_union(node["items"])
        if kind == "map":
            return _has_named_union(node["values"])
    return False


# A named type's datum and the plain Avro type whose datum fastavro gives as the same Python
# type: in one union they are told apart only by the name fastavro can attach.
_LOOKALIKE: Final = {"enum": "string", "fixed": "bytes", "record": "map", "error": "map"}


def _has_ambiguous_union(parsed: Any) -> bool:
    kinds: dict[str, str] = {}
    unions: list[list[Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            unions.append(node)
            for member in node:
                walk(member)
        elif isinstance(node, dict):
            kind = node.get("type")
            if kind in _LOOKALIKE and "name" in node:
                kinds[node["name"]] = kind
            if isinstance(kind, list | dict):
                walk(kind)
            for field in node.get("fields", ()):
                walk(field["type"])
            for key in ("items", "values"):
                if key in node:
                    walk(node[key])

    walk(parsed)

    def kind_of(member: Any) -> str | None:
        if isinstance(member, str):
            return kinds.get(member, member)
        if isinstance(member, dict):
            kind = member.get("type")
            return kind if isinstance(kind, str) else None
        return None

    for union in unions:
        member_kinds = [kind_of(m) for m in union]
        named = [k for k in member_kinds if k in _LOOKALIKE]
        if len(named) == 1 and _LOOKALIKE[named[0]] in member_kinds:
            return True
    return False


def _named(node: Any) -> bool:
    if isinstance(node, str):
        return node not in _AVRO_PRIMITIVES
    return node.get("type") in ("record", "error", "enum", "fixed")


_AVRO_PRIMITIVES: Final = frozenset(
    ("null", "boolean", "int", "long", "float", "double", "bytes", "string")
)


def _is_bytes_schema(parsed: Any) -> bool:
    # Confluent's serializer and deserializer write and read a top-level "bytes" schema
    # (Decimal included) as the raw bytes, without Avro's length prefix.
    return parsed == "bytes" or (isinstance(parsed, dict) and parsed.get("type") == "bytes")


class AvroConverter(Converter, HeaderConverter):
    """Confluent's ``io.confluent.connect.avro.AvroConverter``, byte for byte.

    Each value is written as magic byte 0, the 4-byte big-endian id of its schema in the
    Schema Registry, and the Avro binary body. Schemas are derived from Connect schemas by
    :class:`AvroData` and registered under the subject the configured subject name strategy
    gives (``<topic>-key``/``<topic>-value`` by default).
    """

    def __init__(self) -> None:
        self.settings = AvroConverterSettings()
        self.avro_data = AvroData()
        self._client: SchemaRegistryClient | None = None
        self._reset()

    def _reset(self) -> None:
        self._writes: dict[tuple[str, Schema | None], _WritePlan] = {}
        # By (topic, id): the Connect version comes from the topic's subject, and one schema
        # id can be a different version under each subject.
        self._reads: dict[tuple[str, int], _ReadPlan] = {}
        self._last_write: _WritePlan | None = None
        # Schemas this converter wrote, by id: reading them back needs no registry call.
        self._written: dict[int, str] = {}

    # -- configuration ---------------------------------------------------------------
    def config(self) -> ConfigDef:
        return avro_converter_config_def()

    def configure(self, configs: Mapping[str, Any], is_key: bool = False) -> None:
        """Apply Confluent's converter settings; ``is_key`` is False for header use.

        Raises:
            ConfigError: for a bad setting, no ``schema.registry.url``, or a registry that
                cannot be reached (the error names the URL).
        """
        self.is_key = is_key
        self.settings = AvroConverterSettings.parse(configs)
        self.avro_data = AvroData(configs)
        self._client = _registry_client(self.settings)
        self._reset()
        if not self.settings.urls[0].startswith("mock://"):
            try:
                self._check_reachable()
            except ConfigError:
                self._client.close()
                self._client = None
                raise

    def _check_reachable(self) -> None:
        assert self._client is not None
        urls = self._urls()
        try:
            # The cheapest call of the API; any answer means the registry is there.
            self._client.get_schema_types()
        except SchemaRegistryError as exc:
            if exc.http_status_code in (401, 403):
                raise ConfigError(
                    f"AvroConverter: Schema Registry at {urls} refused our credentials "
                    f"({exc.http_status_code}); check basic.auth.credentials.source and "
                    f"basic.auth.user.info"
                ) from None
        except Exception as exc:
            raise ConfigError(
                f"AvroConverter: cannot reach the Schema Registry at {urls}: "
                f"{type(exc).__name__}: {_safe(self.settings, str(exc))}; check "
                f"schema.registry.url and that the registry is running"
            ) from None

    def version(self) -> str:
        try:
            return importlib.metadata.version("kconnect-converter-avro")
        except importlib.metadata.PackageNotFoundError:
            return super().version()

    def _urls(self) -> str:
        return ", ".join(_redact(url) for url in self.settings.urls)

    @property
    def client(self) -> SchemaRegistryClient:
        """The Schema Registry client this converter uses."""
        if self._client is None:
            raise ConfigError("AvroConverter is not configured: call configure() first")
        return self._client

    # -- subjects --------------------------------------------------------------------
    def _subject(self, topic: str, avro_schema: Any) -> str:
        strategy = self.settings.key_strategy if self.is_key else self.settings.value_strategy
        if strategy == TOPIC_NAME_STRATEGY:
            return f"{topic}-key" if self.is_key else f"{topic}-value"
        record = _record_name(avro_schema)
        if record is None:
            raise DataError(
                f"In configuration {'key' if self.is_key else 'value'}.subject.name.strategy = "
                f"{strategy}, the message value must only be a record schema"
            )
        return record if strategy == RECORD_NAME_STRATEGY else f"{topic}-{record}"

    # -- Connect -> bytes ------------------------------------------------------------
    def _write_plan(self, topic: str, schema: Schema | None) -> _WritePlan:
        last = self._last_write
        if last is not None and last.schema is schema and last.topic == topic:
            return last
        key = (topic, schema)
        plan = self._writes.get(key)
        if plan is None:
            plan = self._new_write_plan(topic, schema)
            if len(self._writes) >= max(1, self.settings.max_schemas_per_subject):
                self._writes.clear()
            self._writes[key] = plan
        self._last_write = plan
        return plan

    def _new_write_plan(self, topic: str, schema: Schema | None) -> _WritePlan:
        avro = self.avro_data.from_connect_schema(schema)
        text = json.dumps(avro, separators=(",", ":"), ensure_ascii=False)
        subject = self._subject(topic, avro)
        client = self.client
        settings = self.settings
        writer_schema = avro
        try:
            if settings.use_latest_version:
                latest = client.get_latest_version(subject)
                schema_id = latest.schema_id
                writer_schema = json.loads(latest.schema.schema_str or "null")
            elif settings.auto_register:
                schema_id = client.register_schema(
                    subject, RegistrySchema(text, "AVRO"), normalize_schemas=settings.normalize
                )
            else:
                schema_id = client.lookup_schema(
                    subject, RegistrySchema(text, "AVRO"), normalize_schemas=settings.normalize
                ).schema_id
        except SchemaRegistryError as exc:
            raise DataError(
                f"Failed to serialize Avro data from topic {topic!r}: the Schema Registry "
                f"refused the schema for subject {subject!r}: {_registry_message(exc)}"
            ) from exc
        except Exception as exc:
            if _network_error(exc):
                raise DataError(
                    f"Failed to serialize Avro data from topic {topic!r}: Schema Registry at "
                    f"{self._urls()} is unreachable: {type(exc).__name__}: "
                    f"{_safe(settings, str(exc))}"
                ) from exc
            raise
        if schema_id is None:
            raise DataError(
                f"Failed to serialize Avro data from topic {topic!r}: the Schema Registry gave no "
                f"schema id for subject {subject!r}"
            )
        parsed = fastavro.parse_schema(writer_schema)
        header = bytes([MAGIC_BYTE]) + int(schema_id).to_bytes(4, "big")
        if writer_schema is avro:
            self._written[int(schema_id)] = text
        return _WritePlan(topic, schema, header, parsed, self.avro_data.encoder(schema))

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: Headers | None = None
    ) -> bytes | None:
        """Serialise one value; a null value of an optional (or no) schema gives None."""
        if value is None and (schema is None or schema.optional):
            return None
        plan = self._write_plan(topic, schema)
        out = io.BytesIO()
        out.write(plan.header)
        try:
            if plan.raw_bytes:
                return plan.header + plan.encode(value)  # type: ignore[no-any-return]
            fastavro.schemaless_writer(out, plan.parsed, plan.encode(value))
        except DataError as exc:
            raise DataError(f"Failed to serialize Avro data from topic {topic!r}: {exc}") from exc
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            raise DataError(
                f"Failed to serialize Avro data from topic {topic!r}: the value does not match "
                f"its schema: {type(exc).__name__}: {exc}"
            ) from exc
        return out.getvalue()

    def from_connect_batch(
        self, items: Sequence[tuple[str, Schema | None, Any]]
    ) -> list[bytes | None]:
        """Serialise many ``(topic, schema, value)``; same bytes as one by one."""
        out: list[bytes | None] = []
        append = out.append
        buf = io.BytesIO()
        write = fastavro.schemaless_writer
        plan: _WritePlan | None = None
        try:
            for topic, schema, value in items:
                if plan is None or plan.schema is not schema or plan.topic != topic:
                    plan = self._write_plan(topic, schema)
                    header, parsed, encode = plan.header, plan.parsed, plan.encode
                if value is None or plan.raw_bytes:
                    append(self.from_connect_data(topic, schema, value))
                    continue
                buf.seek(0)
                buf.truncate()
                buf.write(header)
                write(buf, parsed, encode(value))
                append(buf.getvalue())
        except (DataError, ValueError, TypeError, KeyError, AttributeError, OverflowError):
            # Redo the failing record alone so its error is the single-record one.
            self.from_connect_data(topic, schema, value)
            raise
        return out

    # -- bytes -> Connect ------------------------------------------------------------
    def _read_plan(self, topic: str, schema_id: int) -> _ReadPlan:
        plan = self._reads.get((topic, schema_id))
        if plan is not None:
            return plan
        client = self.client
        try:
            known = self._written.get(schema_id)
            registered = (
                RegistrySchema(known, "AVRO") if known is not None else client.get_schema(schema_id)
            )
        except SchemaRegistryError as exc:
            raise DataError(
                f"Failed to deserialize data for topic {topic!r} to Avro: error retrieving Avro "
                f"schema for id {schema_id}: {_registry_message(exc)}"
            ) from exc
        except Exception as exc:
            if _network_error(exc):
                raise DataError(
                    f"Failed to deserialize data for topic {topic!r} to Avro: Schema Registry at "
                    f"{self._urls()} is unreachable while fetching schema id "
                    f"{schema_id}: {type(exc).__name__}: {_safe(self.settings, str(exc))}"
                ) from exc
            raise
        avro = json.loads(registered.schema_str or "null")
        version = self._version_of(topic, avro, registered)
        try:
            connect_schema = (
                None
                if _record_name(avro) == "io.confluent.connect.avro.Anything"
                else self.avro_data.to_connect_schema(avro, version)
            )
        except (DataError, RecursionError, ValueError, TypeError, KeyError) as exc:
            raise DataError(
                f"Failed to deserialize data for topic {topic!r} to Avro: schema id {schema_id} "
                f"has no Connect form: {type(exc).__name__}: {exc}"
            ) from exc
        parsed = fastavro.parse_schema(avro)
        header = bytes([MAGIC_BYTE]) + schema_id.to_bytes(4, "big")
        if connect_schema is None:
            decode = self.avro_data.to_connect_data.__get__(self.avro_data)

            def schemaless(datum: Any) -> Any:
                return decode(None, datum)

            plan = _ReadPlan(None, parsed, schemaless, header)
        else:
            plan = _ReadPlan(connect_schema, parsed, self.avro_data.decoder(connect_schema), header)
        if len(self._reads) >= max(1, self.settings.max_schemas_per_subject):
            self._reads.clear()
        self._reads[(topic, schema_id)] = plan
        return plan

    def _version_of(self, topic: str, avro: Any, registered: RegistrySchema) -> int | None:
        # Like Confluent's deserializer: the Connect version is the subject version of the
        # writer schema (connect.version in the schema, when present, wins later).
        if isinstance(avro, dict) and "connect.version" in avro:
            return None
        # A version the registry was told to give the schema (Confluent's data contracts
        # put it in the schema's metadata) names it better than its position in the subject.
        metadata = getattr(registered, "metadata", None)
        properties = getattr(getattr(metadata, "properties", None), "properties", None) or {}
        pinned = properties.get(CONFLUENT_VERSION)
        if pinned is not None:
            try:
                return int(pinned)
            except ValueError:
                pass  # not a number: Confluent falls back to the subject's version too
        try:
            subject = self._subject(topic, avro)
            found = self.client.lookup_schema(subject, registered).version
            return None if found is None else int(found)
        except Exception:
            return None

    def _decode(self, topic: str, data: bytes) -> SchemaAndValue:
        if len(data) < 5 or data[0] != MAGIC_BYTE:
            raise DataError(
                f"Failed to deserialize data for topic {topic!r} to Avro: Unknown magic byte! "
                f"The data does not start with Confluent's wire format (magic byte 0 and a "
                f"4-byte schema id); check that the topic holds Avro written for a Schema Registry"
            )
        plan = self._read_plan(topic, int.from_bytes(data[1:5], "big"))
        try:
            if plan.raw_bytes:
                return _make_sv((plan.schema, plan.decode(bytes(data[5:]))))
            datum = plan.read(data)
            return _make_sv((plan.schema, plan.decode(datum)))
        except DataError as exc:
            raise DataError(
                f"Failed to deserialize data for topic {topic!r} to Avro: {exc}"
            ) from exc
        except Exception as exc:
            # Whatever the Avro reader trips over in a corrupt body (short reads, huge lengths,
            # bad UTF-8, dates past year 9999) is bad data, for errors.tolerance to handle.
            raise DataError(
                f"Failed to deserialize data for topic {topic!r} to Avro: the body does not "
                f"match its schema: {type(exc).__name__}: {exc}"
            ) from exc

    def to_connect_data(
        self, topic: str, data: bytes | None, headers: Headers | None = None
    ) -> SchemaAndValue:
        """Deserialise one value; None bytes (a tombstone) give a null schema and value."""
        if data is None:
            return _NULL
        if headers is not None:
            self._refuse_header_schema_id(topic, headers)
        return self._decode(topic, data)

    def _refuse_header_schema_id(self, topic: str, headers: Headers) -> None:
        name = KEY_SCHEMA_ID_HEADER if self.is_key else VALUE_SCHEMA_ID_HEADER
        if headers.last_with_name(name) is not None:
            raise DataError(
                f"Failed to deserialize data for topic {topic!r} to Avro: the record carries "
                f"its schema id in header {name!r} (Confluent's HeaderSchemaIdSerializer); "
                f"kconnect's AvroConverter reads schema ids from the payload prefix only"
            )

    def to_connect_batch(self, items: Sequence[tuple[str, bytes | None]]) -> list[SchemaAndValue]:
        """Deserialise many ``(topic, data)``; same results as one by one."""
        out: list[SchemaAndValue] = []
        append = out.append
        reader = fastavro.schemaless_reader
        bytes_io = io.BytesIO
        make_sv = _make_sv
        header = b"\xff"  # matches no record: the first one loads its plan
        plan_topic = ""
        schema: Schema | None = None
        parsed: Any = None
        decode: Any = None
        fast = False
        for topic, data in items:
            if data is None:
                append(_NULL)
                continue
            if not data.startswith(header) or topic != plan_topic:
                if len(data) < 5 or data[0] != MAGIC_BYTE:
                    append(self._decode(topic, data))  # raises the full error
                    continue
                plan = self._read_plan(topic, int.from_bytes(data[1:5], "big"))
                plan_topic = topic
                header, schema, parsed, decode = plan.header, plan.schema, plan.parsed, plan.decode
                # Plain records go through the inlined loop; the rest through _decode.
                fast = not plan.raw_bytes and not plan.named_unions
            if not fast:
                append(self._decode(topic, data))
                continue
            try:
                append(make_sv((schema, decode(reader(bytes_io(data[5:]), parsed)))))
            except Exception:
                append(self._decode(topic, data))  # raises the single-record error
        return out

    # -- headers ---------------------------------------------------------------------
    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)

    def from_connect_header(
        self, topic: str, header_key: str, schema: Schema | None, value: Any
    ) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def close(self) -> None:
        """Drop the schema caches and close the registry client (not a shared mock one)."""
        self._reset()
        client, self._client = self._client, None
        if client is not None and not self.settings.urls[0].startswith("mock://"):
            client.close()


def _record_name(avro: Any) -> str | None:
    if isinstance(avro, dict) and avro.get("type") in ("record", "error"):
        name: str = avro["name"]
        namespace = avro.get("namespace")
        return f"{namespace}.{name}" if namespace and "." not in name else name
    return None


def _registry_message(exc: SchemaRegistryError) -> str:
    return f"{exc.error_message} (HTTP {exc.http_status_code}, error code {exc.error_code})"
