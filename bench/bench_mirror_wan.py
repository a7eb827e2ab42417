"""MirrorMaker 2 over a long link: kconnect's and Kafka's Java mirror at a steady rate.

    .venv/bin/python bench/bench_mirror_wan.py [--rtt-ms 50 150] [--mb-per-s 10]
        [--seconds 90] [--partitions 8] [--tasks 2] [--record-bytes 1000]
        [--kconnect-config KEY=VALUE ...] [--java-config KEY=VALUE ...] [--only kconnect|java]

Puts the source cluster and the target cluster in two network namespaces joined by a
point-to-point link whose round trip is ``--rtt-ms``, writes a steady ``--mb-per-s`` into a
source topic for ``--seconds``, and mirrors it with kconnect's MirrorSourceConnector (on a
``kconnect distributed`` worker) and then with Kafka's Java one (on Kafka's distributed
Connect worker), once per round trip. Both workers sit beside the target cluster, as the
book and Kafka's docs advise (consume remotely, produce locally); the steady producer sits
beside the source. Each flow has its own source alias, topic and remote topic.

The link. The issue asks for a veth pair with ``tc netem`` delay, but this machine's kernel
has no netem qdisc (nor ``fq``/``prio``: only htb, tbf and fifo, and no modules to load),
so no qdisc here can delay a packet. The link is a TUN device in each namespace instead,
and a small delay-line process of this script (``_delay-line``, pure Python) holds every
IP packet for half the round trip before writing it into the other namespace, in order,
both ways. TCP runs end to end over it, so what a long link does to Kafka's clients is
kept: a fetch waits a round trip, and a connection moves at most its receive window per
round trip. The delay line runs at real-time priority (SCHED_FIFO) so that the machine's
load does not lengthen the round trip, and the MTU is ``--mtu`` (1500, as on the
Internet). Without root (or without ``ip``/``/dev/net/tun``)
the script says that no delay is applied and why, and runs both clusters on loopback.

For each flow: a warm-up record per partition, the connector created (REST PUT) and
awaited until those records are on the target; then the steady producer starts, and every
``--sample-s`` the target's end offsets are read and set against the producer's
acknowledged ones. Lag in records is the source's end minus the target's; lag in seconds is
how long the oldest record not yet on the target has been on the source. After the
producer stops, the flow has ``--drain-s`` to catch up. A flow *kept up* when its lag at the
end of the steady phase was at most ``--keep-up-s`` (5 s). Printed: offered and mirrored MB/s and records/s, end and max
lag (records, seconds), the time to catch up, wall and CPU seconds of the worker process
(user + system, from the PUT to caught up), and lag over time. It never asserts a time.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import ctypes
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench_mirror import connector, cpu_seconds, request, wait
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic  # type: ignore[attr-defined]
from kconnect_runtime.modes import free_port
from kconnect_testkit import JavaConnectWorker, KafkaCluster

MB = 1_000_000
CLONE_NEWNET = 0x40000000
TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000
SOURCE_IP, TARGET_IP = "10.77.0.1", "10.77.0.2"
SOURCE_PORT, SOURCE_CONTROLLER_PORT = 9092, 9093  # inside the source's own namespace
LINK = "wan0"

_libc = ctypes.CDLL(None, use_errno=True)


# --- namespaces and the delayed link ---------------------------------------------------


def enter_netns(path: str) -> None:
    """Move the calling thread into the network namespace at ``path`` (its children and the
    threads it starts from now on follow)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"setns({path}): {os.strerror(errno)}")
    finally:
        os.close(fd)


def _die_with_parent() -> None:
    _libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: no child outlives the bench


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise OSError(f"ip {' '.join(args)}: {done.stderr.strip()}")


def _open_tun(netns: str) -> int:
    enter_netns(f"/run/netns/{netns}")
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", LINK.encode(), IFF_TUN | IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


