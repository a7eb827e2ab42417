"""The leader's assignment of connectors to workers: balanced, incremental, delayed.

A pure function, as Kafka's ``IncrementalCooperativeAssignor``: what stays on a live worker
stays; what a departed worker ran is held for it until ``scheduled.rebalance.max.delay.ms``
has passed since it left (a restarted worker gets its connectors back and nothing else
moves); new and freed connectors go to the least loaded workers; and when a worker joins,
connectors move to it in two steps, revoked in one generation and assigned in a later one
only once the worker that ran them has applied the revocation (stopped them) or left.

:func:`plan_assignment` balances units of any weight; :func:`plan_connectors_and_tasks`
is what the herder uses, as Kafka: connectors and tasks are separate units, each weighing
one, balanced separately (every worker gets about as many connectors as the others, and
about as many tasks), so the tasks of one connector spread over the workers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = [
    "Plan",
    "is_task",
    "plan_assignment",
    "plan_connectors_and_tasks",
    "task_unit",
    "unit_label",
    "unit_task",
]

_SEP = "\x1f"  # a control character: never part of a connector name (names refuse them)


def task_unit(connector: str, task: int) -> str:
    """The assignment unit of task ``task`` of ``connector`` (a connector's unit is its name)."""
    return f"{connector}{_SEP}{task}"


def is_task(unit: str) -> bool:
    return _SEP in unit


def unit_task(unit: str) -> tuple[str, int]:
    """(connector, task index) of a task unit."""
    connector, _, index = unit.rpartition(_SEP)
    return connector, int(index)


def unit_label(unit: str) -> str:
    """How logs name a unit: ``connector`` or Kafka's ``connector-task``."""
    if is_task(unit):
        connector, index = unit_task(unit)
        return f"{connector}-{index}"
    return unit


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


def plan_connectors_and_tasks(
    *,
    generation: int,
    units: Sequence[str],
    members: Sequence[str],
    previous: Mapping[str, str],
    revoking: Mapping[str, tuple[str, int]],
    applied: Mapping[str, int],
    held_for: Sequence[str],
    eager: bool = False,
    previous_members: Sequence[str] = (),
) -> Plan:
    """The assignment of connectors and tasks (``units``, in creation order), as Kafka's.

    Connectors and tasks are balanced separately, each unit weighing one. With ``eager``
    (``connect.protocol=eager``), a change of the group or of its units revokes everything
    from every worker first (each stops all it runs), and the next generations assign the
    units afresh once every worker has stopped them; held units do not wait for a departed
    worker (the eager protocol has no scheduled delay).
    """
    if eager:
        alive = set(members)
        changed = (
            set(units) != set(previous) | set(revoking)
            or alive != set(previous_members)
            or any(w not in alive for w in previous.values())
        )
        if changed and previous:
            out = Plan()
            for unit in units:
                if unit in revoking:
                    out.revoking[unit] = revoking[unit]
                elif previous.get(unit) in alive:
                    out.revoking[unit] = (previous[unit], generation)
            return out
        held_for = []
    out = Plan()
    for tasks in (False, True):
        part = [u for u in units if is_task(u) is tasks]
        plan = plan_assignment(
            generation=generation,
            connectors=dict.fromkeys(part, 1),
            members=members,
            previous={u: w for u, w in previous.items() if is_task(u) is tasks},
            revoking={u: r for u, r in revoking.items() if is_task(u) is tasks},
            applied=applied,
            held_for=held_for,
        )
        out.assignment.update(plan.assignment)
        out.revoking.update(plan.revoking)
        out.held.update(plan.held)
    return out
