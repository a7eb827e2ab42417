"""Every kconnect connector as a Spark data source and sink (PySpark's Python Data Source API).

Example:
    >>> df = (
    ...     spark.read.format("kconnect")
    ...     .option("connector.class", "io.confluent.connect.jdbc.JdbcSourceConnector")
    ...     .option("connection.url", "jdbc:mysql://db:3306/shop")
    ...     .option("mode", "bulk")
    ...     .option("table.whitelist", "orders")
    ...     .load()
    ... )
    >>> df.select("value.*").write.parquet("/data/orders")

``spark.read.format("kconnect")`` finds the data source with no registration call once
``kconnect-runtime`` is installed (its top-level ``pyspark_kconnect`` module is what Spark's
lookup of ``pyspark_*`` modules finds); ``spark.dataSource.register(KConnectDataSource)``
works too. Source connectors read in batch (sources that end) or as a stream whose
checkpointed offsets are the connector's source offsets; sink connectors write batch or
streaming DataFrames. See ``docs/spark.md``. Needs ``pyspark>=4.1`` and ``pyarrow`` (``kconnect-runtime[spark]``); importing this
package with less raises :class:`DataSourceUnavailable` saying what is installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._compat import MIN_PYSPARK, DataSourceUnavailable, check_versions

check_versions()  # a clear ImportError naming the versions, before PySpark's own

from ._datasource import KConnectDataSource  # noqa: E402

if TYPE_CHECKING:
    from ._plan import ConnectorPlan, plan_connector
    from ._spark_io import source_schema
    from ._types import arrow_type, connect_schema

# Everything but the data source itself is imported on first use: Spark's lookup of data
# sources imports this package in a Python process of its own in every session.
_LAZY = {
    "ConnectorPlan": "._plan",
    "plan_connector": "._plan",
    "source_schema": "._spark_io",
    "arrow_type": "._types",
    "connect_schema": "._types",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "MIN_PYSPARK",
    "ConnectorPlan",
    "DataSourceUnavailable",
    "KConnectDataSource",
    "arrow_type",
    "connect_schema",
    "plan_connector",
    "source_schema",
]
