"""Task logging context: ``[connector|task-N]`` on every log line a task thread emits.

Kafka Connect puts this in log4j's MDC; here a context variable, set by the task thread,
is copied onto every ``LogRecord`` as the ``connector_context`` attribute (``""`` outside
tasks), so a format such as
``%(asctime)s %(levelname)s %(connector_context)s%(message)s (%(name)s)`` shows it for the
runner's own lines and the plugin's alike. A :class:`ConnectorContextFilter` does the same
for handlers configured through ``logging.config`` without the record factory.

Secrets: the worker registers every secret string it knows
(:func:`register_secrets`: PASSWORD values, client passwords, values config providers
resolved) and every record is made with them replaced by ``[hidden]`` in its message and
its exception text, whichever logger emits it. :class:`SecretRedactingFilter` does the same
for records that reach a handler some other way (e.g. rebuilt with ``makeLogRecord``).

librdkafka: every Kafka client the runtime creates gets a
:class:`KafkaClientLog` as its ``logger`` and ``error_cb`` (:func:`kafka_logging`), so the
C library's lines go through Python logging (logger ``kconnect.kafka``) with the task's
context, and a line that repeats is written once per 30 s with its count
("... (repeated 57 times in 30 s)") instead of hundreds of times.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from typing import Any

__all__ = [
    "REPEAT_WINDOW_S",
    "ConnectorContextFilter",
    "KafkaClientLog",
    "RepeatCollapser",
    "SecretRedactingFilter",
    "connector_context",
    "hidden_during",
    "install_record_factory",
    "kafka_logging",
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


# -- librdkafka's logs ----------------------------------------------------------

REPEAT_WINDOW_S = 30.0
"""A line that comes again within this many seconds is counted, not written."""

kafka_log = logging.getLogger("kconnect.kafka")
_DIGITS = re.compile(r"\d+")
_THREAD_PREFIX = re.compile(r"^\[thrd:[^\]]*\]: ")


class RepeatCollapser:
    """Writes a line once, then at most once per window with how often it came meanwhile.

    Lines are the same when they differ only in numbers (timings, counts, ports). A
    repeat is written lazily, when the line comes again after its window, or by
    :meth:`flush`; only the newest ``max_lines`` distinct lines are remembered.
    """

    def __init__(
        self,
        logger: logging.Logger,
        *,
        window_s: float = REPEAT_WINDOW_S,
        max_lines: int = 64,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._window = window_s
        self._max = max_lines
        self._clock = clock
        self._lock = threading.Lock()
        # key -> [window start, repeats in the window, level, last message]
        self._seen: OrderedDict[str, list[Any]] = OrderedDict()

    def log(self, level: int, message: str, *, context: str | None = None) -> None:
        """Write ``message`` at ``level`` unless it is a repeat inside its window."""
        key = f"{level}:{_DIGITS.sub('#', message)}"
        now = self._clock()
        with self._lock:
            entry = self._seen.get(key)
            if entry is not None and now - entry[0] < self._window:
                entry[1] += 1
                entry[3] = message
                return
            if entry is not None and entry[1]:
                # The window ended with repeats: this line opens the next window, written
                # with the count of the one that ended.
                text = _repeated(message, entry[1] + 1, now - entry[0])
            else:
                text = message
            self._seen[key] = [now, 0, level, message]
            self._seen.move_to_end(key)
            while len(self._seen) > self._max:
                self._seen.popitem(last=False)
        self._write(level, text, context)

    def flush(self, *, context: str | None = None) -> None:
        """Write the counts of repeats not written yet (a client closing)."""
        now = self._clock()
        with self._lock:
            pending = [e for e in self._seen.values() if e[1]]
            self._seen.clear()
        for start, count, level, message in pending:
            self._write(level, _repeated(message, count, now - start), context)

    def _write(self, level: int, text: str, context: str | None) -> None:
        if context is None:
            self._logger.log(level, "%s", text)
            return
        token = _context.set(context)
        try:
            self._logger.log(level, "%s", text)
        finally:
            _context.reset(token)


def _repeated(message: str, count: int, seconds: float) -> str:
    times = "once" if count == 1 else f"{count} times"
    return f"{message} (repeated {times} in {max(seconds, 1.0):.0f} s)"


class KafkaClientLog:
    """The ``logger`` and ``error_cb`` of one librdkafka client.

    confluent-kafka calls :meth:`log` for each librdkafka log line and :meth:`error` for
    each error event, on the thread that polls the client (a task's own thread for task
    clients). Lines carry ``name`` (e.g. ``producer connector-producer-orders-0``) and the
    connector context of the thread that made the client; repeats are collapsed.
    ``on_error``, when given, sees every error event first (the broker watch).

    Args:
        name: What the client is, for the log lines.
        context: The ``[connector|task-N] `` prefix; by default the calling thread's.
        on_error: Called with each ``KafkaError`` before it is logged.
    """

    def __init__(
        self,
        name: str,
        *,
        context: str | None = None,
        on_error: Callable[[Any], None] | None = None,
        logger: logging.Logger = kafka_log,
    ) -> None:
        install_record_factory()  # records carry connector_context
        self.name = name
        self.context = _context.get() if context is None else context
        self._on_error = on_error
        self._repeats = RepeatCollapser(logger)

    # confluent-kafka's ``logger`` interface: log(level, "%s [%s] %s", facility, handle, text)
    def log(self, level: int, fmt: str, *args: Any) -> None:
        if len(args) == 3:
            facility, _handle, text = args
            text = _THREAD_PREFIX.sub("", str(text))
            message = f"{self.name}: {facility}: {text}"
        else:
            message = f"{self.name}: {fmt % args if args else fmt}"
        self._repeats.log(level, scrub_secrets(message), context=self.context)

    def error(self, err: Any) -> None:
        """``error_cb``: log the error event (a fatal one at ERROR, others at WARNING)."""
        if self._on_error is not None:
            self._on_error(err)
        name = getattr(err, "name", lambda: "")()
        if name == "_TRANSPORT":
            # librdkafka wrote the same failure as a FAIL line already.
            level = logging.DEBUG
        elif getattr(err, "fatal", lambda: False)():
            level = logging.ERROR
        else:
            level = logging.WARNING
        text = getattr(err, "str", lambda: str(err))()
        self._repeats.log(
            level, scrub_secrets(f"{self.name}: {name or 'error'}: {text}"), context=self.context
        )

    def apply(self, config: Mapping[str, Any]) -> dict[str, Any]:
        """``config`` with this object as ``logger`` and ``error_cb`` (unless already set)."""
        out = dict(config)
        out.setdefault("logger", self)
        out.setdefault("error_cb", self.error)
        return out

    def close(self) -> None:
        """Write pending repeat counts; the client is closed or about to be."""
        self._repeats.flush(context=self.context)


def kafka_logging(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """``config`` with librdkafka's logs and errors routed to ``kconnect.kafka``."""
    return KafkaClientLog(name).apply(config)
