"""Config providers, placeholder resolution and the Java .properties reader."""

from __future__ import annotations

import importlib
import tomllib
from collections.abc import Iterable
from pathlib import Path

import pytest
from kconnect_sdk import (
    ConfigData,
    ConfigError,
    ConfigProvider,
    DirectoryConfigProvider,
    EnvVarConfigProvider,
    FileConfigProvider,
    parse_properties,
    resolve_placeholders,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a=1", {"a": "1"}),
        ("a = 1 ", {"a": "1 "}),
        ("a:1", {"a": "1"}),
        ("a 1", {"a": "1"}),
        ("a\t \t= \t1", {"a": "1"}),
        ("a", {"a": ""}),
        ("# comment\n! also a comment\n\n   \nb=2", {"b": "2"}),
        ("  # indented comment\nb=2", {"b": "2"}),
        ("key\\=with\\:seps\\ sp=v", {"key=with:seps sp": "v"}),
        ("a=x\\ty\\nz\\\\", {"a": "x\ty\nz\\"}),
        ("a=\\u00e9t\\u00E9", {"a": "été"}),
        ("a=one, \\\n    two, \\\n    three", {"a": "one, two, three"}),
        ("a=ends with backslash\\\\\nb=2", {"a": "ends with backslash\\", "b": "2"}),
        ("a=1\r\nb=2\rc=3", {"a": "1", "b": "2", "c": "3"}),
        ("a=1\na=2", {"a": "2"}),
        ("url=jdbc:mysql://h:3306/db", {"url": "jdbc:mysql://h:3306/db"}),
        ("# not continued \\\nb=2", {"b": "2"}),
    ],
)
def test_parse_properties_follows_java(text: str, expected: dict[str, str]) -> None:
    assert parse_properties(text) == expected


def test_parse_properties_rejects_a_malformed_unicode_escape() -> None:
    with pytest.raises(ConfigError, match=r"f\.properties:1: malformed \\uxxxx escape '\\\\u00zz'"):
        parse_properties("a=\\u00zz", source="f.properties")


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "db.properties").write_text("user=admin\npassword=p\\u0040ss\n", encoding="utf-8")
    (allowed / "k8s").mkdir()
    (allowed / "k8s" / "token").write_text("tok\n", encoding="utf-8")
    (tmp_path / "outside.properties").write_text("password=nope\n", encoding="utf-8")
    return tmp_path


def _file_provider(root: Path) -> FileConfigProvider:
    provider = FileConfigProvider()
    provider.configure({"allowed.paths": str(root / "allowed")})
    return provider


def test_file_provider_reads_properties(secrets: Path) -> None:
    path = str(secrets / "allowed" / "db.properties")
    provider = _file_provider(secrets)
    assert provider.get(path) == ConfigData({"user": "admin", "password": "p@ss"})
    assert provider.get(path, {"password", "missing"}).data == {"password": "p@ss"}


@pytest.mark.parametrize("relative", ["outside.properties", "allowed/../outside.properties"])
def test_file_provider_refuses_paths_outside_allowed_paths(secrets: Path, relative: str) -> None:
    with pytest.raises(ConfigError, match=r"is not inside allowed\.paths"):
        _file_provider(secrets).get(str(secrets / relative))


def test_allowed_paths_must_be_absolute() -> None:
    with pytest.raises(
        ConfigError, match=r"Invalid value relative/dir for configuration allowed\.paths"
    ):
        FileConfigProvider().configure({"allowed.paths": "relative/dir"})


def test_directory_provider_reads_one_file_per_key(secrets: Path) -> None:
    provider = DirectoryConfigProvider()
    provider.configure({"allowed.paths": str(secrets / "allowed")})
    directory = str(secrets / "allowed" / "k8s")
    assert provider.get(directory).data == {"token": "tok\n"}
    assert provider.get(directory, {"../db.properties"}).data == {}
    with pytest.raises(ConfigError, match=r"is not inside allowed\.paths"):
        provider.get(str(secrets))
    with pytest.raises(ConfigError, match="is not a readable directory"):
        provider.get(str(secrets / "allowed" / "nope"))