def delay_line(ns_a: str, ns_b: str) -> None:
    """The link between two namespaces: a TUN device in each, every packet held for the
    one-way delay read from stdin (milliseconds, one number a line; 0 at first)."""
    # A wire does not wait for a CPU: on a loaded machine the line would otherwise add the
    # scheduler's delay to every packet, and queue behind it, as bufferbloat would.
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except OSError:
        with contextlib.suppress(OSError):
            os.nice(-20)
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    tun_a, tun_b = _open_tun(ns_a), _open_tun(ns_b)
    _libc.setns(home, CLONE_NEWNET)
    peer = {tun_a: tun_b, tun_b: tun_a}
    queues: dict[int, deque[tuple[float, bytes]]] = {tun_a: deque(), tun_b: deque()}
    delay_s = 0.0
    stdin = sys.stdin.fileno()
    os.set_blocking(stdin, False)
    pending = b""
    print("ready", flush=True)
    while True:
        now = time.monotonic()
        due = min((q[0][0] for q in queues.values() if q), default=now + 0.05)
        readable, _, _ = select.select([tun_a, tun_b, stdin], [], [], max(0.0, due - now))
        now = time.monotonic()
        for fd in readable:
            if fd == stdin:
                chunk = os.read(stdin, 4096)
                if not chunk:  # the bench is gone: so is the link (the TUN devices close)
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    delay_s = float(line) / 1000.0
                    print(f"delay {line.decode()}", flush=True)
                continue
            queue = queues[peer[fd]]
            for _ in range(256):
                try:
                    queue.append((now + delay_s, os.read(fd, 65536)))
                except BlockingIOError:
                    break
        for fd, queue in queues.items():
            while queue and queue[0][0] <= now:
                with contextlib.suppress(OSError):  # a full queue drops, as a router does
                    os.write(fd, queue[0][1])
                queue.popleft()


class LongLink:
    """Two network namespaces, ``source`` and ``target``, and the delayed link between them."""

    def __init__(self, run: str, mtu: int) -> None:
        self.source = f"kcwan-{run}-src"
        self.target = f"kcwan-{run}-dst"
        self._mtu = mtu
        self._home = os.open("/proc/self/ns/net", os.O_RDONLY)
        self._line: subprocess.Popen[str] | None = None
        self._made: list[str] = []

    def create(self) -> None:
        for netns in (self.source, self.target):
            _ip("netns", "add", netns)
            self._made.append(netns)
            _ip("-n", netns, "link", "set", "lo", "up")
        self._line = subprocess.Popen(
            [sys.executable, __file__, "_delay-line", self.source, self.target],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 -- only prctl, before exec
        )
        assert self._line.stdout is not None
        if self._line.stdout.readline().strip() != "ready":
            raise OSError(f"the delay line did not start (exit {self._line.wait(10)})")
        for netns, here, there in (
            (self.source, SOURCE_IP, TARGET_IP),
            (self.target, TARGET_IP, SOURCE_IP),
        ):
            _ip("-n", netns, "addr", "add", here, "peer", there, "dev", LINK)
            _ip(
                "-n", netns, "link", "set", LINK, "up", "mtu", str(self._mtu), "txqueuelen", "10000"
            )

    def set_rtt(self, rtt_ms: float) -> None:
        assert self._line is not None and self._line.stdin is not None
        assert self._line.stdout is not None
        self._line.stdin.write(f"{rtt_ms / 2}\n")
        self._line.stdin.flush()
        self._line.stdout.readline()

    def enter(self, netns: str) -> None:
        enter_netns(f"/run/netns/{netns}")

    def leave(self) -> None:
        _libc.setns(self._home, CLONE_NEWNET)

    def cpu_seconds(self) -> float:
        return 0.0 if self._line is None else cpu_seconds(self._line.pid)

    def close(self) -> None:
        self.leave()
        if self._line is not None:
            if self._line.stdin is not None:
                with contextlib.suppress(OSError):
                    self._line.stdin.close()
            try:
                self._line.wait(10)
            except subprocess.TimeoutExpired:
                self._line.kill()
                self._line.wait()
        for netns in self._made:
            with contextlib.suppress(OSError):
                _ip("netns", "del", netns)


