"""The data source says which PySpark and pyarrow it needs, instead of failing on an import."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from kconnect_runtime.dataframes import MIN_PYSPARK, DataSourceUnavailable
from kconnect_runtime.dataframes._compat import check_versions


@pytest.mark.parametrize("version", ["3.5.3", "4.0.1"])
def test_an_older_pyspark_is_refused_naming_both_versions(version: str) -> None:
    with pytest.raises(DataSourceUnavailable) as info:
        check_versions(version, have_pyarrow=True)
    text = str(info.value)
    assert f"PySpark {version} is installed" in text
    assert f"PySpark {MIN_PYSPARK} or later" in text
    assert "pip install 'kconnect-runtime[spark]'" in text


def test_missing_pyarrow_is_refused() -> None:
    with pytest.raises(DataSourceUnavailable, match="needs pyarrow, which is not installed"):
        check_versions("4.1.0", have_pyarrow=False)


@pytest.mark.parametrize("version", ["4.1.0", "4.3.0", "5.0.0.dev0"])
def test_supported_versions_pass(version: str) -> None:
    check_versions(version, have_pyarrow=True)


def test_spark_lookup_module_on_pyspark_4_0_names_the_reason() -> None:
    """Spark imports every ``pyspark_*`` module in one pass: ours must not raise there."""
    script = textwrap.dedent(
        """
        import importlib.metadata
        real = importlib.metadata.version
        importlib.metadata.version = lambda name: "4.0.1" if name == "pyspark" else real(name)
        import pyspark_kconnect
        from pyspark.sql.datasource import DataSource
        source = pyspark_kconnect.DefaultSource
        assert issubclass(source, DataSource) and source.name() == "kconnect"
        try:
            source(options={}).schema()
        except RuntimeError as exc:
            print(exc)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert "PySpark 4.0.1 is installed" in out.stdout, out.stdout + out.stderr
    assert "kconnect-runtime[spark]" in out.stdout


def test_a_pyspark_without_distribution_metadata_is_judged_by_its_own_version(
    tmp_path: Path,
) -> None:
    """Executors of a cluster import PySpark from the cluster's ``pyspark.zip``, which has no
    ``*.dist-info``: the check reads ``pyspark.version`` instead of refusing it."""
    import packaging
    import pyspark

    lib = Path(pyspark.__file__).parent / "python" / "lib"
    zipped = lib / "pyspark.zip"
    assert zipped.is_file(), zipped
    # What an executor's Python worker gets (Spark's pyspark.zip and py4j zip) and packaging:
    # no site-packages, so no pyspark metadata.
    shutil.copytree(Path(packaging.__file__).parent, tmp_path / "packaging")
    compat = Path(check_versions.__code__.co_filename)
    script = textwrap.dedent(
        f"""
        import importlib.metadata, importlib.util
        try:
            importlib.metadata.version("pyspark")
            raise SystemExit("pyspark metadata is visible: the test proves nothing")
        except importlib.metadata.PackageNotFoundError:
            pass
        spec = importlib.util.spec_from_file_location("compat", {str(compat)!r})
        compat = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(compat)
        compat.check_versions(have_pyarrow=True)
        print(compat._installed_pyspark())
        """
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", script],
        env={
            "PYTHONPATH": os.pathsep.join(
                [str(zipped), *map(str, lib.glob("py4j-*.zip")), str(tmp_path)]
            )
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == pyspark.__version__


def test_spark_lookup_and_planning_import_no_data_path() -> None:
    """Every session's first Python data source lookup imports ``pyspark_kconnect`` in a
    process of its own, and Spark's planner process unpickles the data source and its plan
    only to hand them on: neither pays for pyarrow, the plugin registry or the data path."""
    script = textwrap.dedent(
        """
        import pickle, sys
        import pyspark_kconnect
        heavy = ("pyarrow", "kconnect_runtime.plugins", "kconnect_runtime.tasks",
                 "kconnect_runtime.dataframes._source")
        print("lookup", [m for m in heavy if m in sys.modules])
        from kconnect_runtime.dataframes import ConnectorPlan
        from kconnect_sdk import PluginKind
        plan = ConnectorPlan("c", "FileStreamSource", PluginKind.SOURCE, {}, ({},), {})
        source = pyspark_kconnect.DefaultSource(options={})
        source._plan_cache = plan
        blob = pickle.dumps(source)
        for name in [m for m in sys.modules if m.startswith("kconnect_runtime")]:
            del sys.modules[name]
        pickle.loads(blob)
        print("planner", [m for m in heavy if m in sys.modules])
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert "lookup []" in out.stdout, out.stdout + out.stderr
    assert "planner []" in out.stdout, out.stdout + out.stderr
