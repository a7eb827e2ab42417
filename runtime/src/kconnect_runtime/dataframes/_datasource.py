"""The ``kconnect`` data source: PySpark's Python Data Source API over the connector catalogue.

This module is what Spark's lookup of data sources imports in every session (a Python process
of its own that imports every ``pyspark_*`` module, whether or not the session reads
``kconnect``), and what each of Spark's planner processes imports first when it unpickles the
data source. So it imports PySpark's data source classes only; the data path (pyarrow, the
plugin registry, the connector's tasks) is imported by the method that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
)

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

    from ._plan import ConnectorPlan

__all__ = ["KConnectDataSource"]


class KConnectDataSource(DataSource):
    """Any kconnect source connector as a DataFrame, any sink connector as a DataFrame sink.

    Options are the connector's config (``connector.class``, its keys, ``transforms``,
    ``key.converter``/``value.converter`` settings) plus the data source's own keys
    (``value.format``, ``key.format``, ``kconnect.*``; see ``docs/spark.md``).
    """

    @classmethod
    def name(cls) -> str:
        return "kconnect"

    def _source_plan(self) -> ConnectorPlan:
        # Spark pickles this object from the process that asked for the schema to the one
        # that plans the read: the plan made for the schema goes with it, so the connector
        # is started once per load(), not once per process.
        plan: ConnectorPlan | None = getattr(self, "_plan_cache", None)
        if plan is None:
            from kconnect_sdk import PluginKind

            from ._plan import plan_connector

            plan = plan_connector(self.options, PluginKind.SOURCE)
            self._plan_cache = plan
        return plan

    def _sink_plan(self) -> ConnectorPlan:
        from kconnect_sdk import PluginKind

        from ._plan import plan_connector

        return plan_connector(self.options, PluginKind.SINK)

    def schema(self) -> StructType:
        from pyspark.sql.pandas.types import from_arrow_schema

        from ._spark_io import source_schema

        return from_arrow_schema(source_schema(self._source_plan()))

    def reader(self, schema: StructType) -> DataSourceReader:
        from ._spark_io import BatchReader

        return BatchReader(self._source_plan(), schema)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        from ._spark_io import StreamReader

        return StreamReader(self._source_plan(), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        from ._spark_io import BatchWriter

        return BatchWriter(self._sink_plan())

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamArrowWriter:
        from ._spark_io import StreamWriter

        return StreamWriter(self._sink_plan())