def long_link(run: str, mtu: int) -> tuple[LongLink | None, str]:
    """The link, or None and why it cannot be made here."""
    if os.geteuid() != 0:
        return None, "not root (network namespaces need CAP_SYS_ADMIN)"
    if shutil.which("ip") is None:
        return None, "no 'ip' command (iproute2)"
    if not os.path.exists("/dev/net/tun"):
        return None, "no /dev/net/tun"
    link = LongLink(run, mtu)
    try:
        link.create()
    except OSError as exc:
        link.close()
        return None, str(exc)
    return link, ""


# --- the steady producer (a process of its own, beside the source cluster) -------------


def steady_producer(spec: dict[str, Any]) -> None:
    """Write ``rate`` bytes/s for ``seconds``; print the acknowledged end offset of every
    partition every 0.1 s (``<monotonic time> <end 0> <end 1> ...``), then ``done``."""
    partitions, size = int(spec["partitions"]), int(spec["record_bytes"])
    ends = list(spec["start"])

    def acked(err: Any, msg: Any) -> None:
        if err is None:
            partition = msg.partition()
            ends[partition] = max(ends[partition], msg.offset() + 1)

    producer = Producer(
        {
            "bootstrap.servers": spec["bootstrap"],
            "linger.ms": 5,
            "batch.size": 1_000_000,
            "on_delivery": acked,
        }
    )
    payload = os.urandom(size)
    per_s = spec["rate"] / size
    total = int(per_s * spec["seconds"])
    sent, started = 0, time.monotonic()
    print(f"start {started}", flush=True)
    next_report = started
    while sent < total:
        now = time.monotonic()
        due = min(total, int((now - started) * per_s) + 1)
        while sent < due:
            try:
                producer.produce(
                    spec["topic"],
                    key=f"key-{sent}".encode(),
                    value=payload,
                    partition=sent % partitions,
                    headers=[("seq", str(sent).encode())],
                )
                sent += 1
            except BufferError:
                producer.poll(0.01)
        producer.poll(0)
        if now >= next_report:
            print(now, *ends, flush=True)
            next_report += 0.1
        time.sleep(0.002)
    paced = time.monotonic()
    producer.flush(120)
    print(time.monotonic(), *ends, flush=True)
    print(f"done {sent} {paced} {time.monotonic()}", flush=True)


# --- one mirrored flow, sampled ---------------------------------------------------------


@dataclass
class Timeline:
    """The source's acknowledged end offsets over time, per partition, from the producer."""

    times: list[float] = field(default_factory=list)
    ends: list[list[int]] = field(default_factory=list)
    started: float = 0.0
    paced: float = 0.0  # when the last record was handed to the producer
    stopped: float | None = None  # ... and acknowledged
    produced: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def follow(self, stream: IO[str]) -> None:
        for line in stream:
            word, _, rest = line.strip().partition(" ")
            if word == "start":
                self.started = float(rest)
            elif word == "done":
                sent, paced, flushed = rest.split()
                self.produced, self.paced = int(sent), float(paced)
                self.stopped = float(flushed)
            elif word:
                with self.lock:
                    self.times.append(float(word))
                    self.ends.append([int(x) for x in rest.split()])

    def at(self, t: float) -> list[int]:
        with self.lock:
            index = bisect.bisect_right(self.times, t) - 1
            return list(self.ends[max(index, 0)])

    def since(self, partition: int, offset: int) -> float | None:
        """When the source first held the record at ``offset`` (None: not yet)."""
        with self.lock:
            ends = [e[partition] for e in self.ends]
            index = bisect.bisect_right(ends, offset)
            return self.times[index] if index < len(self.times) else None


@dataclass
class Sample:
    t: float
    lag_records: int
    lag_s: float
    copied: int


