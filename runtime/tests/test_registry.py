from __future__ import annotations

import pytest
from kconnect_runtime import PluginKind, PluginRegistry
from kconnect_runtime.plugins import PluginDesc
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


@pytest.mark.parametrize(
    ("name", "kind", "install"),
    [
        (
            "org.apache.kafka.connect.json.JsonConverter",
            PluginKind.CONVERTER,
            "pip install kconnect (or pip install kconnect-converter-json)",
        ),
        (
            "org.apache.kafka.connect.storage.SimpleHeaderConverter",
            PluginKind.HEADER_CONVERTER,
            "pip install kconnect (or pip install kconnect-converter-string)",
        ),
        (
            "io.confluent.connect.jdbc.JdbcSourceConnector",
            PluginKind.SOURCE,
            "pip install 'kconnect[jdbc]' (or pip install kconnect-connector-jdbc)",
        ),
        (
            "io.debezium.connector.mysql.MySqlConnector",
            PluginKind.SOURCE,
            "pip install 'kconnect[mysql]' (or pip install kconnect-connector-mysql)",
        ),
        (
            "AvroConverter",
            PluginKind.CONVERTER,
            "pip install 'kconnect[avro]' (or pip install kconnect-converter-avro)",
        ),
    ],
)
def test_a_catalogue_plugin_not_installed_names_the_install_line(
    name: str, kind: PluginKind, install: str
) -> None:
    # Only the StringConverter is installed: the one a similarity search would offer.
    string = PluginDesc(
        PluginKind.CONVERTER,
        "org.apache.kafka.connect.storage.StringConverter",
        "kconnect_converter_string:StringConverter",
        "kconnect-converter-string",
        "0.1.0",
    )
    with pytest.raises(ConfigError) as info:
        PluginRegistry([string]).resolve(name, kind, key="value.converter")
    message = str(info.value)
    assert message.startswith(f"config 'value.converter': no {kind.value} plugin named {name!r}")
    assert message.endswith(f": {install}."), message
    assert "Did you mean" not in message


def test_close_matches_compare_class_names_not_packages() -> None:
    string = PluginDesc(
        PluginKind.CONVERTER,
        "org.apache.kafka.connect.storage.StringConverter",
        "kconnect_converter_string:StringConverter",
        "kconnect-converter-string",
        "0.1.0",
    )
    registry = PluginRegistry([string])
    with pytest.raises(ConfigError) as info:
        registry.resolve("com.example.JsonConverter", PluginKind.CONVERTER)
    assert "Did you mean" not in str(info.value)
    with pytest.raises(ConfigError, match="Did you mean: StringConverter"):
        registry.resolve("StringConvertor", PluginKind.CONVERTER)


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


# KIP-891: versions.

TICKS = "kc_ticks.TickSourceConnector"


def _versions_registry(*versions: str) -> PluginRegistry:
    """One connector installed in several versions, each in a location of its own."""
    return PluginRegistry(
        [
            PluginDesc(PluginKind.SOURCE, TICKS, "kc_ticks:Tick", "kc-ticks", v, f"/loc/{v}")
            for v in versions
        ]
    )


@pytest.mark.parametrize(
    ("spec", "chosen"),
    [
        (None, "2.1.0"),
        ("latest", "2.1.0"),
        ("", "2.1.0"),
        ("1.5.0", "1.5.0"),
        ("1.5", "1.5.0"),  # 1.5 is 1.5.0, as in Maven and PEP 440
        ("[1.0,2.0)", "1.5.0"),
        ("[1.0,2.0]", "2.0.0"),
        ("(,1.5)", "1.0.0"),
        ("(,1.0],[2.0,2.0]", "2.0.0"),  # several ranges: the newest in any of them
        ("[2.0.0]", "2.0.0"),
        ("[2.0,)", "2.1.0"),
        (">=1,<2", "1.5.0"),
        ("~=2.0", "2.1.0"),
        ("==1.*", "1.5.0"),
    ],
)
def test_version_requirement_picks_the_newest_match(spec: str | None, chosen: str) -> None:
    registry = _versions_registry("1.0.0", "1.5.0", "2.0.0", "2.1.0")
    desc = registry.resolve("TickSource", PluginKind.SOURCE, key="connector.class", version=spec)
    assert (desc.version, desc.location) == (chosen, f"/loc/{chosen}")


