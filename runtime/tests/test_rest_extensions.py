"""REST extensions (``rest.extension.classes``) and Kafka's ``BasicAuthSecurityRestExtension``.

The expected answers of the basic-auth extension are Apache Kafka Connect 4.1.1's own, read
from its Java worker with the same JAAS file and requests (status, body, ``Content-Type``,
no ``WWW-Authenticate``).
"""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from kconnect_runtime import Standalone
from kconnect_runtime.plugins import PluginRegistry
from kconnect_runtime.rest import RestExtensions
from kconnect_sdk import ConfigError
from runtime_harness import doc_block, file_source, worker_props, write_props

BASIC_AUTH = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
REFUSED = "User cannot access the resource."


def _book_files(tmp: Path) -> tuple[Path, dict[str, str], str]:
    """docs/security.md's (the book's chapter 7) connect-jas.conf and credentials.properties,
    written where it says (``/tmp/`` moved to ``tmp``); its worker key and KAFKA_OPTS."""
    (tmp / "credentials.properties").write_text(doc_block("`credentials.properties`, one"))
    jaas = tmp / "connect-jas.conf"
    jaas.write_text(doc_block("A JAAS file, `connect-jas.conf`").replace("/tmp/", f"{tmp}/"))
    key, _, value = doc_block("In the worker properties").strip().partition("=")
    export = doc_block("which `kconnect` reads too").splitlines()[0]
    opts = export.removeprefix('export KAFKA_OPTS="').removesuffix('"')
    return jaas, {key: value}, opts.replace("/tmp/", f"{tmp}/")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.fixture
def book_worker(kafka: str, tmp_path: Path) -> Iterator[str]:
    """``kconnect standalone`` started as the book starts Kafka's: KAFKA_OPTS names the JAAS
    file, the worker properties name the extension."""
    jaas, extension, opts = _book_files(tmp_path)
    assert extension == {"rest.extension.classes": BASIC_AUTH}
    assert opts == f"-Djava.security.auth.login.config={jaas}"
    port = _free_port()
    props = worker_props(tmp_path, kafka, listeners=f"http://127.0.0.1:{port}", **extension)
    worker = write_props(tmp_path / "connect-standalone.properties", props)
    env = {**os.environ, "KAFKA_OPTS": opts}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kconnect_runtime.cli", "standalone", str(worker)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()[0].decode(errors="replace")
            try:
                httpx.get(url, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the worker's REST API never answered"
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


@pytest.mark.integration
def test_the_books_basic_auth_example(book_worker: str) -> None:
    shown = doc_block("browsers do not prompt").splitlines()
    assert shown[:2] == ["$ curl localhost:8083", REFUSED]
    refused = httpx.get(book_worker)  # $ curl localhost:8083
    assert refused.status_code == 401
    assert refused.text == REFUSED
    assert refused.headers["content-type"] == "application/json"
    assert "www-authenticate" not in refused.headers

    accepted = httpx.get(book_worker, auth=("mickael", "p4ss"))  # $ curl -u mickael:p4ss
    assert accepted.status_code == 200
    assert set(accepted.json()) >= {"version", "commit", "kafka_cluster_id"}
    assert httpx.get(f"{book_worker}/connectors", auth=("kate", "w0rd")).json() == []

    for user, password in (("kate", "nope"), ("nobody", "p4ss"), ("", "p4ss")):
        wrong = httpx.get(f"{book_worker}/connectors", auth=(user, password))
        assert (wrong.status_code, wrong.text) == (401, REFUSED), (user, password)


@pytest.mark.integration
def test_basic_auth_answers_as_kafkas_filter(book_worker: str) -> None:
    """The corners Kafka 4.1.1's JaasBasicAuthFilter answers, case by case."""
    with httpx.Client(base_url=book_worker, timeout=30) as api:
        # Matched first: a path or method nobody serves is 404/405 with no credentials.
        missing = api.get("/nonexistent")
        assert missing.status_code == 404
        assert missing.json() == {"error_code": 404, "message": "HTTP 404 Not Found"}
        assert api.delete("/").status_code == 405
        # Any case of the scheme; anything else is no credentials at all.
        assert (
            api.get("/connectors", headers={"Authorization": "basic bWlja2FlbDpwNHNz"}).json() == []
        )
        for header in ("Basic", "Bearer abc", "Basic " + base64.b64encode(b":p4ss").decode()):
            answer = api.get("/connectors", headers={"Authorization": header})
            assert (answer.status_code, answer.text) == (401, REFUSED), header
        assert api.get("/connectors/").status_code == 401
        # Malformed base64 is Java's decoder exception, mapped to a 500.
        for header, message in (
            ("Basic !!!", "Illegal base64 character 21"),
            ("Basic YQ=", "Input byte array has wrong 4-byte ending unit"),
            ("Basic a", "Input byte[] should at least have 2 bytes for base64 bytes"),
        ):
            answer = api.get("/connectors", headers={"Authorization": header})
            assert answer.status_code == 500, header
            assert answer.json() == {"error_code": 500, "message": message}
        # Workers' internal requests pass without credentials (whatever the route says then).
        internal = api.put("/connectors/x/fence")
        assert internal.status_code != 401
        assert api.post("/connectors/x/tasks", json=[]).status_code != 401


def _extensions(tmp: Path, monkeypatch: pytest.MonkeyPatch, opts: str | None) -> RestExtensions:
    if opts is None:
        monkeypatch.delenv("KAFKA_OPTS", raising=False)
    else:
        monkeypatch.setenv("KAFKA_OPTS", opts)
    props = {"rest.extension.classes": BASIC_AUTH}
    return RestExtensions.from_worker_config(PluginRegistry.discover(), props)


def test_basic_auth_needs_a_jaas_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match=r"KAFKA_OPTS=.*-Djava\.security\.auth\.login\.config"):
        _extensions(tmp_path, monkeypatch, None)
    with pytest.raises(ConfigError, match=r"cannot be read"):
        _extensions(tmp_path, monkeypatch, f"-Djava.security.auth.login.config={tmp_path}/none")