@dataclass
class Flow:
    who: str
    rtt_ms: float
    offered: int = 0
    offered_s: float = 0.0
    copied_in_phase: int = 0
    phase_s: float = 0.0
    end_lag_records: int = 0
    end_lag_s: float = 0.0
    samples: list[Sample] = field(default_factory=list)
    catch_up_s: float | None = None
    left: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0

    @property
    def copied(self) -> int:
        """Records mirrored from the connector's creation to the flow's end."""
        return self.offered - self.left

    @property
    def max_lag_records(self) -> int:
        return max((s.lag_records for s in self.samples), default=0)

    @property
    def max_lag_s(self) -> float:
        return max((s.lag_s for s in self.samples), default=0.0)


def _target_ends(consumer: Consumer, topic: str, partitions: int) -> list[int] | None:
    try:
        meta = consumer.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None or len(meta.partitions) < partitions:
            return None
        return [
            consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
            for p in range(partitions)
        ]
    except KafkaException:  # a partition without its leader yet
        return None


@dataclass
class Bench:
    args: argparse.Namespace
    source: str  # bootstrap.servers of the source, as the mirror reaches it
    source_local: str  # ... as the producer beside it reaches it
    target: str
    producer_netns: str | None
    run: str
    on_producer: Callable[[subprocess.Popen[str]], None]

    def _produce(self, spec: dict[str, Any], netns: str | None) -> subprocess.Popen[str]:
        def into_netns() -> None:
            _die_with_parent()
            if netns is not None:
                enter_netns(f"/run/netns/{netns}")

        producer = subprocess.Popen(
            [sys.executable, __file__, "_produce", json.dumps(spec)],
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=into_netns,  # noqa: PLW1509 -- prctl and setns, before exec
        )
        self.on_producer(producer)
        return producer

    def warm_up(self, seconds: float) -> None:
        """Both brokers' JIT warmed at the offered rate (a scratch topic on each), so the
        first flow does not meet cold brokers and the last warm ones."""
        spec = {
            "topic": f"warm-up-{self.run}",
            "partitions": 1,
            "record_bytes": self.args.record_bytes,
            "rate": self.args.mb_per_s * MB,
            "seconds": seconds,
            "start": [0],
        }
        runs = [
            self._produce({**spec, "bootstrap": self.source_local}, self.producer_netns),
            self._produce({**spec, "bootstrap": self.target}, None),
        ]
        for run in runs:
            run.communicate(timeout=seconds + 180)

    def flow(self, who: str, url: str, pid: int, rtt_ms: float, extra: dict[str, str]) -> Flow:
        args, partitions = self.args, self.args.partitions
        label = f"{who.lower()}{int(rtt_ms)}x{self.run}"
        topic, remote = f"wan-{label}", f"{label}.wan-{label}"
        result = Flow(who, rtt_ms)
        admin = AdminClient({"bootstrap.servers": self.source})
        admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(60)
        warm = Producer({"bootstrap.servers": self.source})
        for p in range(partitions):
            warm.produce(topic, value=b"warm-up", partition=p)
        warm.flush(60)
        target = Consumer({"bootstrap.servers": self.target, "group.id": f"bench-{label}"})
        config = {**connector(label, self.source, self.target, topic, args.tasks), **extra}
        name = f"wan-{label}"
        try:
            cpu, put = cpu_seconds(pid), time.monotonic()
            status, body = request(url, "PUT", f"/connectors/{name}/config", config)
            if status not in (200, 201):
                raise SystemExit(f"{who}: PUT connector: {status} {body}")
            wait(
                f"{who}: the warm-up records on the target",
                lambda: (_target_ends(target, remote, partitions) or [0]) == [1] * partitions,
                300,
            )
            timeline = Timeline()
            spec = {
                "bootstrap": self.source_local,
                "topic": topic,
                "partitions": partitions,
                "record_bytes": args.record_bytes,
                "rate": args.mb_per_s * MB,
                "seconds": args.seconds,
                "start": [1] * partitions,
            }
            producer = self._produce(spec, self.producer_netns)
            assert producer.stdout is not None
            reader = threading.Thread(target=timeline.follow, args=(producer.stdout,), daemon=True)
            reader.start()
            wait("the steady producer", lambda: bool(timeline.times), 60)
            with timeline.lock:
                timeline.times.insert(0, timeline.started)
                timeline.ends.insert(0, [1] * partitions)
            copied_at_start = partitions
            drain_until: float | None = None
            while True:
                time.sleep(args.sample_s)
                now = time.monotonic()
                ends = _target_ends(target, remote, partitions)
                if ends is None:
                    continue
                source_ends = timeline.at(now)
                behind = [
                    now - since
                    for p in range(partitions)
                    if (since := timeline.since(p, ends[p])) is not None and since <= now
                ]
                sample = Sample(
                    t=now - timeline.started,
                    lag_records=max(0, sum(source_ends) - sum(ends)),
                    lag_s=max(behind, default=0.0),
                    copied=sum(ends),
                )
                result.samples.append(sample)
                if timeline.stopped is None:
                    continue
                if drain_until is None:
                    # The steady phase is over: its last sample is its end.
                    drain_until = now + args.drain_s
                    result.offered = timeline.produced
                    result.offered_s = timeline.paced - timeline.started
                    result.end_lag_records, result.end_lag_s = sample.lag_records, sample.lag_s
                    result.copied_in_phase = sample.copied - copied_at_start
                    result.phase_s = sample.t
                final = timeline.produced + partitions
                result.left = final - sum(ends)
                if result.left <= 0:
                    result.catch_up_s = now - timeline.stopped
                    break
                if now > drain_until:
                    break
            producer.wait(30)
            result.wall_s = time.monotonic() - put
            result.cpu_s = cpu_seconds(pid) - cpu
        finally:
            target.close()
            request(url, "DELETE", f"/connectors/{name}")
            # Not bench_mirror.wait: its timeout is a SystemExit, and so is a stop by signal,
            # which must not be swallowed here.
            deadline = time.monotonic() + 60
            while request(url, "GET", f"/connectors/{name}")[0] != 404:
                if time.monotonic() > deadline:
                    print(f"{name} was not deleted in 60 s", flush=True)
                    break
                time.sleep(0.2)
        return result


