"""A source task's ``commit()`` is called at every offset flush, even with nothing new to commit.

Kafka's worker does so on purpose: a task may hold work for ``commit()``. MirrorMaker's
source task is one: an offset sync it had to hold back (too many in flight) goes out at the
next commit, so a partition whose records were all copied still gets its last sync, and its
consumer groups get checkpoints. A worker that called ``commit()`` only after new offsets
left such a partition with no sync for good.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from kconnect_runtime import Standalone
from runtime_harness import worker_props

pytestmark = pytest.mark.integration

PLUGIN = """
from kconnect_sdk import ConfigDef, Schema, SourceConnector, SourceRecord, SourceTask

COMMITS = []
SENT = []


class OnceTask(SourceTask):
    def start(self, props):
        self.topic = props["topic"]
        self.done = False

    def poll(self):
        if self.done:
            return None
        self.done = True
        records = [
            SourceRecord(
                topic=self.topic, value_schema=Schema.STRING, value=f"r{i}",
                source_partition={"p": 0}, source_offset={"o": i},
            )
            for i in range(5)
        ]
        SENT.extend(records)
        return records

    def commit(self):
        COMMITS.append(len(SENT))

    def stop(self):
        pass


class OnceConnector(SourceConnector):
    def config(self):
        return ConfigDef()

    def start(self, props):
        self.props = dict(props)

    def task_class(self):
        return OnceTask

    def task_configs(self, max_tasks):
        return [dict(self.props)]

    def stop(self):
        pass
"""


def test_commit_is_called_at_each_flush_after_the_last_records(
    tmp_path: Path, kafka: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = f"once_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{module}.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    plugin = __import__(module)
    connector = {
        "name": "once",
        "connector.class": f"{module}:OnceConnector",
        "topic": f"once-{uuid.uuid4().hex[:8]}",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
    }
    app = Standalone(
        worker_props(tmp_path, kafka, **{"offset.flush.interval.ms": "200"}), [connector]
    )
    app.start()
    try:
        # The five records' offsets are committed once; every later flush has nothing new,
        # and the task's commit() must still be called at each.
        deadline = time.monotonic() + 60
        while sum(1 for sent in plugin.COMMITS if sent == 5) < 4:
            assert time.monotonic() < deadline, (
                f"commit() calls after the records: {plugin.COMMITS} (the task polled "
                f"{len(plugin.SENT)} records)"
            )
            time.sleep(0.1)
    finally:
        app.stop()
