"""Connector configs refused at create and update as Apache Kafka Connect refuses them.

Cases from Kafka's ``ConnectorConfigTest``/``SourceConnectorConfigTest``: a transform's or
predicate's own ``config()`` (a range it declares) is enforced when a connector is created
or updated, not only by ``config/validate``; an abstract transform class is a 400 naming
what is wrong (with the concrete classes Kafka suggests), never a 500; ``negate`` without a
``predicate``; and the range of ``topic.creation.default.partitions`` and
``replication.factor``. The messages are Kafka's, in its ``Connector configuration is
invalid`` answer.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from kconnect_runtime import Standalone
from runtime_harness import wait_for, worker_props

pytestmark = pytest.mark.integration

PLUGINS = '''
from kconnect_sdk import ConfigDef, ConfigType, Importance, Predicate, Range, Transformation


class SizedSmt(Transformation):
    """A third-party transform whose one setting has a range."""

    def config(self):
        return ConfigDef().define(
            "size", ConfigType.INT, 10, Range.at_least(1), importance=Importance.HIGH,
            documentation="How many.",
        )

    def configure(self, props):
        self.size = int(props.get("size", 10))

    def apply(self, record):
        return record

    def close(self):
        pass


class HalfSmt(Transformation):
    """Abstract: apply() is missing."""

    def config(self):
        return ConfigDef()


class HalfPredicate(Predicate):
    """Abstract: test() is missing."""

    def config(self):
        return ConfigDef()
'''

MODULE = "kc_validation_gap_plugins"  # written to a temporary folder on sys.path
TAIL = "\nYou can also find the above list of errors at the endpoint " + (
    "`/connector-plugins/{connectorType}/config/validate`"
)


def _invalid(*errors: str) -> str:
    return (
        f"Connector configuration is invalid and contains the following {len(errors)} "
        "error(s):\n" + "".join(f"{e}\n" for e in errors) + TAIL.lstrip("\n")
    )


@pytest.fixture(scope="module")
def api(kafka: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    work = tmp_path_factory.mktemp("gaps")
    (work / f"{MODULE}.py").write_text(PLUGINS)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(work))
        app = Standalone(worker_props(work, kafka, listeners="http://127.0.0.1:0"))
        app.start()
        try:
            assert app.rest is not None
            with httpx.Client(base_url=app.rest.url, timeout=30) as client:
                yield client
        finally:
            app.stop()


def _source(api: httpx.Client, tmp_path: Path, **extra: str) -> dict[str, str]:
    path = tmp_path / "in.txt"
    path.write_text("")
    return {
        "connector.class": "FileStreamSource",
        "file": str(path),
        "topic": f"gaps-{uuid.uuid4().hex[:6]}",
        **extra,
    }


def _refused(api: httpx.Client, config: dict[str, str]) -> tuple[int, str, int, str]:
    """(status, Kafka's message) of a create, then of an update of a valid connector to
    ``config``; kconnect's messages name the connector first, which is checked here."""
    name = f"gap-{uuid.uuid4().hex[:6]}"
    created = api.post("/connectors", json={"name": name, "config": config})
    valid = {k: v for k, v in config.items() if not k.startswith(("transforms", "predicates"))}
    valid = {k: v for k, v in valid.items() if not k.startswith("topic.creation.")}
    assert api.put(f"/connectors/{name}-ok/config", json=valid).status_code == 201
    updated = api.put(f"/connectors/{name}-ok/config", json=config)
    api.delete(f"/connectors/{name}-ok")
    out: list[int | str] = []
    for response, named in ((created, name), (updated, f"{name}-ok")):
        message = response.json()["message"]
        assert message.startswith(f"connector '{named}': "), message
        out += [response.status_code, message.removeprefix(f"connector '{named}': ")]
    return (int(out[0]), str(out[1]), int(out[2]), str(out[3]))


def test_a_transforms_own_range_is_enforced_at_create_and_update(
    api: httpx.Client, tmp_path: Path
) -> None:
    module = MODULE
    config = _source(
        api,
        tmp_path,
        transforms="sized",
        **{"transforms.sized.type": f"{module}:SizedSmt", "transforms.sized.size": "0"},
    )
    expected = _invalid(
        "Invalid value 0 for configuration transforms.sized.size: Value must be at least 1"
    )
    assert _refused(api, config) == (400, expected, 400, expected)
    accepted = api.post(
        "/connectors",
        json={
            "name": f"sized-{uuid.uuid4().hex[:6]}",
            "config": {**config, "transforms.sized.size": "3"},
        },
    )
    assert accepted.status_code == 201, accepted.text


def test_abstract_transform_and_predicate_classes_are_a_400(
    api: httpx.Client, tmp_path: Path
) -> None:
    module = MODULE
    abstract = "This class is abstract and cannot be created."
    half = _source(
        api, tmp_path, transforms="half", **{"transforms.half.type": f"{module}:HalfSmt"}
    )
    assert _refused(api, half)[:2] == (400, _invalid(abstract))

    java_base = _source(
        api,
        tmp_path,
        transforms="insert",
        **{"transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField"},
    )
    assert _refused(api, java_base)[:2] == (
        400,
        _invalid(
            f"{abstract} Did you mean org.apache.kafka.connect.transforms.InsertField$Key, "
            "org.apache.kafka.connect.transforms.InsertField$Value?"
        ),
    )

    predicate = _source(
        api,
        tmp_path,
        predicates="half",
        **{"predicates.half.type": f"{module}:HalfPredicate"},
    )
    assert _refused(api, predicate)[:2] == (400, _invalid(abstract))


def test_negate_without_a_predicate_is_refused_with_kafkas_message(
    api: httpx.Client, tmp_path: Path
) -> None:
    config = _source(
        api,
        tmp_path,
        transforms="drop",
        **{
            "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.negate": "true",
        },
    )
    expected = _invalid(
        "Config 'transforms.drop.negate' was provided but there is no config "
        "'transforms.drop.predicate' defining a predicate to be negated."
    )
    assert _refused(api, config) == (400, expected, 400, expected)


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        (
            "partitions",
            "0",
            "Number of partitions must be positive, or -1 to use the broker's default",
        ),
        (
            "partitions",
            "-2",
            "Number of partitions must be positive, or -1 to use the broker's default",
        ),
        (
            "replication.factor",
            "-99",
            "Replication factor must be positive and not larger than the number of brokers in "
            "the Kafka cluster, or -1 to use the broker's default",
        ),
    ],
)
def test_topic_creation_defaults_are_range_checked(
    api: httpx.Client, tmp_path: Path, key: str, value: str, reason: str
) -> None:
    settings = {
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        f"topic.creation.default.{key}": value,
    }
    config = _source(api, tmp_path, **settings)
    expected = _invalid(
        f"Invalid value {value} for configuration topic.creation.default.{key}: {reason}"
    )
    assert _refused(api, config) == (400, expected, 400, expected)
    broker_default = {**config, "topic.creation.default.partitions": "-1"}
    broker_default["topic.creation.default.replication.factor"] = "-1"
    created = api.post(
        "/connectors", json={"name": f"tc-{uuid.uuid4().hex[:6]}", "config": broker_default}
    )
    assert created.status_code == 201, created.text


