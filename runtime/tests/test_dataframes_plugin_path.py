"""Connectors on ``plugin.path`` as DataFrame sources and sinks: isolated, as on a worker."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sequence_location(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example ``sequence`` plugin installed into its own plugin.path location (a venv)."""
    from kconnect_runtime.plugins import install_plugin

    location = tmp_path_factory.mktemp("plugins") / "sequence"
    install_plugin([str(REPO / "examples" / "sequence")], location)
    return location


def test_a_plugin_path_source_and_sink_run_isolated(
    kc_spark: Any, sequence_location: Path, tmp_path: Path
) -> None:
    import importlib.util

    # Not in this environment: only plugin.path can provide it.
    assert importlib.util.find_spec("kconnect_example_sequence") is None
    plugin_path = str(sequence_location.parent)
    df = (
        kc_spark.read.format("kconnect")
        .options(
            **{
                "plugin.path": plugin_path,
                "connector.class": "SequenceSource",
                "topic": "numbers",
                "count": "300",
                "batch.size": "50",
                "tasks.max": "2",
                "kconnect.read.idle.ms": "1500",
            }
        )
        .load()
        .cache()  # the write below takes the same rows, not a second read
    )
    rows = df.select("key", "value.n", "value.square").collect()
    assert sorted(r.key for r in rows) == list(range(300))
    assert all(r.square == r.n * r.n for r in rows)

    out = tmp_path / "out.jsonl"
    (
        df.coalesce(1)
        .write.format("kconnect")
        .mode("append")
        .options(
            **{
                "plugin.path": plugin_path,
                "connector.class": "JsonLinesSink",
                "file": str(out),
                "topics": "numbers",
            }
        )
        .save()
    )
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(w["n"] for w in written) == list(range(300))
    assert all(w["square"] == w["n"] ** 2 for w in written)

    # The isolated sink task reports values JSON cannot hold (bytes) to the errant record
    # reporter, which errors.tolerance=all gives it: skipped, the write goes on.
    binary = kc_spark.createDataFrame(
        [("numbers", b"\xff"), ("numbers", b"\x00")], ["topic", "value"]
    )
    sink = {
        "plugin.path": plugin_path,
        "connector.class": "JsonLinesSink",
        "file": str(out),
        "topics": "numbers",
    }
    binary.coalesce(1).write.format("kconnect").mode("append").options(
        **sink, **{"errors.tolerance": "all", "errors.log.enable": "true"}
    ).save()
    assert len(out.read_text(encoding="utf-8").splitlines()) == 300
    with pytest.raises(Exception, match="cannot be written as JSON"):
        binary.coalesce(1).write.format("kconnect").mode("append").options(**sink).save()


def test_an_unknown_class_names_the_plugin_path_searched(kc_spark: Any, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="SequenceSource"):
        kc_spark.read.format("kconnect").options(
            **{"plugin.path": str(tmp_path), "connector.class": "SequenceSource"}
        ).load()
