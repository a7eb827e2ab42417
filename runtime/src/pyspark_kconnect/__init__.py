"""The ``kconnect`` Spark data source, found by Spark's lookup of ``pyspark_*`` modules.

Example:
    >>> spark.read.format("kconnect").option("connector.class", "FileStreamSource") \\
    ...     .option("file", "/tmp/in.txt").option("topic", "lines").load()

PySpark (4.x) imports every top-level module whose name starts with ``pyspark_`` and
registers its ``DefaultSource`` under ``DefaultSource.name()``; this module is that entry
point for :class:`kconnect_runtime.dataframes.KConnectDataSource`.
"""

from __future__ import annotations

from kconnect_runtime.dataframes import KConnectDataSource

DefaultSource = KConnectDataSource

__all__ = ["DefaultSource"]
