"""Apache Kafka and the Java Kafka Connect worker (the originals), one command.

    .venv/bin/python bench/java_connect.py [--mode distributed|standalone] [--debezium]
        [--bootstrap-servers HOST:PORT] [--kconnect] [--config key=value ...]

Starts a single-node Apache Kafka (KRaft, the testkit's pinned release) unless
--bootstrap-servers names a running cluster, then Apache Kafka Connect's own worker on it
with FileStream, JSON, the SMTs, MirrorMaker 2 and the basic-auth extension (and Debezium's
MySQL and MariaDB connectors with --debezium). With --kconnect a ``kconnect distributed``
worker joins the same broker beside it (its own group and internal topics), so the two can
be driven with the same REST calls. Prints the addresses and runs until Ctrl-C. The jars
come from Maven Central on first use (the poms in kconnect-testkit) and are cached.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from kconnect_runtime.modes import free_port
from kconnect_testkit import JavaConnectWorker, KafkaCluster


def _settings(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--config {pair!r}: write key=value")
        out[key.strip()] = value.strip()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("distributed", "standalone"), default="distributed")
    parser.add_argument("--debezium", action="store_true", help="Debezium on plugin.path")
    parser.add_argument("--bootstrap-servers", help="use this cluster instead of a new one")
    parser.add_argument("--kconnect", action="store_true", help="a kconnect worker beside it")
    parser.add_argument("--config", action="append", default=[], help="worker key=value")
    args = parser.parse_args()

    cluster = None
    bootstrap = args.bootstrap_servers
    if bootstrap is None:
        cluster = KafkaCluster(quick_start=False)
        bootstrap = cluster.start()
        print(f"Apache Kafka (KRaft, one node): bootstrap.servers={bootstrap}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="kc-java-bench-"))
    java = JavaConnectWorker(
        bootstrap,
        mode=args.mode,
        config=_settings(args.config),
        debezium=args.debezium,
        workdir=work / "java",
        quick_start=False,
    )
    kconnect = None
    try:
        java.start()
        print(f"Java Kafka Connect worker ({args.mode}): {java.url}  log: {java.log}", flush=True)
        if args.kconnect:
            port = free_port()
            props = work / "kconnect.properties"
            props.write_text(
                "\n".join(
                    [
                        f"bootstrap.servers={bootstrap}",
                        f"listeners=http://127.0.0.1:{port}",
                        "group.id=kconnect-beside-java",
                        "key.converter=org.apache.kafka.connect.json.JsonConverter",
                        "value.converter=org.apache.kafka.connect.json.JsonConverter",
                        "config.storage.topic=kconnect-beside-java-configs",
                        "offset.storage.topic=kconnect-beside-java-offsets",
                        "status.storage.topic=kconnect-beside-java-status",
                        "config.storage.replication.factor=1",
                        "offset.storage.replication.factor=1",
                        "status.storage.replication.factor=1",
                        "",
                    ]
                )
            )
            kconnect = subprocess.Popen(
                [sys.executable, "-m", "kconnect_runtime.cli", "distributed", str(props)]
            )
            print(f"kconnect distributed worker: http://127.0.0.1:{port}", flush=True)
        print("Ctrl-C stops everything.", flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
    finally:
        if kconnect is not None:
            kconnect.terminate()
            kconnect.wait(60)
        java.stop()
        if cluster is not None:
            cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
