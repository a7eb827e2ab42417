"""FileStream source and sink against the kconnect-testkit conformance suites.

The pipeline check runs each scenario through a real worker on both engines; run the
whole module isolated (the connector installed in a plugin location of its own) with
``pytest --kc-isolated``.
"""

from __future__ import annotations

from pathlib import Path

from kconnect_testkit import Scenario, SinkConnectorSuite, SourceConnectorSuite


class TestFileStreamSource(SourceConnectorSuite):
    plugin = "org.apache.kafka.connect.file.FileStreamSourceConnector"
    engines = ("local", "spark")
    scenarios = [
        Scenario(
            id="lines",
            config={"file": "{tmp_path}/in.txt", "topic": "lines"},
            seed="seed_lines",
            expected_records=6,
        ),
        Scenario(
            id="small-batches",
            config={"file": "{tmp_path}/in.txt", "topic": "lines", "batch.size": "2"},
            seed="seed_lines",
            expected_records=6,
        ),
    ]

    def seed_lines(self, tmp_path: Path) -> None:
        (tmp_path / "in.txt").write_text("alpha\nbeta\r\ngamma\n\nZoë 🚀\nlast\n", encoding="utf-8")


class TestFileStreamSink(SinkConnectorSuite):
    plugin = "org.apache.kafka.connect.file.FileStreamSinkConnector"
    engines = ("local", "spark")
    scenarios = [
        Scenario(id="lines", config={"file": "{tmp_path}/out.txt"}, read_output="read_lines"),
    ]
    waivers = {
        "test_errant_record_reporter": "FileStream sink prints any value as Java's "
        "String.valueOf does, so no record is errant",
    }

    def read_lines(self, tmp_path: Path) -> list[str]:
        path = tmp_path / "out.txt"
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