@pytest.mark.parametrize("spec", ["3.0", "[3.0,4.0)", ">=3", "(,0.9]"])
def test_uninstalled_version_names_the_key_and_the_installed_versions(spec: str) -> None:
    registry = _versions_registry("2.0.0", "1.0.0")
    with pytest.raises(ConfigError) as info:
        registry.resolve("TickSource", PluginKind.SOURCE, key="connector.class", version=spec)
    message = str(info.value)
    assert info.value.name == "connector.plugin.version"
    assert f"version range {spec}" in message
    assert "available versions: 1.0.0, 2.0.0" in message
    assert TICKS in message


@pytest.mark.parametrize(
    ("key", "version_key"),
    [
        ("connector.class", "connector.plugin.version"),
        ("key.converter", "key.converter.plugin.version"),
        ("transforms.stamp.type", "transforms.stamp.plugin.version"),
        ("predicates.big.type", "predicates.big.plugin.version"),
    ],
)
def test_version_errors_name_the_version_key_of_the_class_key(key: str, version_key: str) -> None:
    registry = _versions_registry("1.0.0")
    with pytest.raises(ConfigError) as info:
        registry.resolve("TickSource", PluginKind.SOURCE, key=key, version="2.0")
    assert info.value.name == version_key
    assert f"config {version_key!r}" in str(info.value)


@pytest.mark.parametrize(
    "spec", ["[1.0", "(1.0)", "[2.0,1.0]", "[,1.0]", ">=x", "1.0 2.0", "[1,2,3]"]
)
def test_malformed_version_is_refused_with_the_accepted_forms(spec: str) -> None:
    registry = _versions_registry("1.0.0")
    with pytest.raises(ConfigError) as info:
        registry.resolve("TickSource", PluginKind.SOURCE, key="connector.class", version=spec)
    assert info.value.name == "connector.plugin.version"
    assert f"Invalid value {spec} for configuration connector.plugin.version" in str(info.value)
    assert "[1.0,2.0)" in str(info.value)


def test_installed_versions_are_listed_oldest_first() -> None:
    registry = _versions_registry("2.0.0", "10.0.0", "1.0.0")
    assert registry.versions("TickSource", PluginKind.SOURCE) == ["1.0.0", "2.0.0", "10.0.0"]
    assert registry.versions("Nothing", PluginKind.SOURCE) == []


def test_a_pin_skips_an_unusable_newer_copy_but_names_it_when_pinned() -> None:
    plugins = [
        PluginDesc(PluginKind.SOURCE, TICKS, "kc_ticks:Tick", "kc-ticks", "1.0.0", "/loc/a"),
        PluginDesc(
            PluginKind.SOURCE, TICKS, "kc_ticks:Tick", "kc-ticks", "2.0.0", "/loc/b", "needs sdk 9"
        ),
    ]
    registry = PluginRegistry(plugins)
    assert registry.resolve("TickSource", PluginKind.SOURCE).version == "1.0.0"
    pinned = registry.resolve("TickSource", PluginKind.SOURCE, version="2.0.0")
    with pytest.raises(ConfigError, match="needs sdk 9"):
        pinned.load()


def test_every_plugin_names_its_distribution_and_version_as_its_full_metadata_says() -> None:
    # Discovery reads only METADATA's header block; the full e-mail parse is the reference.
    import importlib.metadata as md

    full = {}
    for dist in md.distributions():
        meta = dist.metadata
        full[meta["Name"]] = meta["Version"]
    plugins = PluginRegistry.discover().plugins()
    assert {p.distribution for p in plugins} >= {"kconnect-connector-file", "kconnect-transforms"}
    for plugin in plugins:
        assert full[plugin.distribution] == plugin.version, plugin
