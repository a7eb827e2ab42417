"""Registry failures, as a user meets them: at start, mid-run, and on an incompatible schema."""

from __future__ import annotations

import socket
import uuid
from typing import Any

import pytest
from kconnect_converter_avro import AvroConverter
from kconnect_runtime.schema_registry import SchemaRegistryServer
from kconnect_sdk import ConfigError, DataError, Schema, SchemaBuilder, Struct


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_unreachable_registry_at_start_names_the_url() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(ConfigError, match=f"cannot reach the Schema Registry at {url}"):
        AvroConverter().configure({"schema.registry.url": url}, False)


def test_missing_url_says_what_to_set() -> None:
    with pytest.raises(ConfigError, match=r"schema\.registry\.url.*mock://"):
        AvroConverter().configure({}, False)


def test_credentials_never_appear_in_errors() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    with pytest.raises(ConfigError) as err:
        AvroConverter().configure(
            {
                "schema.registry.url": url,
                "basic.auth.credentials.source": "USER_INFO",
                "basic.auth.user.info": "fred:s3cr3t-pw",
            },
            False,
        )
    assert "s3cr3t-pw" not in str(err.value)


@pytest.mark.integration
def test_registry_gone_mid_run_and_incompatible_schema_are_data_errors(kc_kafka: str) -> None:
    server = SchemaRegistryServer(
        {
            "listeners": "http://127.0.0.1:0",
            "kafkastore.bootstrap.servers": kc_kafka,
            "kafkastore.topic": f"_schemas_{uuid.uuid4().hex[:8]}",
        }
    )
    server.start()
    conv = AvroConverter()
    try:
        conv.configure({"schema.registry.url": server.url}, False)
        v1 = SchemaBuilder.struct().name("x.R").field("a", Schema.INT32).build()
        v2 = (
            SchemaBuilder.struct()
            .name("x.R")
            .field("a", Schema.INT32)
            .field("b", Schema.STRING)  # required, no default: not backward compatible
            .build()
        )
        data = conv.from_connect_data("t", v1, Struct(v1).put("a", 1))
        with pytest.raises(DataError) as refused:
            conv.from_connect_data("t", v2, Struct(v2).put("a", 1).put("b", "x"))
        message = str(refused.value)
        assert "topic 't'" in message
        assert "'t-value'" in message
        assert "incompatible" in message
    finally:
        server.stop()
    # The schema already written is cached: records of it still convert.
    assert conv.to_connect_data("t", data).value.get("a") == 1
    other = SchemaBuilder.struct().name("x.Other").field("z", Schema.INT64).build()
    with pytest.raises(DataError, match=r"topic 't'.*unreachable") as gone:
        conv.from_connect_data("t", other, Struct(other).put("z", 1))
    assert server.url in str(gone.value)
    conv.close()


def test_header_use(tmp_path: Any) -> None:
    conv = AvroConverter()
    conv.configure({"schema.registry.url": f"mock://headers-{uuid.uuid4().hex}"})
    data = conv.from_connect_header("t", "trace", Schema.STRING, "abc")
    assert data is not None and data[0] == 0
    assert conv.to_connect_header("t", "trace", data).value == "abc"


def test_user_info_in_the_url_is_not_shown() -> None:
    port = _closed_port()
    with pytest.raises(ConfigError) as err:
        AvroConverter().configure(
            {"schema.registry.url": f"http://fred:pa55word@127.0.0.1:{port}"}, False
        )
    assert "pa55word" not in str(err.value)
    assert f"http://127.0.0.1:{port}" in str(err.value)
