"""Helpers the suites share: plugin resolution, bounded calls, snapshots, failures."""

from __future__ import annotations

import functools
import importlib
import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import pytest
from kconnect_sdk import ConnectRecord
from kconnect_sdk.plain import record_to_plain

if TYPE_CHECKING:
    from kconnect_runtime.plugins import PluginDesc, PluginRegistry
    from kconnect_sdk import PluginKind

__all__ = [
    "attach",
    "call_bounded",
    "detach",
    "fail",
    "failure_cause",
    "find_desc",
    "import_side_effects",
    "load_target",
    "plugin_raised",
    "progress",
    "registry",
    "snapshot",
]

T = TypeVar("T")


def fail(message: str) -> NoReturn:
    """Fail the current test with ``message`` only (no traceback of the testkit's code)."""
    # Raised from None so that a failure found while handling an error shows only the message.
    raise pytest.fail.Exception(message, pytrace=False) from None


# The pytest sessions running in this process, innermost last (pytester runs one inside
# another): progress lines go to the innermost one's terminal.
_SESSIONS: list[pytest.Config] = []


def attach(config: pytest.Config) -> None:
    """Route :func:`progress` lines to ``config``'s terminal (the plugin calls this)."""
    _SESSIONS.append(config)


def detach(config: pytest.Config) -> None:
    if config in _SESSIONS:
        _SESSIONS.remove(config)


def progress(message: str) -> None:
    """Say on the terminal how a slow check is getting on, while it runs.

    The line starts ``kc-progress:`` and names the running test; ``kconnect-testkit verify``
    hands such lines on as its own progress.
    """
    if not _SESSIONS:
        return
    config = _SESSIONS[-1]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    current = os.environ.get("PYTEST_CURRENT_TEST", "")
    test = current.rsplit("::", 2)[-2:] if current else []
    where = "::".join(test).rsplit(" (", 1)[0]
    line = f"kc-progress: {where}: {message}" if where else f"kc-progress: {message}"
    capture = config.pluginmanager.get_plugin("capturemanager")
    if capture is None:
        reporter.write_line(line, flush=True)
        return
    # Around the test's output capture, as pytest's live logging writes.
    with capture.global_and_fixture_disabled():
        reporter.write_line(line, flush=True)


# How the runtime's plugin host proxy words a plugin's exception, so that a check can name
# the plugin's own exception instead of the proxy's ConnectError around it.
_HOST_RAISED = re.compile(r"plugin .+?: [\w.]+ raised ([\w.]+): (.*)")
_OWN_CODE = str(Path(__file__).parent)


def plugin_raised(what: str, exc: Exception) -> NoReturn:
    """Fail the check because the plugin's ``what`` raised ``exc``.

    The first line names the call and the plugin's exception, the same in every check it
    breaks (so failures can be grouped by it); the plugin's traceback follows.
    """
    name = type(exc).__name__
    first, _, rest = str(exc).partition("\n")
    found = _HOST_RAISED.fullmatch(first)
    if found is not None:
        # Raised in a plugin host process: its traceback came back with the message.
        name, first = found.group(1), found.group(2) + " (in its plugin host process)"
        trace = rest.strip()
    else:
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if not f.filename.startswith(_OWN_CODE)
        ]
        trace = "".join(traceback.format_list(frames)).rstrip()
        if trace:
            trace = "plugin traceback (most recent call last):\n" + trace
        if rest.strip():
            trace = f"{rest.strip()}\n{trace}"
    fail(f"{what} raised {name}: {first}" + (f"\n{trace}" if trace else ""))