# --- workers and clusters ---------------------------------------------------------------


def start_kconnect(target: str, work: Path, run: str) -> tuple[subprocess.Popen[bytes], str]:
    props = JavaConnectWorker(target, mode="distributed", name=f"bench-kconnect-wan-{run}")
    port = free_port()
    settings = {**props.worker_config(), "listeners": f"HTTP://127.0.0.1:{port}"}
    (work / "kconnect").mkdir(parents=True)
    worker_file = work / "kconnect" / "worker.properties"
    worker_file.write_text("".join(f"{k}={v}\n" for k, v in settings.items()))
    with (work / "kconnect" / "kconnect.log").open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "kconnect_runtime.cli", "distributed", str(worker_file)],
            cwd=work / "kconnect",
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 -- only prctl, before exec
        )
    url = f"http://127.0.0.1:{port}"
    wait("kconnect's REST API", lambda: request(url, "GET", "/connectors")[0] == 200, 120)
    return proc, url


def source_cluster(link: LongLink | None, extra: dict[str, str]) -> KafkaCluster:
    """The source cluster; behind the link, it listens on its namespace's address (and
    loopback, for the testkit's readiness probe) at fixed ports: the namespace is its own."""
    if link is None:
        return KafkaCluster(quick_start=False, heap="1g", config=extra)
    cluster = KafkaCluster(
        quick_start=False,
        heap="1g",
        config={
            "listeners": f"PLAINTEXT://0.0.0.0:{SOURCE_PORT},"
            f"CONTROLLER://127.0.0.1:{SOURCE_CONTROLLER_PORT}",
            "advertised.listeners": f"PLAINTEXT://{SOURCE_IP}:{SOURCE_PORT}",
            "controller.quorum.voters": f"1@127.0.0.1:{SOURCE_CONTROLLER_PORT}",
            **extra,
        },
    )
    node = cluster.nodes[0]
    node.port, node.controller_port = SOURCE_PORT, SOURCE_CONTROLLER_PORT
    return cluster


