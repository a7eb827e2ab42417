from __future__ import annotations

import json
from pathlib import Path

import pytest
from kconnect_runtime import load_connector_config, load_properties, parse_properties
from kconnect_sdk import ConfigError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a=1\nb = 2\nc:3\nd 4\n", {"a": "1", "b": "2", "c": "3", "d": "4"}),
        ("# comment\n! also a comment\n\n   \nkey=value\n", {"key": "value"}),
        ("key=value with spaces  \n", {"key": "value with spaces  "}),
        ("  leading.ws=x\n", {"leading.ws": "x"}),
        ("empty=\nbare\n", {"empty": "", "bare": ""}),
        ("url=http://h:8083/x\n", {"url": "http://h:8083/x"}),
        ("k\\:colon=v\n", {"k:colon": "v"}),
        ("k\\ space=v\n", {"k space": "v"}),
        ("tab=a\\tb\nnl=a\\nb\n", {"tab": "a\tb", "nl": "a\nb"}),
        ("uni=caf\\u00e9\n", {"uni": "café"}),
        ("list=a,\\\n    b,\\\n    c\n", {"list": "a,b,c"}),
        ("back=C:\\\\dir\n", {"back": "C:\\dir"}),
        ("dup=1\ndup=2\n", {"dup": "2"}),
        ("a = = b\n", {"a": "= b"}),
        ("regex=topic-(.*)\\\\.v1\n", {"regex": "topic-(.*)\\.v1"}),
    ],
)
def test_parses_java_properties_syntax(text: str, expected: dict[str, str]) -> None:
    assert parse_properties(text) == expected


def test_malformed_escape_names_file_and_line() -> None:
    with pytest.raises(ConfigError, match=r"worker\.properties:3: malformed \\uxxxx escape"):
        parse_properties("a=1\nb=2\nc=\\u12G4\n", source="worker.properties")


def test_line_with_value_but_no_key_names_line() -> None:
    with pytest.raises(ConfigError, match=r"conn\.properties:2: .*no key"):
        parse_properties("name=x\n=orphan value\n", source="conn.properties")


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_properties(tmp_path / "nope.properties")


def test_connector_config_json_post_body(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(
        json.dumps({"name": "s3", "config": {"connector.class": "X", "tasks.max": 2, "flag": True}})
    )
    assert load_connector_config(path) == {
        "name": "s3",
        "connector.class": "X",
        "tasks.max": "2",
        "flag": "true",
    }


def test_connector_config_json_flat_body(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"name": "s3", "connector.class": "X"}))
    assert load_connector_config(path) == {"name": "s3", "connector.class": "X"}


def test_connector_config_json_syntax_error_names_line(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text('{\n "name": "x",\n "config": {oops}\n}')
    with pytest.raises(ConfigError, match=r"c\.json:3: invalid JSON"):
        load_connector_config(path)


def test_connector_config_json_name_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"name": "a", "config": {"name": "b"}}))
    with pytest.raises(ConfigError, match="differs"):
        load_connector_config(path)
