"""The S3 sink against the kconnect-testkit sink conformance suite (local and spark engines).

Each test writes under a ``topics.dir`` of its own in the session's moto bucket, and reads
the objects back with plain boto3 and ``json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest
from kconnect_sdk import SinkRecord
from kconnect_testkit import RecordFactory, Scenario, SinkConnectorSuite


class TestS3SinkConformance(SinkConnectorSuite):
    plugin = "io.confluent.connect.s3.S3SinkConnector"
    engines = ("local", "spark")
    scenarios: ClassVar[list[Scenario]] = [
        Scenario(
            id="json",
            config={
                "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
                "flush.size": "1",
            },
            read_output="read_json",
            bad_records="null_values",
        ),
        Scenario(
            id="json-gzip",
            config={
                "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
                "s3.compression.type": "gzip",
                "flush.size": "1",
            },
            read_output="read_json",
            bad_records="null_values",
        ),
    ]

    service: Any = None

    @pytest.fixture(autouse=True)
    def _s3(self, kc_s3: Any) -> None:
        self.service = kc_s3

    def connector_props(self, scenario: Scenario, tmp_path: Path) -> dict[str, str]:
        props = super().connector_props(scenario, tmp_path)
        s3 = self.service
        props.update(
            {
                "s3.bucket.name": s3.bucket,
                "s3.region": s3.region,
                "store.url": s3.endpoint_url,
                "aws.access.key.id": s3.access_key_id,
                "aws.secret.access.key": s3.secret_access_key,
                "storage.class": "io.confluent.connect.s3.storage.S3Storage",
                "topics.dir": f"conformance/{tmp_path.name}",
            }
        )
        return props

    def read_json(self, tmp_path: Path) -> list[Any]:
        import gzip

        client = self.service.client()
        prefix = f"conformance/{tmp_path.name}/"
        keys: list[str] = []
        for page in client.get_paginator("list_objects_v2").paginate(
            Bucket=self.service.bucket, Prefix=prefix
        ):
            keys += [o["Key"] for o in page.get("Contents", [])]
        values: list[Any] = []
        for key in sorted(keys):
            body = client.get_object(Bucket=self.service.bucket, Key=key)["Body"].read()
            if key.endswith(".gz"):
                body = gzip.decompress(body)
            values += [json.loads(line) for line in body.decode().splitlines()]
        return values

    def null_values(self) -> list[SinkRecord]:
        # behavior.on.null.values=fail (the default): a null value is an errant record.
        return RecordFactory(self.topic).sink_records(2, start=10, value=lambda i: None)