def _settings(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"{pair!r}: write KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _terminate(proc: subprocess.Popen[Any] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP end the run through the same clean-up as Ctrl-C."""

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(f"stopped by signal {signum}")

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


# --- the run ----------------------------------------------------------------------------


def report(flows: list[Flow], args: argparse.Namespace, link_cpu: float) -> None:
    size = args.record_bytes
    print()
    print(
        f"{'':9} {'RTT ms':>6} {'offered':>8} {'mirrored':>8} {'records/s':>10} "
        f"{'end lag':>9} {'end lag':>7} {'max lag':>9} {'max lag':>7} {'catch-up':>8} "
        f"{'wall s':>7} {'CPU s':>6}  kept up"
    )
    print(
        f"{'':9} {'':>6} {'MB/s':>8} {'MB/s':>8} {'':>10} {'records':>9} {'s':>7} "
        f"{'records':>9} {'s':>7} {'s':>8} {'':>7} {'':>6}"
    )
    for f in flows:
        offered = f.offered * size / MB / f.offered_s if f.offered_s else 0.0
        rate = f.copied_in_phase / f.phase_s if f.phase_s else 0.0
        kept = f.end_lag_s <= args.keep_up_s
        catch = f"{f.catch_up_s:8.1f}" if f.catch_up_s is not None else f"{'never':>8}"
        print(
            f"{f.who:9} {f.rtt_ms:6.0f} {offered:8.2f} {rate * size / MB:8.2f} {rate:10,.0f} "
            f"{f.end_lag_records:9,} {f.end_lag_s:7.1f} {f.max_lag_records:9,} "
            f"{f.max_lag_s:7.1f} {catch} {f.wall_s:7.1f} {f.cpu_s:6.1f}  "
            f"{'yes' if kept else 'NO'}"
            + ("" if f.catch_up_s is not None else f" ({f.left:,} records left)")
        )
    print()
    print(f"lag over time (seconds behind, every {args.report_every_s:g} s of the steady phase):")
    for f in flows:
        marks, series = args.report_every_s, []
        for s in f.samples:
            if s.t >= marks:
                series.append(f"{s.lag_s:.1f}")
                marks += args.report_every_s
        print(f"  {f.who:9} {f.rtt_ms:4.0f} ms: {' '.join(series)}")
    by = {(f.who, f.rtt_ms): f for f in flows}
    for rtt in args.rtt_ms:
        ours, java = by.get(("kconnect", rtt)), by.get(("Java", rtt))
        if ours and java and ours.copied and java.copied and java.cpu_s:
            print(
                f"kconnect / Java at {rtt:g} ms: mirrored rate "
                f"x{ours.copied_in_phase / java.copied_in_phase:.2f}, "
                f"CPU per mirrored record x{(ours.cpu_s / ours.copied) / (java.cpu_s / java.copied):.2f}"
            )
    if link_cpu:
        print(f"the delay line used {link_cpu:.1f} CPU s")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "_delay-line":
        delay_line(sys.argv[2], sys.argv[3])
        return
    if len(sys.argv) == 3 and sys.argv[1] == "_produce":
        steady_producer(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rtt-ms", type=float, nargs="+", default=[50.0, 150.0])
    parser.add_argument("--mb-per-s", type=float, default=10.0, help="offered rate, MB/s")
    parser.add_argument("--seconds", type=float, default=90.0, help="steady phase, s")
    parser.add_argument("--warm-up-s", type=float, default=15.0, help="brokers' JIT, first")
    parser.add_argument("--drain-s", type=float, default=60.0, help="time to catch up after")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--tasks", type=int, default=2, help="tasks.max of both connectors")
    parser.add_argument("--record-bytes", type=int, default=1000)
    parser.add_argument("--mtu", type=int, default=1500, help="MTU of the long link")
    parser.add_argument("--sample-s", type=float, default=0.5)
    parser.add_argument("--keep-up-s", type=float, default=5.0, help="end lag that keeps up")
    parser.add_argument("--report-every-s", type=float, default=10.0)
    parser.add_argument(
        "--kconnect-config", action="append", default=[], help="KEY=VALUE for our connector"
    )
    parser.add_argument(
        "--java-config", action="append", default=[], help="KEY=VALUE for Java's connector"
    )
    parser.add_argument(
        "--source-broker-config",
        action="append",
        default=[],
        help="KEY=VALUE for the source broker (socket.send.buffer.bytes=-1: see the docs)",
    )
    parser.add_argument("--only", choices=("kconnect", "java"), help="run one mirror only")
    args = parser.parse_args()
    ours_extra, java_extra = _settings(args.kconnect_config), _settings(args.java_config)

    # The pinned jars, fetched now if they are not cached: the namespaces have no way out.
    subprocess.run([sys.executable, "-m", "kconnect_testkit.java_jars"], check=True)
    run = uuid.uuid4().hex[:6]
    work = Path(tempfile.mkdtemp(prefix="kc-bench-mirror-wan-"))
    clusters: list[KafkaCluster] = []
    link: LongLink | None = None
    java: JavaConnectWorker | None = None
    kconnect: subprocess.Popen[bytes] | None = None
    producers: list[subprocess.Popen[str]] = []
    flows: list[Flow] = []
    link_cpu = 0.0
    with stopped_by_signals():
        try:
            link, why = long_link(run, args.mtu)
            if link is None:
                print(f"NO DELAY APPLIED: {why}; both clusters on loopback", flush=True)
            else:
                print(
                    f"source in netns {link.source} ({SOURCE_IP}), target and mirrors in "
                    f"{link.target} ({TARGET_IP}); MTU {args.mtu}",
                    flush=True,
                )
                link.enter(link.source)
            source_side = source_cluster(link, _settings(args.source_broker_config))
            clusters.append(source_side)
            source_local = source_side.start(timeout_s=180)
            if link is not None:
                link.enter(link.target)
            source = f"{SOURCE_IP}:{SOURCE_PORT}" if link is not None else source_local
            target_side = KafkaCluster(quick_start=False, heap="1g")
            clusters.append(target_side)
            target = target_side.start(timeout_s=180)
            bench = Bench(
                args,
                source,
                source_local,
                target,
                link.source if link is not None else None,
                run,
                producers.append,
            )
            print(
                f"{args.mb_per_s:g} MB/s of {args.record_bytes}-byte records for "
                f"{args.seconds:g} s into {args.partitions} partitions; tasks.max={args.tasks}; "
                f"source {source}, target {target}",
                flush=True,
            )
            if args.only != "java":
                kconnect, url = start_kconnect(target, work, run)
            if args.only != "kconnect":
                java = JavaConnectWorker(
                    target,
                    mode="distributed",
                    name=f"bench-java-wan-{run}",
                    workdir=work / "java",
                    heap="1g",
                    quick_start=False,
                )
                java.start()
            if args.warm_up_s > 0:
                bench.warm_up(args.warm_up_s)
            for rtt in args.rtt_ms if link is not None else [0.0]:
                if link is not None:
                    link.set_rtt(rtt)
                if kconnect is not None:
                    flows.append(bench.flow("kconnect", url, kconnect.pid, rtt, ours_extra))
                    print(f"kconnect at {rtt:g} ms RTT: done", flush=True)
                if java is not None:
                    assert java.proc is not None
                    flows.append(bench.flow("Java", java.url, java.proc.pid, rtt, java_extra))
                    print(f"Java at {rtt:g} ms RTT: done", flush=True)
        finally:
            for producer in producers:
                _terminate(producer)
            _terminate(kconnect)
            if java is not None:
                java.stop()
            for cluster in clusters:
                cluster.stop()
            if link is not None:
                link_cpu = link.cpu_seconds()
                link.close()
            shutil.rmtree(work, ignore_errors=True)
    report(flows, args, link_cpu)


if __name__ == "__main__":
    main()