def test_a_jaas_file_that_does_not_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jaas = tmp_path / "connect-jas.conf"
    jaas.write_text(
        "KafkaConnect {\n"
        "    org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule re\n"
        'quired file="/tmp/credentials.properties";\n'
        "};\n"
    )
    opts = f"-Xmx1g -Djava.security.auth.login.config={jaas}"
    with pytest.raises(ConfigError, match=rf"{jaas}, line 2: invalid control flag 're'"):
        _extensions(tmp_path, monkeypatch, opts)
    jaas.write_text('KafkaConnect {\n  a.B required file="x"\n};\n')
    with pytest.raises(ConfigError, match=r"line 3: expected an option name or ';', found '}'"):
        _extensions(tmp_path, monkeypatch, opts)


def test_a_jaas_file_kconnect_cannot_serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jaas = tmp_path / "connect-jas.conf"
    opts = f"-Djava.security.auth.login.config={jaas}"
    jaas.write_text("KafkaServer {\n  a.B required;\n};\n")
    with pytest.raises(ConfigError, match=r"no KafkaConnect section \(it has: KafkaServer\)"):
        _extensions(tmp_path, monkeypatch, opts)
    jaas.write_text("KafkaConnect {\n  com.example.LdapLoginModule required;\n};\n")
    with pytest.raises(ConfigError, match=r"LdapLoginModule is a Java class kconnect cannot run"):
        _extensions(tmp_path, monkeypatch, opts)
    module = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"
    jaas.write_text(f'KafkaConnect {{\n  {module} required file="{tmp_path}/gone";\n}};\n')
    with pytest.raises(ConfigError, match=r"credentials file .*gone.* cannot be read"):
        _extensions(tmp_path, monkeypatch, opts)


@pytest.mark.integration
def test_an_unknown_extension_stops_the_worker(kafka: str, tmp_path: Path) -> None:
    props = worker_props(
        tmp_path, kafka, **{"rest.extension.classes": "com.example.NoSuchRestExtension"}
    )
    worker = write_props(tmp_path / "worker.properties", props)
    done = subprocess.run(
        [sys.executable, "-m", "kconnect_runtime.cli", "standalone", str(worker)],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    output = (done.stdout + done.stderr).decode(errors="replace")
    assert "rest.extension.classes" in output and "com.example.NoSuchRestExtension" in output


@pytest.mark.integration
def test_a_custom_extension_filters_routes_and_reads_the_cluster(
    kafka: str, tmp_path: Path
) -> None:
    props = worker_props(
        tmp_path,
        kafka,
        listeners="http://127.0.0.1:0",
        **{"rest.extension.classes": "runtime_harness:AuditRestExtension", "audit.stamp": "s1"},
    )
    source = file_source("audited", tmp_path / "in.txt", "audited-topic")
    app = Standalone(props, [source])
    app.start()
    try:
        assert app.rest is not None
        with httpx.Client(base_url=app.rest.url, timeout=30) as api:
            listing = api.get("/audit/connectors")
            assert listing.status_code == 200
            assert listing.json()["connectors"] == {"audited": "RUNNING"}
            assert listing.json()["cluster"] == api.get("/").json()["kafka_cluster_id"]
            assert listing.headers["x-audit"] == "s1"

            refused = api.delete("/connectors/audited")
            assert refused.status_code == 403
            assert refused.json() == {"error_code": 403, "message": "say why: X-Audit-Reason"}
            assert api.get("/connectors").json() == ["audited"]
            deleted = api.delete("/connectors/audited", headers={"X-Audit-Reason": "done"})
            assert deleted.status_code == 204
            assert api.get("/connectors").json() == []
    finally:
        app.stop()
