"""Group membership of distributed workers, through Kafka's own group coordinator.

Every worker of a ``group.id`` runs one consumer in that consumer group, subscribed to the
members topic (``<config.storage.topic>.members``, :data:`MEMBER_SLOTS` partitions, never
read). The coordinator does what Kafka Connect's ``WorkerGroupMember`` relies on: it admits
members, expires one whose heartbeats stop for ``session.timeout.ms``, and rebalances. The
round-robin assignor gives every member at least one partition while there are no more
members than partitions; the member holding partition 0 is the leader. The assignor orders
members by member id, which the coordinator begins with the client id, so the client id
begins with the time this worker first joined: the longest-standing member keeps leading
when others join, as the group leader of Kafka's own protocol does, instead of leadership
moving to whichever worker id sorts first.

Each worker then announces the partitions it holds in the config topic (see
:func:`live_members`), so the leader learns who the members are: the coordinator's own
member list is not exposed by every broker (Tansu answers DescribeGroups without members).

A worker's *lease* is renewed while its consumer reports the group coordinator connection
up (librdkafka statistics); it runs tasks only while the lease is valid, so a worker paused
(GC, SIGSTOP) or cut off from the brokers stops its tasks before the coordinator expires it
and another worker is given them.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from confluent_kafka import KafkaError

__all__ = ["MEMBER_SLOTS", "GroupMembership", "live_members"]

log = logging.getLogger("kconnect.distributed")

MEMBER_SLOTS = 32
"""Partitions of the members topic: the largest number of workers one group can use."""

_STATS_INTERVAL_MS = 250


_REFUSED_JOINS: dict[int, str] = {
    KafkaError.INVALID_SESSION_TIMEOUT: (
        "session.timeout.ms must lie within the brokers' group.min.session.timeout.ms and "
        "group.max.session.timeout.ms (6000 and 1800000 by default)"
    ),
    KafkaError.GROUP_AUTHORIZATION_FAILED: (
        "the worker's principal may not use group.id: grant it READ on the group"
    ),
}


class GroupMembership:
    """This worker's membership of the group: joins, leaves, leadership and lease.

    ``on_assigned(partitions)`` is called (from the membership thread) after every rebalance
    with the member-topic partitions this worker holds; ``on_lost()`` when the coordinator
    dropped this worker (its session expired).
    """

    def __init__(
        self,
        client_config: Mapping[str, Any],
        *,
        group_id: str,
        topic: str,
        worker_id: str,
        session_timeout_ms: int,
        heartbeat_interval_ms: int,
        rebalance_timeout_ms: int,
        on_assigned: Callable[[list[int]], None],
        on_lost: Callable[[], None],
    ) -> None:
        self.client_config = dict(client_config)
        self.group_id = group_id
        self.topic = topic
        self.worker_id = worker_id
        self.session_timeout_ms = session_timeout_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        # Renewals come every statistics interval; stop well before the coordinator expires
        # this member (session timeout after its last heartbeat), so that the next owner of
        # a task never starts it while it still runs here.
        self.lease_s = max(session_timeout_ms / 2000, 3 * _STATS_INTERVAL_MS / 1000)
        self._on_assigned = on_assigned
        self._on_lost = on_lost
        self._consumer: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._renewed = 0.0  # monotonic time of the last proof of membership
        self._reinstated = False
        self.partitions: list[int] = []
        self.rebalancing = True
        self.refusal: str | None = None  # why the broker will not let this worker join
        self.client_id = worker_id  # until it joins (see start)

    def start(self) -> None:
        from confluent_kafka import Consumer

        # Zero-padded milliseconds, so that the ids of members sort in the order they joined.
        self.client_id = f"{int(time.time() * 1000):015d}-{self.worker_id}"
        self._consumer = Consumer(
            {
                **self.client_config,
                "group.id": self.group_id,
                "client.id": self.client_id,
                "session.timeout.ms": self.session_timeout_ms,
                "heartbeat.interval.ms": self.heartbeat_interval_ms,
                # How long the group waits for members to rejoin during a rebalance.
                "max.poll.interval.ms": max(self.rebalance_timeout_ms, self.session_timeout_ms),
                "partition.assignment.strategy": "roundrobin",
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "statistics.interval.ms": _STATS_INTERVAL_MS,
                "stats_cb": self._on_stats,
            }
        )
        self._consumer.subscribe(
            [self.topic], on_assign=self._assigned, on_revoke=self._revoked, on_lost=self._lost
        )
        self._thread = threading.Thread(target=self._run, name="group-membership", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                message = self._consumer.poll(0.1)
            except Exception:  # a poll error must not end membership; librdkafka retries
                log.exception("group membership: poll failed")
                time.sleep(0.5)
                continue
            error = message.error() if message is not None else None
            if error is not None and self.refusal is None and error.code() in _REFUSED_JOINS:
                # librdkafka would ask again for ever; the broker answers the same until a
                # setting changes. Kafka's worker fails on it: the herder stops the worker.
                self.refusal = (
                    f"group {self.group_id}: the broker refuses this worker's membership: "
                    f"{error.str()}; {_REFUSED_JOINS[error.code()]}"
                )
                log.error("%s", self.refusal)

    def _on_stats(self, raw: str) -> None:
        try:
            group = json.loads(raw).get("cgrp") or {}
        except ValueError:
            return
        if group.get("state") != "up":
            return
        now = time.monotonic()
        if self._renewed and now - self._renewed >= self.lease_s and not self._reinstated:
            # The lease lapsed (this process was paused, or starved): librdkafka may still
            # say "up" before it learns the session expired. Renew only once the herder has
            # stopped everything this worker ran (``reinstate``).
            return
        self._reinstated = False
        self._renewed = now

    def _assigned(self, consumer: Any, partitions: Sequence[Any]) -> None:
        consumer.assign(partitions)
        if partitions:
            consumer.pause(partitions)  # the topic is only a set of slots: never fetched
        self.partitions = sorted(p.partition for p in partitions)
        self.rebalancing = False
        self._renewed = time.monotonic()
        log.info(
            "group %s: joined with member-topic partitions %s%s",
            self.group_id,
            self.partitions,
            " (leader)" if self.is_leader else "",
        )
        self._on_assigned(list(self.partitions))

    def _revoked(self, consumer: Any, partitions: Sequence[Any]) -> None:
        self.rebalancing = True
        self.partitions = []
        consumer.unassign()

    def _lost(self, consumer: Any, partitions: Sequence[Any]) -> None:
        log.warning(
            "group %s: this worker's session expired (no heartbeat for session.timeout.ms=%d); "
            "stopping its tasks until it has rejoined",
            self.group_id,
            self.session_timeout_ms,
        )
        self.rebalancing = True
        self.partitions = []
        self._renewed = 0.0
        self._on_lost()

    @property
    def is_leader(self) -> bool:
        return not self.rebalancing and 0 in self.partitions

    def lease_valid(self) -> bool:
        """Whether this worker may run tasks: it has recently proven its membership."""
        return self._renewed > 0 and time.monotonic() - self._renewed < self.lease_s

    def reinstate(self) -> None:
        """After a lapsed lease, once every task here is stopped: let renewals resume."""
        self._reinstated = True

    def member_id(self) -> str:
        if self._consumer is None:
            return ""
        return str(self._consumer.memberid() or "")

    def close(self) -> None:
        """Leave the group at once (the others rebalance without waiting for a timeout)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self._consumer is not None:
            try:
                self._consumer.close()
            except Exception:
                log.exception("group membership: close failed")
            self._consumer = None


def live_members(
    announcements: Sequence[tuple[str, Mapping[str, Any]]], slots: int = MEMBER_SLOTS
) -> dict[str, dict[str, Any]] | None:
    """The group's members after the latest rebalance, from the workers' announcements.

    ``announcements`` are (worker id, {"partitions": [...], ...}) in the order they were
    written to the config topic. After a rebalance every member announces the member-topic
    partitions it now holds; those of the newest generation do not overlap and cover every
    partition. Taken newest first, an announcement that overlaps one already taken is stale
    (its partitions moved on), and a worker counts once. Returns None while the newest
    announcements do not cover every partition yet (a rebalance is still being announced).
    """
    taken: dict[str, dict[str, Any]] = {}
    covered: set[int] = set()
    for worker_id, announcement in reversed(announcements):
        if worker_id in taken:
            continue
        partitions = set(int(p) for p in announcement.get("partitions", ()))
        if not partitions or partitions & covered:
            continue
        taken[worker_id] = dict(announcement)
        covered |= partitions
        if len(covered) >= slots:
            return taken
    return None
