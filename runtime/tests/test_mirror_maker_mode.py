"""``kconnect mirror-maker``: what an operator sees before any cluster is reached."""

from __future__ import annotations

from pathlib import Path

import pytest
from kconnect_runtime.cli._main import main
from kconnect_runtime.modes import _mirror_maker

MM2 = "clusters = A, B\nA.bootstrap.servers = a:9092\nB.bootstrap.servers = b:9092\nA->B.enabled = true\n"


def test_without_the_mirror_plugin_the_install_line_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mm2.properties"
    config.write_text(MM2)
    # An environment without kconnect-connector-mirror declares no such entry point.
    monkeypatch.setattr(_mirror_maker.md, "entry_points", lambda group: [])
    assert main(["mirror-maker", str(config)]) == 1
    err = capsys.readouterr().err
    assert "needs the MirrorMaker plugin" in err
    assert "pip install 'kconnect[mirror]' (or pip install kconnect-connector-mirror)" in err


def test_a_file_without_clusters_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mm2.properties"
    config.write_text("A->B.enabled = true\n")
    assert main(["mirror-maker", str(config)]) == 1
    err = capsys.readouterr().err
    assert f"{config}: " in err and "'clusters' is required" in err


def test_internal_rest_takes_only_true_or_false(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mm2.properties"
    config.write_text(MM2 + "dedicated.mode.enable.internal.rest = yes\n")
    assert main(["mirror-maker", str(config)]) == 1
    assert capsys.readouterr().err.endswith(
        f"kconnect: error: {config}: Invalid value yes for configuration "
        "dedicated.mode.enable.internal.rest: Expected value to be either true or false\n"
    )
