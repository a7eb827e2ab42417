"""A standalone Spark cluster (one master, workers) from the pip PySpark package, for tests.

The master and each worker are the JVM daemons a user starts with ``spark-class
org.apache.spark.deploy.master.Master`` / ``...worker.Worker``, on free ports of 127.0.0.1,
with their logs and work directories (executors' stdout/stderr) kept under one directory so
that a failure can show them. Applications connect with ``spark.master=<master_url>``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

__all__ = ["SparkCluster", "SparkWorker", "kc_spark_cluster", "pack_environment"]

_START_TIMEOUT_S = 180.0
"""Two cold JVMs on a loaded 2-core machine take 10-30 s each; allow for much worse."""

_DAEMON_JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto"
"""The master and workers only schedule and launch executors: C1 and a serial GC keep their
CPU off the cores the executors and the tests need."""


def _fail(problem: str) -> None:
    ci = " [CI=true: integration services never skip]" if os.environ.get("CI") == "true" else ""
    pytest.fail(f"{problem}{ci}", pytrace=False)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text[-lines:])


@dataclass
class SparkWorker:
    """One worker daemon: its process (group), ports, log and work directory."""

    index: int
    process: subprocess.Popen[bytes]
    port: int
    web_port: int
    log: Path
    work_dir: Path

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


@dataclass
class SparkCluster:
    """A running standalone cluster.

    Attributes:
        master_url: ``spark://127.0.0.1:<port>``, for ``spark.master``.
        spark_home: The PySpark package directory the daemons run from.
        root: Where the logs and the workers' work directories are.
        cores_per_worker: Cores each worker offers to applications.
        memory_per_worker: Memory each worker offers (``512m``, ``1g``, …).
    """

    master_url: str
    web_url: str
    spark_home: Path
    root: Path
    master: subprocess.Popen[bytes]
    master_log: Path
    cores_per_worker: int
    memory_per_worker: str
    workers: list[SparkWorker] = field(default_factory=list)

    def state(self) -> dict[str, object]:
        """The master's JSON status page (workers, applications)."""
        with urllib.request.urlopen(f"{self.web_url}/json/", timeout=10) as response:
            state: dict[str, object] = json.load(response)
            return state

    def alive_workers(self) -> int:
        """How many workers the master counts as ALIVE."""
        try:
            return int(str(self.state().get("aliveworkers", 0)))
        except (OSError, ValueError):
            # ValueError: a master still starting can answer /json/ with its HTML page.
            return 0

    def start_worker(self) -> SparkWorker:
        """Start one more worker and wait until the master counts it."""
        want = sum(1 for w in self.workers if w.alive) + 1
        worker = self._launch_worker(len(self.workers))
        self.workers.append(worker)
        self._wait(lambda: self.alive_workers() >= want, f"worker {worker.index} to register")
        return worker

    def kill_worker(self, index: int) -> None:
        """``kill -9`` a worker and the executors it launched (its process group)."""
        worker = self.workers[index]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(worker.process.pid, signal.SIGKILL)
        worker.process.wait(30)

    def executor_pythons(self) -> set[str]:
        """The interpreters (as launched, ``argv[0]``) of the Python processes that descend
        from the workers now (Linux ``/proc``): which Python the executors really run.
        (PySpark's daemon leaves the worker's process group, so descent is what counts.)"""
        workers = {w.process.pid for w in self.workers if w.alive}
        parents: dict[int, int] = {}
        argv0: dict[int, bytes] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                pid = int(stat.parent.name)
                parents[pid] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
                argv0[pid] = (stat.parent / "cmdline").read_bytes().split(b"\0")[0]
            except (OSError, ValueError, IndexError):
                continue
        found = set()
        for pid, name in argv0.items():
            if b"python" not in name:
                continue
            ancestor = parents.get(pid, 0)
            while ancestor > 1 and ancestor not in workers:
                ancestor = parents.get(ancestor, 0)
            if ancestor in workers:
                found.add(name.decode(errors="replace"))
        return found

    def executor_logs(self) -> str:
        """Every executor's stderr under the workers' work directories, newest last."""
        logs = sorted(
            (p for w in self.workers for p in w.work_dir.glob("*/*/stderr")),
            key=lambda p: p.stat().st_mtime,
        )
        return "\n".join(f"--- {p}\n{_tail(p, 60)}" for p in logs)

    def logs(self) -> str:
        """The tails of the master's and the workers' logs, for a failure message."""
        parts = [f"--- master ({self.master_log})\n{_tail(self.master_log)}"]
        parts += [f"--- worker {w.index} ({w.log})\n{_tail(w.log)}" for w in self.workers]
        return "\n".join(parts)

    def stop(self) -> None:
        """Stop the workers (and their executors), then the master."""
        for process in [w.process for w in self.workers] + [self.master]:
            _stop_group(process)

    # -- internals --------------------------------------------------------------------
    def _launch_worker(self, index: int) -> SparkWorker:
        port, web_port = _free_port(), _free_port()
        work_dir = self.root / f"worker-{index}"
        work_dir.mkdir(parents=True, exist_ok=True)
        log = self.root / f"worker-{index}.log"
        process = _spawn(
            self.spark_home,
            "org.apache.spark.deploy.worker.Worker",
            [
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--webui-port",
                str(web_port),
                "--cores",
                str(self.cores_per_worker),
                "--memory",
                self.memory_per_worker,
                "--work-dir",
                str(work_dir),
                self.master_url,
            ],
            log,
            _daemon_env(self.spark_home, self.root),
        )
        return SparkWorker(index, process, port, web_port, log, work_dir)

    def _wait(self, ready: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + _START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.master.poll() is not None:
                break
            if ready():
                return
            time.sleep(0.3)
        self.stop()
        _fail(
            f"the standalone Spark cluster did not come up: waited {_START_TIMEOUT_S:.0f} s for "
            f"{what} (is Java 17 installed, JAVA_HOME set?); its logs:\n{self.logs()}"
        )


def _daemon_env(spark_home: Path, root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        SPARK_HOME=str(spark_home),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_DAEMON_MEMORY="256m",
        SPARK_DAEMON_JAVA_OPTS=_DAEMON_JAVA_OPTS,
        SPARK_LOG_DIR=str(root),
        SPARK_CONF_DIR=str(root / "conf"),
    )
    # Executors must take their Python from the application, never from the daemons' env.
    env.pop("PYSPARK_PYTHON", None)
    env.pop("PYSPARK_DRIVER_PYTHON", None)
    return env


def _spawn(
    spark_home: Path, main: str, args: Sequence[str], log: Path, env: dict[str, str]
) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        # Its own process group: a worker's executors are its children, and a kill or a
        # stop reaches them too.
        return subprocess.Popen(
            [str(spark_home / "bin" / "spark-class"), main, *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(15)


def start_spark_cluster(
    root: Path, *, workers: int = 2, cores_per_worker: int = 1, memory_per_worker: str = "1g"
) -> SparkCluster:
    """Start a master and ``workers`` workers under ``root``; fails the test if one cannot."""
    try:
        import pyspark
    except ImportError as exc:
        _fail(
            f"PySpark is not available ({exc}); pip install 'kconnect-testkit[spark]' "
            "(a standalone Spark cluster runs from the pip package's spark-class)"
        )
        raise
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        _fail("Java is not available (no `java` on PATH, no JAVA_HOME); install Java 17")
    spark_home = Path(pyspark.__file__).parent
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf").mkdir(exist_ok=True)
    # The REST submission server would take port 6066 whatever the test's free ports are.
    (root / "conf" / "spark-defaults.conf").write_text(
        "spark.master.rest.enabled false\nspark.ui.showConsoleProgress false\n"
    )
    port, web_port = _free_port(), _free_port()
    master_log = root / "master.log"
    env = _daemon_env(spark_home, root)
    master = _spawn(
        spark_home,
        "org.apache.spark.deploy.master.Master",
        ["--host", "127.0.0.1", "--port", str(port), "--webui-port", str(web_port)],
        master_log,
        env,
    )
    cluster = SparkCluster(
        master_url=f"spark://127.0.0.1:{port}",
        web_url=f"http://127.0.0.1:{web_port}",
        spark_home=spark_home,
        root=root,
        master=master,
        master_log=master_log,
        cores_per_worker=cores_per_worker,
        memory_per_worker=memory_per_worker,
    )
    # The workers start while the master comes up: they retry its address until it answers.
    try:
        for index in range(workers):
            cluster.workers.append(cluster._launch_worker(index))
        cluster._wait(lambda: cluster.alive_workers() >= workers, f"{workers} workers to register")
    except BaseException:
        cluster.stop()  # no master or worker outlives a start that failed
        raise
    return cluster


@pytest.fixture(scope="session")
def kc_spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkCluster]:
    """A standalone Spark cluster for the test session: one master and two workers of one
    core and 1 GiB each, from the installed PySpark, on free ports of 127.0.0.1.

    Use ``spark.master=<cluster.master_url>`` and at most ``spark.executor.memory=1g``
    (``512m`` leaves room). ``cluster.logs()`` and ``cluster.executor_logs()`` give the
    daemons' and executors' logs for failure messages; ``kill_worker``/``start_worker``
    test executor loss. A missing Java or PySpark fails the test; it never skips.
    """
    cluster = start_spark_cluster(tmp_path_factory.mktemp("spark-cluster"))
    try:
        yield cluster
    finally:
        cluster.stop()


def pack_environment(dest: Path, requirements: Sequence[str], *, python: str | None = None) -> Path:
    """Build a virtual environment with ``requirements`` and pack it as ``dest`` (a
    ``.tar.gz``) for ``spark.archives``: what ``venv-pack`` makes, by hand.

    A ``.tar.gz``, not a plain ``.tar``: Spark unpacks a plain tar in Java, which drops the
    executable bits (``bin/python`` then fails with "Permission denied") and refuses links
    that point outside the archive; a ``.tar.gz`` goes through the system's ``tar``.

    The environment is created from ``python`` (default: this interpreter's base, never its
    own environment, so that the packed one holds only what was asked for) and installed
    with ``uv pip`` when ``uv`` is on PATH (or ``$UV``), else pip. Its ``bin/python`` is a
    copy of the base interpreter (``venv --copies``) that still loads the base's standard
    library (and ``libpython``) from its path, so executors must have that installation at
    the same path (a cluster of one image, as in the docs). Returns ``dest``.
    """
    import tarfile
    import tempfile

    base = python or os.path.join(sys.base_prefix, "bin", "python3")
    with tempfile.TemporaryDirectory(prefix="kc-pack-") as tmp:
        env_dir = Path(tmp) / "env"
        subprocess.run([base, "-m", "venv", "--copies", "--without-pip", str(env_dir)], check=True)
        env_python = str(env_dir / "bin" / "python")
        uv = shutil.which("uv") or os.environ.get("UV")
        if uv:
            command = [uv, "pip", "install", "--quiet", "--python", env_python, *requirements]
        else:
            subprocess.run([env_python, "-m", "ensurepip", "--default-pip"], check=True)
            command = [env_python, "-m", "pip", "install", "--quiet", *requirements]
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        if done.returncode != 0:
            _fail(
                f"cannot build the packed environment ({' '.join(command)}):\n{done.stderr[-3000:]}"
            )
        if not str(dest).endswith((".tar.gz", ".tgz")):
            raise ValueError(f"pack_environment: {dest} must end in .tar.gz or .tgz")
        with tarfile.open(dest, "w:gz", compresslevel=1) as tar:
            # (Top-level names without "./": Spark's unpacking refuses an entry named "./".)
            for child in sorted(env_dir.iterdir()):
                tar.add(str(child), arcname=child.name)
    return dest
