"""Issue 21: secrets never leave the worker.

A distinct marker is planted in every kind of secret (a literal PASSWORD, client overrides at
every prefix, the worker's own client passwords, values resolved by a config provider in
valid and invalid configs, a PASSWORD that merely looks like a placeholder, a converter's and
a transform's secret), then every REST endpoint is driven against a running worker and the
whole log is captured at DEBUG: no marker may appear anywhere. Editing a config read back
with ``[hidden]`` values keeps every secret working.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.logcontext import scrub_secrets
from kconnect_sdk import (
    ConfigDef,
    ConfigError,
    ConfigType,
    ConfigValue,
    ConnectError,
    Importance,
    SourceConnector,
    SourceRecord,
    SourceTask,
    Task,
    Transformation,
)
from runtime_harness import wait_for, worker_props

pytestmark = pytest.mark.integration

log = logging.getLogger("kconnect.test.secrets")


# -- test plugins (importable as test_secrets:…; they report what they saw to seen.file) --
def _report(props: Mapping[str, Any], who: str) -> None:
    with open(props["seen.file"], "a", encoding="utf-8") as out:
        out.write(json.dumps({"who": who, "props": dict(props)}) + "\n")


class SecretTask(SourceTask):
    """Reports its config; fails at start when ``fail.on.start`` is true."""

    def start(self, props: Mapping[str, str]) -> None:
        # A careless plugin: its whole config at DEBUG, and in its exception.
        log.debug("task starting with %s", dict(props))
        _report(props, "task")
        if props.get("fail.on.start") == "true":
            raise ConnectError(f"cannot log in to the database with config {dict(props)}")

    def poll(self) -> list[SourceRecord] | None:
        time.sleep(0.05)
        return None

    def stop(self) -> None:
        pass


class SecretSource(SourceConnector):
    """Declares PASSWORD keys; hands its whole config to one task."""

    def start(self, props: Mapping[str, str]) -> None:
        log.info("connector starting with %s", dict(props))
        self._props = dict(props)

    def task_class(self) -> type[Task]:
        return SecretTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]

    def stop(self) -> None:
        pass

    def validate(self, props: Mapping[str, str]) -> list[ConfigValue]:
        log.debug("validating %s", dict(props))
        return super().validate(props)

    def config(self) -> ConfigDef:
        return (
            ConfigDef()
            .define("db.password", ConfigType.PASSWORD, None, importance=Importance.HIGH)
            .define("api.token", ConfigType.PASSWORD, None, importance=Importance.HIGH)
            .define("lookalike.password", ConfigType.PASSWORD, None, importance=Importance.LOW)
            .define("region", ConfigType.STRING, "", importance=Importance.LOW)
            .define("retries", ConfigType.INT, 3, importance=Importance.LOW)
            .define("seen.file", ConfigType.STRING, importance=Importance.LOW)
        )


class SecretTransform(Transformation[Any]):
    """Passes records through; declares its own PASSWORD key ``lookup.secret``."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        log.debug("transform configured with %s", dict(configs))

    def config(self) -> ConfigDef:
        return ConfigDef().define("lookup.secret", ConfigType.PASSWORD, None)

    def apply(self, record: Any) -> Any:
        return record


# -- the markers ----------------------------------------------------------------------------
RUN = uuid.uuid4().hex[:10]


def _marker(kind: str) -> str:
    return f"S3CR3T{kind}{RUN}"


LITERAL = _marker("LITERAL")  # a PASSWORD-typed key, as typed
PROVIDED = _marker("PROVIDED")  # a PASSWORD-typed key, from a valid provider reference
PROVIDED_PLAIN = _marker("PROVIDEDPLAIN")  # a plain key, from a valid provider reference
LOOKALIKE = _marker("LOOKALIKE")  # a PASSWORD that looks like ${...} but is no reference
COLON_LOOKALIKE = _marker("COLONLOOK")  # a PASSWORD like ${x:y} naming no provider
PRODUCER_SASL = _marker("PRODUCERSASL")  # producer.override.sasl.password
PRODUCER_SSL = _marker("PRODUCERSSL")  # producer.override.ssl.key.password
CONSUMER_SSL = _marker("CONSUMERSSL")  # consumer.override.ssl.key.password
CONSUMER_JAAS = _marker("CONSUMERJAAS")  # consumer.override.sasl.jaas.config
ADMIN_SASL = _marker("ADMINSASL")  # admin.override.sasl.password
CONVERTER = _marker("CONVERTER")  # value.converter.basic.auth.user.info
TRANSFORM = _marker("TRANSFORM")  # a transform's own PASSWORD key
WORKER_SASL = _marker("WORKERSASL")  # the worker's producer.sasl.password
WORKER_PROVIDED = _marker("WORKERPROVIDED")  # the worker's consumer.ssl.key.password, provided
BAD_VALUE = _marker("BADVALUE")  # an invalid value resolved from a provider
VALIDATE = _marker("VALIDATE")  # submitted to config/validate only

