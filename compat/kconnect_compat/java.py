"""The Java side: ConnectHarness.java compiled against Apache Kafka's jars, one JVM a session.

The harness is compiled once per source and jar set into a cache folder (``javac`` is the
slow part of a cold start) and then serves every batch of the session over a pipe: each
batch is a file of JSON-lines cases, answered by a file of JSON-lines results.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

__all__ = ["INSTALL_HINT", "HarnessUnavailable", "JavaHarness"]

HARNESS_SOURCE = Path(__file__).resolve().parents[1] / "java" / "ConnectHarness.java"

INSTALL_HINT = (
    "the differential suite needs Java 17 (java and javac) and Maven to fetch Apache Kafka's "
    "jars: apt-get install openjdk-17-jdk-headless maven"
)

# UTC and an English locale: Kafka's StringConverter writes a java.util.Date with the JVM's
# default time zone, and SimpleDateFormat patterns name months in the default locale.
_JVM_FLAGS = (
    "-Xmx512m",
    "-Xss8m",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Duser.timezone=UTC",
    "-Duser.language=en",
    "-Duser.country=US",
    "-Dfile.encoding=UTF-8",
    "-Dlog4j2.level=OFF",
)


class HarnessUnavailable(RuntimeError):
    """Java, javac or Kafka's jars are missing; the message says what to install."""


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kconnect-compat"


def compile_harness(jars: Path) -> Path:
    """The folder holding ConnectHarness.class built against ``jars``, compiled if needed."""
    javac = shutil.which("javac")
    if javac is None or shutil.which("java") is None:
        raise HarnessUnavailable(f"java or javac not found on PATH: {INSTALL_HINT}")
    digest = hashlib.sha256(HARNESS_SOURCE.read_bytes() + str(jars).encode()).hexdigest()[:16]
    target = _cache_root() / f"harness-{digest}"
    if (target / "ConnectHarness.class").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Compiled aside and renamed into place, so concurrent sessions never see half a build.
    staging = Path(tempfile.mkdtemp(prefix=".harness-", dir=target.parent))
    done = subprocess.run(
        [javac, "-nowarn", "-d", str(staging), "-cp", f"{jars}/*", str(HARNESS_SOURCE)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise HarnessUnavailable(f"javac failed on {HARNESS_SOURCE}: {done.stderr[-2000:]}")
    try:
        staging.rename(target)
    except OSError:  # another session won the race; its build is the same
        shutil.rmtree(staging, ignore_errors=True)
    return target


class JavaHarness:
    """One running ConnectHarness JVM; :meth:`run` sends it a batch of cases."""

    def __init__(self, jars: Path, workdir: Path) -> None:
        classes = compile_harness(jars)
        self.workdir = workdir
        self._batches = 0
        self._log: IO[bytes] = (workdir / "harness-stderr.log").open("wb")
        self._proc = subprocess.Popen(
            [
                "java",
                *_JVM_FLAGS,
                "-cp",
                f"{classes}{os.pathsep}{jars}/*",
                "ConnectHarness",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )

    def run(self, cases: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The harness's result for each case, in order."""
        self._batches += 1
        cases_file = self.workdir / f"batch-{self._batches}.jsonl"
        results_file = self.workdir / f"batch-{self._batches}.out.jsonl"
        with cases_file.open("w", encoding="utf-8") as out:
            for case in cases:
                # ensure_ascii: a lone surrogate in a string survives only as an escape.
                out.write(json.dumps(case, ensure_ascii=True) + "\n")
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(f"{cases_file}\t{results_file}\n")
            proc.stdin.flush()
            answer = proc.stdout.readline()
        except BrokenPipeError:
            answer = ""
        if not answer.startswith("done "):
            raise HarnessUnavailable(
                f"the Java harness stopped (exit {proc.poll()}): "
                f"{(self.workdir / 'harness-stderr.log').read_text(errors='replace')[-2000:]}"
            )
        with results_file.open(encoding="utf-8") as results:
            found = [json.loads(line) for line in results if line.strip()]
        if len(found) != len(cases):
            raise HarnessUnavailable(
                f"the Java harness answered {len(found)} of {len(cases)} cases"
            )
        return found

    def close(self) -> None:
        proc = self._proc
        if proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        self._log.close()
