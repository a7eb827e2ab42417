"""Where the control plane keeps what it decides: connector configs, task configs, target
states and statuses. Standalone keeps them in memory; distributed writes them to Kafka."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from kconnect_sdk import ConnectError

from kconnect_runtime.status import Status, TargetState

__all__ = [
    "BadRequestError",
    "ControlStore",
    "ForbiddenError",
    "MemoryControlStore",
    "connector_status_key",
    "task_status_key",
]


def connector_status_key(name: str) -> str:
    """Kafka's status key of a connector: ``status-connector-<name>``."""
    return f"status-connector-{name}"


def task_status_key(name: str, index: int) -> str:
    """Kafka's status key of a task: ``status-task-<name>-<index>``."""
    return f"status-task-{name}-{index}"


class BadRequestError(ConnectError):
    """A request the worker understood but cannot carry out in the current state (HTTP 400)."""


class ForbiddenError(ConnectError):
    """A request the worker's configuration does not allow (HTTP 403)."""


class ControlStore(Protocol):
    """Receives every change the worker makes, so another process can recover it."""

    def connector_config(self, name: str, config: Mapping[str, str] | None) -> None:
        """Store a connector's raw config (placeholders intact); None deletes the connector."""

    def task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        """Store a connector's task configs (placeholders intact) and commit them."""

    def target_state(self, name: str, state: TargetState) -> None:
        """Store the state an operator asked for."""

    def status(self, key: str, status: Status | None) -> None:
        """Store a connector's or task's status; None deletes it."""


class MemoryControlStore:
    """Standalone: the worker's own objects are the store; nothing outlives the process."""

    def connector_config(self, name: str, config: Mapping[str, str] | None) -> None:
        pass

    def task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        pass

    def target_state(self, name: str, state: TargetState) -> None:
        pass

    def status(self, key: str, status: Status | None) -> None:
        pass