ALL_MARKERS = [
    LITERAL,
    PROVIDED,
    PROVIDED_PLAIN,
    LOOKALIKE,
    COLON_LOOKALIKE,
    PRODUCER_SASL,
    PRODUCER_SSL,
    CONSUMER_SSL,
    CONSUMER_JAAS,
    ADMIN_SASL,
    CONVERTER,
    TRANSFORM,
    WORKER_SASL,
    WORKER_PROVIDED,
    BAD_VALUE,
    VALIDATE,
]


class LogCapture(logging.Handler):
    """Every record of the process, formatted with its traceback, at DEBUG."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass
class World:
    http: httpx.Client
    logs: LogCapture
    seen: Path
    secrets_file: Path
    app: Standalone


def _secret_config(world_seen: Path, secrets_file: Path, name: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "test_secrets:SecretSource",
        "tasks.max": "1",
        "seen.file": str(world_seen),
        "note": "original",
        "db.password": LITERAL,
        "api.token": f"${{file:{secrets_file}:token}}",
        "region": f"${{file:{secrets_file}:region}}",
        "lookalike.password": f"${{{LOOKALIKE}-not-a-reference}}",
        "producer.override.sasl.password": PRODUCER_SASL,
        "producer.override.ssl.key.password": PRODUCER_SSL,
        "consumer.override.ssl.key.password": CONSUMER_SSL,
        "consumer.override.sasl.jaas.config": (
            "org.apache.kafka.common.security.plain.PlainLoginModule required "
            f'username="connect" password="{CONSUMER_JAAS}";'
        ),
        "admin.override.sasl.password": ADMIN_SASL,
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter.basic.auth.user.info": f"user:{CONVERTER}",
        "transforms": "t",
        "transforms.t.type": "test_secrets:SecretTransform",
        "transforms.t.lookup.secret": TRANSFORM,
        **extra,
    }


@pytest.fixture(scope="module")
def world(kafka: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    tmp = tmp_path_factory.mktemp("secrets")
    secrets_file = tmp / "secrets.properties"
    secrets_file.write_text(
        f"token={PROVIDED}\nregion={PROVIDED_PLAIN}\nretries={BAD_VALUE}\n"
        f"worker.key={WORKER_PROVIDED}\n",
        encoding="utf-8",
    )
    capture = LogCapture()
    root = logging.getLogger()
    previous_level = root.level
    root.addHandler(capture)
    root.setLevel(logging.DEBUG)
    worker = worker_props(
        tmp,
        kafka,
        listeners="http://127.0.0.1:0",
        **{
            "config.providers": "file",
            "config.providers.file.class": "FileConfigProvider",
            "producer.sasl.password": WORKER_SASL,
            "consumer.ssl.key.password": f"${{file:{secrets_file}:worker.key}}",
        },
    )
    app = Standalone(worker)
    try:
        app.start()
        assert app.rest is not None
        with httpx.Client(base_url=app.rest.url, timeout=30) as http:
            yield World(http, capture, tmp / "seen.jsonl", secrets_file, app)
    finally:
        app.stop()
        root.removeHandler(capture)
        root.setLevel(previous_level)


def _assert_no_marker(where: str, text: str) -> None:
    leaked = [m for m in ALL_MARKERS if m in text]
    assert not leaked, f"{where} shows {leaked}:\n{text[:3000]}"


def _task_starts(seen: Path, name: str) -> list[dict[str, str]]:
    if not seen.exists():
        return []
    starts = []
    for line in seen.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["who"] == "task" and entry["props"].get("name") == name:
            starts.append(entry["props"])
    return starts


def _wait_task_state(http: httpx.Client, name: str, state: str) -> dict[str, Any]:
    def ok() -> bool:
        body = http.get(f"/connectors/{name}/status").json()
        return [t["state"] for t in body.get("tasks", [])] == [state]

    wait_for(ok, 30, f"{name}'s task {state}")
    body: dict[str, Any] = http.get(f"/connectors/{name}/status").json()
    return body


def test_no_secret_in_any_rest_body_or_log_line(world: World) -> None:
    http, seen = world.http, world.seen
    good, bad = f"good-{RUN}", f"failing-{RUN}"
    responses: list[tuple[str, httpx.Response]] = []

    def call(method: str, url: str, **kwargs: Any) -> httpx.Response:
        response = http.request(method, url, **kwargs)
        responses.append((f"{method} {url}", response))
        return response

    created = call(
        "POST",
        "/connectors",
        json={"name": good, "config": _secret_config(seen, world.secrets_file, good)},
    )
    assert created.status_code == 201, created.text
    failing = _secret_config(seen, world.secrets_file, bad, **{"fail.on.start": "true"})
    assert call("POST", "/connectors", json={"name": bad, "config": failing}).status_code == 201
    wait_for(lambda: len(_task_starts(seen, good)) == 1, 30, "the good task to start")
    _wait_task_state(http, good, "RUNNING")
    failed = _wait_task_state(http, bad, "FAILED")
    # The failing task's trace is there, naming the problem, with its secrets hidden.
    assert "cannot log in to the database" in failed["tasks"][0]["trace"]
    assert "[hidden]" in failed["tasks"][0]["trace"]

    # The task really got every secret.
    started = _task_starts(seen, good)[0]
    assert started["db.password"] == LITERAL
    assert started["api.token"] == PROVIDED
    assert started["region"] == PROVIDED_PLAIN
    assert started["producer.override.sasl.password"] == PRODUCER_SASL

    # Invalid configs: a provider-resolved value that is not a number, a PASSWORD like ${x:y}.
    invalid = call(
        "POST",
        "/connectors",
        json={
            "name": f"invalid-{RUN}",
            "config": _secret_config(
                seen,
                world.secrets_file,
                f"invalid-{RUN}",
                retries=f"${{file:{world.secrets_file}:retries}}",
            ),
        },
    )
    assert invalid.status_code == 400
    message = invalid.json()["message"]
    assert "Invalid value for configuration retries" in message
    assert "(value hidden: it comes from a config provider)" in message
    colon = call(
        "POST",
        "/connectors",
        json={
            "name": f"colon-{RUN}",
            "config": _secret_config(
                seen,
                world.secrets_file,
                f"colon-{RUN}",
                **{"db.password": f"${{{COLON_LOOKALIKE}:x}}"},
            ),
        },
    )
    assert colon.status_code == 400
    assert "'db.password'" in colon.json()["message"]

    for name in (good, bad):
        for url in (
            f"/connectors/{name}",
            f"/connectors/{name}/config",
            f"/connectors/{name}/status",
            f"/connectors/{name}/tasks",
            f"/connectors/{name}/tasks/0/status",
            f"/connectors/{name}/topics",
            f"/connectors/{name}/offsets",
        ):
            assert call("GET", url).status_code == 200, url
    for url in (
        "/",
        "/health",
        "/connectors",
        "/connectors?expand=info&expand=status",
        "/connector-plugins",
        "/connector-plugins?connectorsOnly=false",
        "/connector-plugins/test_secrets:SecretSource/config",
        "/admin/loggers",
        "/admin/loggers/kconnect",
        "/metrics",
    ):
        assert call("GET", url).status_code == 200, url
    call("PUT", "/admin/loggers/kconnect", json={"level": "DEBUG"})
    validate_config = _secret_config(seen, world.secrets_file, "v", **{"db.password": VALIDATE})
    validate_config["retries"] = "not-a-number"
    validated = call(
        "PUT", "/connector-plugins/test_secrets:SecretSource/config/validate", json=validate_config
    )
    assert validated.status_code == 200, validated.text
    values = {c["value"]["name"]: c["value"] for c in validated.json()["configs"]}
    assert values["db.password"]["value"] == "[hidden]"
    assert values["lookalike.password"]["value"] == "[hidden]"
    # A valid reference is not the secret: it shows as written.
    assert values["api.token"]["value"] == f"${{file:{world.secrets_file}:token}}"
    assert values["retries"]["errors"], "the bad retries value should be reported"
    # Hidden from the log lines of that call only: validating often does not make the
    # worker's set of secrets grow.
    assert scrub_secrets(VALIDATE) == VALIDATE

    assert call("POST", f"/connectors/{bad}/restart?includeTasks=true").status_code in (202, 204)
    assert call("POST", f"/connectors/{bad}/tasks/0/restart").status_code == 204
    _wait_task_state(http, bad, "FAILED")
    assert call("PUT", f"/connectors/{bad}/stop").status_code == 204
    assert call("GET", f"/connectors/{bad}/offsets").status_code == 200
    assert call("DELETE", f"/connectors/{bad}/offsets").status_code == 200
    assert call("DELETE", f"/connectors/{bad}").status_code == 204

    # The worker's own client passwords (literal and provided) are known secrets too.
    log.warning("worker clients use %s and %s", WORKER_SASL, WORKER_PROVIDED)

    for what, response in responses:
        _assert_no_marker(what, response.text)
        _assert_no_marker(f"{what} headers", str(dict(response.headers)))
    # The log at DEBUG saw the careless plugin's lines and the failure, with secrets hidden.
    text = world.logs.text
    assert "task starting with" in text
    assert "validating" in text
    assert "cannot log in to the database" in text
    _assert_no_marker("the worker log", text)


def test_rest_shows_hidden_and_valid_references_as_written(world: World) -> None:
    name = f"shown-{RUN}"
    config = _secret_config(world.seen, world.secrets_file, name)
    assert world.http.post("/connectors", json={"name": name, "config": config}).status_code == 201
    try:
        shown = world.http.get(f"/connectors/{name}/config").json()
        hidden = [
            "db.password",
            "lookalike.password",
            "producer.override.sasl.password",
            "producer.override.ssl.key.password",
            "consumer.override.ssl.key.password",
            "consumer.override.sasl.jaas.config",
            "admin.override.sasl.password",
            "value.converter.basic.auth.user.info",
            "transforms.t.lookup.secret",
        ]
        for key in hidden:
            assert shown[key] == "[hidden]", key
        assert shown["api.token"] == config["api.token"]  # a valid reference
        assert shown["region"] == config["region"]
        assert shown["note"] == "original"
        tasks = world.http.get(f"/connectors/{name}/tasks").json()
        for key in hidden:
            assert tasks[0]["config"][key] == "[hidden]", key
    finally:
        world.http.delete(f"/connectors/{name}")


def test_get_edit_put_keeps_every_secret(world: World) -> None:
    http, seen = world.http, world.seen
    name = f"rmw-{RUN}"
    config = _secret_config(seen, world.secrets_file, name)
    assert http.post("/connectors", json={"name": name, "config": config}).status_code == 201
    try:
        wait_for(lambda: len(_task_starts(seen, name)) == 1, 30, "the first task start")
        edited = http.get(f"/connectors/{name}/config").json()
        assert edited["db.password"] == "[hidden]"
        edited["note"] = "edited"
        put = http.put(f"/connectors/{name}/config", json=edited)
        assert put.status_code == 200, put.text
        _assert_no_marker("PUT response", put.text)
        wait_for(lambda: len(_task_starts(seen, name)) == 2, 30, "the restarted task")
        restarted = _task_starts(seen, name)[-1]
        assert restarted["note"] == "edited"
        for key, value in {
            "db.password": LITERAL,
            "api.token": PROVIDED,
            "lookalike.password": f"${{{LOOKALIKE}-not-a-reference}}",
            "producer.override.sasl.password": PRODUCER_SASL,
            "consumer.override.sasl.jaas.config": config["consumer.override.sasl.jaas.config"],
            "value.converter.basic.auth.user.info": f"user:{CONVERTER}",
            "transforms.t.lookup.secret": TRANSFORM,
        }.items():
            assert restarted[key] == value, key
        # GET after the PUT still shows the placeholder the operator wrote.
        assert http.get(f"/connectors/{name}/config").json()["api.token"] == config["api.token"]

        patch = http.patch(
            f"/connectors/{name}/config", json={"db.password": "[hidden]", "note": "patched"}
        )
        assert patch.status_code == 200, patch.text
        wait_for(lambda: len(_task_starts(seen, name)) == 3, 30, "the patched task")
        assert _task_starts(seen, name)[-1]["db.password"] == LITERAL
        assert _task_starts(seen, name)[-1]["note"] == "patched"

        # [hidden] for a key with nothing stored is refused, not stored literally.
        refused = http.put(
            f"/connectors/{name}/config", json={**edited, "new.secret.password": "[hidden]"}
        )
        assert refused.status_code == 400
        assert "new.secret.password" in refused.json()["message"]
    finally:
        http.delete(f"/connectors/{name}")


def test_hidden_on_create_is_refused(world: World) -> None:
    name = f"copied-{RUN}"
    config = _secret_config(world.seen, world.secrets_file, name, **{"db.password": "[hidden]"})
    response = world.http.post("/connectors", json={"name": name, "config": config})
    assert response.status_code == 400
    assert "db.password" in response.json()["message"]


def test_worker_config_error_hides_provided_value(tmp_path: Path) -> None:
    secrets_file = tmp_path / "worker-secrets.properties"
    secrets_file.write_text(f"interval={BAD_VALUE}\n", encoding="utf-8")
    props = worker_props(
        tmp_path,
        "127.0.0.1:1",  # never reached: the config is refused first
        **{
            "config.providers": "file",
            "config.providers.file.class": "FileConfigProvider",
            "offset.flush.interval.ms": f"${{file:{secrets_file}:interval}}",
        },
    )
    with pytest.raises(ConfigError) as info:
        Standalone(props).start()
    message = str(info.value)
    assert "offset.flush.interval.ms" in message
    assert "(value hidden: it comes from a config provider)" in message
    assert BAD_VALUE not in message
    assert info.value.__cause__ is None or BAD_VALUE not in str(info.value.__cause__)
