"""The scripted REST session both distributed workers are put through, request by request.

Each :class:`Step` is one HTTP request sent to Apache Kafka Connect's Java worker and to
kconnect's, in the same order, with its answers compared. A step that changes state may
name a :class:`Settle`: a ``GET`` polled on each worker until it answers what the step
leads to (a rebalance, a restart, a flush), so the next compared request sees settled state
rather than whichever worker was quicker.

The two workers share one Kafka cluster and one file system, so what must not collide is
written with placeholders that each side fills in with its own value and that the
comparison puts back: :data:`DIR` (the folder of the side's FileStream files) and
:data:`PREFIX` (the side's topic and consumer-group names). Connector names are the same on
both sides: each worker has its own config topic, and sinks read through a consumer group
named with :data:`PREFIX`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DIR",
    "PREFIX",
    "SOURCE_LINES",
    "Raw",
    "Settle",
    "Step",
    "absent",
    "script",
    "state",
]

DIR = "@DIR@"
"""Stands for the side's own folder of FileStream files."""

PREFIX = "@P@"
"""Stands for the side's own prefix of topic and consumer-group names."""

SOURCE_LINES = ["alpha", "beta", "gamma", "delta", "epsilon"]
"""What the FileStream sources read: the same bytes on both sides, so offsets agree."""

SOURCE = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"
JSON = "application/json"


@dataclass(frozen=True)
class Raw:
    """A request body sent as these bytes (not JSON-encoded), with this media type."""

    data: bytes
    content_type: str | None = JSON


@dataclass(frozen=True)
class Settle:
    """What a worker must answer before the script goes on: ``GET path`` until ``ok``.

    ``stable_s``: the answer must hold that long, for changes a worker makes after it has
    answered the request (a restart that a 202 only schedules).
    """

    path: str
    ok: Callable[[int, Any], bool]
    describe: str
    stable_s: float = 0.0


@dataclass(frozen=True)
class Step:
    """One request of the script and how its answers are compared.

    ``component`` groups steps in the report. ``unordered``: the body is a JSON array whose
    order Kafka does not define (a Java ``Set`` or ``HashMap`` keys), compared as a set.
    """

    component: str
    method: str
    path: str
    body: Any = None
    raw: Raw | None = None
    settle: Sequence[Settle] = ()
    unordered: bool = False
    note: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def _tasks(body: Any) -> list[Any]:
    tasks = body.get("tasks") if isinstance(body, dict) else None
    return tasks if isinstance(tasks, list) else []


def state(name: str, connector: str, tasks: int | None = None, *, stable_s: float = 0.0) -> Settle:
    """The connector's status shows ``connector`` and, unless ``tasks`` is None, that many
    tasks in the matching state (none for STOPPED).

    Read from ``GET /connectors?expand=status``, which reaches a connector of any name
    without spelling it in a path.
    """
    task_state = {"RUNNING": "RUNNING", "PAUSED": "PAUSED"}.get(connector)
    want_tasks = 0 if connector == "STOPPED" else tasks

    def ok(status: int, body: Any) -> bool:
        if status != 200 or not isinstance(body, dict):
            return False
        found = body.get(name, {}).get("status", {})
        if found.get("connector", {}).get("state") != connector:
            return False
        listed = _tasks(found)
        if any(t.get("state") != task_state for t in listed):
            return False
        return want_tasks is None or len(listed) == want_tasks

    shown = "" if want_tasks is None else f" with {want_tasks} task(s)"
    return Settle("/connectors?expand=status", ok, f"{name} {connector}{shown}", stable_s)


def absent(name: str) -> Settle:
    """The connector is gone from the list."""

    def ok(status: int, body: Any) -> bool:
        return status == 200 and isinstance(body, list) and name not in body

    return Settle("/connectors", ok, f"{name} deleted")


