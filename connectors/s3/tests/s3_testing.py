"""Test helpers of the S3 sink tests: a bucket of its own per test, records, task drivers."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kconnect_connector_s3 import S3SinkTask
from kconnect_sdk import SinkRecord, TopicPartition
from kconnect_testkit import RecordingErrantReporter, RecordingSinkContext


@dataclass
class Bucket:
    """A bucket of its own for one test, and the props that point the sink at it."""

    service: Any
    name: str
    tasks: list[S3SinkTask] = field(default_factory=list)

    @property
    def client(self) -> Any:
        return client_of(self.service)

    def props(self, **extra: str) -> dict[str, str]:
        props = {
            "name": "s3-test",
            "connector.class": "io.confluent.connect.s3.S3SinkConnector",
            "topics": "orders",
            "s3.bucket.name": self.name,
            "s3.region": self.service.region,
            "store.url": self.service.endpoint_url,
            "s3.path.style.access.enabled": "true",
            "aws.access.key.id": self.service.access_key_id,
            "aws.secret.access.key": self.service.secret_access_key,
            "storage.class": "io.confluent.connect.s3.storage.S3Storage",
            "format.class": "io.confluent.connect.s3.format.json.JsonFormat",
            "flush.size": "3",
        }
        props.update({k.replace("_", "."): v for k, v in extra.items()})
        return props

    def listing(self) -> list[str]:
        out: list[str] = []
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.name):
            out += [o["Key"] for o in page.get("Contents", [])]
        return sorted(out)

    def read(self, key: str) -> bytes:
        body: bytes = self.client.get_object(Bucket=self.name, Key=key)["Body"].read()
        return body

    def snapshot(self) -> dict[str, bytes]:
        return {k: self.read(k) for k in self.listing()}

    def task(
        self,
        props: Mapping[str, str],
        partitions: Sequence[TopicPartition] = (TopicPartition("orders", 0),),
        reporter: RecordingErrantReporter | None = None,
    ) -> tuple[S3SinkTask, RecordingSinkContext]:
        task = S3SinkTask()
        context = RecordingSinkContext(props, assignment=partitions, reporter=reporter)
        task.initialize(context)
        task.start(props)
        self.tasks.append(task)
        return task, context

    def uploads_in_progress(self) -> list[str]:
        response = self.client.list_multipart_uploads(Bucket=self.name)
        return [u["Key"] for u in response.get("Uploads", [])]


_CLIENTS: dict[str, Any] = {}


def client_of(service: Any) -> Any:
    """One boto3 client per endpoint for the tests' own requests: making a client costs
    more than most requests."""
    client = _CLIENTS.get(service.endpoint_url)
    if client is None:
        client = _CLIENTS[service.endpoint_url] = service.client()
    return client


def new_bucket(service: Any) -> Bucket:
    name = f"kc-{uuid.uuid4().hex[:12]}"
    client_of(service).create_bucket(Bucket=name)
    return Bucket(service, name)


def rec(
    value: Any,
    offset: int,
    *,
    partition: int = 0,
    topic: str = "orders",
    key: Any = None,
    key_schema: Any = None,
    value_schema: Any = None,
    timestamp: int | None = None,
    headers: Any = None,
) -> SinkRecord:
    kwargs: dict[str, Any] = {}
    if headers is not None:
        kwargs["headers"] = headers
    return SinkRecord(
        topic=topic,
        kafka_partition=partition,
        key_schema=key_schema,
        key=key,
        value_schema=value_schema,
        value=value,
        kafka_offset=offset,
        timestamp=timestamp,
        **kwargs,
    )


class FaultyProxy:
    """A real HTTP proxy in front of the S3 endpoint that fails the requests it is told to.

    ``plan`` maps a request kind (``"UploadPart"``, ``"CompleteMultipartUpload"``,
    ``"CreateMultipartUpload"``, ``"PutObject"``, ``"HeadBucket"``...) to a list of
    faults applied to that kind's next requests in turn: ``"500"`` (an InternalError
    reply), ``"503"`` (SlowDown), ``"403"`` (InvalidAccessKeyId: S3's answer to an unknown
    access key), ``"drop"`` (the connection closes before any reply),
    ``"drop-after"`` (the request reaches S3, then the connection closes before the reply)
    or ``None`` (pass).
    """

    def __init__(self, target: str) -> None:
        import http.server
        import threading
        import urllib.parse

        self.target = urllib.parse.urlsplit(target)
        self.plan: dict[str, list[str | None]] = {}
        self.seen: list[tuple[str, str | None]] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _kind(self) -> str:
                query = urllib.parse.urlsplit(self.path).query
                params = urllib.parse.parse_qs(query, keep_blank_values=True)
                if self.command == "PUT" and "partNumber" in params:
                    return "UploadPart"
                if self.command == "POST" and "uploads" in params:
                    return "CreateMultipartUpload"
                if self.command == "POST" and "uploadId" in params:
                    return "CompleteMultipartUpload"
                if self.command == "DELETE" and "uploadId" in params:
                    return "AbortMultipartUpload"
                if self.command == "HEAD" and urllib.parse.urlsplit(self.path).path.count("/") == 1:
                    return "HeadBucket"
                return self.command

            def _handle(self) -> None:
                import http.client

                length = int(self.headers.get("Content-Length", 0) or 0)
                body = self.rfile.read(length) if length else b""
                kind = self._kind()
                faults = proxy.plan.get(kind) or []
                fault = faults.pop(0) if faults else None
                proxy.seen.append((kind, fault))
                if fault == "drop":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if fault in ("500", "503", "403"):
                    code = {"500": "InternalError", "503": "SlowDown", "403": "InvalidAccessKeyId"}[
                        fault
                    ]
                    payload = (
                        f"<?xml version='1.0'?><Error><Code>{code}</Code>"
                        "<Message>injected</Message></Error>"
                    ).encode()
                    self.send_response(int(fault))
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                conn = http.client.HTTPConnection(
                    proxy.target.hostname or "127.0.0.1", proxy.target.port
                )
                headers = {k: v for k, v in self.headers.items() if k.lower() != "host"}
                headers["Host"] = proxy.target.netloc
                conn.request(self.command, self.path, body=body, headers=headers)
                reply = conn.getresponse()
                data = reply.read()
                conn.close()
                if fault == "drop-after":
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.send_response(reply.status, reply.reason)
                for k, v in reply.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
