"""One plugin host process: started with a location's interpreter, spoken to in frames.

``PluginProcess`` starts ``host/_plugin_host.py`` with ``<location>/bin/python -I``, sends
it calls and reads its replies (length-prefixed JSON frames, record batches packed by the
host's codec), bounds every call by ``plugin.call.timeout.ms`` and keeps the tail of the
host's stderr for the error a dead or stuck host fails its call with.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.metadata as md
import logging
import os
import queue
import subprocess
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from kconnect_sdk import (
    ConfigError,
    ConnectError,
    DataError,
    RetriableError,
)

from .host._codec import (
    PROTOCOL_VERSION,
    read_frame,
    write_frame,
)

__all__ = [
    "CALL_TIMEOUT_CONFIG",
    "HOST_SCRIPT",
    "PluginProcess",
    "call_timeout_s",
    "location_python",
]

log = logging.getLogger(__name__)


HOST_SCRIPT = Path(__file__).parent / "host" / "_plugin_host.py"
"""The plugin host script, run with a location's own interpreter."""
# Runs HOST_SCRIPT (argv[1]) as a module rather than as ``__main__``, so that the
# interpreter keeps its compiled bytecode in __pycache__ instead of compiling the host
# again at every start; nothing is added to sys.path.
_LAUNCHER = (
    "import importlib.util as u, sys\n"
    "s = u.spec_from_file_location('_kconnect_plugin_host', sys.argv[1])\n"
    "m = u.module_from_spec(s)\n"
    "sys.modules[s.name] = m\n"
    "s.loader.exec_module(m)\n"
    "sys.exit(m.main())\n"
)
CALL_TIMEOUT_CONFIG = "plugin.call.timeout.ms"
DEFAULT_CALL_TIMEOUT_S = 60.0
_STDERR_LINES = 200
_EOF = object()


def location_python(location: str | os.PathLike[str]) -> Path:
    """The interpreter of a plugin.path location (a venv)."""
    # Absolute: the host process starts with cwd=location, where a relative plugin.path
    # entry (plugin.path=plugins) would no longer name the interpreter.
    root = Path(location).absolute()
    for candidate in (root / "bin" / "python", root / "Scripts" / "python.exe"):
        if candidate.exists():
            return candidate
    raise ConnectError(
        f"plugin location {str(root)!r} has no bin/python; "
        "create it with `kconnect plugins install ... --path <location>`"
    )


def call_timeout_s(config: Mapping[str, str]) -> float:
    """The per-call timeout an isolated connector's config asks for (default 60 s)."""
    raw = config.get(CALL_TIMEOUT_CONFIG)
    if raw is None:
        return DEFAULT_CALL_TIMEOUT_S
    try:
        return max(int(raw), 1) / 1000.0
    except ValueError as exc:
        raise ConnectError(
            f"config {CALL_TIMEOUT_CONFIG!r} must be an integer, got {raw!r}"
        ) from exc


_START_TIMEOUT_S = 30.0  # how long a plugin host may take to start and say hello