def test_env_provider_honours_the_allowlist() -> None:
    provider = EnvVarConfigProvider(environ={"DB_PASSWORD": "pw", "HOME": "/root"})
    provider.configure({"allowlist.pattern": "DB_.*"})
    assert provider.get("").data == {"DB_PASSWORD": "pw"}
    assert provider.get("", {"HOME"}).data == {}
    with pytest.raises(ConfigError, match="does not take a path"):
        provider.get("/some/path")


def _providers(root: Path) -> dict[str, ConfigProvider]:
    env = EnvVarConfigProvider(environ={"DB_HOST": "db.local"})
    env.configure({})
    return {"file": _file_provider(root), "env": env}


def test_resolve_placeholders_replaces_every_placeholder(secrets: Path) -> None:
    path = secrets / "allowed" / "db.properties"
    props = {
        "connection.url": "jdbc:mysql://${env:DB_HOST}:3306/db?user=${file:" + str(path) + ":user}",
        "connection.password": "${file:" + str(path) + ":password}",
        "plain": "no placeholders; $ {env:X} ${incomplete",
    }
    assert resolve_placeholders(props, _providers(secrets)) == {
        "connection.url": "jdbc:mysql://db.local:3306/db?user=admin",
        "connection.password": "p@ss",
        "plain": "no placeholders; $ {env:X} ${incomplete",
    }


def test_resolve_placeholders_asks_each_path_once(secrets: Path) -> None:
    calls: list[tuple[str, frozenset[str]]] = []

    class Recording(ConfigProvider):
        def get(self, path: str, keys: Iterable[str] | None = None) -> ConfigData:
            assert keys is not None
            calls.append((path, frozenset(keys)))
            return ConfigData({k: k.upper() for k in keys})

    resolved = resolve_placeholders({"a": "${r:p:x}-${r:p:y}", "b": "${r:p:x}"}, {"r": Recording()})
    assert resolved == {"a": "X-Y", "b": "X"}
    assert calls == [("p", frozenset({"x", "y"}))]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "${vault:secret/db:pw}",
            "config 'db.password': placeholder '${vault:secret/db:pw}' names config provider 'vault', which is not configured",
        ),
        (
            "${env:NOPE}",
            "config 'db.password': placeholder '${env:NOPE}': config provider 'env' has no key 'NOPE'",
        ),
        (
            "${file:/no/such/file.properties:pw}",
            "config 'db.password': placeholder '${file:/no/such/file.properties:pw}' could not be resolved",
        ),
    ],
)
def test_resolve_placeholders_errors_name_placeholder_and_key(
    tmp_path: Path, value: str, message: str
) -> None:
    file_provider = FileConfigProvider()
    env = EnvVarConfigProvider(environ={})
    with pytest.raises(ConfigError) as info:
        resolve_placeholders({"db.password": value}, {"file": file_provider, "env": env})
    assert message in str(info.value)
    assert info.value.name == "db.password"


def test_resolve_placeholders_reports_missing_file_keys_with_path(secrets: Path) -> None:
    path = str(secrets / "allowed" / "db.properties")
    with pytest.raises(ConfigError, match=f"has no key 'missing' at path '{path}'"):
        resolve_placeholders({"k": "${file:" + path + ":missing}"}, _providers(secrets))


def test_resolve_placeholders_reports_disallowed_paths(secrets: Path) -> None:
    path = str(secrets / "outside.properties")
    with pytest.raises(ConfigError, match=r"config 'k'.*is not inside allowed\.paths"):
        resolve_placeholders({"k": "${file:" + path + ":password}"}, _providers(secrets))


def test_providers_are_registered_under_kafkas_class_names() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    group = pyproject["project"]["entry-points"]["kconnect.config_providers"]
    prefix = "org.apache.kafka.common.config.provider."
    assert set(group) == {
        prefix + "FileConfigProvider",
        prefix + "DirectoryConfigProvider",
        prefix + "EnvVarConfigProvider",
    }
    for name, target in group.items():
        module, _, attr = target.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        assert issubclass(cls, ConfigProvider)
        assert cls.__name__ == name.rpartition(".")[2]
