"""Task logging context: ``[connector|task-N]`` on every log line a task thread emits.

Kafka Connect puts this in log4j's MDC; here a context variable, set by the task thread,
is copied onto every ``LogRecord`` as the ``connector_context`` attribute (``""`` outside
tasks), so a format such as
``%(asctime)s %(levelname)s %(connector_context)s%(message)s (%(name)s)`` shows it for the
runner's own lines and the plugin's alike. A :class:`ConnectorContextFilter` does the same
for handlers configured through ``logging.config`` without the record factory.
"""

from __future__ import annotations

import logging
import threading
from contextvars import ContextVar
from typing import Any

__all__ = [
    "ConnectorContextFilter",
    "connector_context",
    "install_record_factory",
    "set_task_context",
]

# Each thread starts with a fresh context, so the value set on a task thread stays there.
_context: ContextVar[str] = ContextVar("kconnect_connector_context", default="")
_install_lock = threading.Lock()
_installed: list[bool] = []  # non-empty once the record factory is in place


def connector_context() -> str:
    """``[connector|task-N] `` on a task thread, ``""`` elsewhere."""
    return _context.get()


def set_task_context(connector: str, task: int) -> None:
    """Mark the calling thread as running task ``task`` of ``connector``."""
    install_record_factory()
    _context.set(f"[{connector}|task-{task}] ")


class ConnectorContextFilter(logging.Filter):
    """Adds ``connector_context`` to records; attach to handlers in a logging config."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "connector_context"):
            record.connector_context = _context.get()
        return True


def install_record_factory() -> None:
    """Give every LogRecord a ``connector_context`` attribute (idempotent)."""
    with _install_lock:
        if _installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            record.connector_context = _context.get()
            return record

        logging.setLogRecordFactory(factory)
        _installed.append(True)
