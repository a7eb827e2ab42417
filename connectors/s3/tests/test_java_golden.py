"""Bytes checked against the JDK itself (OpenJDK 17), kept here as data.

The expected values were produced by running Java's own classes — java.util.zip.
GZIPOutputStream with an 8 KiB buffer and the default level, as Confluent's
CompressionType.GZIP builds it, and java.util.HashMap iteration, which Jackson follows when
the Java connector writes a schemaless JSON object — not by this package.
"""

from __future__ import annotations

import base64
import json

import pytest
from s3_testing import Bucket, rec

pytestmark = pytest.mark.integration

# Java: 200 lines {"i":<i>,"s":"value number <i>"}\n through new GZIPOutputStream(out, 8192).
JAVA_GZIP = base64.b64decode(
    "H4sIAAAAAAAA/23Yuw4UVxQF0ZyvQBMTdN138zcgESBhB7ZwgvzviGDO7qDiky3NY9f99fr++nx9ev37+vz678uPn98+/v3zr6/f/vl4vf7/8OvPETnyPjY5tvexy7G/j0OO432ccpzv45Ljeh+3HPf7eOR43sdbjnchGBExUqRSwpgoJwyKksKoKCsMi9LCuCgvDIwSw8goMwyNUmum1kqtmVrLZ0s/XKXWTK2VWjO1VmrN1FqpNVNrpdZMrZVaM7VWas3UWql1U+ul1k2tl1o3tZ7vpH4pS62bWi+1bmq91Lqp9VLrptZLrZtaL7Vuar3UhqmNUhumNkptmNootWFqI79l+mNWasPURqkNUxulNkxtlNowtVFqw9RGqU1Tm6U2TW2W2jS1WWrT1GapTVOb+Q/QP4FSm6Y2S22a2iy1aWqz1KapzVJbprZKbZnaKrVlaqvUlqmtUlumtkptmdrKf6f+eZbaMrVVasvUVqktU1ultk1tl9o2tV1q29R2qW1T26W2TW2X2ja1XWrb1HY2h46OUtumtkttm9outWNqp9SOqZ1SO6Z2Su2Y2im1Y2qn1I6pnVI7pnZK7ZjayVbTsVZqx9ROqd2mdpfabWp3qd2mdpfabWp3qd2mdpfabWp3qd2mdpfabWp3qd2mdmfj6sh9rFyfudm5lw7dK0v30ql7ZeteOnavrN1L5+6VvXvp4L2yeC+dvFc276Wj98rqvXT2Xtm9lw7fK5IeDM9i8GSIpEfDoxo8Gx7d4OHwKAdPh0c7eDw86sHz4dEPHhCPgvCESEOgEUEqAs0I2qO+PL8iqSlBWgKNCVITaE6QnkCDghQFmhSkKdCoIFWBZgXpCjQsSFmgaUHaAo0L+qNkPWUjqYFBCgNNDNIYaGSQykAzg3QGGhqkNNDUIK2BxgapDTQ3SG+gwUGKA00OxuNVwJ8FIqnZQboDDQ9SHmh6kPZA44PUB5ofpD/QACEFgiYIaRA0QkiFoBlCOgQNEebjhcWfWCKpMUJqBM0R0iNokJAiQZOENAkaJaRK0CwhXYKGCSkTNE1Im6BxQuoEzRPW47XKn6siqYlCGgWNFFIpaKaQTkFDhZQKmiqkVdBYIbWC5grpFTRYSLGgyUKaBY0W9uPlz5/+IqnhQsoFTRfSLmi8kHpB84X0CxowpGDQhCENg0YMqRg0Y0jHoCFDSgZNGc7jFdWfUSOpOUN6Bg0aUjRo0pCmQaOGVA2aNaRr0LAhZYOmDWkbNG5I3aB5Q/oGDRzux4u0P0n/kfwNKoSi8+wYAAA="
)

# Java: new HashMap<>() with these keys put in this order, then keySet() iteration.
JAVA_HASHMAP_ORDER = [
    (["b", "a", "c"], ["a", "b", "c"]),
    (["id", "x"], ["x", "id"]),
    (
        ["id", "customer", "status", "amount", "currency", "note"],
        ["note", "amount", "currency", "id", "customer", "status"],
    ),
    # 15 keys: the table has grown from 16 to 32 buckets.
    (
        [f"k{i}" for i in range(15)],
        [
            "k0",
            "k1",
            "k2",
            "k3",
            "k4",
            "k5",
            "k11",
            "k6",
            "k10",
            "k7",
            "k13",
            "k8",
            "k12",
            "k9",
            "k14",
        ],
    ),
    (["été", "naïve", "zebra", "Äpfel", "日本"], ["zebra", "naïve", "日本", "été", "Äpfel"]),
]


def test_gzip_json_object_is_byte_identical_to_javas(bucket: Bucket) -> None:
    # The lines as raw bytes (ByteArrayFormat, '\n' separator) so that the object's
    # uncompressed content is exactly what Java compressed.
    props = bucket.props(
        **{
            "flush.size": "200",
            "s3.compression.type": "gzip",
            "format.class": "io.confluent.connect.s3.format.bytearray.ByteArrayFormat",
        }
    )
    task, _ = bucket.task(props)
    lines = [f'{{"i":{i},"s":"value number {i}"}}'.encode() for i in range(200)]
    task.put([rec(line, i) for i, line in enumerate(lines)])
    (key,) = bucket.listing()
    assert key.endswith(".bin.gz")
    assert bucket.read(key) == JAVA_GZIP


@pytest.mark.parametrize(("inserted", "java_order"), JAVA_HASHMAP_ORDER)
def test_schemaless_object_keys_follow_java_hashmap_order(
    bucket: Bucket, inserted: list[str], java_order: list[str]
) -> None:
    task, _ = bucket.task(bucket.props(flush_size="1"))
    task.put([rec({k: n for n, k in enumerate(inserted)}, 0)])
    line = bucket.read(bucket.listing()[0]).rstrip(b"\n")
    assert list(json.loads(line)) == java_order
