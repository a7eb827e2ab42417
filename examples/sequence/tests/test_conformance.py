"""The example plugin against the kconnect-testkit suites (install it first: pip install -e '.[test]')."""

from __future__ import annotations

import json
from pathlib import Path

from kconnect_example_sequence import JsonLinesSinkConnector, SequenceSourceConnector
from kconnect_sdk import SinkRecord
from kconnect_testkit import RecordFactory, Scenario, SinkConnectorSuite, SourceConnectorSuite


class TestSequenceSource(SourceConnectorSuite):
    plugin = SequenceSourceConnector
    scenarios = [
        Scenario(
            id="small", config={"topic": "n", "count": "9", "batch.size": "4"}, expected_records=9
        ),
    ]


class TestJsonLinesSink(SinkConnectorSuite):
    plugin = JsonLinesSinkConnector
    scenarios = [
        Scenario(
            id="jsonl",
            config={"file": "{tmp_path}/out.jsonl"},
            read_output="read_lines",
            bad_records="undecodable",
        )
    ]

    def read_lines(self, tmp_path: Path) -> list[object]:
        path = tmp_path / "out.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def undecodable(self) -> list[SinkRecord]:
        return RecordFactory().sink_records(2, start=100, value=lambda i: bytes([i]))
