from __future__ import annotations

import pytest
from kconnect_runtime import PluginKind, PluginRegistry
from kconnect_runtime._registry import PluginDesc
from kconnect_sdk import ConfigError, SourceConnector

SOURCE_JAVA = "org.apache.kafka.connect.file.FileStreamSourceConnector"


@pytest.fixture(scope="module")
def registry() -> PluginRegistry:
    return PluginRegistry.discover()


@pytest.mark.parametrize(
    "name",
    [
        SOURCE_JAVA,
        "FileStreamSourceConnector",
        "FileStreamSource",
        "kconnect_connector_file:FileStreamSourceConnector",
        "  FileStreamSource  ",
    ],
)
def test_connector_resolves_by_every_kafka_alias(registry: PluginRegistry, name: str) -> None:
    desc = registry.resolve(name, PluginKind.SOURCE, PluginKind.SINK)
    assert desc.name == SOURCE_JAVA
    assert desc.kind is PluginKind.SOURCE
    assert issubclass(desc.load(), SourceConnector)


@pytest.mark.parametrize(
    ("name", "java"),
    [
        (
            "org.apache.kafka.connect.storage.StringConverter",
            "org.apache.kafka.connect.storage.StringConverter",
        ),
        ("StringConverter", "org.apache.kafka.connect.storage.StringConverter"),
        ("ByteArrayConverter", "org.apache.kafka.connect.converters.ByteArrayConverter"),
        (
            "org.apache.kafka.connect.json.JsonConverter",
            "org.apache.kafka.connect.json.JsonConverter",
        ),
    ],
)
def test_converters_resolve(registry: PluginRegistry, name: str, java: str) -> None:
    assert registry.resolve(name, PluginKind.CONVERTER).name == java


def test_discovery_imports_no_plugin_code() -> None:
    registry = PluginRegistry.discover()
    assert all(p._cls is None for p in registry.plugins())


def test_unknown_name_lists_close_matches(registry: PluginRegistry) -> None:
    with pytest.raises(ConfigError) as info:
        registry.resolve(
            "FileStreamSorce", PluginKind.SOURCE, PluginKind.SINK, key="connector.class"
        )
    message = str(info.value)
    assert "connector.class" in message
    assert "FileStreamSource" in message
    assert info.value.name == "connector.class"


def test_ambiguous_alias_names_both_distributions() -> None:
    a = PluginDesc(PluginKind.CONVERTER, "com.a.FooConverter", "a:FooConverter", "dist-a", "1.0")
    b = PluginDesc(PluginKind.CONVERTER, "com.b.FooConverter", "b:FooConverter", "dist-b", "2.0")
    registry = PluginRegistry([a, b])
    with pytest.raises(ConfigError, match=r"ambiguous.*dist-a 1\.0.*dist-b 2\.0"):
        registry.resolve("FooConverter", PluginKind.CONVERTER)
    assert registry.resolve("com.b.FooConverter", PluginKind.CONVERTER) is b


def test_broken_plugin_is_unavailable_and_others_keep_working() -> None:
    broken = PluginDesc(
        PluginKind.SOURCE, "x.Broken", "no_such_module_anywhere:Broken", "dist-x", "0.1"
    )
    good = PluginRegistry.discover().resolve("FileStreamSource", PluginKind.SOURCE)
    registry = PluginRegistry([broken, good])
    with pytest.raises(ConfigError, match=r"unavailable.*ModuleNotFoundError"):
        registry.load("Broken", PluginKind.SOURCE)
    assert not broken.available
    assert (
        registry.load("FileStreamSource", PluginKind.SOURCE).__name__ == "FileStreamSourceConnector"
    )


def test_wrong_base_class_is_refused() -> None:
    wrong = PluginDesc(PluginKind.SOURCE, "x.NotAConnector", "collections:OrderedDict", "d", "1")
    with pytest.raises(ConfigError, match=r"not a subclass of kconnect_sdk\.SourceConnector"):
        wrong.load()