def failure_cause(text: str) -> str:
    """The root cause a failure's message states: its first line (without pytest's
    ``Failed:`` prefix), what checks that failed for one reason have in common."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first.removeprefix("Failed: ")


@functools.cache
def registry() -> PluginRegistry:
    """Every plugin installed in this environment (discovered once per process)."""
    from kconnect_runtime.plugins import PluginRegistry

    return PluginRegistry.discover()


def load_target(target: str) -> type[Any]:
    """The class named by ``module:Class``."""
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise TypeError(f"{target} is not a class")
    return obj


def find_desc(plugin: str | type[Any], kind: PluginKind) -> PluginDesc | None:
    """The entry point that declares ``plugin`` (a name, ``module:Class`` or a class), or None."""
    reg = registry()
    if isinstance(plugin, str) and ":" not in plugin:
        try:
            return reg.resolve(plugin, kind)
        except Exception:
            return None
    cls = load_target(plugin) if isinstance(plugin, str) else plugin
    top = cls.__module__.partition(".")[0]
    for desc in reg.plugins(kind):
        if desc.target.partition(".")[0].partition(":")[0] != top:
            continue
        try:
            if desc.load() is cls:
                return desc
        except Exception:
            continue
    return None


def distribution(desc: PluginDesc) -> md.Distribution | None:
    try:
        return md.distribution(desc.distribution)
    except md.PackageNotFoundError:
        return None


def call_bounded(call: Callable[[], T], timeout_s: float, what: str) -> T:
    """Run ``call`` on a daemon thread; fail the test if it does not return in time.

    A hung call is left behind on its daemon thread: the point is that the caller (the
    worker) is not wedged by it.
    """
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:
            outcome.append((False, exc))

    thread = threading.Thread(target=run, name=f"kc-testkit {what}", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        fail(
            f"{what} did not return within {timeout_s:g} s; it must not block on the external "
            "system (use timeouts, and make stop() wake any blocked call)"
        )
    ok, value = outcome[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def snapshot(record: ConnectRecord | None) -> str:
    """A deep, comparable copy of a record's content (schemas, key, value, headers...)."""
    if record is None:
        return "null"
    return json.dumps(record_to_plain(record), sort_keys=True, default=repr)


_SIDE_EFFECT_PROBE = textwrap.dedent(
    """
    import json, logging, os, sys, threading
    import kconnect_sdk  # the SDK's own import is not the plugin's doing
    threads = {t.ident for t in threading.enumerate()}
    handlers = list(logging.getLogger().handlers)
    __import__(sys.argv[1])
    new_threads = sorted(t.name for t in threading.enumerate() if t.ident not in threads)
    new_handlers = [repr(h) for h in logging.getLogger().handlers if h not in handlers]
    files = []
    for root in sys.argv[2:]:
        for here, _dirs, names in os.walk(root):
            files.extend(os.path.join(here, n) for n in names)
    print(json.dumps({"threads": new_threads, "handlers": new_handlers, "files": files}))
    sys.stdout.flush()
    os._exit(0)  # do not wait for threads the import may have started
    """
)


@functools.cache
def import_side_effects(module: str, python: str | None = None) -> tuple[str, ...]:
    """What importing ``module`` does besides defining things, checked in a fresh interpreter.

    ``python``: the interpreter to check in (a plugin location's, in isolated mode);
    default this one, with this one's ``sys.path``.

    Returns human-readable problems (threads started, logging handlers added, files
    written to the working directory, HOME or TMPDIR); empty when there are none.
    """
    with tempfile.TemporaryDirectory(prefix="kc-import-") as scratch:
        cwd, home, tmp = (Path(scratch) / d for d in ("cwd", "home", "tmp"))
        for d in (cwd, home, tmp):
            d.mkdir()
        env = dict(os.environ)
        env.update(HOME=str(home), TMPDIR=str(tmp))
        if python is None:
            cmd = [sys.executable, "-c"]
            env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p and Path(p).exists())
        else:
            # -I: the location's packages only, never this environment's.
            cmd = [python, "-I", "-c"]
            env.pop("PYTHONPATH", None)
        proc = subprocess.run(
            [*cmd, _SIDE_EFFECT_PROBE, module, str(cwd), str(home), str(tmp)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if proc.returncode != 0 or not proc.stdout.strip():
            return (
                f"importing {module} failed in a fresh interpreter: {proc.stderr.strip()[-800:]}",
            )
        found = json.loads(proc.stdout.strip().splitlines()[-1])
    problems = []
    if found["threads"]:
        problems.append(
            f"importing {module} started threads {found['threads']}; start threads in "
            "start(), never at import time"
        )
    if found["handlers"]:
        problems.append(
            f"importing {module} added root logging handlers {found['handlers']}; leave "
            "logging configuration to the worker"
        )
    if found["files"]:
        shown = [f.replace(scratch, "<scratch>") for f in found["files"]]
        problems.append(f"importing {module} wrote files {shown}; write nothing at import time")
    return tuple(problems)
