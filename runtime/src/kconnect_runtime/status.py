"""Connector and task states, as Kafka Connect reports them."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

__all__ = ["ConnectorTaskId", "State", "Status", "TargetState", "format_trace"]


class State(StrEnum):
    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    DESTROYED = "DESTROYED"


class TargetState(StrEnum):
    """What an operator asked a connector to be (Kafka's ``TargetState``)."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


class ConnectorTaskId(NamedTuple):
    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"


def format_trace(error: BaseException) -> str:
    """A failure's trace for operators: the exception and its message first, as a Java
    stack trace starts (``kconnect status``, the console and Kafka's tools show a trace's
    first line), then Python's traceback."""
    cause = "".join(traceback.format_exception_only(error)).rstrip("\n")
    return cause + "\n" + "".join(traceback.format_exception(error))


@dataclass
class Status:
    """The state of a connector or task, with the trace of the error that failed it.

    ``listener``, when set, is called (outside the lock) after every change, with the status;
    the worker uses it to apply pauses, persist statuses and schedule automatic restarts.
    """

    state: State = State.UNASSIGNED
    trace: str | None = None
    worker_id: str = ""
    generation: int = 0
    # The plugin's version (KIP-891), written into status records as Kafka 4.1 does; a
    # status that is not the plugin's doing (UNASSIGNED) has none.
    version: str | None = None
    listener: Callable[[Status], None] | None = field(default=None, repr=False, compare=False)
    # kconnect only: {"done": rows, "total": estimate or None} of long work.
    progress: dict[str, int | None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def set(self, state: State, error: BaseException | None = None) -> None:
        # Formatted before taking the lock: readers never see FAILED without its trace.
        trace = format_trace(error) if error is not None else None
        with self._lock:
            # A failure stays visible until the connector or task is restarted or stopped.
            if (
                self.state is State.FAILED
                and error is None
                and state
                not in (
                    State.FAILED,
                    State.UNASSIGNED,
                    State.RESTARTING,
                    State.DESTROYED,
                    State.STOPPED,
                )
            ):
                return
            self.state = state
            self.trace = trace
            listener = self.listener
        if listener is not None:
            listener(self)

    def to_rest(self) -> dict[str, Any]:
        with self._lock:
            out: dict[str, Any] = {"state": self.state.value, "worker_id": self.worker_id}
            if self.trace:
                out["trace"] = self.trace
            if self.progress is not None:
                out["progress"] = dict(self.progress)  # kconnect only
        return out
