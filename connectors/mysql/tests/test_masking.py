"""Column hashing as Debezium's ``column.mask.hash.<algorithm>.with.salt.<salt>`` does it.

The expected digests were computed with Java 17 itself: ``MessageDigest`` over the salt's
bytes, then over the value as ``ObjectOutputStream.writeObject`` writes a String (v1) or over
``value.getBytes()`` (v2), as hex, as Debezium's MaskStrings.HashValueConverter does.
"""

from __future__ import annotations

from typing import Any

import pytest
from kconnect_connector_mysql._config import parse_settings
from kconnect_connector_mysql._events import _hash
from kconnect_sdk import ConfigError

from .conftest import Db, base_config, drain, payload, start_task, wait_streaming

SALT = "CzQMA0cB5K"
VALUES = ["hello", "h\u00e9llo w\u00f6rld \u20ac", "a\u0000b", "smile \U0001f600"]
SHA256_V1 = [
    "b4d39ab0d198fb4cac8b2f023da74f670bcaf192dcc79b5d6361b7ae6b2fafdf",
    "06907ffe2d08a5e674841236fa963a9f4d34caebf29738aa4a00aa30506ed9e1",
    "7a4e0b6193a8e8b07915879af5d44e8a0e21f873107f348336246570a1eb7a54",
    "ef9129426f5c1e81b095f7d57735635e61c3d1b1334a93621919b233d0d01a73",
]
SHA256_V2 = [
    "c4bf2f9ebc99b7f64add45103e81eb4ca483649064e3e1398b21f41786360c7b",
    "4347a9d952f0cd863b3cf82625fe0cfbdbc0e6744a34cb5c887404b75dd2a3b0",
    "ee3dd6d52d216c6dd4eecb1b5afb8c5f79459939e423b753dcf404a148d09527",
    "9d31230aab70518c3458b624e605aa23995c879337996262700e7a95ae7b4972",
]
MD5_V1 = [
    "555603318934c3e17a4778a3b4a26e59",
    "83428577a20cf6e621477bb4a2343ade",
    "b8b40b73569e52b3ba7d977b83a1a171",
    "1d91d273a9e58d64ef7f81c70bbc4e00",
]
MD5_V2 = [
    "c46c1056b15699a559174f8d2c440b5f",
    "4431a8c27208d77972bb1b27f140bc68",
    "ea06e9b5b309243084b85d2829378030",
    "e51cf9d91d0d609afd308471e39d6d21",
]


def _rule(key: str) -> Any:
    props = {
        "name": "m",
        "topic.prefix": "p",
        "database.hostname": "h",
        "database.user": "u",
        "database.server.id": "1",
        key: "db.t.c",
    }
    (rule,) = parse_settings(props).hash_masks
    return rule


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        (f"column.mask.hash.SHA-256.with.salt.{SALT}", SHA256_V1),
        (f"column.mask.hash.v2.SHA-256.with.salt.{SALT}", SHA256_V2),
        (f"column.mask.hash.md5.with.salt.{SALT}", MD5_V1),
        (f"column.mask.hash.v2.MD5.with.salt.{SALT}", MD5_V2),
    ],
)
def test_hashes_are_javas(key: str, expected: list[str]) -> None:
    convert = _hash(None, _rule(key), 0)
    assert [convert(v) for v in VALUES] == expected
    assert convert(None) is None
    # The hash is cut to the column's length, as Debezium's TruncatingValueConverter does.
    assert _hash(None, _rule(key), 10)("hello") == expected[0][:10]


def test_unknown_algorithm_is_a_config_error_naming_the_key() -> None:
    key = f"column.mask.hash.WHIRL-9.with.salt.{SALT}"
    with pytest.raises(ConfigError, match="WHIRL-9") as raised:
        _rule(key)
    assert raised.value.name == key


@pytest.mark.integration
def test_hashed_columns_in_snapshot_and_binlog(kc_mariadb: Any, kc_kafka: str, mdb: Db) -> None:
    mdb.sql(
        "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(255), b CHAR(10), c VARCHAR(20), n INT)",
        "INSERT INTO t VALUES (1, 'hello', 'hello', 'hello', 5)",
    )
    props = base_config(
        kc_mariadb,
        mdb.name,
        kc_kafka,
        **{
            f"column.mask.hash.SHA-256.with.salt.{SALT}": f"{mdb.name}.t.a,{mdb.name}.t.n",
            f"column.mask.hash.v2.MD5.with.salt.{SALT}": f"{mdb.name}.t.b",
            # A truncation rule comes first in Debezium's order: c is cut, not hashed.
            "column.truncate.to.3.chars": f"{mdb.name}.t.c",
            f"column.mask.hash.SHA-1.with.salt.{SALT}": f"{mdb.name}.t.c",
        },
    )
    task = start_task(props)
    try:
        (snap,) = drain(task, 1)
        wait_streaming(task)
        mdb.sql(f"INSERT INTO t VALUES (2, '{VALUES[1]}', 'hello', NULL, 6)")
        (streamed,) = drain(task, 1)
    finally:
        task.stop()
    assert payload(snap)["after"] == {
        "id": 1,
        "a": SHA256_V1[0],
        "b": MD5_V2[0][:10],  # CHAR(10)
        "c": "hel",
        "n": 5,  # not a character column: left alone
    }
    assert payload(streamed)["after"] == {
        "id": 2,
        "a": SHA256_V1[1],
        "b": MD5_V2[0][:10],
        "c": None,
        "n": 6,
    }
    fields = {f.name: f.schema for f in streamed.value_schema.field("after").schema.fields}
    assert fields["a"].parameters == {"masked": "true"}
    assert fields["b"].parameters == {"masked": "true"}
    assert not (fields["c"].parameters or {}).get("masked")
