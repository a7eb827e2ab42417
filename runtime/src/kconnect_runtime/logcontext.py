"""Task logging context: ``[connector|task-N]`` on every log line a task thread emits.

Kafka Connect puts this in log4j's MDC; here a context variable, set by the task thread,
is copied onto every ``LogRecord`` as the ``connector_context`` attribute (``""`` outside
tasks), so a format such as
``%(asctime)s %(levelname)s %(connector_context)s%(message)s (%(name)s)`` shows it for the
runner's own lines and the plugin's alike. A :class:`ConnectorContextFilter` does the same
for handlers configured through ``logging.config`` without the record factory.

Secrets (issue 21): the worker registers every secret string it knows
(:func:`register_secrets`: PASSWORD values, client passwords, values config providers
resolved) and every record is made with them replaced by ``[hidden]`` in its message and
its exception text, whichever logger emits it. :class:`SecretRedactingFilter` does the same
for records that reach a handler some other way (e.g. rebuilt with ``makeLogRecord``).
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

__all__ = [
    "ConnectorContextFilter",
    "SecretRedactingFilter",
    "connector_context",
    "hidden_during",
    "install_record_factory",
    "redact_record",
    "register_secrets",
    "scrub_secrets",
    "set_task_context",
]

# Each thread starts with a fresh context, so the value set on a task thread stays there.
_context: ContextVar[str] = ContextVar("kconnect_connector_context", default="")
_install_lock = threading.Lock()
_installed: list[bool] = []  # non-empty once the record factory is in place

_HIDDEN = "[hidden]"
_secrets_lock = threading.Lock()
_secrets: set[str] = set()
# One alternation of every registered secret, longest first; None while there is none.
_secret_pattern: list[re.Pattern[str] | None] = [None]
_exception_formatter = logging.Formatter()
# Secrets of one call only (a config being validated), on the calling thread: they need not
# be hidden for the life of the process, and a client validating often must not make the
# process-wide set grow.
_transient: ContextVar[re.Pattern[str] | None] = ContextVar(
    "kconnect_transient_secrets", default=None
)


def connector_context() -> str:
    """``[connector|task-N] `` on a task thread, ``""`` elsewhere."""
    return _context.get()


def set_task_context(connector: str, task: int) -> None:
    """Mark the calling thread as running task ``task`` of ``connector``."""
    install_record_factory()
    _context.set(f"[{connector}|task-{task}] ")


def register_secrets(values: Iterable[str]) -> None:
    """Hide ``values`` from every log record made from now on (idempotent, process-wide)."""
    new = {v for v in values if v and v != _HIDDEN}
    if not new:
        return
    install_record_factory()
    with _secrets_lock:
        if new <= _secrets:
            return
        _secrets.update(new)
        ordered = sorted(_secrets, key=len, reverse=True)
        _secret_pattern[0] = re.compile("|".join(re.escape(v) for v in ordered))


@contextlib.contextmanager
def hidden_during(values: Iterable[str]) -> Iterator[None]:
    """Hide ``values`` from the log records the calling thread makes inside the block."""
    wanted = sorted({v for v in values if v and v != _HIDDEN}, key=len, reverse=True)
    if not wanted:
        yield
        return
    install_record_factory()
    token = _transient.set(re.compile("|".join(re.escape(v) for v in wanted)))
    try:
        yield
    finally:
        _transient.reset(token)


def _patterns() -> list[re.Pattern[str]]:
    return [p for p in (_secret_pattern[0], _transient.get()) if p is not None]


def scrub_secrets(text: str) -> str:
    """``text`` with every registered secret replaced by ``[hidden]``."""
    for pattern in _patterns():
        if text:
            text = pattern.sub(_HIDDEN, text)
    return text


def redact_record(record: logging.LogRecord) -> None:
    """Replace registered secrets in ``record``'s message and exception text, in place."""
    for pattern in _patterns():
        _redact_with(record, pattern)


def _redact_with(record: logging.LogRecord, pattern: re.Pattern[str]) -> None:
    try:
        message = record.getMessage()
    except Exception:  # a bad format string is logging's own error to report
        return
    if pattern.search(message):
        record.msg, record.args = pattern.sub(_HIDDEN, message), None
    if record.exc_info and not record.exc_text:
        # Formatted now, so the traceback's messages can be searched too; formatters use
        # exc_text as is when it is set.
        record.exc_text = _exception_formatter.formatException(record.exc_info)
    if record.exc_text and pattern.search(record.exc_text):
        record.exc_text = pattern.sub(_HIDDEN, record.exc_text)
    if record.stack_info and pattern.search(record.stack_info):
        record.stack_info = pattern.sub(_HIDDEN, record.stack_info)


class SecretRedactingFilter(logging.Filter):
    """Hides registered secrets in records; attach to handlers in a logging config."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


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
            if _secret_pattern[0] is not None or _transient.get() is not None:
                redact_record(record)
            return record

        logging.setLogRecordFactory(factory)
        _installed.append(True)