def task_config(name: str, key: str, value: str) -> Settle:
    """Every task of the connector carries ``key=value``: a config change is in the tasks'
    configs, which a worker writes after it has answered (the status may show the old
    tasks RUNNING meanwhile)."""

    def ok(status: int, body: Any) -> bool:
        return (
            status == 200
            and isinstance(body, list)
            and bool(body)
            and all(t.get("config", {}).get(key) == value for t in body)
        )

    return Settle(f"/connectors/{_seg(name)}/tasks", ok, f"{name}'s tasks have {key}={value}")


def _topics_known(name: str) -> Settle:
    def ok(status: int, body: Any) -> bool:
        return status == 200 and bool(body.get(name, {}).get("topics"))

    return Settle(f"/connectors/{_seg(name)}/topics", ok, f"{name} has active topics")


def _offsets(name: str, want: Callable[[list[Any]], bool], describe: str) -> Settle:
    def ok(status: int, body: Any) -> bool:
        return status == 200 and want(body.get("offsets", []))

    return Settle(f"/connectors/{_seg(name)}/offsets", ok, describe)


def _source_done(name: str) -> Settle:
    size = sum(len(line) + 1 for line in SOURCE_LINES)
    return _offsets(
        name,
        lambda o: [x.get("offset", {}).get("position") for x in o] == [size],
        f"{name} committed the whole file",
    )


def _sink_done(name: str, records: int) -> Settle:
    return _offsets(
        name,
        lambda o: sum(x.get("offset", {}).get("kafka_offset", 0) for x in o) == records,
        f"{name} committed {records} records",
    )


