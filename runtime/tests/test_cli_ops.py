"""The kcctl-style operator commands against a live worker on a real broker."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml
from kconnect_runtime import Standalone
from kconnect_runtime.cli import main
from kconnect_runtime.cli._output import to_yaml
from runtime_harness import file_source, wait_for, worker_props

pytestmark = pytest.mark.integration


def _name(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli")


@pytest.fixture(scope="module")
def url(kafka: str, workdir: Path) -> Iterator[str]:
    app = Standalone(worker_props(workdir, kafka, listeners="http://127.0.0.1:0"))
    app.start()
    assert app.rest is not None
    try:
        yield app.rest.url
    finally:
        app.stop()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _source(workdir: Path, lines: int = 3, **extra: str) -> tuple[str, Path]:
    name = _name("src")
    data = workdir / f"{name}.txt"
    data.write_text("".join(f"line {i}\n" for i in range(lines)))
    config = file_source(name, data, _name("topic"), **extra)
    path = workdir / f"{name}.json"
    path.write_text(json.dumps({"name": name, "config": config}))
    return name, path


def _state(url: str, name: str) -> tuple[str, list[str]]:
    body = httpx.get(f"{url}/connectors/{name}/status").json()
    return body["connector"]["state"], [t["state"] for t in body["tasks"]]


def test_apply_get_describe_and_formats(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, path = _source(workdir, **{"my.api.password": "s3cret-value"})

    code, out, _ = run(capsys, "apply", "-f", str(path), "--url", url)
    assert (code, out.strip()) == (0, f"connector {name} created")
    code, out, _ = run(capsys, "apply", "-f", str(path), "--url", url)
    assert (code, out.strip()) == (0, f"connector {name} unchanged")
    wait_for(lambda: _state(url, name) == ("RUNNING", ["RUNNING"]), 30, f"{name} running")

    code, out, _ = run(capsys, "get", "connectors", "--url", url)
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split() == ["NAME", "TYPE", "STATE", "TASKS", "WORKER", "VERSION"]
    row = next(r for r in rows if r.startswith(name))
    assert row.split()[:5] == [name, "source", "RUNNING", "0:", "RUNNING,"[:-1]]

    code, out, _ = run(capsys, "get", "connectors", "--url", url, "-o", "json")
    listed = {c["name"]: c for c in json.loads(out)}
    assert listed[name]["state"] == "RUNNING" and listed[name]["tasks"][0]["state"] == "RUNNING"
    code, out_yaml, _ = run(capsys, "get", "connectors", "--url", url, "-o", "yaml")
    assert yaml.safe_load(out_yaml) == json.loads(out)
    code, out, _ = run(capsys, "get", "connectors", "--url", url, "-o", "name")
    assert name in out.split()

    code, out, _ = run(capsys, "get", "plugins", "--url", url)
    assert code == 0 and "org.apache.kafka.connect.file.FileStreamSourceConnector" in out

    # Offsets reach the store after a flush (offset.flush.interval.ms=500).
    wait_for(
        lambda: bool(httpx.get(f"{url}/connectors/{name}/offsets").json()["offsets"]),
        30,
        "source offsets",
    )
    code, out, _ = run(capsys, "describe", "connector", name, "--url", url)
    assert code == 0
    assert f"Name:       {name}" in out and "State:      RUNNING" in out
    assert "my.api.password:" in out and "s3cret-value" not in out and "[hidden]" in out
    assert "Tasks:\n  0:\n    State:      RUNNING" in out
    assert "Offsets:" in out and str(workdir) in out.split("Offsets:")[1]
    code, out, _ = run(capsys, "describe", "connector", name, "--url", url, "-o", "json")
    described = json.loads(out)
    assert described["config"]["my.api.password"] == "[hidden]"
    assert described["offsets"][0]["offset"] == {"position": len("line 0\nline 1\nline 2\n")}

    code, out, _ = run(capsys, "describe", "plugin", "FileStreamSource", "--url", url)
    assert code == 0 and "file" in out.split() and "KEY" in out


def test_lifecycle_offsets_and_exit_codes(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, path = _source(workdir)
    assert run(capsys, "apply", "-f", str(path), "--url", url)[0] == 0
    wait_for(lambda: _state(url, name) == ("RUNNING", ["RUNNING"]), 30, f"{name} running")

    code, out, _ = run(capsys, "pause", "connector", name, "--url", url)
    assert (code, out.strip()) == (0, f"connector {name} paused")
    wait_for(lambda: _state(url, name) == ("PAUSED", ["PAUSED"]), 30, f"{name} paused")
    code, out, _ = run(capsys, "status", name, "--url", url)
    assert [line.split()[:3] for line in out.splitlines()[1:]] == [
        [name, "-", "PAUSED"],
        [name, "0", "PAUSED"],
    ]
    assert run(capsys, "resume", name, "--url", url)[0] == 0
    wait_for(lambda: _state(url, name) == ("RUNNING", ["RUNNING"]), 30, f"{name} resumed")

    code, out, _ = run(
        capsys, "restart", "connector", name, "--include-tasks", "--only-failed", "--url", url
    )
    assert code == 0 and f"connector {name} restarted" in out
    code, out, _ = run(capsys, "restart", "task", f"{name}/0", "--url", url)
    assert (code, out.strip()) == (0, f"task {name}/0 restarted")

    # Offsets: reset needs a STOPPED connector; the worker's refusal is exit 1 with its message.
    code, _, err = run(capsys, "offsets", "reset", name, "--url", url)
    assert code == 1 and "(HTTP 400)" in err and "stop" in err.lower()
    assert run(capsys, "stop", name, "--url", url)[0] == 0
    wait_for(lambda: _state(url, name)[0] == "STOPPED", 30, f"{name} stopped")
    wait_for(
        lambda: bool(httpx.get(f"{url}/connectors/{name}/offsets").json()["offsets"]), 30, "offsets"
    )
    code, out, _ = run(capsys, "offsets", "get", name, "--url", url, "-o", "json")
    offsets = json.loads(out)["offsets"]
    assert offsets[0]["offset"] == {"position": len("line 0\nline 1\nline 2\n")}
    alter = workdir / f"{name}-offsets.json"
    alter.write_text(json.dumps({"offsets": [{**offsets[0], "offset": {"position": 7}}]}))
    code, out, _ = run(capsys, "offsets", "alter", name, "-f", str(alter), "--url", url)
    assert code == 0 and "offsets" in out.lower()
    code, out, _ = run(capsys, "offsets", "get", name, "--url", url)
    assert '{"position": 7}' in out
    code, out, _ = run(capsys, "offsets", "reset", name, "--url", url)
    assert code == 0 and "reset" in out.lower()

    code, out, _ = run(capsys, "delete", "connector", name, "--url", url)
    assert (code, out.strip()) == (0, f"connector {name} deleted")
    code, _, err = run(capsys, "describe", "connector", name, "--url", url)
    assert code == 1 and f"Connector {name} not found (HTTP 404)" in err
    code, _, err = run(capsys, "get", "connectors", name, "--url", url)
    assert code == 1 and name in err

    code, _, err = run(capsys, "get", "connectors", "--url", "http://127.0.0.1:9")
    assert code == 3 and "cannot reach the Kafka Connect worker at http://127.0.0.1:9" in err
    with pytest.raises(SystemExit) as usage:
        main(["get", "things"])
    assert usage.value.code == 2


@pytest.mark.parametrize("name", ["..", "a/b", "50%off"])
def test_awkward_names_are_described_and_deleted(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    # Names the REST API accepts must be reachable through the CLI too: "/" and "%" travel
    # percent-encoded and ".." as %2E%2E, which no HTTP client drops as a dot segment.
    _, path = _source(workdir)
    config = json.loads(path.read_text())["config"]
    path.write_text(json.dumps({"name": name, "config": {**config, "name": name}}))
    assert run(capsys, "apply", "-f", str(path), "--url", url)[0] == 0
    code, out, _ = run(capsys, "describe", "connector", name, "--url", url, "-o", "json")
    assert code == 0 and json.loads(out)["name"] == name
    code, out, _ = run(capsys, "delete", "connector", name, "--url", url)
    assert (code, out.strip()) == (0, f"connector {name} deleted")
    code, _, err = run(capsys, "describe", "connector", name, "--url", url)
    assert code == 1 and "(HTTP 404)" in err


def test_apply_updates_and_warns_of_unknown_keys(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, path = _source(workdir)
    assert run(capsys, "apply", "-f", str(path), "--url", url)[0] == 0
    body = json.loads(path.read_text())
    body["config"]["tasks.max"] = "1"
    body["config"]["batch.sise"] = "100"
    path.write_text(json.dumps(body))
    code, out, err = run(capsys, "apply", "-f", str(path), "--url", url)
    assert (code, out.strip()) == (0, f"connector {name} updated")
    assert "unknown connector key 'batch.sise' (did you mean 'batch.size'?)" in err
    assert httpx.get(f"{url}/connectors/{name}/config").json()["tasks.max"] == "1"
    assert run(capsys, "delete", name, "--url", url)[0] == 0


def test_validate_reports_errors_and_suggestions_online_and_offline(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = workdir / "typo.properties"
    bad.write_text(
        "name=typo\nconnector.class=FileStreamSource\nfiel=/tmp/in.txt\ntopic=t\ntasks.max=x\n"
    )
    for extra in (["--url", url], ["--offline"]):
        code, out, _ = run(capsys, "validate", "-f", str(bad), *extra)
        assert code == 1, out
        lines = out.splitlines()
        # Named as Kafka's validate names it: connector.class as the config gives it.
        assert lines[0].startswith("typo (FileStreamSource):")
        assert any(line.startswith("  ERROR tasks.max: Invalid value x") for line in lines)
        assert "  WARN  fiel: unknown key (did you mean 'file'?); it is ignored" in lines
        code, out, _ = run(capsys, "validate", "-f", str(bad), *extra, "-o", "json")
        report = json.loads(out)
        assert report["unknown_keys"] == [{"key": "fiel", "suggestion": "file"}]
        assert report["error_count"] == len(report["errors"]) >= 1

    good = workdir / "good.json"
    good.write_text(
        json.dumps({"name": "good", "connector.class": "FileStreamSink", "topics": "t"})
    )
    code, out, _ = run(capsys, "validate", "-f", str(good), "--offline")
    assert code == 0 and "0 error(s), 0 unknown key(s)" in out and "the config is valid" in out


def test_a_file_without_a_name_names_its_connector(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = workdir / "unnamed.txt"
    data.write_text("one\n")
    config = file_source("ignored", data, _name("topic"))
    del config["name"]
    stem = _name("orders-source")
    path = workdir / f"{stem}.json"
    path.write_text(json.dumps(config))
    # validate and apply take the file's name, as their --help says; --name overrides it.
    code, out, _ = run(capsys, "validate", "-f", str(path), "--url", url)
    assert code == 0 and out.startswith(f"{stem} ("), out
    code, out, _ = run(capsys, "validate", "-f", str(path), "--url", url, "--name", "other")
    assert code == 0 and out.startswith("other ("), out
    assert run(capsys, "apply", "-f", str(path), "--url", url) == (
        0,
        f"connector {stem} created\n",
        "",
    )
    assert httpx.get(f"{url}/connectors/{stem}/config").json()["name"] == stem
    assert run(capsys, "delete", stem, "--url", url)[0] == 0


def test_validate_strict_fails_on_unknown_keys_only_when_asked(
    workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = workdir / "loose.properties"
    path.write_text("name=loose\nconnector.class=FileStreamSink\ntopics=t\nfiel=x\n")
    assert run(capsys, "validate", "-f", str(path), "--offline")[0] == 0
    code, out, _ = run(capsys, "validate", "-f", str(path), "--offline", "--strict")
    assert code == 1 and "fiel: unknown key" in out


@pytest.mark.parametrize(
    "command",
    [
        ["standalone"],
        ["distributed"],
        ["quickstart"],
        ["plugins", "list"],
        ["plugins", "install"],
        ["get"],
        ["apply"],
        ["validate"],
        ["status"],
        ["offsets"],
        ["restart"],
        ["pause"],
    ],
)
def test_every_command_describes_itself_with_examples(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*command, "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    description = text.split("\n\n")[1]
    assert description.strip().endswith("."), text
    examples = text.split("examples:\n", 1)[1]
    assert examples.lstrip().startswith(f"kconnect {command[0]}"), text


def test_an_operator_command_does_not_import_the_worker() -> None:
    # `kconnect get connectors` answers without the REST server, the Kafka clients or the
    # engines: importing them is most of a worker's start-up time.
    code = (
        "import sys\n"
        "from kconnect_runtime.cli import main\n"
        "main(['get', 'connectors', '--url', 'http://127.0.0.1:9'])\n"
        "heavy = [m for m in ('fastapi', 'confluent_kafka', 'kconnect_runtime.modes',"
        " 'kconnect_runtime.worker', 'httpx') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_status_watch_prints_each_change(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, path = _source(workdir)
    assert run(capsys, "apply", "-f", str(path), "--url", url)[0] == 0
    wait_for(lambda: _state(url, name) == ("RUNNING", ["RUNNING"]), 30, f"{name} running")
    result: list[int] = []
    watcher = threading.Thread(
        target=lambda: result.append(
            main(["status", name, "--watch", "--interval", "0.2", "--timeout", "6", "--url", url])
        )
    )
    watcher.start()
    time.sleep(1.0)
    httpx.put(f"{url}/connectors/{name}/pause")
    watcher.join(30)
    out = capsys.readouterr().out
    assert result == [0]
    assert f"{name}: RUNNING -> PAUSED" in out and f"{name}/0: RUNNING -> PAUSED" in out
    httpx.delete(f"{url}/connectors/{name}")


def test_basic_auth_options(kafka: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    users = tmp_path / "users.properties"
    users.write_text("admin: s3cret,admin\n")
    props = worker_props(
        tmp_path,
        kafka,
        listeners="http://127.0.0.1:0",
        **{"rest.basic.auth.user.file": str(users)},
    )
    app = Standalone(props)
    app.start()
    try:
        assert app.rest is not None
        code, _, err = run(capsys, "get", "connectors", "--url", app.rest.url)
        assert code == 1 and "(HTTP 401)" in err and "--user" in err
        code, out, _ = run(
            capsys,
            "get",
            "connectors",
            "--url",
            app.rest.url,
            "--user",
            "admin",
            "--password",
            "s3cret",
        )
        assert code == 0 and out.startswith("NAME")
    finally:
        app.stop()


def test_completion_script_completes_commands_and_subcommands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "kconnect.bash"
    code, out, _ = run(capsys, "completion", "bash")
    assert code == 0
    script.write_text(out)
    probe = (
        f"source {script}; COMP_WORDS=(kconnect ge); COMP_CWORD=1; _kconnect; echo ${{COMPREPLY[@]}}; "
        "COMP_WORDS=(kconnect get co); COMP_CWORD=2; _kconnect; echo ${COMPREPLY[@]}"
    )
    found = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True)
    assert found.stdout.splitlines() == ["get", "connectors"]


def test_yaml_output_reads_back_as_the_same_data() -> None:
    data = {
        "a": [1, 2.5, True, None, "yes", "on", "", "x: y", "#not a comment", "multi\nline"],
        "nested": {"empty": {}, "list": [], "items": [{"k": "v", "n": [1]}]},
        "trace": "java.lang.Exception: boom\n\tat Foo.bar(Foo.java:1)",
        "path": "/tmp/in.txt",
        "042": "007",
    }
    assert yaml.safe_load(to_yaml(data)) == data


def test_metrics_count_connectors_and_tasks_by_state(
    url: str, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    name, path = _source(workdir)
    assert run(capsys, "apply", "-f", str(path), "--url", url)[0] == 0
    assert run(capsys, "pause", name, "--url", url)[0] == 0
    wait_for(lambda: _state(url, name) == ("PAUSED", ["PAUSED"]), 30, f"{name} paused")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(httpx.get(f"{url}/metrics").text)
        for s in family.samples
    }
    label = (("connector", name),)
    assert samples[("kafka_connect_connect_worker_metrics_connector_paused_task_count", label)] == 1
    assert (
        samples[("kafka_connect_connect_worker_metrics_connector_running_task_count", label)] == 0
    )
    assert samples[("kafka_connect_connect_worker_metrics_connector_total_task_count", label)] == 1
    status = (("connector", name), ("status", "paused"))
    assert samples[("kafka_connect_connector_metrics_status", status)] == 1
    assert (
        samples[
            (
                "kafka_connect_connect_worker_metrics_connector_count_by_state",
                (("state", "paused"),),
            )
        ]
        >= 1
    )
    assert run(capsys, "delete", name, "--url", url)[0] == 0


def test_the_metrics_doc_lists_every_task_metric() -> None:
    from kconnect_runtime.metrics import SINK_METRICS, SOURCE_METRICS, TASK_METRICS, prometheus_name

    doc = (Path(__file__).resolve().parents[2] / "docs" / "metrics.md").read_text()
    missing = [
        prometheus_name(group, metric)
        for table in (TASK_METRICS, SOURCE_METRICS, SINK_METRICS)
        for group, metric, *_ in table
        if f"`{prometheus_name(group, metric)}`" not in doc
    ]
    assert missing == [], f"docs/metrics.md does not list {missing}"