class PluginProcess:
    """One plugin host subprocess and the request/response channel to it.

    Calls are serialised by a lock: the protocol has one request in flight at a time.
    ``callbacks`` answer the host's requests for runtime data made during a call.
    """

    def __init__(
        self,
        location: str,
        kind: str,
        target: str,
        *,
        timeout_s: float = DEFAULT_CALL_TIMEOUT_S,
        callbacks: Mapping[str, Callable[[Mapping[str, Any]], Any]] | None = None,
        label: str = "",
        load: bool = True,
    ) -> None:
        self.location, self.kind, self.target = location, kind, target
        self.timeout_s = timeout_s
        self.callbacks = dict(callbacks or {})
        self.label = label or target
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._frames: queue.Queue[Any] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.closed = False
        self._gone = ""  # how the host went away, for the calls that come after
        python = location_python(location)
        env = dict(os.environ)
        # The host must see only its location's packages, never the runtime's.
        for var in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
            env.pop(var, None)
        env["PYTHONUNBUFFERED"] = "1"
        self._proc = subprocess.Popen(
            [str(python), "-I", "-c", _LAUNCHER, str(HOST_SCRIPT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            # The worker's own directory: a connector's relative paths
            # (file=out.txt) mean the same in a plugin location as in the runtime; -I keeps
            # that directory off the host's sys.path.
        )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        threading.Thread(
            target=self._read_frames, args=(self._proc.stdout,), daemon=True, name="plugin-host-rx"
        ).start()
        self._stderr_reader = threading.Thread(
            target=self._read_stderr, args=(self._proc.stderr,), daemon=True, name="plugin-host-err"
        )
        self._stderr_reader.start()
        # Starting an interpreter is not a plugin call: a busy machine may take seconds, so
        # the start has a bound of its own, never shorter than a call's.
        hello = self._next_frame(max(self.timeout_s, _START_TIMEOUT_S), "handshake")
        info = hello.get("hello") if isinstance(hello, dict) else None
        if not isinstance(info, dict) or info.get("protocol") != PROTOCOL_VERSION:
            self.kill()
            raise ConnectError(
                f"plugin {self.label}: host speaks protocol {info and info.get('protocol')!r}, "
                f"the runtime speaks {PROTOCOL_VERSION}"
            )
        self.sdk_version = str(info.get("sdk"))
        runtime_sdk = md.version("kconnect-sdk")
        if self.sdk_version != runtime_sdk:
            log.warning(
                "plugin %s: location %s has kconnect-sdk %s, the runtime has %s",
                self.label,
                location,
                self.sdk_version,
                runtime_sdk,
            )
        # load=False gives a bare host, e.g. for ``describe`` of any plugin of the location.
        self.loaded: dict[str, Any] = (
            self.call("load", {"kind": kind, "target": target}) if load else {}
        )

    def reload(self) -> None:
        """Load a fresh instance of the plugin in this host (the previous one is dropped)."""
        self.loaded = self.call("load", {"kind": self.kind, "target": self.target})

    def alive(self) -> bool:
        """Whether the host process is still running."""
        return self._proc.poll() is None

    def _read_frames(self, stream: IO[bytes]) -> None:
        with stream:
            self._pump_frames(stream)

    def _pump_frames(self, stream: IO[bytes]) -> None:
        while True:
            try:
                frame = read_frame(stream)
            except Exception:  # a torn frame means the host died mid-write
                frame = None
            if frame is None:
                self._frames.put(_EOF)
                return
            self._frames.put(frame)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        with stream:
            for raw in stream:
                line = raw.decode(errors="replace").rstrip("\n")
                self._stderr.append(line)
                log.debug("plugin %s: %s", self.label, line)

    def stderr(self) -> str:
        return "\n".join(self._stderr)

    def _failure(self, what: str) -> ConnectError:
        # Give the stderr reader a moment to drain the dying host's traceback.
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=1.0)
            self._stderr_reader.join(timeout=1.0)
        tail = self.stderr().strip()
        detail = f"\n--- plugin host stderr ---\n{tail}" if tail else ""
        return ConnectError(f"plugin {self.label} (location {self.location}): {what}{detail}")

    def _next_frame(self, timeout_s: float, op: str) -> Any:
        try:
            frame = self._frames.get(timeout=timeout_s)
        except queue.Empty:
            self.kill()
            self._gone = f"was killed after no answer to {op!r} within {timeout_s:g}s"
            raise self._failure(f"no answer to {op!r} within {timeout_s:g}s; host killed") from None
        if frame is _EOF:
            self.closed = True
            raise self._failure(f"plugin host {self._exited(op)}")
        return frame

    def _exited(self, op: str) -> str:
        self.closed = True
        # The pipe closes a moment before the process can be reaped.
        code: int | None = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = self._proc.wait(timeout=2.0)
        self._gone = f"exited (code {code}) during {op!r}"
        return self._gone

    def call(self, op: str, args: Mapping[str, Any] | None = None, blob: bytes = b"") -> Any:
        """Send one request and return its result (answering host callbacks meanwhile).

        ``blob`` travels raw after the request (the host's op reads it as ``args["$blob"]``);
        a reply with a binary tail returns a dict result holding the tail as ``"$blob"``.

        Raises:
            RetriableError: the plugin raised a RetriableError.
            ConnectError: the plugin raised anything else, or the host died or timed out.
        """
        with self._lock:
            if self.closed:
                why = f"; it {self._gone}" if self._gone else ""
                raise self._failure(f"plugin host is not running (call {op!r}){why}")
            assert self._proc.stdin is not None
            try:
                self._write({"op": op, "args": dict(args or {})}, blob)
            except (BrokenPipeError, OSError):
                raise self._failure(f"plugin host {self._exited(op)}") from None
            while True:
                frame = self._next_frame(self.timeout_s, op)
                if "callback" in frame:
                    handler = self.callbacks.get(frame["callback"])
                    result = handler(frame.get("args", {})) if handler else None
                    self._write({"result": result})
                    continue
                if "error" in frame:
                    err = frame["error"]
                    message = f"plugin {self.label}: {op} raised {err['type']}: {err['message']}"
                    if err.get("retriable"):
                        raise RetriableError(message)
                    if err.get("config"):  # keeps validation answering 400, not 500
                        raise ConfigError(message, name=err.get("config_name"))
                    detailed = f"{message}\n--- plugin traceback ---\n{err['trace']}"
                    if err.get("data"):  # errors.tolerance treats it as it would in-process
                        raise DataError(detailed)
                    raise ConnectError(detailed)
                self.last_effects: dict[str, Any] = frame.get("effects") or {}
                ok = frame.get("ok")
                if "$blob" in frame and isinstance(ok, dict):
                    ok["$blob"] = frame["$blob"]
                return ok

    def _write(self, message: Any, blob: bytes = b"") -> None:
        assert self._proc.stdin is not None
        with self._write_lock:
            write_frame(self._proc.stdin, message, blob)

    def interrupt(self) -> None:
        """Have the host call the task's stop() now, even while a call is in flight."""
        if not self.closed:
            with contextlib.suppress(OSError):
                self._write({"op": "interrupt"})

    def wait_idle(self, timeout_s: float) -> bool:
        """Wait until no call is in flight; False after ``timeout_s``."""
        if not self._lock.acquire(timeout=timeout_s):
            return False
        self._lock.release()
        return True

    def close(self, timeout_s: float = 5.0) -> None:
        """Ask the host to exit; kill it if it does not."""
        if self._proc.poll() is None:
            try:
                if self._lock.acquire(timeout=timeout_s):
                    try:
                        self._write({"op": "exit"})
                        self._close_stdin()
                    finally:
                        self._lock.release()
                self._proc.wait(timeout=timeout_s)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self.closed = True
        self._close_stdin()

    def kill(self) -> None:
        self.closed = True
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._close_stdin()

    def _close_stdin(self) -> None:
        with contextlib.suppress(OSError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()

    @property
    def pid(self) -> int:
        return self._proc.pid
