"""The record pipeline a connector's config describes: converters and the transform chain."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast, runtime_checkable

from kconnect_sdk import (
    ConfigError,
    ConnectError,
    ConnectRecord,
    Converter,
    ConverterType,
    DataError,
    Header,
    HeaderConverter,
    Headers,
    Predicate,
    Schema,
    SinkRecord,
    TimestampType,
    Transformation,
)

from kconnect_runtime.config import EMBEDDED_SCHEMA_REGISTRY_URL
from kconnect_runtime.errors import NamesExecutingClass
from kconnect_runtime.plugins import PluginKind, PluginRegistry

__all__ = ["Converters", "TransformChain", "build_converters", "gc_paused", "sink_record"]

R = TypeVar("R", bound=ConnectRecord)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off Python's cyclic garbage collector while a batch is built.

    A batch makes thousands of container objects that all outlive it (records, dicts,
    Structs), so the collector's young generation fills every few hundred of them and
    each pass walks objects that are all alive; over a four-transform chain that cost
    more than the transforms (bench_transforms.py: about 2 us per record against 1.8-2
    us for the four transforms themselves).
    Paused, the batch's objects are examined once, at the next allocation after it.
    Nothing is leaked: cycles made meanwhile are collected then. If another thread (or
    the application) already disabled the collector, it is left as it is; a
    ``gc.disable()`` made elsewhere while a batch holds it off is undone when the batch
    ends (the collector's state is one flag for the whole process).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_TIMESTAMP_TYPES = {
    0: TimestampType.NO_TIMESTAMP_TYPE,
    1: TimestampType.CREATE_TIME,
    2: TimestampType.LOG_APPEND_TIME,
}


def sink_record(
    message: Any, key: tuple[Schema | None, Any], value: tuple[Schema | None, Any], headers: Headers
) -> SinkRecord:
    """A SinkRecord for a consumed confluent-kafka message and its converted parts."""
    ts_type, ts = message.timestamp()
    return SinkRecord(
        topic=message.topic(),
        kafka_partition=message.partition(),
        key_schema=key[0],
        key=key[1],
        value_schema=value[0],
        value=value[1],
        timestamp=ts if ts_type else None,
        timestamp_type=_TIMESTAMP_TYPES.get(ts_type, TimestampType.NO_TIMESTAMP_TYPE),
        kafka_offset=message.offset(),
        headers=headers,
    )


@dataclass(slots=True)
class Converters:
    """The key, value and header converters of one connector."""

    key: Converter
    value: Converter
    header: HeaderConverter

    def headers_to_kafka(
        self, topic: str, headers: Headers
    ) -> list[tuple[str, bytes | None]] | None:
        if not headers:
            return None
        return [
            (h.key, self.header.from_connect_header(topic, h.key, h.schema, h.value))
            for h in headers
        ]

    def headers_from_kafka(
        self, topic: str, raw: Sequence[tuple[str, bytes | None]] | None
    ) -> Headers:
        if not raw:
            return Headers.EMPTY
        out = []
        for key, data in raw:
            schema, value = self.header.to_connect_header(topic, key, data)
            out.append(Header(key, schema, value))
        return Headers(out)

    def close(self) -> None:
        for c in (self.key, self.value, self.header):
            with contextlib.suppress(Exception):  # closing must not mask why we shut down
                c.close()


# KIP-891: the version of a plugin is chosen by this suffix on its config's prefix; the
# runtime consumes it, so a plugin's configure() never sees it.
PLUGIN_VERSION = "plugin.version"


def _converter_settings(
    which: str, worker: Mapping[str, str], connector: Mapping[str, str]
) -> tuple[str, dict[str, str], str, str | None]:
    """Class name, prefixed settings, config key and ``*.plugin.version`` of one converter.

    A connector-level class brings its own settings; a connector-level version applies to
    whichever class is in effect (the connector's or the worker's).
    """
    key = f"{which}.converter"
    source = connector if connector.get(key) else worker
    name = source.get(key)
    if not name:
        raise ConfigError(
            f'Missing required configuration "{key}" which has no default value.', name=key
        )
    prefix = key + "."
    settings = {k[len(prefix) :]: v for k, v in source.items() if k.startswith(prefix)}
    version = settings.pop(PLUGIN_VERSION, None)
    version = connector.get(prefix + PLUGIN_VERSION) or version
    return name, settings, key, version


def build_converters(
    registry: PluginRegistry, worker: Mapping[str, str], connector: Mapping[str, str]
) -> Converters:
    """Instantiate and configure the converters a connector uses (its own or the worker's).

    ``key.converter.plugin.version`` (and ``value.``/``header.``) pick the version (KIP-891).
    """
    built: dict[str, Any] = {}
    for which, kind in (("key", PluginKind.CONVERTER), ("value", PluginKind.CONVERTER)):
        name, settings, key, version = _converter_settings(which, worker, connector)
        converter = registry.load(name, kind, key=key, version=version)()
        settings["converter.type"] = which
        _embedded_registry(converter, settings, worker)
        _configure(key, name, lambda c=converter, s=settings, w=which: c.configure(s, w == "key"))
        built[which] = converter
    header_worker = dict(worker)
    header_worker.setdefault(
        "header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    )
    name, settings, key, version = _converter_settings("header", header_worker, connector)
    header = registry.load(name, PluginKind.HEADER_CONVERTER, key=key, version=version)()
    settings["converter.type"] = ConverterType.HEADER.value
    _embedded_registry(header, settings, worker)
    _configure(key, name, lambda: header.configure(settings))
    return Converters(built["key"], built["value"], header)


def _embedded_registry(converter: Any, settings: dict[str, str], worker: Mapping[str, str]) -> None:
    """Point a registry-using converter that names no registry at the embedded one, if any."""
    url = worker.get(EMBEDDED_SCHEMA_REGISTRY_URL)
    if not url or "schema.registry.url" in settings:
        return
    if "schema.registry.url" in converter.config():
        settings["schema.registry.url"] = url


def _configure(key: str, name: str, action: Any) -> None:
    try:
        action()
    except ConfigError as exc:
        raise ConfigError(f"{key} {name}: {exc}", name=exc.name or key) from exc


@dataclass(slots=True)
class _Stage(Generic[R]):
    alias: str
    transform: Transformation[R]
    predicate: Predicate[R] | None
    negate: bool


class TransformChain(Generic[R]):
    """The ``transforms`` of a connector config, each gated by its predicate."""

    def __init__(
        self,
        stages: list[_Stage[R]],
        *,
        fuse: bool = True,
        predicates: Mapping[str, Predicate[R]] | None = None,
    ) -> None:
        self._stages = stages
        self._predicates = dict(predicates or {})
        self._plan = _plan(stages) if fuse else [([stage], None) for stage in stages]

    def __len__(self) -> int:
        return len(self._stages)

    @classmethod
    def from_config(cls, registry: PluginRegistry, props: Mapping[str, str]) -> TransformChain[R]:
        """Build from ``transforms``/``predicates`` and their ``<alias>.*`` keys; errors name the key."""
        predicates: dict[str, Predicate[R]] = {}

        def add_predicate(alias: str) -> None:
            prefix = f"predicates.{alias}."
            type_key = prefix + "type"
            if not props.get(type_key):
                raise ConfigError(f'Missing required configuration "{type_key}"', name=type_key)
            predicate: Predicate[R] = registry.load(
                props[type_key],
                PluginKind.PREDICATE,
                key=type_key,
                version=props.get(prefix + PLUGIN_VERSION),
            )()
            settings = _plugin_settings(props, prefix)
            _configure(
                prefix.rstrip("."), props[type_key], lambda p=predicate, s=settings: p.configure(s)
            )
            predicates[alias] = predicate

        for alias in _aliases(props, "predicates"):
            add_predicate(alias)
        stages: list[_Stage[R]] = []
        for alias in _aliases(props, "transforms"):
            prefix = f"transforms.{alias}."
            type_key = prefix + "type"
            if not props.get(type_key):
                raise ConfigError(f'Missing required configuration "{type_key}"', name=type_key)
            transform: Transformation[R] = registry.load(
                props[type_key],
                PluginKind.TRANSFORMATION,
                key=type_key,
                version=props.get(prefix + PLUGIN_VERSION),
            )()
            settings = _plugin_settings(props, prefix)
            predicate_alias = settings.pop("predicate", "").strip()
            negate_raw = settings.pop("negate", "false").strip().lower()
            if negate_raw not in ("true", "false"):
                raise ConfigError(
                    f"Invalid value {negate_raw} for configuration {prefix}negate: Expected value to be either true or false",
                    name=prefix + "negate",
                )
            if (
                predicate_alias
                and predicate_alias not in predicates
                and props.get(f"predicates.{predicate_alias}.type")
            ):
                # As Kafka: a predicate's own keys are enough, listed in 'predicates' or not.
                add_predicate(predicate_alias)
            if predicate_alias and predicate_alias not in predicates:
                raise ConfigError(
                    f"Invalid value {predicate_alias} for configuration {prefix}predicate: "
                    f"no predicate with that alias is listed in 'predicates'",
                    name=prefix + "predicate",
                )
            if negate_raw == "true" and not predicate_alias:
                raise ConfigError(
                    f"{prefix}negate is set but {prefix}predicate is not", name=prefix + "negate"
                )
            _configure(
                prefix.rstrip("."), props[type_key], lambda t=transform, s=settings: t.configure(s)
            )
            stages.append(
                _Stage(alias, transform, predicates.get(predicate_alias), negate_raw == "true")
            )
        return cls(stages, predicates=predicates)

    def plugins(self) -> list[tuple[str, str, object]]:
        """``("transformation"|"predicate", alias, plugin)`` for each configured alias."""
        out: list[tuple[str, str, object]] = [
            ("transformation", stage.alias, stage.transform) for stage in self._stages
        ]
        out.extend(("predicate", alias, p) for alias, p in self._predicates.items())
        return out

    def apply_batch(self, records: Sequence[R]) -> list[R]:
        """Run every stage over the batch; dropped records are left out.

        Each stage makes one ``test_batch`` call on its predicate and one ``apply_batch``
        call on its transform per batch (calls that cross a process boundary when the
        plugin is isolated); records keep their order.
        """
        current: list[R] = list(records)
        with gc_paused():
            for group, fused in self._plan:
                if not current:
                    break
                if fused is not None:
                    try:
                        done = fused(current)
                    except Exception:
                        done = None  # the stages in turn, below, find the failing one
                    if done is not None:
                        current = done
                        continue
                for stage in group:
                    if not current:
                        break
                    try:
                        if stage.predicate is None:
                            current = stage.transform.apply_batch(current)
                        else:
                            current = _apply_gated(stage, current)
                    except Exception as exc:
                        raise _stage_error(stage, exc) from exc
        return current

    def close(self) -> None:
        for stage in self._stages:
            for closeable in (stage.transform, stage.predicate):
                if closeable is not None:
                    with contextlib.suppress(Exception):  # closing must not mask why we shut down
                        closeable.close()


_Fused = Callable[[Sequence[Any]], "list[Any] | None"]


@runtime_checkable
class OffersFusedBatch(Protocol):
    """A transform that can run itself and some of the transforms after it as one loop
    (kconnect-transforms' do): given the transforms that follow, ``(how many of the run,
    itself included, the loop covers, the loop)``, or None."""

    def fused_batch(self, following: Sequence[Any]) -> Any: ...


def _plan(stages: list[_Stage[R]]) -> list[tuple[list[_Stage[R]], _Fused | None]]:
    """The stages in groups: a run of stages without predicates whose first transform
    offers ``fused_batch`` for itself and the next ones is one group with that loop (one
    copy of each record for the run, not one per transform); every other stage alone."""
    plan: list[tuple[list[_Stage[R]], _Fused | None]] = []
    i = 0
    while i < len(stages):
        stage = stages[i]
        offer = (
            stage.transform.fused_batch if isinstance(stage.transform, OffersFusedBatch) else None
        )
        if stage.predicate is None and offer is not None:
            following: list[Transformation[R]] = []
            for later in stages[i + 1 :]:
                if later.predicate is not None:
                    break
                following.append(later.transform)
            try:
                found = offer(following) if following else None
            except Exception:  # an offer that fails is no offer: the stages run in turn
                found = None
            if isinstance(found, tuple) and len(found) == 2:
                count, fused = found
                if isinstance(count, int) and 2 <= count <= 1 + len(following):
                    plan.append((stages[i : i + count], fused))
                    i += count
                    continue
        plan.append(([stage], None))
        i += 1
    return plan


def _apply_gated(stage: _Stage[R], records: list[R]) -> list[R]:
    """A stage whose predicate picks the records the transform sees; the rest pass as they are."""
    assert stage.predicate is not None
    verdicts = stage.predicate.test_batch(records)
    if len(verdicts) != len(records):
        raise DataError(
            f"predicate {type(stage.predicate).__name__}.test_batch returned {len(verdicts)} "
            f"results for {len(records)} records; it must return one per record"
        )
    chosen = [r for r, v in zip(records, verdicts, strict=True) if bool(v) != stage.negate]
    if not chosen:
        return records
    if len(chosen) == len(records):
        return stage.transform.apply_batch(records)
    # apply_batch leaves dropped records out, so the chosen records go one run at a time:
    # each maximal run of consecutive chosen records is one call, keeping the order.
    out: list[R] = []
    run: list[R] = []
    for record, verdict in zip(records, verdicts, strict=True):
        if bool(verdict) != stage.negate:
            run.append(record)
            continue
        if run:
            out.extend(stage.transform.apply_batch(run))
            run = []
        out.append(record)
    if run:
        out.extend(stage.transform.apply_batch(run))
    return out


def _plugin_settings(props: Mapping[str, str], prefix: str) -> dict[str, str]:
    """A transform's or predicate's own settings: ``type`` and ``plugin.version`` are the runtime's."""
    own = (prefix + "type", prefix + PLUGIN_VERSION)
    return {k[len(prefix) :]: v for k, v in props.items() if k.startswith(prefix) and k not in own}


def _stage_error(stage: _Stage[Any], exc: Exception) -> ConnectError:
    """The error a failed transform raises: names the alias, keeps the error's type."""
    error: ConnectError
    if isinstance(exc, ConnectError):
        try:
            error = type(exc)(f"transform {stage.alias!r}: {exc}")
        except Exception:  # a subclass with its own constructor: keep the base type
            error = ConnectError(f"transform {stage.alias!r}: {type(exc).__name__}: {exc}")
    else:
        error = DataError(f"transform {stage.alias!r} failed: {type(exc).__name__}: {exc}")
    # Which class failed, for the errors log and the DLQ's __connect.errors.class.name.
    cls = type(stage.transform)
    cast(NamesExecutingClass, error).executing_class = f"{cls.__module__}.{cls.__qualname__}"
    return error


def _aliases(props: Mapping[str, str], key: str) -> list[str]:
    raw = props.get(key, "")
    aliases = [a.strip() for a in raw.split(",") if a.strip()]
    dupes = {a for a in aliases if aliases.count(a) > 1}
    if dupes:
        raise ConfigError(
            f"Duplicate alias provided in '{key}': {', '.join(sorted(dupes))}", name=key
        )
    return aliases
