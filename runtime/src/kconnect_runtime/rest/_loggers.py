"""Runtime log levels (KIP-495 ``/admin/loggers``) on Python's logging, with Kafka's level names."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from kconnect_sdk import NotFoundError

__all__ = ["LoggerLevels"]

# Kafka (log4j) names → Python levels. TRACE is finer than DEBUG; OFF silences a logger.
_TO_PYTHON = {
    "ALL": 1,  # log4j's lowest level: everything
    "TRACE": 5,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "OFF": logging.CRITICAL + 10,
}


def _kafka_name(level: int) -> str:
    for name, value in sorted(_TO_PYTHON.items(), key=lambda kv: -kv[1]):
        if level >= value:
            return name
    return "TRACE"


class LoggerLevels:
    """Reads and sets logger levels; remembers when this worker last changed each one."""

    ROOT = "root"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modified: dict[str, int] = {}

    @staticmethod
    def _logger(name: str) -> logging.Logger:
        return logging.getLogger() if name == LoggerLevels.ROOT else logging.getLogger(name)

    def _describe(self, name: str) -> dict[str, Any]:
        return {
            "level": _kafka_name(self._logger(name).getEffectiveLevel()),
            "last_modified": self._modified.get(name),
        }

    def all(self) -> dict[str, dict[str, Any]]:
        """Every logger with a level of its own, and the root logger."""
        names = [
            n
            for n, lg in list(logging.root.manager.loggerDict.items())
            if isinstance(lg, logging.Logger) and lg.level != logging.NOTSET
        ]
        with self._lock:
            return {n: self._describe(n) for n in sorted({self.ROOT, *names, *self._modified})}

    def get(self, name: str) -> dict[str, Any]:
        exists = name == self.ROOT or name in logging.root.manager.loggerDict
        if not exists:
            raise NotFoundError(f"Logger {name} not found.")
        with self._lock:
            return self._describe(name)

    @staticmethod
    def check_level(level: str) -> int:
        """The Python level of a Kafka level name; Kafka's 404 for a name log4j does not know."""
        python_level = _TO_PYTHON.get(str(level).upper())
        if python_level is None:
            # Kafka's LoggingResource answers 404 for a level log4j does not know.
            raise NotFoundError(f"invalid log level '{level}'.")
        return python_level

    def set(self, name: str, level: str) -> list[str]:
        """Set ``name`` and its descendants to ``level``; returns the loggers whose level
        this changed, as Kafka's ``Loggers.setLevel`` does (a logger already at ``level``
        is neither listed nor marked modified)."""
        python_level = self.check_level(level)
        now = int(time.time() * 1000)
        if name == self.ROOT:
            family = [self.ROOT] + [
                n
                for n, lg in list(logging.root.manager.loggerDict.items())
                if isinstance(lg, logging.Logger) and lg.level != logging.NOTSET
            ]
        else:
            logging.getLogger(name)  # created when missing, as log4j does
            family = [
                n
                for n, lg in list(logging.root.manager.loggerDict.items())
                if isinstance(lg, logging.Logger) and (n == name or n.startswith(name + "."))
            ]
        new_name = _kafka_name(python_level)
        with self._lock:
            before = {n: _kafka_name(self._logger(n).getEffectiveLevel()) for n in family}
            for n in family:
                self._logger(n).setLevel(python_level)
            changed = sorted(n for n in family if before[n] != new_name)
            for n in changed:
                self._modified[n] = now
        return changed
