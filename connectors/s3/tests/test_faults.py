"""Injected S3 faults (5xx replies, dropped connections) through a real HTTP proxy.

The sink retries transient failures with backoff; when retries run out it drops the
partition's open files and asks to re-read from its last committed offset. Either way the
bucket ends up with exactly the objects, and bytes, of a run without faults.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from kconnect_sdk import TopicPartition
from s3_testing import Bucket, FaultyProxy, new_bucket, rec

pytestmark = pytest.mark.integration

TP0 = TopicPartition("orders", 0)


@pytest.fixture
def proxy(kc_s3: Any) -> Iterator[FaultyProxy]:
    p = FaultyProxy(kc_s3.endpoint_url)
    yield p
    p.close()


def sent() -> list[Any]:
    # ~1.2 MiB values so that 5 of them fill a 5 MiB part: files have several parts.
    return [rec({"i": i, "pad": "x" * 1_200_000}, i) for i in range(12)]


def run(bucket: Bucket, url: str, **extra: str) -> Any:
    props = bucket.props(
        **{
            "store.url": url,
            "flush.size": "5",
            "s3.part.size": str(5 * 1024 * 1024),
            "s3.retry.backoff.ms": "10",
            "retry.backoff.ms": "0",
            **extra,
        }
    )
    task, context = bucket.task(props)
    return task, context


def reference(service: Any) -> dict[str, bytes]:
    clean = new_bucket(service)
    task, _ = run(clean, service.endpoint_url)
    task.put(sent())
    task.pre_commit({TP0: 12})
    task.stop()
    return clean.snapshot()


def test_transient_faults_are_retried_with_nothing_lost(
    bucket: Bucket, proxy: FaultyProxy, kc_s3: Any
) -> None:
    proxy.plan = {
        "CreateMultipartUpload": ["503"],
        "UploadPart": [None, "500", "drop", None, "drop-after"],
        "CompleteMultipartUpload": ["drop-after", "500"],
    }
    task, context = run(bucket, proxy.url)
    task.put(sent())
    assert task.pre_commit({TP0: 12}) == {TP0: 10}
    assert context.offsets_requested == []  # every fault was absorbed by a retry
    faults = [f for _, f in proxy.seen if f]
    assert sorted(faults) == sorted(["503", "500", "drop", "drop-after", "drop-after", "500"])
    assert bucket.snapshot() == reference(kc_s3)
    assert bucket.uploads_in_progress() == []


def test_exhausted_retries_rewind_and_rebuild_the_same_objects(
    bucket: Bucket, proxy: FaultyProxy, kc_s3: Any
) -> None:
    # The second file's upload fails more often than s3.part.retries allows.
    proxy.plan = {"UploadPart": [None, None, "500", "500", "500"]}
    task, context = run(bucket, proxy.url, **{"s3.part.retries": "2"})
    records = sent()
    task.put(records)
    # The first file (offsets 0-4) made it; the partition asks to re-read from offset 5.
    assert context.offsets_requested == [{TP0: 5}]
    assert task.pre_commit({TP0: 12}) == {TP0: 5}
    # What the runtime does next: redeliver from the requested offset.
    task.put(records[5:])
    assert task.pre_commit({TP0: 12}) == {TP0: 10}
    assert bucket.snapshot() == reference(kc_s3)
    assert bucket.uploads_in_progress() == []


def test_refused_credentials_fail_the_task_naming_the_bucket(
    bucket: Bucket, proxy: FaultyProxy
) -> None:
    from kconnect_connector_s3 import S3SinkTask
    from kconnect_sdk import ConnectError

    proxy.plan = {"HeadBucket": ["403"]}
    props = bucket.props(**{"store.url": proxy.url, "aws.secret.access.key": "not-the-key-77"})
    task = S3SinkTask()
    with pytest.raises(ConnectError) as failure:
        task.start(props)
    message = str(failure.value)
    assert bucket.name in message and "aws.access.key.id" in message
    assert "not-the-key-77" not in message
    # Not retried: a refused key is not transient.
    assert [kind for kind, _ in proxy.seen] == ["HeadBucket"]