def _topic(kafka: str, topic: str) -> tuple[int, dict[str, str]]:
    """(partitions, configs set on the topic itself) of a topic, or (0, {}) while absent."""
    from confluent_kafka.admin import AdminClient, ConfigResource, ConfigSource

    admin = AdminClient({"bootstrap.servers": kafka})
    # Every topic's metadata: asking for this one by name would have the broker create it.
    found = admin.list_topics(timeout=10).topics.get(topic)
    if found is None or found.error is not None:
        return 0, {}
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    entries = admin.describe_configs([resource])[resource].result(timeout=10)
    own = {
        k: e.value
        for k, e in entries.items()
        if e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value
    }
    return len(found.partitions), own


def test_topic_creation_groups_settings_reach_the_created_topics(
    api: httpx.Client, kafka: str, tmp_path: Path
) -> None:
    run = uuid.uuid4().hex[:6]
    groups = {
        "topic.creation.groups": "compacted",
        "topic.creation.compacted.include": f"{run}-state.*",
        "topic.creation.compacted.partitions": "2",
        "topic.creation.compacted.cleanup.policy": "compact",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.retention.ms": "3600000",
    }
    bad = {**_source(api, tmp_path, **groups), "topic.creation.compacted.partitions": "0"}
    status, message, _, _ = _refused(api, bad)
    assert (status, message) == (
        400,
        _invalid(
            "Invalid value 0 for configuration topic.creation.compacted.partitions: Number of "
            "partitions must be positive, or -1 to use the broker's default"
        ),
    )
    for topic in (f"{run}-state-1", f"{run}-events"):
        path = tmp_path / f"{topic}.txt"
        path.write_text("one line\n")
        config = {**_source(api, tmp_path, **groups), "file": str(path), "topic": topic}
        created = api.post("/connectors", json={"name": topic, "config": config})
        assert created.status_code == 201, created.text
    wait_for(lambda: _topic(kafka, f"{run}-state-1")[0] > 0, 30, "the compacted topic")
    wait_for(lambda: _topic(kafka, f"{run}-events")[0] > 0, 30, "the default group's topic")
    # (Its task then fails, as on Kafka: a compacted topic refuses the file lines' null keys.)
    assert _topic(kafka, f"{run}-state-1") == (2, {"cleanup.policy": "compact"})
    assert _topic(kafka, f"{run}-events") == (1, {"retention.ms": "3600000"})


def test_a_predicate_referenced_but_not_listed_is_taken_from_its_own_keys(
    api: httpx.Client, tmp_path: Path
) -> None:
    # Kafka's ConnectorConfigTest.missingPredicateAliasProperty: listing it is "technically
    # not needed" when its keys are there.
    config = _source(
        api,
        tmp_path,
        transforms="drop",
        **{
            "transforms.drop.type": "org.apache.kafka.connect.transforms.Filter",
            "transforms.drop.predicate": "mine",
            "predicates.mine.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
            "predicates.mine.pattern": ".*",
        },
    )
    name = f"unlisted-{uuid.uuid4().hex[:6]}"
    created = api.post("/connectors", json={"name": name, "config": config})
    assert created.status_code == 201, created.text

    def running() -> bool:
        body = api.get(f"/connectors/{name}/status").json()
        return [t["state"] for t in body.get("tasks", [])] == ["RUNNING"]

    wait_for(running, 30, "the task RUNNING with its predicate")
    # Neither listed nor configured: nothing to build it from.
    del config["predicates.mine.type"]
    status, message, _, _ = _refused(api, config)
    assert status == 400 and "transforms.drop.predicate" in message, message
