"""The zero-infrastructure default: ``kconnect quickstart`` and ``kconnect standalone``
without ``bootstrap.servers`` run on the embedded development broker (Tansu).

The rest of the suite runs on Apache Kafka; these tests (``-m tansu``, with one distributed
and one exactly-once test parametrized onto Tansu) keep the embedded default working.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.tansu]

CONFIG = Path(__file__).resolve().parents[2] / "config"


def test_quickstart_moves_the_sample_through_the_embedded_broker(tmp_path: Path) -> None:
    config = tmp_path / "config"
    shutil.copytree(CONFIG, config)
    # Kafka's file keeps offsets in /tmp/connect.offsets; a test must not touch a user's.
    worker = config / "connect-standalone.properties"
    text = worker.read_text()
    assert "offset.storage.file.filename=/tmp/connect.offsets" in text
    assert "bootstrap.servers=" not in text.replace("#bootstrap.servers=", "")
    worker.write_text(text.replace("/tmp/connect.offsets", str(tmp_path / "connect.offsets")))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kconnect_runtime.cli",
            "quickstart",
            "--config-dir",
            str(config),
            "--lines",
            "500",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "quickstart: done. 500 lines arrived" in done.stdout
    # The last progress line counts every line on both sides.
    last = [line for line in done.stdout.splitlines() if "progress:" in line][-1]
    assert "500 polled, 500 acknowledged by Kafka" in last, last
    assert "500 consumed, 500 put" in last, last
    assert "(broker: embedded Tansu)" in done.stdout
    assert "output matches the input" in done.stdout
    assert (tmp_path / "test.sink.txt").read_bytes() == (tmp_path / "test.txt").read_bytes()


def test_quickstart_outside_a_checkout_uses_the_shipped_copies_of_kafkas_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kconnect_runtime.cli._main import _quickstart_dir

    monkeypatch.chdir(tmp_path)  # no ./config here
    shipped = _quickstart_dir(None)
    assert shipped.is_absolute() and shipped.name == "quickstart"
    for name in (
        "connect-standalone.properties",
        "connect-file-source.properties",
        "connect-file-sink.properties",
    ):
        # The copies are Apache Kafka's files, byte for byte as the checkout's config/.
        assert (shipped / name).read_bytes() == (CONFIG / name).read_bytes(), name
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "connect-standalone.properties").write_text("x=1\n")
    assert _quickstart_dir(None) == Path("config")
    assert _quickstart_dir("elsewhere") == Path("elsewhere")
