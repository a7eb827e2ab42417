"""The kconnect side: each case run through kconnect's plugin of the same Java class name.

Plugins are found as the runtime finds them, by the entry points that name them after
their Java originals (``org.apache.kafka.connect.transforms.Cast$Value``), so a plugin
missing from an entry-point group is a difference too. Results use the harness's encoding.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from kconnect_sdk import ConnectError, SchemaAndValue

from .cases import Case
from .wire import decode_bytes, encode_bytes, encode_record, encode_schema, encode_value

__all__ = ["plugin_class", "run_case"]

T = TypeVar("T")

_GROUPS = {
    "converter": "kconnect.converters",
    "header": "kconnect.header_converters",
    "transform": "kconnect.transforms",
    "predicate": "kconnect.predicates",
}


class _StageFailure(Exception):
    def __init__(self, stage: str, cause: BaseException) -> None:
        super().__init__(stage)
        self.stage = stage
        self.cause = cause


def _stage(name: str, step: Callable[[], T]) -> T:
    try:
        return step()
    except _StageFailure:
        raise
    except Exception as exc:
        raise _StageFailure(name, exc) from exc


@functools.cache
def plugin_class(kind: str, java_name: str) -> Any:
    """kconnect's class registered under ``java_name`` in ``kind``'s entry-point group."""
    group = _GROUPS[kind]
    for ep in importlib.metadata.entry_points(group=group):
        if ep.name == java_name:
            return ep.load()
    raise LookupError(f"no kconnect plugin named {java_name!r} in entry-point group {group!r}")


def _error(stage: str, exc: BaseException) -> dict[str, Any]:
    cls = type(exc)
    return {
        "error": {
            "stage": stage,
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "message": str(exc),
            # The SDK's contract: every failure a user can cause is a ConnectError.
            "connect": isinstance(exc, ConnectError),
        }
    }


def _schema_and_value(sv: SchemaAndValue | None) -> dict[str, Any]:
    if sv is None:
        return {"schema": None, "value": None}
    return {"schema": encode_schema(sv.schema), "value": encode_value(sv.value, sv.schema)}


def run_case(case: Case) -> dict[str, Any]:
    """kconnect's result for ``case``, shaped as the Java harness's."""
    try:
        return _run(case)
    except _StageFailure as failure:
        return _error(failure.stage, failure.cause)
    except RecursionError as exc:
        return _error("convert", exc)


def _converter(case: Case) -> Any:
    def build() -> Any:
        converter = plugin_class("converter", case.cls)()
        converter.configure(dict(case.config), case.is_key)
        return converter

    return _stage("configure", build)


def _header_converter(case: Case) -> Any:
    def build() -> Any:
        converter = plugin_class("header", case.cls)()
        # As Kafka's worker (and kconnect's) configures every header converter.
        converter.configure({**case.config, "converter.type": "header"})
        return converter

    return _stage("configure", build)


def _run(case: Case) -> dict[str, Any]:
    if case.op == "toBytes":
        converter = _converter(case)
        data = _stage(
            "convert", lambda: converter.from_connect_data(case.topic, case.schema, case.value)
        )
        result: dict[str, Any] = {"bytes": encode_bytes(data)}
        try:
            result["back"] = _schema_and_value(converter.to_connect_data(case.topic, data))
        except Exception as exc:
            result["back"] = _error("back", exc)
        return result
    if case.op == "fromBytes":
        converter = _converter(case)
        sv = _stage("convert", lambda: converter.to_connect_data(case.topic, case.data))
        return _schema_and_value(sv)
    if case.op == "headerToBytes":
        converter = _header_converter(case)
        data = _stage(
            "convert",
            lambda: converter.from_connect_header(
                case.topic, case.header_key, case.schema, case.value
            ),
        )
        result = {"bytes": encode_bytes(data)}
        try:
            result["back"] = _schema_and_value(
                converter.to_connect_header(case.topic, case.header_key, data)
            )
        except Exception as exc:
            result["back"] = _error("back", exc)
        return result
    if case.op == "headerFromBytes":
        converter = _header_converter(case)
        sv = _stage(
            "convert",
            lambda: converter.to_connect_header(
                case.topic, case.header_key, decode_bytes(encode_bytes(case.data))
            ),
        )
        return _schema_and_value(sv)
    if case.op == "predicate":
        assert case.record is not None
        record = case.record

        def build_predicate() -> Any:
            predicate = plugin_class("predicate", case.cls)()
            predicate.configure(dict(case.config))
            return predicate

        predicate = _stage("configure", build_predicate)
        return {"test": bool(_stage("apply", lambda: predicate.test(record)))}
    return _run_chain(case)


def _run_chain(case: Case) -> dict[str, Any]:
    stages: list[tuple[Any, Any, bool]] = []
    for step in case.chain:

        def build_transform(cls: str = step.cls, config: dict[str, str] = step.config) -> Any:
            transform = plugin_class("transform", cls)()
            transform.configure(dict(config))
            return transform

        transform = _stage("configure", build_transform)
        predicate = None
        if step.predicate is not None:

            def build_predicate(spec: tuple[str, dict[str, str]] = step.predicate) -> Any:
                found = plugin_class("predicate", spec[0])()
                found.configure(dict(spec[1]))
                return found

            predicate = _stage("configure", build_predicate)
        stages.append((transform, predicate, step.negate))
    current = case.record
    for transform, predicate, negate in stages:
        if current is None:
            break
        # Kafka's TransformationChain: a stage runs without a predicate, or when the
        # predicate's answer differs from "negate".
        if predicate is None or negate != bool(_stage("apply", partial(predicate.test, current))):
            current = _stage("apply", partial(transform.apply, current))
    return {"record": None if current is None else encode_record(current)}