def _seg(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")


def _source(file: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": SOURCE,
        "tasks.max": "1",
        "file": f"{DIR}/{file}",
        "topic": f"{PREFIX}-lines",
        **extra,
    }


def _sink(name: str, file: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": SINK,
        "tasks.max": "1",
        "file": f"{DIR}/{file}",
        "topics": f"{PREFIX}-lines",
        # Both workers' sinks of one name would share Kafka's default group connect-<name>.
        "consumer.override.group.id": f"{PREFIX}-{name}",
        **extra,
    }


def _per_connector(component: str, name: str, *, running: bool = True) -> list[Step]:
    """The read-only views of one connector."""
    seg = _seg(name)
    steps = [
        Step(component, "GET", f"/connectors/{seg}"),
        Step(component, "GET", f"/connectors/{seg}/config"),
        Step(component, "GET", f"/connectors/{seg}/status"),
        Step(component, "GET", f"/connectors/{seg}/tasks"),
        Step(component, "GET", f"/connectors/{seg}/topics"),
    ]
    if running:
        steps.append(Step(component, "GET", f"/connectors/{seg}/tasks/0/status"))
    return steps


def _validate(plugin: str, config: dict[str, str], note: str) -> Step:
    return Step(
        "connector-plugins: validate",
        "PUT",
        f"/connector-plugins/{plugin}/config/validate",
        body=config,
        note=note,
    )


def _plugins() -> list[Step]:
    c = "connector-plugins"
    steps = [
        Step(c, "GET", "/connector-plugins", unordered=True),
        Step(c, "GET", "/connector-plugins?connectorsOnly=false", unordered=True),
        Step(c, "GET", "/connector-plugins?connectorsOnly=true", unordered=True),
        Step(c, "GET", "/connector-plugins?connectorsOnly=FALSE", unordered=True),
        Step(c, "GET", "/connector-plugins/FileStreamSource/config"),
        Step(c, "GET", f"/connector-plugins/{SINK}/config"),
        Step(c, "GET", "/connector-plugins/FileStreamSinkConnector/config"),
        Step(c, "GET", "/connector-plugins/NoSuchConnector/config"),
        Step(c, "GET", "/connector-plugins/org.apache.kafka.connect.transforms.Filter/config"),
        Step(c, "GET", "/connector-plugins/org.apache.kafka.connect.json.JsonConverter/config"),
    ]
    source = {"connector.class": SOURCE, "name": "v", "file": "/tmp/x", "topic": "t"}
    sink = {"connector.class": SINK, "name": "v", "file": "/tmp/x", "topics": "t"}
    for plugin, good, alias in (
        ("FileStreamSourceConnector", source, "FileStreamSource"),
        ("FileStreamSinkConnector", sink, "FileStreamSink"),
    ):
        steps += [
            _validate(plugin, good, "a good config"),
            _validate(alias, {**good, "connector.class": alias}, "alias as class"),
            _validate(plugin, {**good, "tasks.max": "many"}, "tasks.max not a number"),
            _validate(plugin, {**good, "tasks.max": "0"}, "tasks.max below 1"),
            _validate(plugin, {k: v for k, v in good.items() if k != "name"}, "no name"),
            _validate(plugin, {**good, "key.converter": "no.such.Converter"}, "bad converter"),
            _validate(
                plugin,
                {**good, "transforms": "t1", "transforms.t1.type": "no.such.Transform"},
                "unknown transform",
            ),
            _validate(
                plugin,
                {
                    **good,
                    "transforms": "drop",
                    "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
                },
                "a good transform",
            ),
            _validate(plugin, {**good, "errors.tolerance": "some"}, "bad enum value"),
            _validate(
                plugin, {k: v for k, v in good.items() if k != "connector.class"}, "no class"
            ),
        ]
    steps += [
        _validate("FileStreamSourceConnector", {**source, "topic": ""}, "empty topic"),
        _validate("FileStreamSinkConnector", {**sink, "topics": ""}, "no topics"),
        _validate(
            "FileStreamSinkConnector",
            {**sink, "topics.regex": "t.*"},
            "topics and topics.regex both",
        ),
        _validate("FileStreamSinkConnector", {**sink, "batch.size": "-1"}, "bad batch.size"),
        _validate("NoSuchConnector", {"connector.class": "NoSuchConnector"}, "unknown plugin"),
        _validate("FileStreamSourceConnector", {}, "empty config"),
        Step(
            "connector-plugins: validate",
            "PUT",
            "/connector-plugins/FileStreamSourceConnector/config/validate",
            raw=Raw(b'{"connector.class": '),
            note="malformed JSON",
        ),
    ]
    return steps


def script() -> list[Step]:
    """The whole session, in order (at least 150 requests)."""
    steps: list[Step] = [
        Step("root", "GET", "/"),
        Step("root", "GET", "/connectors", unordered=True),
        Step("root", "GET", "/nope"),
        *_plugins(),
    ]

    c = "connectors: create"
    steps += [
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "src-run", "config": _source("src-run.txt")},
            settle=[state("src-run", "RUNNING", 1), _source_done("src-run")],
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "src-run", "config": _source("src-run.txt")},
            note="409: exists",
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={
                "name": "src-paused",
                "config": _source("src-paused.txt"),
                "initial_state": "PAUSED",
            },
            settle=[state("src-paused", "PAUSED")],
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={
                "name": "src-stopped",
                "config": _source("src-stopped.txt"),
                "initial_state": "STOPPED",
            },
            settle=[state("src-stopped", "STOPPED")],
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={
                "name": "sink",
                "config": _sink("sink", "sink.txt"),
                "initial_state": "RUNNING",
            },
            settle=[
                state("sink", "RUNNING", 1),
                _topics_known("sink"),
                _topics_known("src-run"),
                _sink_done("sink", len(SOURCE_LINES)),
            ],
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "bogus", "config": _source("x.txt"), "initial_state": "GONE"},
            note="unknown initial_state",
        ),
        Step(c, "POST", "/connectors", body={"name": "no-config"}, note="no config"),
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "no-class", "config": {"file": f"{DIR}/x.txt", "topic": "t"}},
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "bad-class", "config": {"connector.class": "no.such.Connector"}},
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "invalid", "config": _source("x.txt", **{"tasks.max": "x"})},
        ),
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "mismatch", "config": {**_source("x.txt"), "name": "other"}},
        ),
        Step(c, "POST", "/connectors", body={"config": _source("x.txt")}, note="no name"),
        Step(c, "POST", "/connectors", body={"name": "", "config": _source("x.txt")}),
        Step(c, "POST", "/connectors", body={"name": "   ", "config": _source("x.txt")}),
        Step(
            c,
            "POST",
            "/connectors",
            body={"name": "ctl\u0007char", "config": _source("x.txt")},
        ),
        Step(c, "POST", "/connectors", body=["not", "an", "object"]),
        Step(c, "POST", "/connectors", raw=Raw(b'{"name": "broken", "config": {'), note="bad JSON"),
        Step(c, "POST", "/connectors", raw=Raw(b""), note="empty body"),
        Step(
            c,
            "POST",
            "/connectors",
            raw=Raw(b'{"name": "text", "config": {}}', "text/plain"),
            note="wrong content type",
        ),
    ]

    c = "connectors: read"
    steps += [
        Step(c, "GET", "/connectors", unordered=True),
        Step(c, "GET", "/connectors?expand=status"),
        Step(c, "GET", "/connectors?expand=info"),
        Step(c, "GET", "/connectors?expand=status&expand=info"),
        Step(c, "GET", "/connectors?expand=nothing"),
        *_per_connector(c, "src-run"),
        *_per_connector(c, "src-paused"),
        *_per_connector(c, "src-stopped", running=False),
        *_per_connector(c, "sink"),
        Step(c, "GET", "/connectors/src-run/offsets"),
        Step(c, "GET", "/connectors/sink/offsets"),
        Step(c, "GET", "/connectors/src-stopped/offsets"),
    ]

    c = "connectors: config"
    steps += [
        Step(
            c,
            "PUT",
            "/connectors/src-run/config",
            body=_source("src-run.txt", **{"batch.size": "500"}),
            settle=[task_config("src-run", "batch.size", "500"), state("src-run", "RUNNING", 1)],
        ),
        Step(c, "GET", "/connectors/src-run/config"),
        Step(c, "GET", "/connectors/src-run/tasks"),
        Step(
            c,
            "PATCH",
            "/connectors/src-run/config",
            body={"batch.size": "200", "errors.log.enable": "true"},
            settle=[task_config("src-run", "batch.size", "200"), state("src-run", "RUNNING", 1)],
        ),
        Step(c, "GET", "/connectors/src-run/config"),
        Step(
            c,
            "PATCH",
            "/connectors/src-run/config",
            body={"errors.log.enable": None},
            settle=[state("src-run", "RUNNING", 1)],
            note="null removes a key",
        ),
        Step(c, "GET", "/connectors/src-run/config"),
        Step(c, "PATCH", "/connectors/src-run/config", body={"name": "other"}, note="renames"),
        Step(c, "PATCH", "/connectors/src-run/config", body={"tasks.max": "zero"}),
        Step(c, "PATCH", "/connectors/nope/config", body={"batch.size": "1"}),
        Step(c, "PATCH", "/connectors/src-run/config", raw=Raw(b"{oops"), note="bad JSON"),
        Step(
            c,
            "PUT",
            "/connectors/put-made/config",
            body=_source("put-made.txt"),
            settle=[state("put-made", "RUNNING", 1)],
            note="PUT creates",
        ),
        Step(c, "PUT", "/connectors/put-made/config", body=_source("put-made.txt")),
        Step(
            c,
            "PUT",
            "/connectors/put-made/config",
            body={**_source("put-made.txt"), "name": "else"},
        ),
        Step(c, "PUT", "/connectors/put-made/config", body={"connector.class": SOURCE}),
        Step(c, "PUT", "/connectors/put-made/config", raw=Raw(b"[1, 2"), note="bad JSON"),
        Step(
            c,
            "PUT",
            "/connectors/put-made/config",
            raw=Raw(b'{"file": "x"}', "application/xml"),
            note="wrong content type",
        ),
        Step(c, "PUT", "/connectors/put-made/config", body={"tasks.max": 1, "file": None}),
        Step(c, "GET", "/connectors/put-made/config"),
        Step(c, "GET", "/connectors/put-made"),
    ]

    c = "connectors: state"
    steps += [
        Step(c, "PUT", "/connectors/src-run/pause", settle=[state("src-run", "PAUSED", 1)]),
        Step(c, "GET", "/connectors/src-run/status"),
        Step(c, "GET", "/connectors/src-run/tasks/0/status"),
        Step(c, "PUT", "/connectors/src-run/pause", note="paused again"),
        Step(c, "PUT", "/connectors/src-run/resume", settle=[state("src-run", "RUNNING", 1)]),
        Step(c, "GET", "/connectors/src-run/status"),
        Step(c, "PUT", "/connectors/src-run/resume", note="running already"),
        Step(c, "PUT", "/connectors/src-paused/resume", settle=[state("src-paused", "RUNNING", 1)]),
        Step(c, "GET", "/connectors/src-paused/status"),
        Step(
            c, "PUT", "/connectors/src-stopped/resume", settle=[state("src-stopped", "RUNNING", 1)]
        ),
        Step(c, "GET", "/connectors/src-stopped/status"),
        Step(c, "GET", "/connectors/src-stopped/tasks"),
        Step(c, "PUT", "/connectors/src-stopped/pause", settle=[state("src-stopped", "PAUSED", 1)]),
        Step(c, "PUT", "/connectors/src-stopped/stop", settle=[state("src-stopped", "STOPPED")]),
        Step(c, "GET", "/connectors/src-stopped/status"),
        Step(c, "GET", "/connectors/src-stopped/tasks"),
        Step(c, "PUT", "/connectors/src-stopped/stop", note="stopped again"),
        Step(c, "PUT", "/connectors/nope/pause"),
        Step(c, "PUT", "/connectors/nope/resume"),
        Step(c, "PUT", "/connectors/nope/stop"),
    ]

    c = "connectors: restart"
    steps += [
        Step(c, "POST", "/connectors/src-run/restart", settle=[state("src-run", "RUNNING", 1)]),
        Step(
            c,
            "POST",
            "/connectors/src-run/restart?includeTasks=true",
            settle=[state("src-run", "RUNNING", 1, stable_s=1.5)],
        ),
        Step(c, "GET", "/connectors/src-run/status"),
        Step(
            c,
            "POST",
            "/connectors/src-run/restart?includeTasks=true&onlyFailed=true",
            settle=[state("src-run", "RUNNING", 1, stable_s=1.0)],
        ),
        Step(
            c,
            "POST",
            "/connectors/src-run/restart?onlyFailed=true",
            settle=[state("src-run", "RUNNING", 1, stable_s=1.0)],
        ),
        Step(
            c,
            "POST",
            "/connectors/src-run/restart?includeTasks=false&onlyFailed=false",
            settle=[state("src-run", "RUNNING", 1)],
        ),
        Step(
            c,
            "POST",
            "/connectors/src-stopped/restart?includeTasks=true",
            settle=[state("src-stopped", "STOPPED", stable_s=1.0)],
            note="a stopped connector",
        ),
        Step(
            c,
            "POST",
            "/connectors/src-run/tasks/0/restart",
            settle=[state("src-run", "RUNNING", 1)],
        ),
        Step(c, "POST", "/connectors/src-run/tasks/7/restart"),
        Step(c, "POST", "/connectors/src-run/tasks/abc/restart"),
        Step(c, "POST", "/connectors/nope/restart"),
        Step(c, "POST", "/connectors/nope/restart?includeTasks=true"),
        Step(c, "POST", "/connectors/nope/tasks/0/restart"),
        Step(c, "GET", "/connectors/src-run/tasks/7/status"),
        Step(c, "GET", "/connectors/src-run/tasks/-1/status"),
        Step(c, "GET", "/connectors/src-run/tasks/abc/status"),
        Step(c, "GET", "/connectors/src-run/status"),
    ]

    c = "connectors: topics"
    steps += [
        Step(c, "GET", "/connectors/src-run/topics"),
        Step(c, "GET", "/connectors/sink/topics"),
        Step(c, "PUT", "/connectors/src-run/topics/reset", note="running"),
        Step(c, "PUT", "/connectors/src-stopped/topics/reset"),
        Step(c, "GET", "/connectors/src-stopped/topics"),
        Step(c, "GET", "/connectors/nope/topics"),
        Step(c, "PUT", "/connectors/nope/topics/reset"),
    ]

    c = "connectors: offsets"
    src_partition = {"filename": f"{DIR}/src-run.txt"}
    sink_partition = {"kafka_topic": f"{PREFIX}-lines", "kafka_partition": 0}
    steps += [
        Step(c, "GET", "/connectors/src-run/offsets", note="running: allowed"),
        Step(
            c,
            "PATCH",
            "/connectors/src-run/offsets",
            body={"offsets": [{"partition": src_partition, "offset": {"position": 3}}]},
            note="running: refused",
        ),
        Step(c, "DELETE", "/connectors/src-run/offsets", note="running: refused"),
        Step(c, "PUT", "/connectors/src-run/stop", settle=[state("src-run", "STOPPED")]),
        Step(c, "GET", "/connectors/src-run/offsets"),
        Step(
            c,
            "PATCH",
            "/connectors/src-run/offsets",
            body={"offsets": [{"partition": src_partition, "offset": {"position": 6}}]},
        ),
        Step(c, "GET", "/connectors/src-run/offsets"),
        Step(
            c,
            "PATCH",
            "/connectors/src-run/offsets",
            body={"offsets": [{"partition": src_partition, "offset": {"position": "six"}}]},
            note="the connector refuses the offset",
        ),
        Step(
            c,
            "PATCH",
            "/connectors/src-run/offsets",
            body={"offsets": [{"partition": {"file": "x"}, "offset": {"position": 1}}]},
            note="the connector refuses the partition",
        ),
        Step(
            c,
            "PATCH",
            "/connectors/src-run/offsets",
            body={"offsets": [{"partition": {"filename": f"{DIR}/other.txt"}, "offset": None}]},
            note="a null offset",
        ),
        Step(c, "PATCH", "/connectors/src-run/offsets", body={"offsets": []}),
        Step(c, "PATCH", "/connectors/src-run/offsets", body={}),
        Step(c, "PATCH", "/connectors/src-run/offsets", raw=Raw(b'{"offsets": [}')),
        Step(c, "GET", "/connectors/src-run/offsets"),
        Step(c, "DELETE", "/connectors/src-run/offsets"),
        Step(c, "GET", "/connectors/src-run/offsets"),
        Step(c, "PUT", "/connectors/sink/stop", settle=[state("sink", "STOPPED")]),
        Step(c, "GET", "/connectors/sink/offsets"),
        Step(
            c,
            "PATCH",
            "/connectors/sink/offsets",
            body={"offsets": [{"partition": sink_partition, "offset": {"kafka_offset": 2}}]},
        ),
        Step(c, "GET", "/connectors/sink/offsets"),
        Step(
            c,
            "PATCH",
            "/connectors/sink/offsets",
            body={"offsets": [{"partition": sink_partition, "offset": {"kafka_offset": "two"}}]},
        ),
        Step(
            c,
            "PATCH",
            "/connectors/sink/offsets",
            body={"offsets": [{"partition": {"kafka_topic": "t"}, "offset": {"kafka_offset": 1}}]},
        ),
        Step(
            c,
            "PATCH",
            "/connectors/sink/offsets",
            body={"offsets": [{"partition": sink_partition, "offset": None}]},
            note="a null offset resets the partition",
        ),
        Step(c, "GET", "/connectors/sink/offsets"),
        Step(c, "DELETE", "/connectors/sink/offsets"),
        Step(c, "GET", "/connectors/sink/offsets"),
        Step(c, "GET", "/connectors/nope/offsets"),
        Step(c, "DELETE", "/connectors/nope/offsets"),
        Step(
            c,
            "PUT",
            "/connectors/src-run/resume",
            # The reset source reads its file again; the internal topics are compared once
            # both sides have committed that (a loaded machine may take a flush or two).
            settle=[state("src-run", "RUNNING", 1), _source_done("src-run")],
        ),
        Step(c, "PUT", "/connectors/sink/resume", settle=[state("sink", "RUNNING", 1)]),
    ]

    c = "admin/loggers"
    probe = "kconnect.compat.probe"
    steps += [
        Step(c, "GET", "/admin/loggers"),
        Step(c, "GET", "/admin/loggers/root"),
        Step(c, "GET", f"/admin/loggers/{probe}"),
        Step(c, "PUT", f"/admin/loggers/{probe}.child", body={"level": "DEBUG"}),
        Step(c, "PUT", f"/admin/loggers/{probe}", body={"level": "WARN"}),
        Step(c, "GET", f"/admin/loggers/{probe}"),
        Step(c, "GET", f"/admin/loggers/{probe}.child"),
        Step(c, "PUT", f"/admin/loggers/{probe}", body={"level": "LOUD"}),
        Step(c, "PUT", f"/admin/loggers/{probe}", body={}),
        Step(c, "PUT", f"/admin/loggers/{probe}", body={"level": "info"}),
        Step(c, "PUT", f"/admin/loggers/{probe}?scope=cluster", body={"level": "ERROR"}),
        Step(c, "PUT", f"/admin/loggers/{probe}?scope=galaxy", body={"level": "INFO"}),
        Step(c, "GET", "/admin/loggers/no.such.logger.anywhere"),
    ]

    c = "errors"
    steps += [
        Step(c, "GET", "/connectors/nope"),
        Step(c, "GET", "/connectors/nope/config"),
        Step(c, "GET", "/connectors/nope/status"),
        Step(c, "GET", "/connectors/nope/tasks"),
        Step(c, "GET", "/connectors/nope/tasks/0/status"),
        Step(c, "DELETE", "/connectors/nope"),
        Step(c, "DELETE", "/connectors"),
        Step(c, "PATCH", "/connectors/src-run/status"),
        Step(c, "POST", "/connectors/src-run/config", body={}),
        Step(c, "PUT", "/", body={}),
        Step(c, "GET", "/connectors/src-run/pause"),
        Step(c, "DELETE", "/connector-plugins"),
        Step(c, "POST", "/connectors/src-run/status"),
        Step(c, "GET", "/connectors/src-run/nothing-here"),
    ]

    c = "connectors: delete"
    for name in ("src-run", "src-paused", "src-stopped", "sink", "put-made"):
        steps.append(Step(c, "DELETE", f"/connectors/{name}", settle=[absent(name)]))
    steps += [
        Step(c, "DELETE", "/connectors/src-run", note="gone already"),
        Step(c, "GET", "/connectors/src-run"),
        Step(c, "GET", "/connectors", unordered=True),
        Step(c, "GET", "/connectors?expand=status"),
    ]
    c = "odd names"
    for name in (
        "with space",
        "ünïcødé-名前",
        "a/b",
        "dots.and-dashes_",
        "x" * 250,
    ):
        seg = _seg(name)
        short = name if len(name) < 30 else f"{name[:5]}...({len(name)})"
        steps += [
            Step(
                c,
                "POST",
                "/connectors",
                body={"name": name, "config": _source("odd.txt")},
                settle=[state(name, "RUNNING", 1)],
                note=short,
            ),
            Step(c, "GET", f"/connectors/{seg}", note=short),
            Step(c, "GET", f"/connectors/{seg}/status", note=short),
            Step(c, "GET", f"/connectors/{seg}/tasks", note=short),
        ]
    steps += [Step(c, "GET", "/connectors", unordered=True)]
    for name in ("with space", "ünïcødé-名前", "a/b", "dots.and-dashes_", "x" * 250):
        steps.append(
            Step(c, "DELETE", f"/connectors/{_seg(name)}", settle=[absent(name)], note=name[:20])
        )

    return steps
