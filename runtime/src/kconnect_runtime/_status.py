"""Connector and task states, as Kafka Connect reports them."""

from __future__ import annotations

import threading
import traceback
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

__all__ = ["ConnectorTaskId", "State", "Status"]


class State(StrEnum):
    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    DESTROYED = "DESTROYED"


class ConnectorTaskId(NamedTuple):
    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"


@dataclass
class Status:
    """The state of a connector or task, with the trace of the error that failed it."""

    state: State = State.UNASSIGNED
    trace: str | None = None
    worker_id: str = ""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def set(self, state: State, error: BaseException | None = None) -> None:
        with self._lock:
            # A failure stays visible until the connector or task is restarted.
            if (
                self.state is State.FAILED
                and error is None
                and state not in (State.FAILED, State.UNASSIGNED, State.RESTARTING, State.DESTROYED)
            ):
                return
            self.state = state
            self.trace = "".join(traceback.format_exception(error)) if error is not None else None

    def to_rest(self) -> dict[str, str]:
        out = {"state": self.state.value, "worker_id": self.worker_id}
        if self.trace:
            out["trace"] = self.trace
        return out
