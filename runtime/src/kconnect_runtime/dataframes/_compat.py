"""What the data source needs of the installed PySpark and pyarrow, checked before import."""

from __future__ import annotations

import importlib.metadata
import importlib.util

from packaging.version import InvalidVersion, Version

__all__ = ["MIN_PYSPARK", "DataSourceUnavailable", "check_versions"]

MIN_PYSPARK = "4.1"
"""The first PySpark with every class the data source uses (``DataSourceStreamArrowWriter``)."""

_INSTALL = "pip install 'kconnect-runtime[spark]' (pyspark>=4.1 and pyarrow)"


class DataSourceUnavailable(ImportError):
    """The ``kconnect`` data source cannot run with what is installed; the text says why."""


def check_versions(pyspark_version: str | None = None, have_pyarrow: bool | None = None) -> None:
    """Raise :class:`DataSourceUnavailable` unless PySpark >= 4.1 and pyarrow are installed.

    Args:
        pyspark_version: The version to judge (default: the installed distribution's).
        have_pyarrow: Whether pyarrow is importable (default: looked up).
    """
    if pyspark_version is None:
        pyspark_version = _installed_pyspark()
        if pyspark_version is None:
            raise DataSourceUnavailable(
                f"the kconnect Spark data source needs PySpark {MIN_PYSPARK} or later, and "
                f"PySpark is not installed: {_INSTALL}"
            )
    try:
        too_old = Version(pyspark_version) < Version(MIN_PYSPARK)
    except InvalidVersion:
        too_old = False  # a local build: let the imports decide
    if too_old:
        raise DataSourceUnavailable(
            f"the kconnect Spark data source needs PySpark {MIN_PYSPARK} or later (its Python "
            f"Data Source API with Arrow writers, DataSourceStreamArrowWriter), but PySpark "
            f"{pyspark_version} is installed: {_INSTALL}"
        )
    if have_pyarrow is None:
        have_pyarrow = importlib.util.find_spec("pyarrow") is not None
    if not have_pyarrow:
        raise DataSourceUnavailable(
            "the kconnect Spark data source moves rows as Arrow record batches and needs "
            f"pyarrow, which is not installed: {_INSTALL}"
        )


def _installed_pyspark() -> str | None:
    """The importable PySpark's version: its distribution's, or, for a PySpark found without
    distribution metadata (the ``pyspark.zip`` on a Spark image's or an executor's
    PYTHONPATH), the one it declares in ``pyspark.version``."""
    try:
        return importlib.metadata.version("pyspark")
    except importlib.metadata.PackageNotFoundError:
        pass
    if importlib.util.find_spec("pyspark") is None:
        return None
    from pyspark.version import __version__

    return str(__version__)
