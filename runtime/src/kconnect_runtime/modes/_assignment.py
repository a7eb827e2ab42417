"""The leader's assignment of connectors to workers: balanced, incremental, delayed.

A pure function, as Kafka's ``IncrementalCooperativeAssignor``: what stays on a live worker
stays; what a departed worker ran is held for it until ``scheduled.rebalance.max.delay.ms``
has passed since it left (a restarted worker gets its connectors back and nothing else
moves); new and freed connectors go to the least loaded workers; and when a worker joins,
connectors move to it in two steps, revoked in one generation and assigned in a later one
only once the worker that ran them has applied the revocation (stopped them) or left.

The unit is a connector with its tasks, weighed as ``1 + number of tasks``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Plan", "plan_assignment"]


@dataclass
class Plan:
    """An assignment to publish: connector -> worker, and connectors being revoked."""

    assignment: dict[str, str] = field(default_factory=dict)
    # connector -> (the worker stopping it, the generation that revoked it)
    revoking: dict[str, tuple[str, int]] = field(default_factory=dict)
    # connectors held for a departed worker (assigned to it, run by nobody) until it returns
    held: dict[str, str] = field(default_factory=dict)


def plan_assignment(
    *,
    generation: int,
    connectors: Mapping[str, int],
    members: Sequence[str],
    previous: Mapping[str, str],
    revoking: Mapping[str, tuple[str, int]],
    applied: Mapping[str, int],
    held_for: Sequence[str],
) -> Plan:
    """The assignment of ``generation``.

    Args:
        generation: the generation being planned (revocations are stamped with it).
        connectors: connector name -> weight (1 + its tasks), in creation order.
        members: the live workers.
        previous: the last published assignment.
        revoking: the last published revocations still in progress.
        applied: the last generation each worker has applied.
        held_for: departed workers whose connectors are still held for them.
    """
    alive = set(members)
    held_workers = set(held_for) - alive
    out = Plan()
    for name in connectors:
        if name in revoking:
            worker, revoked_in = revoking[name]
            if worker in alive and applied.get(worker, -1) < revoked_in:
                out.revoking[name] = (worker, revoked_in)  # still stopping there
                continue
        else:
            worker = previous.get(name, "")
            if worker in alive:
                out.assignment[name] = worker
                continue
            if worker in held_workers:
                out.assignment[name] = worker
                out.held[name] = worker
                continue
    if not alive:
        return out
    load = dict.fromkeys(sorted(alive), 0)
    for name, worker in out.assignment.items():
        if worker in load:
            load[worker] += connectors[name]
    free = [n for n in connectors if n not in out.assignment and n not in out.revoking]
    for name in sorted(free, key=lambda n: -connectors[n]):
        worker = min(load, key=lambda w: (load[w], w))
        out.assignment[name] = worker
        load[worker] += connectors[name]
    if out.revoking or out.held:
        return out  # balance once moves in progress are done and departed workers decided
    # Joined workers: move connectors from the most to the least loaded while it helps.
    while len(load) > 1:
        heavy = max(load, key=lambda w: (load[w], w))
        light = min(load, key=lambda w: (load[w], w))
        spread = load[heavy] - load[light]
        movable = [
            n for n, w in out.assignment.items() if w == heavy and 2 * connectors[n] <= spread
        ]
        if not movable:
            break
        name = max(movable, key=lambda n: connectors[n])
        del out.assignment[name]
        out.revoking[name] = (heavy, generation)
        load[heavy] -= connectors[name]
        load[light] += connectors[name]
    return out
