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

from ._compat import MIN_PYSPARK, DataSourceUnavailable, check_versions

check_versions()  # a clear ImportError naming the versions, before PySpark's own

from ._datasource import KConnectDataSource, source_schema  # noqa: E402
from ._plan import ConnectorPlan, plan_connector  # noqa: E402
from ._types import arrow_type, connect_schema  # noqa: E402

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
