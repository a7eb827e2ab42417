"""kconnect conformance testkit: suites, scenarios, test doubles and service fixtures.

Subclass a suite in a test module, name the plugin and its scenarios, and run pytest::

    from kconnect_testkit import Scenario, SourceConnectorSuite

    class TestFileSource(SourceConnectorSuite):
        plugin = "org.apache.kafka.connect.file.FileStreamSourceConnector"
        scenarios = [
            Scenario(id="lines", config={"file": "{tmp_path}/in.txt", "topic": "t"},
                     seed="seed_lines", expected_records=3),
        ]

        def seed_lines(self, tmp_path):
            (tmp_path / "in.txt").write_text("a\\nb\\nc\\n")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kconnect_sdk import distribution_version

if TYPE_CHECKING:
    from ._base import STRICTNESS_LEVELS, PluginPackageSuite, Suite
    from ._converter_suite import ConverterSuite
    from ._corpus import CORPUS, CorpusCase, values_for
    from ._doubles import (
        FakeClock,
        InMemoryOffsetStore,
        RecordFactory,
        RecordingErrantReporter,
        RecordingSinkContext,
        ScriptedSourceContext,
    )
    from ._examples import example_scenarios, example_waivers
    from ._java import (
        DEBEZIUM_VERSION,
        KAFKA_VERSION,
        SASL_USERS,
        JavaConnectWorker,
        KafkaCluster,
        SecuredListeners,
    )
    from ._predicate_suite import PredicateSuite
    from ._scenario import Scenario
    from ._sink_suite import SinkConnectorSuite
    from ._source_suite import SourceConnectorSuite
    from ._spark_cluster import SparkCluster, pack_environment
    from ._tls import TestCertificates
    from ._transform_suite import TransformSuite

__version__ = distribution_version(__name__)

# Names are imported on first use: pytest loads this package in every session through the
# pytest11 entry point, and a session without a suite should not pay for the runtime.
_LAZY = {
    "CORPUS": "._corpus",
    "CorpusCase": "._corpus",
    "values_for": "._corpus",
    "STRICTNESS_LEVELS": "._base",
    "PluginPackageSuite": "._base",
    "Suite": "._base",
    "SinkConnectorSuite": "._sink_suite",
    "SourceConnectorSuite": "._source_suite",
    "ConverterSuite": "._converter_suite",
    "PredicateSuite": "._predicate_suite",
    "TransformSuite": "._transform_suite",
    "example_scenarios": "._examples",
    "example_waivers": "._examples",
    "FakeClock": "._doubles",
    "InMemoryOffsetStore": "._doubles",
    "RecordFactory": "._doubles",
    "RecordingErrantReporter": "._doubles",
    "RecordingSinkContext": "._doubles",
    "ScriptedSourceContext": "._doubles",
    "Scenario": "._scenario",
    "DEBEZIUM_VERSION": "._java",
    "KAFKA_VERSION": "._java",
    "JavaConnectWorker": "._java",
    "KafkaCluster": "._java",
    "SASL_USERS": "._java",
    "SecuredListeners": "._java",
    "TestCertificates": "._tls",
    "SparkCluster": "._spark_cluster",
    "pack_environment": "._spark_cluster",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CORPUS",
    "DEBEZIUM_VERSION",
    "KAFKA_VERSION",
    "SASL_USERS",
    "STRICTNESS_LEVELS",
    "ConverterSuite",
    "CorpusCase",
    "FakeClock",
    "InMemoryOffsetStore",
    "JavaConnectWorker",
    "KafkaCluster",
    "PluginPackageSuite",
    "PredicateSuite",
    "RecordFactory",
    "RecordingErrantReporter",
    "RecordingSinkContext",
    "Scenario",
    "ScriptedSourceContext",
    "SecuredListeners",
    "SinkConnectorSuite",
    "SourceConnectorSuite",
    "SparkCluster",
    "Suite",
    "TestCertificates",
    "TransformSuite",
    "__version__",
    "example_scenarios",
    "example_waivers",
    "pack_environment",
    "values_for",
]
