"""The ``kconnect`` Spark data source, found by Spark's lookup of ``pyspark_*`` modules.

Example:
    >>> spark.read.format("kconnect").option("connector.class", "FileStreamSource") \\
    ...     .option("file", "/tmp/in.txt").option("topic", "lines").load()

PySpark (4.x) imports every top-level module whose name starts with ``pyspark_`` and
registers its ``DefaultSource`` under ``DefaultSource.name()``; this module is that entry
point for :class:`kconnect_runtime.dataframes.KConnectDataSource`.

Spark's lookup imports every such module in one pass, so one that raises breaks every Python
data source of the session. With a PySpark that has the lookup but is older than the data
source needs (4.0), ``DefaultSource`` is a stand-in that fails each use of ``kconnect`` with
the reason (the versions found and what to install) instead.
"""

from __future__ import annotations

from typing import Any, NoReturn

try:
    from kconnect_runtime.dataframes import KConnectDataSource as DefaultSource
except ImportError as _exc:
    from pyspark.sql.datasource import DataSource

    _REASON = str(_exc)

    class DefaultSource(DataSource):  # type: ignore[no-redef]
        """``kconnect`` on a PySpark it cannot run on: every use says why."""

        @classmethod
        def name(cls) -> str:
            return "kconnect"

        def _fail(self) -> NoReturn:
            raise RuntimeError(_REASON)

        def schema(self) -> Any:
            self._fail()

        def reader(self, schema: Any) -> Any:
            self._fail()

        def writer(self, schema: Any, overwrite: bool) -> Any:
            self._fail()

        def streamReader(self, schema: Any) -> Any:
            self._fail()

        def streamWriter(self, schema: Any, overwrite: bool) -> Any:
            self._fail()


__all__ = ["DefaultSource"]
